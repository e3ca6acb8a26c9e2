/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Large-displacement optical flow, the EpicFlow pipeline (Revaud et al., CVPR 2015;
 * accelerated as in Param 2016): sparse matches -> edge-preserving interpolation
 * (EPIC) -> the variational refinement of cc_refine.h.
 *
 * Three handles, each usable alone (tests and benchmarks time each stage):
 *   cc_match   sparse matcher: grid seeds, coarse-to-fine search over a robust
 *              descriptor, forward-backward check; each match has a confidence.
 *   cc_interp  EPIC: edge cost map, k nearest matches by geodesic distance,
 *              locally-weighted affine (or Nadaraya-Watson) interpolation.
 *   cc_epic    the whole method: cc_match + cc_interp + cc_refine, with a
 *              confidence on the result (cc_interp_confidence and the frames'
 *              agreement along the refined vector); a video mode for streams.
 *
 * Every submit call takes the stream it runs on (NULL: the context's stream; ignored
 * by the CPU backend). Frames, matches and outputs live where the context computes
 * (device memory for CUDA, host memory for CPU); cc_match_download_sync copies the
 * matches out.
 *
 * Calls that wait (CUDA): cc_match_download_sync; cc_match_create and cc_epic_create
 * (they initialise device memory); a cc_interp_compute or cc_interp_confidence (and
 * so a cc_epic_compute) given another stream than the handle's last call waits for
 * that last stream first, as its scratch is reused; set_params that reallocate and
 * destroy (cudaFree). The compute calls do not wait otherwise. */
#ifndef CUDACORE_CC_EPIC_H
#define CUDACORE_CC_EPIC_H

#include "cc_core.h"
#include "cc_refine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One correspondence: (x, y) in frame 1 -> (x + u, y + v) in frame 2, in frame
 * pixels. confidence in [0, 1]; 0 marks a rejected match (kept in the array so
 * that the grid layout stays fixed). */
typedef struct cc_flow_match {
  float x, y;
  float u, v;
  float confidence;
} cc_flow_match;

/* ---------------------------------------------------------------- matcher */

typedef struct cc_match_params {
  int step;             /* seed grid spacing, px, 2..32. Default 3 */
  int levels;           /* pyramid levels of the coarse-to-fine search, 1..8. Default 5 */
  int iterations;       /* propagation + random-search rounds per level, 1..32. Default 4 */
  float max_displacement; /* px at full resolution; search radius bound, 8..1024. Default 400 */
  float fb_threshold;   /* px, (0, 1024]; a match whose backward match misses by more
                           is rejected. Default 3 */
} cc_match_params;

/* [out] params: the matcher's defaults above (cc_epic_params_default sets others). */
void cc_match_params_default (cc_match_params *params);
/* Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT naming the first field out of range. */
cc_status cc_match_params_check (const cc_match_params *params);

typedef struct cc_match cc_match;

/* Pyramids, descriptors and the match array for width x height frames.
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_match_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Waits (CUDA) for the device memory it initialises. */
cc_status cc_match_create (cc_context *ctx, int width, int height,
    const cc_match_params *params, cc_match **out);
/* NULL: no-op. */
void cc_match_destroy (cc_match *m);
/* [in,out] m. [in] params: checked; on error m keeps its parameters. Returns as create. */
cc_status cc_match_set_params (cc_match *m, const cc_match_params *params);
/* [in] m: not NULL. [out] params: the handle's parameters. */
void cc_match_get_params (const cc_match *m, cc_match_params *params);
/* Number of grid seeds (the fixed length of the match array) for this size; 0 for
 * NULL. */
int cc_match_capacity (const cc_match *m);

/* Matches prev -> next on `stream`.
 * [in,out] m: keeps the matches. [in] prev, next: width x height, GRAY8 / RGBX8 /
 * BGRX8 / NV12 / I420 (luma used), where the context computes.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CANCELLED (CPU,
 * cc_context_cancel), CC_ERROR_CUDA. Does not wait. */
cc_status cc_match_compute (cc_match *m, cc_stream stream, const cc_image *prev,
    const cc_image *next);
/* The matches of the last compute, where the context computes (device pointer for
 * CUDA), cc_match_capacity () entries; valid until the next compute; NULL for NULL. */
const cc_flow_match *cc_match_matches (const cc_match *m);
/* Copies up to max matches of the last compute to host memory on `stream`.
 * [in] m. [out] out: max entries (NULL only when max is 0). [in] max: >= 0.
 * [out] count: the number copied, or NULL.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA. Waits. */
cc_status cc_match_download_sync (cc_match *m, cc_stream stream, cc_flow_match *out,
    int max, int *count);

