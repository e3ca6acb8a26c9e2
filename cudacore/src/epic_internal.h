/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between epic.c (the method, CPU steps) and kernels/epic.cu. */
#ifndef CUDACORE_EPIC_INTERNAL_H
#define CUDACORE_EPIC_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_epic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA steps of the method (kernels/epic.cu); everything on the device, on `stream`.
 * Reversed matches (x + u, y + v) -> (-u, -v) and the count of surviving ones
 * (*valid, a device int). */
cc_status cc_cuda_epic_reverse (cc_stream stream, const cc_flow_match *in, int n,
    cc_flow_match *out, int *valid);
/* Confidence of `flow` against the backward field; flow and confidence become zero
 * when *valid is 0. */
cc_status cc_cuda_epic_confidence (cc_stream stream, const int *valid, cc_image *flow,
    const cc_image *backward, cc_image *confidence);

#ifdef __cplusplus
}
#endif
#endif
