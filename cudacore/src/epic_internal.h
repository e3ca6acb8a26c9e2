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
 * The count of surviving matches (*valid, a device int). */
cc_status cc_cuda_epic_count (cc_stream stream, const cc_flow_match *in, int n, int *valid);
/* Confidence (when not NULL: the interpolation's, times the frames' agreement along
 * the vector, cc_epic_confidence); flow and confidence become zero when *valid is 0. */
cc_status cc_cuda_epic_finish (cc_stream stream, const int *valid, const cc_image *prev,
    const cc_image *next, cc_image *flow, cc_image *confidence);

#ifdef __cplusplus
}
#endif
#endif
