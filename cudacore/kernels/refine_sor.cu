/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Variational refinement on CUDA: the inner SOR sweeps in fp32 on register tiles
// (rf_sor_regs_kernel) and their launcher. refine.cu builds the linear systems they solve.
#include "refine_sweeps.cuh"
#include "refine_hostdev.h"

// ------------------------------------------------------------------ fp32 register tiles
//
// The fp32 sweeps (cc_refine_tuning.precision FP32, and weights beyond what the fp16
// sweeps hold). Exact halo-based temporal blocking: a block owns an output tile plus an
// H px halo and makes up to H / 2 red-black sweeps on it, the result equal to as many
// global half-sweeps (after m half-sweeps only cells within m px of the tile's edge can
// be wrong). The increment lives in registers: a warp owns a 64 px wide strip (lane tx:
// the red and the black cell of pixel pair (2 tx, 2 tx + 1)), each thread R consecutive
// rows of it; the block stacks TY warps. Because the tile origin and R are even, the
// parity of a thread's row r is r's: the neighbour pattern of cell (r, c) is known at
// compile time. A cell's up / down neighbours are the thread's own registers (other
// colour, row r -+ 1), one horizontal neighbour is the thread's other-colour cell of the
// row, the other comes from lane tx -+ 1 by a shuffle; only a warp's first and last rows
// go through shared memory (one barrier per half-sweep). Missing neighbours (outside the
// level: zero cells, zero weights; outside the tile: the halo) add zero, so the
// half-sweep has no branches. Every thread updates its cells unconditionally: cells
// outside the level have zero coefficients, which cc_refine_sor_step leaves unchanged.
// Reads duv_in, writes duv_out (tiles' halos overlap their neighbours' outputs).
template <int TY, int R, int H>
__global__ void __launch_bounds__ (32 * TY, 2)   // 2 blocks an SM: <= 128 registers
rf_sor_regs_kernel (int w, int h, int hw, const uint2 *__restrict__ pk,
    const float2 *__restrict__ rhs, const float2 *__restrict__ duv_in,
    float2 *__restrict__ duv_out, int sweeps, float omega, int flip)
{
  static_assert (R % 2 == 0, "R must be even");
  constexpr int EH = TY * R, TH = EH - 2 * H, TW = 64 - 2 * H;
  static_assert (TH % 2 == 0 && TW % 2 == 0 && H % 2 == 0 && TH > 0 && TW > 0, "even tile origin");
  __shared__ float2 top[2][TY][32], bot[2][TY][32];
  __shared__ float sbot[2][TY][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // flip: tiles in reverse order (what the previous launch wrote last is still in L2)
  const int bx = flip ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int by = flip ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
  const int ex0 = bx * TW - H, ey0 = by * TH - H;
  const int xs = ex0 / 2 + tx;   // ex0 even
  float ki[R][2], kv[R][2], ru[R][2], rv[R][2], ka[R][2], s[R][2], du[R][2], dv[R][2];
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int gy = ey0 + ty * R + r;
#pragma unroll
    for (int c = 0; c < 2; c++) {
      const int gx = ex0 + 2 * tx + ((r + c) & 1);
      ki[r][c] = kv[r][c] = ru[r][c] = rv[r][c] = ka[r][c] = s[r][c] = du[r][c] = dv[r][c] = 0.0f;
      if (gy >= 0 && gy < h && gx >= 0 && gx < w) {
        const int g = (c * h + gy) * hw + xs;
        uint2 q = __ldg (pk + g);
        ki[r][c] = __uint_as_float (q.x << 16);
        kv[r][c] = __uint_as_float (q.x & 0xFFFF0000u);
        ka[r][c] = __uint_as_float (q.y << 16);
        s[r][c] = __uint_as_float (q.y & 0xFFFF0000u);
        float2 b = __ldg (rhs + g);
        ru[r][c] = b.x; rv[r][c] = b.y;
        float2 d = duv_in[g];
        du[r][c] = d.x; dv[r][c] = d.y;
      }
    }
  }
#pragma unroll
  for (int c = 0; c < 2; c++) {
    top[c][ty][tx] = make_float2 (du[0][c], dv[0][c]);
    bot[c][ty][tx] = make_float2 (du[R - 1][c], dv[R - 1][c]);
    sbot[c][ty][tx] = s[R - 1][c];
  }
  __syncthreads ();
  // weights of the neighbours held by other threads: left (lane tx - 1, for the
  // colour with ph = 0 in row r, i.e. c = r & 1) and up (warp ty - 1, row 0)
  float wl[R], wu[2];
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int c = r & 1, o = 1 - c;
    float v = __shfl_up_sync (0xFFFFFFFFu, s[r][o], 1);
    wl[r] = tx > 0 ? v : 0.0f;
  }
