/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-pixel formulas of the variational refinement, shared by refine.c (CPU
 * reference) and its CUDA twin (kernels/refine.cu, refine_sor.cu), so that both
 * minimise the same energy. */
#ifndef CUDACORE_REFINE_HOSTDEV_H
#define CUDACORE_REFINE_HOSTDEV_H

#include "cc_hostdev.h"

/* Charbonnier constants (intensities in 0..255, as DIS). */
#define CC_REFINE_EPS2 (1e-6f)    /* eps^2, eps = 0.001 */
#define CC_REFINE_ZETA2 (1e-2f)   /* zeta^2 of the data normalisations, zeta = 0.1 */

/* The eight linearised data terms of one pixel, from frame 1 at p and frame 2 at
 * p + w (averaged first and second derivatives, as EpicFlow): brightness
 * constancy Ix du + Iy dv + Iz, gradient constancy (Ixx du + Ixy dv + Ixz,
 * Ixy du + Iyy dv + Iyz). All zero where p + w leaves frame 2 (no data). */
typedef struct cc_refine_data {
  float ix, iy, iz, ixx, ixy, iyy, ixz, iyz;
} cc_refine_data;

/* Central-difference derivatives from a 3x3 neighbourhood n[dy + 1][dx + 1]. */
CC_HOSTDEV void
cc_refine_derivs (const float n[3][3], float *dx, float *dy, float *dxx, float *dxy,
    float *dyy)
{
  *dx = 0.5f * (n[1][2] - n[1][0]);
  *dy = 0.5f * (n[2][1] - n[0][1]);
  *dxx = n[1][2] - 2.0f * n[1][1] + n[1][0];
  *dyy = n[2][1] - 2.0f * n[1][1] + n[0][1];
  *dxy = 0.25f * (n[2][2] - n[2][0] - n[0][2] + n[0][0]);
}

/* Data terms from frame 1's and warped frame 2's 3x3 neighbourhoods. */
CC_HOSTDEV void
cc_refine_data_terms (const float n0[3][3], const float n1[3][3], int valid,
    cc_refine_data *d)
{
  float x0, y0, xx0, xy0, yy0, x1, y1, xx1, xy1, yy1;
  cc_refine_derivs (n0, &x0, &y0, &xx0, &xy0, &yy0);
  cc_refine_derivs (n1, &x1, &y1, &xx1, &xy1, &yy1);
  float k = valid ? 1.0f : 0.0f;
  d->ix = k * 0.5f * (x0 + x1);
  d->iy = k * 0.5f * (y0 + y1);
  d->iz = k * (n1[1][1] - n0[1][1]);
  d->ixx = k * 0.5f * (xx0 + xx1);
  d->ixy = k * 0.5f * (xy0 + xy1);
  d->iyy = k * 0.5f * (yy0 + yy1);
  d->ixz = k * (x1 - x0);
  d->iyz = k * (y1 - y0);
}

/* Normalised squared residuals of the brightness and gradient terms at (du, dv). */
CC_HOSTDEV void
cc_refine_residuals (const cc_refine_data *d, float du, float dv, float *rc, float *rg)
{
  float bc = 1.0f / (d->ix * d->ix + d->iy * d->iy + CC_REFINE_ZETA2);
  float bx = 1.0f / (d->ixx * d->ixx + d->ixy * d->ixy + CC_REFINE_ZETA2);
  float by = 1.0f / (d->ixy * d->ixy + d->iyy * d->iyy + CC_REFINE_ZETA2);
  float ec = d->ix * du + d->iy * dv + d->iz;
  float ex = d->ixx * du + d->ixy * dv + d->ixz;
  float ey = d->ixy * du + d->iyy * dv + d->iyz;
  *rc = bc * ec * ec;
  *rg = bx * ex * ex + by * ey * ey;
}

/* Data energy of one pixel. */
CC_HOSTDEV float
cc_refine_data_energy (const cc_refine_data *d, float du, float dv, float color_weight,
    float gradient_weight)
{
  float rc, rg;
  cc_refine_residuals (d, du, dv, &rc, &rg);
  return color_weight * sqrtf (rc + CC_REFINE_EPS2) + gradient_weight * sqrtf (rg + CC_REFINE_EPS2);
}

/* Lagged (fixed-point) quadratic system of one pixel's data term at (du, dv):
 * minimising a11 du^2 + 2 a12 du dv + a22 dv^2 - 2 b1 du - 2 b2 dv. */
CC_HOSTDEV void
cc_refine_data_system (const cc_refine_data *d, float du, float dv, float color_weight,
    float gradient_weight, float *a11, float *a12, float *a22, float *b1, float *b2)
{
  float bc = 1.0f / (d->ix * d->ix + d->iy * d->iy + CC_REFINE_ZETA2);
  float bx = 1.0f / (d->ixx * d->ixx + d->ixy * d->ixy + CC_REFINE_ZETA2);
  float by = 1.0f / (d->ixy * d->ixy + d->iyy * d->iyy + CC_REFINE_ZETA2);
  float rc, rg;
  cc_refine_residuals (d, du, dv, &rc, &rg);
  /* Psi'(s) = 1 / (2 sqrt(s + eps^2)) */
  float kc = color_weight * bc * 0.5f / sqrtf (rc + CC_REFINE_EPS2);
  float kg = gradient_weight * 0.5f / sqrtf (rg + CC_REFINE_EPS2);
  float gx = kg * bx, gy = kg * by;
  *a11 = kc * d->ix * d->ix + gx * d->ixx * d->ixx + gy * d->ixy * d->ixy;
  *a12 = kc * d->ix * d->iy + gx * d->ixx * d->ixy + gy * d->ixy * d->iyy;
  *a22 = kc * d->iy * d->iy + gx * d->ixy * d->ixy + gy * d->iyy * d->iyy;
  *b1 = -(kc * d->ix * d->iz + gx * d->ixx * d->ixz + gy * d->ixy * d->iyz);
  *b2 = -(kc * d->iy * d->iz + gx * d->ixy * d->ixz + gy * d->iyy * d->iyz);
}

