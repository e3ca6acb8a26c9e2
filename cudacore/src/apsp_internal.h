/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between apsp.c (dispatcher + CPU reference) and kernels/apsp.cu. */
#ifndef CUDACORE_APSP_INTERNAL_H
#define CUDACORE_APSP_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_apsp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The graph in compressed rows: parallel arcs merged (smallest weight), self-loops
 * dropped, UNDIRECTED symmetrised; each row's columns ascending (the "arc order"
 * of the next-hop rule). */
typedef struct cc_apsp_csr {
  int nodes;
  int arcs;
  int32_t *row_start;   /* nodes + 1 */
  int32_t *col;         /* arcs */
  float *weight;        /* arcs */
} cc_apsp_csr;

cc_status cc_apsp_csr_build (const cc_apsp_graph *graph, cc_apsp_kind kind,
    cc_apsp_csr *out);
void cc_apsp_csr_free (cc_apsp_csr *csr);

/* Tiles per side and the device layout sizes (shared so that the byte count the
 * dispatcher reports is the one the launcher allocates). */
int cc_apsp_tiles (int nodes);
size_t cc_apsp_matrix_bytes (int nodes, cc_apsp_kind kind);
size_t cc_apsp_table_bytes (int nodes, cc_apsp_kind kind);
/* Rows per download chunk and the staging bytes it takes. */
int cc_apsp_staging_rows (int nodes);
/* The z-order of the lower-triangular tiles: slot_of[r * tiles + c] (r >= c; -1
 * above the diagonal) and tile_of[slot] = r << 16 | c. Caller frees both. */
cc_status cc_apsp_zorder_tables (int tiles, int32_t **slot_of, int32_t **tile_of);

/* CUDA backend (kernels/apsp.cu). */
typedef struct cc_cuda_apsp cc_cuda_apsp;
cc_status cc_cuda_apsp_create (cc_context *ctx, int nodes, const cc_apsp_params *params,
    cc_cuda_apsp **out);
void cc_cuda_apsp_destroy (cc_cuda_apsp *state);
cc_status cc_cuda_apsp_compute (cc_cuda_apsp *state, cc_stream stream, const cc_apsp_csr *csr,
    double *kernel_ms);
cc_status cc_cuda_apsp_get_rows (cc_cuda_apsp *state, const int32_t *rows, int count,
    float *dist, int32_t *next);
cc_status cc_cuda_mem_info (cc_context *ctx, size_t *free_bytes, size_t *total_bytes);

#ifdef __cplusplus
}
#endif
#endif
