/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Procedural test media with exact ground-truth motion.
 *
 * The texture is analytic (a sum of sinusoids and smooth value noise), so any
 * sub-pixel shift of it can be rendered exactly: what lets tests ask for EPE
 * of a few hundredths of a pixel. */
#ifndef CV_SYNTH_H
#define CV_SYNTH_H
#include <cudacore/cc_core.h>
#include <stdint.h>

/* Texture intensity in [0, 1] at a real position, for a seed. */
float cv_synth_texture (double x, double y, unsigned seed);

/* GRAY8 frames I(x) = T(x), J(x) = T(x - (dx, dy)): true flow (dx, dy) everywhere. */
cc_status cv_synth_translation (int width, int height, double dx, double dy, unsigned seed,
    cc_image *frame1, cc_image *frame2);

/* The demo clip ("layers"): frame t of a scene with a textured background drifting
 * (0.6, 0.3) px/frame, a square layer moving (2.5, -1.25) px/frame in front of it
 * (an occluding edge), and a textured disc turning 1.5 degrees per frame about its
 * centre. frame: RGBX8 (colour texture); truth (may be NULL): F32C2 flow t -> t+1 of
 * whichever layer is in front at each pixel of frame t. */
cc_status cv_synth_clip_frame (int t, int width, int height, cc_image *frame,
    cc_image *truth);

/* ---- Coloured objects (the moctracker's media and tests): filled ellipses of flat
 * colours on a flat grey (128, 128, 128) background. */
typedef struct cv_synth_shape {
  double cx, cy;      /* centre (pixel centres are at integer x, y) */
  double a, b;        /* semi-axes along theta and across it (a == b: a disc) */
  double theta;       /* radians, from +x towards +y */
  uint8_t r, g, b_;   /* colour */
} cv_synth_shape;

/* Is pixel (x, y) inside the shape? (the one rule drawing and ground truth share) */
int cv_synth_shape_covers (const cv_synth_shape *s, int x, int y);
/* Colour i (0..1311) of a palette whose colours are at least 25 apart in RGB and
 * at least 45 from the grey background; the first 8 are the corners of the RGB cube
 * (0 / 250 a channel), 250 apart. */
void cv_synth_palette (int i, uint8_t rgb[3]);
/* Draws shapes[0..n) in order (a later shape covers an earlier one) into a new
 * RGBX8 host frame (free with cv_image_free). owner: NULL or width x height ints,
 * the index of the shape each pixel shows, -1 for the background: the exact pixel
 * sets, from which the ground truth of every object follows. */
cc_status cv_synth_shapes (int width, int height, const cv_synth_shape *shapes, int n,
    cc_image *frame, int *owner);
/* The moving-objects clip: shape k (0..n-1, n <= 16) at frame t: discs and
 * ellipses of palette colours k on Lissajous paths (ellipses turn), partly leaving
 * the frame. */
void cv_synth_objects_at (int t, int width, int height, int n, cv_synth_shape *shapes);

/* ---- Foreground clip (quadcut): a textured plate (greens and greys), a textured
 * orange object (a disc with a rectangular body, moving on a Lissajous path and
 * partly leaving the frame) casting a soft-edged shadow (the plate darkened to 55 %,
 * same chroma) beside it, and per-pixel sensor noise (triangular, +-noise levels, a
 * new draw every frame and channel). The mask is exact: 255 where the object is
 * drawn, 0 elsewhere (the shadow is background).
 * illumination: CV_SYNTH_FG_PLAIN, or _UNLIT / _LIT for active illumination: the lit
 * frame adds a light close to the object (object colours x 1.5, the distant plate
 * unchanged, no shadow), the unlit one is the plain frame without the shadow. */
enum { CV_SYNTH_FG_PLAIN = 0, CV_SYNTH_FG_UNLIT, CV_SYNTH_FG_LIT };
/* The plate alone, without noise (RGBX8, new host image). */
cc_status cv_synth_fg_plate (int width, int height, cc_image *plate);
/* Frame t (RGBX8, new host image) and its mask (NULL or width x height bytes). */
cc_status cv_synth_fg_frame (int t, int width, int height, int illumination, int noise,
    cc_image *frame, uint8_t *mask);
#endif
