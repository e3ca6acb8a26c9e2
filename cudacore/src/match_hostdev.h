/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-seed formulas of the sparse matcher (cc_match), shared by match.c (CPU
 * reference) and kernels/match.cu: the census code, the patch cost, the
 * deterministic random search, one seed's propagation + search step, the final
 * sub-pixel / texture step and the forward-backward check. Costs are exact
 * integers and the few float steps are ones both compilers round alike
 * (match.cu is built without FMA contraction), so both backends give the same
 * matches bit for bit. */
#ifndef CUDACORE_MATCH_HOSTDEV_H
#define CUDACORE_MATCH_HOSTDEV_H

#include "cc_hostdev.h"
#include "cudacore/cc_epic.h"

/* 5x5 census (24 bits: neighbour brighter than the centre), on every level. */
#define CC_MATCH_CENSUS_RADIUS 2
/* Patch: 5x5 census codes sampled every 2 px (a 9x9 footprint). */
#define CC_MATCH_PATCH_RADIUS 4
#define CC_MATCH_PATCH_STRIDE 2
#define CC_MATCH_PATCH_SAMPLES 25
#define CC_MATCH_COST_MAX (24 * CC_MATCH_PATCH_SAMPLES)
/* Census planes are padded by the patch radius (codes of the border replicated),
 * so that a patch around any in-frame point reads without clamping. */
#define CC_MATCH_PAD CC_MATCH_PATCH_RADIUS
/* Random-search radius (level px) below the coarsest level. */
#define CC_MATCH_FINE_RADIUS 4
/* A coarser level exists only when it is at least this many px on each side. */
#define CC_MATCH_LEVEL_MIN 32
/* Texture test: the smaller eigenvalue of the structure tensor of the seed's 9x9
 * patch (central differences of the 8-bit luma, i.e. twice the derivative) must
 * reach this many quarters per pixel (0.5), else the seed is flat or on a straight
 * edge (aperture) and its match gets confidence 0. */
#define CC_MATCH_TEXTURE_MIN4 2
/* A match whose patch cost exceeds this percentage of CC_MATCH_COST_MAX is rejected
 * (unrelated patches cost about 50 %). */
#define CC_MATCH_COST_REJECT_PCT 35
/* Local support: a match survives only when at least SUPPORT_MIN of its 8 grid
 * neighbours' forward flows lie within SUPPORT_PX of its own (isolated outliers). */
#define CC_MATCH_SUPPORT_PX 3.0f
#define CC_MATCH_SUPPORT_MIN 4

/* Full unrolling of the fixed-size patch loops on the GPU (the patch stays in
 * registers); nothing on the CPU. */
#ifdef __CUDACC__
#define CC_MATCH_UNROLL _Pragma ("unroll")
#else
#define CC_MATCH_UNROLL
#endif

CC_HOSTDEV int
cc_match_popcount (uint32_t v)
{
#ifdef __CUDA_ARCH__
  return __popc (v);
#else
  return __builtin_popcount (v);
#endif
}

/* Grid: seed i = gy * gw + gx at (gx * step + step / 2, gy * step + step / 2),
 * clamped to the frame. */
CC_HOSTDEV int
cc_match_seed_coord (int g, int step, int size)
{
  int c = g * step + step / 2;
  return c < size ? c : size - 1;
}

/* 5x5 binomial smoothing ([1 4 6 4 1] / 16 per axis, borders replicated, rounded)
 * of pixel (x, y): the census is taken on this, which makes it tolerate the small
 * scale changes and rotations of large motions (Sintel market_5: the true match
 * beats 60 random displacements for 61 % of the 40+ px seeds instead of 50 %). */
CC_HOSTDEV uint16_t
cc_match_smooth (const uint16_t *img, int w, int h, int x, int y)
{
  const int k[5] = { 1, 4, 6, 4, 1 };
  int sum = 0;
  for (int dy = -2; dy <= 2; dy++) {
    const uint16_t *row = img + cc_clampi (y + dy, 0, h - 1) * w;
    int rs = 0;
    for (int dx = -2; dx <= 2; dx++)
      rs += k[dx + 2] * row[cc_clampi (x + dx, 0, w - 1)];
    sum += k[dy + 2] * rs;
  }
  return (uint16_t) ((sum + 128) >> 8);
}

