/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CVD: centroidal Voronoi diagrams by Lloyd's algorithm, for mosaic and stippling
 * video effects (Vasconcelos et al., "Lloyd's algorithm on GPU", appendix B of
 * shared/papers/vasconcelos-moct-cvd-quadn4tree-quadcut.md). Design: docs/cvdmosaic.md.
 *
 * A cc_cvd holds N sites (1..CC_CVD_MAX_SITES, ids 0..N-1) and a density rho per
 * pixel, both where the backend computes (device memory on CUDA). One Lloyd
 * iteration is:
 *  1. Voronoi: a label image (the id of the nearest site of every pixel), exact on
 *     the CPU (a grid search) or by jump flooding (JFA / 1+JFA, both backends);
 *  2. centroids: per site the 64-bit integer sums W = sum rho, X = sum rho x and
 *     Y = sum rho y over its pixels (CPU and CUDA bit-equal: integers);
 *  3. update: each site moves to its centroid rounded to 1/256 px; the total
 *     displacement is summed where the backend computes.
 * K iterations, or fewer when the displacement falls under a threshold, run with no
 * host synchronisation on CUDA (the kernels of the remaining iterations see a device
 * flag and return at once).
 *
 * Streams: every call that changes the sites, the density or a frame takes the
 * stream it runs on after the handle (NULL: the context's own). Calls of this header
 * that wait (CUDA): cc_cvd_seed and cc_cvd_set_sites (host uploads; a count larger
 * than ever before also grows the per-site arrays), cc_cvd_compute with stats (a
 * host result), the readback cc_cvd_get_sites (on the stream of the last call),
 * create (it initialises device memory) and destroy (cudaFree). set_params,
 * set_density, compute without stats, move_sites and draw do not wait. The single
 * steps (Voronoi, labels, centroid sums) and a density from a host array are for
 * tests and benches: cudacore/src/cc_tuning.h.
 *
 * Fixed point: site positions are integers in 1/CC_CVD_ONE px (8 fractional bits);
 * pixel (x, y) is the pixel centre at integer x, y (x right, y down). The distance of
 * a pixel to a site is the exact integer (256 x - sx)^2 + (256 y - sy)^2; equal
 * distances go to the lowest id, in every method. Sites stay inside
 * [0, 256 (w - 1)] x [0, 256 (h - 1)].
 *
 * Density: rho in 1..65535 (16-bit quantised, never 0, so every cell has a mass),
 * computed from a frame's luma Y (RGB: (77 R + 150 G + 29 B + 128) >> 8; NV12 / I420:
 * the Y plane as it is):
 *   UNIFORM:  256;  DARK: 1 + 256 (255 - Y) (dark = dense: stippling);
 *   BRIGHT:   1 + 256 Y;  GRADIENT: 1 + 256 min(255, (|gx| + |gy|) / 4), Sobel of Y
 *   with clamped borders (sites gather at edges: mosaics). */
#ifndef CUDACORE_CC_CVD_H
#define CUDACORE_CC_CVD_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_CVD_MAX_SITES 1000000
#define CC_CVD_FRAC_BITS 8
#define CC_CVD_ONE (1 << CC_CVD_FRAC_BITS)   /* one pixel in site units */
#define CC_CVD_BORDER_MAX 16
/* cc_cvd_move_sites leaves a cell whose mean flow is shorter than this (1/256 px:
 * a quarter pixel): the flow's noise on a static background */
#define CC_CVD_MOVE_MIN 64

typedef enum cc_cvd_density {
  CC_CVD_DENSITY_UNIFORM = 0,
  CC_CVD_DENSITY_DARK,
  CC_CVD_DENSITY_BRIGHT,
  CC_CVD_DENSITY_GRADIENT
} cc_cvd_density;


/* Warm start (warm_start, default on): within cc_cvd_compute and the Voronoi steps
 * that follow it, when no site has moved by more than two pixels (|dx| + |dy|) since
 * the last Voronoi step, the next one starts from its labels (each site re-seeding its
 * own pixel) and runs only the last 4 or 5 passes of the JFA schedule (its tail
 * 2, 1, 2, 1 for 1+JFA+2) instead of all of them (14 at 1080p). Lloyd moves converged
 * sites by a fraction of a pixel, so a video's iterations after the first few are
 * warm. New sites, cc_cvd_move_sites and a change of method start cold. Both backends
 * decide alike (CUDA on the device, with no host sync), so their labels stay equal.
 * docs/cvdmosaic.md gives the warm labels' error against the exact ones. */
