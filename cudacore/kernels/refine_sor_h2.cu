/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Variational refinement on CUDA: the inner SOR sweeps in packed fp16 on register tiles
// (rf_sor_h2_kernel) and their launcher. refine.cu builds the linear systems they solve;
// refine_sor.cu holds the fp32 tiles this kernel follows.
#include "refine_sweeps.cuh"
#include <cuda_fp16.h>

// ------------------------------------------------------------------ half2 register tiles
//
// rf_sor_regs_kernel's tile (the same halo-based temporal blocking, red-black order,
// neighbours by shuffles, warps' edge rows through shared memory), with the sweeps in
// packed fp16: a thread's rows r and r + R/2 (R a multiple of 4, so both rows have the
// same neighbour pattern) share one half2 register per quantity, and one HFMA2 updates
// both cells (11.3 M instructions a level-0 launch at 1080p against 19.1 M). Each row
// equation is divided by a scale (256 at the default weights, rf_h2_scale), so that the
// weights s' = s / 256 stay under ~30 and neighbour sums far from fp16's 65504:
//   du <- (1 - omega) du + (omega 256 / diag_u) (rhs_u / 256 + sum s'_q du_q - a12 / 256 dv)
// (likewise dv with the new du): cc_refine_sor_step in another precision (11-bit
// significand) and summation order. 6 registers a cell pair (the right-hand sides wait
// in shared memory), 8 warps x 8 rows: 64 x 64 px tiles. The coefficient kernel stores
// the right-hand sides already scaled, in fp16 (rhs16); the increment travels in fp16
// between the launches of an outer iteration (IN16 / OUT16: what the kernel would round
// to anyway) and in fp32 into the first and out of the last. Loads in two batches
// (coefficients, then increments), converted in between: issued all at once they pushed
// the kernel past 128 registers and ptxas spilled inside the sweep loop.
//
// The kernel's stages are the __forceinline__ helpers below (one function body once
// inlined: every array index is a compile-time constant after unrolling, so the cells
// stay in registers and the arithmetic is the same instructions in the same order).

// A thread's cells: per row pair j (rows j and j + Q of the thread's R rows) and colour
// c, each a half2 of the two rows: the increments (D: du, V: dv), omega scale / diag
// (OU, OV), -a12 / scale (NA) and the weight s / scale (S).
template <int Q>
struct rf_h2_cells {
  __half2 D[Q][2], V[Q][2], OU[Q][2], OV[Q][2], NA[Q][2], S[Q][2];
};

// The tile's shared memory.
template <int TY, int Q>
struct rf_h2_shared {
  __half2 top[2][TY][32], bot[2][TY][32];   // (du, dv) of a warp's first / last row
  __half sbot[2][TY][32];                   // weight of its last row
  unsigned RR[Q][2][TY][32][2];             // right-hand sides (pairs: u, v)
  __half2 WL[Q][TY][32], WU[2][TY][32];     // left / up neighbours' weights
};

// The level cell (index g into the colour-split arrays) of row r, colour c of this
// thread; false (g = 0) outside the level.
template <int R>
__device__ __forceinline__ bool
rf_h2_cell (int w, int h, int hw, int ex0, int ey0, int xs, int r, int c, int *g)
{
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int gy = ey0 + ty * R + r, gx = ex0 + 2 * tx + ((r + c) & 1);
  const bool in = gy >= 0 && gy < h && gx >= 0 && gx < w;
  *g = in ? (c * h + gy) * hw + xs : 0;
  return in;
}

