/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Quad-Cut: the API and the CPU reference (see cc_quadcut.h for the method). This
 * file: the parameters, the handle, the plate and the readbacks of a compute;
 * quadcut_module.h names the others. */
#include "quadcut_module.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define QC_PARAM(kind, field, name, nick, blurb, min, max) \
  { name, #field, nick, blurb, CC_PARAM_##kind, \
    offsetof (cc_quadcut_params, field), min, max }

static const cc_param_info param_table[CC_QUADCUT_N_PARAMS] = {
  QC_PARAM (FLOAT, sigma_l, "sigma-l", "Sigma L",
      "How far (Lab units) a pixel may differ from the background and still count as "
      "background: raise under noise or lighting changes (parts of the subject may be "
      "lost), lower for subjects close to the background's colour", 0.1, 100.0),
  QC_PARAM (FLOAT, shadow_depth, "shadow-depth", "Shadow depth",
      "mode=plate: the darkest shadow counted as background, as a share of the "
      "plate's L (0: no shadow rule)", 0.0, 1.0),
  QC_PARAM (FLOAT, seed_threshold, "seed-threshold", "Seed threshold",
      "A pixel seeds the object colour model where p_B is below this", 0.0, 1.0),
  QC_PARAM (INT, bins, "bins", "Histogram bins",
      "Bins per axis of the subject's colour histogram: more tell similar subject and "
      "background colours apart, but need more certain subject pixels", 2, 256),
  QC_PARAM (FLOAT, sigma_c, "sigma-c", "Sigma C",
      "Colour difference (Lab units) at which the mask's edge prefers to run between "
      "two areas: lower to follow fine colour edges, raise to follow only strong ones",
      0.1, 100.0),
  QC_PARAM (FLOAT, lambda, "lambda", "Lambda", "Smoothness of the mask: raise for fewer, "
      "smoother shapes (thin parts may vanish), lower to keep thin parts (more "
      "speckle); no effect on the time", 0.0, 1000.0),
  QC_PARAM (FLOAT, similarity, "similarity", "Similarity",
      "How different (Lab units) pixels may be and still be decided together as one "
      "block: raise for fewer, bigger blocks (faster, blockier edges), lower for finer "
      "edges at more cost (0: only identical pixels)", 0.0, 1000.0),
  QC_PARAM (FLOAT, certain, "certain", "Certain",
      "Quadtree criterion on the stratified data: a block whose pixels are all "
      "within certain x sigma-l of the background, or all seeds, becomes one leaf "
      "whatever its texture (0: off, the ranges alone)", 0.0, 100.0),
  QC_PARAM (INT, max_level, "max-level", "Max level",
      "Largest leaf side as 2^max-level px (0: one node a pixel)", 0,
      CC_QUADCUT_MAX_LEVEL),
  QC_PARAM (FLOAT, temporal, "temporal", "Temporal weight",
      "Cost per pixel of changing label from the previous frame's mask (against "
      "flicker; high values leave trails)", 0.0, 100.0),
  QC_PARAM (INT, feather, "feather", "Feather",
      "Radius in px of the box filter that softens the mask's edge into the alpha", 0,
      64),
};
#undef QC_PARAM

const cc_param_info *
cc_quadcut_param_table (void)
{
  return param_table;
}

cc_status
cc_quadcut_params_check (const cc_quadcut_params *p)
{
  CC_CHECK_ARG (p != NULL, "quadcut: params is NULL");
  CC_CHECK_ARG (p->mode == CC_QUADCUT_MODE_PLATE || p->mode == CC_QUADCUT_MODE_ACTIVE,
      "quadcut: unknown mode %d", (int) p->mode);
  CC_CHECK_ARG (p->nodes == CC_QUADCUT_NODES_LEAVES || p->nodes == CC_QUADCUT_NODES_PIXELS,
      "quadcut: unknown nodes kind %d", (int) p->nodes);
  for (int i = 0; i < CC_QUADCUT_N_PARAMS; i++) {
    const cc_param_info *t = &param_table[i];
    const char *field = (const char *) p + t->offset;
    if (t->kind == CC_PARAM_INT) {
      const int v = *(const int *) field;
      CC_CHECK_ARG (v >= (int) t->min && v <= (int) t->max,
          "quadcut: %s %d out of range %d..%d", t->field, v, (int) t->min, (int) t->max);
    } else {
      const float v = *(const float *) field;
      CC_CHECK_ARG (v >= (float) t->min && v <= (float) t->max,
          "quadcut: %s %g out of range [%g, %g]", t->field, v, t->min, t->max);
    }
  }
  return CC_SUCCESS;
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
cc_stream
cc_qc_submit_stream (cc_quadcut *q, cc_stream stream)
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
cc_status
cc_qc_check_frame (const cc_quadcut *q, const cc_image *f, const char *fn, const char *what)
{
  return check_image (q, f, fn, what, 1);
}

cc_status
cc_quadcut_set_plate (cc_quadcut *q, cc_stream stream, const cc_image *plate)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_set_plate: q is NULL");
  CC_TRY (cc_qc_check_frame (q, plate, "cc_quadcut_set_plate", "plate"));
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_quadcut_set_plate (q->cuda, stream, plate)));
  } else {
    cc_qc_frame_to_lab (q, plate, q->plate_lab);
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
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
  CC_TRY (cc_qc_check_frame (q, frame, fn, "frame"));
  CC_CHECK_ARG (q->have_plate, "%s: no plate (cc_quadcut_set_plate first)", fn);
  CC_CHECK_ARG (step >= 1 && step <= 255, "%s: step %d out of range 1..255", fn, step);
  CC_CHECK_ARG (!background_only || q->have_run, "%s: background_only needs a run first",
      fn);
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_update_plate (q->cuda, stream, frame, step,
        background_only));
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
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
  stream = cc_qc_submit_stream (q, stream);
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

