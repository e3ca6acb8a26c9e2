/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small pure functions compiled both by the C compiler (CPU reference) and by nvcc
 * (kernels), so that per-pixel formulas are written once. Only scalar maths here:
 * the algorithms' structure (loops, tiling, reductions) stays separate per backend. */
#ifndef CUDACORE_CC_HOSTDEV_H
#define CUDACORE_CC_HOSTDEV_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define CC_HOSTDEV __host__ __device__ __forceinline__
#else
#define CC_HOSTDEV static inline
#endif

CC_HOSTDEV int cc_clampi (int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
CC_HOSTDEV float cc_clampf (float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Bilinear sample of a packed float image (row pitch = w), position clamped to the
 * image: the sampler LK and the refinement share on both backends. */
CC_HOSTDEV float cc_bilinear (const float *img, int w, int h, float x, float y)
{
  x = cc_clampf (x, 0.0f, (float) (w - 1));
  y = cc_clampf (y, 0.0f, (float) (h - 1));
  int x0 = (int) x, y0 = (int) y;
  int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
  float fx = x - x0, fy = y - y0;
  float top = img[y0 * w + x0] + fx * (img[y0 * w + x1] - img[y0 * w + x0]);
  float bot = img[y1 * w + x0] + fx * (img[y1 * w + x1] - img[y1 * w + x0]);
  return top + fy * (bot - top);
}

/* Luma (BT.601) in [0,1] of 8-bit R, G, B. */
CC_HOSTDEV float cc_luma01 (int r, int g, int b)
{
  return (0.299f * r + 0.587f * g + 0.114f * b) * (1.0f / 255.0f);
}

/* LK: is the warped position (x, y) inside a w x h image? (outside: no data) */
CC_HOSTDEV int cc_lk_inside (float x, float y, int w, int h)
{
  return x >= 0.0f && y >= 0.0f && x <= (float) (w - 1) && y <= (float) (h - 1);
}

/* Smallest eigenvalue of the symmetric 2x2 [a b; b c]. */
CC_HOSTDEV float cc_min_eigen_2x2 (float a, float b, float c)
{
  float half_trace = 0.5f * (a + c);
  float d = 0.5f * (a - c);
  return half_trace - sqrtf (d * d + b * b);
}

/* Solves [a b; b c] x = [p q]; returns 0 (x untouched) when singular. */
CC_HOSTDEV int cc_solve_2x2 (float a, float b, float c, float p, float q,
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

/* Middlebury colour wheel (Baker et al., "A Database and Evaluation Methodology
 * for Optical Flow", 2011): 55 hues, RY 15, YG 6, GC 4, CB 11, BM 13, MR 6.
 * (u, v) already divided by the maximum magnitude; writes 8-bit R, G, B. */
CC_HOSTDEV void cc_wheel_rgb (int k, float *r, float *g, float *b)
{
  /* segment lengths */
  const int RY = 15, YG = 6, GC = 4, CB = 11, BM = 13;
  if (k < RY) { *r = 255.f; *g = 255.f * k / RY; *b = 0.f; return; }
  k -= RY;
  if (k < YG) { *r = 255.f - 255.f * k / YG; *g = 255.f; *b = 0.f; return; }
  k -= YG;
  if (k < GC) { *r = 0.f; *g = 255.f; *b = 255.f * k / GC; return; }
  k -= GC;
  if (k < CB) { *r = 0.f; *g = 255.f - 255.f * k / CB; *b = 255.f; return; }
  k -= CB;
  if (k < BM) { *r = 255.f * k / BM; *g = 0.f; *b = 255.f; return; }
  k -= BM;
  { const int MR = 6; *r = 255.f; *g = 0.f; *b = 255.f - 255.f * k / MR; }
}

CC_HOSTDEV void cc_flow_color (float u, float v, uint8_t *out_r, uint8_t *out_g,
    uint8_t *out_b)
{
  const int ncols = 55;
  float rad = sqrtf (u * u + v * v);
  float a = atan2f (-v, -u) / 3.14159265358979f;
  float fk = (a + 1.0f) / 2.0f * (ncols - 1);
  int k0 = (int) fk;
  if (k0 < 0) k0 = 0;
  if (k0 > ncols - 1) k0 = ncols - 1;
  int k1 = (k0 + 1) % ncols;
  float f = fk - k0;
  float r0, g0, b0, r1, g1, b1;
  cc_wheel_rgb (k0, &r0, &g0, &b0);
  cc_wheel_rgb (k1, &r1, &g1, &b1);
  float c[3] = { ((1 - f) * r0 + f * r1) / 255.f, ((1 - f) * g0 + f * g1) / 255.f,
                 ((1 - f) * b0 + f * b1) / 255.f };
  for (int i = 0; i < 3; i++) {
    if (rad <= 1.0f)
      c[i] = 1.0f - rad * (1.0f - c[i]);   /* more saturated with magnitude */
    else
      c[i] *= 0.75f;                       /* out of range */
  }
  *out_r = (uint8_t) (255.f * c[0] + 0.5f);
  *out_g = (uint8_t) (255.f * c[1] + 0.5f);
  *out_b = (uint8_t) (255.f * c[2] + 0.5f);
}

/* Flow visualisation: is a cell with this confidence drawn? (invalid < 0 never;
 * with a positive min_confidence, only cells at or above it) */
CC_HOSTDEV int cc_flow_vis_drawn (float confidence, float min_confidence)
{
  return confidence >= 0.0f && (min_confidence <= 0.0f || confidence >= min_confidence);
}

/* BT.601 limited-range RGB -> YUV (for NV12 / I420 drawing). */
CC_HOSTDEV void cc_rgb_to_yuv (int r, int g, int b, uint8_t *y, uint8_t *u, uint8_t *v)
{
  float fy = 16.f + (65.481f * r + 128.553f * g + 24.966f * b) / 255.f;
  float fu = 128.f + (-37.797f * r - 74.203f * g + 112.0f * b) / 255.f;
  float fv = 128.f + (112.0f * r - 93.786f * g - 18.214f * b) / 255.f;
  *y = (uint8_t) cc_clampf (fy + 0.5f, 0.f, 255.f);
  *u = (uint8_t) cc_clampf (fu + 0.5f, 0.f, 255.f);
  *v = (uint8_t) cc_clampf (fv + 0.5f, 0.f, 255.f);
}

#endif
