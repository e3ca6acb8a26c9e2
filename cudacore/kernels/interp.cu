/* SPDX-License-Identifier: LGPL-2.1-or-later */
// EPIC interpolation on CUDA: the twin of the CPU reference in src/interp.c (which
// describes the algorithm). Built with -fmad=false: every float step rounds as on
// the CPU, so the keys, graph and models are the same bits.
//
// Geodesic Voronoi: tiled parallel relaxation. A 32 x 32 block loads its tile and a
// one-pixel halo of (distance, seed) keys into shared memory and relaxes its pixels
// against their 8 neighbours by Jacobi steps between two shared buffers until no key
// of the tile changes, then writes the changed keys back. A round is one launch of as
// many blocks as the device runs at once, each taking tiles in turn, and relaxes only
// the tiles next to a tile that changed in the round before. Rounds run back to
// back in a CUDA graph's while node, built once by create: the last block of a round
// to finish ends the loop when the round changed no key (or at the round limit), so
// a run pays one graph launch and exactly the rounds it needs, with no host
// synchronisation. Keys only decrease and each is
// the value of a real path, so the rounds reach the unique fixed point the CPU's
// Dijkstra computes, whatever the order of the updates (cc_interp_rounds () rounds at
// most).
// Seed graph: an open-addressing table of (cell pair -> least cost) filled with
// atomicCAS / atomicMin (contents independent of the order), then CSR lists by
// a count, a CUB scan, a fill and a per-node sort by neighbour.
// Per seed: one warp runs cc_interp_knn's steps, a pop's argmin over the lanes and its
// edges one per lane, with a table of the nodes met in shared memory (the same list,
// bit for bit), then lane 0 cc_interp_fit.
#include "cuda_common.cuh"
#include "interp_internal.h"
#include "interp_hostdev.h"

#include <cub/device/device_scan.cuh>
#include <cuda/atomic>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define INTERP_TILE 32
#define INTERP_THREADS 256
#define INTERP_FIT_WARPS 4
// Two geodesic blocks (2 x 1,024 threads) an SM where the SM holds 2,048 threads (sm_80,
// sm_90): at most 32 registers a thread; one elsewhere.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900)
#define INTERP_ROUND_MIN_BLOCKS 2
#else
#define INTERP_ROUND_MIN_BLOCKS 1
#endif
// The geodesic rounds' state in device memory: the rounds done, the blocks of the
// current round that finished, and whether the current round changed a key.
#define INTERP_ROUND_DONE 0
#define INTERP_ROUND_BLOCKS 1
#define INTERP_ROUND_CHANGED 2
#define INTERP_ROUND_STATE 3
static_assert (128 * (sizeof (cc_flow_match) + sizeof (double)) <= 8 * CC_INTERP_CANDIDATES,
    "interp: fit gather does not fit the candidate buffer");

struct cc_cuda_interp {
  cc_context *ctx;
  int w, h, nb, table_size, table_bits, rounds;
  int round_blocks;              // blocks of a geodesic round: what the device runs at once
  int *blur_h, *blur;
  float *cost;
  unsigned long long *keys;
  int *round_state;              // INTERP_ROUND_STATE ints (interp_geodesic_round_kernel)
  int *stamps;                   // 2 x tiles: the round of each tile's last change
  int tiles_x, tiles_y;
  cudaGraphExec_t geodesic;      // the state and stamps cleared, then the rounds
  int *owner;
  unsigned long long *table_key;
  unsigned *table_cost;          // float bits (costs >= 0 order like their bits)
  int *count, *offsets, *cursor, *adj_node;
  float *adj_cost, *model;
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
      cc_row_luma8 (row, cc_clampi (x - 2, 0, w - 1), rgbx, bgrx),
      cc_row_luma8 (row, cc_clampi (x - 1, 0, w - 1), rgbx, bgrx),
      cc_row_luma8 (row, x, rgbx, bgrx),
      cc_row_luma8 (row, cc_clampi (x + 1, 0, w - 1), rgbx, bgrx),
      cc_row_luma8 (row, cc_clampi (x + 2, 0, w - 1), rgbx, bgrx));
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

