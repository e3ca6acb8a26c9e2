/* SPDX-License-Identifier: LGPL-2.1-or-later */
// MOCT on CUDA: the twin of the CPU reference in src/moct.c.
//
// One pass over the pixels (moct_reduce_kernel, persistent blocks, each over a
// contiguous band of rows): each warp takes a row segment of 32 x K pixels, lane l
// the K consecutive pixels K l .. K l + K - 1 (16-byte vector loads for packed RGB), looks every pixel's object up in the classification table, and sums runs of
// one object in registers (count, sum x, sum x^2, min / max x; the row gives the y
// terms). A run that ends inside a lane (an object's edge) goes straight to the
// block's shared-memory accumulators (64 bytes an object, shared atomics). The run
// that reaches a lane's last pixel is summed over the lanes that hold the same object
// (__match_any_sync + __reduce_*_sync) and one lane adds: an object crossing a
// segment costs about two accumulator updates, however many pixels it covers, and
// small objects (many objects in the frame) cost about what one large one does.
// When the block has walked its band, its non-empty accumulators meet the others
// (cc_moct_layout):
//  ATOMIC:   64-bit global atomics into the frame's accumulators (reset first);
//  PARTIALS: the block's slot of a partials array + a bitmask of non-empty objects,
//            summed by moct_partials_kernel (a warp per object).
// moct_finalize_kernel then makes each object's record, trajectory sample and
// velocity (cc_moct_finalize, shared with the CPU). Integer sums throughout: the
// results equal the CPU's bit for bit.
//
// Drawing: the mask is one thread per pixel (per 2x2 block for NV12 / I420); lines
// are one thread per (object, primitive) in three launches over the same points:
// atomicMax of the key (layer, id) into a scratch, paint where the key is the
// thread's own, clear: the winner is the line the CPU draws last. Labels (layer 3)
// take part in the same three steps, one thread per pixel of an object's text box
// (a grid row per object), the font read from constant memory (cc_text_hostdev.h).
#include "cuda_common.cuh"
#include "moct_internal.h"
#include "moct_hostdev.h"

#include <stdlib.h>

#define MOCT_THREADS 256
#define MOCT_WARPS (MOCT_THREADS / 32)
#define MOCT_FULL 0xFFFFFFFFu

enum { MOCT_FMT_RGBX = 0, MOCT_FMT_BGRX = 1, MOCT_FMT_ANY = 2 };

struct cc_cuda_moct {
  cc_stream stream;   // the stream of the public call in progress (set by each entry point)
  cc_context *ctx;
  int w, h, history, n;
  int sms;
  uint16_t *lut_rgb, *lut_yuv;
  cc_moct_colour *colours;
  cc_moct_label *labels;
  int label_width;             // widest label of the table, px
  cc_moct_acc *acc;
  cc_moct_record *records;
  cc_moct_track *tracks;
  cc_moct_sample *rings;
  cc_moct_acc *partials;       // PARTIALS: blocks x n
  uint32_t *seen;              // PARTIALS: blocks x ceil(n / 32)
  size_t partials_cap, seen_cap;   // entries / words allocated
  int max_blocks;              // persistent grid bound for the current n (narrow)
  int max_blocks_wide;         // the same for the 64-bit accumulators
  uint32_t *keys;              // drawing scratch, w x h, zero between draws
};

// ------------------------------------------------------------------ reduction

// cc_moct_tuning.narrow_accumulators (the default; 0 gives cc_moct_acc below):
// a block's shared accumulator of one object, narrow: the sums that stay under 2^32 for
// the block's band (checked on the host, moct_narrow_fits) are 32-bit and the y terms
// are taken from the band's first row y0 (dy = y - y0). 48 bytes instead of 64, and
// 32-bit shared atomics for four of the six sums: more blocks fit an SM when the
// table is large. moct_widen gives the frame's 64-bit terms back, exactly.
struct moct_narrow {
  unsigned n, sx, sy, syy;            // sy = sum dy, syy = sum dy^2
  unsigned long long sxx, sxy;        // sxy = sum x dy
  int minx, maxx, miny, maxy;
};

__device__ __forceinline__ void
acc_clear (cc_moct_acc *a)
{
  cc_moct_acc_clear (a);
}

__device__ __forceinline__ void
acc_clear (moct_narrow *a)
{
  a->n = a->sx = a->sy = a->syy = 0;
  a->sxx = a->sxy = 0;
  a->minx = a->miny = CC_MOCT_EMPTY_MIN;
  a->maxx = a->maxy = CC_MOCT_EMPTY_MAX;
}

__device__ __forceinline__ cc_moct_acc
moct_widen (const cc_moct_acc &a, int)
{
  return a;
}

