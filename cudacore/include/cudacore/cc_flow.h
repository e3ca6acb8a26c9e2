/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dense optical flow fields, what the flow modules share (cc_flow_lk.h,
 * cc_blockmatch.h, cc_epic.h, cc_refine.h) and what draws (cc_flow_vis.h), files and
 * metrics (cc_flow_io.h) read.
 *
 * A flow field is an F32C2 image (u, v in pixels of the flow grid: a vector at
 * grid cell (x, y) moves the point (x, y) of frame 1 to (x + u, y + v) in frame 2)
 * and an F32 confidence image of the same size. */
#ifndef CUDACORE_CC_FLOW_H
#define CUDACORE_CC_FLOW_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Confidence of a vector that failed a validity check (LK's forward-backward check):
 * its vector is kept, and drawing shows it as invalid. */
#define CC_FLOW_INVALID (-1.0f)

#ifdef __cplusplus
}
#endif
#endif
