/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EPIC interpolation: the per-pixel and per-seed steps shared by interp.c (CPU
 * reference) and kernels/interp.cu. Integer blur, then IEEE operations that the C
 * compiler and nvcc (built with -fmad=false) round alike: the cost map, the
 * geodesic keys, the seed graph and each seed's k nearest neighbours are the same
 * bits on both backends; so are the affine fits (double sums, a polynomial exp). */
#ifndef CUDACORE_INTERP_HOSTDEV_H
#define CUDACORE_INTERP_HOSTDEV_H

#include "cc_hostdev.h"
#include "blockmatch_hostdev.h"
#include "interp_internal.h"

/* A geodesic key: (float bits of the distance) << 32 | label. Distances are >= 0,
 * so the float bits order like the numbers and the smallest key is the nearest
 * seed, ties to the lower label. */
#define CC_INTERP_KEY_NONE 0xFFFFFFFFFFFFFFFFull

CC_HOSTDEV float
cc_interp_key_dist (uint64_t key)
{
  union { uint32_t u; float f; } c;
  c.u = (uint32_t) (key >> 32);
  return c.f;
}

CC_HOSTDEV int
cc_interp_key_label (uint64_t key)
{
  return (int) (uint32_t) (key & 0xFFFFFFFFu);
}

CC_HOSTDEV uint64_t
cc_interp_key (float dist, int label)
{
  union { uint32_t u; float f; } c;
  c.f = dist;
  return ((uint64_t) c.u << 32) | (uint32_t) label;
}

/* 5-tap binomial (1 4 6 4 1) of five values (borders replicated by the caller). */
CC_HOSTDEV int
cc_interp_binomial5 (int a, int b, int c, int d, int e)
{
  return a + 4 * b + 6 * c + 4 * d + e;
}

/* Cost of a pixel from its blurred neighbours (each the 2D binomial sum, 256 x luma):
 * flat_cost + edge_weight * |grad|, |grad| in luma levels per pixel (central
 * differences of the blurred luma). */
CC_HOSTDEV float
cc_interp_cost (int left, int right, int up, int down, float flat_cost, float edge_weight)
{
  float gx = (float) (right - left) * (0.5f / 256.0f);
  float gy = (float) (down - up) * (0.5f / 256.0f);
  float g = sqrtf (gx * gx + gy * gy);
  return flat_cost + edge_weight * g;
}

/* Cost of the step between two 8-neighbours: the mean of their costs times the
 * step length (1 or sqrt 2). Symmetric in a, b. */
CC_HOSTDEV float
cc_interp_step (float ca, float cb, int diagonal)
{
  return (ca + cb) * (diagonal ? 0.70710678f : 0.5f);
}

/* The key a pixel gets through its neighbour's key nk at step cost w. */
CC_HOSTDEV uint64_t
cc_interp_relax (uint64_t nk, float w)
{
  if (nk == CC_INTERP_KEY_NONE)
    return CC_INTERP_KEY_NONE;
  return cc_interp_key (cc_interp_key_dist (nk) + w, cc_interp_key_label (nk));
}

/* Cost of the seed-graph edge through the 4-neighbour pixels p, q of two cells:
 * d(p) + step + d(q), added in this order on both backends. */
/* The neighbour of pixel (x, y) of a w x h map that the seed graph looks across:
 * right (dir 0) or below (dir 1); its index, or -1 off the map. */
CC_HOSTDEV long long
cc_interp_edge_neighbour (int x, int y, int w, int h, int dir)
{
  if ((dir == 0 && x + 1 >= w) || (dir == 1 && y + 1 >= h))
    return -1;
  return (long long) y * w + x + (dir == 0 ? 1 : w);
}

/* Do two neighbouring pixels of keys kp and kq join two different seeds (an edge
 * of the seed graph)? */
CC_HOSTDEV int
cc_interp_edge_joins (uint64_t kp, uint64_t kq)
{
  return kp != CC_INTERP_KEY_NONE && kq != CC_INTERP_KEY_NONE
      && cc_interp_key_label (kp) != cc_interp_key_label (kq);
}

