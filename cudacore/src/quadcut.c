/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Quad-Cut: the API and the CPU reference (see cc_quadcut.h for the method).
 *
 * Every stage is a loop over rows, pixels or leaves on the context's threads, each
 * output written by one iteration, sums in a fixed order (per leaf, over its pixels
 * in raster order) and the histogram in integers: the results are the same bits for
 * any thread count. The leaf graph is built in the leaves' order (raster order of
 * their top-left pixels), so the cut sees the same graph every time. */
#include "quadcut_internal.h"
#include "quadcut_hostdev.h"
#include "cudacore/cc_quadcut.h"
#include "cudacore/cc_timer.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
cc_quadcut_params_default (cc_quadcut_params *p)
{
  p->mode = CC_QUADCUT_MODE_PLATE;
  p->nodes = CC_QUADCUT_NODES_LEAVES;
  p->sigma_l = 6.0f;
  p->shadow_depth = 0.15f;
  p->seed_threshold = 1e-4f;
  p->bins = 32;
  p->sigma_c = 10.0f;
  p->lambda = 1.0f;
  p->similarity = 8.0f;
  p->max_level = 5;
  p->certain = 4.0f;
  p->temporal = 1.5f;
  p->feather = 1;
}

cc_status
cc_quadcut_params_check (const cc_quadcut_params *p)
{
  CC_CHECK_ARG (p != NULL, "quadcut: params is NULL");
  CC_CHECK_ARG (p->mode == CC_QUADCUT_MODE_PLATE || p->mode == CC_QUADCUT_MODE_ACTIVE,
      "quadcut: unknown mode %d", (int) p->mode);
  CC_CHECK_ARG (p->nodes == CC_QUADCUT_NODES_LEAVES || p->nodes == CC_QUADCUT_NODES_PIXELS,
      "quadcut: unknown nodes kind %d", (int) p->nodes);
  CC_CHECK_ARG (p->sigma_l >= 0.1f && p->sigma_l <= 100.0f,
      "quadcut: sigma_l %g out of range [0.1, 100]", p->sigma_l);
  CC_CHECK_ARG (p->shadow_depth >= 0.0f && p->shadow_depth <= 1.0f,
      "quadcut: shadow_depth %g out of range [0, 1]", p->shadow_depth);
  CC_CHECK_ARG (p->seed_threshold >= 0.0f && p->seed_threshold <= 1.0f,
      "quadcut: seed_threshold %g out of range [0, 1]", p->seed_threshold);
  CC_CHECK_ARG (p->bins >= 2 && p->bins <= 256, "quadcut: bins %d out of range 2..256",
      p->bins);
  CC_CHECK_ARG (p->sigma_c >= 0.1f && p->sigma_c <= 100.0f,
      "quadcut: sigma_c %g out of range [0.1, 100]", p->sigma_c);
  CC_CHECK_ARG (p->lambda >= 0.0f && p->lambda <= 1000.0f,
      "quadcut: lambda %g out of range [0, 1000]", p->lambda);
  CC_CHECK_ARG (p->similarity >= 0.0f && p->similarity <= 1000.0f,
      "quadcut: similarity %g out of range [0, 1000]", p->similarity);
  CC_CHECK_ARG (p->certain >= 0.0f && p->certain <= 100.0f,
      "quadcut: certain %g out of range [0, 100]", p->certain);
  CC_CHECK_ARG (p->max_level >= 0 && p->max_level <= CC_QUADCUT_MAX_LEVEL,
      "quadcut: max_level %d out of range 0..%d", p->max_level, CC_QUADCUT_MAX_LEVEL);
  CC_CHECK_ARG (p->temporal >= 0.0f && p->temporal <= 100.0f,
      "quadcut: temporal %g out of range [0, 100]", p->temporal);
  CC_CHECK_ARG (p->feather >= 0 && p->feather <= 64,
      "quadcut: feather %d out of range 0..64", p->feather);
  return CC_SUCCESS;
}