__device__ __forceinline__ cc_moct_acc
moct_widen (const moct_narrow &a, int y0)
{
  unsigned long long n = a.n, y = (unsigned long long) y0;
  cc_moct_acc w;
  w.n = n;
  w.sx = a.sx;
  w.sy = a.sy + n * y;
  w.syy = a.syy + 2ull * y * a.sy + n * y * y;
  w.sxx = a.sxx;
  w.sxy = a.sxy + y * a.sx;
  w.minx = a.minx;
  w.maxx = a.maxx;
  w.miny = a.miny;
  w.maxy = a.maxy;
  return w;
}

__device__ __forceinline__ void
acc_add_run (moct_narrow *a, unsigned n, unsigned sx, unsigned long long sxx, int minx,
    int maxx, int y, int y0)
{
  unsigned dy = (unsigned) (y - y0);
  atomicAdd (&a->n, n);
  atomicAdd (&a->sx, sx);
  atomicAdd (&a->sy, dy * n);
  atomicAdd (&a->syy, dy * dy * n);
  atomicAdd (&a->sxx, sxx);
  atomicAdd (&a->sxy, (unsigned long long) dy * sx);
  atomicMin (&a->minx, minx);
  atomicMax (&a->maxx, maxx);
  atomicMin (&a->miny, y);
  atomicMax (&a->maxy, y);
}

__device__ __forceinline__ void
acc_add_run (cc_moct_acc *a, unsigned n, unsigned sx, unsigned long long sxx, int minx,
    int maxx, int y, int)
{
  unsigned long long yy = (unsigned long long) y;
  atomicAdd (&a->n, (unsigned long long) n);
  atomicAdd (&a->sx, (unsigned long long) sx);
  atomicAdd (&a->sy, yy * n);
  atomicAdd (&a->sxx, sxx);
  atomicAdd (&a->syy, yy * yy * n);
  atomicAdd (&a->sxy, yy * sx);
  atomicMin (&a->minx, minx);
  atomicMax (&a->maxx, maxx);
  atomicMin (&a->miny, y);
  atomicMax (&a->maxy, y);
}

// A run of one object on row y, as offsets dx = x - xb from its segment's start (dx <
// 32 K <= 512, so a warp's sums of dx and dx^2 fit 32 bits): the 64-bit terms of
// the accumulator rebuilt from them.
template <typename ACC>
__device__ __forceinline__ void
acc_add_offsets (ACC *a, unsigned n, unsigned sdx, unsigned sdx2, int mindx,
    int maxdx, int xb, int y, int y0)
{
  unsigned long long b = (unsigned long long) xb;
  acc_add_run (a, n, n * (unsigned) xb + sdx, n * b * b + 2ull * b * sdx + sdx2, xb + mindx,
      xb + maxdx, y, y0);
}

// sum of m^2 over 0 .. m (0 for m < 0); m < 512: under 2^32
__device__ __forceinline__ unsigned
sq_prefix (int m)
{
  return m < 0 ? 0u : (unsigned) m * (unsigned) (m + 1) * (unsigned) (2 * m + 1) / 6u;
}

// A run is contiguous (every pixel from its first to its last is the object's), so its
// count and its sums of dx and dx^2 follow from its ends a .. b.
__device__ __forceinline__ void
run_sums (int a, int b, unsigned &n, unsigned &s, unsigned &s2)
{
  n = (unsigned) (b - a + 1);
  s = (unsigned) (a + b) * n / 2u;   // (a + b) and n have opposite parities
  s2 = sq_prefix (b) - sq_prefix (a - 1);
}

// A run of object `id` over dx = a .. b of the segment at xb, row y, to the block's table.
template <typename ACC>
__device__ __forceinline__ void
acc_add_span (ACC *sacc, int id, int a, int b, int xb, int y, int y0)
{
  unsigned rn, sdx, sdx2;
  run_sums (a, b, rn, sdx, sdx2);
  acc_add_offsets (&sacc[id], rn, sdx, sdx2, a, b, xb, y, y0);
}

// The object ids of this lane's K consecutive pixels x0 .. x0 + K - 1 of row y.
template <int K, int FMT>
__device__ __forceinline__ void
lane_ids (const cc_image &f, const uint16_t *__restrict__ lut, int x0, int y, int *ids)
{
  const uint8_t *row = (const uint8_t *) f.planes[0] + (size_t) y * f.pitch[0];
  if (FMT == MOCT_FMT_RGBX || FMT == MOCT_FMT_BGRX) {
    // 16-byte rows (checked on the host) and x0 a multiple of 4: vector loads, and a
    // warp's first load covers 32 x 16 contiguous bytes when K = 4
    uint32_t px[K];
    if (x0 + K <= f.width) {
      const uint4 *p4 = (const uint4 *) row + (x0 >> 2);
#pragma unroll
      for (int j = 0; j < K / 4; j++) {
        uint4 v = __ldg (p4 + j);
        px[4 * j] = v.x;
        px[4 * j + 1] = v.y;
        px[4 * j + 2] = v.z;
        px[4 * j + 3] = v.w;
      }
    } else {
#pragma unroll
      for (int k = 0; k < K; k++)
        px[k] = x0 + k < f.width ? __ldg ((const uint32_t *) row + x0 + k) : 0;
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
      int r = px[k] & 0xFF, g = (px[k] >> 8) & 0xFF, b = (px[k] >> 16) & 0xFF;
      int cell = FMT == MOCT_FMT_RGBX ? cc_moct_lut_index (r, g, b) : cc_moct_lut_index (b, g, r);
      ids[k] = x0 + k < f.width ? __ldg (&lut[cell]) : CC_MOCT_NONE;
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; k++)
      ids[k] = x0 + k < f.width ? __ldg (&lut[cc_moct_pixel_cell (&f, x0 + k, y)])
          : CC_MOCT_NONE;
  }
}

