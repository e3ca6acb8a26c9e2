/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-block formulas of block matching, shared by blockmatch.c (CPU reference)
 * and kernels/blockmatch.cu. Scores come from exact integer sums, and every
 * floating-point step below is one the C compiler and nvcc round identically, so
 * both backends pick the same vectors and sub-pixel offsets. */
#ifndef CUDACORE_BLOCKMATCH_HOSTDEV_H
#define CUDACORE_BLOCKMATCH_HOSTDEV_H

#include "cc_hostdev.h"

/* Sums of one candidate: template a, candidate b. */
typedef struct cc_bm_sums {
  long long sab, sb, sbb, sad;
} cc_bm_sums;

/* NCC from integer sums; 0 when either block is flat. */
CC_HOSTDEV double
cc_bm_ncc (long long n, long long sa, long long saa, long long sab, long long sb, long long sbb)
{
  long long va = n * saa - sa * sa, vb = n * sbb - sb * sb, num = n * sab - sa * sb;
  if (va <= 0 || vb <= 0)
    return 0.0;
  double den = sqrt ((double) va * (double) vb);
  return (double) num / den;
}

/* Cost (lower is better, >= 0) of a candidate: 1 - NCC, SSD or SAD. */
CC_HOSTDEV double
cc_bm_cost (int metric, long long n, long long sa, long long saa, const cc_bm_sums *s)
{
  if (metric == 1)        /* SSD */
    return (double) (saa - 2 * s->sab + s->sbb);
  if (metric == 2)        /* SAD */
    return (double) s->sad;
  double c = 1.0 - cc_bm_ncc (n, sa, saa, s->sab, s->sb, s->sbb);
  return c > 0.0 ? c : 0.0;
}

/* Order-preserving 32-bit key of a cost (float bits of a non-negative float). */
CC_HOSTDEV uint32_t
cc_bm_key (double cost)
{
  union { float f; uint32_t u; } k;
  k.f = (float) cost;
  return k.u;
}

CC_HOSTDEV float
cc_bm_key_value (uint32_t key)
{
  union { float f; uint32_t u; } k;
  k.u = key;
  return k.f;
}

/* Key with the tie-break: equal costs prefer the smaller displacement, then the
 * lower candidate index. */
CC_HOSTDEV unsigned long long
cc_bm_pack (uint32_t key, int dx, int dy, int index)
{
  unsigned rank = ((unsigned) (dx * dx + dy * dy) << 16) | (unsigned) index;
  return ((unsigned long long) key << 32) | rank;
}

/* Parabola vertex offset through costs at -1, 0, +1 (in [-0.5, 0.5]). */
CC_HOSTDEV float
cc_bm_parabola (float cm, float c0, float cp)
{
  float den = cm - 2.0f * c0 + cp;
  if (!(den > 0.0f))
    return 0.0f;
  float off = 0.5f * (cm - cp) / den;
  return cc_clampf (off, -0.5f, 0.5f);
}

/* Sub-pixel offsets of the best candidate (bdx, bdy in -r..r; index bc in the
 * side x side cost keys) from parabolas through its neighbours' costs; 0 on an axis
 * where it lies on the search border. */
CC_HOSTDEV void
cc_bm_subpixel (const uint32_t *keys, int side, int r, int bc, int bdx, int bdy,
    float best_cost, float *ox, float *oy)
{
  *ox = *oy = 0.0f;
  if (bdx > -r && bdx < r)
    *ox = cc_bm_parabola (cc_bm_key_value (keys[bc - 1]), best_cost,
        cc_bm_key_value (keys[bc + 1]));
  if (bdy > -r && bdy < r)
    *oy = cc_bm_parabola (cc_bm_key_value (keys[bc - side]), best_cost,
        cc_bm_key_value (keys[bc + side]));
}

/* Confidence from the NCC at the best match and the best / second-best costs. */
CC_HOSTDEV float
cc_bm_confidence (double ncc_best, float best, float second, int has_second)
{
  float uniq = 1.0f;
  if (has_second)
    uniq = second > 0.0f ? 1.0f - best / second : 0.0f;
  uniq = cc_clampf (uniq, 0.0f, 1.0f);
  float peak = ncc_best > 0.0 ? (float) ncc_best : 0.0f;
  return peak * uniq;
}

/* Is the block flat (standard deviation under t)? n^2 var = n saa - sa^2. */
CC_HOSTDEV int
cc_bm_flat (long long n, long long sa, long long saa, float t)
{
  double v = (double) (n * saa - sa * sa);
  return v < (double) n * (double) n * (double) t * (double) t || v <= 0.0;
}

/* Dense field: confidence-weighted bilinear interpolation of block vectors (frame
 * px) at pixel (x, y). vec: gw x gh float pairs, conf: gw x gh. */
CC_HOSTDEV void
cc_bm_dense_at (const float *vec, const float *conf, int gw, int gh, int block, int x,
    int y, float *u, float *v)
{
  float gx = cc_clampf ((x + 0.5f) / block - 0.5f, 0.0f, (float) (gw - 1));
  float gy = cc_clampf ((y + 0.5f) / block - 0.5f, 0.0f, (float) (gh - 1));
  int x0 = (int) gx, y0 = (int) gy;
  int x1 = x0 + 1 < gw ? x0 + 1 : x0, y1 = y0 + 1 < gh ? y0 + 1 : y0;
  float fx = gx - x0, fy = gy - y0;
  int idx[4] = { y0 * gw + x0, y0 * gw + x1, y1 * gw + x0, y1 * gw + x1 };
  float bil[4] = { (1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy };
  float su = 0.0f, sv = 0.0f, sw = 0.0f;
  for (int k = 0; k < 4; k++) {
    float w = bil[k] * (conf[idx[k]] + 1e-4f);
    su += w * vec[2 * idx[k]];
    sv += w * vec[2 * idx[k] + 1];
    sw += w;
  }
  *u = sw > 0.0f ? su / sw : 0.0f;
  *v = sw > 0.0f ? sv / sw : 0.0f;
}

#endif
