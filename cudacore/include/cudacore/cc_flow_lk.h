/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dense pyramidal Lucas-Kanade optical flow (one vector per pixel; cc_flow.h
 * conventions).
 *
 * Calls that wait (CUDA): cc_flow_lk_compute and cc_flow_lk_compute_video when a frame
 * (uploaded) or an output (downloaded) is on the host; create, set_params (a new
 * allocation) and destroy (cudaFree). cc_flow_lk_reset touches host state only. */
#ifndef CUDACORE_CC_FLOW_LK_H
#define CUDACORE_CC_FLOW_LK_H

#include "cc_flow.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cc_gradient {
  CC_GRADIENT_SCHARR = 0,  /* 3x3 Scharr (3,10,3)/32: best rotation invariance */
  CC_GRADIENT_SOBEL        /* 3x3 Sobel (1,2,1)/8, as in ringaby-2008 */
} cc_gradient;

/* Ranges (checked by create and set_params). */
#define CC_FLOW_LK_LEVELS_MIN 1
#define CC_FLOW_LK_LEVELS_MAX 8
#define CC_FLOW_LK_ITERATIONS_MIN 1
#define CC_FLOW_LK_ITERATIONS_MAX 100
#define CC_FLOW_LK_WINDOW_MIN 5
#define CC_FLOW_LK_WINDOW_MAX 31

typedef struct cc_flow_lk_params {
  int pyramid_levels;        /* 1..8; levels whose size would drop under 8 px are skipped. Default 5 */
  int iterations;            /* warp-and-solve iterations per level, 1..100. Default 3 */
  int window_size;           /* odd, 5..31. Default 9 */
  float min_eigen_threshold; /* a pixel whose structure tensor's smallest eigenvalue
                                (per window pixel, intensities in [0,1]) is below this
                                keeps its coarser estimate. [0, 1). Default 1e-6 */
  cc_gradient gradient;      /* Default SCHARR */
  bool fb_check;             /* forward-backward check (ringaby-2008 4.1). Default false */
  float fb_threshold;        /* px, (0, 1000]; a pixel with |f(x) + b(x + f(x))| above it
                                is invalid. Default 1.0 */
} cc_flow_lk_params;

/* [out] params: the defaults above. */
void cc_flow_lk_params_default (cc_flow_lk_params *params);
/* [in] params. Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (NULL, or a message
 * naming the first parameter out of range). */
cc_status cc_flow_lk_params_check (const cc_flow_lk_params *params);

/* Confidence semantics:
 *  - fb_check off: the smallest eigenvalue of the window's structure tensor (>= 0);
 *    0 where the image is flat. Values under min_eigen_threshold are unreliable.
 *  - fb_check on: the forward-backward error in pixels (>= 0) for valid pixels, and
 *    CC_FLOW_INVALID (-1) for pixels that fail the check (their vector is kept).
 * Outside the mask: flow 0 and confidence 0. */

typedef struct cc_flow_lk cc_flow_lk;

/* Allocates every pyramid and scratch buffer for width x height frames.
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_flow_lk_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Does not wait for a stream. */
cc_status cc_flow_lk_create (cc_context *ctx, int width, int height,
    const cc_flow_lk_params *params, cc_flow_lk **out);
/* NULL: no-op. */
void cc_flow_lk_destroy (cc_flow_lk *lk);
/* Changes parameters; reallocates only when the pyramid depth or window changes.
 * [in,out] lk. [in] params: checked; on error the handle keeps its parameters.
 * Returns as create. */
cc_status cc_flow_lk_set_params (cc_flow_lk *lk, const cc_flow_lk_params *params);
/* [in] lk: not NULL. [out] params: the handle's parameters. */
void cc_flow_lk_get_params (const cc_flow_lk *lk, cc_flow_lk_params *params);

/* Flow from prev to next, on `stream` (NULL: the context's).
 * [in,out] lk: its pyramids are the scratch.
 * [in] prev, next: width x height, GRAY8 / RGBX8 / BGRX8 / NV12 / I420 (luma used),
 *      host or device (device needs the CUDA backend).
 * [in] mask: NULL, or GRAY8 width x height where the context computes: flow only
 *      where mask != 0.
 * [out] flow: F32C2 width x height, host or device.
 * [out] confidence: F32 width x height, host or device, or NULL.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (NULL lk or image, a size, format or
 * location that does not fit), CC_ERROR_CUDA.
 * Host frames or outputs make the call wait; with all on the device it does not. */
cc_status cc_flow_lk_compute (cc_flow_lk *lk, cc_stream stream, const cc_image *prev,
    const cc_image *next, const cc_image *mask, cc_image *flow, cc_image *confidence);

/* Video mode: flow from the previous call's frame to `frame`; each frame's pyramid
 * is built once and kept for the next call.
 * [in,out] lk: keeps the frame's pyramid. [in] frame, mask: as prev and mask of
 * cc_flow_lk_compute. [out] flow, confidence: as there; the first frame after
 * create or reset gives zero flow and zero confidence.
 * [out] has_previous: false for that first frame, else true; or NULL.
 * Returns and waits as cc_flow_lk_compute. */
cc_status cc_flow_lk_compute_video (cc_flow_lk *lk, cc_stream stream, const cc_image *frame,
    const cc_image *mask, cc_image *flow, cc_image *confidence, bool *has_previous);
/* Forgets the previous frame of cc_flow_lk_compute_video (a new stream, a seek, a
 * gap): the next call starts again. Host state only: no device work, no stream, no
 * wait. Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (lk NULL). */
cc_status cc_flow_lk_reset (cc_flow_lk *lk);

#ifdef __cplusplus
}
#endif
#endif
