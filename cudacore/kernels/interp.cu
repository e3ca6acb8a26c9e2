/* SPDX-License-Identifier: LGPL-2.1-or-later */
// EPIC interpolation on CUDA: the twin of the CPU reference in src/interp.c (which
// describes the algorithm). Built with -fmad=false: every float step rounds as on
// the CPU, so the keys, graph and models are the same bits.
//
// Geodesic Voronoi: tiled parallel relaxation. A 32 x 32 block loads its tile and a
// one-pixel halo of (distance, seed) keys into shared memory and relaxes its pixels
// against their 8 neighbours in place until no key of the tile changes, then writes
// the changed keys back. A round is one launch of as many blocks as the device runs
// at once, each taking tiles in turn (a launch that returns at once then costs one
// wave of blocks, not one per tile). Rounds of this kernel run back to back; a round
// that changes nothing clears the device flag that makes the remaining rounds return
// at once (no host synchronisation); create captures the rounds into one CUDA graph,
// so a run pays one launch for them. Keys only decrease and each is the value of a real
// path, so the rounds reach the unique fixed point the CPU's Dijkstra computes,
// whatever the order of the updates (cc_interp_rounds () rounds at most).
// Seed graph: an open-addressing table of (cell pair -> least cost) filled with
// atomicCAS / atomicMin (contents independent of the order), then CSR lists by
// a count, a CUB scan, a fill and a per-node sort by neighbour.
// Per seed: one warp runs cc_interp_knn's steps with its scans spread over the lanes
// (candidates in shared memory; the same list, bit for bit), lane 0 cc_interp_fit.
#include "cuda_common.cuh"
#include "interp_internal.h"
#include "interp_hostdev.h"

#include <cub/device/device_scan.cuh>
#include <limits.h>
#include <stdlib.h>

#define INTERP_TILE 32
#define INTERP_THREADS 256
#define INTERP_FIT_WARPS 4
static_assert (128 * (sizeof (cc_flow_match) + sizeof (double)) <= 8 * CC_INTERP_CANDIDATES,
    "interp: fit gather does not fit the candidate buffer");

struct cc_cuda_interp {
  cc_context *ctx;
  int w, h, nb, table_size, table_bits, rounds;
  int round_blocks;              // blocks of a geodesic round: what the device runs at once
  int *blur_h, *blur;
  float *cost;
  unsigned long long *keys;
  int *flags;                    // rounds + 1: flags[r] = round r changed a key
  int *owner;
  unsigned long long *table_key;
  unsigned *table_cost;          // float bits (costs >= 0 order like their bits)
  int *count, *offsets, *cursor, *adj_node;
  float *adj_cost, *model;
  cudaGraphExec_t geodesic;      // the flag reset and the rounds (fixed arguments)
  void *scan_tmp;
  size_t scan_tmp_bytes;
};

// ------------------------------------------------------------------ kernels

__global__ void
interp_blur_h_kernel (cc_image f, int *blur_h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  int w = f.width;
  if (x >= w)
    return;
  const uint8_t *row = (const uint8_t *) f.planes[0] + (size_t) y * f.pitch[0];
  int rgbx = f.format == CC_FORMAT_RGBX8, bgrx = f.format == CC_FORMAT_BGRX8;
  blur_h[(size_t) y * w + x] = cc_interp_binomial5 (
      cc_bm_luma8 (row, cc_clampi (x - 2, 0, w - 1), rgbx, bgrx),
      cc_bm_luma8 (row, cc_clampi (x - 1, 0, w - 1), rgbx, bgrx),
      cc_bm_luma8 (row, x, rgbx, bgrx),
      cc_bm_luma8 (row, cc_clampi (x + 1, 0, w - 1), rgbx, bgrx),
      cc_bm_luma8 (row, cc_clampi (x + 2, 0, w - 1), rgbx, bgrx));
}