struct cc_quadcut {
  cc_module mod;               /* ctx, frame size (first: module.c) */
  cc_quadcut_params params;
  size_t npx;
  cc_stream stream;            /* of the last submit call (CUDA) */
  float lin[256];              /* sRGB -> linear */
  float *plate_lab;            /* 3 x npx */
  uint8_t *plate_rgb;          /* 4 x npx: R, G, B, 0 */
  int have_plate;
  /* stratified data */
  float *lab;                  /* 3 x npx, interleaved */
  float *dist;
  uint8_t *seed;
  float *cost_fg, *cost_bg;    /* per-pixel regional costs (temporal prior included) */
  int *hist;                   /* bins x bins */
  float *hist_cost;
  long long n_seeds;
  /* previous mask (temporal prior), mask, alpha */
  uint8_t *mask, *prev_mask, *alpha;
  int have_prev;
  int have_run;
  /* quadtree */
  int levels;                  /* K: highest level with nodes */
  int lw[CC_QUADCUT_MAX_LEVEL + 1], lh[CC_QUADCUT_MAX_LEVEL + 1];
  uint8_t *group[CC_QUADCUT_MAX_LEVEL + 1];   /* groupable flags, levels 1..K */
  cc_qc_range *range[2];       /* ping-pong: odd levels in 0, even in 1 */
  int32_t *leaf_id;            /* npx */
  int *row_leaves;             /* h + 1: leaves whose top-left pixel is in each row */
  cc_quadcut_leaf *leaves;
  int n_leaves, leaf_cap;
  int *offsets;                /* leaf_cap + 1 */
  int *edge_off;               /* leaf_cap + 1: each leaf's first n-link */
  int *nbr, *len;
  long long nbr_cap, n_nbr;
  int graph_on_host;           /* CUDA: leaves and lists downloaded for get_graph */
  /* graph */
  double *gfg, *gbg, *ew;
  int *ea, *eb;
  int node_cap;
  long long edge_cap;
  uint8_t *labels;
  int labels_cap;
  /* the graph as cut: the CPU's arrays above, or CUDA's pinned copy */
  const double *tfg, *tbg, *tw;
  const int *ta, *tb;
  int n_nodes;
  long long n_edges;
  double flow;
  double ms[CC_QUADCUT_STAGES];
  cc_qc_cut *cut;
  /* box filters: row sums and the blurred frame */
  uint32_t *box_tmp;           /* 3 x npx */
  uint8_t *blurred;            /* 4 x npx */
  /* CUDA: the per-pixel state lives on the device; the leaf graph, its n-links and
   * labels on the host as above */
  cc_cuda_quadcut *cuda;
};

static int
threads_of (const cc_quadcut *q)
{
  return cc_context_cpu_threads (q->mod.ctx);
}

/* The pyramid's levels for max_level and the frame size. */
static void
quadcut_levels (cc_quadcut *q, int max_level)
{
  const int w = q->mod.width, h = q->mod.height;
  int k = 0;
  while (k < max_level && (w >> (k + 1)) >= 1 && (h >> (k + 1)) >= 1)
    k++;
  q->levels = k;
  for (int l = 0; l <= CC_QUADCUT_MAX_LEVEL; l++) {
    q->lw[l] = w >> l;
    q->lh[l] = h >> l;
  }
}

static void
quadcut_release (cc_module *mod)
{
  cc_quadcut *q = (cc_quadcut *) mod;
  free (q->plate_lab);
  free (q->plate_rgb);
  free (q->lab);
  free (q->dist);
  free (q->seed);
  free (q->cost_fg);
  free (q->cost_bg);
  free (q->hist);
  free (q->hist_cost);
  free (q->mask);
  free (q->prev_mask);
  free (q->alpha);
  for (int l = 0; l <= CC_QUADCUT_MAX_LEVEL; l++)
    free (q->group[l]);
  free (q->range[0]);
  free (q->range[1]);
  free (q->leaf_id);
  free (q->row_leaves);
  free (q->leaves);
  free (q->offsets);
  free (q->edge_off);
  free (q->nbr);
  free (q->len);
  free (q->gfg);
  free (q->gbg);
  free (q->ew);
  free (q->ea);
  free (q->eb);
  free (q->labels);
  cc_qc_cut_free (q->cut);
  free (q->box_tmp);
  free (q->blurred);
#if CC_HAVE_CUDA
  cc_cuda_quadcut_destroy (q->cuda);
#endif
}

/* Pyramid buffers for levels 1..CC_QUADCUT_MAX_LEVEL (allocated once for the
 * largest max_level, so that set_params never allocates them again). */
static cc_status
alloc_pyramid (cc_quadcut *q)
{
  for (int l = 1; l <= CC_QUADCUT_MAX_LEVEL; l++) {
    size_t n = (size_t) q->lw[l] * q->lh[l];
    if (n == 0)
      break;
    q->group[l] = malloc (n);
    if (!q->group[l])
      return CC_ERROR_OUT_OF_MEMORY;
  }
  size_t n1 = (size_t) q->lw[1] * q->lh[1], n2 = (size_t) q->lw[2] * q->lh[2];
  q->range[0] = malloc ((n1 ? n1 : 1) * sizeof (cc_qc_range));
  q->range[1] = malloc ((n2 ? n2 : 1) * sizeof (cc_qc_range));
  return q->range[0] && q->range[1] ? CC_SUCCESS : CC_ERROR_OUT_OF_MEMORY;
}

/* Everything for the frame size, at create (set_params never allocates: the pyramid
 * is sized for the largest max_level, the leaf graph's buffers grow with it). */
