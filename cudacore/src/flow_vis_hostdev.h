/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-pixel formulas of the flow visualisation, shared by flow_vis.c (CPU reference)
 * and kernels/flow_vis.cu: the colour of a vector, which cells are drawn, and how an
 * RGB colour is written into a frame of each format. */
#ifndef CUDACORE_FLOW_VIS_HOSTDEV_H
#define CUDACORE_FLOW_VIS_HOSTDEV_H

#include "cc_hostdev.h"
#include "cudacore/cc_core.h"

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

/* Writes the colour (r, g, b) at pixel (x, y) of f: RGBX8 / BGRX8 as is, GRAY8 its
 * luma, NV12 / I420 its YUV (the chroma by the top-left pixel of each 2x2 block). */
CC_HOSTDEV void cc_vis_put_rgb (const cc_image *f, int x, int y, uint8_t r, uint8_t g,
    uint8_t b)
{
  uint8_t *row = (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  if (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) {
    int bgr = f->format == CC_FORMAT_BGRX8;
    row[4 * x] = bgr ? b : r;
    row[4 * x + 1] = g;
    row[4 * x + 2] = bgr ? r : b;
    return;
  }
  if (f->format == CC_FORMAT_GRAY8) {
    row[x] = (uint8_t) cc_luma8_of (cc_luma256 (r, g, b));
    return;
  }
  uint8_t Y, U, V;
  cc_rgb_to_yuv (r, g, b, &Y, &U, &V);
  row[x] = Y;
  if ((x & 1) || (y & 1))
    return;
  uint8_t *c1 = (uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
  if (f->format == CC_FORMAT_NV12) {
    c1[x] = U;          /* (x/2)*2 == x for even x */
    c1[x + 1] = V;
  } else {
    c1[x / 2] = U;
    ((uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2])[x / 2] = V;
  }
}

#endif