__global__ void
interp_blur_v_kernel (const int *blur_h, int *blur, int w, int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  const int *b = blur_h + x;
  blur[(size_t) y * w + x] = cc_interp_binomial5 (b[(size_t) cc_clampi (y - 2, 0, h - 1) * w],
      b[(size_t) cc_clampi (y - 1, 0, h - 1) * w], b[(size_t) y * w],
      b[(size_t) cc_clampi (y + 1, 0, h - 1) * w], b[(size_t) cc_clampi (y + 2, 0, h - 1) * w]);
}

__global__ void
interp_cost_kernel (const int *b, float *cost, int w, int h, float flat, float ew)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  cost[(size_t) y * w + x] = cc_interp_cost (b[(size_t) y * w + cc_clampi (x - 1, 0, w - 1)],
      b[(size_t) y * w + cc_clampi (x + 1, 0, w - 1)],
      b[(size_t) cc_clampi (y - 1, 0, h - 1) * w + x],
      b[(size_t) cc_clampi (y + 1, 0, h - 1) * w + x], flat, ew);
}

__global__ void
interp_owner_fill_kernel (int *owner, int nb)
{
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nb)
    owner[b] = INT_MAX;
}

__global__ void
interp_claim_kernel (const cc_flow_match *matches, int n, int *owner, int w, int h,
    int cell)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, px, py;
  if (i < n && cc_interp_match_pixel (&matches[i], w, h, &px, &py))
    atomicMin (&owner[(py / cell) * ((w + cell - 1) / cell) + px / cell], i);
}

__global__ void
interp_seed_kernel (const cc_flow_match *matches, const int *owner, int nb,
    unsigned long long *keys, int w, int h)
{
  int b = blockIdx.x * blockDim.x + threadIdx.x, px, py;
  if (b >= nb || owner[b] == INT_MAX)
    return;
  cc_interp_match_pixel (&matches[owner[b]], w, h, &px, &py);
  keys[(size_t) py * w + px] = cc_interp_key (0.0f, b);
}

__global__ void
interp_geodesic_round_kernel (unsigned long long *keys, const float *cost, int w, int h,
    int *flags, int round, int tiles_x, int tiles)
{
  __shared__ volatile unsigned long long sk[INTERP_TILE + 2][INTERP_TILE + 2];
  __shared__ float sc[INTERP_TILE + 2][INTERP_TILE + 2];
  if (flags[round - 1] == 0)
    return;   // converged: the whole grid returns
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * INTERP_TILE + tx;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int x0 = (tile % tiles_x) * INTERP_TILE, y0 = (tile / tiles_x) * INTERP_TILE;
    __syncthreads ();   // the previous tile's keys are written out
    for (int i = tid; i < (INTERP_TILE + 2) * (INTERP_TILE + 2);
        i += INTERP_TILE * INTERP_TILE) {
      int lx = i % (INTERP_TILE + 2), ly = i / (INTERP_TILE + 2);
      int gx = x0 + lx - 1, gy = y0 + ly - 1;
      bool in = gx >= 0 && gy >= 0 && gx < w && gy < h;
      sk[ly][lx] = in ? keys[(size_t) gy * w + gx] : CC_INTERP_KEY_NONE;
      sc[ly][lx] = in ? cost[(size_t) gy * w + gx] : 0.0f;
    }
    __syncthreads ();
    const int x = x0 + tx, y = y0 + ty;
    const bool in = x < w && y < h;
    const unsigned long long orig = sk[ty + 1][tx + 1];
    const float c = sc[ty + 1][tx + 1];
    for (int it = 0; it < INTERP_TILE * INTERP_TILE; it++) {
      int changed = 0;
      if (in) {
        unsigned long long own = sk[ty + 1][tx + 1], best = own;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0)
              continue;
            unsigned long long k = cc_interp_relax (sk[ty + 1 + dy][tx + 1 + dx],
                cc_interp_step (c, sc[ty + 1 + dy][tx + 1 + dx], dx != 0 && dy != 0));
            if (k < best)
              best = k;
          }
        if (best < own) {
          sk[ty + 1][tx + 1] = best;
          changed = 1;
        }
      }
      if (!__syncthreads_or (changed))
        break;
    }
    if (in && sk[ty + 1][tx + 1] != orig) {
      keys[(size_t) y * w + x] = sk[ty + 1][tx + 1];
      flags[round] = 1;
    }
  }
}

