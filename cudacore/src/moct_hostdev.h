/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-pixel and per-object steps of MOCT shared by moct.c (CPU reference) and
 * kernels/moct.cu: table index, frame finalisation (records, trajectory samples,
 * velocity) and integer drawing. The only floating point here is the centroid and
 * velocity (one IEEE division or subtraction each, rounded alike by both compilers);
 * everything drawn is integer. */
#ifndef CUDACORE_MOCT_HOSTDEV_H
#define CUDACORE_MOCT_HOSTDEV_H

#include "cc_hostdev.h"
#include "cc_text_hostdev.h"
#include "moct_internal.h"

/* Cell of the classification table for 8-bit channels (R, G, B or Y, U, V). */
CC_HOSTDEV int
cc_moct_lut_index (int c0, int c1, int c2)
{
  const int s = 8 - CC_MOCT_LUT_BITS;
  return ((c0 >> s) << (2 * CC_MOCT_LUT_BITS)) | ((c1 >> s) << CC_MOCT_LUT_BITS) | (c2 >> s);
}

/* Table cell of pixel (x, y) of a frame, and whether it is a YUV frame. */
CC_HOSTDEV int
cc_moct_pixel_cell (const cc_image *f, int x, int y)
{
  const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  if (f->format == CC_FORMAT_RGBX8)
    return cc_moct_lut_index (row[4 * x], row[4 * x + 1], row[4 * x + 2]);
  if (f->format == CC_FORMAT_BGRX8)
    return cc_moct_lut_index (row[4 * x + 2], row[4 * x + 1], row[4 * x]);
  const uint8_t *c1 = (const uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
  if (f->format == CC_FORMAT_NV12)
    return cc_moct_lut_index (row[x], c1[2 * (x / 2)], c1[2 * (x / 2) + 1]);
  const uint8_t *c2 = (const uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2];
  return cc_moct_lut_index (row[x], c1[x / 2], c2[x / 2]);
}

CC_HOSTDEV void
cc_moct_acc_clear (cc_moct_acc *a)
{
  a->n = a->sx = a->sy = a->sxx = a->syy = a->sxy = 0;
  a->minx = a->miny = CC_MOCT_EMPTY_MIN;
  a->maxx = a->maxy = CC_MOCT_EMPTY_MAX;
}

/* Whether pixel (x, y) of object id is inside its search window (window mode). */
CC_HOSTDEV int
cc_moct_in_window (const cc_moct_track *t, int x, int y)
{
  return !t->win || (x >= t->wx0 && x <= t->wx1 && y >= t->wy0 && y <= t->wy1);
}

/* The square of +-r px around (x, y), clipped to the frame, as the track's window. */
CC_HOSTDEV void
cc_moct_set_window (cc_moct_track *t, int x, int y, int r, int width, int height)
{
  t->win = 1;
  t->wx0 = x - r > 0 ? x - r : 0;
  t->wy0 = y - r > 0 ? y - r : 0;
  t->wx1 = x + r < width - 1 ? x + r : width - 1;
  t->wy1 = y + r < height - 1 ? y + r : height - 1;
}

/* The next frame's search window (params.window > 0): around (x, y), the predicted
 * centroid, when present; grown by `window` a side when absent (the whole frame once
 * it covers it); the whole frame while never seen. */
CC_HOSTDEV void
cc_moct_next_window (cc_moct_track *t, int present, int ix, int iy, int window, int width,
    int height)
{
  if (window <= 0)
    return;
  if (present) {
    cc_moct_set_window (t, ix, iy, window, width, height);
  } else if (t->win) {
    t->wx0 -= window; t->wy0 -= window; t->wx1 += window; t->wy1 += window;
    if (t->wx0 <= 0 && t->wy0 <= 0 && t->wx1 >= width - 1 && t->wy1 >= height - 1)
      t->win = 0;
    else {
      t->wx0 = t->wx0 > 0 ? t->wx0 : 0;
      t->wy0 = t->wy0 > 0 ? t->wy0 : 0;
      t->wx1 = t->wx1 < width - 1 ? t->wx1 : width - 1;
      t->wy1 = t->wy1 < height - 1 ? t->wy1 : height - 1;
    }
  }
}

/* The size gate (window mode, ratio16 > 0; docs/moctracker.md, "Look-alikes"):
 * whether a blob of n pixels whose box's longer side is `side` px may be the object
 * whose recent accepted frames averaged t->ref_mass pixels and t->ref_side px: its
 * mass within a factor ratio of the reference either way, and its box no more than
 * ratio times longer (plus 2 px, the jitter of a small box). An object cut by the
 * frame's border is not compared where the cut decides: a blob whose box touches
 * the border (`edge`) may be smaller (leaving the frame), and after an accepted box
 * that touched it (t->ref_edge) the blob may be larger (coming back in). Integers
 * only. */
CC_HOSTDEV int
cc_moct_size_ok (const cc_moct_track *t, long long n, int side, int edge, int ratio16)
{
  if (ratio16 <= 0 || t->ref_mass <= 0)
    return 1;
  const long long one = CC_MOCT_REF_ONE, m = n * one, r = ratio16;
  if (!edge && t->ref_mass * one > r * m)
    return 0;
  if (t->ref_edge)
    return 1;
  if (m * one > r * t->ref_mass)
    return 0;
  return (long long) side * one * one <= r * t->ref_side + 2 * one * one;
}

/* The reference after an accepted frame: a running average over about 4 frames
 * (the first accepted frame sets it). */
CC_HOSTDEV void
cc_moct_size_update (cc_moct_track *t, long long n, int side, int edge)
{
  t->ref_edge = edge;
  const long long one = CC_MOCT_REF_ONE;
  if (t->ref_mass <= 0) {
    t->ref_mass = n * one;
    t->ref_side = (int) (side * one);
  } else {
    t->ref_mass += (n * one - t->ref_mass) / 4;
    t->ref_side += (int) ((side * one - t->ref_side) / 4);
  }
  t->lost = 0;
}

/* Frame `frame` of one object: its record, its trajectory sample, the velocity state
 * (see cc_moct_result for the velocity rule), the size gate (window > 0 and
 * ratio16 > 0: a blob far from the object's recent size is refused, `lost`, and the
 * window grows as for an absent object) and the next search window. */
CC_HOSTDEV void
cc_moct_finalize (const cc_moct_acc *a, long long frame, int min_mass, int window,
    int ratio16, int width, int height, cc_moct_track *t, cc_moct_record *rec,
    cc_moct_sample *s)
{
  long long n = (long long) a->n;
  rec->acc = *a;
  rec->present = n > 0 && n >= min_mass;
  rec->lost = 0;
  rec->reserved = 0;
  rec->vx = rec->vy = 0.0;
  rec->velocity_valid = 0;
  s->frame = frame;
  s->mass = n;
  s->reserved = 0;
  s->cx = s->cy = 0.0;
  s->ix = s->iy = 0;
  if (n > 0) {
    s->cx = (double) a->sx / (double) n;
    s->cy = (double) a->sy / (double) n;
    /* rounded half up: floor ((2 s + n) / 2n), sums are non-negative */
    s->ix = (int) ((2 * (long long) a->sx + n) / (2 * n));
    s->iy = (int) ((2 * (long long) a->sy + n) / (2 * n));
  }
  int side = 0, edge = 0;
  if (rec->present) {
    int bw = a->maxx - a->minx + 1, bh = a->maxy - a->miny + 1;
    side = bw > bh ? bw : bh;
    edge = a->minx == 0 || a->miny == 0 || a->maxx == width - 1 || a->maxy == height - 1;
  }
  if (rec->present && window > 0 && !cc_moct_size_ok (t, n, side, edge, ratio16)) {
    rec->present = 0;
    rec->lost = 1;
    t->lost++;
  }
  s->present = rec->present;
  if (!rec->present) {
    cc_moct_next_window (t, 0, 0, 0, window, width, height);
    return;
  }
  if (window > 0 && ratio16 > 0)
    cc_moct_size_update (t, n, side, edge);
  if (t->has) {
    double dt = (double) (frame - t->frame);
    rec->vx = (s->cx - t->cx) / dt;
    rec->vy = (s->cy - t->cy) / dt;
    rec->velocity_valid = 1;
  }
  /* the next window is centred where the object will be at this velocity */
  int px = s->ix, py = s->iy;
  if (rec->velocity_valid) {
    px += (int) floor (rec->vx + 0.5);
    py += (int) floor (rec->vy + 0.5);
  }
  cc_moct_next_window (t, 1, px, py, window, width, height);
  t->cx = s->cx;
  t->cy = s->cy;
  t->frame = frame;
  t->has = 1;
}

/* ---------------------------------------------------------------- drawing */

/* Primitives of one object, all line segments: history - 1 trajectory segments
 * (layer 0), 4 box edges (layer 1), 2 centroid strokes (layer 2); then its label
 * (layer 3, cc_moct_label_origin). A pixel covered by several primitives takes the
 * colour of the one with the largest key (layer, object id): the CPU draws in key
 * order, CUDA resolves with atomicMax. */
#define CC_MOCT_LABEL_LAYER 3
#define CC_MOCT_CROSS 4

CC_HOSTDEV int
cc_moct_primitive_count (int history)
{
  return history - 1 + 4 + 2;
}

/* Primitive k of an object: 1 and its segment and layer when drawn, else 0.
 * ring: the object's history samples; frames: frames run since reset (the last is
 * frames - 1); rec: the last run's record. */
CC_HOSTDEV int
cc_moct_primitive (int k, int history, long long frames, const cc_moct_sample *ring,
    const cc_moct_record *rec, unsigned flags, int *x0, int *y0, int *x1, int *y1,
    int *layer)
{
  if (frames <= 0)
    return 0;
  if (k < history - 1) {
    if (!(flags & CC_MOCT_DRAW_TRAJECTORIES))
      return 0;
    long long count = frames < history ? frames : history;
    if (k >= count - 1)
      return 0;
    const cc_moct_sample *a = &ring[(frames - count + k) % history];
    const cc_moct_sample *b = &ring[(frames - count + k + 1) % history];
    if (!a->present || !b->present)
      return 0;
    *x0 = a->ix; *y0 = a->iy; *x1 = b->ix; *y1 = b->iy;
    *layer = 0;
    return 1;
  }
  k -= history - 1;
  if (!rec->present)
    return 0;
  if (k < 4) {
    if (!(flags & CC_MOCT_DRAW_BOXES))
      return 0;
    const cc_moct_acc *a = &rec->acc;
    int xs[4][4] = { { a->minx, a->miny, a->maxx, a->miny }, { a->maxx, a->miny, a->maxx, a->maxy },
                     { a->minx, a->maxy, a->maxx, a->maxy }, { a->minx, a->miny, a->minx, a->maxy } };
    *x0 = xs[k][0]; *y0 = xs[k][1]; *x1 = xs[k][2]; *y1 = xs[k][3];
    *layer = 1;
    return 1;
  }
  if (!(flags & CC_MOCT_DRAW_CENTROIDS))
    return 0;
  const cc_moct_sample *s = &ring[(frames - 1) % history];
  if (k == 4) {
    *x0 = s->ix - CC_MOCT_CROSS; *x1 = s->ix + CC_MOCT_CROSS; *y0 = *y1 = s->iy;
  } else {
    *y0 = s->iy - CC_MOCT_CROSS; *y1 = s->iy + CC_MOCT_CROSS; *x0 = *x1 = s->ix;
  }
  *layer = 2;
  return 1;
}

/* LABELS: the top-left pixel of a present object's name (drawn by cc_text_pixel):
 * left-aligned with the box, one row of gap above it when the text fits in the frame
 * there, else 2 px below the box. 0 when nothing is drawn. */
CC_HOSTDEV int
cc_moct_label_origin (long long frames, const cc_moct_record *rec, int *x, int *y)
{
  if (frames <= 0 || !rec->present)
    return 0;
  *x = rec->acc.minx;
  *y = rec->acc.miny - 1 - CC_TEXT_HEIGHT >= 0 ? rec->acc.miny - 1 - CC_TEXT_HEIGHT
                                               : rec->acc.maxy + 2;
  return 1;
}

/* Points of a segment: max(|dx|, |dy|) + 1, point i at the start plus i / steps of
 * the segment, rounded half away from zero, in integers. */
CC_HOSTDEV int
cc_moct_line_points (int x0, int y0, int x1, int y1)
{
  int dx = x1 - x0 < 0 ? x0 - x1 : x1 - x0, dy = y1 - y0 < 0 ? y0 - y1 : y1 - y0;
  return (dx > dy ? dx : dy) + 1;
}

CC_HOSTDEV int
cc_moct_div_round (long long a, long long b)
{
  return (int) (a >= 0 ? (2 * a + b) / (2 * b) : -((-2 * a + b) / (2 * b)));
}

CC_HOSTDEV void
cc_moct_line_point (int x0, int y0, int x1, int y1, int i, int *x, int *y)
{
  int steps = cc_moct_line_points (x0, y0, x1, y1) - 1;
  if (steps == 0) {
    *x = x0;
    *y = y0;
    return;
  }
  *x = x0 + cc_moct_div_round ((long long) i * (x1 - x0), steps);
  *y = y0 + cc_moct_div_round ((long long) i * (y1 - y0), steps);
}

/* Writes a colour at (x, y) (inside the frame). */
CC_HOSTDEV void
cc_moct_put (const cc_image *f, int x, int y, const cc_moct_colour *c)
{
  uint8_t *row = (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  if (f->format == CC_FORMAT_RGBX8) {
    row[4 * x] = c->r; row[4 * x + 1] = c->g; row[4 * x + 2] = c->b;
    return;
  }
  if (f->format == CC_FORMAT_BGRX8) {
    row[4 * x] = c->b; row[4 * x + 1] = c->g; row[4 * x + 2] = c->r;
    return;
  }
  row[x] = c->y;
  if ((x & 1) || (y & 1))
    return;
  if (f->format == CC_FORMAT_NV12) {
    uint8_t *uv = (uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
    uv[x] = c->u;
    uv[x + 1] = c->v;
  } else {
    ((uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1])[x / 2] = c->u;
    ((uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2])[x / 2] = c->v;
  }
}

CC_HOSTDEV uint8_t
cc_moct_blend (int a, int b)
{
  return (uint8_t) ((a + b + 1) >> 1);
}

/* MASK of an RGBX8 / BGRX8 pixel. lut: the RGB table; n: objects. */
CC_HOSTDEV void
cc_moct_mask_pixel (const cc_image *f, int x, int y, const uint16_t *lut,
    const cc_moct_colour *colours, int n)
{
  int id = lut[cc_moct_pixel_cell (f, x, y)];
  if (id >= n)
    return;
  const cc_moct_colour *c = &colours[id];
  uint8_t *p = (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0] + 4 * x;
  int bgr = f->format == CC_FORMAT_BGRX8;
  p[0] = cc_moct_blend (p[0], bgr ? c->b : c->r);
  p[1] = cc_moct_blend (p[1], c->g);
  p[2] = cc_moct_blend (p[2], bgr ? c->r : c->b);
}

/* MASK of the 2x2 block (bx, by) of an NV12 / I420 frame: every pixel is classified
 * before anything is written. lut: the YUV table. */
CC_HOSTDEV void
cc_moct_mask_block (const cc_image *f, int bx, int by, const uint16_t *lut,
    const cc_moct_colour *colours, int n)
{
  int ids[4];
  for (int j = 0; j < 4; j++) {
    int x = 2 * bx + (j & 1), y = 2 * by + (j >> 1);
    ids[j] = x < f->width && y < f->height ? lut[cc_moct_pixel_cell (f, x, y)] : CC_MOCT_NONE;
  }
  for (int j = 0; j < 4; j++) {
    if (ids[j] >= n)
      continue;
    int x = 2 * bx + (j & 1), y = 2 * by + (j >> 1);
    uint8_t *p = (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0] + x;
    *p = cc_moct_blend (*p, colours[ids[j]].y);
  }
  if (ids[0] >= n)
    return;
  const cc_moct_colour *c = &colours[ids[0]];
  if (f->format == CC_FORMAT_NV12) {
    uint8_t *uv = (uint8_t *) f->planes[1] + (size_t) by * f->pitch[1] + 2 * bx;
    uv[0] = cc_moct_blend (uv[0], c->u);
    uv[1] = cc_moct_blend (uv[1], c->v);
  } else {
    uint8_t *u = (uint8_t *) f->planes[1] + (size_t) by * f->pitch[1] + bx;
    uint8_t *v = (uint8_t *) f->planes[2] + (size_t) by * f->pitch[2] + bx;
    *u = cc_moct_blend (*u, c->u);
    *v = cc_moct_blend (*v, c->v);
  }
}

#endif