// Reduction blocks an SM that the kernel's registers must allow (__launch_bounds__):
// 6 (at most 40 registers a thread, 1,536 threads an SM, while a small object table
// leaves shared memory free) where that costs no spill: K = 4, and K = 8 on RGBX/BGRX
// (ptxas, sm_90). Without it the right-edge runs kept below took the default K = 8
// kernel from 40 to 48 registers, 5 blocks an SM. The others, K = 16 and K = 8 on
// YUV, would spill 8-96 bytes at 40: 4 (at most 64, what ptxas chose for them before
// the kept runs; no spill).
// sm_75 holds 1,024 threads an SM: 4 blocks there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MOCT_MAX_BLOCKS_SM 4
#else
#define MOCT_MAX_BLOCKS_SM 6
#endif
constexpr int
moct_min_blocks (int K, int FMT)
{
  return K == 4 || (K == 8 && FMT != MOCT_FMT_ANY) ? MOCT_MAX_BLOCKS_SM : 4;
}

template <int K, int FMT, typename ACC>
__global__ void __launch_bounds__ (MOCT_THREADS, moct_min_blocks (K, FMT))
moct_reduce_kernel (cc_image f, const uint16_t *__restrict__ lut, int n, int partials_layout,
    cc_moct_acc *acc, cc_moct_acc *partials, uint32_t *seen,
    const cc_moct_track *__restrict__ tracks, int window)
{
  extern __shared__ unsigned long long smem_raw[];
  ACC *sacc = (ACC *) smem_raw;
  const int tid = threadIdx.x, lane = tid & 31;
  for (int i = tid; i < n; i += MOCT_THREADS)
    acc_clear (&sacc[i]);
  __syncthreads ();

  const int seg_px = 32 * K;
  const int segs = (f.width + seg_px - 1) / seg_px;
  const long long total = (long long) segs * f.height;
  // a contiguous band of segments per block: the block meets only the objects in its
  // band, so it has few accumulators to flush even with 1024 objects in the frame
  const long long per_block = (total + gridDim.x - 1) / gridDim.x;
  const long long s0 = (long long) blockIdx.x * per_block;
  const long long s1 = s0 + per_block < total ? s0 + per_block : total;
  const int y0 = (int) (s0 / segs);   // the band's first row
  for (long long s = s0 + (tid >> 5); s < s1; s += MOCT_WARPS) {
    const int y = (int) (s / segs), xb = (int) (s - (long long) y * segs) * seg_px;
    const int x0 = xb + lane * K;
    int ids[K];
    lane_ids<K, FMT> (f, lut, x0, y, ids);
    if (window) {
#pragma unroll
      for (int k = 0; k < K; k++)
        if (ids[k] < n && !cc_moct_in_window (&tracks[ids[k]], x0 + k, y))
          ids[k] = CC_MOCT_NONE;   // outside the object's search window
    }
    // runs of one object along the lane's pixels; a run that ends inside the lane (an
    // object's edge) adds to the block's table at once, except the lane's first run
    // (the lane holds the object's right edge): that one is kept, by its object and
    // its end alone (a run is contiguous, so its sums follow, run_sums), to join the
    // warp's sum of its object below
    const int lane_dx = lane * K;
    int run = CC_MOCT_NONE, mindx = 0, maxdx = 0;
    unsigned rn = 0, sdx = 0, sdx2 = 0;
    int frun = CC_MOCT_NONE, fmaxdx = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
      int dx = lane_dx + k, id = ids[k];
      if (id != run) {
        if (run < n) {
          if (mindx == lane_dx) {
            frun = run;
            fmaxdx = maxdx;
          } else {
            acc_add_offsets (&sacc[run], rn, sdx, sdx2, mindx, maxdx, xb, y, y0);
          }
        }
        run = id;
        rn = sdx = sdx2 = 0;
        mindx = dx;
      }
      if (id < n) {
        rn++;
        sdx += dx;
        sdx2 += dx * dx;
        maxdx = dx;
      }
    }
    // each lane offers the warp one run: the one that reaches its last pixel when it is
    // an object's, else the kept first run; the other adds alone. With many small
    // objects an object's crossing of a warp's segment then adds once, not twice.
    if (run >= n) {
      run = frun;
      mindx = lane_dx;
      maxdx = fmaxdx;
      if (run < n)
        run_sums (mindx, maxdx, rn, sdx, sdx2);
    } else if (frun < n) {
      acc_add_span (sacc, frun, lane_dx, fmaxdx, xb, y, y0);
    }
    // the lanes offering the same object (the lanes an object spans, usually) are
    // summed over the warp, and one adds
#if __CUDA_ARCH__ >= 800
    unsigned group = __match_any_sync (MOCT_FULL, run);
    if (run < n) {
      rn = __reduce_add_sync (group, rn);
      sdx = __reduce_add_sync (group, sdx);
      sdx2 = __reduce_add_sync (group, sdx2);
      mindx = (int) __reduce_min_sync (group, (unsigned) mindx);
      maxdx = (int) __reduce_max_sync (group, (unsigned) maxdx);
      if (lane == __ffs (group) - 1)
        acc_add_offsets (&sacc[run], rn, sdx, sdx2, mindx, maxdx, xb, y, y0);
    }
#else
    // no warp reductions before sm_80: every lane adds the run it offers
    if (run < n)
      acc_add_offsets (&sacc[run], rn, sdx, sdx2, mindx, maxdx, xb, y, y0);
#endif
  }
  __syncthreads ();

  if (!partials_layout) {
    for (int i = tid; i < n; i += MOCT_THREADS) {
      if (sacc[i].n == 0)
        continue;
      const cc_moct_acc a = moct_widen (sacc[i], y0);
      cc_moct_acc *g = &acc[i];
      atomicAdd (&g->n, a.n);
      atomicAdd (&g->sx, a.sx);
      atomicAdd (&g->sy, a.sy);
      atomicAdd (&g->sxx, a.sxx);
      atomicAdd (&g->syy, a.syy);
      atomicAdd (&g->sxy, a.sxy);
      atomicMin (&g->minx, a.minx);
      atomicMax (&g->maxx, a.maxx);
      atomicMin (&g->miny, a.miny);
      atomicMax (&g->maxy, a.maxy);
    }
    return;
  }
  const int words = (n + 31) / 32;
  for (int base = 0; base < n; base += MOCT_THREADS) {
    int i = base + tid;
    bool has = i < n && sacc[i].n != 0;
    unsigned mask = __ballot_sync (MOCT_FULL, has);
    if (lane == 0 && i < n)
      seen[(size_t) blockIdx.x * words + i / 32] = mask;
    if (has)
      partials[(size_t) blockIdx.x * n + i] = moct_widen (sacc[i], y0);
  }
}

