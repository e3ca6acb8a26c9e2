/* Several red-black SOR sweeps per launch (temporal blocking), written once for
 * kernels/refine.cu and for a CPU emulation in the tests (tests/core/test_refine.c
 * runs the same phases thread by thread and checks them against plain red-black
 * half-sweeps).
 *
 * A thread block owns an output tile of CC_RT_TW x CC_RT_TH pixels and loads the
 * tile plus a halo of CC_RT_HALO pixels into shared memory, in the same red /
 * black split layout as global memory (thread tx of a row owns the red and the
 * black cell of pixel pair (2 tx, 2 tx + 1): in a colour's half-sweep every
 * thread updates exactly one cell per row, no thread idles). The block then makes
 * `sweeps` red-then-black sweeps on its tile with __syncthreads between colours.
 * Halo cells miss their neighbours outside the tile, so after m half-sweeps the
 * cells within m of the tile's edge are wrong; with m <= 2 * (CC_RT_HALO / 2) the
 * output tile is exact: the result equals m global half-sweeps. The increment is
 * read from one buffer and written to another (tiles' halos overlap their
 * neighbours' outputs). Coefficients stay in registers for all sweeps. */
#ifndef CUDACORE_REFINE_TILE_H
#define CUDACORE_REFINE_TILE_H

#include "refine_hostdev.h"

#define CC_RT_TX 32                                 /* threads (cell pairs) per row */
#define CC_RT_TY 8                                  /* thread rows */
#define CC_RT_ROWS 6                                /* tile rows per thread */
#define CC_RT_EW (2 * CC_RT_TX)                     /* tile + halo width, px */
#define CC_RT_EH (CC_RT_TY * CC_RT_ROWS)            /* tile + halo height, px */
#define CC_RT_HALO 8
#define CC_RT_TW (CC_RT_EW - 2 * CC_RT_HALO)        /* output tile: 48 x 32 px */
#define CC_RT_TH (CC_RT_EH - 2 * CC_RT_HALO)
#define CC_RT_MAX_SWEEPS (CC_RT_HALO / 2)           /* full sweeps per launch */

typedef struct cc_rt_level {
  int w, h, hw;                                     /* hw = (w + 1) / 2 */
} cc_rt_level;

/* Per-thread coefficients: (diag_u, diag_v, rhs_u, rhs_v, a12) of its cells. */
typedef struct cc_rt_regs {
  float k[CC_RT_ROWS][2][5];
} cc_rt_regs;

/* The tile in shared memory, split by colour. */
typedef struct cc_rt_smem {
  float du[2][CC_RT_EH][CC_RT_TX], dv[2][CC_RT_EH][CC_RT_TX], s[2][CC_RT_EH][CC_RT_TX];
} cc_rt_smem;

/* Global cell index of colour c, row gy, split column xs. */
CC_HOSTDEV int
cc_rt_global (const cc_rt_level *L, int c, int gy, int xs)
{
  return (c * L->h + gy) * L->hw + xs;
}

/* Loads the thread's cells (zeros outside the level).
 * coef: 4 floats per cell (diag_u, diag_v, rhs_u, rhs_v); duv: 2 per cell. */
CC_HOSTDEV void
cc_rt_load (const cc_rt_level *L, int bx, int by, int tx, int ty, const float *coef,
    const float *a12, const float *smooth, const float *duv, cc_rt_regs *regs,
    cc_rt_smem *sm)
{
  const int ex0 = bx * CC_RT_TW - CC_RT_HALO, ey0 = by * CC_RT_TH - CC_RT_HALO;
#ifdef __CUDACC__
#pragma unroll
#endif
  for (int r = 0; r < CC_RT_ROWS; r++) {
    int ey = ty + CC_RT_TY * r, gy = ey0 + ey;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int c = 0; c < 2; c++) {
      int gx = ex0 + 2 * tx + ((gy + c) & 1);
      float k[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f }, s = 0.0f, du = 0.0f, dv = 0.0f;
      if (gy >= 0 && gy < L->h && gx >= 0 && gx < L->w) {
        int g = cc_rt_global (L, c, gy, ex0 / 2 + tx);
#ifdef __CUDA_ARCH__
        float4 q = __ldg ((const float4 *) coef + g);
        float2 d = ((const float2 *) duv)[g];
        k[0] = q.x; k[1] = q.y; k[2] = q.z; k[3] = q.w;
        du = d.x; dv = d.y;
#else
        for (int i = 0; i < 4; i++)
          k[i] = coef[4 * g + i];
        du = duv[2 * g];
        dv = duv[2 * g + 1];
#endif
        k[4] = a12[g];
        s = smooth[g];
      }
      for (int i = 0; i < 5; i++)
        regs->k[r][c][i] = k[i];
      sm->s[c][ey][tx] = s;
      sm->du[c][ey][tx] = du;
      sm->dv[c][ey][tx] = dv;
    }
  }
}

