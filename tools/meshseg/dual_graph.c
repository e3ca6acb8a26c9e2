/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dual graph of a triangle mesh with the distance of marras-2010 / Katz-Tal 2003:
 *   w(f, g) = alpha * Ang(f, g) / mean(Ang) + (1 - alpha) * Geod(f, g) / mean(Geod)
 * Ang = eta * (1 - cos(angle between the normals)), eta = 1 on concave edges and
 * convex_eta (small) on convex ones, so that cuts prefer concave creases; Geod = the
 * path from one centroid to the other through the shared edge's midpoint.
 *
 * The weights are then rounded to whole multiples of a power of two, `step`, small
 * enough that every shortest-path length stays under 2^24 x step (exact_weights). Every
 * float sum of such weights under that bound is exact, so any APSP that only adds
 * weights and keeps minima returns the exact shortest distances of the rounded graph,
 * bit for bit, whatever order it relaxes in: the GPU's tiled Floyd-Warshall, CPU
 * Dijkstra rows or the plain Floyd-Warshall. That is what makes meshseg's CPU and CUDA
 * segmentations equal (docs/meshseg.md). The proof, by induction over the relaxations:
 * a computed tentative distance equals the exact length of its path when that is under
 * 2^24 x step, and is at least 2^24 x step otherwise (float rounding is monotone and
 * 2^24 x step is a float), so the final distances, all under the bound, are exact. */
#include "meshseg.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int32_t a, b;     /* a < b */
  int32_t face;
} edge_entry;

static int
edge_compare (const void *pa, const void *pb)
{
  const edge_entry *x = pa, *y = pb;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  if (x->b != y->b)
    return x->b < y->b ? -1 : 1;
  return x->face - y->face;
}

void
ms_dual_free (ms_dual *d)
{
  free (d->from); free (d->to); free (d->weight); free (d->angular); free (d->bend);
  free (d->centroid); free (d->area);
  memset (d, 0, sizeof *d);
}

cc_apsp_graph
ms_dual_graph (const ms_dual *d)
{
  return (cc_apsp_graph) { d->faces, d->arcs, d->from, d->to, d->weight };
}

static void
sub3 (const float *a, const float *b, float *out)
{
  out[0] = a[0] - b[0]; out[1] = a[1] - b[1]; out[2] = a[2] - b[2];
}

static float
dot3 (const float *a, const float *b)
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static float
dist3 (const float *a, const float *b)
{
  float d[3];
  sub3 (a, b, d);
  return sqrtf (dot3 (d, d));
}

