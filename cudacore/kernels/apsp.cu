/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Tiled Floyd-Warshall all-pairs shortest paths (marras-2010 section 4, after Katz and
// Kider 2008), directed (full padded matrix) and undirected (lower-triangular tiles only,
// each tile contiguous, tiles in z-order).
//
// Round k of T (T = tiles per side) updates, in three launches:
//   1. the diagonal tile (k,k): plain Floyd-Warshall inside the tile, one block;
//   2. the tiles of row k and column k: a tile X of row k becomes min(X, D (x) X) and a
//      tile of column k min(X, X (x) D), where (x) is the min-plus product and D the
//      closed diagonal tile;
//   3. every other tile (r,c): min(C, A(r,k) (x) B(k,c)).
// Phases 2 and 3 are pure min-plus products of tiles that are final for the round, so a
// block loads its two dependency tiles into shared memory, keeps its output cells in
// registers, and needs no synchronisation inside the k loop. A 64x64 tile is one block
// of 16x16 threads; each thread owns a 4x4 patch (rows ty*4.., columns tx*4..) and reads
// its A rows and B columns as float4 from shared memory.
//
// Undirected: only tiles (r,c) with r >= c exist. Phase 2 updates the T-1 stored tiles of
// the cross of k (row k left of the diagonal, column k below it); phase 3 every stored
// tile off the cross, the diagonal tiles in full. A dependency above the diagonal,
// (r,k) with r < k or (k,c) with k < c, is the transpose of its stored mirror and is
// transposed while it is loaded into shared memory.
#include "apsp_internal.h"
#include "apsp_hostdev.h"
#include "cuda_common.cuh"

#include <math.h>
#include <stdlib.h>

namespace {

constexpr int kTile = CC_APSP_TILE;          // 64
constexpr int kSide = 16;                    // threads per block side
constexpr int kCells = kTile / kSide;        // 4x4 cells per thread
constexpr int kPitch = kTile + 4;            // shared row pitch: float4-aligned, and the
                                             // transposed stores spread over 8 banks
constexpr int kTileFloats = kTile * kTile;
static_assert (kTile == kSide * kCells, "tile must be threads x cells");

struct Matrix {
  float *d;
  cc_apsp_kind kind;
  int tiles;
  size_t pitch;              // directed: floats per padded row
  const int32_t *slot_of;    // undirected: tiles x tiles, z-order slot of (r >= c)
  const int32_t *tile_of;    // undirected: slot -> r << 16 | c
};

// Tile (r, c): directed any; undirected r >= c. *pitch gets the element row pitch.
__device__ __forceinline__ float *
tile_at (const Matrix &m, int r, int c, size_t *pitch)
{
  if (m.kind == CC_APSP_DIRECTED) {
    *pitch = m.pitch;
    return m.d + (size_t) r * kTile * m.pitch + (size_t) c * kTile;
  }
  *pitch = kTile;
  return m.d + (size_t) m.slot_of[(size_t) r * m.tiles + c] * kTileFloats;
}

// Element (i, j) of the full or the symmetric matrix. Undirected diagonal tiles are
// stored whole (both halves kept equal); above them the mirror (j, i) is read.
__device__ __forceinline__ float *
element_at (const Matrix &m, int i, int j)
{
  if (m.kind == CC_APSP_DIRECTED)
    return m.d + (size_t) i * m.pitch + j;
  if (i / kTile < j / kTile) {
    int t = i; i = j; j = t;
  }
  size_t slot = (size_t) m.slot_of[(size_t) (i / kTile) * m.tiles + j / kTile];
  return m.d + slot * kTileFloats + (i % kTile) * kTile + j % kTile;
}

__device__ __forceinline__ int
thread_rank ()
{
  return threadIdx.y * kSide + threadIdx.x;
}

// Global tile -> shared, as is (float4, coalesced).
__device__ __forceinline__ void
load_tile (float *s, const float *g, size_t pitch)
{
  for (int q = thread_rank (); q < kTileFloats / 4; q += kSide * kSide) {
    int row = q / (kTile / 4), col = (q % (kTile / 4)) * 4;
    *reinterpret_cast<float4 *> (s + row * kPitch + col) =
        *reinterpret_cast<const float4 *> (g + row * pitch + col);
  }
}

// Global tile -> shared, transposed: a warp reads a row segment (coalesced) and writes
// it down a column of the shared tile.
__device__ __forceinline__ void
load_tile_transposed (float *s, const float *g, size_t pitch)
{
  for (int q = thread_rank (); q < kTileFloats; q += kSide * kSide) {
    int row = q / kTile, col = q % kTile;
    s[col * kPitch + row] = g[row * pitch + col];
  }
}

__device__ __forceinline__ void
load_cells (float c[kCells][kCells], const float *g, size_t pitch)
{
#pragma unroll
  for (int a = 0; a < kCells; a++) {
    float4 v = *reinterpret_cast<const float4 *> (
        g + (threadIdx.y * kCells + a) * pitch + threadIdx.x * kCells);
    c[a][0] = v.x; c[a][1] = v.y; c[a][2] = v.z; c[a][3] = v.w;
  }
}

__device__ __forceinline__ void
store_cells (const float c[kCells][kCells], float *g, size_t pitch)
{
#pragma unroll
  for (int a = 0; a < kCells; a++)
    *reinterpret_cast<float4 *> (g + (threadIdx.y * kCells + a) * pitch
        + threadIdx.x * kCells) = make_float4 (c[a][0], c[a][1], c[a][2], c[a][3]);
}

// c = min(c, As (x) Bs) over the whole tile, both operands in shared memory.
__device__ __forceinline__ void
min_plus (float c[kCells][kCells], const float *As, const float *Bs)
{
  const float *a_rows = As + threadIdx.y * kCells * kPitch;
  const float *b_cols = Bs + threadIdx.x * kCells;
#pragma unroll 2
  for (int m = 0; m < kTile; m += 4) {
    float4 a[kCells], b[4];
#pragma unroll
    for (int i = 0; i < kCells; i++)
      a[i] = *reinterpret_cast<const float4 *> (a_rows + i * kPitch + m);
#pragma unroll
    for (int q = 0; q < 4; q++)
      b[q] = *reinterpret_cast<const float4 *> (b_cols + (m + q) * kPitch);
#pragma unroll
    for (int i = 0; i < kCells; i++) {
      const float av[4] = { a[i].x, a[i].y, a[i].z, a[i].w };
#pragma unroll
      for (int q = 0; q < 4; q++) {
        c[i][0] = cc_apsp_relax (c[i][0], av[q], b[q].x);
        c[i][1] = cc_apsp_relax (c[i][1], av[q], b[q].y);
        c[i][2] = cc_apsp_relax (c[i][2], av[q], b[q].z);
        c[i][3] = cc_apsp_relax (c[i][3], av[q], b[q].w);
      }
    }
  }
}

struct Operand {
  const float *p;
  size_t pitch;
  bool transposed;
};

// out = min(out, a (x) b) for one tile per block. out may be a or b (phase 2): every
// read of it happens before the barrier, every write after the product.
__device__ __forceinline__ void
update_tile (float *out, size_t out_pitch, Operand a, Operand b)
{
  __shared__ __align__ (16) float As[kTile * kPitch];
  __shared__ __align__ (16) float Bs[kTile * kPitch];
  if (a.transposed)
    load_tile_transposed (As, a.p, a.pitch);
  else
    load_tile (As, a.p, a.pitch);
  if (b.transposed)
    load_tile_transposed (Bs, b.p, b.pitch);
  else
    load_tile (Bs, b.p, b.pitch);
  float c[kCells][kCells];
  load_cells (c, out, out_pitch);
  __syncthreads ();
  min_plus (c, As, Bs);
  store_cells (c, out, out_pitch);
}

// Phase 1: Floyd-Warshall inside the diagonal tile. Row kk and column kk do not change
// in step kk (d(kk,kk) = 0 and weights >= 0), so one shared copy is updated in place
// with a barrier between reading and writing.
__global__ void __launch_bounds__ (kSide * kSide)
fw_phase1 (Matrix m, int k)
{
  __shared__ __align__ (16) float s[kTile * kPitch];
  size_t pitch;
  float *g = tile_at (m, k, k, &pitch);
  load_tile (s, g, pitch);
  __syncthreads ();
  float c[kCells][kCells];
  load_cells (c, s, kPitch);
  for (int kk = 0; kk < kTile; kk++) {
    float col[kCells];
#pragma unroll
    for (int a = 0; a < kCells; a++)
      col[a] = s[(threadIdx.y * kCells + a) * kPitch + kk];
    float4 row = *reinterpret_cast<const float4 *> (s + kk * kPitch + threadIdx.x * kCells);
#pragma unroll
    for (int a = 0; a < kCells; a++) {
      c[a][0] = cc_apsp_relax (c[a][0], col[a], row.x);
      c[a][1] = cc_apsp_relax (c[a][1], col[a], row.y);
      c[a][2] = cc_apsp_relax (c[a][2], col[a], row.z);
      c[a][3] = cc_apsp_relax (c[a][3], col[a], row.w);
    }
    __syncthreads ();
    store_cells (c, s, kPitch);
    __syncthreads ();
  }
  store_cells (c, g, pitch);
}

// Phase 2, directed: blockIdx.y 0 = row k (tile (k,x)), 1 = column k (tile (x,k)).
__global__ void __launch_bounds__ (kSide * kSide)
fw_phase2_directed (Matrix m, int k)
{
  int x = blockIdx.x + (blockIdx.x >= (unsigned) k);
  size_t dp, tp;
  const float *diag = tile_at (m, k, k, &dp);
  if (blockIdx.y == 0) {
    float *t = tile_at (m, k, x, &tp);
    update_tile (t, tp, Operand { diag, dp, false }, Operand { t, tp, false });
  } else {
    float *t = tile_at (m, x, k, &tp);
    update_tile (t, tp, Operand { t, tp, false }, Operand { diag, dp, false });
  }
}

// Phase 3, directed: every tile off row and column k.
__global__ void __launch_bounds__ (kSide * kSide)
fw_phase3_directed (Matrix m, int k)
{
  int r = blockIdx.y + (blockIdx.y >= (unsigned) k);
  int c = blockIdx.x + (blockIdx.x >= (unsigned) k);
  size_t ap, bp, op;
  const float *a = tile_at (m, r, k, &ap);
  const float *b = tile_at (m, k, c, &bp);
  float *o = tile_at (m, r, c, &op);
  update_tile (o, op, Operand { a, ap, false }, Operand { b, bp, false });
}

// Phase 2, undirected: the stored tiles of the cross of k. Left of the diagonal the
// tile (k,x) is a row tile; below it (x,k) is a column tile.
__global__ void __launch_bounds__ (kSide * kSide)
fw_phase2_undirected (Matrix m, int k)
{
  int x = blockIdx.x + (blockIdx.x >= (unsigned) k);
  size_t dp, tp;
  const float *diag = tile_at (m, k, k, &dp);
  if (x < k) {
    float *t = tile_at (m, k, x, &tp);
    update_tile (t, tp, Operand { diag, dp, false }, Operand { t, tp, false });
  } else {
    float *t = tile_at (m, x, k, &tp);
    update_tile (t, tp, Operand { t, tp, false }, Operand { diag, dp, false });
  }
}

// Phase 3, undirected: one block per stored slot, in memory (z-) order; the cross of
// k returns at once. A(r,k) above the diagonal (r < k) is S(k,r) transposed; B(k,c)
// above it (k < c) is S(c,k) transposed.
__global__ void __launch_bounds__ (kSide * kSide)
fw_phase3_undirected (Matrix m, int k)
{
  int tile = m.tile_of[blockIdx.x];
  int r = tile >> 16, c = tile & 0xFFFF;
  if (r == k || c == k)
    return;
  size_t ap, bp;
  const float *a = r > k ? tile_at (m, r, k, &ap) : tile_at (m, k, r, &ap);
  const float *b = k > c ? tile_at (m, k, c, &bp) : tile_at (m, c, k, &bp);
  float *o = m.d + (size_t) blockIdx.x * kTileFloats;
  update_tile (o, kTile, Operand { a, ap, r < k }, Operand { b, bp, k < c });
}

__global__ void
fill_infinity (float *d, size_t count)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    d[i] = INFINITY;
}

// Diagonal zeros (padding nodes included) and the arcs of node u. Undirected skips
// arcs into a tile above the diagonal: the symmetrised CSR has their mirror.
__global__ void
scatter_arcs (Matrix m, int padded, int nodes, const int32_t *row_start, const int32_t *col,
    const float *weight)
{
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= padded)
    return;
  *element_at (m, u, u) = 0.0f;
  if (u >= nodes)
    return;
  for (int a = row_start[u]; a < row_start[u + 1]; a++) {
    int v = col[a];
    if (m.kind == CC_APSP_DIRECTED || u / kTile >= v / kTile)
      *element_at (m, u, v) = weight[a];
  }
}