/* ---------------------------------------------------------------- EPIC */

typedef struct cc_interp_params {
  int k;                /* nearest matches per pixel, 1..128. Default 32 */
  float sigma;          /* kernel width of the geodesic distance weights, 0.001..1e4.
                           Default 1 */
  bool affine;          /* locally-weighted affine (true) or Nadaraya-Watson (false). Default true */
  /* Seeds: at most one match per cell x cell block of pixels (the lowest match
   * index of the block); the k nearest are counted in seeds, so a larger cell with
   * a smaller k covers the same area with less work. 2..8. Default 2 */
  int cell;
  /* Edge cost map (a stand-in for EpicFlow's structured edges): per pixel,
   * flat_cost + edge_weight * |gradient of the 5x5-binomial-blurred luma| (luma
   * levels per pixel); a step between 8-neighbours costs the mean of their costs
   * times its length, and a match's weight is exp (-D / sigma) of the summed cost D. */
  float flat_cost;      /* cost of one pixel in a flat region, 0.001..100. Default 0.02 */
  float edge_weight;    /* cost per luma level of gradient, 0..100. Default 0.02 */
  /* Nadaraya-Watson only: a pixel gets the mean plus the neighbours' linear trend
   * (the affine fit's gradient) times its distance from its seed beyond this many
   * pixels where that flow takes it out of the frame (no match can exist there), so
   * the field goes on growing past the frame's edge (the ground and the sides under
   * a forward-moving camera) instead of stopping at the last seeds' mean; other
   * pixels keep the mean. 0: off. 0..1e4. Default 0 (docs/epicflow.md) */
  float extrapolate;
  /* Nadaraya-Watson only: a robust mean. After the weighted mean m of a seed's
   * neighbours, each neighbour's weight is multiplied by
   * exp (-|f_i - m|^2 / robust^2) (f_i its flow, px) and the mean taken again, so
   * that neighbours on another motion (across a motion boundary the edges missed)
   * and outlier matches count less: the mean follows the neighbours' dominant
   * motion. px, 0: off (the plain weighted mean). 0..1e4. Default 0
   * (cc_epic_params_default: 5; docs/epicflow.md) */
  float robust;
} cc_interp_params;

/* [out] params: the interpolation's defaults above (cc_epic_params_default sets others). */
void cc_interp_params_default (cc_interp_params *params);
/* Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT naming the first field out of range. */
cc_status cc_interp_params_check (const cc_interp_params *params);

typedef struct cc_interp cc_interp;

/* Edge map, geodesic labels and per-seed models for width x height frames.
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_interp_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA. */
cc_status cc_interp_create (cc_context *ctx, int width, int height,
    const cc_interp_params *params, cc_interp **out);
/* NULL: no-op. */
void cc_interp_destroy (cc_interp *ip);
/* [in,out] ip. [in] params: checked; on error ip keeps its parameters. Returns as create. */
cc_status cc_interp_set_params (cc_interp *ip, const cc_interp_params *params);
/* Dense flow from `n` matches and frame 1 (its edges steer the geodesic distance), on
 * `stream`. No surviving match: zero flow.
 * [in,out] ip: keeps the labels and models cc_interp_confidence reads.
 * [in] frame: width x height, GRAY8 / RGBX8 / BGRX8 / NV12 / I420, where the context
 *      computes. [in] matches: n entries where the context computes (confidence 0
 *      entries ignored; NULL only when n is 0); read until the call's work is done.
 * [in] n: >= 0. [out] flow: F32C2 width x height, where the context computes.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CANCELLED (CPU,
 * cc_context_cancel), CC_ERROR_CUDA. Does not wait (but see the stream rule above). */
cc_status cc_interp_compute (cc_interp *ip, cc_stream stream, const cc_image *frame,
    const cc_flow_match *matches, int n, cc_image *flow);
/* Confidence of the last cc_interp_compute's field, per pixel in [0, 1] (F32, width x
 * height, where the context computes): low far from every match (the field there is
 * borrowed from distant seeds), where the nearest seeds' matches disagree (motion
 * boundaries, outliers) or are weak; 0 where no seed reaches. Reads the compute's
 * geodesic labels and per-seed statistics: call it before the next compute.
 * [in] ip. [out] confidence: F32 width x height, where the context computes.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (also without a successful compute
 * before), CC_ERROR_CUDA. Does not wait (but see the stream rule above). */
cc_status cc_interp_confidence (cc_interp *ip, cc_stream stream, cc_image *confidence);

/* ---------------------------------------------------------------- the method */