static int
find_root (int32_t *parent, int x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* Angular and geodesic terms of the arc between faces f and g across edge (a, b). */
static void
arc_terms (const ms_mesh *m, const float (*normal)[3], const float (*centroid)[3], int f,
    int g, int a, int b, float convex_eta, float *angular, float *bend, float *geodesic)
{
  float cos_angle = dot3 (normal[f], normal[g]);
  if (dot3 (normal[f], normal[f]) == 0.0f || dot3 (normal[g], normal[g]) == 0.0f)
    cos_angle = 1.0f;   /* a degenerate face: no angle */
  cos_angle = fminf (1.0f, fmaxf (-1.0f, cos_angle));
  float towards[3];
  sub3 (centroid[g], centroid[f], towards);
  bool concave = dot3 (normal[f], towards) > 0.0f;
  *angular = (concave ? 1.0f : convex_eta) * (1.0f - cos_angle);
  *bend = concave ? 1.0f - cos_angle : -(1.0f - cos_angle);
  float mid[3];
  for (int i = 0; i < 3; i++)
    mid[i] = 0.5f * (m->vertices[a][i] + m->vertices[b][i]);
  *geodesic = dist3 (centroid[f], mid) + dist3 (mid, centroid[g]);
}

static cc_status
face_geometry (const ms_mesh *m, ms_dual *d, float (*normal)[3])
{
  for (int f = 0; f < m->face_count; f++) {
    const float *p0 = m->vertices[m->faces[f][0]], *p1 = m->vertices[m->faces[f][1]],
        *p2 = m->vertices[m->faces[f][2]];
    float e1[3], e2[3], n[3];
    sub3 (p1, p0, e1);
    sub3 (p2, p0, e2);
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    float len = sqrtf (dot3 (n, n));
    d->area[f] = 0.5f * len;
    for (int i = 0; i < 3; i++) {
      normal[f][i] = len > 0.0f ? n[i] / len : 0.0f;
      d->centroid[f][i] = (p0[i] + p1[i] + p2[i]) / 3.0f;
    }
  }
  return CC_SUCCESS;
}

void
ms_dual_params_default (ms_dual_params *p)
{
  p->alpha = 0.5f;
  /* 0.05 (Katz-Tal: 0.1-0.2): chosen over the 44 PSB meshes (docs/meshseg.md); with
   * 0.2 the convex rims of thin parts (table tops, cups, fins) made the distances from
   * one side to the other large enough to split them into faces */
  p->convex_eta = 0.05f;
  p->float_weights = false;
}

/* The largest finite distance from any of the roots (one face per connected part), by
 * CPU Dijkstra in batches of rows. */
static cc_status
root_eccentricity (const ms_dual *d, const int32_t *roots, int nroots, double *out)
{
  cc_apsp_graph g = ms_dual_graph (d);
  size_t n = (size_t) d->faces;
  int batch = (int) (((size_t) 64 << 20) / (sizeof (float) * n));
  batch = batch < 1 ? 1 : batch > nroots ? nroots : batch;
  float *rows = malloc (sizeof (float) * n * (size_t) (batch > 0 ? batch : 1));
  if (!rows)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  double worst = 0.0;
  cc_status st = CC_SUCCESS;
  for (int r = 0; r < nroots && st == CC_SUCCESS; r += batch) {
    int count = nroots - r < batch ? nroots - r : batch;
    st = cc_apsp_sources (&g, CC_APSP_UNDIRECTED, roots + r, count, 0, rows);
    for (size_t i = 0; st == CC_SUCCESS && i < n * (size_t) count; i++)
      if (isfinite (rows[i]) && rows[i] > worst)
        worst = rows[i];
  }
  free (rows);
  *out = worst;
  return st;
}

/* Rounds the weights to whole multiples of a power of two (positive weights to at least
 * one step, so that distinct faces stay apart), the step the smallest for which twice
 * the roots' eccentricity (a bound on every distance within a part), with a quarter
 * more for the rounding, stays under 2^24 steps. The bound is checked again on the
 * rounded graph, where Dijkstra's values are exact while under it, and the step doubled
 * until it holds. */
static cc_status
exact_weights (ms_dual *d, const int32_t *roots, int nroots)
{
  if (d->arcs == 0) {
    d->weight_step = 1.0f;
    return CC_SUCCESS;
  }
  float *original = malloc (sizeof (float) * (size_t) d->arcs);
  if (!original)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  memcpy (original, d->weight, sizeof (float) * (size_t) d->arcs);
  double ecc;
  cc_status st = root_eccentricity (d, roots, nroots, &ecc);
  /* step = 2^e, the smallest with 2.5 x ecc <= 2^24 x step */
  int e;
  frexp (fmax (2.5 * ecc, DBL_MIN) / 16777216.0, &e);
  e = e < -100 ? -100 : e;
  double mean = 0.0;
  for (int k = 0; k < d->arcs; k++)
    mean += original[k];
  mean /= d->arcs;
  while (st == CC_SUCCESS) {
    float step = ldexpf (1.0f, e);
    double worst = 0.0;
    for (int k = 0; k < d->arcs; k++) {
      float w = original[k];
      /* w / step and back are exact (powers of two); rintf of a float >= 2^23 is itself */
      float q = rintf (w / step) * step;
      if (w > 0.0f && q < step)
        q = step;
      d->weight[k] = q;
      worst = fmax (worst, fabs ((double) q - w));
    }
    st = root_eccentricity (d, roots, nroots, &ecc);
    if (st == CC_SUCCESS && 2.0 * ecc < ldexp (1.0, 24 + e)) {
      d->weight_step = step;
      d->weight_error = mean > 0.0 ? worst / mean : 0.0;
      break;
    }
    if (++e > 100)
      st = cc_set_error (CC_ERROR_INVALID_ARGUMENT, "meshseg: no weight step bounds the distances");
  }
  free (original);
  return st;
}

cc_status
ms_dual_build (const ms_mesh *m, const ms_dual_params *p, bool allow_nonmanifold,
    ms_dual *d)
{
  memset (d, 0, sizeof *d);
  if (!(p->alpha >= 0.0f && p->alpha <= 1.0f) || !(p->convex_eta > 0.0f && p->convex_eta <= 1.0f))
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
        "meshseg: alpha %g must be in [0, 1] and eta %g in (0, 1]", p->alpha, p->convex_eta);
  int nf = m->face_count;
  size_t corners = (size_t) nf * 3;
  edge_entry *e = malloc (sizeof *e * corners);
  float (*normal)[3] = malloc (sizeof *normal * (size_t) nf);
  d->centroid = malloc (sizeof *d->centroid * (size_t) nf);
  d->area = malloc (sizeof *d->area * (size_t) nf);
  /* at most corners arcs when manifold; non-manifold fans can add more: grown below */
  size_t cap = corners;
  d->from = malloc (sizeof (int32_t) * cap);
  d->to = malloc (sizeof (int32_t) * cap);
  float *geodesic = malloc (sizeof (float) * cap);
  d->angular = malloc (sizeof (float) * cap);
  d->bend = malloc (sizeof (float) * cap);
  if (!e || !normal || !d->centroid || !d->area || !d->from || !d->to || !geodesic
      || !d->angular || !d->bend) {
    free (e); free (normal); free (geodesic);
    ms_dual_free (d);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory for the dual graph");
  }
  d->faces = nf;
  face_geometry (m, d, normal);
  size_t ne = 0;
  for (int f = 0; f < nf; f++)
    for (int c = 0; c < 3; c++) {
      int32_t a = m->faces[f][c], b = m->faces[f][(c + 1) % 3];
      if (a == b)
        continue;   /* degenerate face: that edge does not exist */
      e[ne++] = (edge_entry) { a < b ? a : b, a < b ? b : a, f };
    }
  qsort (e, ne, sizeof *e, edge_compare);
  cc_status st = CC_SUCCESS;
  int first_bad_a = -1, first_bad_b = -1;
  for (size_t i = 0; i < ne && st == CC_SUCCESS;) {
    size_t j = i;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b)
      j++;
    size_t count = j - i;
    if (count == 1)
      d->boundary_edges++;
    else if (count > 2) {
      d->nonmanifold_edges++;
      if (first_bad_a < 0) {
        first_bad_a = e[i].a;
        first_bad_b = e[i].b;
      }
    }
    if (count >= 2 && (count == 2 || allow_nonmanifold))
      for (size_t x = i; x < j; x++)
        for (size_t y = x + 1; y < j; y++) {
          if (e[x].face == e[y].face)
            continue;
          if ((size_t) d->arcs == cap) {
            cap *= 2;
            int32_t *nfrom = realloc (d->from, sizeof (int32_t) * cap);
            if (nfrom) d->from = nfrom;
            int32_t *nto = realloc (d->to, sizeof (int32_t) * cap);
            if (nto) d->to = nto;
            float *ngeo = realloc (geodesic, sizeof (float) * cap);
            if (ngeo) geodesic = ngeo;
            float *nang = realloc (d->angular, sizeof (float) * cap);
            if (nang) d->angular = nang;
            float *nbend = realloc (d->bend, sizeof (float) * cap);
            if (nbend) d->bend = nbend;
            if (!nfrom || !nto || !ngeo || !nang || !nbend) {
              st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
              break;
            }
          }
          int k = d->arcs++;
          d->from[k] = e[x].face;
          d->to[k] = e[y].face;
          arc_terms (m, (const float (*)[3]) normal, (const float (*)[3]) d->centroid,
              e[x].face, e[y].face, e[i].a, e[i].b, p->convex_eta, &d->angular[k],
              &d->bend[k], &geodesic[k]);
        }
    i = j;
  }
  if (st == CC_SUCCESS && d->nonmanifold_edges > 0 && !allow_nonmanifold)
    st = cc_set_error (CC_ERROR_NOT_SUPPORTED,
        "non-manifold mesh: %d edges are shared by more than two faces (the first joins "
        "vertices %d and %d); --allow-nonmanifold joins their faces pairwise",
        d->nonmanifold_edges, first_bad_a, first_bad_b);
  if (st == CC_SUCCESS) {
    double sum_ang = 0, sum_geo = 0;
    for (int k = 0; k < d->arcs; k++) {
      sum_ang += d->angular[k];
      sum_geo += geodesic[k];
    }
    d->mean_angular = d->arcs ? (float) (sum_ang / d->arcs) : 0.0f;
    float mean_geo = d->arcs ? (float) (sum_geo / d->arcs) : 0.0f;
    d->weight = malloc (sizeof (float) * (d->arcs ? d->arcs : 1));
    if (!d->weight)
      st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    for (int k = 0; st == CC_SUCCESS && k < d->arcs; k++) {
      float ang = d->mean_angular > 0.0f ? d->angular[k] / d->mean_angular : 0.0f;
      float geo = mean_geo > 0.0f ? geodesic[k] / mean_geo : 0.0f;
      d->weight[k] = p->alpha * ang + (1.0f - p->alpha) * geo;
    }
  }
  if (st == CC_SUCCESS) {
    int32_t *parent = malloc (sizeof (int32_t) * (size_t) nf);
    int32_t *roots = malloc (sizeof (int32_t) * (size_t) nf);
    if (!parent || !roots)
      st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    else {
      for (int f = 0; f < nf; f++)
        parent[f] = f;
      for (int k = 0; k < d->arcs; k++)
        parent[find_root (parent, d->from[k])] = find_root (parent, d->to[k]);
      for (int f = 0; f < nf; f++)
        if (find_root (parent, f) == f)
          roots[d->components++] = f;
      if (!p->float_weights)
        st = exact_weights (d, roots, d->components);
    }
    free (parent);
    free (roots);
  }
  free (e);
  free (normal);
  free (geodesic);
  if (st != CC_SUCCESS)
    ms_dual_free (d);
  return st;
}