CC_HOSTDEV float
cc_interp_edge_cost (uint64_t kp, uint64_t kq, float cp, float cq)
{
  return (cc_interp_key_dist (kp) + cc_interp_step (cp, cq, 0)) + cc_interp_key_dist (kq);
}

/* Is match m a seed candidate: confidence > 0, finite, its rounded pixel in the
 * frame. Writes the pixel. */
CC_HOSTDEV int
cc_interp_match_pixel (const cc_flow_match *m, int w, int h, int *px, int *py)
{
  if (!(m->confidence > 0.0f) || !(m->u == m->u) || !(m->v == m->v)
      || !(fabsf (m->u) < 1e6f) || !(fabsf (m->v) < 1e6f))
    return 0;
  if (!(m->x >= -0.5f && m->y >= -0.5f && m->x < (float) w - 0.5f
          && m->y < (float) h - 0.5f))
    return 0;
  *px = cc_clampi ((int) floorf (m->x + 0.5f), 0, w - 1);
  *py = cc_clampi ((int) floorf (m->y + 0.5f), 0, h - 1);
  return 1;
}

/* Home slot of an edge key in the 2^bits-slot table (Fibonacci hashing). */
CC_HOSTDEV uint32_t
cc_interp_table_slot (uint64_t key, int bits)
{
  return (uint32_t) ((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/* Edge key of the unordered pair (a, b): lower << 32 | higher. */
CC_HOSTDEV uint64_t
cc_interp_edge_key (int a, int b)
{
  return a < b ? ((uint64_t) a << 32 | (uint32_t) b) : ((uint64_t) b << 32 | (uint32_t) a);
}

/* Sorts one node's adjacency list by neighbour (insertion sort: lists are short). */
CC_HOSTDEV void
cc_interp_sort_adjacency (int *node, float *cost, int count)
{
  for (int i = 1; i < count; i++) {
    int n = node[i];
    float c = cost[i];
    int j = i - 1;
    while (j >= 0 && node[j] > n) {
      node[j + 1] = node[j];
      cost[j + 1] = cost[j];
      j--;
    }
    node[j + 1] = n;
    cost[j + 1] = c;
  }
}

/* exp (-x) for x >= 0 in double with + and * only (and an exact power of two), so
 * that both backends round it alike. Relative error < 1e-12. */
CC_HOSTDEV double
cc_interp_exp_neg (double x)
{
  if (!(x < 700.0))
    return 0.0;
  /* -x = k ln2 + r, |r| <= ln2 / 2 */
  int k = (int) (x * 1.4426950408889634 + 0.5);
  double r = -x + (double) k * 0.6931471805599453;
  double p = 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  /* 2^-k, k in 0..1010: halve by factors of 2^-64 then the rest */
  double s = 1.0;
  while (k >= 64) {
    s *= 5.421010862427522e-20;   /* 2^-64 */
    k -= 64;
  }
  return p * s / (double) ((uint64_t) 1 << k);
}

/* The k nearest seeds of seed `src` on the seed graph (CSR: offsets[node] ..
 * offsets[node + 1] into adj_node / adj_cost, sorted by neighbour), src first at
 * distance 0, by Dijkstra with ties to the lower node. Candidates beyond
 * CC_INTERP_CANDIDATES drop the farthest (same rule on both backends). Returns
 * the number found (<= k) in nodes / dists. */
CC_HOSTDEV int
cc_interp_knn (const int *offsets, const int *adj_node, const float *adj_cost, int src,
    int k, int *nodes, float *dists, int *cand_node, float *cand_dist)
{
  int found = 0, ncand = 1;
  cand_node[0] = src;
  cand_dist[0] = 0.0f;
  while (found < k && ncand > 0) {
    int best = 0;
    for (int i = 1; i < ncand; i++)
      if (cand_dist[i] < cand_dist[best]
          || (cand_dist[i] == cand_dist[best] && cand_node[i] < cand_node[best]))
        best = i;
    int u = cand_node[best];
    float du = cand_dist[best];
    cand_node[best] = cand_node[ncand - 1];
    cand_dist[best] = cand_dist[ncand - 1];
    ncand--;
    nodes[found] = u;
    dists[found] = du;
    found++;
    if (found == k)
      break;
    for (int e = offsets[u]; e < offsets[u + 1]; e++) {
      int v = adj_node[e];
      float dv = du + adj_cost[e];
      int settled = 0;
      for (int i = 0; i < found && !settled; i++)
        settled = nodes[i] == v;
      if (settled)
        continue;
      int at = -1;
      for (int i = 0; i < ncand; i++)
        if (cand_node[i] == v) {
          at = i;
          break;
        }
      if (at >= 0) {
        if (dv < cand_dist[at])
          cand_dist[at] = dv;
        continue;
      }
      if (ncand < CC_INTERP_CANDIDATES) {
        cand_node[ncand] = v;
        cand_dist[ncand] = dv;
        ncand++;
        continue;
      }
      /* full: replace the farthest candidate (ties: the higher node) if v is nearer */
      int worst = 0;
      for (int i = 1; i < ncand; i++)
        if (cand_dist[i] > cand_dist[worst]
            || (cand_dist[i] == cand_dist[worst] && cand_node[i] > cand_node[worst]))
          worst = i;
      if (dv < cand_dist[worst] || (dv == cand_dist[worst] && v < cand_node[worst])) {
        cand_node[worst] = v;
        cand_dist[worst] = dv;
      }
    }
  }
  return found;
}

/* The weight of a neighbour at seed-graph distance `dist`: exp (-dist / sigma),
 * floored at 1e-30 (inv_sigma = 1.0 / sigma in double). */
CC_HOSTDEV double
cc_interp_weight (float dist, double inv_sigma)
{
  double w = cc_interp_exp_neg ((double) dist * inv_sigma);
  return w < 1e-30 ? 1e-30 : w;
}

/* What cc_interp_fit_points fits: the weighted mean (Nadaraya-Watson), the
 * locally-weighted affine fit, or the mean with the affine fit's gradient (the trend
 * that cc_interp_apply continues beyond its reach). */
#define CC_INTERP_FIT_MEAN 0
#define CC_INTERP_FIT_AFFINE 1
#define CC_INTERP_FIT_MEAN_TREND 2

/* The model of one seed from its neighbours' matches pts[0 .. count) (pts[0] the
 * seed's own) and their weights: flow(x, y) = c + a (x - sx) + b (y - sy)
 * per component: `affine` CC_INTERP_FIT_AFFINE, a locally-weighted affine fit;
 * CC_INTERP_FIT_MEAN_TREND, c the weighted mean and a, b the affine fit's; else (or
 * with fewer than 3 neighbours or an ill-conditioned fit) the weighted mean
 * (Nadaraya-Watson), a = b = 0. With robust > 0 and a mean (not CC_INTERP_FIT_AFFINE),
 * c is the robust mean: the weights times exp (-|f_i - m|^2 / robust^2) about the
 * weighted mean m, the mean taken again (one reweighting; all of them 0, far from
 * m: m kept). model (CC_INTERP_MODEL floats): cu, au, bu, cv, av, bv, then
 * the spread and the mean match confidence of the neighbours (for the confidence;
 * about the plain weighted mean m). rweights: the robust weights
 * (cc_interp_robust_weight of each point about cc_interp_weighted_mean), or NULL to
 * compute them here. The sums run in index order on both backends (the CUDA twin
 * gathers pts and weights, and computes the robust weights, over a warp first). */
/* The robust mean's scale term: 1 / robust^2 (robust > 0). */
CC_HOSTDEV double
cc_interp_robust_inv_r2 (float robust)
{
  return 1.0 / ((double) robust * (double) robust);
}

/* The weighted mean (mu, mv) of the flows of pts[0 .. count): the sums in index order,
 * the same bits as cc_interp_fit_points's mean. */
CC_HOSTDEV void
cc_interp_weighted_mean (const cc_flow_match *pts, const double *weights, int count,
    double *mu, double *mv)
{
  double sw = 0, su = 0, sv = 0;
  for (int i = 0; i < count; i++) {
    double w = weights[i], u = pts[i].u, v = pts[i].v;
    sw += w;
    su += w * u;
    sv += w * v;
  }
  *mu = su / sw;
  *mv = sv / sw;
}

/* The robust mean's weight of a neighbour p of weight w about the weighted mean
 * (mu, mv): w exp (-|f - m|^2 / robust^2). */
CC_HOSTDEV double
cc_interp_robust_weight (const cc_flow_match *p, double w, double mu, double mv, double inv_r2)
{
  double du = (double) p->u - mu, dv = (double) p->v - mv;
  return w * cc_interp_exp_neg ((du * du + dv * dv) * inv_r2);
}

CC_HOSTDEV void
cc_interp_fit_points (const cc_flow_match *pts, const double *weights, int count, int affine,
    float robust, const double *rweights, float *model)
{
  const cc_flow_match *s = &pts[0];
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  double su = 0, sxu = 0, syu = 0, sv = 0, sxv = 0, syv = 0;
  for (int i = 0; i < count; i++) {
    const cc_flow_match *m = &pts[i];
    double w = weights[i];
    double dx = (double) m->x - (double) s->x, dy = (double) m->y - (double) s->y;
    double u = m->u, v = m->v;
    sw += w;
    sx += w * dx;
    sy += w * dy;
    sxx += w * dx * dx;
    sxy += w * dx * dy;
    syy += w * dy * dy;
    su += w * u;
    sxu += w * dx * u;
    syu += w * dy * u;
    sv += w * v;
    sxv += w * dx * v;
    syv += w * dy * v;
  }
  model[0] = (float) (su / sw);
  model[1] = 0.0f;
  model[2] = 0.0f;
  model[3] = (float) (sv / sw);
  model[4] = 0.0f;
  model[5] = 0.0f;
  /* what the confidence reads (cc_interp_pixel_confidence): the weighted spread of
   * the neighbours' flows about their mean (px^2) and their weighted mean match
   * confidence; a second pass over the points, in index order */
  double mu = su / sw, mv = sv / sw, ss = 0, sq = 0;
  for (int i = 0; i < count; i++) {
    double du = (double) pts[i].u - mu, dv = (double) pts[i].v - mv;
    ss += weights[i] * (du * du + dv * dv);
    sq += weights[i] * (double) pts[i].confidence;
  }
  model[6] = (float) (ss / sw);
  model[7] = (float) (sq / sw);
  if (robust > 0.0f && affine != CC_INTERP_FIT_AFFINE) {
    /* one reweighting about m (a Gaussian M-estimator step): neighbours on another
     * motion or outlier matches weigh less, the seed gets the dominant motion */
    double inv_r2 = cc_interp_robust_inv_r2 (robust), rw = 0, ru = 0, rv = 0;
    for (int i = 0; i < count; i++) {
      double w = rweights ? rweights[i]
          : cc_interp_robust_weight (&pts[i], weights[i], mu, mv, inv_r2);
      rw += w;
      ru += w * pts[i].u;
      rv += w * pts[i].v;
    }
    if (rw > 0.0) {
      model[0] = (float) (ru / rw);
      model[3] = (float) (rv / rw);
    }
  }
  if (affine == CC_INTERP_FIT_MEAN || count < 3)
    return;
  /* normal equations [sxx sxy sx; sxy syy sy; sx sy sw] [a b c] = [sxu syu su] */
  double c00 = syy * sw - sy * sy, c01 = sy * sx - sxy * sw, c02 = sxy * sy - syy * sx;
  double c11 = sxx * sw - sx * sx, c12 = sxy * sx - sxx * sy;
  double c22 = sxx * syy - sxy * sxy;
  double det = sxx * c00 + sxy * c01 + sx * c02;
  /* ill-conditioned (neighbours on a line or one point): keep the mean. The scale:
   * det of the same moments with uncorrelated x, y */
  double scale = sxx * syy * sw;
  if (!(det > 1e-3 * scale) || !(scale > 0.0))
    return;
  double inv = 1.0 / det;
  double au = (c00 * sxu + c01 * syu + c02 * su) * inv;
  double bu = (c01 * sxu + c11 * syu + c12 * su) * inv;
  double cu = (c02 * sxu + c12 * syu + c22 * su) * inv;
  double av = (c00 * sxv + c01 * syv + c02 * sv) * inv;
  double bv = (c01 * sxv + c11 * syv + c12 * sv) * inv;
  double cv = (c02 * sxv + c12 * syv + c22 * sv) * inv;
  if (affine == CC_INTERP_FIT_AFFINE) {
    model[0] = (float) cu;
    model[3] = (float) cv;
  }
  model[1] = (float) au;
  model[2] = (float) bu;
  model[4] = (float) av;
  model[5] = (float) bv;
}

/* The model of one seed (node = 2 x 2 block, owner[node] its match) from its k
 * nearest seeds nodes / dists (cc_interp_knn), weights exp (-D / sigma): gathers
 * the matches and weights (count <= 128) and runs cc_interp_fit_points. */
CC_HOSTDEV void
cc_interp_fit (const cc_flow_match *matches, const int *owner, const int *nodes,
    const float *dists, int count, float sigma, int affine, float robust, float *model)
{
  cc_flow_match pts[128];
  double weights[128];
  double inv_sigma = 1.0 / (double) sigma;
  for (int i = 0; i < count; i++) {
    pts[i] = matches[owner[nodes[i]]];
    weights[i] = cc_interp_weight (dists[i], inv_sigma);
  }
  cc_interp_fit_points (pts, weights, count, affine, robust, NULL, model);
}

/* Confidence of the interpolated flow at pixel (x, y), whose nearest seed (by
 * geodesic distance) sits at (sx, sy) with model m (cc_interp_fit_points), in [0, 1]:
 *   q * exp (-max (0, d - CC_INTERP_CONF_REACH) / CC_INTERP_CONF_FALLOFF)
 *     * exp (-spread / (CC_INTERP_CONF_SPREAD + CC_INTERP_CONF_SPREAD_REL |f|^2))
 * q the neighbours' mean match confidence, d the distance to the seed in px (far
 * from every match, e.g. across a flat background, the field is borrowed: low),
 * spread the weighted variance of the neighbours' flows about the model's mean
 * (neighbours that disagree, at motion boundaries and outliers: low), f that mean. */
#define CC_INTERP_CONF_REACH 4.0f
#define CC_INTERP_CONF_FALLOFF 6.0f
#define CC_INTERP_CONF_SPREAD 1.0f
#define CC_INTERP_CONF_SPREAD_REL 0.01f

CC_HOSTDEV float
cc_interp_pixel_confidence (const float *m, float sx, float sy, int x, int y)
{
  float dx = (float) x - sx, dy = (float) y - sy;
  float d = sqrtf (dx * dx + dy * dy) - CC_INTERP_CONF_REACH;
  float f2 = m[0] * m[0] + m[3] * m[3];
  float e = (d > 0.0f ? d : 0.0f) * (1.0f / CC_INTERP_CONF_FALLOFF)
      + m[6] / (CC_INTERP_CONF_SPREAD + CC_INTERP_CONF_SPREAD_REL * f2);
  float c = m[7] * expf (-e);
  return c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
}

/* Flow of pixel (x, y) of a w x h frame in the cell of seed s (its match position
 * sx, sy). reach 0: the model as it is. reach > 0 (the weighted mean with its trend,
 * cc_interp_params.extrapolate): the mean plus the trend over the distance from the
 * seed beyond reach where that flow's target falls outside the frame (no match can
 * exist there), else the mean. */
CC_HOSTDEV void
cc_interp_apply (const float *model, float sx, float sy, int x, int y, int w, int h,
    float reach, float *u, float *v)
{
  const float dx = (float) x - sx, dy = (float) y - sy;
  if (reach > 0.0f) {
    /* the trend over the distance from the seed beyond reach, kept where it takes
     * the pixel out of the frame */
    const float d = sqrtf (dx * dx + dy * dy);
    const float f = d > reach ? 1.0f - reach / d : 0.0f;
    const float tu = model[0] + (model[1] * dx + model[2] * dy) * f;
    const float tv = model[3] + (model[4] * dx + model[5] * dy) * f;
    const float tx = (float) x + tu, ty = (float) y + tv;
    const int out = !(tx >= 0.0f && ty >= 0.0f && tx <= (float) (w - 1)
        && ty <= (float) (h - 1));
    *u = out ? tu : model[0];
    *v = out ? tv : model[3];
    return;
  }
  *u = model[0] + model[1] * dx + model[2] * dy;
  *v = model[3] + model[4] * dx + model[5] * dy;
}

#endif
