/* SPDX-License-Identifier: LGPL-2.1-or-later */
// EPIC interpolation on CUDA: the twin of the CPU reference in src/interp.c (which
// describes the algorithm). Built with -fmad=false: every float step rounds as on
// the CPU, so the keys, graph and models are the same bits.
//
// Geodesic Voronoi: tiled parallel relaxation in rounds. A block of four warps loads
// a 32 x 32 tile and a one-pixel halo of (distance, seed) keys into shared memory,
// relaxes them to the tile's fixed point by sweeps in the four directions (a front
// crosses the tile in one pass) and writes the changed keys back. A round relaxes the
// tiles next to a tile that changed in the round before (every tile in round 1), and
// the rounds run in one cooperative launch with a grid barrier between them, until a
// round changes no key: one launch, no host synchronisation, no graph. Keys only
// decrease and each is the value of a real path, so the rounds reach the unique fixed
// point the CPU's Dijkstra computes, whatever the order of the updates
// (cc_interp_rounds () rounds at most).
// Seed graph: an open-addressing table of (cell pair -> least cost) filled with
// atomicCAS / atomicMin (contents independent of the order), then CSR lists by
// a count, a CUB scan, a fill and a per-node sort by neighbour.
// Per seed: one warp runs cc_interp_knn's steps, a pop's argmin over the lanes and its
// edges one per lane, with a table of the nodes met in shared memory (the same list,
// bit for bit), then lane 0 cc_interp_fit.
#include "cuda_common.cuh"
#include "interp_internal.h"
#include "interp_hostdev.h"

#include <cooperative_groups.h>
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

#define INTERP_TILE 32
#define INTERP_THREADS 256
#define INTERP_FIT_WARPS 4
// The geodesic kernel: four warps a block, one a sweep direction (interp_tile_sweeps).
#define INTERP_GEO_THREADS (4 * INTERP_TILE)
// Tiles whose activity a geodesic block finds at once: 9 stamps each, a thread a stamp.
#define INTERP_ROUND_CHUNK (INTERP_GEO_THREADS / 9)
// Geodesic blocks an SM at most (a cooperative grid must be resident at once; the
// occupancy of its 72 registers a thread holds 7 on sm_90; 2 and 4 were slower on
// the H100: docs/epicflow.md).
#define INTERP_GEO_BLOCKS_PER_SM 8
// The geodesic's round flags in device memory: round r's at r % 3.
#define INTERP_ROUND_FLAGS 3
static_assert (128 * (sizeof (cc_flow_match) + sizeof (double)) <= 8 * CC_INTERP_CANDIDATES,
    "interp: fit gather does not fit the candidate buffer");

