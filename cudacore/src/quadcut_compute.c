/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Quad-Cut's compute (cc_quadcut_compute_sync): the CPU reference's stages from the
 * stratified data to the cut and the mask, and the CUDA run around the host's cut.
 *
 * Every stage is a loop over rows, pixels or leaves on the context's threads, each
 * output written by one iteration, sums in a fixed order (per leaf, over its pixels
 * in raster order) and the histogram in integers: the results are the same bits for
 * any thread count. The leaf graph is built in the leaves' order (raster order of
 * their top-left pixels), so the cut sees the same graph every time. */
#include "quadcut_module.h"
#include "cudacore/cc_timer.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lab of every pixel of a frame into lab (3 floats a pixel). */
void
cc_qc_frame_to_lab (const cc_quadcut *q, const cc_image *f, float *lab)
{
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < q->mod.height; y++) {
    float *o = lab + 3 * (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++) {
      int rgb[3];
      cc_qc_pixel_rgb (f, x, y, rgb);
      cc_qc_lab (rgb[0], rgb[1], rgb[2], q->lin, o + 3 * x);
    }
  }
}

long long
cc_qc_hist_costs (const int *hist, int nb, float *cost)
{
  long long seeds = 0;
  for (int k = 0; k < nb; k++)
    seeds += hist[k];
  for (int k = 0; k < nb; k++)
    cost[k] = (float) -log ((hist[k] + 1.0) / ((double) seeds + nb));
  return seeds;
}

/* Lab, background distance, seed and the histogram of the seeds. */
static void
stratify (cc_quadcut *q, const cc_image *f, const cc_image *other)
{
  const cc_quadcut_params *p = &q->params;
  const int w = q->mod.width, h = q->mod.height, bins = p->bins, nb = bins * bins;
  const float inv_2sl2 = 1.0f / (2.0f * p->sigma_l * p->sigma_l);
  /* seed: p_B < t, i.e. d^2 / (2 sigma_l^2) > -ln t */
  const float seed_cost = p->seed_threshold > 0.0f ? -logf (p->seed_threshold) : FLT_MAX;
  cc_qc_frame_to_lab (q, f, q->lab);
  /* ACTIVE: the plate's buffer holds the other frame's Lab (no plate in that mode) */
  if (p->mode == CC_QUADCUT_MODE_ACTIVE)
    cc_qc_frame_to_lab (q, other, q->plate_lab);
  const int active = p->mode == CC_QUADCUT_MODE_ACTIVE;
  int *hist = q->hist;
  memset (hist, 0, (size_t) nb * sizeof (int));
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q)) reduction(+:hist[:nb])
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      const float *c = q->lab + 3 * i;
      cc_qc_stratify_pixel (c, q->plate_lab + 3 * i, active, p->shadow_depth, inv_2sl2,
          seed_cost, &q->dist[i], &q->cost_bg[i], &q->seed[i]);
      if (q->seed[i])
        hist[cc_qc_cell (c, bins)]++;
    }
  }
}

/* The histogram's costs and the per-pixel regional costs with the temporal prior. */
static void
regional_costs (cc_quadcut *q)
{
  const cc_quadcut_params *p = &q->params;
  const int w = q->mod.width, h = q->mod.height, bins = p->bins, nb = bins * bins;
  q->n_seeds = cc_qc_hist_costs (q->hist, nb, q->hist_cost);
  const float tp = q->have_prev ? p->temporal : 0.0f;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      const float *c = q->lab + 3 * i;
      float cf = q->hist_cost[cc_qc_cell (c, bins)];
      /* the temporal prior: the label the pixel did not have costs `temporal` */
      q->cost_fg[i] = cf + (q->prev_mask[i] ? 0.0f : tp);
      q->cost_bg[i] += q->prev_mask[i] ? tp : 0.0f;
    }
  }
}