__global__ void
interp_edge_kernel (const unsigned long long *keys, const float *cost, int w, int h,
    unsigned long long *table_key, unsigned *table_cost, int size, int bits)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  size_t p = (size_t) y * w + x;
  unsigned long long kp = keys[p];
  if (kp == CC_INTERP_KEY_NONE)
    return;
  for (int dir = 0; dir < 2; dir++) {
    if ((dir == 0 && x + 1 >= w) || (dir == 1 && y + 1 >= h))
      continue;
    size_t q = dir == 0 ? p + 1 : p + w;
    unsigned long long kq = keys[q];
    if (kq == CC_INTERP_KEY_NONE || cc_interp_key_label (kq) == cc_interp_key_label (kp))
      continue;
    float c = cc_interp_edge_cost (kp, kq, cost[p], cost[q]);
    unsigned long long key = cc_interp_edge_key (cc_interp_key_label (kp),
        cc_interp_key_label (kq));
    unsigned mask = (unsigned) size - 1, s = cc_interp_table_slot (key, bits);
    for (int probe = 0; probe < size; probe++, s = (s + 1) & mask) {
      unsigned long long prev = atomicCAS (&table_key[s], CC_INTERP_KEY_NONE, key);
      if (prev == CC_INTERP_KEY_NONE || prev == key) {
        atomicMin (&table_cost[s], __float_as_uint (c));
        break;
      }
    }
  }
}

__global__ void
interp_degree_kernel (const unsigned long long *table_key, int size, int *count)
{
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= size || table_key[s] == CC_INTERP_KEY_NONE)
    return;
  atomicAdd (&count[table_key[s] >> 32], 1);
  atomicAdd (&count[table_key[s] & 0xFFFFFFFFull], 1);
}

__global__ void
interp_fill_kernel (const unsigned long long *table_key, const unsigned *table_cost, int size,
    const int *offsets, int *cursor, int *adj_node, float *adj_cost)
{
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= size || table_key[s] == CC_INTERP_KEY_NONE)
    return;
  int a = (int) (table_key[s] >> 32), b = (int) (table_key[s] & 0xFFFFFFFFull);
  float c = __uint_as_float (table_cost[s]);
  int ea = offsets[a] + atomicAdd (&cursor[a], 1), eb = offsets[b] + atomicAdd (&cursor[b], 1);
  adj_node[ea] = b;
  adj_cost[ea] = c;
  adj_node[eb] = a;
  adj_cost[eb] = c;
}

__global__ void
interp_sort_kernel (const int *offsets, int *adj_node, float *adj_cost, int nb)
{
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nb)
    cc_interp_sort_adjacency (adj_node + offsets[b], adj_cost + offsets[b],
        offsets[b + 1] - offsets[b]);
}

// Warp-wide lexicographic (dist, node) argmin / argmax over a warp's lanes: every lane
// ends with the winner's (dist, node, index). Nodes are unique in the candidate list,
// so the winner is unique and the same as the CPU's first-best scan.
__device__ __forceinline__ void
interp_warp_best (float &d, int &n, int &i, bool want_max)
{
  for (int off = 16; off > 0; off >>= 1) {
    float od = __shfl_xor_sync (0xFFFFFFFFu, d, off);
    int on = __shfl_xor_sync (0xFFFFFFFFu, n, off);
    int oi = __shfl_xor_sync (0xFFFFFFFFu, i, off);
    bool take = want_max ? (od > d || (od == d && on > n)) : (od < d || (od == d && on < n));
    if (take) {
      d = od;
      n = on;
      i = oi;
    }
  }
}

