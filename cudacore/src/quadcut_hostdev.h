/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Per-pixel formulas of Quad-Cut, written once for the CPU reference (and the CUDA
 * kernels to come): Lab, the background distance, the histogram bin and the
 * boundary term. */
#ifndef CUDACORE_QUADCUT_HOSTDEV_H
#define CUDACORE_QUADCUT_HOSTDEV_H

#include "cc_hostdev.h"
#include <float.h>
#include "quadcut_internal.h"

/* Cube root of t > 0 with only IEEE-rounded operations (+, -, x, /), so that the
 * CPU and CUDA (built without FMA contraction) get the same bits, which cbrtf of
 * the two maths libraries does not promise: a bit-level first guess, then Newton
 * steps y <- (2 y + t / y^2) / 3 (about 1 ulp from the true root). */
CC_HOSTDEV float cc_qc_cbrt (float t)
{
  union { float f; uint32_t u; } v;
  v.f = t;
  v.u = v.u / 3u + 0x2A5137A0u;
  float y = v.f;
  for (int i = 0; i < 4; i++)
    y = (2.0f * y + t / (y * y)) * (1.0f / 3.0f);
  return y;
}

/* 8-bit R, G, B of pixel (x, y) of an RGBX8 / BGRX8 / NV12 / I420 frame. YUV: BT.601
 * limited range in integers (the usual 298 / 409 / 100 / 208 / 516 fixed point,
 * clamped; the inverse of cc_rgb_to_yuv within a level), chroma of the pixel's 2x2
 * block. */