/* The reduction pyramid: group[k][node] for levels 1..K. */
static void
build_pyramid (cc_quadcut *q)
{
  const cc_qc_criterion crit = cc_qc_criterion_of (&q->params);
  for (int k = 1; k <= q->levels; k++) {
    const int nw = q->lw[k], nh = q->lh[k], cw = q->lw[k - 1];
    cc_qc_range *dst = q->range[(k - 1) & 1];
    const cc_qc_range *src = q->range[k & 1];
    const uint8_t *cg = k > 1 ? q->group[k - 1] : NULL;
    uint8_t *g = q->group[k];
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int j = 0; j < nh; j++)
      for (int i = 0; i < nw; i++) {
        size_t ni = (size_t) j * nw + i;
        g[ni] = (uint8_t) cc_qc_reduce (k, i, j, cw, q->lab, q->dist, src, cg, &crit,
            &dst[ni]);
      }
  }
}

static cc_qc_pyramid
pyramid_of (const cc_quadcut *q)
{
  cc_qc_pyramid py;
  memset (&py, 0, sizeof py);
  py.levels = q->levels;
  for (int k = 0; k <= CC_QUADCUT_MAX_LEVEL; k++) {
    py.lw[k] = q->lw[k];
    py.lh[k] = q->lh[k];
    py.group[k] = q->group[k];
  }
  return py;
}

/* Room for `total` neighbour entries (both lists), grown with slack, never shrunk. */
cc_status
cc_qc_grow_neighbours (cc_quadcut *q, long long total)
{
  if (total <= q->nbr_cap)
    return CC_SUCCESS;
  long long cap = cc_qc_capacity (total, 256);
  int *a = realloc (q->nbr, (size_t) cap * sizeof (int));
  if (a)
    q->nbr = a;
  int *b = realloc (q->len, (size_t) cap * sizeof (int));
  if (b)
    q->len = b;
  if (!a || !b)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory for "
        "%lld neighbour entries", total);
  q->nbr_cap = cap;
  return CC_SUCCESS;
}

cc_status
cc_qc_grow_leaves (cc_quadcut *q, int n)
{
  if (n <= q->leaf_cap)
    return CC_SUCCESS;
  int cap = (int) cc_qc_capacity (n, 64);
  cc_quadcut_leaf *l = realloc (q->leaves, (size_t) cap * sizeof *l);
  if (l)
    q->leaves = l;
  int *o = realloc (q->offsets, ((size_t) cap + 1) * sizeof *o);
  if (o)
    q->offsets = o;
  int *eo = realloc (q->edge_off, ((size_t) cap + 1) * sizeof *eo);
  if (eo)
    q->edge_off = eo;
  if (!l || !o || !eo)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory for %d leaves",
        n);
  q->leaf_cap = cap;
  return CC_SUCCESS;
}

/* Leaf list (compaction in raster order of the top-left pixels), leaf-id image,
 * means and summed costs. */
static cc_status
isolate_leaves (cc_quadcut *q)
{
  const int w = q->mod.width, h = q->mod.height;
  const cc_qc_pyramid py = pyramid_of (q);
  int *rows = q->row_leaves;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < h; y++) {
    int c = 0;
    for (int x = 0; x < w; x++)
      c += cc_qc_leaf_at_origin (&py, x, y) >= 0;
    rows[y + 1] = c;
  }
  rows[0] = 0;
  for (int y = 0; y < h; y++)
    rows[y + 1] += rows[y];
  q->n_leaves = rows[h];
  CC_TRY (cc_qc_grow_leaves (q, q->n_leaves));
  cc_quadcut_leaf *leaves = q->leaves;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < h; y++) {
    int n = rows[y];
    for (int x = 0; x < w; x++) {
      int k = cc_qc_leaf_at_origin (&py, x, y);
      if (k < 0)
        continue;
      leaves[n].x = x;
      leaves[n].y = y;
      leaves[n].level = k;
      int s = 1 << k;
      for (int yy = y; yy < y + s; yy++)
        for (int xx = x; xx < x + s; xx++)
          q->leaf_id[(size_t) yy * w + xx] = n;
      n++;
    }
  }
  /* per leaf: mean Lab and summed costs, over its pixels in raster order */
#pragma omp parallel for schedule(dynamic, 256) num_threads(cc_qc_threads (q))
  for (int n = 0; n < q->n_leaves; n++)
    cc_qc_leaf_sums (&leaves[n], q->lab, q->cost_fg, q->cost_bg, w);
  return CC_SUCCESS;
}