__global__ void
moct_clear_kernel (cc_moct_acc *acc, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    cc_moct_acc_clear (&acc[i]);
}

// One warp per object: the blocks' partials in block order.
__global__ void
moct_partials_kernel (const cc_moct_acc *partials, const uint32_t *seen, int blocks, int n,
    cc_moct_acc *acc)
{
  int obj = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (obj >= n)
    return;
  const int words = (n + 31) / 32;
  cc_moct_acc a;
  cc_moct_acc_clear (&a);
  for (int b = lane; b < blocks; b += 32) {
    if (!(seen[(size_t) b * words + obj / 32] & (1u << (obj & 31))))
      continue;
    const cc_moct_acc &p = partials[(size_t) b * n + obj];
    a.n += p.n; a.sx += p.sx; a.sy += p.sy; a.sxx += p.sxx; a.syy += p.syy; a.sxy += p.sxy;
    a.minx = min (a.minx, p.minx); a.maxx = max (a.maxx, p.maxx);
    a.miny = min (a.miny, p.miny); a.maxy = max (a.maxy, p.maxy);
  }
  for (int o = 16; o > 0; o >>= 1) {
    a.n += __shfl_xor_sync (MOCT_FULL, a.n, o);
    a.sx += __shfl_xor_sync (MOCT_FULL, a.sx, o);
    a.sy += __shfl_xor_sync (MOCT_FULL, a.sy, o);
    a.sxx += __shfl_xor_sync (MOCT_FULL, a.sxx, o);
    a.syy += __shfl_xor_sync (MOCT_FULL, a.syy, o);
    a.sxy += __shfl_xor_sync (MOCT_FULL, a.sxy, o);
    a.minx = min (a.minx, __shfl_xor_sync (MOCT_FULL, a.minx, o));
    a.maxx = max (a.maxx, __shfl_xor_sync (MOCT_FULL, a.maxx, o));
    a.miny = min (a.miny, __shfl_xor_sync (MOCT_FULL, a.miny, o));
    a.maxy = max (a.maxy, __shfl_xor_sync (MOCT_FULL, a.maxy, o));
  }
  if (lane == 0)
    acc[obj] = a;
}