// cc_interp_knn with the scans of one seed spread over a warp: the same steps in the
// same order (argmin, swap-remove, settled / candidate look-ups, append, replace the
// farthest), so the candidate list, nodes and dists are the CPU's, bit for bit.
__device__ int
interp_warp_knn (const int *offsets, const int *adj_node, const float *adj_cost, int src,
    int k, int *nodes, float *dists, int *cand_node, float *cand_dist, int lane)
{
  int found = 0, ncand = 1;
  if (lane == 0) {
    cand_node[0] = src;
    cand_dist[0] = 0.0f;
  }
  __syncwarp ();
  while (found < k && ncand > 0) {
    float bd = INFINITY;
    int bn = INT_MAX, bi = -1;
    for (int i = lane; i < ncand; i += 32) {
      float d = cand_dist[i];
      int n = cand_node[i];
      if (bi < 0 || d < bd || (d == bd && n < bn)) {
        bd = d;
        bn = n;
        bi = i;
      }
    }
    interp_warp_best (bd, bn, bi, false);
    const int u = bn;
    const float du = bd;
    __syncwarp ();
    if (lane == 0) {
      cand_node[bi] = cand_node[ncand - 1];
      cand_dist[bi] = cand_dist[ncand - 1];
      nodes[found] = u;
      dists[found] = du;
    }
    ncand--;
    found++;
    __syncwarp ();
    if (found == k)
      break;
    const int e1 = offsets[u + 1];
    for (int e = offsets[u]; e < e1; e++) {
      const int v = adj_node[e];
      const float dv = du + adj_cost[e];
      bool hit = false;
      for (int i = lane; i < found; i += 32)
        hit |= nodes[i] == v;
      if (__any_sync (0xFFFFFFFFu, hit))
        continue;
      int at = -1;
      for (int i = lane; i < ncand; i += 32)
        if (cand_node[i] == v)
          at = i;
      unsigned m = __ballot_sync (0xFFFFFFFFu, at >= 0);
      if (m) {
        if (at >= 0 && dv < cand_dist[at])
          cand_dist[at] = dv;
        __syncwarp ();
        continue;
      }
      if (ncand < CC_INTERP_CANDIDATES) {
        if (lane == 0) {
          cand_node[ncand] = v;
          cand_dist[ncand] = dv;
        }
        ncand++;
        __syncwarp ();
        continue;
      }
      float wd = -INFINITY;
      int wn = INT_MIN, wi = -1;
      for (int i = lane; i < ncand; i += 32) {
        float d = cand_dist[i];
        int n = cand_node[i];
        if (wi < 0 || d > wd || (d == wd && n > wn)) {
          wd = d;
          wn = n;
          wi = i;
        }
      }
      interp_warp_best (wd, wn, wi, true);
      __syncwarp ();
      if (lane == 0 && (dv < wd || (dv == wd && v < wn))) {
        cand_node[wi] = v;
        cand_dist[wi] = dv;
      }
      __syncwarp ();
    }
  }
  return found;
}

