/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between interp.c (API + CPU reference) and kernels/interp.cu. */
#ifndef CUDACORE_INTERP_INTERNAL_H
#define CUDACORE_INTERP_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_epic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dijkstra candidates kept per seed (cc_interp_knn); beyond, the farthest drop. */
#define CC_INTERP_CANDIDATES 512

/* Floats per seed model (cc_interp_fit_points): the affine model of u and v, the
 * neighbours' spread and mean match confidence. */
#define CC_INTERP_MODEL 8

/* The smallest cc_interp_params.cell: scratch is sized for it at create, so any
 * cell may be set later. */
#define CC_INTERP_MIN_CELL 2

/* Seeds: at most one per cell x cell block of pixels (the lowest match index of the
 * block wins), so a frame has at most cc_interp_blocks () of them and the seed
 * graph (planar: at most 3 edges per seed) fits a table allocated at create. */
static inline int
cc_interp_blocks (int width, int height, int cell)
{
  return ((width + cell - 1) / cell) * ((height + cell - 1) / cell);
}

/* Global tile rounds of the CUDA geodesic relaxation (each converges its 32 x 32
 * tile): enough for paths that cross the frame twice; converged frames stop early. */
/* Slots of the open-addressing table of seed-graph edges: a power of two >= 4 x the
 * most seeds (load <= 3/4 for a planar graph: at most 3 edges per seed). */
static inline int
cc_interp_table_size (int width, int height)
{
  long long need = 4LL * cc_interp_blocks (width, height, CC_INTERP_MIN_CELL), t = 64;
  while (t < need)
    t <<= 1;
  return (int) t;
}

static inline int
cc_interp_rounds (int width, int height)
{
  return 2 * ((width + 31) / 32 + (height + 31) / 32) + 8;
}

/* What the seeds' models hold (CC_INTERP_FIT_*, interp_hostdev.h) and how far from its
 * seed a pixel's flow follows the trend (cc_interp_apply's reach) under params p. */
static inline int
cc_interp_fit_mode (const cc_interp_params *p)
{
  return p->affine ? 1 : (p->extrapolate > 0.0f ? 2 : 0);
}

static inline float
cc_interp_reach (const cc_interp_params *p)
{
  return p->affine ? 0.0f : p->extrapolate;
}

/* The robust mean's scale (cc_interp_fit_points) under params p: 0 with affine fits. */
static inline float
cc_interp_robust (const cc_interp_params *p)
{
  return p->affine ? 0.0f : p->robust;
}

/* CUDA backend (kernels/interp.cu). */
typedef struct cc_cuda_interp cc_cuda_interp;
cc_status cc_cuda_interp_create (cc_context *ctx, int width, int height,
    cc_cuda_interp **out);
void cc_cuda_interp_destroy (cc_cuda_interp *state);
/* frame, matches and flow on the device. */
cc_status cc_cuda_interp_compute (cc_cuda_interp *state, cc_stream stream,
    const cc_interp_params *params, const cc_image *frame, const cc_flow_match *matches,
    int n, cc_image *flow);
/* Per-pixel confidence of the last run (cc_interp_pixel_confidence). */
cc_status cc_cuda_interp_confidence (cc_cuda_interp *state, cc_stream stream,
    const cc_flow_match *matches, cc_image *confidence);
/* Device copies of the last run's cost map (F32) and geodesic keys (for tests,
 * synchronous). Either may be NULL. */
cc_status cc_cuda_interp_debug (cc_cuda_interp *state, float *cost, uint64_t *keys);

/* The same of the CPU backend (interp.c), and the entry point tests use. */
cc_status cc_interp_debug (cc_interp *ip, float *cost, uint64_t *keys);

#ifdef __cplusplus
}
#endif
#endif