static cc_status
quadcut_alloc (cc_module *mod)
{
  cc_quadcut *q = (cc_quadcut *) mod;
  const int cpu = cc_context_backend (mod->ctx) == CC_BACKEND_CPU;
  if (!cpu && q->params.nodes != CC_QUADCUT_NODES_LEAVES)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "cc_quadcut_create: the pixel-level "
        "reference (NODES_PIXELS) runs on the CPU backend only");
  const int width = mod->width, height = mod->height;
  q->npx = (size_t) width * height;
  q->stream = cc_context_stream (mod->ctx);
  quadcut_levels (q, q->params.max_level);
  for (int i = 0; i < 256; i++) {
    double c = i / 255.0;
    q->lin[i] = (float) (c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4));
  }
  size_t n = q->npx;
  q->cut = cc_qc_cut_new ();
  int ok = q->cut != NULL;
  if (cpu) {
    q->plate_lab = malloc (3 * n * sizeof (float));
    q->plate_rgb = calloc (4 * n, 1);
    q->lab = malloc (3 * n * sizeof (float));
    q->dist = malloc (n * sizeof (float));
    q->seed = malloc (n);
    q->cost_fg = malloc (n * sizeof (float));
    q->cost_bg = malloc (n * sizeof (float));
    q->hist = malloc (256 * 256 * sizeof (int));
    q->hist_cost = malloc (256 * 256 * sizeof (float));
    q->mask = calloc (n, 1);
    q->prev_mask = calloc (n, 1);
    q->alpha = calloc (n, 1);
    q->leaf_id = malloc (n * sizeof (int32_t));
    q->row_leaves = malloc (((size_t) height + 1) * sizeof (int));
    q->box_tmp = malloc (3 * n * sizeof (uint32_t));
    q->blurred = malloc (4 * n);
    ok = ok && q->plate_lab && q->plate_rgb && q->lab && q->dist && q->seed && q->cost_fg
        && q->cost_bg && q->hist && q->hist_cost && q->mask && q->prev_mask && q->alpha
        && q->leaf_id && q->row_leaves && q->box_tmp && q->blurred
        && alloc_pyramid (q) == CC_SUCCESS;
  }
  if (!ok)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_quadcut_create: out of host memory "
        "for %dx%d", width, height);
  if (!cpu)
    return CC_CUDA_ONLY (cc_cuda_quadcut_create (mod->ctx, width, height, q->lin, &q->cuda));
  return CC_SUCCESS;
}

/* New params keep the mode and nodes kind (recreate to change them) and take new
 * pyramid levels (max_level); nothing is allocated anew. */
static cc_status
quadcut_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_quadcut *q = (cc_quadcut *) mod;
  const cc_quadcut_params *p = params;
  CC_CHECK_ARG (p->mode == q->params.mode && p->nodes == q->params.nodes,
      "cc_quadcut_set_params: mode and nodes are fixed at create (recreate to change them)");
  quadcut_levels (q, p->max_level);
  *realloc = false;
  return CC_SUCCESS;
}

CC_MODULE_CLASS (quadcut_class, cc_quadcut, cc_quadcut_params, cc_quadcut,
    quadcut_params_changing, quadcut_alloc, quadcut_release);

cc_status
cc_quadcut_create (cc_context *ctx, int width, int height, const cc_quadcut_params *params,
    cc_quadcut **out)
{
  cc_module *q = NULL;
  cc_status st = cc_module_create (&quadcut_class, ctx, width, height, params,
      out ? &q : NULL);
  if (out)
    *out = (cc_quadcut *) q;
  return st;
}

void
cc_quadcut_destroy (cc_quadcut *q)
{
  cc_module_destroy ((cc_module *) q);
}

void
cc_quadcut_get_params (const cc_quadcut *q, cc_quadcut_params *params)
{
  *params = q->params;
}

cc_status
cc_quadcut_set_params (cc_quadcut *q, const cc_quadcut_params *params)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_set_params: q is NULL");
  return cc_module_set_params (&q->mod, params);
}

cc_status
cc_quadcut_reset (cc_quadcut *q)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_reset: q is NULL");
  q->have_prev = 0;
  return CC_SUCCESS;
}

/* The stream a submit call runs on (its argument, or the context's stream), kept for the
 * readbacks that take none (get_graph, get_stratified). */
static cc_stream
submit_stream (cc_quadcut *q, cc_stream stream)
{
  return q->stream = cc_stream_resolve (q->mod.ctx, stream);
}

/* A frame the module reads: RGBX8 / BGRX8 (and NV12 / I420 when yuv) where the
 * backend computes, the created size. */
static cc_status
check_image (const cc_quadcut *q, const cc_image *f, const char *fn, const char *what,
    int yuv)
{
  CC_CHECK_ARG (f != NULL, "%s: %s is NULL", fn, what);
  CC_TRY (cc_image_check (f, what));
  CC_CHECK_ARG (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8
      || (yuv && (f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420)),
      "%s: %s is %s; quadcut takes RGBX8 or BGRX8%s there", fn, what,
      cc_format_name (f->format), yuv ? ", NV12 or I420" : "");
  CC_TRY (cc_image_check_location (q->mod.ctx, f, what));
  CC_CHECK_ARG (f->width == q->mod.width && f->height == q->mod.height,
      "%s: %s is %dx%d, quadcut was created for %dx%d", fn, what, f->width, f->height,
      q->mod.width, q->mod.height);
  return CC_SUCCESS;
}

/* Frames read: every format. */
static cc_status
check_frame (const cc_quadcut *q, const cc_image *f, const char *fn, const char *what)
{
  return check_image (q, f, fn, what, 1);
}