/* Census code of pixel (x, y) of a w x h 8-bit image (neighbours replicated). */
CC_HOSTDEV uint32_t
cc_match_census (const uint16_t *img, int w, int h, int x, int y)
{
  int c = img[y * w + x];
  uint32_t code = 0;
  int bit = 0;
  for (int dy = -CC_MATCH_CENSUS_RADIUS; dy <= CC_MATCH_CENSUS_RADIUS; dy++) {
    const uint16_t *row = img + cc_clampi (y + dy, 0, h - 1) * w;
    for (int dx = -CC_MATCH_CENSUS_RADIUS; dx <= CC_MATCH_CENSUS_RADIUS; dx++) {
      if (dx == 0 && dy == 0)
        continue;
      code |= (uint32_t) (row[cc_clampi (x + dx, 0, w - 1)] > c) << bit;
      bit++;
    }
  }
  return code;
}

/* Pixel of the padded census plane at padded position (px, py): the code of the
 * nearest frame pixel. */
CC_HOSTDEV uint32_t
cc_match_census_padded (const uint16_t *img, int w, int h, int px, int py)
{
  return cc_match_census (img, w, h, cc_clampi (px - CC_MATCH_PAD, 0, w - 1),
      cc_clampi (py - CC_MATCH_PAD, 0, h - 1));
}

/* 32-bit mix (a murmur3-style finaliser): the random search's only source. */
CC_HOSTDEV uint32_t
cc_match_mix (uint32_t h)
{
  h ^= h >> 16;
  h *= 0x7feb352dU;
  h ^= h >> 15;
  h *= 0x846ca68bU;
  h ^= h >> 16;
  return h;
}

/* The random numbers of candidate k of seed i, iteration it, level l, direction d. */
CC_HOSTDEV uint32_t
cc_match_rand (int seed, int level, int iteration, int k, int dir, int axis)
{
  uint32_t h = cc_match_mix ((uint32_t) seed * 0x9E3779B1U + 0x632BE5ABU);
  h = cc_match_mix (h ^ ((uint32_t) level << 24 | (uint32_t) iteration << 16
          | (uint32_t) k << 8 | (uint32_t) dir << 1 | (uint32_t) axis));
  return h;
}

/* One level's view of one direction (dir 0: frame 1 -> 2, dir 1: 2 -> 1). */
typedef struct cc_match_view {
  const uint32_t *from, *to;   /* padded census planes, origin at (PAD, PAD) */
  int pitch;                   /* elements per padded row: w + 2 PAD */
  int w, h;                    /* level size */
  int level, gw, gh, step;     /* level 0 grid (seed positions in frame px) */
  int full_w, full_h;
  int maxd;                    /* displacement bound per axis, level px */
  int radius;                  /* first random-search radius, level px */
  int radius_top;              /* coarsest level: radii halve from the bound; below
                                  it: the bound, then FINE_RADIUS, halving */
  int dir;
  int *flow;                   /* integer (u, v) per seed, level px */
  int *cost;                   /* patch cost of that flow */
} cc_match_view;

CC_HOSTDEV void
cc_match_seed_pos (const cc_match_view *v, int seed, int *x, int *y)
{
  int gx = seed % v->gw, gy = seed / v->gw;
  *x = cc_match_seed_coord (gx, v->step, v->full_w) >> v->level;
  *y = cc_match_seed_coord (gy, v->step, v->full_h) >> v->level;
}

/* The seed's own patch (25 codes of `from`). */
CC_HOSTDEV void
cc_match_load_patch (const cc_match_view *v, int x, int y, uint32_t *patch)
{
  int k = 0;
  CC_MATCH_UNROLL
  for (int dy = -CC_MATCH_PATCH_RADIUS; dy <= CC_MATCH_PATCH_RADIUS; dy += CC_MATCH_PATCH_STRIDE) {
    const uint32_t *row = v->from + (y + CC_MATCH_PAD + dy) * v->pitch + x + CC_MATCH_PAD;
    CC_MATCH_UNROLL
    for (int dx = -CC_MATCH_PATCH_RADIUS; dx <= CC_MATCH_PATCH_RADIUS; dx += CC_MATCH_PATCH_STRIDE)
      patch[k++] = row[dx];
  }
}