// One warp per seed: the k nearest seeds by interp_warp_knn, the matches and weights
// of the fit gathered over the lanes (each the CPU's value), the sums by lane 0 in the
// CPU's order.
__global__ void
interp_fit_kernel (const cc_flow_match *matches, const int *owner, const int *offsets,
    const int *adj_node, const float *adj_cost, int nb, int k, float sigma, int affine,
    float *model)
{
  // per warp: the candidates (nodes, then distances), later the gathered matches and
  // weights of the fit (128 x 20 + 128 x 8 bytes <= 8 x CC_INTERP_CANDIDATES)
  __shared__ __align__ (16) unsigned char s_buf[INTERP_FIT_WARPS][8 * CC_INTERP_CANDIDATES];
  __shared__ int s_nodes[INTERP_FIT_WARPS][128];
  __shared__ float s_dists[INTERP_FIT_WARPS][128];
  const int wid = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int b = blockIdx.x * INTERP_FIT_WARPS + wid;
  if (b >= nb || owner[b] == INT_MAX)
    return;   // whole warp
  int *cand_node = (int *) s_buf[wid];
  float *cand_dist = (float *) (s_buf[wid] + 4 * CC_INTERP_CANDIDATES);
  int count = interp_warp_knn (offsets, adj_node, adj_cost, b, k, s_nodes[wid],
      s_dists[wid], cand_node, cand_dist, lane);
  // the gather of cc_interp_fit over the lanes, then lane 0 sums in index order
  __syncwarp ();
  cc_flow_match *pts = (cc_flow_match *) s_buf[wid];
  double *weights = (double *) (s_buf[wid] + 128 * sizeof (cc_flow_match));
  const double inv_sigma = 1.0 / (double) sigma;
  for (int i = lane; i < count; i += 32) {
    pts[i] = matches[owner[s_nodes[wid][i]]];
    weights[i] = cc_interp_weight (s_dists[wid][i], inv_sigma);
  }
  __syncwarp ();
  if (lane == 0)
    cc_interp_fit_points (pts, weights, count, affine, model + CC_INTERP_MODEL * (size_t) b);
}

__global__ void
interp_apply_kernel (const unsigned long long *keys, const cc_flow_match *matches,
    const int *owner, const float *model, cc_image flow)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= flow.width)
    return;
  float *out = (float *) ((uint8_t *) flow.planes[0] + (size_t) y * flow.pitch[0]);
  unsigned long long k = keys[(size_t) y * flow.width + x];
  if (k == CC_INTERP_KEY_NONE) {
    out[2 * x] = 0.0f;
    out[2 * x + 1] = 0.0f;
    return;
  }
  int b = cc_interp_key_label (k);
  const cc_flow_match *s = &matches[owner[b]];
  float u, v;
  cc_interp_apply (model + CC_INTERP_MODEL * (size_t) b, s->x, s->y, x, y, &u, &v);
  out[2 * x] = u;
  out[2 * x + 1] = v;
}

__global__ void
interp_confidence_kernel (const unsigned long long *keys, const cc_flow_match *matches,
    const int *owner, const float *model, cc_image conf)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= conf.width)
    return;
  float *out = (float *) ((uint8_t *) conf.planes[0] + (size_t) y * conf.pitch[0]);
  unsigned long long k = keys[(size_t) y * conf.width + x];
  if (k == CC_INTERP_KEY_NONE) {
    out[x] = 0.0f;
    return;
  }
  int b = cc_interp_key_label (k);
  const cc_flow_match *s = &matches[owner[b]];
  out[x] = cc_interp_pixel_confidence (model + CC_INTERP_MODEL * (size_t) b, s->x, s->y, x, y);
}

// ------------------------------------------------------------------ host side

// The geodesic rounds: the flags reset, then st->rounds launches of the round kernel
// (most return at once once the keys converge). Their arguments never change, so
// create captures them into one graph: a run launches it instead of ~100 to ~200
// kernels, whose launch cost, not their work, dominated the stage.
static cc_status
interp_enqueue_geodesic (cc_cuda_interp *st, cudaStream_t cs)
{
  const int w = st->w, h = st->h;
  CC_CUDA_TRY (cudaMemsetAsync (st->flags, 0, (size_t) (st->rounds + 1) * sizeof (int), cs),
      "interp: clear flags");
  CC_CUDA_TRY (cudaMemsetAsync (st->flags, 1, sizeof (int), cs), "interp: set flag");
  const int tiles_x = cc_div_up (w, INTERP_TILE), tiles = tiles_x * cc_div_up (h, INTERP_TILE);
  dim3 tile_threads (INTERP_TILE, INTERP_TILE);
  for (int r = 1; r <= st->rounds; r++) {
    interp_geodesic_round_kernel<<<st->round_blocks, tile_threads, 0, cs>>> (st->keys,
        st->cost, w, h, st->flags, r, tiles_x, tiles);
    CC_CUDA_LAUNCHED ("interp_geodesic_round_kernel");
  }
  return CC_SUCCESS;
}