__global__ void
moct_finalize_kernel (const cc_moct_acc *acc, int n, long long frame, int min_mass,
    int window, int ratio16, int width, int height, int history, cc_moct_track *tracks,
    cc_moct_record *records, cc_moct_sample *rings)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  cc_moct_finalize (&acc[i], frame, min_mass, window, ratio16, width, height, &tracks[i],
      &records[i],
      &rings[(size_t) i * history + frame % history]);
}

// ------------------------------------------------------------------ drawing

__global__ void
moct_mask_pixel_kernel (cc_image f, const uint16_t *lut, const cc_moct_colour *colours, int n)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < f.width && y < f.height)
    cc_moct_mask_pixel (&f, x, y, lut, colours, n);
}

__global__ void
moct_mask_block_kernel (cc_image f, const uint16_t *lut, const cc_moct_colour *colours, int n)
{
  int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y * blockDim.y + threadIdx.y;
  if (bx < (f.width + 1) / 2 && by < (f.height + 1) / 2)
    cc_moct_mask_block (&f, bx, by, lut, colours, n);
}

enum { MOCT_MARK = 0, MOCT_PAINT, MOCT_CLEAR };

__global__ void
moct_lines_kernel (cc_image f, int mode, unsigned flags, int n, int history, long long frames,
    const cc_moct_sample *rings, const cc_moct_record *records,
    const cc_moct_colour *colours, cc_moct_colour white, uint32_t *keys)
{
  const int P = cc_moct_primitive_count (history);
  long long t = (long long) blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long) n * P)
    return;
  int id = (int) (t / P), k = (int) (t - (long long) id * P);
  int x0, y0, x1, y1, layer;
  if (!cc_moct_primitive (k, history, frames, rings + (size_t) id * history, &records[id],
          flags, &x0, &y0, &x1, &y1, &layer))
    return;
  uint32_t key = ((uint32_t) layer << 11 | (uint32_t) id) + 1u;
  const cc_moct_colour *c = layer == 2 ? &white : &colours[id];
  int np = cc_moct_line_points (x0, y0, x1, y1);
  for (int i = 0; i < np; i++) {
    int x, y;
    cc_moct_line_point (x0, y0, x1, y1, i, &x, &y);
    if (x < 0 || y < 0 || x >= f.width || y >= f.height)
      continue;
    uint32_t *kp = &keys[(size_t) y * f.width + x];
    if (mode == MOCT_MARK)
      atomicMax (kp, key);
    else if (mode == MOCT_PAINT) {
      if (*kp == key)
        cc_moct_put (&f, x, y, c);
    } else
      *kp = 0;
  }
}

// One object's label (blockIdx.y), a thread per pixel of its text box; mode as
// moct_lines_kernel.
__global__ void
moct_labels_kernel (cc_image f, int mode, int n, long long frames,
    const cc_moct_record *records, const cc_moct_label *labels,
    const cc_moct_colour *colours, uint32_t *keys)
{
  const int id = blockIdx.y;
  const cc_moct_label *l = &labels[id];
  int p = blockIdx.x * blockDim.x + threadIdx.x, w = cc_text_width (l->len);
  int ox, oy;
  if (id >= n || p >= w * CC_TEXT_HEIGHT
      || !cc_moct_label_origin (frames, &records[id], &ox, &oy))
    return;
  int ty = p / w, tx = p - ty * w, x = ox + tx, y = oy + ty;
  if (x < 0 || y < 0 || x >= f.width || y >= f.height || !cc_text_pixel (l->text, l->len, tx, ty))
    return;
  uint32_t key = ((uint32_t) CC_MOCT_LABEL_LAYER << 11 | (uint32_t) id) + 1u;
  uint32_t *kp = &keys[(size_t) y * f.width + x];
  if (mode == MOCT_MARK)
    atomicMax (kp, key);
  else if (mode == MOCT_PAINT) {
    if (*kp == key)
      cc_moct_put (&f, x, y, &colours[id]);
  } else
    *kp = 0;
}

// ------------------------------------------------------------------ host side

typedef void (*moct_reduce_fn) (cc_image, const uint16_t *, int, int, cc_moct_acc *,
    cc_moct_acc *, uint32_t *, const cc_moct_track *, int);

#define MOCT_KERNELS(ACC) \
  { { moct_reduce_kernel<4, 0, ACC>, moct_reduce_kernel<4, 1, ACC>, moct_reduce_kernel<4, 2, ACC> }, \
    { moct_reduce_kernel<8, 0, ACC>, moct_reduce_kernel<8, 1, ACC>, moct_reduce_kernel<8, 2, ACC> }, \
    { moct_reduce_kernel<16, 0, ACC>, moct_reduce_kernel<16, 1, ACC>, moct_reduce_kernel<16, 2, ACC> } }

