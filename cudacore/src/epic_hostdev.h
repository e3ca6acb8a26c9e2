/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-pixel confidence of cc_epic, shared by epic.c and kernels/epic.cu. */
#ifndef CUDACORE_EPIC_HOSTDEV_H
#define CUDACORE_EPIC_HOSTDEV_H

#include "cc_hostdev.h"

/* Bilinear sample of one component of an interleaved F32C2 field (row pitch in
 * bytes), position clamped to the field. */
CC_HOSTDEV float
cc_epic_sample (const void *field, size_t pitch, int w, int h, float x, float y, int c)
{
  x = cc_clampf (x, 0.0f, (float) (w - 1));
  y = cc_clampf (y, 0.0f, (float) (h - 1));
  int x0 = (int) x, y0 = (int) y;
  int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
  float fx = x - (float) x0, fy = y - (float) y0;
  const float *r0 = (const float *) ((const uint8_t *) field + (size_t) y0 * pitch);
  const float *r1 = (const float *) ((const uint8_t *) field + (size_t) y1 * pitch);
  float top = r0[2 * x0 + c] + fx * (r0[2 * x1 + c] - r0[2 * x0 + c]);
  float bot = r1[2 * x0 + c] + fx * (r1[2 * x1 + c] - r1[2 * x0 + c]);
  return top + fy * (bot - top);
}

/* Forward-backward consistency of the vector (u, v) at pixel (x, y) with the backward
 * field: 0 when the target leaves the frame, else
 * exp (-|w + b|^2 / (0.01 (|w|^2 + |b|^2) + 0.5)), b the backward vector at the
 * target (the occlusion test of Sundaram et al., ECCV 2010, made soft). */
CC_HOSTDEV float
cc_epic_consistency (float u, float v, int x, int y, const void *back, size_t pitch, int w,
    int h)
{
  float tx = (float) x + u, ty = (float) y + v;
  if (!(tx >= 0.0f && ty >= 0.0f && tx <= (float) (w - 1) && ty <= (float) (h - 1)))
    return 0.0f;
  float bu = cc_epic_sample (back, pitch, w, h, tx, ty, 0);
  float bv = cc_epic_sample (back, pitch, w, h, tx, ty, 1);
  float eu = u + bu, ev = v + bv;
  float e2 = eu * eu + ev * ev;
  float tol = 0.01f * (u * u + v * v + bu * bu + bv * bv) + 0.5f;
  return expf (-e2 / tol);
}

#endif
