/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The EpicFlow method (cc_epic): cc_match -> cc_interp -> cc_refine, and a
 * forward-backward confidence.
 *
 *  1. Sparse matches prev -> next (cc_match: CPM over census, forward-backward
 *     checked).
 *  2. EPIC interpolation of the surviving matches on prev's edges into `flow`.
 *  3. The variational refinement (cc_refine) in place, from that field (two levels,
 *     coarse to fine).
 *  4. Confidence (when asked), from what the interpolation already knows, with no
 *     second interpolation: per pixel, the mean match confidence of its nearest
 *     seed's neighbours, lowered with the distance to that seed beyond the seed
 *     spacing (a field borrowed across a flat area) and with the spread of the
 *     neighbours' flows (motion boundaries, outliers) (cc_interp_confidence); 0
 *     where the refined vector leaves the frame.
 *  5. Frames smaller than the matcher's patch (9 px) on a side: zero flow and zero
 *     confidence, without matching. No surviving match (textureless frames): zero flow and zero confidence,
 *     decided on the device (a count of the matches), without waiting for it.
 *     Identical textured frames: zero flow (the matches are exactly zero and the
 *     refinement keeps it), confidence 1 where the backward field agrees.
 */
#include "epic_internal.h"
#include "epic_hostdev.h"
#include "cc_tuning.h"
#include "match_hostdev.h"
#include "match_internal.h"

#include <stdlib.h>
#include <string.h>

void
cc_epic_params_default (cc_epic_params *p)
{
  cc_match_params_default (&p->match);
  cc_interp_params_default (&p->interp);
  /* chosen on Sintel and generated large-motion pairs together (docs/epicflow.md):
   * with matches that thin out over fast areas, a wide weighted mean interpolates
   * better than local affine fits, which extrapolate their outliers; one seed per
   * 4x4 cell with 32 neighbours covers about the area of 64 neighbours at 2x2 (as
   * accurate: better on the generated pairs, a little worse on Sintel) for an
   * eighth of the per-seed work */
  p->interp.affine = false;
  /* the real-time defaults (preset fast; docs/epicflow.md): matches every 5 px,
   * one seed per 5x5 cell, 24 neighbours (the refinement below): 1080p in under 4 ms
   * on an H100, about as accurate as 4 px and 32 neighbours (preset balanced) on
   * Sintel and Middlebury, worse on the generated driving pairs. Chosen on Sintel, Middlebury, generated and generated driving
   * pairs together, never on one pair */
  p->match.step = 5;
  p->interp.cell = 5;
  p->interp.k = 24;
  p->interp.sigma = 10.0f;
  p->interp.edge_weight = 0.01f;
  /* the robust mean (one Gaussian reweighting of each seed's neighbours about their
   * weighted mean, 5 px): the neighbours' dominant motion, not a blend across motion
   * boundaries and outliers. Chosen on Sintel, Middlebury, generated and driving
   * pairs together (3 to 8 px alike) and checked on held-out generated pairs
   * (docs/epicflow.md) */
  p->interp.robust = 5.0f;
  p->refine = true;
  cc_refine_params_default (&p->refine_params);
  /* two levels, coarse to fine (half resolution, then full): the interpolated field
   * already holds the large motions, and the half-resolution pass settles what one
   * full-resolution level left to many sweeps; more accurate on each set than one
   * level of twice the sweeps, for about 0.6x its work */
  p->refine_params.levels = 2;
  /* the energy of EpicFlow's own refinement: no brightness constancy (gradient
   * constancy only, robust to lighting and noise), both frames presmoothed at full
   * resolution (sigma 0.8 px) and a local smoothness weight exp(-5 |grad I|) (weaker
   * smoothing across image edges): Middlebury's Dimetrodon 0.111 -> 0.085, every set
   * better or within 0.01 px. With the SOR factor 1.8, 3 x 10 sweeps a level are as
   * accurate as 5 x 8 at 1.6 and cheaper (two coefficient passes fewer a level).
   * Chosen on Sintel, Middlebury, generated and driving pairs together, checked on
   * held-out generated pairs (docs/epicflow.md) */
  p->refine_params.color_weight = 0.0f;
  p->refine_params.smoothness_kappa = 5.0f;
  p->refine_params.presmooth_sigma = 0.8f;
  p->refine_params.omega = 1.8f;
  p->refine_params.outer_iterations = 3;
  p->refine_params.inner_iterations = 10;
}

