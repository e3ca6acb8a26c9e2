/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Variational refinement of a dense flow field (the DIS / EpicFlow energy).
 *
 * Given two frames and an initial F32C2 field at frame resolution (from LK or
 * block matching), minimises, coarse to fine over a small pyramid,
 *
 *   E(w) = sum_p  delta * Psi(|I1(p + w) - I0(p)|^2 / (|grad I|^2 + zeta^2))
 *              + gamma * Psi(|grad I1(p + w) - grad I0(p)|^2 / (|hess I|^2 + zeta^2))
 *              + alpha * Psi(|grad u|^2 + |grad v|^2),      Psi(s) = sqrt(s + eps^2)
 *
 * (luma in 0..255, linearised once per level around that level's initial field),
 * by fixed-point (lagged-weight) outer iterations, each solving its linear system
 * with SOR sweeps in red-black order on both backends (the CPU splits each colour
 * among the context's threads, same bits on any count).
 * docs/flow-refinement.md describes the energy, solver and memory layout.
 *
 * Calls that wait (CUDA): cc_refine_compute when an image is on the host; create,
 * set_params (a new allocation) and destroy (cudaFree). */
#ifndef CUDACORE_CC_REFINE_H
#define CUDACORE_CC_REFINE_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_REFINE_LEVELS_MIN 1
#define CC_REFINE_LEVELS_MAX 6
#define CC_REFINE_OUTER_MIN 1
#define CC_REFINE_OUTER_MAX 50
#define CC_REFINE_INNER_MIN 1
#define CC_REFINE_INNER_MAX 500


typedef struct cc_refine_params {
  int levels;              /* pyramid levels refined, coarse to fine, 1..6; levels
                              under 16 px on a side are skipped. Default 3 */
  int outer_iterations;    /* fixed-point (weight update) iterations per level, 1..50. Default 5 */
  int inner_iterations;    /* SOR sweeps per outer iteration, 1..500. Default 30 */
  float omega;             /* SOR relaxation factor, (0, 2). Default 1.6 */
  float smoothness_weight; /* alpha: Charbonnier smoothness weight, > 0, <= 1e4. Default 15 */
  float color_weight;      /* delta: normalised brightness-constancy weight, >= 0, <= 1e4. Default 5 */
  float gradient_weight;   /* gamma: normalised gradient-constancy weight, >= 0, <= 1e4. Default 10 */
  float smoothness_kappa;  /* kappa: the smoothness weight of each pixel is alpha times
                              exp(-kappa |grad I|), I frame 1's luma at that level in 0..1
                              (as DeepFlow / EpicFlow): weaker smoothing across image edges.
                              0..100; 0: a constant weight. Default 0 */
  float presmooth_sigma;   /* Gaussian sigma (px) of the frames' luma at level 0 (full
                              resolution) before the data terms and local weights there (the
                              coarser levels are blurred by the pyramid, built from the
                              unsmoothed luma): less noise in the derivatives. 0..3, 0: none.
                              Default 0 */
} cc_refine_params;

/* [out] params: the defaults above. cc_epic_params_default sets other values for the
 * refinement inside EpicFlow (cc_epic.h). */
void cc_refine_params_default (cc_refine_params *params);
/* [in] params. Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (NULL, or a message
 * naming the first field out of range). */
cc_status cc_refine_params_check (const cc_refine_params *params);

typedef struct cc_refine cc_refine;

/* Allocates every pyramid and scratch buffer for width x height frames.
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_refine_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Does not wait for a stream. */
cc_status cc_refine_create (cc_context *ctx, int width, int height,
    const cc_refine_params *params, cc_refine **out);
/* NULL: no-op. */
void cc_refine_destroy (cc_refine *refine);
/* Changes parameters; reallocates when the number of levels changes.
 * [in,out] refine. [in] params: checked; on error the handle keeps its parameters.
 * Returns as create. */
cc_status cc_refine_set_params (cc_refine *refine, const cc_refine_params *params);
/* [in] refine: not NULL. [out] params: the handle's parameters. */
void cc_refine_get_params (const cc_refine *refine, cc_refine_params *params);

/* Refines flow_in (prev -> next) into flow_out, on `stream` (NULL: the context's).
 * [in,out] refine: its pyramids are the scratch.
 * [in] prev, next: width x height, GRAY8 / RGBX8 / BGRX8 / NV12 / I420 (luma used),
 *      host or device (device needs the CUDA backend).
 * [in] flow_in: F32C2 width x height, frame pixels, host or device.
 * [out] flow_out: F32C2 width x height, host or device; may be the same image as
 *      flow_in (refined in place).
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (NULL refine or image, a size, format
 * or location that does not fit); CC_ERROR_CANCELLED (CPU, cc_context_cancel);
 * CC_ERROR_CUDA.
 * Waits when an image is on the host (CUDA backend); with all four on the device it
 * does not. */
cc_status cc_refine_compute (cc_refine *refine, cc_stream stream, const cc_image *prev,
    const cc_image *next, const cc_image *flow_in, cc_image *flow_out);

#ifdef __cplusplus
}
#endif
#endif