/* QuadN4 references of every leaf (C 4.2.4), from the leaf-id image. */
static void
quadn4 (cc_quadcut *q)
{
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int n = 0; n < q->n_leaves; n++)
    cc_qc_quadn4 (&q->leaves[n], q->leaf_id, q->mod.width, q->mod.height);
}

static cc_status
neighbour_lists (cc_quadcut *q)
{
  const int nl = q->n_leaves;
  int *off = q->offsets;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int n = 0; n < nl; n++)
    off[n + 1] = cc_qc_navigate (q->leaves, n, NULL, NULL);
  off[0] = 0;
  for (int n = 0; n < nl; n++)
    off[n + 1] += off[n];
  long long total = off[nl];
  CC_TRY (cc_qc_grow_neighbours (q, total));
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int n = 0; n < nl; n++)
    cc_qc_navigate (q->leaves, n, q->nbr + off[n], q->len + off[n]);
  return CC_SUCCESS;
}

/* Room for the labels of n nodes (CUDA: the only per-node host buffer). */
cc_status
cc_qc_grow_labels (cc_quadcut *q, int n)
{
  if (n <= q->labels_cap)
    return CC_SUCCESS;
  int cap = (int) cc_qc_capacity (n, 64);
  uint8_t *l = realloc (q->labels, (size_t) cap);
  if (!l)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory for %d "
        "labels", n);
  q->labels = l;
  q->labels_cap = cap;
  return CC_SUCCESS;
}

static cc_status
grow_graph (cc_quadcut *q, int nodes, long long edges)
{
  if (nodes > q->node_cap) {
    int cap = (int) cc_qc_capacity (nodes, 64);
    double *a = realloc (q->gfg, (size_t) cap * sizeof (double));
    if (a)
      q->gfg = a;
    double *b = realloc (q->gbg, (size_t) cap * sizeof (double));
    if (b)
      q->gbg = b;
    if (!a || !b || cc_qc_grow_labels (q, nodes) != CC_SUCCESS)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory for a "
          "graph of %d nodes", nodes);
    q->node_cap = cap;
  }
  if (edges > q->edge_cap) {
    long long cap = cc_qc_capacity (edges, 64);
    int *a = realloc (q->ea, (size_t) cap * sizeof (int));
    if (a)
      q->ea = a;
    int *b = realloc (q->eb, (size_t) cap * sizeof (int));
    if (b)
      q->eb = b;
    double *e = realloc (q->ew, (size_t) cap * sizeof (double));
    if (e)
      q->ew = e;
    if (!a || !b || !e)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory for "
          "%lld n-links", edges);
    q->edge_cap = cap;
  }
  return CC_SUCCESS;
}

/* The leaf graph: t-links from the summed costs, one n-link per neighbour pair
 * (from the leaf with the lower index), in the leaves' order: per-leaf counts, a
 * prefix sum, then each leaf's n-links (cc_qc_leaf_edges, CUDA's too). */
static cc_status
leaf_graph (cc_quadcut *q)
{
  const int nl = q->n_leaves;
  const double inv_2sc2 = 1.0 / (2.0 * q->params.sigma_c * q->params.sigma_c);
  const double lambda = q->params.lambda;
  long long m = q->offsets[nl] / 2;
  CC_TRY (grow_graph (q, nl, m));
  int *eoff = q->edge_off;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int n = 0; n < nl; n++) {
    q->gfg[n] = q->leaves[n].cost_fg;
    q->gbg[n] = q->leaves[n].cost_bg;
    eoff[n + 1] = cc_qc_up_count (q->offsets, q->nbr, n);
  }
  eoff[0] = 0;
  for (int n = 0; n < nl; n++)
    eoff[n + 1] += eoff[n];
#pragma omp parallel for schedule(dynamic, 1024) num_threads(cc_qc_threads (q))
  for (int n = 0; n < nl; n++)
    cc_qc_leaf_edges (q->leaves, q->offsets, q->nbr, q->len, n, lambda, inv_2sc2, eoff[n],
        q->ea, q->eb, q->ew);
  q->n_nodes = nl;
  q->n_edges = eoff[nl];
  return CC_SUCCESS;
}

