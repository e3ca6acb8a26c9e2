/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-pixel and per-site steps of CVD shared by cvd.c (CPU reference) and
 * kernels/cvd.cu: density, distances, the JFA pass of one pixel, the site update,
 * the cell colours and the rendering of one pixel. Integers only (but the flow
 * vector of advection, rounded alike by both compilers), so both backends give the
 * same bits. */
#ifndef CUDACORE_CVD_HOSTDEV_H
#define CUDACORE_CVD_HOSTDEV_H

#include "cc_hostdev.h"
#include "cvd_internal.h"

#define CC_CVD_NONE 0x7FFFFFFF   /* no label yet (JFA) */

/* Luma of pixel (x, y) of a frame. */
CC_HOSTDEV int
cc_cvd_luma (const cc_image *f, int x, int y)
{
  const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  return cc_row_luma8 (row, x, f->format == CC_FORMAT_RGBX8, f->format == CC_FORMAT_BGRX8);
}

/* Density of pixel (x, y) (see cc_cvd.h). */
CC_HOSTDEV uint16_t
cc_cvd_density_at (const cc_image *f, int method, int x, int y)
{
  if (method == CC_CVD_DENSITY_UNIFORM)
    return 256;
  if (method == CC_CVD_DENSITY_DARK)
    return (uint16_t) (1 + 256 * (255 - cc_cvd_luma (f, x, y)));
  if (method == CC_CVD_DENSITY_BRIGHT)
    return (uint16_t) (1 + 256 * cc_cvd_luma (f, x, y));
  int w = f->width, h = f->height;
  int xm = x > 0 ? x - 1 : 0, xp = x + 1 < w ? x + 1 : x;
  int ym = y > 0 ? y - 1 : 0, yp = y + 1 < h ? y + 1 : y;
  int a = cc_cvd_luma (f, xm, ym), b = cc_cvd_luma (f, x, ym), c = cc_cvd_luma (f, xp, ym);
  int d = cc_cvd_luma (f, xm, y), e = cc_cvd_luma (f, xp, y);
  int g = cc_cvd_luma (f, xm, yp), hh = cc_cvd_luma (f, x, yp), i = cc_cvd_luma (f, xp, yp);
  int gx = (c + 2 * e + i) - (a + 2 * d + g);
  int gy = (g + 2 * hh + i) - (a + 2 * b + c);
  int m = ((gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy)) / 4;
  return (uint16_t) (1 + 256 * (m > 255 ? 255 : m));
}

/* Squared distance of pixel (x, y) to a site, in (1/256 px)^2. */
CC_HOSTDEV long long
cc_cvd_dist2 (int x, int y, cc_cvd_site s)
{
  /* |256 x - sx| < 2^31 for any frame the API takes: 32-bit differences, 64-bit
   * products (one wide multiply each on the GPU) */
  int dx = x * CC_CVD_ONE - s.x, dy = y * CC_CVD_ONE - s.y;
  return (long long) dx * dx + (long long) dy * dy;
}

/* Rounded pixel of a site. */
CC_HOSTDEV int
cc_cvd_round_px (int32_t v)
{
  return (v + CC_CVD_ONE / 2) >> CC_CVD_FRAC_BITS;
}

/* Smallest JFA step: 2^(ceil(log2 max(w, h)) - 1), 0 for a 1x1 frame. */
CC_HOSTDEV int
cc_cvd_jfa_first_step (int w, int h)
{
  int m = w > h ? w : h, p = 1;
  while (p < m)
    p <<= 1;
  return p / 2;
}

#define CC_CVD_JFA_MAX_STEPS 40

/* The steps of the JFA passes of a method, in order (the CPU twin and the kernels
 * run exactly these); returns their count. JFA: K, K/2, .., 1 with K the first
 * step; 1+JFA: 1 first; 1+JFA+2: 1, K .. 1, then 2, 1. */
CC_HOSTDEV int
cc_cvd_jfa_steps (int w, int h, int method, int steps[CC_CVD_JFA_MAX_STEPS])
{
  int m = 0;
  if (method == CC_CVD_VORONOI_JFA_1PLUS || method == CC_CVD_VORONOI_JFA_1PLUS_2)
    steps[m++] = 1;
  for (int k = cc_cvd_jfa_first_step (w, h); k >= 1; k /= 2)
    steps[m++] = k;
  if (method == CC_CVD_VORONOI_JFA_1PLUS_2) {
    steps[m++] = 2;
    steps[m++] = 1;
  }
  return m;
}

/* Warm start. When the labels of the last Voronoi step are still at hand and no site
 * has moved by more than CC_CVD_WARM_MAX (|dx| + |dy|, 1/256 px) since, the next
 * Voronoi step starts from those labels (each site re-seeding its own pixel) and runs
 * only the last passes of its schedule, from index cc_cvd_jfa_warm_first: the tail
 * (2, 1, 2, 1) or (4, 2, 1, 2, 1) of 1+JFA+2. The index is even, so the passes that
 * run read and write the same ping-pong buffers as in the full schedule. */
#define CC_CVD_WARM_MAX (2 * CC_CVD_ONE)

