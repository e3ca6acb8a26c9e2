/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* All-pairs shortest paths (APSP) on weighted graphs.
 *
 * Backends:
 *  - CUDA: the tiled (blocked) Floyd-Warshall of marras-2010 section 4 (after Katz and
 *    Kider 2008): per diagonal tile, three phases (the diagonal tile, its row and column,
 *    the rest), dependency tiles in shared memory. DIRECTED keeps the full padded matrix;
 *    UNDIRECTED keeps only the lower-triangular tiles, each tile contiguous, tiles in
 *    z-order, the dependency tile above the diagonal read transposed from its mirror:
 *    half the memory and about half the work.
 *  - CPU: the plain O(n^3) Floyd-Warshall up to 256 nodes (the reference the others
 *    are tested against), repeated Dijkstra with a binary heap beyond, on the
 *    context's threads (cc_context_set_threads; the same bits on any count).
 *
 * Distances are float; an unreachable pair is +INFINITY; the distance from a node
 * to itself is 0. Edge weights must be finite and >= 0. Parallel arcs keep the
 * smallest weight; self-loops are ignored.
 *
 * Next hops (optional): next[i*n + j] is the neighbour of i that starts a shortest
 * path to j (i for i == j, -1 when j is unreachable). Both backends derive it from the
 * final distances by the same rule: among the neighbours v of i with d(v,j) < d(i,j),
 * the one minimising w(i,v) + d(v,j) (first in arc order on ties). With positive
 * weights following next hops always reaches j.
 *
 * Calls that wait (CUDA): cc_apsp_compute_sync (the whole solve), cc_apsp_get_rows and
 * cc_apsp_dense (host results), cc_apsp_create (it uploads its tile tables),
 * cc_apsp_destroy (cudaFree). cc_apsp_sources runs on the CPU. */
#ifndef CUDACORE_CC_APSP_H
#define CUDACORE_CC_APSP_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tile edge of the CUDA kernels; the node count is padded up to a multiple of it. */
#define CC_APSP_TILE 64
/* Largest node count any backend accepts (the padded matrix index stays in 64 bits,
 * tile indices in 16). */
#define CC_APSP_MAX_NODES (1 << 22)

typedef enum cc_apsp_kind {
  CC_APSP_DIRECTED = 0,   /* arcs go one way */
  CC_APSP_UNDIRECTED      /* every arc also goes the other way: d is symmetric */
} cc_apsp_kind;

/* A graph as a list of arcs in host memory; the arrays are only read during
 * cc_apsp_compute_sync (or cc_apsp_dense, cc_apsp_sources). */
typedef struct cc_apsp_graph {
  int nodes;                 /* 1..CC_APSP_MAX_NODES */
  int arcs;                  /* >= 0 */
  const int32_t *arc_from;   /* arcs entries in 0..nodes-1 (NULL when arcs == 0) */
  const int32_t *arc_to;     /* arcs entries in 0..nodes-1 */
  const float *arc_weight;   /* arcs entries, finite and >= 0 */
} cc_apsp_graph;

typedef struct cc_apsp_params {
  cc_apsp_kind kind;   /* Default DIRECTED */
  bool next_hop;       /* also keep the next-hop matrix (n*n int32 more memory on
                          either backend). Default false */
} cc_apsp_params;

/* [out] params: the defaults above. */
void cc_apsp_params_default (cc_apsp_params *params);

typedef struct cc_apsp_stats {
  double kernel_ms;      /* CUDA: event time of the Floyd-Warshall rounds alone (graph
                            upload, matrix initialisation and next hops excluded);
                            CPU: wall time of the solve itself */
  double total_ms;       /* wall time of the whole cc_apsp_compute_sync call */
  size_t memory_bytes;   /* memory the handle holds for the result: device bytes on
                            CUDA, host bytes on CPU */
  int padded_nodes;      /* CUDA: nodes rounded up to CC_APSP_TILE; CPU: nodes */
} cc_apsp_stats;

typedef struct cc_apsp cc_apsp;

/* Bytes of device memory a CUDA handle for `nodes` nodes holds (matrix, tile tables,
 * the download staging buffer and, with next_hop, the next-hop matrix).
 * [in] nodes: 1..CC_APSP_MAX_NODES. [in] params: NULL for defaults.
 * [out] bytes: not NULL.
 * Returns CC_SUCCESS or CC_ERROR_INVALID_ARGUMENT. Host arithmetic: does not wait. */
cc_status cc_apsp_device_bytes (int nodes, const cc_apsp_params *params, size_t *bytes);