// The next-hop rule of cc_apsp.h, one thread per (i, j).
__global__ void
next_hops (Matrix m, int nodes, const int32_t *row_start, const int32_t *col,
    const float *weight, int32_t *next)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nodes)
    return;
  for (int i = blockIdx.y; i < nodes; i += gridDim.y) {
    float d_ij = *element_at (m, i, j), best_len;
    int32_t best = cc_apsp_next_hop_start (i, j, &best_len);
    if (cc_apsp_next_hop_searched (i, j, d_ij))
      for (int a = row_start[i]; a < row_start[i + 1]; a++)
        cc_apsp_next_hop_arc (d_ij, weight[a], *element_at (m, col[a], j), col[a], &best_len,
            &best);
    next[(size_t) i * nodes + j] = best;
  }
}

// Rows (rows[r], or first + r) of the distance matrix, packed count x nodes.
__global__ void
gather_rows (Matrix m, int nodes, const int32_t *rows, int first, int count, float *out)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nodes)
    return;
  for (int r = blockIdx.y; r < count; r += gridDim.y) {
    int i = rows ? rows[first + r] : first + r;
    out[(size_t) r * nodes + j] = *element_at (m, i, j);
  }
}

}  // namespace

struct cc_cuda_apsp {
  cc_stream stream;   // the stream of the public call in progress (set by each entry point)
  cc_context *ctx;
  int nodes, padded;
  cc_apsp_params params;
  Matrix m;
  int32_t *slot_of, *tile_of;     // device tables (undirected)
  int32_t *next;                  // device next hops, nodes x nodes (next_hop)
  int staging_rows;
  float *staging;                 // device, staging_rows x nodes
  int32_t *staging_rows_ids;      // device, staging_rows row ids
  cudaEvent_t start, stop;
};