/* Hamming cost of the patch against `to` at in-frame point (x, y). */
CC_HOSTDEV int
cc_match_patch_cost (const cc_match_view *v, const uint32_t *patch, int x, int y)
{
  int cost = 0, k = 0;
  CC_MATCH_UNROLL
  for (int dy = -CC_MATCH_PATCH_RADIUS; dy <= CC_MATCH_PATCH_RADIUS; dy += CC_MATCH_PATCH_STRIDE) {
    const uint32_t *row = v->to + (y + CC_MATCH_PAD + dy) * v->pitch + x + CC_MATCH_PAD;
    CC_MATCH_UNROLL
    for (int dx = -CC_MATCH_PATCH_RADIUS; dx <= CC_MATCH_PATCH_RADIUS; dx += CC_MATCH_PATCH_STRIDE)
      cost += cc_match_popcount (patch[k++] ^ row[dx]);
  }
  return cost;
}

/* A candidate flow bounded by maxd and kept inside the level. */
CC_HOSTDEV void
cc_match_clamp (const cc_match_view *v, int x, int y, int *u, int *w)
{
  int lo = -x > -v->maxd ? -x : -v->maxd, hi = v->w - 1 - x < v->maxd ? v->w - 1 - x : v->maxd;
  *u = cc_clampi (*u, lo, hi);
  lo = -y > -v->maxd ? -y : -v->maxd;
  hi = v->h - 1 - y < v->maxd ? v->h - 1 - y : v->maxd;
  *w = cc_clampi (*w, lo, hi);
}

/* Ordering of candidates: lower cost, then smaller displacement. */
CC_HOSTDEV unsigned long long
cc_match_key (int cost, int u, int v)
{
  return ((unsigned long long) (unsigned) cost << 32) | (unsigned) (u * u + v * v);
}

/* Level start: the flow of the coarser level doubled (scale 2), or zero at the
 * coarsest (scale 0); bounded, and its cost on this level. */
CC_HOSTDEV void
cc_match_seed_init (const cc_match_view *v, int seed, int scale)
{
  int x, y;
  cc_match_seed_pos (v, seed, &x, &y);
  int u = v->flow[2 * seed] * scale, w = v->flow[2 * seed + 1] * scale;
  cc_match_clamp (v, x, y, &u, &w);
  uint32_t patch[CC_MATCH_PATCH_SAMPLES];
  cc_match_load_patch (v, x, y, patch);
  v->flow[2 * seed] = u;
  v->flow[2 * seed + 1] = w;
  v->cost[seed] = cc_match_patch_cost (v, patch, x + u, y + w);
}

/* One candidate flow (u, w) of the seed at (x, y), clamped to the bounds: taken
 * when its key (cost, then the smaller displacement) beats *best. The current best
 * itself is not scored again. */
CC_HOSTDEV void
cc_match_try (const cc_match_view *v, const uint32_t *patch, int x, int y, int u, int w,
    unsigned long long *best, int *bu, int *bv)
{
  cc_match_clamp (v, x, y, &u, &w);
  if (u == *bu && w == *bv)
    return;
  unsigned long long k = cc_match_key (cc_match_patch_cost (v, patch, x + u, y + w), u, w);
  if (k < *best) {
    *best = k;
    *bu = u;
    *bv = w;
  }
}

/* One propagation + random-search step of a seed: the flows of its 4 grid
 * neighbours, then random candidates around the best so far in windows of
 * radius, radius / 2, ..., 1. The caller updates the seeds in two colours
 * (checkerboard of the grid): a seed reads only other-coloured neighbours, so the
 * result does not depend on the order within a colour. */
