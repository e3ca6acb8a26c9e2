/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between blockmatch.c (dispatcher + CPU reference) and kernels/blockmatch.cu. */
#ifndef CUDACORE_BLOCKMATCH_INTERNAL_H
#define CUDACORE_BLOCKMATCH_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_blockmatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pyramid (2x2 box, rounded, borders replicated) and block grids per level.
 * Level l >= 1 exists only when it is at least one block on each side. */
typedef struct cc_bm_layout {
  int levels, block;
  int width[CC_BLOCKMATCH_LEVELS_MAX], height[CC_BLOCKMATCH_LEVELS_MAX];
  int grid_w[CC_BLOCKMATCH_LEVELS_MAX], grid_h[CC_BLOCKMATCH_LEVELS_MAX];
  int radius[CC_BLOCKMATCH_LEVELS_MAX];   /* search radius at each level */
} cc_bm_layout;

void cc_bm_layout_compute (int width, int height, const cc_blockmatch_params *params,
    cc_bm_layout *out);

/* CUDA backend (kernels/blockmatch.cu). */
typedef struct cc_cuda_bm cc_cuda_bm;
cc_status cc_cuda_bm_create (cc_context *ctx, const cc_bm_layout *layout, cc_cuda_bm **out);
void cc_cuda_bm_destroy (cc_cuda_bm *state);
/* Frames and outputs: host or device views (host ones are staged). */
cc_status cc_cuda_bm_compute (cc_cuda_bm *state, cc_stream stream, const cc_blockmatch_params *params,
    const cc_image *prev, const cc_image *next, cc_image *grid_flow,
    cc_image *grid_confidence, cc_image *dense_flow);

#ifdef __cplusplus
}
#endif
#endif