/* Lab of every pixel of a frame into lab (3 floats a pixel). */
static void
frame_to_lab (const cc_quadcut *q, const cc_image *f, float *lab)
{
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < q->mod.height; y++) {
    float *o = lab + 3 * (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++) {
      int rgb[3];
      cc_qc_pixel_rgb (f, x, y, rgb);
      cc_qc_lab (rgb[0], rgb[1], rgb[2], q->lin, o + 3 * x);
    }
  }
}

cc_status
cc_quadcut_set_plate (cc_quadcut *q, cc_stream stream, const cc_image *plate)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_set_plate: q is NULL");
  CC_TRY (check_frame (q, plate, "cc_quadcut_set_plate", "plate"));
  stream = submit_stream (q, stream);
  if (q->cuda) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_quadcut_set_plate (q->cuda, stream, plate)));
  } else {
    frame_to_lab (q, plate, q->plate_lab);
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
    for (int y = 0; y < q->mod.height; y++) {
      uint8_t *o = q->plate_rgb + 4 * (size_t) y * q->mod.width;
      for (int x = 0; x < q->mod.width; x++) {
        int rgb[3];
        cc_qc_pixel_rgb (plate, x, y, rgb);
        for (int c = 0; c < 3; c++)
          o[4 * x + c] = (uint8_t) rgb[c];
      }
    }
  }
  q->have_plate = 1;
  return CC_SUCCESS;
}

cc_status
cc_quadcut_update_plate (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    int step, bool background_only)
{
  const char *fn = "cc_quadcut_update_plate";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_TRY (check_frame (q, frame, fn, "frame"));
  CC_CHECK_ARG (q->have_plate, "%s: no plate (cc_quadcut_set_plate first)", fn);
  CC_CHECK_ARG (step >= 1 && step <= 255, "%s: step %d out of range 1..255", fn, step);
  CC_CHECK_ARG (!background_only || q->have_run, "%s: background_only needs a run first",
      fn);
  stream = submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_update_plate (q->cuda, stream, frame, step,
        background_only));
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < q->mod.height; y++) {
    for (int x = 0; x < q->mod.width; x++) {
      size_t i = (size_t) y * q->mod.width + x;
      if (!background_only || q->alpha[i] == 0) {
        int rgb[3];
        cc_qc_pixel_rgb (frame, x, y, rgb);
        cc_qc_plate_step (q->plate_rgb + 4 * i, rgb, step, q->lin, q->plate_lab + 3 * i);
      }
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_quadcut_get_plate (cc_quadcut *q, cc_stream stream, cc_image *dst)
{
  const char *fn = "cc_quadcut_get_plate";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_CHECK_ARG (q->have_plate, "%s: no plate", fn);
  CC_TRY (check_image (q, dst, fn, "dst", 0));
  stream = submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_get_plate (q->cuda, stream, dst));
  const int ri = dst->format == CC_FORMAT_RGBX8 ? 0 : 2;
  for (int y = 0; y < q->mod.height; y++) {
    uint8_t *o = (uint8_t *) dst->planes[0] + (size_t) y * dst->pitch[0];
    const uint8_t *p = q->plate_rgb + 4 * (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++) {
      o[4 * x + ri] = p[4 * x];
      o[4 * x + 1] = p[4 * x + 1];
      o[4 * x + 2 - ri] = p[4 * x + 2];
      o[4 * x + 3] = 255;
    }
  }
  return CC_SUCCESS;
}

/* ------------------------------------------------------------ stages */

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
  frame_to_lab (q, f, q->lab);
  /* ACTIVE: the plate's buffer holds the other frame's Lab (no plate in that mode) */
  if (p->mode == CC_QUADCUT_MODE_ACTIVE)
    frame_to_lab (q, other, q->plate_lab);
  const int active = p->mode == CC_QUADCUT_MODE_ACTIVE;
  int *hist = q->hist;
  memset (hist, 0, (size_t) nb * sizeof (int));
#pragma omp parallel for schedule(static) num_threads(threads_of (q)) reduction(+:hist[:nb])
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
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
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
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
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
static cc_status
grow_neighbours (cc_quadcut *q, long long total)
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

static cc_status
grow_leaves (cc_quadcut *q, int n)
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
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
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
  CC_TRY (grow_leaves (q, q->n_leaves));
  cc_quadcut_leaf *leaves = q->leaves;
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
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
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads_of (q))
  for (int n = 0; n < q->n_leaves; n++)
    cc_qc_leaf_sums (&leaves[n], q->lab, q->cost_fg, q->cost_bg, w);
  return CC_SUCCESS;
}

/* QuadN4 references of every leaf (C 4.2.4), from the leaf-id image. */
static void
quadn4 (cc_quadcut *q)
{
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int n = 0; n < q->n_leaves; n++)
    cc_qc_quadn4 (&q->leaves[n], q->leaf_id, q->mod.width, q->mod.height);
}

