/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Synthetic large-motion pairs with exact ground truth, in the spirit of
 * FlyingChairs (Dosovitskiy et al. 2015): a textured background layer and 2..4
 * textured foreground layers (star polygons and ellipses), each moved from frame 1
 * to frame 2 by its own affine motion (a translation, a small rotation and scale
 * about the layer's centre). Layers occlude each other in a fixed order.
 *
 * Every pixel is rendered by inverse mapping (the front-most layer whose shape
 * holds the pixel's layer coordinates, its texture sampled bilinearly there), so
 * the flow of each pixel of frame 1 is exact: its layer's point, moved by that
 * layer's motion. Occluded: the pixel's point leaves the frame, or another layer
 * covers it in frame 2. Deterministic from the seed. */
#ifndef CV_PAIRS_H
#define CV_PAIRS_H
#include <cudacore/cc_core.h>

typedef struct cv_pair_params {
  int width, height;     /* 16..8192 */
  float max_motion;      /* px: foreground translations up to this (per layer, in a
                            disc), the background up to a third of it */
  unsigned seed;         /* pair i of a set: seed + i */
} cv_pair_params;

/* Textures: RGBX8 host images (e.g. photographs), or n = 0 for the procedural
 * fallback (coloured multi-octave value noise, no media needed).
 * Outputs (new host images, free with cv_image_free): frame1, frame2 RGBX8; flow
 * F32C2 (frame 1 -> 2); occlusion GRAY8 (255 occluded or leaving the frame, else 0). */
cc_status cv_pair_make (const cv_pair_params *params, const cc_image *textures, int n,
    cc_image *frame1, cc_image *frame2, cc_image *flow, cc_image *occlusion);
#endif