static moct_reduce_fn
reduce_kernel (int K, int fmt, bool narrow)
{
  static const moct_reduce_fn wide[3][3] = MOCT_KERNELS (cc_moct_acc);
  static const moct_reduce_fn nar[3][3] = MOCT_KERNELS (moct_narrow);
  int k = K == 4 ? 0 : K == 8 ? 1 : 2;
  return narrow ? nar[k][fmt] : wide[k][fmt];
}

// Whether the narrow accumulators hold a block's band of per_block segments of a
// w-pixel row (segs a row): its pixels P <= R w over at most R rows, and n <= P,
// sum x <= P (w - 1), sum dy <= P R and sum dy^2 <= P R^2 must stay under 2^32.
static bool
moct_narrow_fits (long long per_block, long long segs, int w)
{
  unsigned long long R = (unsigned long long) ((per_block + segs - 1) / segs + 1);
  unsigned long long P = R * (unsigned long long) w, lim = 1ull << 32;
  return P < lim && P * (unsigned long long) w < lim && P * R < lim && P * R * R < lim;
}

extern "C" void
cc_cuda_moct_destroy (cc_cuda_moct *s)
{
  if (!s)
    return;
  cudaFree (s->lut_rgb);
  cudaFree (s->lut_yuv);
  cudaFree (s->colours);
  cudaFree (s->labels);
  cudaFree (s->acc);
  cudaFree (s->records);
  cudaFree (s->tracks);
  cudaFree (s->rings);
  cudaFree (s->partials);
  cudaFree (s->seen);
  cudaFree (s->keys);
  free (s);
}

extern "C" cc_status
cc_cuda_moct_create (cc_context *ctx, int width, int height, int history, cc_cuda_moct **out)
{
  *out = NULL;
  cc_cuda_moct *s = (cc_cuda_moct *) calloc (1, sizeof *s);
  if (!s)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "moct: out of host memory");
  s->ctx = ctx;
  s->stream = ctx->stream;   // until a call names its own
  s->w = width;
  s->h = height;
  s->history = history;
  const size_t N = CC_MOCT_MAX_OBJECTS;
  cc_status st = CC_SUCCESS;