static cc_status
neighbour_lists (cc_quadcut *q)
{
  const int nl = q->n_leaves;
  int *off = q->offsets;
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int n = 0; n < nl; n++)
    off[n + 1] = cc_qc_navigate (q->leaves, n, NULL, NULL);
  off[0] = 0;
  for (int n = 0; n < nl; n++)
    off[n + 1] += off[n];
  long long total = off[nl];
  CC_TRY (grow_neighbours (q, total));
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int n = 0; n < nl; n++)
    cc_qc_navigate (q->leaves, n, q->nbr + off[n], q->len + off[n]);
  return CC_SUCCESS;
}

/* Room for the labels of n nodes (CUDA: the only per-node host buffer). */
static cc_status
grow_labels (cc_quadcut *q, int n)
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
    if (!a || !b || grow_labels (q, nodes) != CC_SUCCESS)
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
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int n = 0; n < nl; n++) {
    q->gfg[n] = q->leaves[n].cost_fg;
    q->gbg[n] = q->leaves[n].cost_bg;
    eoff[n + 1] = cc_qc_up_count (q->offsets, q->nbr, n);
  }
  eoff[0] = 0;
  for (int n = 0; n < nl; n++)
    eoff[n + 1] += eoff[n];
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads_of (q))
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
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
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

/* Box filter of radius r (window clamped at the frame edges: edge pixels repeat)
 * over nch channels of a pixel array of stride `bpp` bytes; integer sums, rounded
 * to nearest. dst may not be src. */
static void
box_filter (const cc_quadcut *q, const uint8_t *src, size_t spitch, int sbpp,
    uint8_t *dst, size_t dpitch, int dbpp, int nch, int r, int w, int h)
{
  uint32_t *tmp = q->box_tmp;
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < h; y++) {
    const uint8_t *row = src + (size_t) y * spitch;
    uint32_t *t = tmp + (size_t) y * w * nch;
    for (int c = 0; c < nch; c++) {
      uint32_t s = 0;
      for (int k = -r; k <= r; k++)
        s += row[cc_clampi (k, 0, w - 1) * sbpp + c];
      for (int x = 0; x < w; x++) {
        t[(size_t) x * nch + c] = s;
        s += row[cc_clampi (x + r + 1, 0, w - 1) * sbpp + c];
        s -= row[cc_clampi (x - r, 0, w - 1) * sbpp + c];
      }
    }
  }
  const uint32_t area = (uint32_t) (2 * r + 1) * (2 * r + 1);
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int x = 0; x < w; x++) {
    for (int c = 0; c < nch; c++) {
      uint32_t s = 0;
      for (int k = -r; k <= r; k++)
        s += tmp[((size_t) cc_clampi (k, 0, h - 1) * w + x) * nch + c];
      for (int y = 0; y < h; y++) {
        dst[(size_t) y * dpitch + (size_t) x * dbpp + c] = (uint8_t) ((s + area / 2) / area);
        s += tmp[((size_t) cc_clampi (y + r + 1, 0, h - 1) * w + x) * nch + c];
        s -= tmp[((size_t) cc_clampi (y - r, 0, h - 1) * w + x) * nch + c];
      }
    }
  }
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
  CC_TRY (grow_labels (q, g.n));
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
  CC_TRY (check_frame (q, frame, "cc_quadcut_compute_sync", "frame"));
  if (q->params.mode == CC_QUADCUT_MODE_PLATE) {
    CC_CHECK_ARG (q->have_plate, "cc_quadcut_compute_sync: no plate (cc_quadcut_set_plate first)");
    CC_CHECK_ARG (other == NULL, "cc_quadcut_compute_sync: PLATE mode takes no other frame");
  } else {
    CC_TRY (check_frame (q, other, "cc_quadcut_compute_sync", "other"));
  }
  stream = submit_stream (q, stream);
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
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < q->mod.height; y++)
    for (int x = 0; x < q->mod.width; x++) {
      size_t i = (size_t) y * q->mod.width + x;
      mask[i] = q->labels[leaves ? q->leaf_id[i] : (int32_t) i] ? 255 : 0;
    }
  memcpy (q->prev_mask, q->mask, q->npx);
  q->have_prev = 1;
  q->have_run = 1;
  if (q->params.feather > 0)
    box_filter (q, q->mask, q->mod.width, 1, q->alpha, q->mod.width, 1, 1, q->params.feather,
        q->mod.width, q->mod.height);
  else
    memcpy (q->alpha, q->mask, q->npx);
  stage_done (q, CC_QUADCUT_STAGE_OUTPUT, &t0);
  return CC_SUCCESS;
}