typedef struct cc_epic_params {
  cc_match_params match;
  cc_interp_params interp;
  bool refine;              /* variational refinement on top. Default true */
  cc_refine_params refine_params;
} cc_epic_params;

/* [out] params: the method's own defaults, which override its parts' (each part's
 * cc_*_params_default first, then these; docs/epicflow.md says why): match.step 5;
 * interp.cell 5, k 24, sigma 10, affine false, edge_weight 0.01, robust 5; refine
 * true with refine_params.levels 2, outer_iterations 3, inner_iterations 10, omega
 * 1.8 and EpicFlow's energy: color_weight 0, smoothness_kappa 5, presmooth_sigma 0.8.
 * Every other field is its part's default. */
void cc_epic_params_default (cc_epic_params *params);
/* Checks the three parts as their own _params_check do. Returns CC_SUCCESS or
 * CC_ERROR_INVALID_ARGUMENT (NULL, or the first field out of range). */
cc_status cc_epic_params_check (const cc_epic_params *params);

/* Quality presets, in the manner of DIS's: each sets the whole of cc_epic_params
 * (docs/epicflow.md has each one's measured accuracy and time):
 *  - FAST: cc_epic_params_default (seeds every 5 px, 24 neighbours, refinement
 *    levels of 3 x 10 sweeps): the real-time one;
 *  - BALANCED: seeds every 4 px (cell 4, 1.56x FAST's seeds), 32 neighbours, 5 x 15
 *    sweeps a level (the rest FAST's);
 *  - ACCURATE: BALANCED with 5 x 30 sweeps a level (twice BALANCED's). */
typedef enum cc_epic_preset {
  CC_EPIC_PRESET_FAST,
  CC_EPIC_PRESET_BALANCED,
  CC_EPIC_PRESET_ACCURATE,
} cc_epic_preset;
/* [out] params: the preset's parameters; [in] preset: one of cc_epic_preset.
 * Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (params NULL, preset unknown).
 * Does not wait. */
cc_status cc_epic_params_preset (cc_epic_params *params, cc_epic_preset preset);
/* The preset's name ("fast", "balanced", "accurate"), or NULL for an unknown value. */
const char *cc_epic_preset_name (cc_epic_preset preset);

typedef struct cc_epic cc_epic;

/* The three parts for width x height frames.
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_epic_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Waits (CUDA) for the device memory its matcher initialises. */
cc_status cc_epic_create (cc_context *ctx, int width, int height,
    const cc_epic_params *params, cc_epic **out);
/* NULL: no-op. */
void cc_epic_destroy (cc_epic *e);
/* [in,out] e. [in] params: checked; on error e keeps its parameters. Returns as create. */
cc_status cc_epic_set_params (cc_epic *e, const cc_epic_params *params);
/* Dense flow prev -> next (F32C2) and, when confidence is not NULL, an F32
 * confidence in [0, 1]: the interpolation's (cc_interp_confidence) times
 * exp (-(r / 16)^2), r the luma difference of prev at the pixel and next at its
 * target; 0 where the target leaves the frame. Textureless or tiny frames, or no
 * surviving match: zero flow, zero confidence. Identical textured frames: zero flow,
 * confidence 1 within 4 px of a match.
 * [in,out] e. [in] prev, next: width x height, GRAY8 / RGBX8 / BGRX8 / NV12 / I420,
 *      where the context computes. [out] flow: F32C2 width x height, where the
 *      context computes. [out] confidence: F32 width x height there, or NULL.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CANCELLED (CPU,
 * cc_context_cancel), CC_ERROR_CUDA. Does not wait (but see the stream rule above). */
cc_status cc_epic_compute (cc_epic *e, cc_stream stream, const cc_image *prev,
    const cc_image *next, cc_image *flow, cc_image *confidence);
/* Video mode: cc_epic_compute for consecutive pairs of one stream. When the previous
 * call on this handle was cc_epic_compute_video too (and cc_epic_reset was not called
 * since), prev must be that call's next frame, unchanged: what was derived from it
 * (the matcher's pyramid and census codes) is reused instead of computed again. The
 * results are the bits cc_epic_compute gives for the same pair. Parameters, returns
 * and waits as cc_epic_compute. */
cc_status cc_epic_compute_video (cc_epic *e, cc_stream stream, const cc_image *prev,
    const cc_image *next, cc_image *flow, cc_image *confidence);
/* Forgets the frame kept by cc_epic_compute_video (a new stream, a seek, a gap): the
 * next call computes everything. Host state only: no stream, no wait.
 * Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (e NULL). */
cc_status cc_epic_reset (cc_epic *e);

#ifdef __cplusplus
}
#endif
#endif