#define MOCT_ALLOC(ptr, bytes) \
  if (st == CC_SUCCESS) st = cc_cuda_malloc (ctx, (bytes), (void **) &(ptr))
  MOCT_ALLOC (s->lut_rgb, CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  MOCT_ALLOC (s->lut_yuv, CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  MOCT_ALLOC (s->colours, N * sizeof (cc_moct_colour));
  MOCT_ALLOC (s->labels, N * sizeof (cc_moct_label));
  MOCT_ALLOC (s->acc, N * sizeof (cc_moct_acc));
  MOCT_ALLOC (s->records, N * sizeof (cc_moct_record));
  MOCT_ALLOC (s->tracks, N * sizeof (cc_moct_track));
  MOCT_ALLOC (s->rings, N * history * sizeof (cc_moct_sample));
  MOCT_ALLOC (s->keys, (size_t) width * height * sizeof (uint32_t));
#undef MOCT_ALLOC
  if (st == CC_SUCCESS) {
    cudaError_t e = cudaDeviceGetAttribute (&s->sms, cudaDevAttrMultiProcessorCount,
        ctx->device);
    for (int nar = 0; nar < 2 && e == cudaSuccess; nar++)
      for (int k = 0; k < 3 && e == cudaSuccess; k++)
        for (int fmt = 0; fmt < 3 && e == cudaSuccess; fmt++)
          e = cudaFuncSetAttribute ((const void *) reduce_kernel (4 << k, fmt, nar),
              cudaFuncAttributeMaxDynamicSharedMemorySize,
              (int) (N * (nar ? sizeof (moct_narrow) : sizeof (cc_moct_acc))));
    if (e != cudaSuccess) {
      cudaGetLastError ();
      st = cc_set_error (CC_ERROR_CUDA, "moct (CUDA): device set-up: %s", cudaGetErrorString (e));
    }
  }
  if (st == CC_SUCCESS)
    st = cc_cuda_moct_reset (s, s->stream);
  if (st == CC_SUCCESS)
    st = cc_cuda_memset_async (s->stream, s->keys, 0, (size_t) width * height * sizeof (uint32_t));
  // waited for here: a call on another stream must find the buffers cleared
  if (st == CC_SUCCESS)
    st = cc_cuda_stream_synchronize (s->stream);
  if (st != CC_SUCCESS) {
    cc_cuda_moct_destroy (s);
    return st;
  }
  *out = s;
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_moct_reset (cc_cuda_moct *s, cc_stream cs)
{
  s->stream = cs;
  const size_t N = CC_MOCT_MAX_OBJECTS;
  CC_TRY (cc_cuda_memset_async (s->stream, s->tracks, 0, N * sizeof (cc_moct_track)));
  CC_TRY (cc_cuda_memset_async (s->stream, s->records, 0, N * sizeof (cc_moct_record)));
  return cc_cuda_memset_async (s->stream, s->rings, 0, N * s->history * sizeof (cc_moct_sample));
}

extern "C" cc_status
cc_cuda_moct_seed (cc_cuda_moct *s, cc_stream cs, int object, const int window[5])
{
  s->stream = cs;
  // win, wx0, wy0, wx1, wy1 are contiguous ints in cc_moct_track
  const size_t bytes = 5 * sizeof (int);
  cc_moct_track *t = s->tracks + object;
  return cc_cuda_copy_2d (s->stream, &t->win, bytes, CC_LOCATION_DEVICE, window, bytes,
      CC_LOCATION_HOST, bytes, 1);
}

extern "C" cc_status
cc_cuda_moct_set_objects (cc_cuda_moct *s, const uint16_t *lut_rgb, const uint16_t *lut_yuv,
    const cc_moct_colour *colours, const cc_moct_label *labels, int n)
{
  size_t lut_bytes = CC_MOCT_LUT_SIZE * sizeof (uint16_t);
  CC_TRY (cc_cuda_copy_2d (s->stream, s->lut_rgb, lut_bytes, CC_LOCATION_DEVICE, lut_rgb,
          lut_bytes, CC_LOCATION_HOST, lut_bytes, 1));
  CC_TRY (cc_cuda_copy_2d (s->stream, s->lut_yuv, lut_bytes, CC_LOCATION_DEVICE, lut_yuv,
          lut_bytes, CC_LOCATION_HOST, lut_bytes, 1));
  if (n > 0)
    CC_TRY (cc_cuda_copy_2d (s->stream, s->colours, n * sizeof (cc_moct_colour),
            CC_LOCATION_DEVICE, colours, n * sizeof (cc_moct_colour), CC_LOCATION_HOST,
            n * sizeof (cc_moct_colour), 1));
  if (n > 0)
    CC_TRY (cc_cuda_copy_2d (s->stream, s->labels, n * sizeof (cc_moct_label),
            CC_LOCATION_DEVICE, labels, n * sizeof (cc_moct_label), CC_LOCATION_HOST,
            n * sizeof (cc_moct_label), 1));
  s->label_width = 0;
  for (int i = 0; i < n; i++)
    if (cc_text_width (labels[i].len) > s->label_width)
      s->label_width = cc_text_width (labels[i].len);
  s->n = n;
  if (n == 0)
    return CC_SUCCESS;
  // the persistent grid: as many blocks as fit on the device at this shared size
  int most[2] = { 1, 1 };
  for (int nar = 0; nar < 2; nar++) {
    size_t smem = n * (nar ? sizeof (moct_narrow) : sizeof (cc_moct_acc));
    for (int k = 0; k < 3; k++)
      for (int fmt = 0; fmt < 3; fmt++) {
        int occ = 0;
        CC_CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&occ,
                reduce_kernel (4 << k, fmt, nar), MOCT_THREADS, smem), "cudaOccupancy");
        most[nar] = occ > most[nar] ? occ : most[nar];
      }
  }
  s->max_blocks_wide = most[0] * s->sms;
  s->max_blocks = (most[1] > most[0] ? most[1] : most[0]) * s->sms;
  // PARTIALS slots (not per frame: only when the table grows past them)
  size_t need = (size_t) s->max_blocks * n, words = (size_t) s->max_blocks * ((n + 31) / 32);
  if (need > s->partials_cap) {
    cc_cuda_free (s->ctx, s->partials);
    s->partials = NULL;
    s->partials_cap = 0;
    CC_TRY (cc_cuda_malloc (s->ctx, need * sizeof (cc_moct_acc), (void **) &s->partials));
    s->partials_cap = need;
  }
  if (words > s->seen_cap) {
    cc_cuda_free (s->ctx, s->seen);
    s->seen = NULL;
    s->seen_cap = 0;
    CC_TRY (cc_cuda_malloc (s->ctx, words * sizeof (uint32_t), (void **) &s->seen));
    s->seen_cap = words;
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_moct_compute (cc_cuda_moct *s, cc_stream cs, const cc_moct_params *p,
    const cc_moct_tuning *t, const cc_image *f,
    long long frame, cc_moct_record *records)
{
  s->stream = cs;
  const int n = s->n;
  if (n == 0)
    return CC_SUCCESS;
  cudaStream_t stream = s->stream;
  bool yuv = f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
  // the packed paths load 16 bytes at a time
  bool aligned = ((uintptr_t) f->planes[0] & 15) == 0 && (f->pitch[0] & 15) == 0;
  int fmt = !aligned || yuv ? MOCT_FMT_ANY
      : f->format == CC_FORMAT_RGBX8 ? MOCT_FMT_RGBX : MOCT_FMT_BGRX;
  const int K = t->pixels_per_thread;
  const bool partials = t->layout == CC_MOCT_LAYOUT_PARTIALS;
  long long segs = (long long) cc_div_up (f->width, 32 * K) * f->height;
  long long want = (segs + MOCT_WARPS - 1) / MOCT_WARPS;
  // narrow accumulators (the default) where the band's sums fit 32 bits (every frame
  // up to 8K), else the 64-bit ones
  long long row_segs = cc_div_up (f->width, 32 * K);
  int blocks = (int) (want < s->max_blocks ? want : s->max_blocks);
  bool narrow = t->narrow_accumulators
      && moct_narrow_fits ((segs + blocks - 1) / blocks, row_segs, f->width);
  if (!narrow)
    blocks = (int) (want < s->max_blocks_wide ? want : s->max_blocks_wide);
  size_t smem = n * (narrow ? sizeof (moct_narrow) : sizeof (cc_moct_acc));
  if (!partials) {
    moct_clear_kernel<<<cc_div_up (n, 256), 256, 0, stream>>> (s->acc, n);
    CC_CUDA_LAUNCHED ("moct_clear_kernel");
  }
  reduce_kernel (K, fmt, narrow)<<<blocks, MOCT_THREADS, smem, stream>>> (*f,
      yuv ? s->lut_yuv : s->lut_rgb, n, partials, s->acc, s->partials, s->seen, s->tracks,
      p->window > 0);
  CC_CUDA_LAUNCHED ("moct_reduce_kernel");
  if (partials) {
    moct_partials_kernel<<<cc_div_up (n, 8), 256, 0, stream>>> (s->partials, s->seen, blocks,
        n, s->acc);
    CC_CUDA_LAUNCHED ("moct_partials_kernel");
  }
  moct_finalize_kernel<<<cc_div_up (n, 128), 128, 0, stream>>> (s->acc, n, frame, p->min_mass,
      p->window, cc_moct_ratio_fixed (p), f->width, f->height, s->history, s->tracks,
      s->records, s->rings);
  CC_CUDA_LAUNCHED ("moct_finalize_kernel");
  if (records) {
    size_t bytes = n * sizeof (cc_moct_record);
    CC_TRY (cc_cuda_copy_2d (s->stream, records, bytes, CC_LOCATION_HOST, s->records, bytes,
            CC_LOCATION_DEVICE, bytes, 1));
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_moct_get_ring (cc_cuda_moct *s, int object, cc_moct_sample *ring)
{
  size_t bytes = s->history * sizeof (cc_moct_sample);
  return cc_cuda_copy_2d (s->stream, ring, bytes, CC_LOCATION_HOST,
      s->rings + (size_t) object * s->history, bytes, CC_LOCATION_DEVICE, bytes, 1);
}

extern "C" cc_status
cc_cuda_moct_draw (cc_cuda_moct *s, cc_stream cs, cc_image *f, unsigned flags, long long frames,
    const cc_moct_colour *white)
{
  s->stream = cs;
  cudaStream_t stream = s->stream;
  const int n = s->n;
  if (n == 0)
    return CC_SUCCESS;
  bool yuv = f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
  if (flags & CC_MOCT_DRAW_MASK) {
    dim3 block (32, 8);
    if (yuv) {
      dim3 grid (cc_div_up ((f->width + 1) / 2, 32), cc_div_up ((f->height + 1) / 2, 8));
      moct_mask_block_kernel<<<grid, block, 0, stream>>> (*f, s->lut_yuv, s->colours, n);
    } else {
      dim3 grid (cc_div_up (f->width, 32), cc_div_up (f->height, 8));
      moct_mask_pixel_kernel<<<grid, block, 0, stream>>> (*f, s->lut_rgb, s->colours, n);
    }
    CC_CUDA_LAUNCHED ("moct_mask_kernel");
  }
  const unsigned lines = CC_MOCT_DRAW_TRAJECTORIES | CC_MOCT_DRAW_BOXES | CC_MOCT_DRAW_CENTROIDS;
  const bool labels = (flags & CC_MOCT_DRAW_LABELS) && s->label_width > 0;
  if (!(flags & lines) && !labels)
    return CC_SUCCESS;
  long long threads = (long long) n * cc_moct_primitive_count (s->history);
  unsigned grid = (unsigned) ((threads + 127) / 128);
  dim3 label_grid (cc_div_up (s->label_width * CC_TEXT_HEIGHT, 128), n);
  // every mark (lines and labels) before any paint
  for (int mode = MOCT_MARK; mode <= MOCT_CLEAR; mode++) {
    if (flags & lines) {
      moct_lines_kernel<<<grid, 128, 0, stream>>> (*f, mode, flags, n, s->history, frames,
          s->rings, s->records, s->colours, *white, s->keys);
      CC_CUDA_LAUNCHED ("moct_lines_kernel");
    }
    if (labels) {
      moct_labels_kernel<<<label_grid, 128, 0, stream>>> (*f, mode, n, frames, s->records,
          s->labels, s->colours, s->keys);
      CC_CUDA_LAUNCHED ("moct_labels_kernel");
    }
  }
  return CC_SUCCESS;
}