// Batch 0: the coefficients into registers, the right-hand sides into shared memory
// (zeros outside the level).
template <int TY, int R>
__device__ __forceinline__ void
rf_h2_load_coefficients (int w, int h, int hw, int ex0, int ey0, int xs,
    const uint2 *__restrict__ pk, const unsigned *__restrict__ rhs16, float oks,
    float inv_scale, rf_h2_cells<R / 2> &t, rf_h2_shared<TY, R / 2> &sm)
{
  constexpr int Q = R / 2;
  const int tx = threadIdx.x, ty = threadIdx.y;
  uint2 k[Q][2][2];
  unsigned b[Q][2][2];
#pragma unroll
  for (int j = 0; j < Q; j++)
#pragma unroll
    for (int c = 0; c < 2; c++)
#pragma unroll
      for (int p = 0; p < 2; p++) {
        int g;
        const bool in = rf_h2_cell<R> (w, h, hw, ex0, ey0, xs, j + p * Q, c, &g);
        k[j][c][p] = in ? __ldg (pk + g) : make_uint2 (0u, 0u);
        b[j][c][p] = in ? __ldg (rhs16 + g) : 0u;
      }
#pragma unroll
  for (int j = 0; j < Q; j++)
#pragma unroll
    for (int c = 0; c < 2; c++) {
      float f[2][4];
#pragma unroll
      for (int p = 0; p < 2; p++) {
        const uint2 q = k[j][c][p];
        // omega 256 / diag, kept under fp16's largest value (diag > 0.006 in practice)
        f[p][0] = fminf (oks * __uint_as_float (q.x << 16), 65000.0f);
        f[p][1] = fminf (oks * __uint_as_float (q.x & 0xFFFF0000u), 65000.0f);
        f[p][2] = -inv_scale * __uint_as_float (q.y << 16);        // -a12 / scale
        f[p][3] = inv_scale * __uint_as_float (q.y & 0xFFFF0000u); // s / scale
      }
      t.OU[j][c] = __floats2half2_rn (f[0][0], f[1][0]);
      t.OV[j][c] = __floats2half2_rn (f[0][1], f[1][1]);
      t.NA[j][c] = __floats2half2_rn (f[0][2], f[1][2]);
      t.S[j][c] = __floats2half2_rn (f[0][3], f[1][3]);
      // rhs16: (rhs_u / 256, rhs_v / 256) a cell -> (u of both rows), (v of both rows)
      __half2 b0 = *(__half2 *) &b[j][c][0], b1 = *(__half2 *) &b[j][c][1];
      __half2 ru = __lows2half2 (b0, b1), rv = __highs2half2 (b0, b1);
      sm.RR[j][c][ty][tx][0] = *(unsigned *) &ru;
      sm.RR[j][c][ty][tx][1] = *(unsigned *) &rv;
    }
}

// Batch 1: the increments (fp16 pairs with IN16, else fp32, rounded here).
template <int R, bool IN16>
__device__ __forceinline__ void
rf_h2_load_increments (int w, int h, int hw, int ex0, int ey0, int xs,
    const void *__restrict__ duv_in, rf_h2_cells<R / 2> &t)
{
  constexpr int Q = R / 2;
#pragma unroll
  for (int j = 0; j < Q; j++)
#pragma unroll
    for (int c = 0; c < 2; c++) {
      __half2 e[2];
#pragma unroll
      for (int p = 0; p < 2; p++) {
        int g;
        const bool in = rf_h2_cell<R> (w, h, hw, ex0, ey0, xs, j + p * Q, c, &g);
        if (IN16) {
          unsigned u = in ? ((const unsigned *) duv_in)[g] : 0u;
          e[p] = *(__half2 *) &u;
        } else {
          float2 d = in ? ((const float2 *) duv_in)[g] : make_float2 (0.0f, 0.0f);
          e[p] = __floats2half2_rn (d.x, d.y);
        }
      }
      t.D[j][c] = __lows2half2 (e[0], e[1]);
      t.V[j][c] = __highs2half2 (e[0], e[1]);
    }
}

// The weights and increments other warps and lanes need: a warp's first and last rows
// to shared memory, then the left weights (lane tx - 1, colour o = 1 - (j & 1) in pair
// j) and the up weights of pair 0 (rows -1 and Q - 1: the warp above's last row and
// this thread's row Q - 1). Synchronises the block.
template <int TY, int Q>
__device__ __forceinline__ void
rf_h2_share_edges (const rf_h2_cells<Q> &t, rf_h2_shared<TY, Q> &sm)
{
  const int tx = threadIdx.x, ty = threadIdx.y;
  const __half2 zero2 = __float2half2_rn (0.0f);
#pragma unroll
  for (int c = 0; c < 2; c++) {
    sm.top[c][ty][tx] = __halves2half2 (__low2half (t.D[0][c]), __low2half (t.V[0][c]));
    sm.bot[c][ty][tx] = __halves2half2 (__high2half (t.D[Q - 1][c]), __high2half (t.V[Q - 1][c]));
    sm.sbot[c][ty][tx] = __high2half (t.S[Q - 1][c]);
  }
  __syncthreads ();
#pragma unroll
  for (int j = 0; j < Q; j++) {
    const int o = 1 - (j & 1);
    __half2 v = __shfl_up_sync (0xFFFFFFFFu, t.S[j][o], 1);
    sm.WL[j][ty][tx] = tx > 0 ? v : zero2;
  }
#pragma unroll
  for (int c = 0; c < 2; c++)
    sm.WU[c][ty][tx] = __halves2half2 (ty > 0 ? sm.sbot[1 - c][ty - 1][tx] : __float2half (0.0f),
        __low2half (t.S[Q - 1][1 - c]));
}