#pragma unroll
  for (int c = 0; c < 2; c++)
    wu[c] = ty > 0 ? sbot[1 - c][ty - 1][tx] : 0.0f;

  for (int k = 0; k < 2 * sweeps; k++) {
    const int c = k & 1;
    // the two colours as compile-time branches
#define RF_HALF(C)                                                                   \
    {                                                                                \
      constexpr int o = 1 - (C);                                                     \
      float2 up = ty > 0 ? bot[o][ty - 1][tx] : make_float2 (0.0f, 0.0f);            \
      float2 dn = ty < TY - 1 ? top[o][ty + 1][tx] : make_float2 (0.0f, 0.0f);       \
      _Pragma ("unroll")                                                             \
      for (int r = 0; r < R; r++) {                                                  \
        constexpr int dummy = 0; (void) dummy;                                       \
        const bool ph = ((r + (C)) & 1) != 0;                                        \
        float nu = 0.0f, nv = 0.0f;                                                  \
        /* left: (o, r, tx + ph - 1), weight its s */                                \
        if (ph) {                                                                    \
          nu += s[r][o] * du[r][o]; nv += s[r][o] * dv[r][o];                        \
        } else {                                                                     \
          float lu = __shfl_up_sync (0xFFFFFFFFu, du[r][o], 1);                      \
          float lv = __shfl_up_sync (0xFFFFFFFFu, dv[r][o], 1);                      \
          nu += wl[r] * lu; nv += wl[r] * lv;                                        \
        }                                                                            \
        /* right: (o, r, tx + ph), weight own s */                                   \
        const float so = s[r][(C)];                                                  \
        if (ph) {                                                                    \
          float ru_ = __shfl_down_sync (0xFFFFFFFFu, du[r][o], 1);                   \
          float rv_ = __shfl_down_sync (0xFFFFFFFFu, dv[r][o], 1);                   \
          const float sr = tx < 31 ? so : 0.0f;                                      \
          nu += sr * ru_; nv += sr * rv_;                                            \
        } else {                                                                     \
          nu += so * du[r][o]; nv += so * dv[r][o];                                  \
        }                                                                            \
        /* up: (o, r - 1, tx) */                                                     \
        if (r > 0) {                                                                 \
          nu += s[r > 0 ? r - 1 : 0][o] * du[r > 0 ? r - 1 : 0][o];                  \
          nv += s[r > 0 ? r - 1 : 0][o] * dv[r > 0 ? r - 1 : 0][o];                  \
        } else {                                                                     \
          nu += wu[(C)] * up.x; nv += wu[(C)] * up.y;                                \
        }                                                                            \
        /* down: (o, r + 1, tx), weight own s */                                     \
        if (r < R - 1) {                                                             \
          nu += so * du[r < R - 1 ? r + 1 : 0][o];                                   \
          nv += so * dv[r < R - 1 ? r + 1 : 0][o];                                   \
        } else {                                                                     \
          nu += so * dn.x; nv += so * dn.y;                                          \
        }                                                                            \
        cc_refine_sor_step (ki[r][(C)], kv[r][(C)], ka[r][(C)], ru[r][(C)],          \
            rv[r][(C)], nu, nv, omega, &du[r][(C)], &dv[r][(C)]);                    \
      }                                                                              \
      top[(C)][ty][tx] = make_float2 (du[0][(C)], dv[0][(C)]);                       \
      bot[(C)][ty][tx] = make_float2 (du[R - 1][(C)], dv[R - 1][(C)]);               \
    }
    if (c == 0)
      RF_HALF (0)
    else
      RF_HALF (1)
#undef RF_HALF
    __syncthreads ();
  }
  const int ey_first = H, ey_end = H + TH;
  if (2 * tx < H || 2 * tx >= H + TW)
    return;
#pragma unroll
  for (int r = 0; r < R; r++) {
    const int ey = ty * R + r, gy = ey0 + ey;
    if (ey < ey_first || ey >= ey_end || gy >= h)
      continue;
#pragma unroll
    for (int c = 0; c < 2; c++) {
      const int gx = ex0 + 2 * tx + ((r + c) & 1);
      if (gx < w)
        duv_out[(c * h + gy) * hw + xs] = make_float2 (du[r][c], dv[r][c]);
    }
  }
}

// The fp32 tiles: 8 warps x 6 rows, 64 x 48 px with the halo.
cc_status
rf_sor_regs (int halo, const rb_view &v, float2 *out, int sweeps, float omega,
    cudaStream_t stream, int flip)
{
#define RF_REGS(H) \
  rf_sor_regs_kernel<8, 6, H><<<dim3 (cc_div_up (v.w, 64 - 2 * (H)), \
      cc_div_up (v.h, 8 * 6 - 2 * (H))), dim3 (32, 8), 0, stream>>> (v.w, v.h, v.hw, \
      (const uint2 *) v.pk, (const float2 *) v.rhs, (const float2 *) v.duv, out, sweeps, \
      omega, flip)
  switch (halo) {
  case 4: RF_REGS (4); break;
  case 10: RF_REGS (10); break;
  case 12: RF_REGS (12); break;
  default: RF_REGS (8); break;
  }
#undef RF_REGS
  CC_CUDA_LAUNCHED ("rf_sor_regs_kernel");
  return CC_SUCCESS;
}
