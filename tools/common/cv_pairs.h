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

/* Driving pairs: forward camera motion over a textured ground plane, with exact flow.
 * Camera 1 is a pinhole at the origin (x right, y down, z forward; focal `focal` px,
 * principal point (cx, cy), so the horizon is the row cy), `height` metres above the
 * ground plane y = height. A textured wall, the plane z = `wall`, closes the scene
 * (it stands for the far buildings and the sky: everything above the ground's end).
 * Camera 2 is camera 1 moved `forward` metres along z and turned by `yaw` radians
 * about its vertical axis (positive: to the right): a world point P is
 * R(yaw)^T (P - (0, 0, forward)) in camera 2.
 * Every pixel of a frame averages a grid of rays over its area (more rays where the
 * ground's texture is compressed, up to 32 per axis); the flow of pixel p is its
 * centre ray's point projected into camera 2, minus p; occluded (255) where that
 * point leaves frame 2 or is behind camera 2 (the scene has no other occlusion:
 * every surface point visible from camera 1 is visible from camera 2). Deterministic from params->seed
 * (max_motion does not apply). The camera drawn from the seed: focal 0.55..0.75
 * width, horizon at 0.35..0.5 height, height 1.2..1.8 m, forward 0.15..0.4 of the
 * distance to the nearest ground point seen (the bottom row: 2 to 6.5 m away in 2:1 to
 * 2.35:1 frames, so 0.3..2.6 m; it moves 18 % to 67 % further from the horizon), yaw
 * -1.5..1.5 degrees, wall at 25..60 m; the ground's texels 1.5..3 cm, the wall's
 * about one pixel. Textures as cv_pair_make's (n = 0: procedural). */
typedef struct cv_driving_camera {
  double focal, cx, cy;     /* px */
  double height;            /* m, camera above the ground */
  double forward;           /* m, camera 1 -> 2 along its optical axis */
  double yaw;               /* radians, camera 2's turn about the vertical axis */
  double wall;              /* m, distance of the far wall z = wall */
} cv_driving_camera;

/* Outputs as cv_pair_make's; camera (may be NULL) receives the camera drawn. */
cc_status cv_pair_make_driving (const cv_pair_params *params, const cc_image *textures,
    int n, cc_image *frame1, cc_image *frame2, cc_image *flow, cc_image *occlusion,
    cv_driving_camera *camera);
#endif
