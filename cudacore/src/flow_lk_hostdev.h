/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-pixel formulas of pyramidal Lucas-Kanade, shared by flow_lk.c (CPU reference)
 * and kernels/flow_lk.cu: the luma of level 0, the gradient, the products of the
 * normal equations and the solve of one window. */
#ifndef CUDACORE_FLOW_LK_HOSTDEV_H
#define CUDACORE_FLOW_LK_HOSTDEV_H

#include "cc_hostdev.h"
#include "cudacore/cc_flow_lk.h"

/* Level 0: the luma of pixel x of a frame row in [0,1]. */
CC_HOSTDEV float cc_lk_luma01 (const uint8_t *row, int x, int rgbx, int bgrx)
{
  return (float) cc_row_luma256 (row, x, rgbx, bgrx) * (1.0f / 65280.0f);
}

/* The gradient's 3x3 weights: smoothing s (the corners), centre c. Scharr
 * (3 10 3)/32, Sobel (1 2 1)/8. */
CC_HOSTDEV void cc_lk_gradient_weights (cc_gradient kind, float *s, float *c)
{
  *s = kind == CC_GRADIENT_SCHARR ? 3.f / 32.f : 1.f / 8.f;
  *c = kind == CC_GRADIENT_SCHARR ? 10.f / 32.f : 2.f / 8.f;
}

/* The gradient from a pixel's eight neighbours (n: the row above, s: below; w:
 * the column left, e: right). */
CC_HOSTDEV void cc_lk_gradient (float ws, float wc, float nw, float n, float ne, float w,
    float e, float sw, float s, float se, float *gx, float *gy)
{
  *gx = ws * (ne - nw) + wc * (e - w) + ws * (se - sw);
  *gy = ws * (sw - nw) + wc * (s - n) + ws * (se - ne);
}

/* The five products of a pixel for the normal equations G c = sum g (g.F - It),
 * with gradient (gx, gy), field (u, v) and temporal difference it (the linearised
 * residual of a window flow c is It + g.(c - F)). */
CC_HOSTDEV void cc_lk_products (float gx, float gy, float u, float v, float it, float p[5])
{
  float r = gx * u + gy * v - it;
  p[0] = gx * gx;
  p[1] = gx * gy;
  p[2] = gy * gy;
  p[3] = gx * r;
  p[4] = gy * r;
}

/* Smallest eigenvalue of the symmetric 2x2 [a b; b c]. */
CC_HOSTDEV float cc_lk_min_eigen_2x2 (float a, float b, float c)
{
  float half_trace = 0.5f * (a + c);
  float d = 0.5f * (a - c);
  return half_trace - sqrtf (d * d + b * b);
}

/* Solves [a b; b c] x = [p q]; returns 0 (x untouched) when singular. */
CC_HOSTDEV int cc_lk_solve_2x2 (float a, float b, float c, float p, float q,
    float *x0, float *x1)
{
  float det = a * c - b * b;
  if (!(fabsf (det) > 1e-20f))
    return 0;
  float inv = 1.0f / det;
  *x0 = (c * p - b * q) * inv;
  *x1 = (a * q - b * p) * inv;
  return 1;
}

/* One window: its five product sums S, averaged (inv_n = 1 / pixels), solved for
 * (u, v) when the smallest eigenvalue reaches min_eigen_threshold (else (u, v) stay);
 * returns the confidence (that eigenvalue, 0 when not positive). */
CC_HOSTDEV float cc_lk_solve_window (const float S[5], float inv_n, float min_eigen_threshold,
    float *u, float *v)
{
  float a = S[0] * inv_n, b = S[1] * inv_n, c = S[2] * inv_n;
  float p = S[3] * inv_n, q = S[4] * inv_n;
  float min_eig = cc_lk_min_eigen_2x2 (a, b, c);
  if (min_eig >= min_eigen_threshold && min_eig > 0.0f)
    cc_lk_solve_2x2 (a, b, c, p, q, u, v);
  return min_eig > 0.0f ? min_eig : 0.0f;
}

#endif
