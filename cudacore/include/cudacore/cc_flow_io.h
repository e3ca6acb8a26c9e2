/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flow fields (cc_flow.h) in Middlebury .flo files, and their error against a ground
 * truth: host only (no stream, no wait), for tools and tests. */
#ifndef CUDACORE_CC_FLOW_IO_H
#define CUDACORE_CC_FLOW_IO_H

#include "cc_flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Middlebury .flo: "PIEH" magic (202021.25f), int32 width, height, then u, v
 * float32 row-major. Values above 1e9 mean unknown.
 * cc_flo_read: [in] path. [out] flow_out: a host F32C2 image (free it with
 * cc_flo_free); zeroed on error. Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (NULL);
 * CC_ERROR_IO (cannot open); CC_ERROR_CORRUPT_DATA (bad magic, a size outside
 * 1..65536, truncated); CC_ERROR_OUT_OF_MEMORY.
 * cc_flo_write: [in] path. [in] flow: a host F32C2 image. Returns CC_SUCCESS,
 * CC_ERROR_INVALID_ARGUMENT, CC_ERROR_IO. */
cc_status cc_flo_read (const char *path, cc_image *flow_out);
cc_status cc_flo_write (const char *path, const cc_image *flow);
/* Frees the memory of cc_flo_read and sets planes[0] to NULL; NULL: no-op. */
void cc_flo_free (cc_image *flow);

typedef struct cc_flow_metrics {
  double epe;            /* mean end-point error, px */
  double angular_error;  /* mean angular error (Barron et al.), degrees */
  double over1, over3, over5; /* share of pixels with EPE > 1, 3, 5 px (0..1) */
  long counted;          /* pixels with known ground truth inside the border */
} cc_flow_metrics;

/* Compares host F32C2 fields of equal size; skips unknown ground truth (|v| > 1e9),
 * non-finite estimates count as wrong by their ground-truth magnitude + 1e3,
 * and `border` pixels at each edge are left out.
 * [in] estimate, truth: host F32C2, same size. [in] border: >= 0. [out] out.
 * Returns CC_SUCCESS or CC_ERROR_INVALID_ARGUMENT. */
cc_status cc_flow_compare (const cc_image *estimate, const cc_image *truth,
    int border, cc_flow_metrics *out);

#ifdef __cplusplus
}
#endif
#endif