/* The pixel-level reference graph: 4-connected, unit borders. Edges of row y:
 * the w - 1 horizontal ones, then (y < h - 1) the w vertical ones. */
static cc_status
pixel_graph (cc_quadcut *q)
{
  const int w = q->mod.width, h = q->mod.height;
  const double inv_2sc2 = 1.0 / (2.0 * q->params.sigma_c * q->params.sigma_c);
  const double lambda = q->params.lambda;
  long long per_row = (long long) (w - 1) + w;
  long long m = (long long) (w - 1) * h + (long long) w * (h - 1);
  if ((long long) q->npx > 0x7FFFFFFF)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "quadcut: too many pixels for the "
        "pixel-level graph");
  CC_TRY (grow_graph (q, (int) q->npx, m));
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < h; y++) {
    long long e = per_row * y;
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      q->gfg[i] = q->cost_fg[i];
      q->gbg[i] = q->cost_bg[i];
    }
    for (int x = 0; x + 1 < w; x++, e++) {
      size_t i = (size_t) y * w + x;
      q->ea[e] = (int) i;
      q->eb[e] = (int) i + 1;
      q->ew[e] = lambda * cc_qc_boundary (q->lab + 3 * i, q->lab + 3 * (i + 1), inv_2sc2);
    }
    if (y + 1 < h)
      for (int x = 0; x < w; x++, e++) {
        size_t i = (size_t) y * w + x;
        q->ea[e] = (int) i;
        q->eb[e] = (int) (i + w);
        q->ew[e] = lambda * cc_qc_boundary (q->lab + 3 * i, q->lab + 3 * (i + w), inv_2sc2);
      }
  }
  q->n_nodes = (int) q->npx;
  q->n_edges = m;
  return CC_SUCCESS;
}

static void stage_done (cc_quadcut *q, cc_quadcut_stage s, double *t0);

/* CUDA: the device front (stratify .. neighbour lists, the leaf graph and its one
 * copy to the host, timed by CUDA events), the cut on the host (ms[MAXFLOW]: feeding
 * libmaxflow and its max-flow), the device back (ms[OUTPUT]: labels up, scatter,
 * feather, waited for). The leaves and neighbour lists stay on the device until
 * cc_quadcut_get_graph asks for them. */
static cc_status
run_cuda (cc_quadcut *q, cc_stream stream, const cc_image *frame, const cc_image *other,
    double t0)
{
  long long total = 0;
  double dev[7] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  cc_qc_host_graph g;
  memset (&g, 0, sizeof g);   /* filled by the CUDA front; zero in a CPU-only build */
  /* nothing of the last graph stays readable if this run fails half way */
  q->graph_on_host = 0;
  q->n_leaves = q->n_nodes = 0;
  q->n_edges = 0;
  q->n_nbr = 0;
  CC_TRY (CC_CUDA_ONLY (cc_cuda_quadcut_front (q->cuda, stream, &q->params, frame, other,
      q->have_prev, q->levels, &total, &q->n_seeds, &g, dev)));
  t0 = cc_now_ms ();
  q->ms[CC_QUADCUT_STAGE_STRATIFY] = dev[0];
  q->ms[CC_QUADCUT_STAGE_HISTOGRAM] = dev[1];
  q->ms[CC_QUADCUT_STAGE_PYRAMID] = dev[2];
  q->ms[CC_QUADCUT_STAGE_LEAVES] = dev[3];
  q->ms[CC_QUADCUT_STAGE_NEIGHBOURS] = dev[4];
  q->ms[CC_QUADCUT_STAGE_GRAPH] = dev[5];
  q->ms[CC_QUADCUT_STAGE_TRANSFER] = dev[6];
  q->n_leaves = g.n;
  q->n_nbr = total;
  q->n_nodes = g.n;
  q->n_edges = g.m;
  q->tfg = g.fg;
  q->tbg = g.bg;
  q->tw = g.w;
  q->ta = g.a;
  q->tb = g.b;
  CC_TRY (cc_qc_grow_labels (q, g.n));
  CC_TRY (cc_qc_cut_solve (q->cut, g.n, g.fg, g.bg, g.m, g.a, g.b, g.w, q->labels,
      &q->flow));
  stage_done (q, CC_QUADCUT_STAGE_MAXFLOW, &t0);
  CC_TRY (CC_CUDA_ONLY (cc_cuda_quadcut_back (q->cuda, stream, q->labels, g.n,
      q->params.feather)));
  CC_TRY (CC_CUDA_ONLY (cc_cuda_stream_synchronize (stream)));
  q->have_prev = 1;
  q->have_run = 1;
  stage_done (q, CC_QUADCUT_STAGE_OUTPUT, &t0);
  return CC_SUCCESS;
}


