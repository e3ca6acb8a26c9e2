/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Katz-Tal's boundary refinement: the fuzzy faces between clusters A and B are split by
 * a minimum s-t cut (igraph) in the graph of the fuzzy faces, where the faces of A next
 * to the region are merged into the source and those of B into the sink. A dual arc's
 * capacity is 1 / (1 + Ang / mean(Ang)): cheap to cut across concave creases, so the
 * boundary settles on them. Then parts too small to stand alone join the neighbour
 * they share most arcs with, and labels are numbered 0.. */
#include "meshseg.h"

#include <igraph/igraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arcs of the dual graph per face (both directions). */
typedef struct {
  int32_t *start;   /* faces + 1 */
  int32_t *other;   /* 2 * arcs: the neighbouring face */
  int32_t *arc;     /* 2 * arcs: the dual arc index */
} adjacency;

static void
adjacency_free (adjacency *a)
{
  free (a->start); free (a->other); free (a->arc);
}

static cc_status
adjacency_build (const ms_dual *d, adjacency *a)
{
  a->start = calloc ((size_t) d->faces + 1, sizeof (int32_t));
  a->other = malloc (sizeof (int32_t) * 2 * (size_t) (d->arcs ? d->arcs : 1));
  a->arc = malloc (sizeof (int32_t) * 2 * (size_t) (d->arcs ? d->arcs : 1));
  if (!a->start || !a->other || !a->arc) {
    adjacency_free (a);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  for (int k = 0; k < d->arcs; k++) {
    a->start[d->from[k] + 1]++;
    a->start[d->to[k] + 1]++;
  }
  for (int f = 0; f < d->faces; f++)
    a->start[f + 1] += a->start[f];
  int32_t *fill = malloc (sizeof (int32_t) * (size_t) d->faces);
  if (!fill) {
    adjacency_free (a);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  memcpy (fill, a->start, sizeof (int32_t) * (size_t) d->faces);
  for (int k = 0; k < d->arcs; k++) {
    int u = d->from[k], v = d->to[k];
    a->other[fill[u]] = v; a->arc[fill[u]++] = k;
    a->other[fill[v]] = u; a->arc[fill[v]++] = k;
  }
  free (fill);
  return CC_SUCCESS;
}

static double
capacity (const ms_dual *d, int arc)
{
  return 1.0 / (1.0 + (d->mean_angular > 0 ? d->angular[arc] / d->mean_angular : 0.0));
}

/* Cuts the fuzzy faces whose (best, second) pair is {a, b}. local: scratch, -1 filled. */
static cc_status
cut_pair (const ms_dual *d, const adjacency *adj, ms_segmentation *s, int a, int b,
    const int32_t *region, int count, int32_t *local)
{
  for (int i = 0; i < count; i++)
    local[region[i]] = i;
  const int source = count, sink = count + 1;
  igraph_vector_int_t edges;
  igraph_vector_t caps;
  igraph_vector_int_init (&edges, 0);
  igraph_vector_init (&caps, 0);
  bool has_source = false, has_sink = false;
  for (int i = 0; i < count; i++) {
    int f = region[i];
    for (int e = adj->start[f]; e < adj->start[f + 1]; e++) {
      int g = adj->other[e];
      int node;
      if (local[g] >= 0) {
        if (g < f)
          continue;   /* each inner arc once */
        node = local[g];
      } else if (!s->fuzzy[g] && s->label[g] == a) {
        node = source;
        has_source = true;
      } else if (!s->fuzzy[g] && s->label[g] == b) {
        node = sink;
        has_sink = true;
      } else
        continue;
      double c = capacity (d, adj->arc[e]);
      /* both directions: the cut is undirected */
      igraph_vector_int_push_back (&edges, i);
      igraph_vector_int_push_back (&edges, node);
      igraph_vector_push_back (&caps, c);
      igraph_vector_int_push_back (&edges, node);
      igraph_vector_int_push_back (&edges, i);
      igraph_vector_push_back (&caps, c);
    }
  }
  cc_status st = CC_SUCCESS;
  if (!has_source || !has_sink) {
    /* the region touches only one side: it stays with its best cluster */
    for (int i = 0; i < count; i++)
      s->label[region[i]] = s->label[region[i]] >= 0 ? s->label[region[i]] : a;
  } else {
    igraph_t graph;
    igraph_vector_int_t part1, part2;
    igraph_real_t value;
    igraph_vector_int_init (&part1, 0);
    igraph_vector_int_init (&part2, 0);
    if (igraph_create (&graph, &edges, count + 2, IGRAPH_DIRECTED) != IGRAPH_SUCCESS)
      st = cc_set_error (CC_ERROR_INTERNAL, "meshseg: igraph_create failed");
    else {
      if (igraph_st_mincut (&graph, &value, NULL, &part1, &part2, source, sink, &caps)
          != IGRAPH_SUCCESS)
        st = cc_set_error (CC_ERROR_INTERNAL, "meshseg: igraph_st_mincut failed");
      else {
        for (int i = 0; i < count; i++)
          s->label[region[i]] = b;
        for (igraph_integer_t i = 0; i < igraph_vector_int_size (&part1); i++) {
          igraph_integer_t v = VECTOR (part1)[i];
          if (v < count)
            s->label[region[v]] = a;
        }
      }
      igraph_destroy (&graph);
    }
    igraph_vector_int_destroy (&part1);
    igraph_vector_int_destroy (&part2);
  }
  igraph_vector_int_destroy (&edges);
  igraph_vector_destroy (&caps);
  for (int i = 0; i < count; i++)
    local[region[i]] = -1;
  return st;
}

/* Connected parts of equal labels into part[]; returns the part count. */
static int
label_parts (const ms_dual *d, const adjacency *adj, const int32_t *label, int32_t *part,
    int32_t *stack)
{
  int parts = 0;
  for (int f = 0; f < d->faces; f++)
    part[f] = -1;
  for (int f = 0; f < d->faces; f++) {
    if (part[f] >= 0)
      continue;
    int top = 0;
    stack[top++] = f;
    part[f] = parts;
    while (top) {
      int u = stack[--top];
      for (int e = adj->start[u]; e < adj->start[u + 1]; e++) {
        int v = adj->other[e];
        if (part[v] < 0 && label[v] == label[u]) {
          part[v] = parts;
          stack[top++] = v;
        }
      }
    }
    parts++;
  }
  return parts;
}

typedef struct {
  int32_t small, other;
} part_pair;

static int
pair_compare (const void *pa, const void *pb)
{
  const part_pair *x = pa, *y = pb;
  if (x->small != y->small)
    return x->small < y->small ? -1 : 1;
  return x->other < y->other ? -1 : (x->other > y->other);
}

/* Parts under min_faces take the label of the neighbouring part they share most arcs
 * with (repeated until none is left that has a neighbour); then every connected part
 * gets its own label, numbered 0.. in order of its first face. */
static cc_status
merge_small_parts (const ms_dual *d, const adjacency *adj, ms_segmentation *s, int min_faces)
{
  int n = d->faces;
  int32_t *part = malloc (sizeof (int32_t) * n), *stack = malloc (sizeof (int32_t) * n);
  int32_t *size = malloc (sizeof (int32_t) * n), *owner = malloc (sizeof (int32_t) * n);
  part_pair *pairs = malloc (sizeof (part_pair) * 2 * (size_t) (d->arcs ? d->arcs : 1));
  if (!part || !stack || !size || !owner || !pairs) {
    free (part); free (stack); free (size); free (owner); free (pairs);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  int parts = 0;
  for (int pass = 0; pass < 32; pass++) {
    parts = label_parts (d, adj, s->label, part, stack);
    memset (size, 0, sizeof (int32_t) * parts);
    for (int f = 0; f < n; f++) {
      size[part[f]]++;
      owner[part[f]] = s->label[f];
    }
    size_t np = 0;
    for (int k = 0; k < d->arcs; k++) {
      int pu = part[d->from[k]], pv = part[d->to[k]];
      if (pu == pv)
        continue;
      if (size[pu] < min_faces)
        pairs[np++] = (part_pair) { pu, pv };
      if (size[pv] < min_faces)
        pairs[np++] = (part_pair) { pv, pu };
    }
    if (np == 0)
      break;
    qsort (pairs, np, sizeof *pairs, pair_compare);
    for (size_t i = 0; i < np;) {
      /* runs of equal (small, other): the longest run per small part wins */
      int32_t q = pairs[i].small, best = -1, best_count = 0;
      while (i < np && pairs[i].small == q) {
        size_t j = i;
        while (j < np && pairs[j].small == q && pairs[j].other == pairs[i].other)
          j++;
        if ((int32_t) (j - i) > best_count) {
          best_count = (int32_t) (j - i);
          best = pairs[i].other;
        }
        i = j;
      }
      /* merging into a small neighbour is fine: the next pass sees the union */
      for (int f = 0; f < n; f++)
        if (part[f] == q)
          s->label[f] = owner[best];
    }
  }
  parts = label_parts (d, adj, s->label, part, stack);
  for (int f = 0; f < n; f++)
    s->label[f] = part[f];
  s->segments = parts;
  free (part); free (stack); free (size); free (owner); free (pairs);
  return CC_SUCCESS;
}

/* Merges adjacent segments whose shared boundary is flat, flattest first, until none
 * is. An arc's crease is its 1 - cos dihedral, times merge_convex on convex arcs; a
 * boundary is flat when
 *  - (MS_MERGE_SALIENCE, the default) its share of sharp arcs (below) times the
 *    protrusion of the smaller of the two parts, sqrt(area) / boundary length, is
 *    under merge_flatness (0.125). The protrusion is Hoffman and Singh's part
 *    salience in one number: about 0.9 for a limb five times as long as it is wide on
 *    its narrow base, 0.4 for half a sphere, 0.3 for a disc-shaped patch of a surface.
 *    So a part on a narrow base (a wing, a fin, a finger) stays apart on a softer
 *    crease than a cut through the bulk of a shape (a head, a table's apron, a
 *    body), which must follow a sharp crease for most of its length; the flattest
 *    (lowest product) merges first;
 *  - (MS_MERGE_SHARE, the default before) under merge_flatness (0.3) of its arcs have a
 *    crease over merge_crease (0.006, about 6 degrees of concave dihedral): a part
 *    boundary runs along a concave crease (the minima rule) for much of its length,
 *    while a cut across a smooth surface that only touches a crease somewhere (two
 *    halves of a body meeting near the base of an arm) is no part boundary, whatever
 *    the creases it touches add to its mean; among equal shares the flattest mean
 *    merges first;
 * or when its mean crease is under merge_flatness times a reference:
 *  - 1 (MS_MERGE_ABSOLUTE): merge_flatness is the least mean crease of a part
 *    boundary (0.006, about 6 degrees of concave dihedral on average), the same on
 *    every mesh: part boundaries lie on concave creases (the minima rule), and a
 *    smooth surface over-split by the clustering (a cup's wall, a table top, a fish's
 *    body) joins up however finely or coarsely it is tessellated around it;
 *  - the mesh's mean angular distance (MS_MERGE_MESH): on smooth, finely tessellated
 *    meshes (cups, vases) that mean is tiny and any ripple passes as a crease;
 *  - the mean crease of the arcs inside the two segments (MS_MERGE_PARTS): a boundary
 *    no sharper than the surfaces it separates, such as a cut across the evenly
 *    curved inside of a cup, is not a part boundary, however curved the surface.
 * Over-segmented smooth regions (more representatives than parts) join up; parts
 * separated by creases stay apart. Negative labels (outside a patch) are left alone. */
cc_status
ms_merge_flat (const ms_dual *d, int32_t *label, int segs, const ms_cluster_params *p)
{
  float flatness = p->merge_flatness, convex_weight = p->merge_convex;
  if (flatness <= 0.0f || segs < 2
      || (p->merge_reference == MS_MERGE_MESH && d->mean_angular <= 0.0f))
    return CC_SUCCESS;
  bool salience = p->merge_reference == MS_MERGE_SALIENCE;
  bool share = p->merge_reference == MS_MERGE_SHARE || salience;
  double *sum = malloc (sizeof (double) * segs * segs);
  int *count = malloc (sizeof (int) * segs * segs);
  int *sharp = malloc (sizeof (int) * segs * segs);
  double *length = malloc (sizeof (double) * segs * segs);
  double *part_area = malloc (sizeof (double) * segs);
  if (!sum || !count || !sharp || !length || !part_area) {
    free (sum); free (count); free (sharp); free (length); free (part_area);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  for (;;) {
    memset (sum, 0, sizeof (double) * segs * segs);
    memset (count, 0, sizeof (int) * segs * segs);
    memset (sharp, 0, sizeof (int) * segs * segs);
    memset (length, 0, sizeof (double) * segs * segs);
    memset (part_area, 0, sizeof (double) * segs);
    for (int f = 0; salience && f < d->faces; f++)
      if (label[f] >= 0)
        part_area[label[f]] += d->area[f];
    for (int k = 0; k < d->arcs; k++) {
      int a = label[d->from[k]], b = label[d->to[k]];
      if (a < 0 || b < 0)
        continue;
      /* a == b: inside segment a (the diagonal) */
      int lo = a < b ? a : b, hi = a < b ? b : a;
      float bend = d->bend[k];
      float crease = bend >= 0 ? bend : -convex_weight * bend;
      sum[lo * segs + hi] += crease;
      sharp[lo * segs + hi] += crease > p->merge_crease;
      /* salience: the boundary's length, each crossed edge's from the two faces'
       * areas (an equilateral triangle of area A has edges of sqrt(4 A / sqrt 3)) */
      if (salience && lo != hi)
        length[lo * segs + hi] += sqrt (1.1547 * (d->area[d->from[k]] + d->area[d->to[k]]));
      count[lo * segs + hi]++;
    }
    int best_lo = -1, best_hi = -1;
    double best = flatness, best_tie = 0;
    for (int lo = 0; lo < segs; lo++)
      for (int hi = lo + 1; hi < segs; hi++) {
        int c = count[lo * segs + hi];
        if (c < 3)
          continue;
        double reference = p->merge_reference == MS_MERGE_ABSOLUTE || share ? 1.0
            : d->mean_angular;
        if (p->merge_reference == MS_MERGE_PARTS) {
          int inner = count[lo * segs + lo] + count[hi * segs + hi];
          double inner_sum = sum[lo * segs + lo] + sum[hi * segs + hi];
          /* floor: parts made of flat facets make every crease infinitely sharp */
          reference = inner ? inner_sum / inner : 0.0;
          if (reference < 1e-3 * d->mean_angular)
            reference = 1e-3 * d->mean_angular;
        }
        double mean = sum[lo * segs + hi] / c / reference;
        /* share: the boundary's share of sharp arcs; equal shares (none sharp, say)
         * merge the flattest boundary first */
        double value = share ? (double) sharp[lo * segs + hi] / c : mean;
        if (salience) {
          double small = part_area[lo] < part_area[hi] ? part_area[lo] : part_area[hi];
          double l = length[lo * segs + hi];
          value = l > 0.0 ? value * sqrt (small) / l : 0.0;
        }
        double tie = share ? mean : 0.0;
        if (value < flatness
            && (best_lo < 0 || value < best || (value == best && tie < best_tie))) {
          best = value;
          best_tie = tie;
          best_lo = lo;
          best_hi = hi;
        }
      }
    if (best_lo < 0)
      break;
    for (int f = 0; f < d->faces; f++)
      if (label[f] == best_hi)
        label[f] = best_lo;
  }
  free (sum); free (count); free (sharp); free (length); free (part_area);
  return CC_SUCCESS;
}

static cc_status
merge_flat_boundaries (const ms_dual *d, const adjacency *adj, ms_segmentation *s,
    const ms_cluster_params *p)
{
  if (p->merge_flatness <= 0.0f || s->segments < 2)
    return CC_SUCCESS;
  cc_status st = ms_merge_flat (d, s->label, s->segments, p);
  int32_t *part = malloc (sizeof (int32_t) * d->faces), *stack = malloc (sizeof (int32_t) * d->faces);
  if (st == CC_SUCCESS && (!part || !stack))
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  if (st == CC_SUCCESS) {
    s->segments = label_parts (d, adj, s->label, part, stack);
    memcpy (s->label, part, sizeof (int32_t) * d->faces);
  }
  free (part); free (stack);
  return st;
}

/* Makes max_segments a hard bound: a cluster the cut or the merges left in several
 * pieces, or faces no representative reaches, count as segments of their own and can
 * outnumber the representatives. While there are too many, the smallest segment joins
 * the neighbour it shares most arcs with (a separate shell, having none, joins the
 * largest segment); labels are then renumbered 0.. in order of first face. */
static cc_status
limit_segments (const ms_dual *d, ms_segmentation *s, int max_segments)
{
  int segs = s->segments, n = d->faces;
  if (segs <= max_segments)
    return CC_SUCCESS;
  int32_t *size = malloc (sizeof (int32_t) * segs), *shared = malloc (sizeof (int32_t) * segs);
  int32_t *number = malloc (sizeof (int32_t) * segs);
  if (!size || !shared || !number) {
    free (size); free (shared); free (number);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  memset (size, 0, sizeof (int32_t) * segs);
  for (int f = 0; f < n; f++)
    size[s->label[f]]++;
  for (int left = segs; left > max_segments; left--) {
    int small = -1, largest = -1;
    for (int l = 0; l < segs; l++) {
      if (size[l] == 0)
        continue;
      if (small < 0 || size[l] < size[small])
        small = l;
      if (largest < 0 || size[l] > size[largest])
        largest = l;
    }
    memset (shared, 0, sizeof (int32_t) * segs);
    for (int k = 0; k < d->arcs; k++) {
      int a = s->label[d->from[k]], b = s->label[d->to[k]];
      if (a == small && b != small)
        shared[b]++;
      else if (b == small && a != small)
        shared[a]++;
    }
    int into = -1;
    for (int l = 0; l < segs; l++)
      if (shared[l] > 0 && (into < 0 || shared[l] > shared[into]))
        into = l;
    if (into < 0)
      into = largest != small ? largest : -1;
    for (int l = 0; into < 0 && l < segs; l++)
      if (l != small && size[l] > 0)
        into = l;
    for (int f = 0; f < n; f++)
      if (s->label[f] == small)
        s->label[f] = into;
    size[into] += size[small];
    size[small] = 0;
  }
  int next = 0;
  for (int l = 0; l < segs; l++)
    number[l] = -1;
  for (int f = 0; f < n; f++) {
    if (number[s->label[f]] < 0)
      number[s->label[f]] = next++;
    s->label[f] = number[s->label[f]];
  }
  s->segments = next;
  free (size); free (shared); free (number);
  return CC_SUCCESS;
}

cc_status
ms_cut_fuzzy (const ms_dual *d, ms_segmentation *s)
{
  int n = d->faces, k = s->k;
  adjacency adj;
  cc_status built = adjacency_build (d, &adj);
  if (built != CC_SUCCESS)
    return built;
  int32_t *region = malloc (sizeof (int32_t) * n), *local = malloc (sizeof (int32_t) * n);
  int32_t *best = malloc (sizeof (int32_t) * n);
  cc_status st = CC_SUCCESS;
  if (!region || !local || !best)
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  for (int f = 0; st == CC_SUCCESS && f < n; f++) {
    local[f] = -1;
    best[f] = s->label[f];
  }
  /* fuzzy faces carry their best cluster in label; the cut decides between the pair */
  for (int a = 0; st == CC_SUCCESS && a < k; a++)
    for (int b = a + 1; st == CC_SUCCESS && b < k; b++) {
      int count = 0;
      for (int f = 0; f < n; f++)
        if (s->fuzzy[f] && ((best[f] == a && s->second[f] == b)
                || (best[f] == b && s->second[f] == a)))
          region[count++] = f;
      if (count > 0)
        st = cut_pair (d, &adj, s, a, b, region, count, local);
    }
  /* faces no representative reaches (a separate shell): one label for now, parts later */
  for (int f = 0; st == CC_SUCCESS && f < n; f++)
    if (s->label[f] == -1)
      s->label[f] = k;
  free (region); free (local); free (best);
  adjacency_free (&adj);
  return st;
}

cc_status
ms_finish_segments (const ms_dual *d, const ms_cluster_params *p, bool merge_flat,
    ms_segmentation *s)
{
  adjacency adj;
  cc_status st = adjacency_build (d, &adj);
  if (st != CC_SUCCESS)
    return st;
  int min_faces = (int) (p->min_part * d->faces);
  st = merge_small_parts (d, &adj, s, min_faces > 1 ? min_faces : 1);
  if (st == CC_SUCCESS && merge_flat)
    st = merge_flat_boundaries (d, &adj, s, p);
  if (st == CC_SUCCESS)
    st = limit_segments (d, s, p->segments > p->max_segments ? p->segments : p->max_segments);
  adjacency_free (&adj);
  return st;
}

cc_status
ms_refine_mincut (const ms_dual *d, const ms_cluster_params *p, ms_segmentation *s)
{
  cc_status st = ms_cut_fuzzy (d, s);
  if (st == CC_SUCCESS)
    st = ms_finish_segments (d, p, true, s);
  return st;
}