typedef struct cc_cvd_params {
  cc_cvd_density density;           /* Default UNIFORM */
  int warm_start;                   /* Default 1 */
} cc_cvd_params;

/* [out] params: the defaults the field comments give. Nothing waits. */
void cc_cvd_params_default (cc_cvd_params *params);
/* [in] params: the parameters to check.
 * INVALID_ARGUMENT naming the first field out of range. Nothing waits. */
cc_status cc_cvd_params_check (const cc_cvd_params *params);

/* A site position in 1/CC_CVD_ONE px. */
typedef struct cc_cvd_site {
  int32_t x, y;
} cc_cvd_site;

typedef struct cc_cvd cc_cvd;

/* For width x height frames, with no sites (seed or set them before iterating). The
 * label and density images are allocated here; the per-site arrays when a larger
 * count than before is seeded or set (never per frame). Density starts UNIFORM.
 * [in] ctx: the context (its backend computes). [in] width, height: >= 1.
 * [in] params: checked as cc_cvd_params_check; NULL gives the defaults.
 * [out] out: the new handle.
 * OUT_OF_MEMORY. Waits on CUDA for the device memory it initialises. */
cc_status cc_cvd_create (cc_context *ctx, int width, int height,
    const cc_cvd_params *params, cc_cvd **out);
/* [in] cvd: NULL is a no-op. Waits on CUDA (cudaFree). */
void cc_cvd_destroy (cc_cvd *cvd);
/* Parameters apply from the next call (the density method from the next
 * cc_cvd_set_density).
 * [in,out] cvd. [in] params: checked as cc_cvd_params_check.
 * Takes no stream; nothing waits. */
cc_status cc_cvd_set_params (cc_cvd *cvd, const cc_cvd_params *params);
/* [in] cvd. [out] params: the parameters in use. Nothing waits. */
void cc_cvd_get_params (const cc_cvd *cvd, cc_cvd_params *params);
/* [in] cvd. Returns the number of sites (0 before a seed or set). Nothing waits. */
int cc_cvd_site_count (const cc_cvd *cvd);

/* n sites (1..min(CC_CVD_MAX_SITES, w h)) at positions drawn from `seed` (splitmix64
 * on the host), no two rounding to the same pixel (JFA seed). The same seed gives the
 * same sites on both backends.
 *  n <= w h / 4: a jittered hexagonal lattice: about sqrt(3) / 2 d apart rows (d the
 *    spacing of hexagons of area w h / n) of n / rows sites each (counts differing by
 *    one at most), odd rows shifted by half a spacing, every site moved by a uniform
 *    offset of up to a quarter of the spacing in x and in y (a site whose pixel is
 *    taken moves to a free pixel nearby). Lloyd from random sites settles in local
 *    minima full of pentagon / heptagon cells; from this start it converges to
 *    nearly equal cells within a few tens of iterations (docs/cvdmosaic.md).
 *  denser: n distinct random pixels, uniform over the frame, each with a uniform
 *    offset in [-128, 127]/256 px (clamped to the frame).
 * [in,out] cvd. [in] stream: NULL for the context's stream.
 * [in] n: 1..min(CC_CVD_MAX_SITES, w h). [in] seed: any value.
 * OUT_OF_MEMORY. Waits on CUDA (the sites are drawn on the host and uploaded). */
cc_status cc_cvd_seed (cc_cvd *cvd, cc_stream stream, int n, uint64_t seed);
/* Sets n sites from a host array.
 * [in,out] cvd. [in] stream: NULL for the context's stream.
 * [in] sites: host, n sites, each inside the frame (else INVALID_ARGUMENT).
 * [in] n: 1..min(CC_CVD_MAX_SITES, w h).
 * OUT_OF_MEMORY. Waits on CUDA for the upload. */
cc_status cc_cvd_set_sites (cc_cvd *cvd, cc_stream stream, const cc_cvd_site *sites,
    int n);
/* Copies the sites to a host array.
 * [in] cvd. [out] sites: host, cc_cvd_site_count() entries (none written without
 *   sites).
 * A readback: waits on CUDA for the stream of the last call. */
cc_status cc_cvd_get_sites (cc_cvd *cvd, cc_cvd_site *sites);

/* Density from a frame by params.density.
 * [in,out] cvd. [in] stream: NULL for the context's stream.
 * [in] frame: RGBX8 / BGRX8 / NV12 / I420 / GRAY8, the created size, where the
 *   backend computes.
 * Does not wait. */