cc_status
cc_quadcut_get_plate_host (cc_quadcut *q, cc_stream stream, cc_image *host)
{
  const char *fn = "cc_quadcut_get_plate_host";
  CC_CHECK_ARG (host != NULL, "%s: host is NULL", fn);
  memset (host, 0, sizeof *host);
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_CHECK_ARG (q->have_plate, "%s: no plate", fn);
  const int w = q->mod.width, h = q->mod.height;
  CC_TRY (cc_image_alloc (NULL, w, h, CC_FORMAT_RGBX8, CC_LOCATION_HOST, host));
  cc_status st;
  if (q->cuda) {
    cc_image dev;
    st = cc_image_alloc (q->mod.ctx, w, h, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE, &dev);
    if (st == CC_SUCCESS && (st = cc_quadcut_get_plate (q, stream, &dev)) == CC_SUCCESS)
      st = cc_image_copy (q->mod.ctx, stream, &dev, host);   /* to the host: waits */
    cc_image_free (q->mod.ctx, &dev);
  } else {
    st = cc_quadcut_get_plate (q, stream, host);
  }
  if (st != CC_SUCCESS)
    cc_image_free (NULL, host);
  return st;
}

void
cc_quadcut_learning_init (cc_quadcut_learning *l, cc_quadcut_plate_source source)
{
  l->source = source;
  l->learned = 0;
}

cc_status
cc_quadcut_learn_plate (cc_quadcut *q, cc_stream stream, cc_quadcut_learning *l,
    const cc_image *frame, int step, int frames)
{
  CC_CHECK_ARG (l != NULL, "cc_quadcut_learn_plate: l is NULL");
  CC_CHECK_ARG (frames >= 1, "cc_quadcut_learn_plate: frames %d is not >= 1", frames);
  cc_status st = CC_SUCCESS;
  if (l->source == CC_QUADCUT_PLATE_NONE) {
    st = cc_quadcut_set_plate (q, stream, frame);
    l->learned = 1;
    l->source = CC_QUADCUT_PLATE_LEARNING;
  } else if (l->source == CC_QUADCUT_PLATE_LEARNING) {
    st = cc_quadcut_update_plate (q, stream, frame, step, false);
    l->learned++;
  }
  if (st == CC_SUCCESS && l->source == CC_QUADCUT_PLATE_LEARNING && l->learned >= frames)
    l->source = CC_QUADCUT_PLATE_LEARNED;
  return st;
}

int
cc_quadcut_learning_restart (cc_quadcut_learning *l)
{
  const int dropped = l->source == CC_QUADCUT_PLATE_LEARNING ? l->learned : 0;
  if (l->source == CC_QUADCUT_PLATE_LEARNING)
    l->source = CC_QUADCUT_PLATE_NONE;
  l->learned = 0;
  return dropped;
}

bool
cc_quadcut_learning_done (const cc_quadcut_learning *l)
{
  return l->source == CC_QUADCUT_PLATE_LEARNED || l->source == CC_QUADCUT_PLATE_IMAGE;
}

cc_status
cc_quadcut_prepare (cc_quadcut *q, cc_stream stream, cc_quadcut_learning *l,
    const cc_image *frame, const cc_image *previous, bool relearn, int step, int frames,
    const cc_image **other, bool *learned)
{
  CC_CHECK_ARG (q != NULL && l != NULL && frame != NULL && other != NULL && learned != NULL,
      "cc_quadcut_prepare: q, l, frame, other or learned is NULL");
  *learned = false;
  if (q->params.mode == CC_QUADCUT_MODE_ACTIVE) {
    *other = previous ? previous : frame;
    return CC_SUCCESS;
  }
  *other = NULL;
  if (relearn)
    cc_quadcut_learning_init (l, CC_QUADCUT_PLATE_NONE);
  const bool done = cc_quadcut_learning_done (l);
  CC_TRY (cc_quadcut_learn_plate (q, stream, l, frame, step, frames));
  *learned = !done && l->source == CC_QUADCUT_PLATE_LEARNED;
  return CC_SUCCESS;
}

