/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef CUDACORE_FLOW_VIS_INTERNAL_H
#define CUDACORE_FLOW_VIS_INTERNAL_H
#include "cc_internal.h"
#include "cudacore/cc_flow_vis.h"
#ifdef __cplusplus
extern "C" {
#endif
cc_status cc_cuda_flow_vis_draw (cc_stream stream, const cc_image *flow,
    const cc_image *confidence, const cc_flow_vis_params *params, cc_image *frame);
#ifdef __cplusplus
}
#endif
#endif