cc_status
cc_epic_params_preset (cc_epic_params *p, cc_epic_preset preset)
{
  CC_CHECK_ARG (p != NULL, "cc_epic_params_preset: params is NULL");
  CC_CHECK_ARG (preset >= CC_EPIC_PRESET_FAST && preset <= CC_EPIC_PRESET_ACCURATE,
      "cc_epic_params_preset: preset %d is not fast (0), balanced (1) or accurate (2)",
      (int) preset);
  cc_epic_params_default (p);
  switch (preset) {
    case CC_EPIC_PRESET_FAST:
      break;
    case CC_EPIC_PRESET_BALANCED:
    case CC_EPIC_PRESET_ACCURATE:
      /* denser seeds (every 4 px: one per 4x4 cell on the regular grid, 1.56x the
       * seeds), 32 neighbours and 5 x 15 sweeps a level; accurate: 5 x 30 */
      p->match.step = 4;
      p->interp.cell = 4;
      p->interp.k = 32;
      p->refine_params.outer_iterations = 5;
      p->refine_params.inner_iterations = preset == CC_EPIC_PRESET_ACCURATE ? 30 : 15;
      break;
  }
  return CC_SUCCESS;
}

const char *
cc_epic_preset_name (cc_epic_preset preset)
{
  switch (preset) {
    case CC_EPIC_PRESET_FAST: return "fast";
    case CC_EPIC_PRESET_BALANCED: return "balanced";
    case CC_EPIC_PRESET_ACCURATE: return "accurate";
  }
  return NULL;
}

cc_status
cc_epic_params_check (const cc_epic_params *p)
{
  CC_CHECK_ARG (p != NULL, "epic: params is NULL");
  CC_TRY (cc_match_params_check (&p->match));
  CC_TRY (cc_interp_params_check (&p->interp));
  CC_TRY (cc_refine_params_check (&p->refine_params));
  return CC_SUCCESS;
}

struct cc_epic {
  cc_module mod;                 /* ctx, frame size (first: module.c) */
  cc_epic_params params;
  cc_match *match;
  cc_interp *interp;
  cc_refine *refine;
  int *valid;                    /* surviving matches (device int for CUDA) */
  bool video;                    /* the last call was cc_epic_compute_video: the
                                    matcher holds its next frame's pyramid */
};

/* The parts (matcher, interpolation, refinement) and the count of surviving matches. */
static cc_status
epic_alloc (cc_module *mod)
{
  cc_epic *e = (cc_epic *) mod;
  cc_context *ctx = mod->ctx;
  CC_TRY (cc_match_create (ctx, mod->width, mod->height, &e->params.match, &e->match));
  CC_TRY (cc_interp_create (ctx, mod->width, mod->height, &e->params.interp, &e->interp));
  CC_TRY (cc_refine_create (ctx, mod->width, mod->height, &e->params.refine_params,
          &e->refine));
  if (ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_malloc (ctx, sizeof (int), (void **) &e->valid));
  e->valid = malloc (sizeof (int));
  if (!e->valid)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_epic_create: out of host memory");
  return CC_SUCCESS;
}

static void
epic_release (cc_module *mod)
{
  cc_epic *e = (cc_epic *) mod;
  if (mod->ctx->backend == CC_BACKEND_CUDA) {
#if CC_HAVE_CUDA
    if (e->valid)
      cc_cuda_free (mod->ctx, e->valid);
#endif
  } else
    free (e->valid);
  e->valid = NULL;
  cc_refine_destroy (e->refine);
  cc_interp_destroy (e->interp);
  cc_match_destroy (e->match);
  e->refine = NULL;
  e->interp = NULL;
  e->match = NULL;
}

/* New params go to the parts, which re-allocate what they need themselves. */
static cc_status
epic_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_epic *e = (cc_epic *) mod;
  const cc_epic_params *p = params;
  *realloc = false;
  CC_TRY (cc_match_set_params (e->match, &p->match));
  CC_TRY (cc_interp_set_params (e->interp, &p->interp));
  return cc_refine_set_params (e->refine, &p->refine_params);
}

CC_MODULE_CLASS (epic_class, cc_epic, cc_epic_params, cc_epic, epic_params_changing,
    epic_alloc, epic_release);

cc_status
cc_epic_create (cc_context *ctx, int width, int height, const cc_epic_params *params,
    cc_epic **out)
{
  cc_module *e = NULL;
  cc_status st = cc_module_create (&epic_class, ctx, width, height, params, out ? &e : NULL);
  if (out)
    *out = (cc_epic *) e;
  return st;
}

void
cc_epic_destroy (cc_epic *e)
{
  cc_module_destroy ((cc_module *) e);
}

cc_status
cc_epic_set_params (cc_epic *e, const cc_epic_params *params)
{
  CC_CHECK_ARG (e != NULL, "cc_epic_set_params: epic is NULL");
  return cc_module_set_params (&e->mod, params);
}

static cc_status
check_image (const cc_epic *e, const cc_image *img, const char *what, int kind)
{
  if (kind == 0)
    return cc_module_check_frame (&e->mod, img, what, "epic", false);
  CC_CHECK_ARG (img != NULL, "%s is NULL", what);
  CC_TRY (cc_image_check (img, what));
  CC_CHECK_ARG (img->format == (kind == 1 ? CC_FORMAT_F32C2 : CC_FORMAT_F32),
      "%s: format %s, want %s", what, cc_format_name (img->format),
      kind == 1 ? "F32C2" : "F32");
  CC_CHECK_ARG (img->width == e->mod.width && img->height == e->mod.height,
      "%s is %dx%d but epic was created for %dx%d", what, img->width, img->height,
      e->mod.width, e->mod.height);
  return cc_image_check_location (e->mod.ctx, img, what);
}