cc_status
cc_quadcut_keep_plate (cc_quadcut *q, cc_stream stream, const cc_quadcut_learning *l,
    cc_image *kept)
{
  CC_CHECK_ARG (l != NULL && kept != NULL, "cc_quadcut_keep_plate: l or kept is NULL");
  if (l->source != CC_QUADCUT_PLATE_LEARNED)
    return CC_SUCCESS;
  cc_image_free (NULL, kept);
  return cc_quadcut_get_plate_host (q, stream, kept);
}

/* Sets a host RGBX8 plate of the created size: on CUDA through a device copy, freed by
 * cudaFree, which waits for the plate's conversion. */
static cc_status
set_plate_host (cc_quadcut *q, cc_stream stream, const cc_image *host, const char *what)
{
  CC_CHECK_ARG (host->location == CC_LOCATION_HOST && host->format == CC_FORMAT_RGBX8,
      "cc_quadcut_start_plate: %s must be a host RGBX8 image", what);
  if (!q->cuda)
    return cc_quadcut_set_plate (q, stream, host);
  cc_image dev;
  memset (&dev, 0, sizeof dev);
  cc_status st = cc_image_alloc (q->mod.ctx, host->width, host->height, CC_FORMAT_RGBX8,
      CC_LOCATION_DEVICE, &dev);
  if (st == CC_SUCCESS && (st = cc_image_copy (q->mod.ctx, stream, host, &dev)) == CC_SUCCESS)
    st = cc_quadcut_set_plate (q, stream, &dev);
  cc_image_free (q->mod.ctx, &dev);
  return st;
}

cc_status
cc_quadcut_start_plate (cc_quadcut *q, cc_stream stream, cc_quadcut_learning *l,
    const cc_image *picture, cc_image *kept, bool relearn)
{
  CC_CHECK_ARG (q != NULL && l != NULL && kept != NULL,
      "cc_quadcut_start_plate: q, l or kept is NULL");
  cc_quadcut_learning_init (l, CC_QUADCUT_PLATE_NONE);
  cc_status st = CC_SUCCESS;
  if (picture) {
    st = set_plate_host (q, stream, picture, "picture");
    if (st == CC_SUCCESS && !relearn)
      cc_quadcut_learning_init (l, CC_QUADCUT_PLATE_IMAGE);
  } else if (kept->planes[0] && kept->width == q->mod.width && kept->height == q->mod.height) {
    st = set_plate_host (q, stream, kept, "kept");
    if (st == CC_SUCCESS)
      cc_quadcut_learning_init (l, CC_QUADCUT_PLATE_LEARNED);
  }
  cc_image_free (NULL, kept);
  return st;
}

cc_status
cc_quadcut_get_graph (cc_quadcut *q, cc_quadcut_graph *out)
{
  CC_CHECK_ARG (q != NULL && out != NULL, "cc_quadcut_get_graph: q or out is NULL");
  CC_CHECK_ARG (q->have_run, "cc_quadcut_get_graph: no frame was run yet");
  if (q->cuda && !q->graph_on_host) {
    /* the leaves and lists stay on the device during a run: fetched here, once */
    CC_TRY (cc_qc_grow_leaves (q, q->n_leaves));
    CC_TRY (cc_qc_grow_neighbours (q, q->n_nbr));
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

bool
cc_quadcut_pair_warning (const cc_quadcut_alternation *before, double mean_l,
    cc_quadcut_pair_check check, unsigned long long frame, char *text, size_t text_size,
    char *detail, size_t detail_size)
{
  const double dl = mean_l - before->previous_l;
  if (check == CC_QUADCUT_PAIR_SAME_LIGHT) {
    snprintf (text, text_size, "active illumination: frames %llu and %llu have the same "
        "mean luminance", frame - 1, frame);
    snprintf (detail, detail_size, "mean L %.3f and %.3f: the frames do not alternate lit "
        "and unlit, the foreground will be missed", before->previous_l, mean_l);
    return true;
  }
  if (check == CC_QUADCUT_PAIR_SAME_CHANGE) {
    snprintf (text, text_size, "active illumination: frames %llu to %llu do not alternate "
        "lit and unlit", frame - 2, frame);
    snprintf (detail, detail_size, "mean L %s twice in a row (by %.3f, then %.3f): the "
        "foreground will be missed", dl > 0 ? "rises" : "falls", before->previous_dl, dl);
    return true;
  }
  return false;
}

cc_status
cc_quadcut_check_pair (cc_quadcut *q, cc_quadcut_alternation *a, unsigned long long frame,
    cc_quadcut_pair *pair)
{
  CC_CHECK_ARG (q != NULL && a != NULL && pair != NULL,
      "cc_quadcut_check_pair: q, a or pair is NULL");
  const cc_quadcut_alternation before = *a;
  memset (pair, 0, sizeof *pair);
  pair->previous_l = before.previous_l;
  CC_TRY (cc_quadcut_mean_luminance (q, &pair->mean_l));
  CC_TRY (cc_quadcut_alternation_push (a, pair->mean_l, &pair->check));
  pair->warn = cc_quadcut_pair_warning (&before, pair->mean_l, pair->check, frame,
      pair->text, sizeof pair->text, pair->detail, sizeof pair->detail);
  return CC_SUCCESS;
}