// One half sweep: the cells of colour C from their neighbours of the other colour.
template <int C, int TY, int Q>
__device__ __forceinline__ void
rf_h2_half_sweep (rf_h2_cells<Q> &t, rf_h2_shared<TY, Q> &sm, __half2 om1)
{
  constexpr int o = 1 - C;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const __half2 zero2 = __float2half2_rn (0.0f);
  const bool last_lane = tx == 31;   // lane 31: no right neighbour (tile edge)
  const __half2 up = ty > 0 ? sm.bot[o][ty - 1][tx] : zero2;
  const __half2 dn = ty < TY - 1 ? sm.top[o][ty + 1][tx] : zero2;
#pragma unroll
  for (int j = 0; j < Q; j++) {
    const bool ph = ((j + C) & 1) != 0;
    const uint2 rr = *(const uint2 *) &sm.RR[j][C][ty][tx][0];
    __half2 nu = *(const __half2 *) &rr.x, nv = *(const __half2 *) &rr.y;
    const __half2 so = t.S[j][C];
    if (ph) {  // left: own other-colour cell; right: lane tx + 1
      nu = __hfma2 (t.S[j][o], t.D[j][o], nu); nv = __hfma2 (t.S[j][o], t.V[j][o], nv);
      const __half2 a = __shfl_down_sync (0xFFFFFFFFu, t.D[j][o], 1);
      const __half2 b = __shfl_down_sync (0xFFFFFFFFu, t.V[j][o], 1);
      const __half2 sr = last_lane ? zero2 : so;
      nu = __hfma2 (sr, a, nu); nv = __hfma2 (sr, b, nv);
    } else {   // left: lane tx - 1; right: own other-colour cell
      const __half2 a = __shfl_up_sync (0xFFFFFFFFu, t.D[j][o], 1);
      const __half2 b = __shfl_up_sync (0xFFFFFFFFu, t.V[j][o], 1);
      const __half2 wl = sm.WL[j][ty][tx];
      nu = __hfma2 (wl, a, nu); nv = __hfma2 (wl, b, nv);
      nu = __hfma2 (so, t.D[j][o], nu); nv = __hfma2 (so, t.V[j][o], nv);
    }
    if (j > 0) {
      const int jp = j > 0 ? j - 1 : 0;
      nu = __hfma2 (t.S[jp][o], t.D[jp][o], nu); nv = __hfma2 (t.S[jp][o], t.V[jp][o], nv);
    } else {
      const __half2 uu = __halves2half2 (__low2half (up), __low2half (t.D[Q - 1][o]));
      const __half2 uv = __halves2half2 (__high2half (up), __low2half (t.V[Q - 1][o]));
      const __half2 wu = sm.WU[C][ty][tx];
      nu = __hfma2 (wu, uu, nu); nv = __hfma2 (wu, uv, nv);
    }
    if (j < Q - 1) {
      const int jn = j < Q - 1 ? j + 1 : 0;
      nu = __hfma2 (so, t.D[jn][o], nu); nv = __hfma2 (so, t.V[jn][o], nv);
    } else {
      const __half2 du_ = __halves2half2 (__high2half (t.D[0][o]), __low2half (dn));
      const __half2 dv_ = __halves2half2 (__high2half (t.V[0][o]), __high2half (dn));
      nu = __hfma2 (so, du_, nu); nv = __hfma2 (so, dv_, nv);
    }
    nu = __hfma2 (t.NA[j][C], t.V[j][C], nu);
    t.D[j][C] = __hfma2 (t.OU[j][C], nu, __hmul2 (om1, t.D[j][C]));
    nv = __hfma2 (t.NA[j][C], t.D[j][C], nv);
    t.V[j][C] = __hfma2 (t.OV[j][C], nv, __hmul2 (om1, t.V[j][C]));
  }
  sm.top[C][ty][tx] = __halves2half2 (__low2half (t.D[0][C]), __low2half (t.V[0][C]));
  sm.bot[C][ty][tx] = __halves2half2 (__high2half (t.D[Q - 1][C]), __high2half (t.V[Q - 1][C]));
}