/* Ends stage s (started at *t0) and starts the next. */
static void
stage_done (cc_quadcut *q, cc_quadcut_stage s, double *t0)
{
  double t = cc_now_ms ();
  q->ms[s] = t - *t0;
  *t0 = t;
}

cc_status
cc_quadcut_compute_sync (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    const cc_image *other)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_compute_sync: q is NULL");
  CC_TRY (cc_qc_check_frame (q, frame, "cc_quadcut_compute_sync", "frame"));
  if (q->params.mode == CC_QUADCUT_MODE_PLATE) {
    CC_CHECK_ARG (q->have_plate, "cc_quadcut_compute_sync: no plate (cc_quadcut_set_plate first)");
    CC_CHECK_ARG (other == NULL, "cc_quadcut_compute_sync: PLATE mode takes no other frame");
  } else {
    CC_TRY (cc_qc_check_frame (q, other, "cc_quadcut_compute_sync", "other"));
  }
  stream = cc_qc_submit_stream (q, stream);
  double t0 = cc_now_ms ();
  memset (q->ms, 0, sizeof q->ms);
  if (q->cuda)
    return run_cuda (q, stream, frame, other, t0);
  stratify (q, frame, other);
  stage_done (q, CC_QUADCUT_STAGE_STRATIFY, &t0);
  regional_costs (q);
  stage_done (q, CC_QUADCUT_STAGE_HISTOGRAM, &t0);
  if (q->params.nodes == CC_QUADCUT_NODES_LEAVES) {
    build_pyramid (q);
    stage_done (q, CC_QUADCUT_STAGE_PYRAMID, &t0);
    CC_TRY (isolate_leaves (q));
    stage_done (q, CC_QUADCUT_STAGE_LEAVES, &t0);
    quadn4 (q);
    CC_TRY (neighbour_lists (q));
    stage_done (q, CC_QUADCUT_STAGE_NEIGHBOURS, &t0);
    CC_TRY (leaf_graph (q));
  } else {
    q->n_leaves = 0;
    CC_TRY (pixel_graph (q));
  }
  q->tfg = q->gfg;
  q->tbg = q->gbg;
  q->tw = q->ew;
  q->ta = q->ea;
  q->tb = q->eb;
  stage_done (q, CC_QUADCUT_STAGE_GRAPH, &t0);
  CC_TRY (cc_qc_cut_solve (q->cut, q->n_nodes, q->tfg, q->tbg, q->n_edges, q->ta, q->tb,
      q->tw, q->labels, &q->flow));
  stage_done (q, CC_QUADCUT_STAGE_MAXFLOW, &t0);
  /* reconstruction: labels scattered to the mask, which becomes the next prior */
  uint8_t *mask = q->mask;
  const int leaves = q->params.nodes == CC_QUADCUT_NODES_LEAVES;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < q->mod.height; y++)
    for (int x = 0; x < q->mod.width; x++) {
      size_t i = (size_t) y * q->mod.width + x;
      mask[i] = q->labels[leaves ? q->leaf_id[i] : (int32_t) i] ? 255 : 0;
    }
  memcpy (q->prev_mask, q->mask, q->npx);
  q->have_prev = 1;
  q->have_run = 1;
  if (q->params.feather > 0)
    cc_qc_box_filter (q, q->mask, q->mod.width, 1, q->alpha, q->mod.width, 1, 1, q->params.feather,
        q->mod.width, q->mod.height);
  else
    memcpy (q->alpha, q->mask, q->npx);
  stage_done (q, CC_QUADCUT_STAGE_OUTPUT, &t0);
  return CC_SUCCESS;
}