static cc_status
interp_capture_geodesic (cc_cuda_interp *st)
{
  cudaStream_t cs = NULL;
  CC_CUDA_TRY (cudaStreamCreateWithFlags (&cs, cudaStreamNonBlocking),
      "interp: capture stream");
  cudaGraph_t g = NULL;
  cudaError_t e = cudaStreamBeginCapture (cs, cudaStreamCaptureModeThreadLocal);
  cc_status s = CC_SUCCESS;
  if (e == cudaSuccess) {
    s = interp_enqueue_geodesic (st, cs);
    cudaError_t e2 = cudaStreamEndCapture (cs, &g);
    if (s == CC_SUCCESS && e2 != cudaSuccess)
      e = e2;
  }
  if (s == CC_SUCCESS && e == cudaSuccess)
    e = cudaGraphInstantiate (&st->geodesic, g, 0);
  if (g)
    cudaGraphDestroy (g);
  cudaStreamDestroy (cs);
  if (s == CC_SUCCESS && e != cudaSuccess) {
    st->geodesic = NULL;
    s = cc_set_error (CC_ERROR_CUDA, "interp: geodesic graph: %s", cudaGetErrorString (e));
  }
  return s;
}

extern "C" void
cc_cuda_interp_destroy (cc_cuda_interp *st)
{
  if (!st)
    return;
  if (st->geodesic)
    cudaGraphExecDestroy (st->geodesic);
  void *bufs[] = { st->blur_h, st->blur, st->cost, st->keys, st->flags, st->owner,
    st->table_key, st->table_cost, st->count, st->offsets, st->cursor, st->adj_node,
    st->adj_cost, st->model, st->scan_tmp };
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i])
      cc_cuda_free (st->ctx, bufs[i]);
  free (st);
}

extern "C" cc_status
cc_cuda_interp_create (cc_context *ctx, int w, int h, cc_cuda_interp **out)
{
  *out = NULL;
  cc_cuda_interp *st = (cc_cuda_interp *) calloc (1, sizeof *st);
  if (!st)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "interp: out of host memory");
  st->ctx = ctx;
  st->w = w;
  st->h = h;
  st->nb = cc_interp_blocks (w, h, CC_INTERP_MIN_CELL);   // the most seeds: scratch size
  st->table_size = cc_interp_table_size (w, h);
  while ((1 << st->table_bits) < st->table_size)
    st->table_bits++;
  st->rounds = cc_interp_rounds (w, h);
  size_t n = (size_t) w * h, nb = (size_t) st->nb, t = (size_t) st->table_size;
  cc_status s = CC_SUCCESS;
#define INTERP_ALLOC(ptr, bytes) \
  if (s == CC_SUCCESS) s = cc_cuda_malloc (ctx, (bytes), (void **) &(ptr))
  INTERP_ALLOC (st->blur_h, n * sizeof (int));
  INTERP_ALLOC (st->blur, n * sizeof (int));
  INTERP_ALLOC (st->cost, n * sizeof (float));
  INTERP_ALLOC (st->keys, n * sizeof (unsigned long long));
  INTERP_ALLOC (st->flags, (size_t) (st->rounds + 1) * sizeof (int));
  INTERP_ALLOC (st->owner, nb * sizeof (int));
  INTERP_ALLOC (st->table_key, t * sizeof (unsigned long long));
  INTERP_ALLOC (st->table_cost, t * sizeof (unsigned));
  INTERP_ALLOC (st->count, (nb + 1) * sizeof (int));
  INTERP_ALLOC (st->offsets, (nb + 1) * sizeof (int));
  INTERP_ALLOC (st->cursor, nb * sizeof (int));
  INTERP_ALLOC (st->adj_node, t * sizeof (int));
  INTERP_ALLOC (st->adj_cost, t * sizeof (float));
  INTERP_ALLOC (st->model, nb * CC_INTERP_MODEL * sizeof (float));