/* One half-sweep of colour c over the tile (the thread's cell in each of its rows).
 * Same neighbour order and formula as rf_sor_kernel. */
CC_HOSTDEV void
cc_rt_half_sweep (const cc_rt_level *L, int bx, int by, int tx, int ty, int c, float omega,
    const cc_rt_regs *regs, cc_rt_smem *sm)
{
  const int ex0 = bx * CC_RT_TW - CC_RT_HALO, ey0 = by * CC_RT_TH - CC_RT_HALO;
  const int o = 1 - c;
#ifdef __CUDACC__
#pragma unroll
#endif
  for (int r = 0; r < CC_RT_ROWS; r++) {
    int ey = ty + CC_RT_TY * r, gy = ey0 + ey;
    int ph = (gy + c) & 1;
    int gx = ex0 + 2 * tx + ph;
    if (gy < 0 || gy >= L->h || gx < 0 || gx >= L->w)
      continue;
    float s = sm->s[c][ey][tx], nu = 0.0f, nv = 0.0f;
    int lx = tx + ph - 1, rx = tx + ph;
    if (gx > 0 && lx >= 0) {
      float w = sm->s[o][ey][lx];
      nu += w * sm->du[o][ey][lx];
      nv += w * sm->dv[o][ey][lx];
    }
    if (gx + 1 < L->w && rx < CC_RT_TX) {
      nu += s * sm->du[o][ey][rx];
      nv += s * sm->dv[o][ey][rx];
    }
    if (gy > 0 && ey > 0) {
      float w = sm->s[o][ey - 1][tx];
      nu += w * sm->du[o][ey - 1][tx];
      nv += w * sm->dv[o][ey - 1][tx];
    }
    if (gy + 1 < L->h && ey + 1 < CC_RT_EH) {
      nu += s * sm->du[o][ey + 1][tx];
      nv += s * sm->dv[o][ey + 1][tx];
    }
    const float *k = regs->k[r][c];
    float du = sm->du[c][ey][tx], dv = sm->dv[c][ey][tx];
    cc_refine_sor_step (k[0], k[1], k[4], k[2], k[3], nu, nv, omega, &du, &dv);
    sm->du[c][ey][tx] = du;
    sm->dv[c][ey][tx] = dv;
  }
}

/* Writes the thread's cells that lie in the output tile. */
CC_HOSTDEV void
cc_rt_store (const cc_rt_level *L, int bx, int by, int tx, int ty, const cc_rt_smem *sm,
    float *duv)
{
  const int ex0 = bx * CC_RT_TW - CC_RT_HALO, ey0 = by * CC_RT_TH - CC_RT_HALO;
  if (2 * tx < CC_RT_HALO || 2 * tx >= CC_RT_HALO + CC_RT_TW)
    return;
#ifdef __CUDACC__
#pragma unroll
#endif
  for (int r = 0; r < CC_RT_ROWS; r++) {
    int ey = ty + CC_RT_TY * r, gy = ey0 + ey;
    if (ey < CC_RT_HALO || ey >= CC_RT_HALO + CC_RT_TH || gy >= L->h)
      continue;
    for (int c = 0; c < 2; c++) {
      int gx = ex0 + 2 * tx + ((gy + c) & 1);
      if (gx >= L->w)
        continue;
      int g = cc_rt_global (L, c, gy, ex0 / 2 + tx);
      duv[2 * g] = sm->du[c][ey][tx];
      duv[2 * g + 1] = sm->dv[c][ey][tx];
    }
  }
}

#endif