cc_status cc_cvd_set_density (cc_cvd *cvd, cc_stream stream, const cc_image *frame);

/* What a cc_cvd_compute did. */
typedef struct cc_cvd_stats {
  int iterations;         /* Lloyd iterations run (<= asked) */
  int converged;          /* the last one's displacement was <= threshold */
  uint64_t displacement;  /* the last iteration's sum of |dx| + |dy| over the sites,
                             in 1/256 px */
  double mean_displacement;   /* displacement / 256 / N, px */
  int warm;               /* the next Voronoi step starts warm (params.warm_start and no
                             site moved by more than CC_CVD_WARM_MAX in the last one) */
} cc_cvd_stats;

/* Up to `iterations` Lloyd iterations of the current sites over the current
 * density: Voronoi, centroids, update.
 * [in,out] cvd: sites must have been seeded or set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream. [in] iterations: 1..1000.
 * [in] threshold: px, 0..1e6; > 0: stops after the first iteration whose mean
 *   displacement (|dx| + |dy| per site) is <= threshold (0: all iterations).
 * [out] stats: host, or NULL.
 * Waits on CUDA only with stats (a host result); without, nothing waits (the
 * threshold is tested on the device). */
cc_status cc_cvd_compute (cc_cvd *cvd, cc_stream stream, int iterations, double threshold,
    cc_cvd_stats *stats);

/* Moves every site by the mean flow of its cell (advection: the sites follow a
 * video's motion between two cc_cvd_compute; the cells of the current sites by the
 * Voronoi step, recomputed when
 * the sites moved since the last Voronoi step): each pixel's vector quantised to
 * floor (256 u + 0.5) / 256 px, summed per cell in integers, the mean rounded half
 * up, the site clamped to the frame. Pixels whose vector is not finite (or beyond
 * 16384 px) do not count; a cell with none of them stays, and so does a cell whose
 * mean is shorter than CC_CVD_MOVE_MIN (a quarter pixel). A cell follows the mean
 * motion of its content: the noise of the flow at one pixel, which moved the sites
 * of a static background every frame, averages out (docs/cvdmosaic.md).
 * [in,out] cvd: sites must have been seeded or set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [in] flow: F32C2 (u, v in px), the created size, where the backend computes.
 * The next Voronoi step starts cold. Does not wait. */
cc_status cc_cvd_move_sites (cc_cvd *cvd, cc_stream stream, const cc_image *flow);

typedef enum cc_cvd_style {
  CC_CVD_STYLE_CELLS = 0,   /* each cell filled with its mean colour */
  CC_CVD_STYLE_STIPPLE,     /* white paper, a dot (ink colour) per site */
  CC_CVD_STYLE_OUTLINE      /* the image with the cell borders over it */
} cc_cvd_style;

typedef struct cc_cvd_draw_params {
  cc_cvd_style style;
  int border_width;       /* 0..CC_CVD_BORDER_MAX px (OUTLINE draws at least 1) */
  uint8_t r, g, b;        /* border colour; the dots' ink in STIPPLE */
} cc_cvd_draw_params;

/* Draws the current sites into frame, in place. The labels are recomputed for the current
 * sites when the sites moved since the last Voronoi step. Integer arithmetic: CPU
 * and CUDA pixels are equal.
 *  CELLS:   every pixel takes its cell's mean colour, (sum + n / 2) / n a channel
 *           (NV12 / I420: Y per pixel; U, V per 2x2 block, from the cell of the
 *           block's top-left pixel);
 *  STIPPLE: white, and a disc around each site of radius^2 = R^2 (255 - Ymean) / 255
 *           (R = 0.5 sqrt (w h / N) px, Ymean the cell's mean luma), clipped to the
 *           site's cell;
 *  border:  a pixel is on a border when a pixel of another cell lies in the square
 *           [x - bw / 2, x + (bw - 1) / 2 + 1] (same in y): bw px wide lines.
 * [in,out] cvd: sites must have been seeded or set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [in,out] frame: RGBX8 / BGRX8 / NV12 / I420, the created size, where the backend
 *   computes.
 * [in] rp: a known style, border_width 0..CC_CVD_BORDER_MAX.
 * Does not wait. */
cc_status cc_cvd_draw (cc_cvd *cvd, cc_stream stream, cc_image *frame,
    const cc_cvd_draw_params *rp);

#ifdef __cplusplus
}
#endif
#endif