CC_HOSTDEV void
cc_match_seed_step (const cc_match_view *v, int seed, int iteration)
{
  int x, y;
  cc_match_seed_pos (v, seed, &x, &y);
  uint32_t patch[CC_MATCH_PATCH_SAMPLES];
  cc_match_load_patch (v, x, y, patch);
  int bu = v->flow[2 * seed], bv = v->flow[2 * seed + 1];
  unsigned long long best = cc_match_key (v->cost[seed], bu, bv);
  int gx = seed % v->gw, gy = seed / v->gw;
  const int nx[4] = { -1, 1, 0, 0 }, ny[4] = { 0, 0, -1, 1 };
  for (int n = 0; n < 4; n++) {
    int qx = gx + nx[n], qy = gy + ny[n];
    if (qx < 0 || qy < 0 || qx >= v->gw || qy >= v->gh)
      continue;
    int q = qy * v->gw + qx;
    cc_match_try (v, patch, x, y, v->flow[2 * q], v->flow[2 * q + 1], &best, &bu, &bv);
  }
  int k = 0;
  for (int r = v->radius; r >= 1; r = r > CC_MATCH_FINE_RADIUS ? (v->radius_top ? r >> 1
          : CC_MATCH_FINE_RADIUS) : r >> 1, k++) {
    int span = 2 * r + 1;
    int u = bu + (int) (cc_match_rand (seed, v->level, iteration, k, v->dir, 0) % (uint32_t) span) - r;
    int w = bv + (int) (cc_match_rand (seed, v->level, iteration, k, v->dir, 1) % (uint32_t) span) - r;
    cc_match_try (v, patch, x, y, u, w, &best, &bu, &bv);
  }
  v->flow[2 * seed] = bu;
  v->flow[2 * seed + 1] = bv;
  v->cost[seed] = (int) (best >> 32);
}

/* Parabola vertex offset through costs at -1, 0, +1 (in [-0.5, 0.5]); integer
 * costs, so the float steps are exact but the last division. Zero cost: no offset. */
CC_HOSTDEV float
cc_match_parabola (int cm, int c0, int cp)
{
  int den = cm - 2 * c0 + cp;
  if (den <= 0 || c0 == 0)   /* a perfect census match stays on its pixel */
    return 0.0f;
  float off = 0.5f * (float) (cm - cp) / (float) den;
  return cc_clampf (off, -0.5f, 0.5f);
}

/* Is the seed's 9x9 patch of the 8-bit luma textured in both directions? Exact
 * integer test of lambda_min (structure tensor) >= n T. */
CC_HOSTDEV int
cc_match_textured (const uint16_t *img, int w, int h, int x, int y)
{
  long long a = 0, b = 0, c = 0, n = 0;
  for (int dy = -CC_MATCH_PATCH_RADIUS; dy <= CC_MATCH_PATCH_RADIUS; dy++) {
    int yy = cc_clampi (y + dy, 0, h - 1);
    const uint16_t *row = img + yy * w;
    const uint16_t *up = img + cc_clampi (yy - 1, 0, h - 1) * w;
    const uint16_t *dn = img + cc_clampi (yy + 1, 0, h - 1) * w;
    for (int dx = -CC_MATCH_PATCH_RADIUS; dx <= CC_MATCH_PATCH_RADIUS; dx++) {
      int xx = cc_clampi (x + dx, 0, w - 1);
      int gx = cc_luma8_of (row[cc_clampi (xx + 1, 0, w - 1)])
          - cc_luma8_of (row[cc_clampi (xx - 1, 0, w - 1)]);
      int gy = cc_luma8_of (dn[xx]) - cc_luma8_of (up[xx]);
      a += gx * gx;
      b += gx * gy;
      c += gy * gy;
      n++;
    }
  }
  /* 4 lambda_min = 2 (a + c) - 2 sqrt ((a - c)^2 + 4 b^2) >= n T4 */
  long long s = 2 * (a + c) - n * CC_MATCH_TEXTURE_MIN4;
  return s >= 0 && s * s >= 4 * ((a - c) * (a - c) + 4 * b * b);
}

/* Level 0 end: sub-pixel offsets (parabola per axis through the costs of the
 * neighbouring integer flows, where they stay inside the frame and the bound) and
 * the texture flag. out: float u, v (frame px); *cost_out; returns textured. */
