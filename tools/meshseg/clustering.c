/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Katz-Tal k-way fuzzy clustering on the dual graph's distances.
 *  1. The first representative is the face with the smallest sum of distances to the
 *     others (estimated from evenly spread sample rows, d being symmetric); each next
 *     one is the face farthest from those chosen (farthest-point selection). G(i) is
 *     that farthest distance when representative i is added.
 *  2. Automatic k: the representatives whose G is at least a share of the first's.
 *  3. Memberships P_i(f) = (1 / d(f, rep_i)) / sum_j (1 / d(f, rep_j)).
 *  4. Each representative moves to the face minimising sum_f P_i(f) d(rep, f) over the
 *     faces f of its cluster (those nearest to it), tried among the current one and
 *     `candidates` faces of the cluster spread over it, until no representative moves.
 *     Katz-Tal sum over all faces; the far faces' small memberships then add up and
 *     pull every representative towards the middle of the mesh: on the PSB meshes and
 *     the test body that merged limbs with the body (Rand Index error 0.16 and 0.40
 *     instead of 0.14 and 0.004).
 *  5. Faces whose top two memberships, renormalised, are under 0.5 + epsilon form the
 *     fuzzy region between those two clusters; mincut.c resolves it.
 * Only rows of the distance matrix are read, so the same code runs on a full APSP
 * matrix (GPU or CPU) or on rows computed on demand (CPU Dijkstra). */
#include "meshseg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ms_cluster_params_default (ms_cluster_params *p)
{
  p->segments = 0;
  /* over-segment (k-threshold 0.15, up to 30 representatives, parts down to 0.2 %
   * of the faces), then merge every boundary that is not a salient part boundary: its
   * share of arcs with 1 - cos dihedral over 0.006 (about 6 degrees, concave only)
   * times the smaller part's protrusion sqrt(area) / boundary length under 0.125.
   * Chosen by leave-one-category-out cross-validation over the 44 PSB meshes;
   * docs/meshseg.md has the figures and the rules measured against it. */
  p->max_segments = 30;
  p->k_threshold = 0.15f;
  p->epsilon = 0.1f;
  p->max_iterations = 10;
  p->candidates = 16;
  p->min_part = 0.002f;
  p->merge_flatness = 0.125f;
  p->merge_crease = 0.006f;
  p->merge_convex = 0.0f;
  p->merge_reference = MS_MERGE_SALIENCE;
  p->method = MS_METHOD_KWAY;
  p->level_segments = 4;
  p->max_depth = 3;
  p->min_extent = 0.2f;
}

void
ms_segmentation_free (ms_segmentation *s)
{
  free (s->reps); free (s->label); free (s->second); free (s->certainty); free (s->fuzzy);
  memset (s, 0, sizeof *s);
}

/* ------------------------------------------------------------ distances */

cc_status
ms_distances_init (ms_distances *d, const ms_dual *dual, cc_context *ctx, ms_apsp_mode mode,
    int threads)
{
  memset (d, 0, sizeof *d);
  d->faces = dual->faces;
  d->graph = ms_dual_graph (dual);
  d->threads = threads;
  bool cuda = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  if (mode == MS_APSP_AUTO)
    mode = cuda ? MS_APSP_FULL : MS_APSP_ROWS;
  if (mode == MS_APSP_ROWS) {
    size_t row_bytes = sizeof (float) * (size_t) (dual->faces ? dual->faces : 1);
    size_t rows = MS_ROW_CACHE_BYTES / row_bytes;
    d->cache_capacity = rows > (size_t) dual->faces ? dual->faces : (int) rows;
    d->cache_slot = malloc (sizeof (int32_t) * (size_t) (dual->faces ? dual->faces : 1));
    if (!d->cache_slot)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    for (int f = 0; f < dual->faces; f++)
      d->cache_slot[f] = -1;
    /* the row store grows as rows come (realloc), up to the capacity */
    return CC_SUCCESS;
  }
  cc_apsp_params p;
  cc_apsp_params_default (&p);
  p.kind = CC_APSP_UNDIRECTED;
  cc_apsp_stats stats;
  if (cuda) {
    /* the matrix stays on the device; the clustering fetches the rows it reads */
    cc_status st = cc_apsp_create (ctx, dual->faces, &p, &d->apsp);
    if (st == CC_SUCCESS)
      st = cc_apsp_compute_sync (d->apsp, NULL, &d->graph, &stats);
    if (st != CC_SUCCESS) {
      cc_apsp_destroy (d->apsp);
      d->apsp = NULL;
      return st;
    }
    d->apsp_kernel_ms = stats.kernel_ms;
    return CC_SUCCESS;
  }
  size_t cells = (size_t) dual->faces * dual->faces;
  d->full = malloc (sizeof (float) * cells);
  if (!d->full)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
        "meshseg: %d faces need %zu bytes of host memory for the distance matrix "
        "(--apsp rows computes rows on demand)", dual->faces, sizeof (float) * cells);
  cc_status st = cc_apsp_dense (ctx, NULL, &d->graph, &p, d->full, NULL, &stats);
  if (st != CC_SUCCESS) {
    free (d->full);
    d->full = NULL;
    return st;
  }
  d->apsp_kernel_ms = stats.kernel_ms;
  return CC_SUCCESS;
}

