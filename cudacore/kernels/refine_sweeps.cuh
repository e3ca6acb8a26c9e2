/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Private to the CUDA refinement (refine.cu, refine_sor.cu, refine_sor_h2.cu): a level's
// red-black split arrays (refine.cu's opening comment describes the layout) and the
// launchers of the inner SOR sweeps on register tiles, fp32 and packed fp16.
#pragma once
#include "cuda_common.cuh"

// One level's split arrays.
struct rb_view {
  int w, h, hw;
  float2 *wuv, *duv;
  uint2 *pk;                  // bf16 (1 / diag_u, 1 / diag_v), (a12, smooth weight)
  float2 *rhs;                // (rhs_u, rhs_v)
  unsigned *rhs16;            // fp16 (rhs_u, rhs_v) / scale
  uint4 *dh;                  // fp16 data terms (ix, iy, iz, ixx, ixy, iyy, ixz, iyz)
  float *lw;                  // local smoothness weight (cc_refine_local_weight); NULL at
                              // kappa 0, where it is 1 and neither written nor read
};

// The local smoothness weight of cell i (rb_view.lw).
static __device__ __forceinline__ float
rb_lw (const rb_view &v, int i)
{
  return v.lw ? v.lw[i] : 1.0f;
}

static __device__ __forceinline__ int
rb_index (const rb_view &v, int c, int y, int xs)
{
  return (c * v.h + y) * v.hw + xs;
}

// `sweeps` red-black sweeps of the fp32 register tiles (refine_sor.cu) at halo `halo`
// (4, 8, 10 or 12 px; others run as 8): reads v.duv, writes `out`.
cc_status rf_sor_regs (int halo, const rb_view &v, float2 *out, int sweeps, float omega,
    cudaStream_t stream, int flip);

// `sweeps` red-black sweeps of the packed fp16 register tiles (refine_sor_h2.cu) at halo
// `halo` (4, 8 or 12 px; others run as 8): reads `in` (fp16 pairs with in16, else fp32),
// writes `out` (fp16 pairs with out16, else fp32); `scale` is rf_h2_scale.
cc_status rf_sor_h2 (int halo, const rb_view &v, const void *in, void *out, bool in16,
    bool out16, int sweeps, float omega, cudaStream_t stream, int flip, float scale);