CC_HOSTDEV int
cc_match_seed_finish (const cc_match_view *v, const uint16_t *luma_from, int seed,
    float *u_out, float *v_out)
{
  int x, y;
  cc_match_seed_pos (v, seed, &x, &y);
  uint32_t patch[CC_MATCH_PATCH_SAMPLES];
  cc_match_load_patch (v, x, y, patch);
  int u = v->flow[2 * seed], w = v->flow[2 * seed + 1], c0 = v->cost[seed];
  float ou = 0.0f, ov = 0.0f;
  if (x + u - 1 >= 0 && x + u + 1 <= v->w - 1 && u - 1 >= -v->maxd && u + 1 <= v->maxd)
    ou = cc_match_parabola (cc_match_patch_cost (v, patch, x + u - 1, y + w), c0,
        cc_match_patch_cost (v, patch, x + u + 1, y + w));
  if (y + w - 1 >= 0 && y + w + 1 <= v->h - 1 && w - 1 >= -v->maxd && w + 1 <= v->maxd)
    ov = cc_match_parabola (cc_match_patch_cost (v, patch, x + u, y + w - 1), c0,
        cc_match_patch_cost (v, patch, x + u, y + w + 1));
  *u_out = (float) u + ou;
  *v_out = (float) w + ov;
  return cc_match_textured (luma_from, v->w, v->h, x, y);
}

/* Confidence of a surviving match: the cost (0 for identical patches, about half
 * of CC_MATCH_COST_MAX for unrelated ones) times the forward-backward agreement. */
CC_HOSTDEV float
cc_match_confidence (int cost, float fb_error, float fb_threshold)
{
  float q_cost = cc_clampf (1.0f - (float) cost / (0.5f * (float) CC_MATCH_COST_MAX), 0.05f, 1.0f);
  float q_fb = 1.0f - 0.5f * fb_error / fb_threshold;
  return q_cost * q_fb;
}

/* Final match of forward seed i from the forward (fu, fv: 2 floats per seed) and
 * backward results and the texture flags: textured, cost, displacement-limit, local
 * support and forward-backward tests; rejected ones get zero vectors. A match held
 * at the search's displacement limit (max_disp px on an axis) stands for a motion
 * the search could not reach, such as a target outside the frame, and its backward
 * match, held at the limit too, passes the forward-backward test: it is rejected. */
CC_HOSTDEV cc_flow_match
cc_match_fb (const float *fwd, const float *bwd, const int *fwd_cost,
    const unsigned char *textured, int gw, int gh, int step, int w, int h,
    float fb_threshold, float max_disp, int seed)
{
  cc_flow_match m;
  int gx = seed % gw, gy = seed / gw;
  int x = cc_match_seed_coord (gx, step, w), y = cc_match_seed_coord (gy, step, h);
  m.x = (float) x;
  m.y = (float) y;
  m.u = 0.0f;
  m.v = 0.0f;
  m.confidence = 0.0f;
  if (!textured[seed] || fwd_cost[seed] * 100 > CC_MATCH_COST_REJECT_PCT * CC_MATCH_COST_MAX)
    return m;
  float u = fwd[2 * seed], v = fwd[2 * seed + 1];
  if (!(fabsf (u) < max_disp - 0.5f && fabsf (v) < max_disp - 0.5f))
    return m;
  int support = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int qx = gx + dx, qy = gy + dy;
      if ((dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= gw || qy >= gh)
        continue;
      float du = fwd[2 * (qy * gw + qx)] - u, dv = fwd[2 * (qy * gw + qx) + 1] - v;
      support += du * du + dv * dv <= CC_MATCH_SUPPORT_PX * CC_MATCH_SUPPORT_PX;
    }
  if (support < CC_MATCH_SUPPORT_MIN)
    return m;
  float tx = (float) x + u, ty = (float) y + v;
  int half = step / 2;
  int bx = cc_clampi ((int) floorf ((tx - (float) half) / (float) step + 0.5f), 0, gw - 1);
  int by = cc_clampi ((int) floorf ((ty - (float) half) / (float) step + 0.5f), 0, gh - 1);
  int b = by * gw + bx;
  float eu = u + bwd[2 * b], ev = v + bwd[2 * b + 1];
  float err = sqrtf (eu * eu + ev * ev);
  if (!(err <= fb_threshold))
    return m;
  m.u = u;
  m.v = v;
  m.confidence = cc_match_confidence (fwd_cost[seed], err, fb_threshold);
  return m;
}

#endif