#undef INTERP_ALLOC
  if (s == CC_SUCCESS) {
    size_t bytes = 0;
    if (cub::DeviceScan::ExclusiveSum (nullptr, bytes, st->count, st->offsets, st->nb + 1)
        != cudaSuccess)
      s = cc_set_error (CC_ERROR_CUDA, "interp: CUB scan size query failed");
    else {
      st->scan_tmp_bytes = bytes;
      s = cc_cuda_malloc (ctx, bytes > 0 ? bytes : 1, &st->scan_tmp);
    }
  }
  if (s == CC_SUCCESS) {
    // a round's blocks: as many as the device holds at once, at most one per tile
    int sms = 0, per_sm = 0;
    const int tiles = cc_div_up (w, INTERP_TILE) * cc_div_up (h, INTERP_TILE);
    cudaError_t e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, ctx->device);
    if (e == cudaSuccess)
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
          interp_geodesic_round_kernel, INTERP_TILE * INTERP_TILE, 0);
    if (e != cudaSuccess) {
      cudaGetLastError ();
      s = cc_set_error (CC_ERROR_CUDA, "interp: device query: %s", cudaGetErrorString (e));
    }
    long long resident = (long long) (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    st->round_blocks = (int) (resident < tiles ? resident : tiles);
  }
  if (s == CC_SUCCESS)
    s = interp_capture_geodesic (st);
  if (s != CC_SUCCESS) {
    cc_cuda_interp_destroy (st);
    return s;
  }
  *out = st;
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_interp_run (cc_cuda_interp *st, cc_stream stream, const cc_interp_params *p,
    const cc_image *frame, const cc_flow_match *matches, int n, cc_image *flow)
{
  cudaStream_t cs = (cudaStream_t) stream;   // resolved by the caller
  const int w = st->w, h = st->h, nb = cc_interp_blocks (w, h, p->cell), t = st->table_size;
  dim3 rows (cc_div_up (w, INTERP_THREADS), h);
  interp_blur_h_kernel<<<rows, INTERP_THREADS, 0, cs>>> (*frame, st->blur_h);
  CC_CUDA_LAUNCHED ("interp_blur_h_kernel");
  interp_blur_v_kernel<<<rows, INTERP_THREADS, 0, cs>>> (st->blur_h, st->blur, w, h);
  CC_CUDA_LAUNCHED ("interp_blur_v_kernel");
  interp_cost_kernel<<<rows, INTERP_THREADS, 0, cs>>> (st->blur, st->cost, w, h,
      p->flat_cost, p->edge_weight);
  CC_CUDA_LAUNCHED ("interp_cost_kernel");

  interp_owner_fill_kernel<<<cc_div_up (nb, INTERP_THREADS), INTERP_THREADS, 0, cs>>> (
      st->owner, nb);
  CC_CUDA_LAUNCHED ("interp_owner_fill_kernel");
  CC_CUDA_TRY (cudaMemsetAsync (st->keys, 0xFF, (size_t) w * h * sizeof (unsigned long long),
          cs), "interp: clear keys");
  if (n > 0) {
    interp_claim_kernel<<<cc_div_up (n, INTERP_THREADS), INTERP_THREADS, 0, cs>>> (matches,
        n, st->owner, w, h, p->cell);
    CC_CUDA_LAUNCHED ("interp_claim_kernel");
    interp_seed_kernel<<<cc_div_up (nb, INTERP_THREADS), INTERP_THREADS, 0, cs>>> (matches,
        st->owner, nb, st->keys, w, h);
    CC_CUDA_LAUNCHED ("interp_seed_kernel");
  }

  CC_CUDA_TRY (cudaGraphLaunch (st->geodesic, cs), "interp: geodesic rounds");

  CC_CUDA_TRY (cudaMemsetAsync (st->table_key, 0xFF, (size_t) t * sizeof (unsigned long long),
          cs), "interp: clear table");
  CC_CUDA_TRY (cudaMemsetAsync (st->table_cost, 0x7F, (size_t) t * sizeof (unsigned), cs),
      "interp: clear table costs");
  interp_edge_kernel<<<rows, INTERP_THREADS, 0, cs>>> (st->keys, st->cost, w, h,
      st->table_key, st->table_cost, t, st->table_bits);
  CC_CUDA_LAUNCHED ("interp_edge_kernel");
  CC_CUDA_TRY (cudaMemsetAsync (st->count, 0, (size_t) (nb + 1) * sizeof (int), cs),
      "interp: clear degrees");
  interp_degree_kernel<<<cc_div_up (t, INTERP_THREADS), INTERP_THREADS, 0, cs>>> (
      st->table_key, t, st->count);
  CC_CUDA_LAUNCHED ("interp_degree_kernel");
  size_t bytes = st->scan_tmp_bytes;
  CC_CUDA_TRY (cub::DeviceScan::ExclusiveSum (st->scan_tmp, bytes, st->count, st->offsets,
          nb + 1, cs), "interp: degree scan");
  CC_CUDA_TRY (cudaMemsetAsync (st->cursor, 0, (size_t) nb * sizeof (int), cs),
      "interp: clear cursors");
  interp_fill_kernel<<<cc_div_up (t, INTERP_THREADS), INTERP_THREADS, 0, cs>>> (
      st->table_key, st->table_cost, t, st->offsets, st->cursor, st->adj_node, st->adj_cost);
  CC_CUDA_LAUNCHED ("interp_fill_kernel");
  interp_sort_kernel<<<cc_div_up (nb, INTERP_THREADS), INTERP_THREADS, 0, cs>>> (
      st->offsets, st->adj_node, st->adj_cost, nb);
  CC_CUDA_LAUNCHED ("interp_sort_kernel");

  interp_fit_kernel<<<cc_div_up (nb, INTERP_FIT_WARPS), INTERP_FIT_WARPS * 32, 0, cs>>> (
      matches, st->owner, st->offsets, st->adj_node, st->adj_cost, nb, p->k, p->sigma,
      p->affine ? 1 : 0, st->model);
  CC_CUDA_LAUNCHED ("interp_fit_kernel");
  interp_apply_kernel<<<rows, INTERP_THREADS, 0, cs>>> (st->keys, matches, st->owner,
      st->model, *flow);
  CC_CUDA_LAUNCHED ("interp_apply_kernel");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_interp_confidence (cc_cuda_interp *st, cc_stream stream, const cc_flow_match *matches,
    cc_image *conf)
{
  cudaStream_t cs = (cudaStream_t) stream;   // resolved by the caller
  dim3 rows (cc_div_up (st->w, INTERP_THREADS), st->h);
  interp_confidence_kernel<<<rows, INTERP_THREADS, 0, cs>>> (st->keys, matches, st->owner,
      st->model, *conf);
  CC_CUDA_LAUNCHED ("interp_confidence_kernel");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_interp_debug (cc_cuda_interp *st, float *cost, uint64_t *keys)
{
  size_t n = (size_t) st->w * st->h;
  CC_CUDA_TRY (cudaDeviceSynchronize (), "interp: synchronise");
  if (cost)
    CC_CUDA_TRY (cudaMemcpy (cost, st->cost, n * sizeof (float), cudaMemcpyDeviceToHost),
        "interp: copy cost");
  if (keys)
    CC_CUDA_TRY (cudaMemcpy (keys, st->keys, n * sizeof (uint64_t), cudaMemcpyDeviceToHost),
        "interp: copy keys");
  return CC_SUCCESS;
}