/* Smoothness: the pixel's Charbonnier term on the forward differences of the
 * refined field (u + du, v + dv), times the pixel's local weight (1 with kappa 0;
 * cc_refine_local_weight); its lagged weight weights both forward edges. */
CC_HOSTDEV float
cc_refine_smooth_energy (float grad2, float smoothness_weight, float local)
{
  return smoothness_weight * local * sqrtf (grad2 + CC_REFINE_EPS2);
}

CC_HOSTDEV float
cc_refine_smooth_weight (float grad2, float smoothness_weight, float local)
{
  return smoothness_weight * local * 0.5f / sqrtf (grad2 + CC_REFINE_EPS2);
}

/* Local smoothness weight of a pixel (DeepFlow / EpicFlow): exp(-kappa |grad I|),
 * |grad I| the central-difference gradient of frame 1's luma at that level (the
 * presmoothed luma at level 0) in units of the full range (luma / 255): smoothing is
 * weaker across image edges. n: frame 1's 3x3 neighbourhood (borders replicated), as
 * the data terms read it. kappa 0: exactly 1. */
CC_HOSTDEV float
cc_refine_local_weight (const float n[3][3], float kappa)
{
  if (kappa <= 0.0f)
    return 1.0f;
  float gx = 0.5f * (n[1][2] - n[1][0]), gy = 0.5f * (n[2][1] - n[0][1]);
  return expf (-kappa * (1.0f / 255.0f) * sqrtf (gx * gx + gy * gy));
}

/* Presmoothing of level 0's luma (cc_refine_params.presmooth_sigma): a Gaussian of
 * sigma truncated at radius ceil(2 sigma) (at most CC_REFINE_PRESMOOTH_RADIUS), taps
 * normalised to sum 1. Returns the radius (0: sigma 0, no smoothing); k[0..2 rad]. */
#define CC_REFINE_PRESMOOTH_RADIUS 6
CC_HOSTDEV int
cc_refine_presmooth_taps (float sigma, float k[2 * CC_REFINE_PRESMOOTH_RADIUS + 1])
{
  if (!(sigma > 0.0f)) {
    k[0] = 1.0f;
    return 0;
  }
  int rad = (int) ceilf (2.0f * sigma);
  if (rad > CC_REFINE_PRESMOOTH_RADIUS)
    rad = CC_REFINE_PRESMOOTH_RADIUS;
  float sum = 0.0f;
  for (int i = -rad; i <= rad; i++) {
    k[i + rad] = expf (-0.5f * (float) (i * i) / (sigma * sigma));
    sum += k[i + rad];
  }
  for (int i = 0; i <= 2 * rad; i++)
    k[i] /= sum;
  return rad;
}

/* The presmoothed value of pixel (x, y) of a w x h image (borders replicated): each
 * row's taps summed first, then the rows (the same order on both backends). */
CC_HOSTDEV float
cc_refine_presmooth_at (const float *src, int w, int h, int x, int y, const float *k, int rad)
{
  float s = 0.0f;
  for (int i = -rad; i <= rad; i++) {
    const float *row = src + (size_t) cc_clampi (y + i, 0, h - 1) * w;
    float r = 0.0f;
    for (int j = -rad; j <= rad; j++)
      r += k[j + rad] * row[cc_clampi (x + j, 0, w - 1)];
    s += k[i + rad] * r;
  }
  return s;
}

/* 1 / diagonal of a pixel's row (0 for a singular row, which keeps its value). */
CC_HOSTDEV float
cc_refine_inverse_diag (float diag)
{
  return diag > 1e-12f ? 1.0f / diag : 0.0f;
}

/* One SOR step of a pixel (du first, then dv with the new du).
 * inv_u = 1 / (a11 + sum w), rhs_u = b1 + sum w (u_q - u_p) (likewise v);
 * nbr_du = sum w du_q over the neighbours. */
CC_HOSTDEV void
cc_refine_sor_step (float inv_u, float inv_v, float a12, float rhs_u, float rhs_v,
    float nbr_du, float nbr_dv, float omega, float *du, float *dv)
{
  if (inv_u > 0.0f)
    *du = (1.0f - omega) * *du + omega * (rhs_u + nbr_du - a12 * *dv) * inv_u;
  if (inv_v > 0.0f)
    *dv = (1.0f - omega) * *dv + omega * (rhs_v + nbr_dv - a12 * *du) * inv_v;
}

/* Luma 0..255 of pixel x of a frame row (GRAY8 / NV12 / I420 use the Y plane). */
CC_HOSTDEV float
cc_refine_luma255 (const uint8_t *row, int x, int format_rgbx, int format_bgrx)
{
  return (float) cc_row_luma256 (row, x, format_rgbx, format_bgrx) * (1.0f / 256.0f);
}

#endif