CC_HOSTDEV int
cc_cvd_jfa_warm_first (int m)
{
  int f = m - 4;
  return f <= 0 ? 0 : f & ~1;
}

/* One JFA pass of step k at pixel (x, y): the nearest of the labels at the pixel and
 * its 8 neighbours at +-k (lowest id on equal distances). */
CC_HOSTDEV int32_t
cc_cvd_jfa_pixel (const int32_t *in, const cc_cvd_site *sites, int n, int w, int h,
    int x, int y, int k)
{
  int32_t best = CC_CVD_NONE;
  long long bd = 0;
  for (int dy = -1; dy <= 1; dy++) {
    int qy = y + dy * k;
    if (qy < 0 || qy >= h)
      continue;
    for (int dx = -1; dx <= 1; dx++) {
      int qx = x + dx * k;
      if (qx < 0 || qx >= w)
        continue;
      int32_t l = in[(size_t) qy * w + qx];
      if (l >= n || l == best)
        continue;
      long long d = cc_cvd_dist2 (x, y, sites[l]);
      if (best == CC_CVD_NONE || d < bd || (d == bd && l < best)) {
        best = l;
        bd = d;
      }
    }
  }
  return best;
}

/* Moves a site to the centroid of its sums, rounded to the nearest 1/256 px (half
 * up); a site without mass stays. Returns |dx| + |dy|. */
CC_HOSTDEV unsigned
cc_cvd_update_site (cc_cvd_site *s, const cc_cvd_sums *a)
{
  if (a->w == 0)
    return 0;
  /* q + r / w exactly; only the remainder is scaled, so nothing overflows */
  uint64_t qx = a->x / a->w, rx = a->x % a->w, qy = a->y / a->w, ry = a->y % a->w;
  int32_t nx = (int32_t) (qx * CC_CVD_ONE + (rx * CC_CVD_ONE + a->w / 2) / a->w);
  int32_t ny = (int32_t) (qy * CC_CVD_ONE + (ry * CC_CVD_ONE + a->w / 2) / a->w);
  unsigned d = (unsigned) ((nx > s->x ? nx - s->x : s->x - nx)
      + (ny > s->y ? ny - s->y : s->y - ny));
  s->x = nx;
  s->y = ny;
  return d;
}

/* The flow vector of pixel (x, y) in 1/256 px, floor (256 u + 0.5) (the product is
 * exact in float, so both compilers round alike); 0 when the vector is not finite or
 * longer than 16384 px in x or y (the pixel then does not count). */
CC_HOSTDEV int
cc_cvd_flow_px (const cc_image *flow, int x, int y, long long *qu, long long *qv)
{
  const float *uv = (const float *) ((const uint8_t *) flow->planes[0]
      + (size_t) y * flow->pitch[0]) + 2 * x;
  float u = uv[0], v = uv[1];
  if (!isfinite (u) || !isfinite (v) || fabsf (u) > 16384.0f || fabsf (v) > 16384.0f)
    return 0;
  *qu = (long long) floorf (u * (float) CC_CVD_ONE + 0.5f);
  *qv = (long long) floorf (v * (float) CC_CVD_ONE + 0.5f);
  return 1;
}

/* floor ((2 sum + n) / (2 n)): the mean sum / n rounded half up, n > 0. */
CC_HOSTDEV long long
cc_cvd_round_mean (long long sum, long long n)
{
  long long num = 2 * sum + n, den = 2 * n, q = num / den;
  return num % den < 0 ? q - 1 : q;
}

/* Advection of one site by the mean flow of its cell: a->w pixels of finite flow,
 * a->x and a->y the sums of their vectors in 1/256 px (two's complement in the
 * unsigned sums). A cell without such a pixel, or whose mean is shorter than
 * CC_CVD_MOVE_MIN, stays; the site is clamped to the frame. */
CC_HOSTDEV void
cc_cvd_move_site (cc_cvd_site *s, const cc_cvd_sums *a, int w, int h)
{
  if (a->w == 0)
    return;
  long long n = (long long) a->w;
  long long du = cc_cvd_round_mean ((long long) a->x, n);
  long long dv = cc_cvd_round_mean ((long long) a->y, n);
  if (du * du + dv * dv < (long long) CC_CVD_MOVE_MIN * CC_CVD_MOVE_MIN)
    return;
  long long nx = s->x + du, ny = s->y + dv;
  s->x = (int32_t) (nx < 0 ? 0 : nx > (long long) (w - 1) * CC_CVD_ONE ? (w - 1) * CC_CVD_ONE : nx);
  s->y = (int32_t) (ny < 0 ? 0 : ny > (long long) (h - 1) * CC_CVD_ONE ? (h - 1) * CC_CVD_ONE : ny);
}

/* ---------------------------------------------------------------- rendering */

