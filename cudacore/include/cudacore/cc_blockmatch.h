/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Block matching optical flow (marras-2010 section 3.2, multi-scale).
 *
 * Frame 1 is cut into non-overlapping block_size x block_size blocks (the last
 * row / column of blocks is clipped to the frame); each block is searched in
 * frame 2 and gets one vector. Similarity: NCC (default), SSD or SAD on the 8-bit
 * luma, in exact integer arithmetic (the CPU and CUDA backends pick the same
 * vectors). Multi-scale: on a 2x2-box pyramid, the coarsest level searches
 * +-ceil(search_radius / 2^(levels-1)); each finer level searches +-seed_radius
 * around twice the vector of its parent block; the search window at full
 * resolution thus spans about +-search_radius. Sub-pixel: a parabola through the
 * best score and its two neighbours, per axis, at the finest level.
 *
 * Output (cc_flow.h conventions): a block-grid F32C2 field, gw x gh =
 * ceil(W / block_size) x ceil(H / block_size), vectors in grid cells (frame pixels
 * times gw / W and gh / H, as cc_flow_vis_draw expects of a coarse grid), and an
 * F32 confidence in [0, 1]; optionally a dense F32C2 field at frame resolution in
 * frame pixels (confidence-weighted bilinear upsampling of the block vectors).
 *
 * Calls that wait (CUDA): cc_blockmatch_compute when a frame or an output is on the
 * host; create, set_params (a new allocation) and destroy (cudaFree). */
#ifndef CUDACORE_CC_BLOCKMATCH_H
#define CUDACORE_CC_BLOCKMATCH_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cc_blockmatch_metric {
  CC_BLOCKMATCH_NCC = 0,  /* normalised cross-correlation, maximised */
  CC_BLOCKMATCH_SSD,      /* sum of squared differences, minimised */
  CC_BLOCKMATCH_SAD       /* sum of absolute differences, minimised */
} cc_blockmatch_metric;

#define CC_BLOCKMATCH_BLOCK_MIN 4
#define CC_BLOCKMATCH_BLOCK_MAX 64
#define CC_BLOCKMATCH_RADIUS_MIN 1
#define CC_BLOCKMATCH_RADIUS_MAX 32
#define CC_BLOCKMATCH_SEED_RADIUS_MIN 1
#define CC_BLOCKMATCH_SEED_RADIUS_MAX 8
#define CC_BLOCKMATCH_LEVELS_MIN 1
#define CC_BLOCKMATCH_LEVELS_MAX 5

typedef struct cc_blockmatch_params {
  int block_size;        /* 4..64 px. Default 16 */
  int search_radius;     /* 1..32 px at full resolution (see above). Default 16 */
  int seed_radius;       /* search radius around the seed at finer levels, 1..8. Default 2 */
  int levels;            /* pyramid levels, 1..5; levels smaller than a block are
                            skipped. Default 4 */
  cc_blockmatch_metric metric; /* Default NCC */
  bool subpixel;         /* parabola fit at the finest level. Default true */
  float flat_threshold;  /* a block whose luma standard deviation (0..255) is below
                            this is flat: it keeps its seed vector (zero at the
                            coarsest level) and confidence 0. 0..255. Default 2 */
} cc_blockmatch_params;

/* [out] params: the defaults above. */
void cc_blockmatch_params_default (cc_blockmatch_params *params);
/* [in] params. Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (NULL, or a message
 * naming the first field out of range). */
cc_status cc_blockmatch_params_check (const cc_blockmatch_params *params);

typedef struct cc_blockmatch cc_blockmatch;

/* Allocates pyramids and per-level vector grids for width x height frames.
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_blockmatch_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Does not wait for a stream. */
cc_status cc_blockmatch_create (cc_context *ctx, int width, int height,
    const cc_blockmatch_params *params, cc_blockmatch **out);
/* NULL: no-op. */
void cc_blockmatch_destroy (cc_blockmatch *bm);
/* Changes parameters; reallocates when the block size or levels change (the grid
 * size may change with the block size).
 * [in,out] bm. [in] params: checked as by cc_blockmatch_params_check; on error the
 * handle keeps its parameters. Returns as create. */
cc_status cc_blockmatch_set_params (cc_blockmatch *bm, const cc_blockmatch_params *params);
/* [in] bm: not NULL. [out] params: the handle's parameters. */
void cc_blockmatch_get_params (const cc_blockmatch *bm, cc_blockmatch_params *params);
/* Block grid size for the current parameters. [in] bm: not NULL.
 * [out] grid_width, grid_height. */
void cc_blockmatch_grid_size (const cc_blockmatch *bm, int *grid_width, int *grid_height);

/* Confidence of a block: max(NCC at the best match, 0) x uniqueness, where
 * uniqueness = 1 - best / second-best (of the cost: 1 - NCC, SSD or SAD; the
 * second best is taken at least 2 px away from the best; 1 when none is). Flat
 * blocks have 0. */

/* Flow from prev to next, on `stream` (NULL: the context's).
 * [in,out] bm: its pyramids and grids are the scratch.
 * [in] prev, next: width x height, GRAY8 / RGBX8 / BGRX8 / NV12 / I420 (luma used),
 *      host or device (device needs the CUDA backend).
 * [out] grid_flow: F32C2 gw x gh, grid cells (see above), host or device.
 * [out] grid_confidence: F32 gw x gh, or NULL.
 * [out] dense_flow: F32C2 width x height in frame pixels, or NULL.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (NULL bm, prev, next or grid_flow, a
 * size, format or location that does not fit), CC_ERROR_CUDA.
 * Waits when an output or a frame is on the host (CUDA backend); with everything
 * on the device it does not. */
cc_status cc_blockmatch_compute (cc_blockmatch *bm, cc_stream stream, const cc_image *prev,
    const cc_image *next, cc_image *grid_flow, cc_image *grid_confidence,
    cc_image *dense_flow);

#ifdef __cplusplus
}
#endif
#endif
