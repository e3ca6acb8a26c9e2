/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-cell rules of all-pairs shortest paths, shared by apsp.c (CPU reference)
 * and kernels/apsp.cu: the Floyd-Warshall relaxation and the next-hop rule of
 * cc_apsp.h. */
#ifndef CUDACORE_APSP_HOSTDEV_H
#define CUDACORE_APSP_HOSTDEV_H

#include "cc_hostdev.h"

/* d(i,j) after relaxing it through k: min(d(i,j), d(i,k) + d(k,j)). */
CC_HOSTDEV float cc_apsp_relax (float d_ij, float d_ik, float d_kj)
{
  return fminf (d_ij, d_ik + d_kj);
}

/* The next hop from i towards j before any arc is seen: i itself when i == j, -1
 * (none) otherwise; *best_len starts at infinity. */
CC_HOSTDEV int32_t cc_apsp_next_hop_start (int i, int j, float *best_len)
{
  *best_len = INFINITY;
  return i == j ? i : -1;
}

/* Does the search over i's arcs run? (j != i and j reachable from i) */
CC_HOSTDEV int cc_apsp_next_hop_searched (int i, int j, float d_ij)
{
  return i != j && d_ij < INFINITY;
}

/* One arc i -> v of weight w in the search, in arc order: v becomes the next hop
 * when it lies strictly closer to j (d(v,j) < d(i,j), so that following next hops
 * always ends) and w + d(v,j) is the shortest seen; ties keep the earlier arc. */
CC_HOSTDEV void cc_apsp_next_hop_arc (float d_ij, float w, float d_vj, int v, float *best_len,
    int32_t *best)
{
  float len = w + d_vj;
  if (d_vj < d_ij && len < *best_len) {
    *best_len = len;
    *best = v;
  }
}

#endif