extern "C" cc_status
cc_cuda_mem_info (cc_context *ctx, size_t *free_bytes, size_t *total_bytes)
{
  (void) ctx;
  CC_CUDA_TRY (cudaMemGetInfo (free_bytes, total_bytes), "cudaMemGetInfo");
  return CC_SUCCESS;
}

extern "C" void
cc_cuda_apsp_destroy (cc_cuda_apsp *s)
{
  if (!s)
    return;
  cudaStreamSynchronize (s->stream);
  cudaFree (s->m.d);
  cudaFree (s->slot_of);
  cudaFree (s->tile_of);
  cudaFree (s->next);
  cudaFree (s->staging);
  cudaFree (s->staging_rows_ids);
  if (s->start)
    cudaEventDestroy (s->start);
  if (s->stop)
    cudaEventDestroy (s->stop);
  free (s);
}

static cc_status
apsp_alloc (cc_cuda_apsp *s)
{
  const cc_apsp_params &p = s->params;
  size_t need = 0, free_bytes = 0, total_bytes = 0;
  CC_TRY (cc_apsp_device_bytes (s->nodes, &p, &need));
  CC_CUDA_TRY (cudaMemGetInfo (&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (need > free_bytes)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
        "apsp: %d nodes (%d padded, %s) need %zu bytes (%.2f GiB) of device memory, "
        "but only %zu bytes (%.2f GiB) of %zu are free", s->nodes, s->padded,
        p.kind == CC_APSP_UNDIRECTED ? "undirected" : "directed", need,
        need / 1073741824.0, free_bytes, free_bytes / 1073741824.0, total_bytes);
  CC_TRY (cc_cuda_malloc (s->ctx, cc_apsp_matrix_bytes (s->nodes, p.kind), (void **) &s->m.d));
  if (p.kind == CC_APSP_UNDIRECTED) {
    int32_t *slot_of, *tile_of;
    int t = s->m.tiles;
    size_t lower = (size_t) t * (t + 1) / 2;
    CC_TRY (cc_apsp_zorder_tables (t, &slot_of, &tile_of));
    cc_status st = cc_cuda_malloc (s->ctx, sizeof (int32_t) * t * t, (void **) &s->slot_of);
    if (st == CC_SUCCESS)
      st = cc_cuda_malloc (s->ctx, sizeof (int32_t) * lower, (void **) &s->tile_of);
    if (st == CC_SUCCESS && cudaMemcpy (s->slot_of, slot_of, sizeof (int32_t) * t * t,
            cudaMemcpyHostToDevice) != cudaSuccess)
      st = cc_set_error (CC_ERROR_CUDA, "apsp: uploading the tile table failed");
    if (st == CC_SUCCESS && cudaMemcpy (s->tile_of, tile_of, sizeof (int32_t) * lower,
            cudaMemcpyHostToDevice) != cudaSuccess)
      st = cc_set_error (CC_ERROR_CUDA, "apsp: uploading the tile table failed");
    free (slot_of);
    free (tile_of);
    CC_TRY (st);
    s->m.slot_of = s->slot_of;
    s->m.tile_of = s->tile_of;
  }
  if (p.next_hop)
    CC_TRY (cc_cuda_malloc (s->ctx, sizeof (int32_t) * (size_t) s->nodes * s->nodes,
            (void **) &s->next));
  s->staging_rows = cc_apsp_staging_rows (s->nodes);
  // the staging buffer also carries next-hop rows (int32, same size as float)
  CC_TRY (cc_cuda_malloc (s->ctx, sizeof (float) * (size_t) s->staging_rows * s->nodes
          * (p.next_hop ? 2 : 1), (void **) &s->staging));
  CC_TRY (cc_cuda_malloc (s->ctx, sizeof (int32_t) * s->staging_rows,
          (void **) &s->staging_rows_ids));
  CC_CUDA_TRY (cudaEventCreate (&s->start), "cudaEventCreate");
  CC_CUDA_TRY (cudaEventCreate (&s->stop), "cudaEventCreate");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_apsp_create (cc_context *ctx, int nodes, const cc_apsp_params *params,
    cc_cuda_apsp **out)
{
  cc_cuda_apsp *s = (cc_cuda_apsp *) calloc (1, sizeof *s);
  if (!s)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "apsp: out of host memory");
  s->ctx = ctx;
  s->stream = ctx->stream;   // until a call names its own
  s->nodes = nodes;
  s->params = *params;
  s->m.kind = params->kind;
  s->m.tiles = cc_apsp_tiles (nodes);
  s->padded = s->m.tiles * kTile;
  s->m.pitch = (size_t) s->padded;
  cc_status st = apsp_alloc (s);
  if (st != CC_SUCCESS) {
    cc_cuda_apsp_destroy (s);
    return st;
  }
  *out = s;
  return CC_SUCCESS;
}

static cc_status
run_rounds (cc_cuda_apsp *s)
{
  cudaStream_t stream = s->stream;
  const int t = s->m.tiles;
  const dim3 block (kSide, kSide);
  const unsigned lower = (unsigned) ((size_t) t * (t + 1) / 2);
  for (int k = 0; k < t; k++) {
    fw_phase1<<<1, block, 0, stream>>> (s->m, k);
    if (t > 1) {
      if (s->m.kind == CC_APSP_DIRECTED) {
        fw_phase2_directed<<<dim3 (t - 1, 2), block, 0, stream>>> (s->m, k);
        fw_phase3_directed<<<dim3 (t - 1, t - 1), block, 0, stream>>> (s->m, k);
      } else {
        fw_phase2_undirected<<<t - 1, block, 0, stream>>> (s->m, k);
        fw_phase3_undirected<<<lower, block, 0, stream>>> (s->m, k);
      }
    }
    CC_CUDA_LAUNCHED ("apsp: Floyd-Warshall round");
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_apsp_compute (cc_cuda_apsp *s, cc_stream cs, const cc_apsp_csr *csr, double *kernel_ms)
{
  s->stream = cs;
  cudaStream_t stream = s->stream;
  int n = s->nodes;
  int32_t *row_start = NULL, *col = NULL;
  float *weight = NULL;
  size_t arcs = (size_t) csr->arcs;
  cc_status st = cc_cuda_malloc (s->ctx, sizeof (int32_t) * (n + 1), (void **) &row_start);
  if (st == CC_SUCCESS)
    st = cc_cuda_malloc (s->ctx, sizeof (int32_t) * arcs, (void **) &col);
  if (st == CC_SUCCESS)
    st = cc_cuda_malloc (s->ctx, sizeof (float) * arcs, (void **) &weight);
  if (st == CC_SUCCESS
      && (cudaMemcpyAsync (row_start, csr->row_start, sizeof (int32_t) * (n + 1),
              cudaMemcpyHostToDevice, stream) != cudaSuccess
          || (arcs && cudaMemcpyAsync (col, csr->col, sizeof (int32_t) * arcs,
                  cudaMemcpyHostToDevice, stream) != cudaSuccess)
          || (arcs && cudaMemcpyAsync (weight, csr->weight, sizeof (float) * arcs,
                  cudaMemcpyHostToDevice, stream) != cudaSuccess)))
    st = cc_set_error (CC_ERROR_CUDA, "apsp: uploading the graph failed: %s",
        cudaGetErrorString (cudaGetLastError ()));
  if (st == CC_SUCCESS) {
    size_t floats = cc_apsp_matrix_bytes (n, s->m.kind) / sizeof (float);
    fill_infinity<<<4096, 256, 0, stream>>> (s->m.d, floats);
    scatter_arcs<<<cc_div_up (s->padded, 256), 256, 0, stream>>> (s->m, s->padded, n,
        row_start, col, weight);
    st = cc_cuda_check_launch ("apsp: matrix initialisation");
  }
  if (st == CC_SUCCESS && cudaEventRecord (s->start, stream) != cudaSuccess)
    st = cc_set_error (CC_ERROR_CUDA, "apsp: cudaEventRecord failed");
  if (st == CC_SUCCESS)
    st = run_rounds (s);
  if (st == CC_SUCCESS && cudaEventRecord (s->stop, stream) != cudaSuccess)
    st = cc_set_error (CC_ERROR_CUDA, "apsp: cudaEventRecord failed");
  if (st == CC_SUCCESS && s->next) {
    dim3 grid (cc_div_up (n, 256), n < 65535 ? n : 65535);
    next_hops<<<grid, 256, 0, stream>>> (s->m, n, row_start, col, weight, s->next);
    st = cc_cuda_check_launch ("apsp: next hops");
  }
  cudaError_t sync = cudaStreamSynchronize (stream);
  if (st == CC_SUCCESS && sync != cudaSuccess)
    st = cc_set_error (CC_ERROR_CUDA, "apsp: kernels failed: %s", cudaGetErrorString (sync));
  float ms = 0.0f;
  if (st == CC_SUCCESS && cudaEventElapsedTime (&ms, s->start, s->stop) != cudaSuccess)
    st = cc_set_error (CC_ERROR_CUDA, "apsp: cudaEventElapsedTime failed");
  *kernel_ms = ms;
  cudaFree (row_start);
  cudaFree (col);
  cudaFree (weight);
  return st;
}

extern "C" cc_status
cc_cuda_apsp_get_rows (cc_cuda_apsp *s, const int32_t *rows, int count, float *dist,
    int32_t *next)
{
  cudaStream_t stream = s->stream;
  const int n = s->nodes;
  for (int first = 0; first < count; first += s->staging_rows) {
    int chunk = count - first < s->staging_rows ? count - first : s->staging_rows;
    if (rows)
      CC_CUDA_TRY (cudaMemcpyAsync (s->staging_rows_ids, rows + first,
              sizeof (int32_t) * chunk, cudaMemcpyHostToDevice, stream), "apsp: row ids");
    if (dist) {
      dim3 grid (cc_div_up (n, 256), chunk < 65535 ? chunk : 65535);
      gather_rows<<<grid, 256, 0, stream>>> (s->m, n, rows ? s->staging_rows_ids : NULL,
          rows ? 0 : first, chunk, s->staging);
      CC_CUDA_LAUNCHED ("apsp: gather rows");
      CC_CUDA_TRY (cudaMemcpyAsync (dist + (size_t) first * n, s->staging,
              sizeof (float) * (size_t) chunk * n, cudaMemcpyDeviceToHost, stream),
          "apsp: downloading distances");
    }
    if (next) {
      for (int r = 0; r < chunk; r++) {
        size_t i = (size_t) (rows ? rows[first + r] : first + r);
        CC_CUDA_TRY (cudaMemcpyAsync (next + (size_t) (first + r) * n, s->next + i * n,
                sizeof (int32_t) * n, cudaMemcpyDeviceToHost, stream),
            "apsp: downloading next hops");
      }
    }
    CC_CUDA_TRY (cudaStreamSynchronize (stream), "apsp: download");
  }
  return CC_SUCCESS;
}