// One geodesic round, r (1-based: the rounds done, state[INTERP_ROUND_DONE], plus
// one), of as many blocks as the device holds at once, each taking tiles in turn. A
// block that changed a key sets state[INTERP_ROUND_CHANGED]; the last block to finish
// (a count of the finished blocks) sets the while node's condition `loop`: another
// round when this one changed a key and fewer than `rounds` ran.
//
// A tile is relaxed when a tile of its 3 x 3 neighbourhood changed a key in the
// previous round (stamps: the round of a tile's last change, in two arrays by the
// parity of the round, so that a round's writes never meet its reads), every tile in
// round 1. Its keys and a one-pixel halo are loaded into shared memory and relaxed
// against the 8 neighbours by Jacobi steps between two buffers (each step reads one
// and writes the other: no thread reads what another writes in the same step) until
// no key changes; the changed keys go back. Keys of other tiles (the halo) may change
// while they are read: those are relaxed atomic loads and stores, and any value read
// is the length of a real path, so the fixed point is the same whatever a load sees.
// The lanes of a warp take the same branches (out-of-frame lanes keep their key by a
// select) and meet before each barrier, as compute-sanitizer synccheck requires.
__global__ void __launch_bounds__ (INTERP_TILE * INTERP_TILE, INTERP_ROUND_MIN_BLOCKS)
interp_geodesic_round_kernel (unsigned long long *keys, const float *cost, int w, int h,
    int *state, int *stamps, int tiles_x, int tiles_y, int rounds,
    cudaGraphConditionalHandle loop)
{
  __shared__ unsigned long long sk[2][INTERP_TILE + 2][INTERP_TILE + 2];
  __shared__ float sc[INTERP_TILE + 2][INTERP_TILE + 2];
  __shared__ int s_active;
  // the round's number: state changes only after every block has read it (below)
  const int r = *(volatile int *) &state[INTERP_ROUND_DONE] + 1;
  const int tiles = tiles_x * tiles_y;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * INTERP_TILE + tx;
  const int *last = stamps + ((r - 1) & 1) * tiles;
  int *mine = stamps + (r & 1) * tiles;
  bool block_changed = false;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int tcx = tile % tiles_x, tcy = tile / tiles_x;
    __syncwarp ();
    __syncthreads ();   // the previous tile is done with the buffers and s_active
    if (tid == 0) {
      int active = r == 1;
      for (int dy = -1; dy <= 1 && !active; dy++)
        for (int dx = -1; dx <= 1 && !active; dx++) {
          int nx = tcx + dx, ny = tcy + dy;
          if (nx >= 0 && ny >= 0 && nx < tiles_x && ny < tiles_y)
            active = last[ny * tiles_x + nx] == r - 1;
        }
      s_active = active;
    }
    __syncwarp ();
    __syncthreads ();
    if (!s_active)
      continue;
    const int x0 = tcx * INTERP_TILE, y0 = tcy * INTERP_TILE;
    for (int i = tid; i < (INTERP_TILE + 2) * (INTERP_TILE + 2);
        i += INTERP_TILE * INTERP_TILE) {
      int lx = i % (INTERP_TILE + 2), ly = i / (INTERP_TILE + 2);
      int gx = x0 + lx - 1, gy = y0 + ly - 1;
      const bool in = gx >= 0 && gy >= 0 && gx < w && gy < h;
      const size_t at = in ? (size_t) gy * w + gx : 0;
      const unsigned long long k = cuda::atomic_ref<unsigned long long,
          cuda::thread_scope_device> (keys[at]).load (cuda::memory_order_relaxed);
      const float cost_at = cost[at];
      sk[0][ly][lx] = in ? k : CC_INTERP_KEY_NONE;
      sk[1][ly][lx] = in ? k : CC_INTERP_KEY_NONE;
      sc[ly][lx] = in ? cost_at : 0.0f;
    }
    __syncwarp ();
    __syncthreads ();
    const int x = x0 + tx, y = y0 + ty;
    const bool in = x < w && y < h;
    const unsigned long long orig = sk[0][ty + 1][tx + 1];
    const float c = sc[ty + 1][tx + 1];
    int cur = 0;
    for (int it = 0; it < 2 * INTERP_TILE * INTERP_TILE; it++) {
      const unsigned long long own = sk[cur][ty + 1][tx + 1];
      unsigned long long best = own;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          if (dx == 0 && dy == 0)
            continue;
          const unsigned long long k = cc_interp_relax (sk[cur][ty + 1 + dy][tx + 1 + dx],
              cc_interp_step (c, sc[ty + 1 + dy][tx + 1 + dx], dx != 0 && dy != 0));
          best = k < best ? k : best;
        }
      best = in ? best : own;   // out of the frame: never a key
      sk[cur ^ 1][ty + 1][tx + 1] = best;
      cur ^= 1;
      __syncwarp ();
      if (!__syncthreads_or (best < own))
        break;
    }
    const unsigned long long fin = sk[cur][ty + 1][tx + 1];
    const bool mine_changed = in && fin != orig;
    if (mine_changed)
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> (
          keys[(size_t) y * w + x]).store (fin, cuda::memory_order_relaxed);
    __syncwarp ();
    if (__syncthreads_or (mine_changed)) {
      block_changed = true;
      if (tid == 0)
        mine[tile] = r;
    }
  }
  // the last block of the round to finish decides whether another round runs
  if (tid == 0) {
    if (block_changed)
      atomicOr (&state[INTERP_ROUND_CHANGED], 1);
    __threadfence ();
    if (atomicAdd (&state[INTERP_ROUND_BLOCKS], 1) == (int) gridDim.x - 1) {
      __threadfence ();
      const int changed = atomicExch (&state[INTERP_ROUND_CHANGED], 0);
      state[INTERP_ROUND_BLOCKS] = 0;
      state[INTERP_ROUND_DONE] = r;
      cudaGraphSetConditional (loop, changed != 0 && r < rounds);
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
    long long q = cc_interp_edge_neighbour (x, y, w, h, dir);
    if (q < 0 || !cc_interp_edge_joins (kp, keys[q]))
      continue;
    unsigned long long kq = keys[q];
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

// A candidate as one word: (float bits of its distance) << 32 | node. Distances are
// >= 0, so the words order like (distance, node) pairs: the smallest is the CPU's
// argmin (ties to the lower node), the largest its farthest (ties to the higher).
__device__ __forceinline__ unsigned long long
knn_key (float d, int n)
{
  return ((unsigned long long) __float_as_uint (d) << 32) | (unsigned) n;
}

__device__ __forceinline__ float
knn_dist (unsigned long long key)
{
  return __uint_as_float ((unsigned) (key >> 32));
}

// Warp-wide min (or max) of a 32-bit word: one instruction from sm_80, shuffles before.
__device__ __forceinline__ unsigned
knn_warp_extreme (unsigned v, bool want_max)
{
#if __CUDA_ARCH__ >= 800
  return want_max ? __reduce_max_sync (0xFFFFFFFFu, v) : __reduce_min_sync (0xFFFFFFFFu, v);
#else
  for (int off = 16; off > 0; off >>= 1) {
    const unsigned o = __shfl_xor_sync (0xFFFFFFFFu, v, off);
    v = want_max ? max (v, o) : min (v, o);
  }
  return v;
#endif
}

// The warp's least (or greatest) word and where it is: two warp reductions (high
// word, then low word among the lanes that hold the least high word) and a ballot.
// Nodes are unique, so the winner is unique. `none`: the value of a lane without a
// candidate (the other extreme).
__device__ __forceinline__ unsigned long long
knn_warp_pick (unsigned long long mine, int mine_i, bool want_max, int *at)
{
  const unsigned hi = (unsigned) (mine >> 32);
  const unsigned bhi = knn_warp_extreme (hi, want_max);
  const unsigned lo = hi == bhi ? (unsigned) mine : (want_max ? 0u : 0xFFFFFFFFu);
  const unsigned blo = knn_warp_extreme (lo, want_max);
  const unsigned long long best = ((unsigned long long) bhi << 32) | blo;
  const unsigned who = __ballot_sync (0xFFFFFFFFu, mine == best);
  *at = __shfl_sync (0xFFFFFFFFu, mine_i, __ffs (who) - 1);
  return best;
}

// A warp's table of the nodes its search has met (node -> place: an index into the
// candidates, or INTERP_SETTLED), open addressing in shared memory, so that a lane
// finds its edge's node in a probe or two instead of scanning the lists.
#define INTERP_HASH 512
#define INTERP_HASH_LOAD 384       // more entries: the rest of the search scans
#define INTERP_SETTLED (-1)

__device__ __forceinline__ int
interp_hash_find (const int *keys, int v)
{
  unsigned s = ((unsigned) v * 2654435761u) >> (32 - 9);
  for (;;) {
    int k = keys[s];
    if (k == v)
      return (int) s;
    if (k == -1)
      return -1;
    s = (s + 1) & (INTERP_HASH - 1);
  }
}

__device__ __forceinline__ void
interp_hash_insert (int *keys, short *vals, int v, int place)
{
  unsigned s = ((unsigned) v * 2654435761u) >> (32 - 9);
  while (atomicCAS (&keys[s], -1, v) != -1)
    s = (s + 1) & (INTERP_HASH - 1);
  vals[s] = (short) place;
}

// cc_interp_knn over a warp, the same list bit for bit. Each pop: the least candidate
// word over the lanes (knn_warp_pick), the swap-remove. Then u's edges, one lane
// each: its node's place from the table; a settled node is skipped, a candidate's
// distance lowered (distinct nodes: no two lanes meet), and the new nodes appended in
// edge order (a ballot gives each its index), which is the CPU's sequential result
// whenever no append finds the list full. An edge chunk that would fill the list (or
// the table) is done the CPU's way instead, edge by edge with scans, and so is the
// rest of that seed's search.
__device__ int
interp_warp_knn (const int *__restrict__ offsets, const int *__restrict__ adj_node,
    const float *__restrict__ adj_cost, int src, int k, int *nodes, float *dists,
    unsigned long long *cand, int *hkeys, short *hvals, int lane)
{
  int found = 0, ncand = 1;
  bool hashed = true;
  for (int i = lane; i < INTERP_HASH; i += 32)
    hkeys[i] = -1;
  __syncwarp ();
  if (lane == 0) {
    cand[0] = knn_key (0.0f, src);
    interp_hash_insert (hkeys, hvals, src, 0);
  }
  __syncwarp ();
  const unsigned lt = (1u << lane) - 1u;
  while (found < k && ncand > 0) {
    unsigned long long mine = ~0ull;
    int mine_i = -1;
    for (int i = lane; i < ncand; i += 32) {
      const unsigned long long c = cand[i];
      if (c < mine) {
        mine = c;
        mine_i = i;
      }
    }
    int bi;
    const unsigned long long best = knn_warp_pick (mine, mine_i, false, &bi);
    const int u = (int) (unsigned) best;
    const float du = knn_dist (best);
    __syncwarp ();
    const unsigned long long moved = cand[ncand - 1];
    __syncwarp ();
    if (lane == 0) {
      cand[bi] = moved;
      nodes[found] = u;
      dists[found] = du;
      if (hashed)
        hvals[interp_hash_find (hkeys, u)] = INTERP_SETTLED;
    } else if (lane == 1 && hashed && bi != ncand - 1)
      hvals[interp_hash_find (hkeys, (int) (unsigned) moved)] = (short) bi;
    ncand--;
    found++;
    __syncwarp ();
    if (found == k)
      break;
    const int e0 = offsets[u], e1 = offsets[u + 1];
    for (int base = e0; base < e1; base += 32) {
      const int end = base + 32 < e1 ? base + 32 : e1;
      if (hashed) {
        const int e = base + lane;
        const bool valid = e < end;
        int v = 0, place = INTERP_SETTLED;
        float dv = 0.0f;
        bool met = false;
        if (valid) {
          v = adj_node[e];
          dv = du + adj_cost[e];
          int slot = interp_hash_find (hkeys, v);
          met = slot >= 0;
          if (met)
            place = hvals[slot];
        }
        const bool fresh = valid && !met;
        const unsigned fm = __ballot_sync (0xFFFFFFFFu, fresh);
        const int nnew = __popc (fm);
        __syncwarp ();   // every look-up done before the table and lists change
        if (ncand + nnew <= CC_INTERP_CANDIDATES && found + ncand + nnew <= INTERP_HASH_LOAD) {
          if (valid && met && place >= 0 && dv < knn_dist (cand[place]))
            cand[place] = knn_key (dv, v);
          if (fresh) {
            const int at = ncand + __popc (fm & lt);
            cand[at] = knn_key (dv, v);
            interp_hash_insert (hkeys, hvals, v, at);
          }
          ncand += nnew;
          __syncwarp ();
          continue;
        }
        hashed = false;   // this chunk and the rest of the search: the CPU's way
        __syncwarp ();
      }
      for (int e = base; e < end; e++) {
        const int v = adj_node[e];
        const float dv = du + adj_cost[e];
        bool hit = false;
        for (int i = lane; i < found; i += 32)
          hit |= nodes[i] == v;
        if (__any_sync (0xFFFFFFFFu, hit))
          continue;
        int at = -1;
        for (int i = lane; i < ncand; i += 32)
          if ((int) (unsigned) cand[i] == v)
            at = i;
        unsigned m = __ballot_sync (0xFFFFFFFFu, at >= 0);
        if (m) {
          if (at >= 0 && dv < knn_dist (cand[at]))
            cand[at] = knn_key (dv, v);
          __syncwarp ();
          continue;
        }
        if (ncand < CC_INTERP_CANDIDATES) {
          if (lane == 0)
            cand[ncand] = knn_key (dv, v);
          ncand++;
          __syncwarp ();
          continue;
        }
        unsigned long long far = 0ull;
        int far_i = -1;
        for (int i = lane; i < ncand; i += 32)
          if (far_i < 0 || cand[i] > far) {
            far = cand[i];
            far_i = i;
          }
        int wi;
        const unsigned long long worst = knn_warp_pick (far, far_i, true, &wi);
        __syncwarp ();
        if (lane == 0 && knn_key (dv, v) < worst)
          cand[wi] = knn_key (dv, v);
        __syncwarp ();
      }
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
    float robust, float *model)
{
  // per warp: the candidates (knn_key words), later the gathered matches and weights
  // of the fit (128 x 20 + 128 x 8 bytes <= 8 x CC_INTERP_CANDIDATES)
  __shared__ __align__ (16) unsigned char s_buf[INTERP_FIT_WARPS][8 * CC_INTERP_CANDIDATES];
  __shared__ int s_nodes[INTERP_FIT_WARPS][128];
  __shared__ float s_dists[INTERP_FIT_WARPS][128];
  __shared__ int s_hkeys[INTERP_FIT_WARPS][INTERP_HASH];
  __shared__ short s_hvals[INTERP_FIT_WARPS][INTERP_HASH];
  const int wid = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int b = blockIdx.x * INTERP_FIT_WARPS + wid;
  if (b >= nb || owner[b] == INT_MAX)
    return;   // whole warp
  int count = interp_warp_knn (offsets, adj_node, adj_cost, b, k, s_nodes[wid],
      s_dists[wid], (unsigned long long *) s_buf[wid], s_hkeys[wid], s_hvals[wid], lane);
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
    cc_interp_fit_points (pts, weights, count, affine, robust,
        model + CC_INTERP_MODEL * (size_t) b);
}

__global__ void
interp_apply_kernel (const unsigned long long *keys, const cc_flow_match *matches,
    const int *owner, const float *model, float reach, cc_image flow)
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
  cc_interp_apply (model + CC_INTERP_MODEL * (size_t) b, s->x, s->y, x, y, flow.width,
      flow.height, reach, &u, &v);
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

// The geodesic rounds as one graph: the round state and the stamps cleared, then a
// while node whose body is one round (interp_geodesic_round_kernel ends the loop).
// Their arguments never change, so create builds it once: a run launches it instead
// of a kernel a round, whose launch cost, not their work, would dominate.
static cc_status
interp_build_geodesic (cc_cuda_interp *st)
{
  cudaGraph_t g = NULL;
  cudaGraphNode_t clear_state, clear_stamps, kernel, loop_node;
  cudaGraphConditionalHandle loop;
  cudaError_t e = cudaGraphCreate (&g, 0);
  if (e == cudaSuccess)
    e = cudaGraphConditionalHandleCreate (&loop, g, 1, cudaGraphCondAssignDefault);
  if (e == cudaSuccess) {
    cudaMemsetParams m = {};
    m.dst = st->round_state;
    m.elementSize = sizeof (int);
    m.width = INTERP_ROUND_STATE;
    m.height = 1;
    e = cudaGraphAddMemsetNode (&clear_state, g, NULL, 0, &m);
    if (e == cudaSuccess) {
      m.dst = st->stamps;
      m.width = 2 * (size_t) st->tiles_x * st->tiles_y;
      e = cudaGraphAddMemsetNode (&clear_stamps, g, &clear_state, 1, &m);
    }
  }
  if (e == cudaSuccess) {
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = loop;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    e = cudaGraphAddNode (&loop_node, g, &clear_stamps, NULL, 1, &cp);
    if (e == cudaSuccess) {
      void *args[] = { &st->keys, &st->cost, &st->w, &st->h, &st->round_state, &st->stamps,
        &st->tiles_x, &st->tiles_y, &st->rounds, &loop };
      cudaKernelNodeParams kp = {};
      kp.func = (void *) interp_geodesic_round_kernel;
      kp.gridDim = dim3 (st->round_blocks);
      kp.blockDim = dim3 (INTERP_TILE, INTERP_TILE);
      kp.kernelParams = args;
      e = cudaGraphAddKernelNode (&kernel, cp.conditional.phGraph_out[0], NULL, 0, &kp);
    }
  }
  if (e == cudaSuccess)
    e = cudaGraphInstantiate (&st->geodesic, g, 0);
  if (g)
    cudaGraphDestroy (g);
  if (e != cudaSuccess) {
    cudaGetLastError ();
    st->geodesic = NULL;
    return cc_set_error (CC_ERROR_CUDA, "interp: geodesic graph: %s", cudaGetErrorString (e));
  }
  return CC_SUCCESS;
}

extern "C" void
cc_cuda_interp_destroy (cc_cuda_interp *st)
{
  if (!st)
    return;
  if (st->geodesic)
    cudaGraphExecDestroy (st->geodesic);
  void *bufs[] = { st->blur_h, st->blur, st->cost, st->keys, st->round_state, st->stamps, st->owner,
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
  st->tiles_x = cc_div_up (w, INTERP_TILE);
  st->tiles_y = cc_div_up (h, INTERP_TILE);
  INTERP_ALLOC (st->round_state, INTERP_ROUND_STATE * sizeof (int));
  INTERP_ALLOC (st->stamps, 2 * (size_t) st->tiles_x * st->tiles_y * sizeof (int));
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
    s = interp_build_geodesic (st);
  if (s != CC_SUCCESS) {
    cc_cuda_interp_destroy (st);
    return s;
  }
  *out = st;
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_interp_compute (cc_cuda_interp *st, cc_stream stream, const cc_interp_params *p,
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
      cc_interp_fit_mode (p), cc_interp_robust (p), st->model);
  CC_CUDA_LAUNCHED ("interp_fit_kernel");
  interp_apply_kernel<<<rows, INTERP_THREADS, 0, cs>>> (st->keys, matches, st->owner,
      st->model, cc_interp_reach (p), *flow);
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