/* Is pixel (x, y) on a border of width bw (>= 1)? */
CC_HOSTDEV int
cc_cvd_is_border (const int32_t *labels, int w, int h, int x, int y, int bw)
{
  int32_t l = labels[(size_t) y * w + x];
  int lo = bw / 2, hi = (bw - 1) / 2 + 1;
  int y0 = y - lo < 0 ? 0 : y - lo, y1 = y + hi >= h ? h - 1 : y + hi;
  int x0 = x - lo < 0 ? 0 : x - lo, x1 = x + hi >= w ? w - 1 : x + hi;
  for (int qy = y0; qy <= y1; qy++)
    for (int qx = x0; qx <= x1; qx++)
      if (labels[(size_t) qy * w + qx] != l)
        return 1;
  return 0;
}

/* Adds pixel (x, y)'s colour to its cell's accumulators (the caller adds: CPU
 * plainly, CUDA atomically); RGB: c0..c2 the bytes 0..2 of the pixel and n; YUV:
 * c0 and n from Y, and c1, c2, nc from U, V when (x, y) is the top-left pixel of its
 * 2x2 block. */
CC_HOSTDEV void
cc_cvd_pixel_colour (const cc_image *f, int x, int y, unsigned c[3], int *chroma)
{
  const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  *chroma = 0;
  if (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) {
    c[0] = row[4 * x]; c[1] = row[4 * x + 1]; c[2] = row[4 * x + 2];
    return;
  }
  c[0] = row[x];
  c[1] = c[2] = 0;
  if ((x & 1) || (y & 1))
    return;
  *chroma = 1;
  const uint8_t *c1 = (const uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
  if (f->format == CC_FORMAT_NV12) {
    c[1] = c1[x];
    c[2] = c1[x + 1];
  } else {
    const uint8_t *c2 = (const uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2];
    c[1] = c1[x / 2];
    c[2] = c2[x / 2];
  }
}

/* Mean colour of a cell from its accumulators, and its stipple radius^2 in
 * (1/256 px)^2: R^2 (255 - luma) / 255. */
CC_HOSTDEV void
cc_cvd_cell_mean (const cc_cvd_colour_acc *a, int bgr, int yuv, long long radius2,
    cc_cvd_mean *m)
{
  unsigned long long n = a->n ? a->n : 1, nc = a->nc ? a->nc : 1;
  m->c[0] = (uint8_t) ((a->c[0] + n / 2) / n);
  if (yuv) {
    m->c[1] = (uint8_t) (a->nc ? (a->c[1] + nc / 2) / nc : 128);
    m->c[2] = (uint8_t) (a->nc ? (a->c[2] + nc / 2) / nc : 128);
  } else {
    m->c[1] = (uint8_t) ((a->c[1] + n / 2) / n);
    m->c[2] = (uint8_t) ((a->c[2] + n / 2) / n);
  }
  m->c[3] = 0;
  int luma = yuv ? m->c[0] : cc_luma8_of (bgr ? cc_luma256 (m->c[2], m->c[1], m->c[0])
      : cc_luma256 (m->c[0], m->c[1], m->c[2]));
  m->radius2 = a->n ? radius2 * (255 - luma) / 255 : 0;
}

/* The decision for pixel (x, y): 0 = keep the image, 1 = border colour, 2 = the
 * cell's mean, 3 = ink (stipple dot), 4 = paper (stipple white). */
CC_HOSTDEV int
cc_cvd_draw_kind (const int32_t *labels, const cc_cvd_site *sites, const cc_cvd_mean *means,
    int w, int h, int x, int y, int style, int bw)
{
  if (style == CC_CVD_STYLE_STIPPLE) {
    int32_t l = labels[(size_t) y * w + x];
    return cc_cvd_dist2 (x, y, sites[l]) < means[l].radius2 ? 3 : 4;
  }
  if (bw > 0 && cc_cvd_is_border (labels, w, h, x, y, bw))
    return 1;
  return style == CC_CVD_STYLE_CELLS ? 2 : 0;
}

/* Writes pixel (x, y) of an RGBX8 / BGRX8 frame, or the Y of an NV12 / I420 frame
 * and its block's U, V when it is the top-left pixel. colours: [0] border / ink in
 * frame order (RGB bytes 0..2, or Y U V), [1] paper. */
CC_HOSTDEV void
cc_cvd_draw_pixel (const cc_image *f, const int32_t *labels, const cc_cvd_site *sites,
    const cc_cvd_mean *means, int style, int bw, const cc_cvd_mean *colours, int x, int y)
{
  int w = f->width, h = f->height;
  int kind = cc_cvd_draw_kind (labels, sites, means, w, h, x, y, style, bw);
  if (kind == 0)
    return;
  const uint8_t *c = kind == 1 || kind == 3 ? colours[0].c : kind == 4 ? colours[1].c
      : means[labels[(size_t) y * w + x]].c;
  uint8_t *row = (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  if (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) {
    row[4 * x] = c[0]; row[4 * x + 1] = c[1]; row[4 * x + 2] = c[2];
    return;
  }
  row[x] = c[0];
  if ((x & 1) || (y & 1))
    return;
  if (f->format == CC_FORMAT_NV12) {
    uint8_t *uv = (uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
    uv[x] = c[1];
    uv[x + 1] = c[2];
  } else {
    ((uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1])[x / 2] = c[1];
    ((uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2])[x / 2] = c[2];
  }
}

#endif
