/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Katz and Tal's hierarchical decomposition (2003, section 5) and ms_segment, which
 * picks the method.
 *
 * The whole mesh is the first patch. A patch is split like the k-way method splits the
 * mesh: its central face and farthest-point representatives (at most level_segments,
 * kept by the same G rule), fuzzy memberships, representative updates, and a minimum
 * cut through the fuzzy faces; the distances are rows of the one APSP of the whole
 * mesh, read on the patch's faces only. Each part of the split is then a patch of its
 * own, down to max_depth levels. A patch is composite, and split, while
 *   - its extent (the distance of its first farthest face from its central one) is at
 *     least min_extent times the whole mesh's (Katz-Tal's "distance between the
 *     representatives"), and
 *   - its split follows a crease: parts of the split whose shared boundary is flat
 *     (ms_merge_flat's test, by default under 30 % of it a concave crease) join again, and
 *     a split that joins back into one part leaves the patch whole (in place of
 *     Katz-Tal's ratio of the largest to the smallest dihedral angle in the patch,
 *     which a single sharp edge decides on scanned meshes).
 * Parts under min_part of the mesh's faces then join a neighbour and the smallest
 * segments merge while there are more than max_segments, as in the k-way method. */
#include "meshseg.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEVEL_SEGMENTS 16

typedef struct {
  int32_t label;
  int depth;
} patch_entry;

/* Parts of a split (labels 0..segs-1; negative: outside the patch) with fewer than
 * min_faces faces join the part they share most arcs with, smallest first: a split
 * that only chips pieces off a patch leaves it whole. */
static void
merge_small_labels (const ms_dual *d, int32_t *label, int segs, int min_faces)
{
  int size[MAX_LEVEL_SEGMENTS + 1], shared[MAX_LEVEL_SEGMENTS + 1];
  for (;;) {
    memset (size, 0, sizeof size);
    for (int f = 0; f < d->faces; f++)
      if (label[f] >= 0)
        size[label[f]]++;
    int small = -1;
    for (int l = 0; l < segs; l++)
      if (size[l] > 0 && size[l] < min_faces && (small < 0 || size[l] < size[small]))
        small = l;
    if (small < 0)
      return;
    memset (shared, 0, sizeof shared);
    for (int k = 0; k < d->arcs; k++) {
      int a = label[d->from[k]], b = label[d->to[k]];
      if (a == small && b >= 0 && b != small)
        shared[b]++;
      else if (b == small && a >= 0 && a != small)
        shared[a]++;
    }
    int into = -1;
    for (int l = 0; l < segs; l++)
      if (shared[l] > 0 && (into < 0 || shared[l] > shared[into]))
        into = l;
    if (into < 0)
      return;   /* a separate piece: left as it is */
    for (int f = 0; f < d->faces; f++)
      if (label[f] == small)
        label[f] = into;
  }
}

static cc_status
segment_hierarchy (ms_distances *d, const ms_dual *dual, const ms_cluster_params *p,
    ms_segmentation *out)
{
  int n = dual->faces;
  memset (out, 0, sizeof *out);
  out->faces = n;
  out->label = calloc ((size_t) n, sizeof (int32_t));
  out->second = calloc ((size_t) n, sizeof (int32_t));
  out->certainty = malloc (sizeof (float) * n);
  out->fuzzy = calloc ((size_t) n, sizeof (bool));
  bool *patch = malloc (sizeof (bool) * n);
  /* each split adds at most level_segments - 1 patches; a label is never reused */
  int capacity = 64;
  patch_entry *queue = malloc (sizeof (patch_entry) * capacity);
  if (!out->label || !out->second || !out->certainty || !out->fuzzy || !patch || !queue) {
    free (patch); free (queue);
    ms_segmentation_free (out);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  for (int f = 0; f < n; f++)
    out->certainty[f] = 1.0f;
  ms_cluster_params level = *p;
  level.segments = 0;
  level.max_segments = p->level_segments;
  int head = 0, tail = 0, labels = 1, min_faces = (int) (2 * p->min_part * n);
  double root_extent = 0;
  queue[tail++] = (patch_entry) { 0, 0 };
  cc_status st = CC_SUCCESS;
  while (st == CC_SUCCESS && head < tail) {
    patch_entry e = queue[head++];
    if (e.depth >= p->max_depth)
      continue;
    int members = 0;
    for (int f = 0; f < n; f++) {
      patch[f] = out->label[f] == e.label;
      members += patch[f];
    }
    if (members < 2 || members < min_faces)
      continue;
    ms_segmentation sub;
    st = ms_cluster_patch (d, dual, &level, patch, &sub);
    if (st != CC_SUCCESS)
      break;
    if (e.depth == 0)
      root_extent = sub.extent;
    bool split = sub.k >= 2 && sub.extent > 0 && sub.extent >= p->min_extent * root_extent;
    if (split)
      st = ms_cut_fuzzy (dual, &sub);
    /* the parts of the split: labels 0..k (k: faces no representative reached) */
    if (split && st == CC_SUCCESS)
      merge_small_labels (dual, sub.label, sub.k + 1, (int) (p->min_part * n));
    if (split && st == CC_SUCCESS)
      st = ms_merge_flat (dual, sub.label, sub.k + 1, p);
    int parts = 0;
    int32_t map[MAX_LEVEL_SEGMENTS + 1];
    if (split && st == CC_SUCCESS) {
      for (int i = 0; i <= sub.k; i++)
        map[i] = -1;
      for (int f = 0; f < n; f++)
        if (patch[f] && map[sub.label[f]] < 0)
          map[sub.label[f]] = parts++;
    }
    if (parts >= 2) {
      /* the first part keeps the patch's label, the others get new ones */
      int32_t first_new = labels;
      labels += parts - 1;
      for (int f = 0; f < n; f++)
        if (patch[f]) {
          int part = map[sub.label[f]];
          out->label[f] = part == 0 ? e.label : first_new + part - 1;
          out->certainty[f] = sub.certainty[f];
          out->fuzzy[f] = sub.fuzzy[f];
        }
      out->fuzzy_faces += sub.fuzzy_faces;
      out->iterations += sub.iterations;
      out->k += parts - (e.depth == 0 ? 0 : 1);
      if (e.depth + 1 > out->depth)
        out->depth = e.depth + 1;
      if (tail + parts > capacity) {
        capacity = 2 * (tail + parts);
        patch_entry *more = realloc (queue, sizeof (patch_entry) * capacity);
        if (!more)
          st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
        else
          queue = more;
      }
      if (st == CC_SUCCESS) {
        queue[tail++] = (patch_entry) { e.label, e.depth + 1 };
        for (int i = 1; i < parts; i++)
          queue[tail++] = (patch_entry) { first_new + i - 1, e.depth + 1 };
      }
    }
    if (e.depth == 0) {
      out->extent = sub.extent;
      out->gain_ratio = sub.gain_ratio;
    }
    ms_segmentation_free (&sub);
  }
  free (patch);
  free (queue);
  if (out->k == 0)
    out->k = 1;
  out->reps = NULL;
  out->segments = labels;
  for (int f = 0; f < n; f++)
    out->second[f] = out->label[f];
  if (st == CC_SUCCESS)
    st = ms_finish_segments (dual, p, false, out);
  if (st != CC_SUCCESS)
    ms_segmentation_free (out);
  return st;
}

cc_status
ms_segment (ms_distances *d, const ms_dual *dual, const ms_cluster_params *p,
    ms_segmentation *out)
{
  if (p->method == MS_METHOD_HIERARCHY) {
    if (p->level_segments < 2 || p->level_segments > MAX_LEVEL_SEGMENTS || p->max_depth < 1
        || p->max_depth > 16 || !(p->min_extent >= 0.0f && p->min_extent <= 1.0f)) {
      memset (out, 0, sizeof *out);
      return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
          "meshseg: level segments %d (2..16), depth %d (1..16), min extent %g ([0, 1]) "
          "out of range", p->level_segments, p->max_depth, p->min_extent);
    }
    return segment_hierarchy (d, dual, p, out);
  }
  cc_status st = ms_cluster (d, dual, p, out);
  if (st == CC_SUCCESS) {
    st = ms_refine_mincut (dual, p, out);
    if (st != CC_SUCCESS)
      ms_segmentation_free (out);
  }
  return st;
}
