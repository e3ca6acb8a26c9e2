/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The flicker measure of cvd-flicker and the cvdmosaic coherence test: among the
 * pixels whose input is static between two consecutive frames (every channel within
 * CV_FLICKER_STATIC_TOLERANCE: the background of a static camera, not what moves),
 * the share whose rendered colour changes by more than that same tolerance in some
 * channel. A change within the tolerance is the camera's noise passed through (a
 * cell's mean moving by one level as the noise of its pixels averages differently),
 * which the input itself shows; it is not the mosaic flickering. */
#ifndef CV_FLICKER_H
#define CV_FLICKER_H

#include <stddef.h>
#include <stdint.h>

#define CV_FLICKER_STATIC_TOLERANCE 4

/* One frame pair of packed 4-byte pixels (RGBA / BGRA; the 4th byte is ignored):
 * *still the static input pixels, *changed those of them whose output changed by
 * more than the tolerance, *changed_any (or NULL) those whose output changed at all
 * (the camera's noise averaged over a cell included). */
void cv_flicker_pair (const uint8_t *in_prev, const uint8_t *in_cur, const uint8_t *out_prev,
    const uint8_t *out_cur, size_t pixels, long long *still, long long *changed,
    long long *changed_any);
#endif