static cc_status
copy_plane (cc_quadcut *q, cc_stream stream, int alpha, cc_image *dst, const char *fn)
{
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_CHECK_ARG (dst != NULL, "%s: dst is NULL", fn);
  CC_TRY (cc_image_check (dst, "dst"));
  CC_TRY (cc_image_check_location (q->mod.ctx, dst, "dst"));
  CC_CHECK_ARG (dst->format == CC_FORMAT_GRAY8 && dst->width == q->mod.width
      && dst->height == q->mod.height,
      "%s: dst must be a %dx%d GRAY8 image", fn, q->mod.width, q->mod.height);
  stream = submit_stream (q, stream);
  if (q->cuda) {
#if CC_HAVE_CUDA
    return cc_cuda_copy_2d (stream, dst->planes[0], dst->pitch[0], dst->location,
        cc_cuda_quadcut_plane (q->cuda, alpha), (size_t) q->mod.width, CC_LOCATION_DEVICE,
        (size_t) q->mod.width, (size_t) q->mod.height);
#endif
  }
  const uint8_t *src = alpha ? q->alpha : q->mask;
  for (int y = 0; y < q->mod.height; y++)
    memcpy ((uint8_t *) dst->planes[0] + (size_t) y * dst->pitch[0],
        src + (size_t) y * q->mod.width, (size_t) q->mod.width);
  return CC_SUCCESS;
}

cc_status
cc_quadcut_get_mask (cc_quadcut *q, cc_stream stream, cc_image *dst)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_get_mask: q is NULL");
  return copy_plane (q, stream, 0, dst, "cc_quadcut_get_mask");
}

cc_status
cc_quadcut_get_alpha (cc_quadcut *q, cc_stream stream, cc_image *dst)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_get_alpha: q is NULL");
  return copy_plane (q, stream, 1, dst, "cc_quadcut_get_alpha");
}

static int
is_yuv (const cc_image *f)
{
  return f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
}

/* The frame under a box blur of radius r into q->blurred, described by *out (same
 * format; YUV chroma planes blurred with radius (r + 1) / 2 at their own size). */
static void
blur_frame (cc_quadcut *q, const cc_image *f, int r, cc_image *out)
{
  const int w = q->mod.width, h = q->mod.height;
  const int cw = (w + 1) / 2, ch = (h + 1) / 2, rc = (r + 1) / 2;
  memset (out, 0, sizeof *out);
  out->width = w;
  out->height = h;
  out->format = f->format;
  out->location = CC_LOCATION_HOST;
  if (!is_yuv (f)) {
    out->planes[0] = q->blurred;
    out->pitch[0] = 4 * (size_t) w;
    box_filter (q, f->planes[0], f->pitch[0], 4, q->blurred, out->pitch[0], 4, 3, r, w, h);
    return;
  }
  out->planes[0] = q->blurred;
  out->pitch[0] = (size_t) w;
  box_filter (q, f->planes[0], f->pitch[0], 1, q->blurred, w, 1, 1, r, w, h);
  uint8_t *c = q->blurred + q->npx;
  if (f->format == CC_FORMAT_NV12) {
    out->planes[1] = c;
    out->pitch[1] = 2 * (size_t) cw;
    box_filter (q, f->planes[1], f->pitch[1], 2, c, out->pitch[1], 2, 2, rc, cw, ch);
  } else {
    out->planes[1] = c;
    out->planes[2] = c + (size_t) cw * ch;
    out->pitch[1] = out->pitch[2] = (size_t) cw;
    box_filter (q, f->planes[1], f->pitch[1], 1, out->planes[1], cw, 1, 1, rc, cw, ch);
    box_filter (q, f->planes[2], f->pitch[2], 1, out->planes[2], cw, 1, 1, rc, cw, ch);
  }
}