struct cc_cuda_interp {
  cc_context *ctx;
  int w, h, nb, table_size, table_bits, rounds;
  int geo_blocks;                // the geodesic's grid: blocks resident at once
  int *blur_h, *blur;
  float *cost;
  unsigned long long *keys;
  int *round_flags;              // INTERP_ROUND_FLAGS ints (interp_geodesic_kernel)
  int *stamps;                   // 2 x tiles: the round of each tile's last change
  int tiles_x, tiles_y;
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

// Relax the tile in sk (INTERP_TILE^2 keys and a one-pixel halo; costs in sc) to its
// fixed point against its 8 neighbours, by sweeps: warp 0 left to right, 1 right to
// left, 2 top to bottom, 3 bottom to top, a lane a row (a column), each cell against
// the three cells before it in the warp's direction. The four run at once on the
// same keys through shared-memory atomics (a cell's key only decreases, and any value
// a load sees is the length of a real path). After each pass every thread checks its
// cells against all 8 neighbours at once, and passes repeat while a cell could still
// drop, so the tile ends at the least of every cell's 8 relaxations: the same fixed
// point as the CPU's Dijkstra restricted to the tile, whatever the order. A sweep
// carries a front across the tile in one pass, where a Jacobi step carried it one
// pixel. Out-of-frame cells and the halo are read, never written.
__device__ void
interp_tile_sweeps (unsigned long long (*sk)[INTERP_TILE + 2], const float (*sc)[INTERP_TILE + 2],
    int x0, int y0, int w, int h)
{
  const int lane = threadIdx.x, dir = threadIdx.y, tid = dir * INTERP_TILE + lane;
  const bool horizontal = dir < 2, forward = (dir & 1) == 0;
  for (int pass = 0; pass < INTERP_TILE * INTERP_TILE; pass++) {
    for (int s = 0; s < INTERP_TILE; s++) {
      const int along = forward ? s : INTERP_TILE - 1 - s, back = forward ? -1 : 1;
      const int x = horizontal ? along : lane, y = horizontal ? lane : along;
      const int lx = x + 1, ly = y + 1;
      const bool in = x0 + x < w && y0 + y < h;
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_block> own (sk[ly][lx]);
      const unsigned long long cur = own.load (cuda::memory_order_relaxed);
      const float c = sc[ly][lx];
      unsigned long long best = cur;
      for (int o = -1; o <= 1; o++) {
        const int nx = horizontal ? lx + back : lx + o, ny = horizontal ? ly + o : ly + back;
        const unsigned long long nk = cuda::atomic_ref<unsigned long long,
            cuda::thread_scope_block> (sk[ny][nx]).load (cuda::memory_order_relaxed);
        const unsigned long long k = cc_interp_relax (nk, cc_interp_step (c, sc[ny][nx], o != 0));
        best = k < best ? k : best;
      }
      if (in && best < cur)
        own.fetch_min (best, cuda::memory_order_relaxed);
      __syncwarp ();   // the cell is read by the lanes beside it at the next step
    }
    __syncthreads ();   // the sweeps are done: the check reads, nobody writes
    bool open = false;
    for (int j = 0; j < INTERP_TILE * INTERP_TILE / INTERP_GEO_THREADS; j++) {
      const int i = tid + j * INTERP_GEO_THREADS;
      const int lx = i % INTERP_TILE + 1, ly = i / INTERP_TILE + 1;
      const unsigned long long cur = sk[ly][lx];
      const float c = sc[ly][lx];
      bool drops = false;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          drops |= (dx != 0 || dy != 0) && cc_interp_relax (sk[ly + dy][lx + dx],
              cc_interp_step (c, sc[ly + dy][lx + dx], dx != 0 && dy != 0)) < cur;
      open |= drops && x0 + lx - 1 < w && y0 + ly - 1 < h;
    }
    if (!__syncthreads_or (open))
      break;
  }
}

// The geodesic Voronoi's rounds in one cooperative launch: a grid barrier between
// rounds, rounds until one changes no key (or `rounds` ran). In round r (1-based) a
// tile is relaxed when a tile of its 3 x 3 neighbourhood changed a key in round r - 1
// (stamps: the round of a tile's last change, in two arrays by the parity of the
// round, so that a round's writes never meet its reads), every tile in round 1. The
// block loads the tile's keys and halo into shared memory, relaxes them
// (interp_tile_sweeps) and writes the changed keys back. Keys of other tiles (the
// halo) may change while they are read: those are relaxed atomic loads and stores,
// and any value read is the length of a real path, so the fixed point is the same
// whatever a load sees. changed[r % 3] says whether round r changed a key; block 0
// clears the flag of round r + 1 in round r, when every block has read round r - 2's.
__global__ void __launch_bounds__ (INTERP_GEO_THREADS)
interp_geodesic_kernel (unsigned long long *keys, const float *cost, int w, int h,
    int *changed, int *stamps, int tiles_x, int tiles_y, int rounds)
{
  __shared__ unsigned long long sk[INTERP_TILE + 2][INTERP_TILE + 2];
  __shared__ float sc[INTERP_TILE + 2][INTERP_TILE + 2];
  __shared__ int s_active[INTERP_ROUND_CHUNK];
  cg::grid_group grid = cg::this_grid ();
  const int tiles = tiles_x * tiles_y;
  const int tid = threadIdx.y * INTERP_TILE + threadIdx.x;
  const int stride = gridDim.x;
  for (int r = 1; r <= rounds; r++) {
    if (blockIdx.x == 0 && tid == 0)
      cuda::atomic_ref<int, cuda::thread_scope_device> (changed[(r + 1) % 3]).store (0,
          cuda::memory_order_relaxed);
    const int *last = stamps + ((r - 1) & 1) * tiles;
    int *mine = stamps + (r & 1) * tiles;
    bool block_changed = false;
    // The block's tiles (blockIdx.x, + gridDim.x, ...) in chunks: which are active is
    // found for a whole chunk at once, a thread a (tile, neighbour) stamp.
    for (int base = blockIdx.x; base < tiles; base += stride * INTERP_ROUND_CHUNK) {
      __syncthreads ();   // the previous chunk is done with s_active
      if (tid < INTERP_ROUND_CHUNK)
        s_active[tid] = r == 1;
      __syncthreads ();
      if (r > 1 && tid < 9 * INTERP_ROUND_CHUNK) {
        const int i = tid / 9, d = tid % 9;
        const int tile = base + i * stride;
        if (tile < tiles) {
          const int nx = tile % tiles_x + d % 3 - 1, ny = tile / tiles_x + d / 3 - 1;
          if (nx >= 0 && ny >= 0 && nx < tiles_x && ny < tiles_y
              && last[ny * tiles_x + nx] == r - 1)
            atomicOr (&s_active[i], 1);
        }
      }
      __syncthreads ();
      for (int ci = 0; ci < INTERP_ROUND_CHUNK; ci++) {
        const int tile = base + ci * stride;
        if (tile >= tiles || !s_active[ci])
          continue;   // the same for every thread of the block
        const int x0 = tile % tiles_x * INTERP_TILE, y0 = tile / tiles_x * INTERP_TILE;
        __syncthreads ();   // the previous tile is done with the buffers
        for (int i = tid; i < (INTERP_TILE + 2) * (INTERP_TILE + 2); i += INTERP_GEO_THREADS) {
          const int lx = i % (INTERP_TILE + 2), ly = i / (INTERP_TILE + 2);
          const int gx = x0 + lx - 1, gy = y0 + ly - 1;
          const bool in = gx >= 0 && gy >= 0 && gx < w && gy < h;
          const size_t at = in ? (size_t) gy * w + gx : 0;
          const unsigned long long k = cuda::atomic_ref<unsigned long long,
              cuda::thread_scope_device> (keys[at]).load (cuda::memory_order_relaxed);
          sk[ly][lx] = in ? k : CC_INTERP_KEY_NONE;
          sc[ly][lx] = in ? cost[at] : 0.0f;
        }
        __syncthreads ();
        unsigned long long orig[INTERP_TILE * INTERP_TILE / INTERP_GEO_THREADS];
        for (int j = 0; j < INTERP_TILE * INTERP_TILE / INTERP_GEO_THREADS; j++) {
          const int i = tid + j * INTERP_GEO_THREADS;
          orig[j] = sk[i / INTERP_TILE + 1][i % INTERP_TILE + 1];
        }
        interp_tile_sweeps (sk, sc, x0, y0, w, h);   // ends at a barrier
        bool tile_changed = false;
        for (int j = 0; j < INTERP_TILE * INTERP_TILE / INTERP_GEO_THREADS; j++) {
          const int i = tid + j * INTERP_GEO_THREADS;
          const int x = x0 + i % INTERP_TILE, y = y0 + i / INTERP_TILE;
          const unsigned long long fin = sk[i / INTERP_TILE + 1][i % INTERP_TILE + 1];
          if (x < w && y < h && fin != orig[j]) {
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> (
                keys[(size_t) y * w + x]).store (fin, cuda::memory_order_relaxed);
            tile_changed = true;
          }
        }
        if (__syncthreads_or (tile_changed)) {
          block_changed = true;
          if (tid == 0)
            mine[tile] = r;
        }
      }
    }
    if (block_changed && tid == 0)
      atomicOr (&changed[r % 3], 1);
    grid.sync ();
    if (!cuda::atomic_ref<int, cuda::thread_scope_device> (changed[r % 3]).load (
            cuda::memory_order_relaxed))
      break;   // every block reads the same flag: they leave together
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
  __shared__ double s_rw[INTERP_FIT_WARPS][128];
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
  // the robust weights one a lane: every lane forms the weighted mean (the same sums in
  // the same order as lane 0's fit), then its points' weights about it
  const double *rweights = NULL;
  if (robust > 0.0f && affine != CC_INTERP_FIT_AFFINE) {
    double mu, mv;
    cc_interp_weighted_mean (pts, weights, count, &mu, &mv);
    const double inv_r2 = cc_interp_robust_inv_r2 (robust);
    for (int i = lane; i < count; i += 32)
      s_rw[wid][i] = cc_interp_robust_weight (&pts[i], weights[i], mu, mv, inv_r2);
    rweights = s_rw[wid];
    __syncwarp ();
  }
  if (lane == 0)
    cc_interp_fit_points (pts, weights, count, affine, robust, rweights,
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

extern "C" void
cc_cuda_interp_destroy (cc_cuda_interp *st)
{
  if (!st)
    return;
  void *bufs[] = { st->blur_h, st->blur, st->cost, st->keys, st->round_flags, st->stamps, st->owner,
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
  INTERP_ALLOC (st->round_flags, INTERP_ROUND_FLAGS * sizeof (int));
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
    // the geodesic's grid: blocks that are resident at once (a grid barrier needs
    // them all), at most INTERP_GEO_BLOCKS_PER_SM an SM and one a tile
    int sms = 0, per_sm = 0, coop = 0;
    const int tiles = st->tiles_x * st->tiles_y;
    cudaError_t e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, ctx->device);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute (&coop, cudaDevAttrCooperativeLaunch, ctx->device);
    if (e == cudaSuccess)
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, interp_geodesic_kernel,
          INTERP_GEO_THREADS, 0);
    if (e != cudaSuccess) {
      cudaGetLastError ();
      s = cc_set_error (CC_ERROR_CUDA, "interp: device query: %s", cudaGetErrorString (e));
    } else if (!coop || per_sm < 1)
      s = cc_set_error (CC_ERROR_NOT_SUPPORTED,
          "interp: the device cannot run the geodesic kernel's cooperative launch");
    else {
      if (per_sm > INTERP_GEO_BLOCKS_PER_SM)
        per_sm = INTERP_GEO_BLOCKS_PER_SM;
      long long resident = (long long) sms * per_sm;
      st->geo_blocks = (int) (resident < tiles ? resident : tiles);
    }
  }
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

  CC_CUDA_TRY (cudaMemsetAsync (st->round_flags, 0, INTERP_ROUND_FLAGS * sizeof (int), cs),
      "interp: clear round flags");
  CC_CUDA_TRY (cudaMemsetAsync (st->stamps, 0, 2 * (size_t) st->tiles_x * st->tiles_y
          * sizeof (int), cs), "interp: clear stamps");
  {
    int rounds = st->rounds, tx = st->tiles_x, ty = st->tiles_y, ww = w, hh = h;
    void *args[] = { &st->keys, &st->cost, &ww, &hh, &st->round_flags, &st->stamps, &tx, &ty,
      &rounds };
    // fewer blocks when the device holds fewer at once than create found (a tool
    // that instruments the kernel): the result does not depend on the grid
    cudaError_t e;
    while ((e = cudaLaunchCooperativeKernel ((const void *) interp_geodesic_kernel,
                dim3 (st->geo_blocks), dim3 (INTERP_TILE, 4), args, 0, cs))
        == cudaErrorCooperativeLaunchTooLarge && st->geo_blocks > 1) {
      cudaGetLastError ();
      st->geo_blocks /= 2;
    }
    CC_CUDA_TRY (e, "interp: geodesic rounds");
  }

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