static void
cpu_count (const cc_flow_match *in, int n, int *valid)
{
  int count = 0;
  for (int i = 0; i < n; i++)
    count += in[i].confidence > 0.0f;
  *valid = count;
}

static void
cpu_finish (cc_epic *e, const cc_image *prev, const cc_image *next, cc_image *flow,
    cc_image *conf)
{
  const int w = e->mod.width, h = e->mod.height, valid = *e->valid > 0;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (e->mod.ctx))
  for (int y = 0; y < h; y++) {
    float *f = (float *) ((uint8_t *) flow->planes[0] + (size_t) y * flow->pitch[0]);
    float *c = conf ? (float *) ((uint8_t *) conf->planes[0] + (size_t) y * conf->pitch[0])
        : NULL;
    for (int x = 0; x < w; x++) {
      if (!valid) {
        f[2 * x] = f[2 * x + 1] = 0.0f;
        if (c)
          c[x] = 0.0f;
      } else if (c)
        c[x] = cc_epic_confidence (c[x], f[2 * x], f[2 * x + 1], x, y, prev, next);
    }
  }
}

static cc_status
epic_compute (cc_epic *e, cc_stream stream, const cc_image *prev, const cc_image *next,
    cc_image *flow, cc_image *confidence, bool video)
{
  CC_CHECK_ARG (e != NULL, "cc_epic_compute: epic is NULL");
  CC_TRY (check_image (e, prev, "epic: prev frame", 0));
  CC_TRY (check_image (e, next, "epic: next frame", 0));
  CC_TRY (check_image (e, flow, "epic: flow", 1));
  if (confidence)
    CC_TRY (check_image (e, confidence, "epic: confidence", 2));
  const int min_side = 2 * CC_MATCH_PATCH_RADIUS + 1;
  /* the matcher keeps the next frame for a following video call; anything else
   * (a plain call, tiny frames, an error below) ends the chain */
  const bool reuse = video && e->video && cc_match_has_next (e->match);
  e->video = false;
  if (e->mod.width < min_side || e->mod.height < min_side) {
    CC_TRY (cc_image_fill (e->mod.ctx, stream, flow, 0));   /* 0 bytes: 0.0f */
    return confidence ? cc_image_fill (e->mod.ctx, stream, confidence, 0) : CC_SUCCESS;
  }
  CC_TRY (cc_match_compute_sequence (e->match, stream, prev, next, reuse));
  e->video = video;
  const cc_flow_match *matches = cc_match_matches (e->match);
  int n = cc_match_capacity (e->match);
  bool cuda = e->mod.ctx->backend == CC_BACKEND_CUDA;
  cc_stream own = cc_stream_resolve (e->mod.ctx, stream);
  if (cuda)
    CC_TRY (CC_CUDA_ONLY (cc_cuda_epic_count (own, matches, n, e->valid)));
  else
    cpu_count (matches, n, e->valid);
  CC_TRY (cc_interp_compute (e->interp, stream, prev, matches, n, flow));
  if (confidence)
    CC_TRY (cc_interp_confidence (e->interp, stream, confidence));
  if (e->params.refine)
    CC_TRY (cc_refine_compute (e->refine, stream, prev, next, flow, flow));
  if (cuda)
    return CC_CUDA_ONLY (cc_cuda_epic_finish (own, e->valid, prev, next, flow, confidence));
  cpu_finish (e, prev, next, flow, confidence);
  return CC_SUCCESS;
}

cc_status
cc_epic_compute (cc_epic *e, cc_stream stream, const cc_image *prev, const cc_image *next,
    cc_image *flow, cc_image *confidence)
{
  return epic_compute (e, stream, prev, next, flow, confidence, false);
}

cc_status
cc_epic_compute_video (cc_epic *e, cc_stream stream, const cc_image *prev,
    const cc_image *next, cc_image *flow, cc_image *confidence)
{
  return epic_compute (e, stream, prev, next, flow, confidence, true);
}

cc_status
cc_epic_reset (cc_epic *e)
{
  CC_CHECK_ARG (e != NULL, "cc_epic_reset: epic is NULL");
  e->video = false;
  return CC_SUCCESS;
}

cc_status
cc_epic_set_refine_tuning (cc_epic *e, const cc_refine_tuning *t)
{
  CC_CHECK_ARG (e != NULL, "cc_epic_set_refine_tuning: epic is NULL");
  return e->refine ? cc_refine_set_tuning (e->refine, t) : CC_SUCCESS;
}