/* Largest node count (a multiple of CC_APSP_TILE) whose handle fits in the device memory
 * free now, leaving `reserve_bytes` free for the graph upload and other users.
 * [in] ctx: a CUDA context. [in] params: NULL for defaults. [out] nodes: not NULL.
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (NULL ctx or nodes, a CPU context);
 * CC_ERROR_OUT_OF_MEMORY (not even CC_APSP_TILE nodes fit); CC_ERROR_CUDA.
 * Does not wait. */
cc_status cc_apsp_max_nodes (cc_context *ctx, const cc_apsp_params *params,
    size_t reserve_bytes, int *nodes);

/* Allocates the result storage for `nodes` nodes on the context's backend.
 * [in] ctx: CPU or CUDA context (outlives the handle). [in] nodes: 1..CC_APSP_MAX_NODES.
 * [in] params: NULL for defaults. [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (NULL ctx or out, nodes or a param out
 * of range); CC_ERROR_OUT_OF_MEMORY (on CUDA with the bytes needed and free in the
 * message when the matrix does not fit in the device memory free now); CC_ERROR_CUDA.
 * Waits (CUDA) for the upload of its tile tables. */
cc_status cc_apsp_create (cc_context *ctx, int nodes, const cc_apsp_params *params,
    cc_apsp **out);
/* NULL: no-op. Waits for the last compute's stream, then frees (cudaFree). */
void cc_apsp_destroy (cc_apsp *apsp);

/* Computes all distances (and next hops) of `graph` on `stream` (NULL: the context's)
 * and waits for the result: the graph comes from host arrays and the whole solve is
 * one unit of work whose stats are host values.
 * [in,out] apsp: holds the result for cc_apsp_get_rows.
 * [in] graph: graph->nodes must equal the handle's node count; arcs as in
 *      cc_apsp_graph; for UNDIRECTED each arc counts both ways (listing both
 *      directions is allowed).
 * [out] stats: timings and memory, or NULL.
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (NULL apsp or graph, a node count
 * other than the handle's, an arc out of range, a weight not finite or negative);
 * CC_ERROR_OUT_OF_MEMORY (host scratch); CC_ERROR_CUDA. Waits. */
cc_status cc_apsp_compute_sync (cc_apsp *apsp, cc_stream stream, const cc_apsp_graph *graph,
    cc_apsp_stats *stats);

/* Copies rows of the last result to the host, packed (count x nodes, row-major).
 * [in] rows: row indices in 0..nodes-1 (any order, repeats allowed), or NULL for rows
 *      0..count-1. [in] count: 0..nodes.
 * [out] dist: count * nodes floats, or NULL.
 * [out] next: count * nodes int32 next hops, or NULL (needs params.next_hop).
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (NULL apsp, no successful compute yet,
 * count or a row out of range, next without next_hop); CC_ERROR_CUDA.
 * A host readback: waits for the last compute's stream. */
cc_status cc_apsp_get_rows (cc_apsp *apsp, const int32_t *rows, int count, float *dist,
    int32_t *next);

/* One-shot convenience: create, compute (on `stream`), copy the whole matrix, destroy.
 * [in] ctx, graph, params (NULL for defaults): as for create and compute.
 * [out] dist: nodes * nodes floats. [out] next: nodes * nodes int32 or NULL
 * (next hops are computed when it is not NULL). [out] stats: or NULL.
 * Returns what create, cc_apsp_compute_sync and cc_apsp_get_rows return
 * (CC_ERROR_INVALID_ARGUMENT also for a NULL graph or dist). Waits. */
cc_status cc_apsp_dense (cc_context *ctx, cc_stream stream, const cc_apsp_graph *graph,
    const cc_apsp_params *params, float *dist, int32_t *next, cc_apsp_stats *stats);

/* Single-source distances from each of `count` sources, on the CPU (repeated
 * Dijkstra over `threads` threads, 0 = all cores): for callers that need a few
 * rows of a graph too large for the whole matrix.
 * [in] graph: as for compute. [in] kind: UNDIRECTED makes every arc two-way.
 * [in] sources: count node ids in 0..nodes-1 (NULL only when count is 0).
 * [in] count: >= 0. [in] threads: >= 0.
 * [out] dist: count * graph->nodes floats, row s = distances from sources[s].
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY. Host only. */
cc_status cc_apsp_sources (const cc_apsp_graph *graph, cc_apsp_kind kind,
    const int32_t *sources, int count, int threads, float *dist);

#ifdef __cplusplus
}
#endif
#endif
