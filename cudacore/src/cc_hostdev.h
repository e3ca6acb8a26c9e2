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

/* The four taps of a bilinear sample at (x, y) of a w x h grid, the position clamped
 * to the grid (the last row and column repeat). */
typedef struct cc_bilinear_taps {
  int x0, y0, x1, y1;
  float fx, fy;
} cc_bilinear_taps;

CC_HOSTDEV cc_bilinear_taps cc_bilinear_taps_at (float x, float y, int w, int h)
{
  cc_bilinear_taps t;
  x = cc_clampf (x, 0.0f, (float) (w - 1));
  y = cc_clampf (y, 0.0f, (float) (h - 1));
  t.x0 = (int) x;
  t.y0 = (int) y;
  t.x1 = t.x0 + 1 < w ? t.x0 + 1 : t.x0;
  t.y1 = t.y0 + 1 < h ? t.y0 + 1 : t.y0;
  t.fx = x - t.x0;
  t.fy = y - t.y0;
  return t;
}

/* The bilinear mix of the values at (x0,y0) a, (x1,y0) b, (x0,y1) c, (x1,y1) d. */
CC_HOSTDEV float cc_bilinear_mix (const cc_bilinear_taps *t, float a, float b, float c,
    float d)
{
  float top = a + t->fx * (b - a);
  float bot = c + t->fx * (d - c);
  return top + t->fy * (bot - top);
}

/* Bilinear sample of a packed float image (row pitch = w), position clamped to the
 * image: the sampler LK and the refinement share on both backends. */
CC_HOSTDEV float cc_bilinear (const float *img, int w, int h, float x, float y)
{
  cc_bilinear_taps t = cc_bilinear_taps_at (x, y, w, h);
  return cc_bilinear_mix (&t, img[t.y0 * w + t.x0], img[t.y0 * w + t.x1],
      img[t.y1 * w + t.x0], img[t.y1 * w + t.x1]);
}

/* Upsampling a flow field by two (LK and refine levels): the value at fine pixel
 * (x, y) is twice the bilinear sample of the coarse field (cw x ch) at (x/2, y/2);
 * the taps, then cc_upsample2 per component. */
CC_HOSTDEV cc_bilinear_taps cc_upsample2_taps (int x, int y, int cw, int ch)
{
  return cc_bilinear_taps_at (0.5f * x, 0.5f * y, cw, ch);
}

CC_HOSTDEV float cc_upsample2 (const cc_bilinear_taps *t, float a, float b, float c, float d)
{
  return 2.0f * cc_bilinear_mix (t, a, b, c, d);
}

/* Is the position (x, y) inside a w x h image? (a warped pixel outside has no data) */
CC_HOSTDEV int cc_inside (float x, float y, int w, int h)
{
  return x >= 0.0f && y >= 0.0f && x <= (float) (w - 1) && y <= (float) (h - 1);
}

/* ---- Luma (BT.601) of 8-bit R, G, B: the one formula of every module, with the
 * integer weights 77 150 29 (of 256). Integers give both backends the same bits
 * with no floating-point contraction to watch; the float pyramids (LK, refine)
 * scale the exact luma256 value. */

/* In 1/256 grey levels, unrounded: 0..65280. */
CC_HOSTDEV int cc_luma256 (int r, int g, int b)
{
  return 77 * r + 150 * g + 29 * b;
}

/* A luma256 value rounded to 8 bits. */
CC_HOSTDEV int cc_luma8_of (int luma256)
{
  return (luma256 + 128) >> 8;
}

/* luma256 of pixel x of a frame row: RGBX8, BGRX8, else a Y plane (GRAY8, NV12,
 * I420: the byte x 256). */
CC_HOSTDEV int cc_row_luma256 (const uint8_t *row, int x, int rgbx, int bgrx)
{
  if (rgbx)
    return cc_luma256 (row[4 * x], row[4 * x + 1], row[4 * x + 2]);
  if (bgrx)
    return cc_luma256 (row[4 * x + 2], row[4 * x + 1], row[4 * x]);
  return row[x] << 8;
}

/* The 8-bit luma of pixel x of a frame row. */
CC_HOSTDEV int cc_row_luma8 (const uint8_t *row, int x, int rgbx, int bgrx)
{
  return cc_luma8_of (cc_row_luma256 (row, x, rgbx, bgrx));
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
