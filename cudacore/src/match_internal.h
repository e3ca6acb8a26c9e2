/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between match.c (API, CPU reference) and kernels/match.cu. */
#ifndef CUDACORE_MATCH_INTERNAL_H
#define CUDACORE_MATCH_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_epic.h"
#include "match_hostdev.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_MATCH_LEVELS_MAX 8

/* Pyramid (2x2 box means of the 8-bit luma, as block matching's) and the seed grid. */
typedef struct cc_match_layout {
  int levels;
  int width[CC_MATCH_LEVELS_MAX], height[CC_MATCH_LEVELS_MAX];
  int maxd[CC_MATCH_LEVELS_MAX];     /* displacement bound per axis, level px */
  int radius[CC_MATCH_LEVELS_MAX];   /* random-search radius, level px */
  int full_w, full_h;
  int gw, gh, step;
} cc_match_layout;

void cc_match_layout_compute (int width, int height, const cc_match_params *params,
    cc_match_layout *out);
/* The view of level l, direction dir over census planes `from` / `to` and the
 * direction's flow / cost arrays. */
cc_match_view cc_match_view_make (const cc_match_layout *layout, int level, int dir,
    const uint32_t *from, const uint32_t *to, int *flow, int *cost);

/* The last compute's next frame becomes prev (cc_match_compute_sequence): its
 * pyramid, smoothed levels and census codes swap slots with prev's (both backends). */
static inline void
cc_match_swap_slots (uint16_t *luma[2][CC_MATCH_LEVELS_MAX],
    uint16_t *smooth[2][CC_MATCH_LEVELS_MAX], uint32_t *census[2][CC_MATCH_LEVELS_MAX])
{
  for (int l = 0; l < CC_MATCH_LEVELS_MAX; l++) {
    uint16_t *t = luma[0][l];
    luma[0][l] = luma[1][l];
    luma[1][l] = t;
    t = smooth[0][l];
    smooth[0][l] = smooth[1][l];
    smooth[1][l] = t;
    uint32_t *c = census[0][l];
    census[0][l] = census[1][l];
    census[1][l] = c;
  }
}

/* CUDA backend (kernels/match.cu). */
typedef struct cc_cuda_match cc_cuda_match;
cc_status cc_cuda_match_create (cc_context *ctx, const cc_match_layout *layout,
    cc_cuda_match **out);
void cc_cuda_match_destroy (cc_cuda_match *state);
/* Device frames; the matches stay on the device. stream: resolved (never NULL).
 * reuse_prev: prev is the last compute's next, whose pyramid is kept (slots swap). */
cc_status cc_cuda_match_compute (cc_cuda_match *state, cc_stream stream,
    const cc_match_params *params, const cc_image *prev, const cc_image *next,
    bool reuse_prev);

/* cc_match_compute for consecutive pairs of a stream (cc_epic_compute_video): when
 * `reuse_prev`, prev is the last compute's next frame, unchanged, and its pyramid and
 * census codes are reused (the same matches as cc_match_compute). Returns
 * INVALID_ARGUMENT for reuse_prev when the handle has no such frame (new scratch since,
 * or no compute yet). */
cc_status cc_match_compute_sequence (cc_match *m, cc_stream stream, const cc_image *prev,
    const cc_image *next, bool reuse_prev);
/* Whether the handle holds the last compute's next frame's pyramid (since its scratch
 * was made). */
bool cc_match_has_next (const cc_match *m);
const cc_flow_match *cc_cuda_match_matches (const cc_cuda_match *state);
cc_status cc_cuda_match_download (cc_cuda_match *state, cc_stream stream,
    cc_flow_match *out, int count);

#ifdef __cplusplus
}
#endif
#endif
