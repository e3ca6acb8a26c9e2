/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-pixel confidence of cc_epic, shared by epic.c and kernels/epic.cu. */
#ifndef CUDACORE_EPIC_HOSTDEV_H
#define CUDACORE_EPIC_HOSTDEV_H

#include "cc_hostdev.h"
#include "blockmatch_hostdev.h"

/* Luma (0..255) of frame f at integer pixel (x, y), clamped to the frame. */
CC_HOSTDEV int
cc_epic_luma (const cc_image *f, int x, int y)
{
  x = cc_clampi (x, 0, f->width - 1);
  y = cc_clampi (y, 0, f->height - 1);
  const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  return cc_row_luma8 (row, x, f->format == CC_FORMAT_RGBX8, f->format == CC_FORMAT_BGRX8);
}

/* The method's confidence at pixel (x, y) from the interpolation's (c), the refined
 * vector (u, v) and the two frames: 0 when the vector leaves the frame (nothing there
 * to agree with), else c * exp (-(r / CC_EPIC_CONF_LUMA)^2), r the luma difference
 * between prev at the pixel and next at its target (bilinear): what an occluded pixel
 * (its point hidden in next) or a wrong vector shows. */
#define CC_EPIC_CONF_LUMA 16.0f

CC_HOSTDEV float
cc_epic_confidence (float c, float u, float v, int x, int y, const cc_image *prev,
    const cc_image *next)
{
  const int w = prev->width, h = prev->height;
  float tx = (float) x + u, ty = (float) y + v;
  if (!(tx >= 0.0f && ty >= 0.0f && tx <= (float) (w - 1) && ty <= (float) (h - 1)))
    return 0.0f;
  int x0 = (int) tx, y0 = (int) ty;
  float fx = tx - (float) x0, fy = ty - (float) y0;
  float a = (float) cc_epic_luma (next, x0, y0), b = (float) cc_epic_luma (next, x0 + 1, y0);
  float d = (float) cc_epic_luma (next, x0, y0 + 1), e = (float) cc_epic_luma (next, x0 + 1, y0 + 1);
  float top = a + fx * (b - a), bot = d + fx * (e - d);
  float r = (top + fy * (bot - top) - (float) cc_epic_luma (prev, x, y)) * (1.0f / CC_EPIC_CONF_LUMA);
  return c * expf (-r * r);
}

#endif