// The tile's interior (the halo of H px dropped) to duv_out: fp16 pairs with OUT16,
// else fp32.
template <int R, int H, int TH, int TW, bool OUT16>
__device__ __forceinline__ void
rf_h2_store (int w, int h, int hw, int ex0, int ey0, int xs, const rf_h2_cells<R / 2> &t,
    void *__restrict__ duv_out)
{
  constexpr int Q = R / 2;
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (2 * tx < H || 2 * tx >= H + TW)
    return;
#pragma unroll
  for (int j = 0; j < Q; j++) {
#pragma unroll
    for (int p = 0; p < 2; p++) {
      const int r = j + p * Q, ey = ty * R + r, gy = ey0 + ey;
      if (ey < H || ey >= H + TH || gy >= h)
        continue;
#pragma unroll
      for (int c = 0; c < 2; c++) {
        const int gx = ex0 + 2 * tx + ((r + c) & 1);
        if (gx >= w)
          continue;
        const int g = (c * h + gy) * hw + xs;
        const __half2 e = p ? __highs2half2 (t.D[j][c], t.V[j][c])
            : __lows2half2 (t.D[j][c], t.V[j][c]);
        if (OUT16)
          ((__half2 *) duv_out)[g] = e;
        else
          ((float2 *) duv_out)[g] = __half22float2 (e);
      }
    }
  }
}

template <int TY, int R, int H, bool IN16, bool OUT16>
__global__ void __launch_bounds__ (32 * TY, 2)
rf_sor_h2_kernel (int w, int h, int hw, const uint2 *__restrict__ pk,
    const unsigned *__restrict__ rhs16, const void *__restrict__ duv_in,
    void *__restrict__ duv_out, int sweeps, float omega, int flip, float scale)
{
  static_assert (R % 4 == 0, "R must be a multiple of 4");
  constexpr int Q = R / 2;                     // row pairs (j, j + Q)
  constexpr int EH = TY * R, TH = EH - 2 * H, TW = 64 - 2 * H;
  static_assert (TH % 2 == 0 && TW % 2 == 0 && H % 2 == 0 && TH > 0 && TW > 0, "even tile origin");
  __shared__ rf_h2_shared<TY, Q> sm;
  const int bx = flip ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int by = flip ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
  const int ex0 = bx * TW - H, ey0 = by * TH - H;
  const int xs = ex0 / 2 + (int) threadIdx.x;
  const float inv_scale = 1.0f / scale, oks = omega * scale;
  rf_h2_cells<Q> t;
  rf_h2_load_coefficients<TY, R> (w, h, hw, ex0, ey0, xs, pk, rhs16, oks, inv_scale, t, sm);
  asm volatile ("" ::: "memory");
  rf_h2_load_increments<R, IN16> (w, h, hw, ex0, ey0, xs, duv_in, t);
  rf_h2_share_edges<TY, Q> (t, sm);
  const __half2 om1 = __float2half2_rn (1.0f - omega);
  for (int k = 0; k < 2 * sweeps; k++) {
    if ((k & 1) == 0)
      rf_h2_half_sweep<0, TY, Q> (t, sm, om1);
    else
      rf_h2_half_sweep<1, TY, Q> (t, sm, om1);
    __syncthreads ();
  }
  rf_h2_store<R, H, TH, TW, OUT16> (w, h, hw, ex0, ey0, xs, t, duv_out);
}

cc_status
rf_sor_h2 (int halo, const rb_view &v, const void *in, void *out, bool in16, bool out16,
    int sweeps, float omega, cudaStream_t stream, int flip, float scale)
{
#define RF_H2(H, I, O) \
  rf_sor_h2_kernel<8, 8, H, I, O><<<dim3 (cc_div_up (v.w, 64 - 2 * (H)), \
      cc_div_up (v.h, 64 - 2 * (H))), dim3 (32, 8), 0, stream>>> (v.w, v.h, v.hw, \
      (const uint2 *) v.pk, (const unsigned *) v.rhs16, in, out, sweeps, omega, flip, scale)
#define RF_H2_IO(H) \
  if (in16 && out16) RF_H2 (H, true, true); \
  else if (in16) RF_H2 (H, true, false); \
  else if (out16) RF_H2 (H, false, true); \
  else RF_H2 (H, false, false);
  switch (halo) {
  case 4: RF_H2_IO (4) break;
  case 12: RF_H2_IO (12) break;
  default: RF_H2_IO (8) break;
  }
#undef RF_H2_IO
#undef RF_H2
  CC_CUDA_LAUNCHED ("rf_sor_h2_kernel");
  return CC_SUCCESS;
}
