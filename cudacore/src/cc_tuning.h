/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tuning knobs that benchmarks and tests compare, behind the public API: internal to
 * cudacore (not installed). The public parameters say what changes results a user
 * would choose; these choose between implementations of the same result (or a
 * reference that is too slow to ship), with defaults that the public API always
 * uses. The benches (bench/cvd-bench.c ...), the developer tools of tools/dev and
 * tests/core include this header (cudacore/src); the library and the elements never
 * call the setters. Besides the knobs it declares the records and the single steps
 * that only tests, benches and those tools read (cc_refine_energies, the CVD steps
 * one at a time, Quad-Cut's stage times and per-pixel data). */
#ifndef CUDACORE_CC_TUNING_H
#define CUDACORE_CC_TUNING_H

#include <cudacore/cc_apsp.h>
#include <cudacore/cc_cvd.h>
#include <cudacore/cc_moct.h>
#include <cudacore/cc_refine.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- apsp */

/* Which CPU algorithm computes the matrix (CUDA: the tiled Floyd-Warshall whatever
 * the tuning). Both give the same distances up to float rounding (bit for bit on
 * weights under which every path sum is exact, as meshseg's); next hops follow the
 * same rule from either. */
typedef enum cc_apsp_cpu_method {
  CC_APSP_CPU_AUTO = 0,          /* Floyd-Warshall up to 256 nodes, else Dijkstra */
  CC_APSP_CPU_DIJKSTRA,          /* repeated Dijkstra, binary heap, one source per task */
  CC_APSP_CPU_FLOYD_WARSHALL     /* plain triple loop (n^3): the small-graph reference */
} cc_apsp_cpu_method;

typedef struct cc_apsp_tuning {
  cc_apsp_cpu_method cpu_method;  /* Default AUTO */
} cc_apsp_tuning;

void cc_apsp_tuning_default (cc_apsp_tuning *tuning);
/* Applies to the solves that follow. INVALID_ARGUMENT for an unknown method. */
cc_status cc_apsp_set_tuning (cc_apsp *apsp, const cc_apsp_tuning *tuning);
/* cc_apsp_dense with a tuning (NULL: the defaults). */
cc_status cc_apsp_dense_tuned (cc_context *ctx, cc_stream stream, const cc_apsp_graph *graph,
    const cc_apsp_params *params, const cc_apsp_tuning *tuning, float *dist, int32_t *next,
    cc_apsp_stats *stats);

/* ---------------------------------------------------------------- cvd */

/* How the Voronoi step labels the pixels.
 *  EXACT:    the nearest site of every pixel, by a search of a bucket grid of the
 *            sites (CPU only; CUDA: NOT_SUPPORTED). The reference.
 *  JFA:      jump flooding (Rong & Tan 2006): each site seeds its rounded pixel
 *            (lowest id on a shared pixel), then passes of step k = 2^(ceil(log2
 *            max(w, h)) - 1) .. 1, each pixel keeping the nearest of the labels at
 *            its 9 neighbours at +-k (ping-pong buffers). Deterministic given the
 *            pass order: the CPU twin and CUDA give the same labels.
 *  JFA_1PLUS: 1+JFA: one extra pass of step 1 before the JFA passes (Rong & Tan
 *            2007; fewer mislabelled pixels).
 *  JFA_1PLUS_2: 1+JFA+2, the default: 1+JFA, then two more passes of steps 2 and 1
 *            (the "+2" of JFA+2), which let the labels of the near sites that the
 *            long steps lost reach the pixels of a cell's border: on the test cases
 *            (1080p, 2k and 20k random sites) no mislabelled pixel is more than
 *            1 px farther from its site than from the nearest one, where 1+JFA
 *            alone leaves some at 1.1 px (docs/cvdmosaic.md).
 * A JFA label is never farther than a few px from the exact nearest (tests bound
 * the rate and the distance error); a site whose rounded pixel another site (lower
 * id) also rounds to gets no pixels in that iteration and stays put. */
typedef enum cc_cvd_voronoi {
  CC_CVD_VORONOI_JFA_1PLUS = 0,
  CC_CVD_VORONOI_JFA,
  CC_CVD_VORONOI_EXACT,
  CC_CVD_VORONOI_JFA_1PLUS_2
} cc_cvd_voronoi_method;

/* How the CUDA backend sums the centroids (the CPU has one loop; results are the
 * same integers whatever the method).
 *  AUTO:       PRIVATIZED (the faster in docs/cvdmosaic.md's comparison).
 *  PRIVATIZED: one thread per pixel; lanes of a warp with the same label add up
 *              first (__match_any_sync), one lane adds to the site's global sums.
 *  MDRR:       the paper's multi-dimensional regional reduction: a block per site
 *              sweeps a window of quadrants around the site (side 4 sqrt(w h / N),
 *              in patches of 32 x 8 px), reduces in the block and writes the site's
 *              sums without atomics; pixels outside their site's window (rare) are
 *              added by a per-pixel pass, so the sums stay exact. */
typedef enum cc_cvd_centroid_method {
  CC_CVD_CENTROID_AUTO = 0,
  CC_CVD_CENTROID_PRIVATIZED,
  CC_CVD_CENTROID_MDRR
} cc_cvd_centroid_method;

typedef struct cc_cvd_tuning {
  cc_cvd_voronoi_method voronoi;    /* Default JFA_1PLUS_2 */
  cc_cvd_centroid_method centroid;  /* Default AUTO */
} cc_cvd_tuning;

void cc_cvd_tuning_default (cc_cvd_tuning *tuning);
/* Applies to the calls that follow (a change of Voronoi method starts the next step
 * cold). INVALID_ARGUMENT for an unknown method; NOT_SUPPORTED for EXACT on CUDA. */
cc_status cc_cvd_set_tuning (cc_cvd *cvd, const cc_cvd_tuning *tuning);
void cc_cvd_get_tuning (const cc_cvd *cvd, cc_cvd_tuning *tuning);

/* The steps of cc_cvd_compute one at a time, and a density from a host array: for
 * the tests and cvd-bench. */

/* Density from a host array.
 * [in,out] cvd. [in] stream: NULL for the context's stream.
 * [in] rho: host, width x height values (packed rows); 0 is raised to 1.
 * OUT_OF_MEMORY. Waits on CUDA for the upload. */
cc_status cc_cvd_set_density_map (cc_cvd *cvd, cc_stream stream, const uint16_t *rho);
/* Voronoi step alone (the tuning's method) for the current sites.
 * [in,out] cvd: sites must have been seeded or set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream. Does not wait. */
cc_status cc_cvd_voronoi (cc_cvd *cvd, cc_stream stream);
/* The last label image.
 * [in] cvd: labels for the current sites (else INVALID_ARGUMENT).
 * [out] labels: host, width x height int32 (site ids).
 * A readback: waits on CUDA for the stream of the last call. */
cc_status cc_cvd_get_labels (cc_cvd *cvd, int32_t *labels);
/* Centroid sums of one site. */
typedef struct cc_cvd_sums {
  uint64_t w, x, y;    /* sum rho, sum rho x, sum rho y */
} cc_cvd_sums;
/* Centroid step alone over the labels of the current sites (a Voronoi step first
 * when the sites moved since the last one).
 * [in,out] cvd: sites must have been seeded or set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [out] sums: host, cc_cvd_site_count() entries.
 * Waits on CUDA (a host result). */
cc_status cc_cvd_centroid_sums (cc_cvd *cvd, cc_stream stream, cc_cvd_sums *sums);

/* ---------------------------------------------------------------- moct */

/* How the CUDA backend reduces its per-block accumulators (the CPU has one loop).
 * Both: persistent blocks, each warp walks frame rows 32 x pixels_per_thread pixels
 * at a time, runs of one object are summed in registers (and over the whole warp
 * when all its lanes saw the same object), then added to per-block accumulators
 * of every object in shared memory (64 bytes an object). They differ in how the
 * blocks' accumulators meet:
 *  ATOMIC:   each block adds its non-empty accumulators to the global ones with
 *            64-bit global atomics (one kernel, plus a tiny reset).
 *  PARTIALS: each block writes its non-empty accumulators and a bitmask of them to
 *            its own slot; a second kernel (a warp per object) sums the slots in
 *            block order. No global atomics. */
typedef enum cc_moct_layout {
  CC_MOCT_LAYOUT_ATOMIC = 0,
  CC_MOCT_LAYOUT_PARTIALS
} cc_moct_layout;

typedef struct cc_moct_tuning {
  cc_moct_layout layout;   /* CUDA reduction layout (see above). Default ATOMIC */
  int pixels_per_thread;   /* CUDA: pixels a thread classifies per row segment:
                              4, 8 or 16. Default 8 */
  int narrow_accumulators; /* CUDA: 48-byte shared accumulators with 32-bit sums
                              taken from the block's first row (widened exactly at
                              the flush), for more blocks an SM with many objects;
                              the same results bit for bit. 0 (64-bit accumulators,
                              moct-bench --acc wide) or 1. Default 1: faster on the
                              H100 at every object count (docs/moctracker.md) */
} cc_moct_tuning;

void cc_moct_tuning_default (cc_moct_tuning *tuning);
/* Applies to the runs that follow (the results are the same bits whatever the
 * tuning). INVALID_ARGUMENT naming the field out of range. */
cc_status cc_moct_set_tuning (cc_moct *moct, const cc_moct_tuning *tuning);

/* ---------------------------------------------------------------- quadcut */

/* Quad-Cut lives in cudacore-quadcut (GPL, cc_quadcut.h); its bench, quadcut-eval and
 * tests link it. */
struct cc_quadcut;

/* Stages of cc_quadcut_compute_sync, for the split of cc_quadcut_get_stage_ms. */
typedef enum cc_quadcut_stage {
  CC_QUADCUT_STAGE_STRATIFY = 0,  /* Lab, distance, seeds (and their histogram count) */
  CC_QUADCUT_STAGE_HISTOGRAM,     /* the histogram's costs, per-pixel regional costs */
  CC_QUADCUT_STAGE_PYRAMID,       /* reduction pyramid */
  CC_QUADCUT_STAGE_LEAVES,        /* isolation, compaction, leaf ids, leaf sums */
  CC_QUADCUT_STAGE_NEIGHBOURS,    /* QuadN4 references, neighbour lists */
  CC_QUADCUT_STAGE_TRANSFER,      /* CUDA: the compact graph's copy to the host (CPU: 0) */
  CC_QUADCUT_STAGE_GRAPH,         /* t-links and n-links (CUDA: on the device) */
  CC_QUADCUT_STAGE_MAXFLOW,
  CC_QUADCUT_STAGE_OUTPUT,        /* scatter to the mask, feathering */
  CC_QUADCUT_STAGES
} cc_quadcut_stage;

/* Milliseconds of each stage of the last cc_quadcut_compute_sync: wall clock on the
 * CPU; on CUDA STRATIFY .. TRANSFER are device time (CUDA events; HISTOGRAM includes
 * its round trip, LEAVES and NEIGHBOURS the reads of the counts, GRAPH the t-links and
 * n-links built and compacted on the device, TRANSFER their one copy to the host),
 * MAXFLOW the wall clock of feeding libmaxflow and its cut, OUTPUT of the device back
 * (labels up, scatter, feather), waited for.
 * [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [out] ms: host, CC_QUADCUT_STAGES values.
 * Host values the compute recorded: nothing waits. */
cc_status cc_quadcut_get_stage_ms (const struct cc_quadcut *q, double ms[CC_QUADCUT_STAGES]);

/* The last compute's per-pixel data into host arrays of width x height: Lab L, a, b,
 * background distance d, seed (0 / 1), leaf index of each pixel.
 * [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [out] L, a, b, d, seed, leaf_id: host, width x height each, or NULL (not written);
 *   leaf_id only with NODES_LEAVES (else INVALID_ARGUMENT).
 * A host readback: on CUDA it downloads them and waits for the stream of the last
 * compute. */
cc_status cc_quadcut_get_stratified (const struct cc_quadcut *q, float *L, float *a,
    float *b, float *d, uint8_t *seed, int32_t *leaf_id);

/* ---------------------------------------------------------------- refine */

/* Precision of the CUDA SOR sweeps. The CPU backend always computes in fp32 (red-black
 * order, like CUDA) and ignores this field. */
typedef enum cc_refine_precision {
  CC_REFINE_PRECISION_AUTO = 0, /* packed fp16 sweeps (each row equation scaled to fit
                                   fp16's range; about 0.001 px from fp32), fp32 where
                                   the weights need it (smoothness_weight or color_weight
                                   + gradient_weight beyond 1000) */
  CC_REFINE_PRECISION_FP32      /* fp32 sweeps always (about 1.3x slower at 1080p) */
} cc_refine_precision;

typedef struct cc_refine_tuning {
  cc_refine_precision precision;  /* Default CC_REFINE_PRECISION_AUTO */
  bool track_energy;              /* record E (cc_refine.h) before the first outer
                                     iteration of each level and after each one, for
                                     cc_refine_energies: a reduction per outer
                                     iteration, and on CUDA no graph replay. The
                                     refined field is the same. Default false */
} cc_refine_tuning;

void cc_refine_tuning_default (cc_refine_tuning *tuning);
/* Applies to the runs that follow. INVALID_ARGUMENT naming the field out of range. */
cc_status cc_refine_set_tuning (cc_refine *refine, const cc_refine_tuning *tuning);
/* With track_energy: the energies of the last cc_refine_compute, level by level from
 * the coarsest, each level giving outer_iterations + 1 values (before the first outer
 * iteration, then after each).
 * [in] refine: NULL gives 0. [out] energies: up to `max` values, or NULL.
 * [out] levels_run: the number of levels refined, or NULL.
 * Returns how many values exist (0 without track_energy, before a run, after
 * set_params, or when the CUDA copy fails). A host readback: waits for the stream of
 * the last compute (CUDA). */
int cc_refine_energies (cc_refine *refine, double *energies, int max, int *levels_run);
/* The same for the refinement inside a cc_epic (no-op when its refine is off). */
struct cc_epic;
cc_status cc_epic_set_refine_tuning (struct cc_epic *epic, const cc_refine_tuning *tuning);

#ifdef __cplusplus
}
#endif
#endif
