/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_align.h"
#include "cv_imageio.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN_TOLERANCE 10   /* luma levels: sensor noise and JPEG, not other content */
#define ALIGN_LEVELS 8

typedef struct { int w, h; uint8_t *v; } grey;

static cc_status
to_grey (const cc_image *img, grey *g)
{
  g->w = img->width;
  g->h = img->height;
  g->v = malloc ((size_t) g->w * g->h);
  if (!g->v)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cv_align_shift: %dx%d", g->w, g->h);
  for (int y = 0; y < g->h; y++) {
    const uint8_t *p = (const uint8_t *) img->planes[0] + (size_t) y * img->pitch[0];
    for (int x = 0; x < g->w; x++, p += 4)
      g->v[(size_t) y * g->w + x] = (uint8_t) ((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
  }
  return CC_SUCCESS;
}

/* The next pyramid level: 2x2 means (odd last rows and columns dropped). */
static cc_status
halve (const grey *s, grey *d)
{
  d->w = s->w / 2;
  d->h = s->h / 2;
  d->v = malloc ((size_t) d->w * d->h + 1);
  if (!d->v)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cv_align_shift: pyramid");
  for (int y = 0; y < d->h; y++)
    for (int x = 0; x < d->w; x++) {
      const uint8_t *p = s->v + (size_t) 2 * y * s->w + 2 * x;
      d->v[(size_t) y * d->w + x] = (uint8_t) ((p[0] + p[1] + p[s->w] + p[s->w + 1] + 2) / 4);
    }
  return CC_SUCCESS;
}

/* Over the overlap of img and ref moved by (dx, dy): the share of pixels within the
 * tolerance (returned) and the mean truncated difference min (|a - b|, 2 x tolerance)
 * into *cost (the search minimises it: robust like the share, since a foreground
 * pixel costs the same anywhere, and precise on smooth content, where the share ties
 * between neighbouring shifts). -1 when the overlap is under half the image. */
static double
agreement (const grey *ref, const grey *img, int dx, int dy, double *cost)
{
  int x0 = dx < 0 ? -dx : 0, x1 = dx > 0 ? img->w - dx : img->w;
  int y0 = dy < 0 ? -dy : 0, y1 = dy > 0 ? img->h - dy : img->h;
  if (x1 <= x0 || y1 <= y0 || 2LL * (x1 - x0) * (y1 - y0) < (long long) img->w * img->h)
    return -1.0;
  long long ok = 0, sum = 0;
  for (int y = y0; y < y1; y++) {
    const uint8_t *a = img->v + (size_t) y * img->w, *b = ref->v + (size_t) (y + dy) * ref->w + dx;
    for (int x = x0; x < x1; x++) {
      int d = abs ((int) a[x] - (int) b[x]);
      ok += d <= ALIGN_TOLERANCE;
      sum += d < 2 * ALIGN_TOLERANCE ? d : 2 * ALIGN_TOLERANCE;
    }
  }
  double n = (double) (x1 - x0) * (y1 - y0);
  if (cost)
    *cost = sum / n;
  return ok / n;
}

cc_status
cv_align_shift (const cc_image *ref, const cc_image *img, int max_shift, int *dx, int *dy,
    double *agree, double *agree0)
{
  if (!ref || !img || ref->format != CC_FORMAT_RGBX8 || img->format != CC_FORMAT_RGBX8
      || ref->location != CC_LOCATION_HOST || img->location != CC_LOCATION_HOST
      || ref->width != img->width || ref->height != img->height || max_shift < 0)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cv_align_shift: two host RGBX8 images "
        "of one size and max_shift >= 0");
  grey pr[ALIGN_LEVELS], pi[ALIGN_LEVELS];
  memset (pr, 0, sizeof pr);
  memset (pi, 0, sizeof pi);
  cc_status st = to_grey (ref, &pr[0]);
  if (st == CC_SUCCESS)
    st = to_grey (img, &pi[0]);
  /* coarsest level: the search there spans at most +-4 nodes */
  int top = 0;
  while (st == CC_SUCCESS && top + 1 < ALIGN_LEVELS && (max_shift >> top) > 4
      && pr[top].w >= 32 && pr[top].h >= 32) {
    st = halve (&pr[top], &pr[top + 1]);
    if (st == CC_SUCCESS)
      st = halve (&pi[top], &pi[top + 1]);
    top++;
  }
  int bx = 0, by = 0;
  double best = -1.0, best_cost = 0.0;
  if (st == CC_SUCCESS) {
    for (int k = top; k >= 0; k--) {
      int range = k == top ? (max_shift + (1 << k) - 1) >> k : 2;
      int cx = k == top ? 0 : 2 * bx, cy = k == top ? 0 : 2 * by;
      best = -1.0;
      int nx = cx, ny = cy;
      for (int sy = cy - range; sy <= cy + range; sy++)
        for (int sx = cx - range; sx <= cx + range; sx++) {
          if (abs (sx) << k > max_shift || abs (sy) << k > max_shift)
            continue;
          double c, a = agreement (&pr[k], &pi[k], sx, sy, &c);
          /* ties: the smaller shift */
          if (a >= 0.0 && (best < 0.0 || c < best_cost || (c == best_cost
                      && abs (sx) + abs (sy) < abs (nx) + abs (ny)))) {
            best = a;
            best_cost = c;
            nx = sx;
            ny = sy;
          }
        }
      bx = nx;
      by = ny;
    }
    *dx = bx;
    *dy = by;
    if (agree)
      *agree = best;
    if (agree0)
      *agree0 = agreement (&pr[0], &pi[0], 0, 0, NULL);
  }
  for (int k = 0; k < ALIGN_LEVELS; k++) {
    free (pr[k].v);
    free (pi[k].v);
  }
  return st;
}

cc_status
cv_shift_image (const cc_image *ref, int dx, int dy, cc_image *out)
{
  if (!ref || ref->format != CC_FORMAT_RGBX8 || ref->location != CC_LOCATION_HOST)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cv_shift_image: a host RGBX8 image");
  cc_status st = cv_image_new (ref->width, ref->height, CC_FORMAT_RGBX8, out);
  if (st != CC_SUCCESS)
    return st;
  for (int y = 0; y < ref->height; y++) {
    int sy = y + dy < 0 ? 0 : (y + dy >= ref->height ? ref->height - 1 : y + dy);
    const uint8_t *s = (const uint8_t *) ref->planes[0] + (size_t) sy * ref->pitch[0];
    uint8_t *d = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    for (int x = 0; x < ref->width; x++) {
      int sx = x + dx < 0 ? 0 : (x + dx >= ref->width ? ref->width - 1 : x + dx);
      memcpy (d + 4 * x, s + 4 * sx, 4);
    }
  }
  return CC_SUCCESS;
}