CC_HOSTDEV void cc_qc_pixel_rgb (const cc_image *f, int x, int y, int rgb[3])
{
  const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  if (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) {
    int ri = f->format == CC_FORMAT_RGBX8 ? 0 : 2;
    rgb[0] = row[4 * x + ri];
    rgb[1] = row[4 * x + 1];
    rgb[2] = row[4 * x + 2 - ri];
    return;
  }
  const uint8_t *c1 = (const uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
  int u, v;
  if (f->format == CC_FORMAT_NV12) {
    u = c1[2 * (x / 2)];
    v = c1[2 * (x / 2) + 1];
  } else {
    const uint8_t *c2 = (const uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2];
    u = c1[x / 2];
    v = c2[x / 2];
  }
  int c = 298 * (row[x] - 16), d = u - 128, e = v - 128;
  rgb[0] = cc_clampi ((c + 409 * e + 128) / 256, 0, 255);
  rgb[1] = cc_clampi ((c - 100 * d - 208 * e + 128) / 256, 0, 255);
  rgb[2] = cc_clampi ((c + 516 * d + 128) / 256, 0, 255);
}

/* CIE Lab (D65) of 8-bit sRGB; lin: the 256-entry sRGB -> linear table. */
CC_HOSTDEV float cc_qc_lab_f (float t)
{
  const float d3 = 0.008856452f;   /* (6/29)^3 */
  return t > d3 ? cc_qc_cbrt (t) : t * 7.787037f + 0.137931034f;
}

CC_HOSTDEV void cc_qc_lab (int r, int g, int b, const float *lin, float lab[3])
{
  float rl = lin[r], gl = lin[g], bl = lin[b];
  float X = (0.4124564f * rl + 0.3575761f * gl + 0.1804375f * bl) * (1.0f / 0.95047f);
  float Y = 0.2126729f * rl + 0.7151522f * gl + 0.0721750f * bl;
  float Z = (0.0193339f * rl + 0.1191920f * gl + 0.9503041f * bl) * (1.0f / 1.08883f);
  float fx = cc_qc_lab_f (X), fy = cc_qc_lab_f (Y), fz = cc_qc_lab_f (Z);
  lab[0] = 116.0f * fy - 16.0f;
  lab[1] = 500.0f * (fx - fy);
  lab[2] = 200.0f * (fy - fz);
}

/* PLATE: background distance of a pixel from the plate's Lab. A pixel darker than
 * the plate by at most shadow_depth x L_plate is compared as a shadow: luminance
 * ignored, the plate's a, b scaled by (L + 16) / (L_plate + 16) (a, b go with the
 * cube root of the light, as L + 16 does). */
CC_HOSTDEV float cc_qc_plate_distance (const float f[3], const float p[3],
    float shadow_depth)
{
  float dl = f[0] - p[0];
  if (dl < 0.0f && f[0] >= (1.0f - shadow_depth) * p[0]) {
    float s = (f[0] + 16.0f) / (p[0] + 16.0f);
    float da = f[1] - s * p[1], db = f[2] - s * p[2];
    return sqrtf (da * da + db * db);
  }
  float da = f[1] - p[1], db = f[2] - p[2];
  return sqrtf (dl * dl + da * da + db * db);
}

/* Stratification of one pixel: background distance d (PLATE: from the plate's Lab
 * ref; ACTIVE: |L - L_other| with ref the other frame's Lab), bg cost
 * d^2 / (2 sigma_l^2), seed when that cost exceeds seed_cost (-ln seed_threshold). */
CC_HOSTDEV void cc_qc_stratify_pixel (const float c[3], const float ref[3], int active,
    float shadow_depth, float inv_2sl2, float seed_cost, float *dist, float *cost_bg,
    uint8_t *seed)
{
  float d = active ? fabsf (c[0] - ref[0]) : cc_qc_plate_distance (c, ref, shadow_depth);
  float cb = d * d * inv_2sl2;
  *dist = d;
  *cost_bg = cb;
  *seed = cb > seed_cost;
}

/* Histogram bin of a Lab a or b value: [-128, 128) in `bins` equal parts. */
CC_HOSTDEV int cc_qc_bin (float v, int bins)
{
  int k = (int) floorf ((v + 128.0f) * (float) bins * (1.0f / 256.0f));
  return cc_clampi (k, 0, bins - 1);
}

/* Histogram cell of a pixel's a, b (row: b, column: a). */
CC_HOSTDEV int cc_qc_cell (const float c[3], int bins)
{
  return cc_qc_bin (c[2], bins) * bins + cc_qc_bin (c[1], bins);
}

/* e^-x for x >= 0 and ln v for normal v > 0, with only IEEE-rounded operations (as
 * cc_qc_cbrt), so that the n-links have the same bits on the CPU and on CUDA (whose
 * exp and log are not glibc's): exp: x = k ln 2 + r (Cody-Waite), e^-r by its Taylor
 * series to degree 14 (|r| <= 0.35: below 1e-17 relative), times 2^-k; log: v = m 2^e,
 * m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh ((m - 1) / (m + 1)) by its series to the
 * 23rd power (|s| <= 0.172: below 1e-17). Both within a few ulp of the true value. */
CC_HOSTDEV double cc_qc_exp_neg (double x)
{
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  if (!(x < 708.0))
    return 0.0;
  int k = (int) (x * 1.44269504088896338700 + 0.5);
  double t = -((x - k * ln2_hi) - k * ln2_lo), e = 1.0;
  for (int i = 14; i >= 1; i--)
    e = 1.0 + t * e / i;
  union { double d; uint64_t u; } sc;
  sc.u = (uint64_t) (1023 - k) << 52;
  return e * sc.d;
}

CC_HOSTDEV double cc_qc_log (double v)
{
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  union { double d; uint64_t u; } b;
  b.d = v;
  int e = (int) ((b.u >> 52) & 0x7FF) - 1023;
  b.u = (b.u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double m = b.d;
  if (m > 1.41421356237309504880) {
    m *= 0.5;
    e++;
  }
  double s = (m - 1.0) / (m + 1.0), s2 = s * s, acc = 0.0;
  for (int i = 23; i >= 3; i -= 2)
    acc = s2 * (1.0 / i + acc);
  return e * ln2_hi + (e * ln2_lo + 2.0 * s * (1.0 + acc));
}

/* Boundary term of one unit of border between colours p and q: -log max (B, 1e-6),
 * B = 1 - exp (-|p - q|^2 / (2 sigma_c^2)) (paper D eq. 7, 8). */
CC_HOSTDEV double cc_qc_boundary (const float p[3], const float q[3], double inv_2sc2)
{
  double d0 = p[0] - q[0], d1 = p[1] - q[1], d2 = p[2] - q[2];
  double bb = 1.0 - cc_qc_exp_neg ((d0 * d0 + d1 * d1 + d2 * d2) * inv_2sc2);
  return -cc_qc_log (bb > 1e-6 ? bb : 1e-6);
}

/* One plate pixel (R, G, B in rgb[0..2]) moved towards a frame pixel's R, G, B (f)
 * by at most step a channel; its Lab recomputed into lab. */
CC_HOSTDEV void cc_qc_plate_step (uint8_t *rgb, const int f[3], int step, const float *lin,
    float *lab)
{
  for (int c = 0; c < 3; c++) {
    int d = cc_clampi (f[c] - rgb[c], -step, step);
    rgb[c] = (uint8_t) (rgb[c] + d);
  }
  cc_qc_lab (rgb[0], rgb[1], rgb[2], lin, lab);
}

/* ---- Quadtree */

/* Is node (i, j) of level k groupable? (level 0: every pixel; past the level's
 * nodes or above the top level: no) */
CC_HOSTDEV int cc_qc_groupable (const cc_qc_pyramid *py, int k, int i, int j)
{
  if (k == 0)
    return 1;
  if (k > py->levels || i >= py->lw[k] || j >= py->lh[k])
    return 0;
  return py->group[k][(size_t) j * py->lw[k] + i];
}

/* Is node (i, j) of level k a leaf: groupable, its parent not (two reads)? */
CC_HOSTDEV int cc_qc_is_leaf (const cc_qc_pyramid *py, int k, int i, int j)
{
  return cc_qc_groupable (py, k, i, j) && !cc_qc_groupable (py, k + 1, i >> 1, j >> 1);
}

/* Level of the leaf whose top-left pixel is (x, y), or -1. */
CC_HOSTDEV int cc_qc_leaf_at_origin (const cc_qc_pyramid *py, int x, int y)
{
  for (int k = 0; k <= py->levels; k++) {
    if (k > 0 && (((x | y) >> (k - 1)) & 1))
      break;   /* not aligned to level k, nor any higher level */
    if (cc_qc_is_leaf (py, k, x >> k, y >> k))
      return k;
  }
  return -1;
}

/* Level of the leaf covering pixel (x, y). */
CC_HOSTDEV int cc_qc_leaf_level (const cc_qc_pyramid *py, int x, int y)
{
  int k = 0;
  while (k < py->levels && !cc_qc_is_leaf (py, k, x >> k, y >> k))
    k++;
  return k;
}

/* Neighbours of leaf n by QuadN4 navigation (paper C 3.1), written to ids / lens
 * when not NULL; returns the count. North border west to east (the north reference,
 * then east references), east south to north (east, then north), south east to
 * west (south, then west), west north to south (west, then south). */
CC_HOSTDEV int cc_qc_navigate (const cc_quadcut_leaf *leaves, int n, int *ids, int *lens)
{
  const cc_quadcut_leaf *a = &leaves[n];
  int s = 1 << a->level, x0 = a->x, y0 = a->y, x1 = x0 + s - 1, y1 = y0 + s - 1, c = 0;
  for (int t = a->north; t >= 0; t = leaves[t].east) {
    int bx0 = leaves[t].x, bx1 = bx0 + (1 << leaves[t].level) - 1;
    if (ids) {
      ids[c] = t;
      lens[c] = (bx1 < x1 ? bx1 : x1) - (bx0 > x0 ? bx0 : x0) + 1;
    }
    c++;
    if (bx1 >= x1)
      break;
  }
  for (int t = a->east; t >= 0; t = leaves[t].north) {
    int by0 = leaves[t].y, by1 = by0 + (1 << leaves[t].level) - 1;
    if (ids) {
      ids[c] = t;
      lens[c] = (by1 < y1 ? by1 : y1) - (by0 > y0 ? by0 : y0) + 1;
    }
    c++;
    if (by0 <= y0)
      break;
  }
  for (int t = a->south; t >= 0; t = leaves[t].west) {
    int bx0 = leaves[t].x, bx1 = bx0 + (1 << leaves[t].level) - 1;
    if (ids) {
      ids[c] = t;
      lens[c] = (bx1 < x1 ? bx1 : x1) - (bx0 > x0 ? bx0 : x0) + 1;
    }
    c++;
    if (bx0 <= x0)
      break;
  }
  for (int t = a->west; t >= 0; t = leaves[t].south) {
    int by0 = leaves[t].y, by1 = by0 + (1 << leaves[t].level) - 1;
    if (ids) {
      ids[c] = t;
      lens[c] = (by1 < y1 ? by1 : y1) - (by0 > y0 ? by0 : y0) + 1;
    }
    c++;
    if (by1 >= y1)
      break;
  }
  return c;
}

/* QuadN4 references of a leaf (paper C 4.2.4) from the leaf-id image. */
CC_HOSTDEV void cc_qc_quadn4 (cc_quadcut_leaf *l, const int32_t *leaf_id, int w, int h)
{
  int s = 1 << l->level, x0 = l->x, y0 = l->y, x1 = x0 + s - 1, y1 = y0 + s - 1;
  l->north = y0 > 0 ? leaf_id[(size_t) (y0 - 1) * w + x0] : -1;
  l->east = x1 + 1 < w ? leaf_id[(size_t) y1 * w + x1 + 1] : -1;
  l->south = y1 + 1 < h ? leaf_id[(size_t) (y1 + 1) * w + x1] : -1;
  l->west = x0 > 0 ? leaf_id[(size_t) y0 * w + x0 - 1] : -1;
}

/* Mean Lab and summed costs of a leaf over its pixels in raster order (double sums:
 * the same bits on both backends). */
CC_HOSTDEV void cc_qc_leaf_sums (cc_quadcut_leaf *l, const float *lab, const float *cost_fg,
    const float *cost_bg, int w)
{
  int s = 1 << l->level;
  double sl = 0.0, sa = 0.0, sb = 0.0, cf = 0.0, cb = 0.0;
  for (int yy = l->y; yy < l->y + s; yy++)
    for (int xx = l->x; xx < l->x + s; xx++) {
      size_t i = (size_t) yy * w + xx;
      sl += lab[3 * i];
      sa += lab[3 * i + 1];
      sb += lab[3 * i + 2];
      cf += cost_fg[i];
      cb += cost_bg[i];
    }
  double inv = 1.0 / ((double) s * s);
  l->L = (float) (sl * inv);
  l->a = (float) (sa * inv);
  l->b = (float) (sb * inv);
  l->cost_fg = cf;
  l->cost_bg = cb;
}

/* Node ranges of the pyramid: min and max of a, b, d. */
typedef struct cc_qc_range {
  float mn[3], mx[3];
} cc_qc_range;

/* The grouping criterion's constants (D 5.2), made once a frame on the host:
 * sim: the largest range of a, b and d inside a leaf; sure_d: a node whose every
 * pixel has d < sure_d (certain x sigma_l; 0: off) is surely background; a node whose
 * every pixel is a seed (d^2 inv_2sl2 > seed_cost, the stratify formula) surely
 * foreground; unless certain is 0. Such nodes group whatever their texture. */
typedef struct cc_qc_criterion {
  float sim, sure_d, inv_2sl2, seed_cost;
  int certain;
} cc_qc_criterion;

CC_HOSTDEV cc_qc_criterion cc_qc_criterion_of (const cc_quadcut_params *p)
{
  cc_qc_criterion c;
  c.sim = p->similarity;
  c.sure_d = p->certain * p->sigma_l;
  c.inv_2sl2 = 1.0f / (2.0f * p->sigma_l * p->sigma_l);
  c.seed_cost = p->seed_threshold > 0.0f ? -logf (p->seed_threshold) : FLT_MAX;
  c.certain = p->certain > 0.0f;
  return c;
}

/* Does a node of these ranges meet the criterion (its children all groupable)?
 * Homogeneous in a, b and d; or, with `certain`, surely background (every d below
 * sure_d) or surely foreground (every pixel a seed: the smallest d's cost above
 * seed_cost, the same float operations as the pixel's own test). */
CC_HOSTDEV int cc_qc_criterion_holds (const cc_qc_range *r, const cc_qc_criterion *c)
{
  if (c->certain) {
    if (r->mx[2] < c->sure_d)
      return 1;
    if (r->mn[2] * r->mn[2] * c->inv_2sl2 > c->seed_cost)
      return 1;
  }
  for (int k = 0; k < 3; k++)
    if (r->mx[k] - r->mn[k] > c->sim)
      return 0;
  return 1;
}

/* Node (i, j) of level k >= 1 from its four children: level 1 from the pixels (lab,
 * dist), higher levels from the child ranges and flags. Returns the flag. */
CC_HOSTDEV int cc_qc_reduce (int k, int i, int j, int cw, const float *lab, const float *dist,
    const cc_qc_range *child, const uint8_t *child_group, const cc_qc_criterion *crit,
    cc_qc_range *out)
{
  cc_qc_range r;
  int ok = 1;
  for (int c = 0; c < 3; c++) {
    r.mn[c] = 3.0e38f;
    r.mx[c] = -3.0e38f;
  }
  for (int s = 0; s < 4; s++) {
    int cx = 2 * i + (s & 1), cy = 2 * j + (s >> 1);
    size_t ci = (size_t) cy * cw + cx;
    if (k == 1) {
      float v[3] = { lab[3 * ci + 1], lab[3 * ci + 2], dist[ci] };
      for (int c = 0; c < 3; c++) {
        r.mn[c] = fminf (r.mn[c], v[c]);
        r.mx[c] = fmaxf (r.mx[c], v[c]);
      }
    } else {
      ok &= child_group[ci];
      for (int c = 0; c < 3; c++) {
        r.mn[c] = fminf (r.mn[c], child[ci].mn[c]);
        r.mx[c] = fmaxf (r.mx[c], child[ci].mx[c]);
      }
    }
  }
  *out = r;
  return ok && cc_qc_criterion_holds (&r, crit);
}

/* ---- The leaf graph (paper D eq. 3 / 8) */

/* n-links leaf n owns: its neighbours of a higher index (each pair once). */
CC_HOSTDEV int cc_qc_up_count (const int *offsets, const int *nbr, int n)
{
  int c = 0;
  for (int k = offsets[n]; k < offsets[n + 1]; k++)
    c += nbr[k] > n;
  return c;
}

/* Leaf n's n-links (neighbours of a higher index, in its list's order) into ea, eb,
 * ew from index e: lambda x border x the boundary term of the leaves' mean Lab. */
CC_HOSTDEV void cc_qc_leaf_edges (const cc_quadcut_leaf *leaves, const int *offsets,
    const int *nbr, const int *len, int n, double lambda, double inv_2sc2, long long e,
    int *ea, int *eb, double *ew)
{
  const cc_quadcut_leaf *a = &leaves[n];
  float ca[3] = { a->L, a->a, a->b };
  for (int k = offsets[n]; k < offsets[n + 1]; k++) {
    int t = nbr[k];
    if (t <= n)
      continue;
    const cc_quadcut_leaf *b = &leaves[t];
    float cb[3] = { b->L, b->a, b->b };
    ea[e] = n;
    eb[e] = t;
    ew[e] = lambda * len[k] * cc_qc_boundary (ca, cb, inv_2sc2);
    e++;
  }
}

/* ---- Output */

/* The 8-bit blend of one channel: (a F + (255 - a) B + 127) / 255. */
CC_HOSTDEV uint8_t cc_qc_blend (unsigned a, unsigned f, unsigned b)
{
  return (uint8_t) ((a * f + (255u - a) * b + 127u) / 255u);
}

/* ---- NV12 / I420 output: luma per pixel, chroma per 2x2 block */

CC_HOSTDEV uint8_t *cc_qc_luma (const cc_image *f, int x, int y)
{
  return (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0] + x;
}

/* The U and V bytes of chroma block (cx, cy). */
CC_HOSTDEV void cc_qc_chroma (const cc_image *f, int cx, int cy, uint8_t **u, uint8_t **v)
{
  uint8_t *c1 = (uint8_t *) f->planes[1] + (size_t) cy * f->pitch[1];
  if (f->format == CC_FORMAT_NV12) {
    *u = c1 + 2 * cx;
    *v = c1 + 2 * cx + 1;
  } else {
    *u = c1 + cx;
    *v = (uint8_t *) f->planes[2] + (size_t) cy * f->pitch[2] + cx;
  }
}

/* Alpha of chroma block (cx, cy): the rounded mean over its pixels in the frame. */
CC_HOSTDEV unsigned cc_qc_block_alpha (const uint8_t *alpha, int w, int h, int cx, int cy)
{
  unsigned s = 0, n = 0;
  for (int dy = 0; dy < 2; dy++)
    for (int dx = 0; dx < 2; dx++) {
      int x = 2 * cx + dx, y = 2 * cy + dy;
      if (x < w && y < h) {
        s += alpha[(size_t) y * w + x];
        n++;
      }
    }
  return (s + n / 2) / n;
}

/* Composite of one luma pixel / one chroma block of a YUV frame f into out; b: the
 * background image (same format) or NULL for the colour (by, bu, bv). */
CC_HOSTDEV void cc_qc_composite_luma (const cc_image *f, const cc_image *b, uint8_t by,
    const uint8_t *alpha, int x, int y, const cc_image *out)
{
  unsigned a = alpha[(size_t) y * f->width + x];
  *cc_qc_luma (out, x, y) = cc_qc_blend (a, *cc_qc_luma (f, x, y), b ? *cc_qc_luma (b, x, y)
      : by);
}

CC_HOSTDEV void cc_qc_composite_chroma (const cc_image *f, const cc_image *b, uint8_t bu,
    uint8_t bv, const uint8_t *alpha, int cx, int cy, const cc_image *out)
{
  unsigned a = cc_qc_block_alpha (alpha, f->width, f->height, cx, cy);
  uint8_t *fu, *fv, *ou, *ov, *gu, *gv;
  cc_qc_chroma (f, cx, cy, &fu, &fv);
  cc_qc_chroma (out, cx, cy, &ou, &ov);
  uint8_t u = *fu, v = *fv, ub = bu, vb = bv;
  if (b) {
    cc_qc_chroma (b, cx, cy, &gu, &gv);
    ub = *gu;
    vb = *gv;
  }
  *ou = cc_qc_blend (a, u, ub);
  *ov = cc_qc_blend (a, v, vb);
}

/* The matte (CC_QUADCUT_OUTPUT_MASK): what cc_quadcut_composite writes for an
 * all-white frame over black. RGBX8 / BGRX8: R, G, B = the alpha, X 255; NV12 / I420:
 * luma per pixel, chroma per 2x2 block with its rounded mean alpha, between white
 * (w*) and black (k*) as cc_rgb_to_yuv gives them. */
CC_HOSTDEV void cc_qc_matte_pixel (const uint8_t *alpha, int x, int y, const cc_image *out)
{
  const unsigned a = alpha[(size_t) y * out->width + x];
  uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0] + 4 * x;
  o[0] = o[1] = o[2] = cc_qc_blend (a, 255, 0);
  o[3] = 255;
}

CC_HOSTDEV void cc_qc_matte_luma (const uint8_t *alpha, uint8_t wy, uint8_t ky, int x, int y,
    const cc_image *out)
{
  *cc_qc_luma (out, x, y) = cc_qc_blend (alpha[(size_t) y * out->width + x], wy, ky);
}

CC_HOSTDEV void cc_qc_matte_chroma (const uint8_t *alpha, uint8_t wu, uint8_t wv, uint8_t ku,
    uint8_t kv, int cx, int cy, const cc_image *out)
{
  const unsigned a = cc_qc_block_alpha (alpha, out->width, out->height, cx, cy);
  uint8_t *ou, *ov;
  cc_qc_chroma (out, cx, cy, &ou, &ov);
  *ou = cc_qc_blend (a, wu, ku);
  *ov = cc_qc_blend (a, wv, kv);
}

/* Debug view of one pixel (cc_quadcut_draw): px the frame's 4 bytes, ri the
 * byte of red (0 RGBX, 2 BGRX); writes o[0..2]. */
CC_HOSTDEV void cc_qc_level_colour (int level, uint8_t rgb[3])
{
  const uint8_t colours[8][3] = { { 40, 40, 40 }, { 0, 90, 255 }, { 0, 200, 255 },
                                  { 0, 220, 90 }, { 250, 220, 0 }, { 255, 120, 0 },
                                  { 255, 0, 160 }, { 255, 255, 255 } };
  const uint8_t *c = colours[level < 7 ? level : 7];
  rgb[0] = c[0];
  rgb[1] = c[1];
  rgb[2] = c[2];
}

CC_HOSTDEV void cc_qc_debug_pixel (const cc_quadcut_leaf *l, int x, int y, int seed,
    const uint8_t *px, int ri, uint8_t *o)
{
  if (x == l->x || y == l->y) {
    uint8_t c[3];
    cc_qc_level_colour (l->level, c);
    o[ri] = c[0];
    o[1] = c[1];
    o[2 - ri] = c[2];
  } else if (seed) {
    o[ri] = (uint8_t) ((px[ri] + 255 + 1) >> 1);
    o[1] = (uint8_t) ((px[1] + 1) >> 1);
    o[2 - ri] = (uint8_t) ((px[2 - ri] + 1) >> 1);
  } else {
    o[0] = px[0];
    o[1] = px[1];
    o[2] = px[2];
  }
}

/* Debug view on YUV: the luma of pixel (x, y) in leaf l, and the chroma of block
 * (cx, cy) by the state of its top-left pixel (in leaf l, seed or not): edge pixels
 * take the level colour's Y, U, V (cc_rgb_to_yuv), seeds go halfway to red's. */
CC_HOSTDEV void cc_qc_debug_luma (const cc_quadcut_leaf *l, int x, int y, int seed,
    const cc_image *f, const cc_image *out)
{
  uint8_t c[3], cy, cu, cv, p = *cc_qc_luma (f, x, y), o = p;
  if (x == l->x || y == l->y) {
    cc_qc_level_colour (l->level, c);
    cc_rgb_to_yuv (c[0], c[1], c[2], &cy, &cu, &cv);
    o = cy;
  } else if (seed) {
    cc_rgb_to_yuv (255, 0, 0, &cy, &cu, &cv);
    o = (uint8_t) ((p + cy + 1) >> 1);
  }
  *cc_qc_luma (out, x, y) = o;
}

CC_HOSTDEV void cc_qc_debug_chroma (const cc_quadcut_leaf *l, int cx, int cy, int seed,
    const cc_image *f, const cc_image *out)
{
  uint8_t c[3], ky, ku, kv, *fu, *fv, *ou, *ov;
  cc_qc_chroma (f, cx, cy, &fu, &fv);
  cc_qc_chroma (out, cx, cy, &ou, &ov);
  uint8_t u = *fu, v = *fv;
  if (2 * cx == l->x || 2 * cy == l->y) {
    cc_qc_level_colour (l->level, c);
    cc_rgb_to_yuv (c[0], c[1], c[2], &ky, &ku, &kv);
    u = ku;
    v = kv;
  } else if (seed) {
    cc_rgb_to_yuv (255, 0, 0, &ky, &ku, &kv);
    u = (uint8_t) ((u + ku + 1) >> 1);
    v = (uint8_t) ((v + kv + 1) >> 1);
  }
  *ou = u;
  *ov = v;
}


#endif