cc_status
cc_quadcut_composite (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    const cc_quadcut_background *bg, cc_image *out)
{
  const char *fn = "cc_quadcut_composite";
  CC_CHECK_ARG (q != NULL && bg != NULL, "%s: q or bg is NULL", fn);
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_TRY (check_frame (q, frame, fn, "frame"));
  CC_TRY (check_frame (q, out, fn, "out"));
  CC_CHECK_ARG (out->format == frame->format, "%s: out is %s, frame %s", fn,
      cc_format_name (out->format), cc_format_name (frame->format));
  const int yuv = is_yuv (frame);
  const cc_image *b = NULL;
  cc_image blurred;
  uint8_t colour[4] = { 0, 0, 0, 0 }, cy = 0, cu = 0, cv = 0;
  switch (bg->kind) {
    case CC_QUADCUT_BG_IMAGE:
      CC_TRY (check_frame (q, bg->image, fn, "background image"));
      CC_CHECK_ARG (bg->image->format == frame->format, "%s: background image is %s, "
          "frame %s", fn, cc_format_name (bg->image->format), cc_format_name (frame->format));
      b = bg->image;
      break;
    case CC_QUADCUT_BG_COLOR:
      colour[frame->format == CC_FORMAT_BGRX8 ? 2 : 0] = bg->r;
      colour[1] = bg->g;
      colour[frame->format == CC_FORMAT_BGRX8 ? 0 : 2] = bg->b;
      cc_rgb_to_yuv (bg->r, bg->g, bg->b, &cy, &cu, &cv);
      break;
    case CC_QUADCUT_BG_BLUR:
      CC_CHECK_ARG (bg->blur_radius >= 1 && bg->blur_radius <= 256,
          "%s: blur_radius %d out of range 1..256", fn, bg->blur_radius);
      if (q->cuda)
        break;
      /* blurred first: out may be frame */
      blur_frame (q, frame, bg->blur_radius, &blurred);
      b = &blurred;
      break;
    default:
      return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s: unknown background kind %d", fn,
          (int) bg->kind);
  }
  stream = submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_composite (q->cuda, stream, frame, bg, out));
  if (yuv) {
    const int cw = (q->mod.width + 1) / 2, ch = (q->mod.height + 1) / 2;
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
    for (int y = 0; y < q->mod.height; y++)
      for (int x = 0; x < q->mod.width; x++)
        cc_qc_composite_luma (frame, b, cy, q->alpha, x, y, out);
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
    for (int y = 0; y < ch; y++)
      for (int x = 0; x < cw; x++)
        cc_qc_composite_chroma (frame, b, cu, cv, q->alpha, x, y, out);
    return CC_SUCCESS;
  }
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < q->mod.height; y++) {
    const uint8_t *f = (const uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    const uint8_t *bp0 = b ? (const uint8_t *) b->planes[0] + (size_t) y * b->pitch[0] : NULL;
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    const uint8_t *al = q->alpha + (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++) {
      unsigned a = al[x];
      const uint8_t *bp = bp0 ? bp0 + 4 * x : colour;
      uint8_t f3 = f[4 * x + 3];
      for (int c = 0; c < 3; c++)
        o[4 * x + c] = cc_qc_blend (a, f[4 * x + c], bp[c]);
      o[4 * x + 3] = f3;
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_quadcut_set_alpha (cc_quadcut *q, cc_stream stream, cc_image *frame)
{
  const char *fn = "cc_quadcut_set_alpha";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_TRY (check_frame (q, frame, fn, "frame"));
  if (frame->format != CC_FORMAT_RGBX8 && frame->format != CC_FORMAT_BGRX8)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s: %s has no alpha byte (RGBX8 or "
        "BGRX8 only)", fn, cc_format_name (frame->format));
  stream = submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_set_alpha (q->cuda, stream, frame));
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < q->mod.height; y++) {
    uint8_t *o = (uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    const uint8_t *al = q->alpha + (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++)
      o[4 * x + 3] = al[x];
  }
  return CC_SUCCESS;
}

cc_status
cc_quadcut_draw (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    cc_image *out)
{
  const char *fn = "cc_quadcut_draw";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_CHECK_ARG (q->params.nodes == CC_QUADCUT_NODES_LEAVES, "%s: NODES_PIXELS has no leaves",
      fn);
  CC_TRY (check_frame (q, frame, fn, "frame"));
  CC_TRY (check_frame (q, out, fn, "out"));
  CC_CHECK_ARG (out->format == frame->format, "%s: out is %s, frame %s", fn,
      cc_format_name (out->format), cc_format_name (frame->format));
  stream = submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_draw_leaves (q->cuda, stream, frame, out));
  if (is_yuv (frame)) {
    const int cw = (q->mod.width + 1) / 2, ch = (q->mod.height + 1) / 2;
    /* chroma first: its blocks read the frame's chroma only, luma its own pixel */
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
    for (int y = 0; y < ch; y++)
      for (int x = 0; x < cw; x++) {
        size_t i = (size_t) (2 * y) * q->mod.width + 2 * x;
        cc_qc_debug_chroma (&q->leaves[q->leaf_id[i]], x, y, q->seed[i], frame, out);
      }
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
    for (int y = 0; y < q->mod.height; y++)
      for (int x = 0; x < q->mod.width; x++) {
        size_t i = (size_t) y * q->mod.width + x;
        cc_qc_debug_luma (&q->leaves[q->leaf_id[i]], x, y, q->seed[i], frame, out);
      }
    return CC_SUCCESS;
  }
  const int ri = frame->format == CC_FORMAT_RGBX8 ? 0 : 2;
#pragma omp parallel for schedule(static) num_threads(threads_of (q))
  for (int y = 0; y < q->mod.height; y++) {
    const uint8_t *f = (const uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    for (int x = 0; x < q->mod.width; x++) {
      size_t i = (size_t) y * q->mod.width + x;
      uint8_t px[4] = { f[4 * x], f[4 * x + 1], f[4 * x + 2], f[4 * x + 3] };
      cc_qc_debug_pixel (&q->leaves[q->leaf_id[i]], x, y, q->seed[i], px, ri, o + 4 * x);
      o[4 * x + 3] = px[3];
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_quadcut_get_graph (cc_quadcut *q, cc_quadcut_graph *out)
{
  CC_CHECK_ARG (q != NULL && out != NULL, "cc_quadcut_get_graph: q or out is NULL");
  CC_CHECK_ARG (q->have_run, "cc_quadcut_get_graph: no frame was run yet");
  if (q->cuda && !q->graph_on_host) {
    /* the leaves and lists stay on the device during a run: fetched here, once */
    CC_TRY (grow_leaves (q, q->n_leaves));
    CC_TRY (grow_neighbours (q, q->n_nbr));
    CC_TRY (CC_CUDA_ONLY (cc_cuda_quadcut_download_graph (q->cuda, q->stream, q->leaves,
        q->offsets, q->nbr, q->len)));
    q->graph_on_host = 1;
  }
  memset (out, 0, sizeof *out);
  out->n_leaves = q->n_leaves;
  out->leaves = q->leaves;
  out->offsets = q->n_leaves ? q->offsets : NULL;
  out->neighbours = q->n_leaves ? q->nbr : NULL;
  out->lengths = q->n_leaves ? q->len : NULL;
  out->tlink_fg = q->tfg;
  out->tlink_bg = q->tbg;
  out->edge_a = q->ta;
  out->edge_b = q->tb;
  out->edge_w = q->tw;
  out->labels = q->labels;
  out->n_nodes = q->n_nodes;
  out->n_edges = q->n_edges;
  out->n_seeds = q->n_seeds;
  out->flow = q->flow;
  return CC_SUCCESS;
}

cc_status
cc_quadcut_get_stage_ms (const cc_quadcut *q, double ms[CC_QUADCUT_STAGES])
{
  CC_CHECK_ARG (q != NULL && ms != NULL, "cc_quadcut_get_stage_ms: q or ms is NULL");
  CC_CHECK_ARG (q->have_run, "cc_quadcut_get_stage_ms: no frame was computed yet");
  memcpy (ms, q->ms, sizeof q->ms);
  return CC_SUCCESS;
}

cc_status
cc_quadcut_get_stratified (const cc_quadcut *q, float *L, float *a, float *b, float *d,
    uint8_t *seed, int32_t *leaf_id)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_get_stratified: q is NULL");
  CC_CHECK_ARG (q->have_run, "cc_quadcut_get_stratified: no frame was run yet");
  CC_CHECK_ARG (!leaf_id || q->params.nodes == CC_QUADCUT_NODES_LEAVES,
      "cc_quadcut_get_stratified: no leaf ids with NODES_PIXELS");
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_download (q->cuda, q->stream, L, a, b, d, seed,
        leaf_id, NULL, NULL));
  for (size_t i = 0; i < q->npx; i++) {
    if (L)
      L[i] = q->lab[3 * i];
    if (a)
      a[i] = q->lab[3 * i + 1];
    if (b)
      b[i] = q->lab[3 * i + 2];
  }
  if (d)
    memcpy (d, q->dist, q->npx * sizeof (float));
  if (seed)
    memcpy (seed, q->seed, q->npx);
  if (leaf_id)
    memcpy (leaf_id, q->leaf_id, q->npx * sizeof (int32_t));
  return CC_SUCCESS;
}

cc_status
cc_quadcut_mean_luminance (cc_quadcut *q, double *mean_l)
{
  CC_CHECK_ARG (q != NULL && mean_l != NULL, "cc_quadcut_mean_luminance: q or mean_l is NULL");
  CC_CHECK_ARG (q->have_run, "cc_quadcut_mean_luminance: no frame was run yet");
  double sum = 0.0, area = 0.0;
  if (q->params.nodes == CC_QUADCUT_NODES_PIXELS) {   /* CPU only */
    for (size_t i = 0; i < q->npx; i++)
      sum += q->lab[3 * i];
    area = (double) q->npx;
  } else {
    cc_quadcut_graph g;
    CC_TRY (cc_quadcut_get_graph (q, &g));
    for (int i = 0; i < g.n_leaves; i++) {
      double a = (double) (1 << g.leaves[i].level) * (1 << g.leaves[i].level);
      sum += a * g.leaves[i].L;
      area += a;
    }
  }
  *mean_l = area > 0.0 ? sum / area : 0.0;
  return CC_SUCCESS;
}

void
cc_quadcut_alternation_init (cc_quadcut_alternation *a)
{
  a->previous_l = -1.0;
  a->previous_dl = 0.0;
}

cc_status
cc_quadcut_alternation_push (cc_quadcut_alternation *a, double mean_l,
    cc_quadcut_pair_check *check)
{
  CC_CHECK_ARG (a != NULL && check != NULL, "cc_quadcut_alternation_push: a or check is NULL");
  CC_CHECK_ARG (isfinite (mean_l) && mean_l >= 0.0,
      "cc_quadcut_alternation_push: mean L %g is not a finite value >= 0", mean_l);
  if (a->previous_l < 0.0) {
    *check = CC_QUADCUT_PAIR_FIRST;
  } else {
    const double dl = mean_l - a->previous_l;
    if (fabs (dl) < CC_QUADCUT_SAME_L)
      *check = CC_QUADCUT_PAIR_SAME_LIGHT;
    else if (a->previous_dl != 0.0 && (dl > 0) == (a->previous_dl > 0))
      *check = CC_QUADCUT_PAIR_SAME_CHANGE;
    else
      *check = CC_QUADCUT_PAIR_ALTERNATES;
    a->previous_dl = *check == CC_QUADCUT_PAIR_SAME_LIGHT ? 0.0 : dl;
  }
  a->previous_l = mean_l;
  return CC_SUCCESS;
}
