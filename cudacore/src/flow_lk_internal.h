/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between flow_lk.c (dispatcher + CPU reference) and kernels/flow_lk.cu. */
#ifndef CUDACORE_FLOW_LK_INTERNAL_H
#define CUDACORE_FLOW_LK_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_flow_lk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Level sizes: level 0 is the frame; level l is ((w_{l-1}+1)/2, (h_{l-1}+1)/2);
 * levels smaller than CC_LK_MIN_LEVEL_SIZE on a side are not built. */
#define CC_LK_MIN_LEVEL_SIZE 8

typedef struct cc_lk_pyramid_sizes {
  int levels;
  int width[CC_FLOW_LK_LEVELS_MAX], height[CC_FLOW_LK_LEVELS_MAX];
} cc_lk_pyramid_sizes;

void cc_lk_pyramid_sizes_compute (int width, int height, int wanted_levels,
    cc_lk_pyramid_sizes *out);

/* CUDA backend state (kernels/flow_lk.cu). Two frame slots hold pyramids. */
typedef struct cc_cuda_lk cc_cuda_lk;
cc_status cc_cuda_lk_create (cc_context *ctx, const cc_lk_pyramid_sizes *sizes,
    bool need_backward, cc_cuda_lk **out);
void cc_cuda_lk_destroy (cc_cuda_lk *state);
/* Builds the pyramid of `frame` (device or host: host frames are uploaded) in slot. */
cc_status cc_cuda_lk_build_pyramid (cc_cuda_lk *state, cc_stream stream, int slot, const cc_image *frame);
/* Flow from slot_prev to slot_next into flow/confidence (device or host views). */
cc_status cc_cuda_lk_flow (cc_cuda_lk *state, cc_stream stream, int slot_prev, int slot_next,
    const cc_flow_lk_params *params, const cc_image *mask, cc_image *flow,
    cc_image *confidence);

#ifdef __cplusplus
}
#endif
#endif