void
ms_distances_free (ms_distances *d)
{
  cc_apsp_destroy (d->apsp);
  d->apsp = NULL;
  free (d->full);
  d->full = NULL;
  free (d->cache);
  free (d->cache_slot);
  d->cache = NULL;
  d->cache_slot = NULL;
  d->cache_capacity = d->cache_used = 0;
}

/* Keeps row (distances from face f) if the budget has room; a full cache keeps what it
 * has (the rows read first are the central and farthest ones, read again most). */
static void
cache_store (ms_distances *d, int32_t f, const float *row)
{
  size_t n = (size_t) d->faces;
  if (d->cache_slot[f] >= 0 || d->cache_used >= d->cache_capacity)
    return;
  if (d->cache_used % 64 == 0) {
    int grow = d->cache_used + 64 < d->cache_capacity ? d->cache_used + 64 : d->cache_capacity;
    float *more = realloc (d->cache, sizeof (float) * n * grow);
    if (!more) {
      d->cache_capacity = d->cache_used;   /* no memory: stop keeping rows */
      return;
    }
    d->cache = more;
  }
  memcpy (d->cache + n * d->cache_used, row, sizeof (float) * n);
  d->cache_slot[f] = d->cache_used++;
}

cc_status
ms_distances_rows (ms_distances *d, const int32_t *sources, int count, float *out)
{
  size_t n = (size_t) d->faces;
  if (d->apsp)
    return cc_apsp_get_rows (d->apsp, sources, count, out, NULL);
  if (d->full) {
    for (int i = 0; i < count; i++)
      memcpy (out + i * n, d->full + (size_t) sources[i] * n, sizeof (float) * n);
    return CC_SUCCESS;
  }
  /* on demand: kept rows are copied, the others computed together (one Dijkstra per
   * source, in parallel) and kept */
  int32_t *missing = malloc (sizeof (int32_t) * (size_t) (count ? count : 1));
  int32_t *where = malloc (sizeof (int32_t) * (size_t) (count ? count : 1));
  if (!missing || !where) {
    free (missing); free (where);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  int todo = 0;
  for (int i = 0; i < count; i++) {
    int slot = d->cache_slot ? d->cache_slot[sources[i]] : -1;
    if (slot >= 0)
      memcpy (out + i * n, d->cache + (size_t) slot * n, sizeof (float) * n);
    else {
      /* a source asked twice in one call is computed twice: harmless */
      missing[todo] = sources[i];
      where[todo++] = i;
    }
  }
  cc_status st = CC_SUCCESS;
  if (todo > 0) {
    float *rows = malloc (sizeof (float) * n * todo);
    if (!rows)
      st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    else
      st = cc_apsp_sources (&d->graph, CC_APSP_UNDIRECTED, missing, todo, d->threads, rows);
    d->rows_computed += todo;
    for (int i = 0; st == CC_SUCCESS && i < todo; i++) {
      memcpy (out + where[i] * n, rows + (size_t) i * n, sizeof (float) * n);
      if (d->cache_slot)
        cache_store (d, missing[i], rows + (size_t) i * n);
    }
    free (rows);
  }
  free (missing);
  free (where);
  return st;
}

/* ------------------------------------------------------------ representatives */

#define IN_PATCH(patch, f) (!(patch) || (patch)[f])

/* The face of the patch (NULL: all faces) with the smallest sum of distances to
 * `samples` faces spread over the patch. */
static cc_status
central_face (ms_distances *d, const bool *patch, int *centre)
{
  int n = d->faces, members = 0;
  for (int f = 0; f < n; f++)
    members += IN_PATCH (patch, f);
  int samples = members < 32 ? (members > 0 ? members : 1) : 32;
  int32_t *src = calloc ((size_t) samples, sizeof (int32_t));
  float *rows = malloc (sizeof (float) * (size_t) samples * n);
  if (!src || !rows) {
    free (src); free (rows);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  /* the (s * members / samples)-th face of the patch, in face order */
  for (int s = 0, f = 0, seen = 0; s < samples && f < n; f++) {
    if (!IN_PATCH (patch, f))
      continue;
    if (seen++ == (int) ((long) s * members / samples))
      src[s++] = f;
  }
  cc_status st = ms_distances_rows (d, src, samples, rows);
  if (st == CC_SUCCESS) {
    double best = INFINITY;
    int best_unreached = samples + 1;
    for (int f = 0; f < n; f++) {
      if (!IN_PATCH (patch, f))
        continue;
      double sum = 0;
      int unreached = 0;
      for (int s = 0; s < samples; s++) {
        float v = rows[(size_t) s * n + f];
        if (isinf (v))
          unreached++;
        else
          sum += v;
      }
      /* prefer the part reached from most samples (disconnected meshes) */
      if (unreached < best_unreached || (unreached == best_unreached && sum < best)) {
        best = sum;
        best_unreached = unreached;
        *centre = f;
      }
    }
  }
  free (src);
  free (rows);
  return st;
}

/* Farthest-point representatives: reps[0] = centre; up to kmax in all. rows gets each
 * one's distance row, gain[i] the distance of rep i to the earlier ones. */
static cc_status
farthest_points (ms_distances *d, const bool *patch, int centre, int kmax, int32_t *reps,
    float *rows, double *gain, int *found)
{
  int n = d->faces;
  float *mindist = malloc (sizeof (float) * n);
  if (!mindist)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  reps[0] = centre;
  gain[0] = INFINITY;
  cc_status st = ms_distances_rows (d, reps, 1, rows);
  *found = 1;
  if (st == CC_SUCCESS)
    memcpy (mindist, rows, sizeof (float) * n);
  while (st == CC_SUCCESS && *found < kmax) {
    int best = -1;
    float best_d = 0.0f;
    for (int f = 0; f < n; f++)
      if (IN_PATCH (patch, f) && isfinite (mindist[f]) && mindist[f] > best_d) {
        best_d = mindist[f];
        best = f;
      }
    if (best < 0)
      break;
    int i = (*found)++;
    reps[i] = best;
    gain[i] = best_d;
    float *row = rows + (size_t) i * n;
    st = ms_distances_rows (d, &reps[i], 1, row);
    for (int f = 0; st == CC_SUCCESS && f < n; f++)
      mindist[f] = fminf (mindist[f], row[f]);
  }
  free (mindist);
  return st;
}

/* Automatic k from Katz-Tal's G (the distance each new representative is from the
 * earlier ones): G falls as the representatives fill in the parts. On the PSB meshes G
 * falls smoothly rather than in one step, so instead of its steepest drop we keep the
 * representatives whose G is at least `threshold` times that of the first farthest
 * one (at least 2). */
static int
choose_k (const double *gain, int found, float threshold)
{
  if (found <= 2)
    return found;
  int k = 1;
  while (k < found && gain[k] >= threshold * gain[1])
    k++;
  return k < 2 ? 2 : k;
}

/* ------------------------------------------------------------ memberships */

/* Nearest and second-nearest representative of face f (by distance = by membership). */
static void
top_two (const float *rows, int k, size_t n, int f, int *best, int *second)
{
  *best = 0;
  *second = -1;
  for (int i = 1; i < k; i++) {
    float v = rows[i * n + f];
    if (v < rows[(size_t) *best * n + f]) {
      *second = *best;
      *best = i;
    } else if (*second < 0 || v < rows[(size_t) *second * n + f])
      *second = i;
  }
}

/* Membership of face f in cluster i (rows: the k representatives' rows). */
static double
membership (const float *rows, int k, size_t n, int f, int i)
{
  double sum = 0, own = 0;
  for (int j = 0; j < k; j++) {
    float v = rows[j * n + f];
    if (v == 0.0f)
      return j == i ? 1.0 : 0.0;
    double inv = isinf (v) ? 0.0 : 1.0 / v;
    sum += inv;
    if (j == i)
      own = inv;
  }
  return sum > 0 ? own / sum : 0.0;
}

/* One representative update; *moved tells whether any representative changed. */
static cc_status
move_representatives (ms_distances *d, const ms_cluster_params *p, const bool *patch, int k,
    int32_t *reps, float *rows, bool *moved)
{
  size_t n = (size_t) d->faces;
  int per = p->candidates + 1;
  int32_t *cand = malloc (sizeof (int32_t) * (size_t) k * per);
  int *cand_count = calloc ((size_t) k, sizeof (int));
  int32_t *members = malloc (sizeof (int32_t) * n);
  int32_t *owner = malloc (sizeof (int32_t) * n);
  double *weight = malloc (sizeof (double) * n);
  int32_t *pick = malloc (sizeof (int32_t) * k);   /* each cluster's new representative */
  float *cand_rows = NULL;
  cc_status st = CC_SUCCESS;
  if (!cand || !cand_count || !members || !owner || !weight || !pick) {
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    goto done;
  }
  for (size_t f = 0; f < n; f++) {
    int b, s;
    top_two (rows, k, n, (int) f, &b, &s);
    owner[f] = IN_PATCH (patch, f) ? b : -1;
  }
  int total = 0;
  for (int i = 0; i < k; i++) {
    int m = 0;
    for (size_t f = 0; f < n; f++)
      if (owner[f] == i)
        members[m++] = (int32_t) f;
    cand[i * per] = reps[i];
    cand_count[i] = 1;
    int want = m < p->candidates ? m : p->candidates;
    for (int c = 0; c < want; c++) {
      int32_t f = members[(long) (2 * c + 1) * m / (2 * want)];
      if (f != reps[i])
        cand[i * per + cand_count[i]++] = f;
    }
    total += cand_count[i];
  }
  cand_rows = malloc (sizeof (float) * (size_t) total * n);
  if (!cand_rows) {
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    goto done;
  }
  int32_t *flat = malloc (sizeof (int32_t) * total);
  if (!flat) {
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
    goto done;
  }
  for (int i = 0, t = 0; i < k; i++)
    for (int c = 0; c < cand_count[i]; c++)
      flat[t++] = cand[i * per + c];
  st = ms_distances_rows (d, flat, total, cand_rows);
  free (flat);
  if (st != CC_SUCCESS)
    goto done;
  *moved = false;
  for (int i = 0, t = 0; i < k; i++) {
    for (size_t f = 0; f < n; f++)
      weight[f] = owner[f] == i ? membership (rows, k, n, (int) f, i) : 0.0;
    double best = INFINITY;
    pick[i] = reps[i];
    for (int c = 0; c < cand_count[i]; c++, t++) {
      const float *row = cand_rows + (size_t) t * n;
      double cost = 0;
      for (size_t f = 0; f < n; f++)
        if (weight[f] > 0 && isfinite (row[f]))
          cost += weight[f] * row[f];
      /* strictly better only: the current representative (c = 0) wins ties */
      if (cost < best * (1.0 - 1e-9)) {
        best = cost;
        pick[i] = cand[i * per + c];
      }
    }
  }
  for (int i = 0; i < k; i++) {
    if (pick[i] != reps[i]) {
      *moved = true;
      reps[i] = pick[i];
    }
  }
  if (*moved)
    st = ms_distances_rows (d, reps, k, rows);
done:
  free (cand); free (cand_count); free (members); free (owner); free (weight);
  free (pick); free (cand_rows);
  return st;
}

/* ------------------------------------------------------------ API */

cc_status
ms_cluster (ms_distances *d, const ms_dual *dual, const ms_cluster_params *p,
    ms_segmentation *out)
{
  return ms_cluster_patch (d, dual, p, NULL, out);
}

cc_status
ms_cluster_patch (ms_distances *d, const ms_dual *dual, const ms_cluster_params *p,
    const bool *patch, ms_segmentation *out)
{
  memset (out, 0, sizeof *out);
  if (p->segments < 0 || p->max_segments < 2 || p->max_segments > 64 || p->segments > 64
      || !(p->epsilon >= 0.0f && p->epsilon < 0.5f) || p->candidates < 0
      || !(p->k_threshold > 0.0f && p->k_threshold <= 1.0f)
      || p->max_iterations < 0)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
        "meshseg: segments %d (0..64), max-segments %d (2..64), epsilon %g ([0, 0.5)) "
        "out of range", p->segments, p->max_segments, p->epsilon);
  int n = d->faces;
  int kmax = p->segments > 0 ? p->segments : p->max_segments + 1;
  if (kmax > n)
    kmax = n;
  int32_t *reps = malloc (sizeof (int32_t) * kmax);
  float *rows = malloc (sizeof (float) * (size_t) kmax * n);
  double *gain = malloc (sizeof (double) * kmax);
  out->label = malloc (sizeof (int32_t) * n);
  out->second = malloc (sizeof (int32_t) * n);
  out->certainty = malloc (sizeof (float) * n);
  out->fuzzy = malloc (sizeof (bool) * n);
  if (!reps || !rows || !gain || !out->label || !out->second || !out->certainty
      || !out->fuzzy) {
    free (reps); free (rows); free (gain);
    ms_segmentation_free (out);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  out->faces = n;
  int centre = 0, found = 0;
  cc_status st = central_face (d, patch, &centre);
  if (st == CC_SUCCESS)
    st = farthest_points (d, patch, centre, kmax, reps, rows, gain, &found);
  out->extent = found > 1 ? gain[1] : 0.0;
  out->gain_ratio = found > 2 ? gain[2] / gain[1] : 0.0;
  int k = 0;
  if (st == CC_SUCCESS) {
    /* kmax is max_segments + 1 so that G of the last candidate can be compared; the
     * representatives kept stay at most max_segments */
    k = p->segments > 0 ? found : choose_k (gain, found, p->k_threshold);
    if (p->segments == 0 && k > p->max_segments)
      k = p->max_segments;
    for (int it = 0; it < p->max_iterations && k > 1 && st == CC_SUCCESS; it++) {
      bool moved = false;
      st = move_representatives (d, p, patch, k, reps, rows, &moved);
      out->iterations = it + 1;
      if (!moved)
        break;
    }
  }
  for (int f = 0; st == CC_SUCCESS && f < n; f++) {
    if (!IN_PATCH (patch, f)) {
      out->label[f] = -2;
      out->second[f] = -2;
      out->certainty[f] = 1.0f;
      out->fuzzy[f] = false;
      continue;
    }
    int b, s;
    top_two (rows, k, (size_t) n, f, &b, &s);
    float db = rows[(size_t) b * n + f];
    float ds = s >= 0 ? rows[(size_t) s * n + f] : INFINITY;
    /* membership of the best among the top two: d_s / (d_b + d_s) in [0.5, 1] */
    double ratio = db == 0.0f || isinf (ds) ? 1.0 : ds / ((double) db + ds);
    out->label[f] = isinf (db) ? -1 : b;    /* -1: no representative reaches it */
    out->second[f] = s >= 0 ? s : b;
    out->certainty[f] = (float) (2.0 * ratio - 1.0);
    out->fuzzy[f] = !isinf (db) && ratio < 0.5 + p->epsilon;
    out->fuzzy_faces += out->fuzzy[f];
  }
  if (st == CC_SUCCESS) {
    out->k = k;
    out->reps = malloc (sizeof (int32_t) * (k ? k : 1));
    if (out->reps)
      memcpy (out->reps, reps, sizeof (int32_t) * k);
    else
      st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "meshseg: out of memory");
  }
  free (reps); free (rows); free (gain);
  if (st != CC_SUCCESS)
    ms_segmentation_free (out);
  return st;
}
