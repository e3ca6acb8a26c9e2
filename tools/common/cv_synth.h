/* Procedural test media with exact ground-truth motion.
 *
 * The texture is analytic (a sum of sinusoids and smooth value noise), so any
 * sub-pixel shift of it can be rendered exactly: what lets tests ask for EPE
 * of a few hundredths of a pixel. */
#ifndef CV_SYNTH_H
#define CV_SYNTH_H
#include <cudacore/cc_core.h>

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
#endif
