/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between refine.c (dispatcher + CPU reference) and kernels/refine.cu. */
#ifndef CUDACORE_REFINE_INTERNAL_H
#define CUDACORE_REFINE_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_refine.h"
#include "cc_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Levels under this size on a side are not refined (level 0 always is). */
#define CC_REFINE_MIN_LEVEL_SIZE 16

/* Level l is ((w_{l-1} + 1) / 2, (h_{l-1} + 1) / 2); pixel x of level l sits on
 * pixel 2x of level l - 1 (5-tap binomial blur sampled at even pixels, as LK). */
typedef struct cc_refine_sizes {
  int levels;
  int width[CC_REFINE_LEVELS_MAX], height[CC_REFINE_LEVELS_MAX];
} cc_refine_sizes;

void cc_refine_sizes_compute (int width, int height, int wanted, cc_refine_sizes *out);

/* CUDA backend (kernels/refine.cu; its sweeps in refine_sor.cu and refine_sor_h2.cu). */
typedef struct cc_cuda_refine cc_cuda_refine;
cc_status cc_cuda_refine_create (cc_context *ctx, const cc_refine_sizes *sizes,
    int max_outer, cc_cuda_refine **out);
void cc_cuda_refine_destroy (cc_cuda_refine *state);
/* Frames, flow_in and flow_out: host or device views (host ones are staged). With
 * tuning->track_energy, energies go to a device array read by _energies. */
cc_status cc_cuda_refine_compute (cc_cuda_refine *state, cc_stream stream,
    const cc_refine_params *params, const cc_refine_tuning *tuning, const cc_image *prev,
    const cc_image *next, const cc_image *flow_in, cc_image *flow_out);
/* Copies `count` energies of the last run to the host (waits). */
cc_status cc_cuda_refine_energies (cc_cuda_refine *state, double *out, int count);

#ifdef __cplusplus
}
#endif
#endif
