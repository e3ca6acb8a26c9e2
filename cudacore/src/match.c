/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sparse matcher (cc_match): the API, parameter checks, and the CPU reference.
 *
 * Coarse-to-fine PatchMatch (Hu, Song, Li, "Efficient Coarse-to-Fine PatchMatch
 * for Large Displacement Optical Flow", CVPR 2016) over census codes, identical on
 * both backends:
 *  1. Pyramids of the 8-bit luma (2x2 box means); on every level a 5x5 census code
 *     per pixel of the level smoothed by a 5x5 binomial. A patch is 25 codes sampled every 2 px (9x9); its cost against a
 *     point of the other frame is the sum of the Hamming distances (an integer).
 *  2. Seeds on a grid every `step` px of the frame, the same seeds on every level
 *     (at position >> level). Coarsest level first: flows start at zero there, else
 *     at twice the coarser level's flow. Per iteration, the seeds of one colour of
 *     the grid's checkerboard, then the other, each take the best of its own flow,
 *     its 4 grid neighbours' flows and random candidates around the best in
 *     windows of radius R, R/2, ..., 1 (R: the displacement bound at the coarsest
 *     level, CC_MATCH_FINE_RADIUS below). The random numbers are a hash of (seed,
 *     level, iteration, candidate, direction): no state, no order dependence.
 *     Ties: smaller displacement wins.
 *  3. Both directions (frame 1 -> 2 and 2 -> 1). At level 0 each flow gets a
 *     sub-pixel parabola per axis; a forward match survives when its seed is
 *     textured (structure tensor test) and the backward flow at the nearest seed
 *     of its target brings it back within fb_threshold px.
 * See docs/epicflow.md (Matcher). */
#include "match_internal.h"
#include "blockmatch_hostdev.h"

#include <stdlib.h>
#include <string.h>

void
cc_match_params_default (cc_match_params *p)
{
  p->step = 3;
  p->levels = 5;
  p->iterations = 4;
  p->max_displacement = 400.0f;
  p->fb_threshold = 3.0f;
}

cc_status
cc_match_params_check (const cc_match_params *p)
{
  CC_CHECK_ARG (p != NULL, "match: params is NULL");
  CC_CHECK_ARG (p->step >= 2 && p->step <= 32, "match: step %d out of range 2..32", p->step);
  CC_CHECK_ARG (p->levels >= 1 && p->levels <= CC_MATCH_LEVELS_MAX,
      "match: levels %d out of range 1..%d", p->levels, CC_MATCH_LEVELS_MAX);
  CC_CHECK_ARG (p->iterations >= 1 && p->iterations <= 32,
      "match: iterations %d out of range 1..32", p->iterations);
  CC_CHECK_ARG (p->max_displacement >= 8.0f && p->max_displacement <= 1024.0f,
      "match: max_displacement %g out of range 8..1024", p->max_displacement);
  CC_CHECK_ARG (p->fb_threshold > 0.0f && p->fb_threshold <= 1024.0f,
      "match: fb_threshold %g out of range (0, 1024]", p->fb_threshold);
  return CC_SUCCESS;
}

void
cc_match_layout_compute (int width, int height, const cc_match_params *p, cc_match_layout *o)
{
  memset (o, 0, sizeof *o);
  o->full_w = width;
  o->full_h = height;
  o->step = p->step;
  o->gw = (width + p->step - 1) / p->step;
  o->gh = (height + p->step - 1) / p->step;
  o->levels = 1;
  o->width[0] = width;
  o->height[0] = height;
  for (int l = 1; l < p->levels; l++) {
    int w = (o->width[l - 1] + 1) / 2, h = (o->height[l - 1] + 1) / 2;
    if (w < CC_MATCH_LEVEL_MIN || h < CC_MATCH_LEVEL_MIN)
      break;
    o->width[l] = w;
    o->height[l] = h;
    o->levels = l + 1;
  }
  for (int l = 0; l < o->levels; l++) {
    float scaled = p->max_displacement / (float) (1 << l);
    int maxd = (int) scaled;
    if ((float) maxd < scaled)
      maxd++;
    int side = o->width[l] > o->height[l] ? o->width[l] : o->height[l];
    o->maxd[l] = maxd < side ? maxd : side;
    o->radius[l] = o->maxd[l];
  }
}

cc_match_view
cc_match_view_make (const cc_match_layout *L, int level, int dir, const uint32_t *from,
    const uint32_t *to, int *flow, int *cost)
{
  cc_match_view v;
  v.from = from;
  v.to = to;
  v.w = L->width[level];
  v.h = L->height[level];
  v.pitch = v.w + 2 * CC_MATCH_PAD;
  v.level = level;
  v.gw = L->gw;
  v.gh = L->gh;
  v.step = L->step;
  v.full_w = L->full_w;
  v.full_h = L->full_h;
  v.maxd = L->maxd[level];
  v.radius = L->radius[level];
  v.radius_top = level == L->levels - 1;
  v.dir = dir;
  v.flow = flow;
  v.cost = cost;
  return v;
}

/* ------------------------------------------------------------ CPU reference */

struct cc_match {
  cc_module mod;            /* ctx, frame size (first: module.c) */
  cc_match_params params;
  cc_match_layout layout;
  /* CPU */
  uint16_t *luma[2][CC_MATCH_LEVELS_MAX];
  uint16_t *smooth[2][CC_MATCH_LEVELS_MAX];
  uint32_t *census[2][CC_MATCH_LEVELS_MAX];   /* padded */
  int *flow[2], *cost[2];
  float *fflow[2];
  unsigned char *textured;
  cc_flow_match *matches;
  bool has_next;            /* slot 1 holds the last compute's next frame (since alloc) */
  /* CUDA */
  cc_cuda_match *cuda;
};

static void
cpu_pyramid (cc_match *m, int slot, const cc_image *f)
{
  const cc_match_layout *L = &m->layout;
  const int nt = cc_context_cpu_threads (m->mod.ctx);
  uint16_t *l0 = m->luma[slot][0];
  int rgbx = f->format == CC_FORMAT_RGBX8, bgrx = f->format == CC_FORMAT_BGRX8;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int y = 0; y < m->mod.height; y++) {
    const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
    for (int x = 0; x < m->mod.width; x++)
      l0[(size_t) y * m->mod.width + x] = (uint16_t) cc_row_luma256 (row, x, rgbx, bgrx);
  }
  for (int l = 1; l < L->levels; l++) {
    if (cc_cancel_requested (m->mod.ctx))
      return;   /* cc_match_compute reports it */
    const uint16_t *s = m->luma[slot][l - 1];
    uint16_t *d = m->luma[slot][l];
    int sw = L->width[l - 1], sh = L->height[l - 1];
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < L->height[l]; y++)
      for (int x = 0; x < L->width[l]; x++) {
        int x0 = 2 * x, y0 = 2 * y;
        int x1 = x0 + 1 < sw ? x0 + 1 : x0, y1 = y0 + 1 < sh ? y0 + 1 : y0;
        d[y * L->width[l] + x] = (uint16_t) ((s[y0 * sw + x0] + s[y0 * sw + x1]
                + s[y1 * sw + x0] + s[y1 * sw + x1] + 2) >> 2);
      }
  }
  for (int l = 0; l < L->levels; l++) {
    if (cc_cancel_requested (m->mod.ctx))
      return;
    int w = L->width[l], h = L->height[l], pw = w + 2 * CC_MATCH_PAD, ph = h + 2 * CC_MATCH_PAD;
    const uint16_t *luma = m->luma[slot][l];
    uint16_t *img = m->smooth[slot][l];
    uint32_t *c = m->census[slot][l];
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        img[(size_t) y * w + x] = cc_match_smooth (luma, w, h, x, y);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < ph; y++)
      for (int x = 0; x < pw; x++)
        c[(size_t) y * pw + x] = cc_match_census_padded (img, w, h, x, y);
  }
}

static void
cpu_compute (cc_match *m)
{
  const cc_match_layout *L = &m->layout;
  const int nt = cc_context_cpu_threads (m->mod.ctx);
  const int n = L->gw * L->gh, gw = L->gw;
  const cc_match_params *p = &m->params;
  for (int l = L->levels - 1; l >= 0; l--) {
    if (cc_cancel_requested (m->mod.ctx))
      return;
    cc_match_view v[2];
    for (int d = 0; d < 2; d++)
      v[d] = cc_match_view_make (L, l, d, m->census[d][l], m->census[1 - d][l], m->flow[d],
          m->cost[d]);
    int scale = l == L->levels - 1 ? 0 : 2;
    for (int d = 0; d < 2; d++) {
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int s = 0; s < n; s++)
        cc_match_seed_init (&v[d], s, scale);
    }
    for (int it = 0; it < p->iterations; it++)
      for (int colour = 0; colour < 2; colour++)
        for (int d = 0; d < 2; d++) {
          if (cc_cancel_requested (m->mod.ctx))
            return;   /* cc_match_compute reports it */
          /* one colour of the checkerboard: seeds that read only the other colour */
#pragma omp parallel for schedule(dynamic, 4) num_threads(nt)
          for (int gy = 0; gy < L->gh; gy++)
            for (int gx = (gy + colour) & 1; gx < gw; gx += 2)
              cc_match_seed_step (&v[d], gy * gw + gx, it);
        }
    if (l == 0) {
      for (int d = 0; d < 2; d++) {
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int s = 0; s < n; s++) {
          int t = cc_match_seed_finish (&v[d], m->luma[d][0], s, &m->fflow[d][2 * s],
              &m->fflow[d][2 * s + 1]);
          if (d == 0)
            m->textured[s] = (unsigned char) t;
        }
      }
    }
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int s = 0; s < n; s++)
    m->matches[s] = cc_match_fb (m->fflow[0], m->fflow[1], m->cost[0], m->textured, L->gw,
        L->gh, L->step, L->full_w, L->full_h, p->fb_threshold, p->max_displacement, s);
}

static void
cpu_free (cc_match *m)
{
  for (int s = 0; s < 2; s++) {
    for (int l = 0; l < CC_MATCH_LEVELS_MAX; l++) {
      free (m->luma[s][l]);
      free (m->smooth[s][l]);
      free (m->census[s][l]);
      m->luma[s][l] = m->smooth[s][l] = NULL;
      m->census[s][l] = NULL;
    }
    free (m->flow[s]);
    free (m->cost[s]);
    free (m->fflow[s]);
    m->flow[s] = m->cost[s] = NULL;
    m->fflow[s] = NULL;
  }
  free (m->textured);
  free (m->matches);
  m->textured = NULL;
  m->matches = NULL;
}

static cc_status
cpu_alloc (cc_match *m)
{
  const cc_match_layout *L = &m->layout;
  size_t n = (size_t) L->gw * L->gh;
  bool ok = true;
  for (int s = 0; s < 2; s++) {
    for (int l = 0; l < L->levels; l++) {
      size_t px = (size_t) L->width[l] * L->height[l];
      size_t pp = (size_t) (L->width[l] + 2 * CC_MATCH_PAD) * (L->height[l] + 2 * CC_MATCH_PAD);
      ok &= (m->luma[s][l] = malloc (px * sizeof (uint16_t))) != NULL;
      ok &= (m->smooth[s][l] = malloc (px * sizeof (uint16_t))) != NULL;
      ok &= (m->census[s][l] = malloc (pp * sizeof (uint32_t))) != NULL;
    }
    ok &= (m->flow[s] = calloc (2 * n, sizeof (int))) != NULL;
    ok &= (m->cost[s] = calloc (n, sizeof (int))) != NULL;
    ok &= (m->fflow[s] = calloc (2 * n, sizeof (float))) != NULL;
  }
  ok &= (m->textured = calloc (n, 1)) != NULL;
  ok &= (m->matches = calloc (n, sizeof (cc_flow_match))) != NULL;
  if (!ok) {
    cpu_free (m);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "match: out of host memory for %dx%d scratch",
        m->mod.width, m->mod.height);
  }
  return CC_SUCCESS;
}

/* ------------------------------------------------------------------ API */

static cc_status
match_alloc (cc_module *mod)
{
  cc_match *m = (cc_match *) mod;
  cc_match_layout_compute (m->mod.width, m->mod.height, &m->params, &m->layout);
  m->has_next = false;
  if (m->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_match_create (m->mod.ctx, &m->layout, &m->cuda));
  return cpu_alloc (m);
}

static void
match_free (cc_module *mod)
{
  cc_match *m = (cc_match *) mod;
#if CC_HAVE_CUDA
  if (m->cuda)
    cc_cuda_match_destroy (m->cuda);
#endif
  m->cuda = NULL;
  cpu_free (m);
}

/* New params need new scratch when they change the layout. */
static cc_status
match_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_match *m = (cc_match *) mod;
  cc_match_layout next;
  cc_match_layout_compute (m->mod.width, m->mod.height, params, &next);
  *realloc = memcmp (&next, &m->layout, sizeof next) != 0;
  return CC_SUCCESS;
}

CC_MODULE_CLASS (match_class, cc_match, cc_match_params, cc_match, match_params_changing,
    match_alloc, match_free);

cc_status
cc_match_create (cc_context *ctx, int width, int height, const cc_match_params *params,
    cc_match **out)
{
  cc_module *m = NULL;
  cc_status st = cc_module_create (&match_class, ctx, width, height, params, out ? &m : NULL);
  if (out)
    *out = (cc_match *) m;
  return st;
}

void
cc_match_destroy (cc_match *m)
{
  cc_module_destroy ((cc_module *) m);
}

cc_status
cc_match_set_params (cc_match *m, const cc_match_params *params)
{
  CC_CHECK_ARG (m != NULL, "cc_match_set_params: m is NULL");
  return cc_module_set_params (&m->mod, params);
}

void
cc_match_get_params (const cc_match *m, cc_match_params *params)
{
  *params = m->params;
}

int
cc_match_capacity (const cc_match *m)
{
  return m ? m->layout.gw * m->layout.gh : 0;
}

static cc_status
check_frame (const cc_match *m, const cc_image *img, const char *what)
{
  return cc_module_check_frame (&m->mod, img, what, "the matcher", false);
}

cc_status
cc_match_compute_sequence (cc_match *m, cc_stream stream, const cc_image *prev,
    const cc_image *next, bool reuse_prev)
{
  CC_CHECK_ARG (m != NULL, "cc_match_compute: m is NULL");
  CC_TRY (check_frame (m, prev, "match: prev frame"));
  CC_TRY (check_frame (m, next, "match: next frame"));
  CC_CHECK_ARG (!reuse_prev || m->has_next,
      "match: no previous frame to reuse (new scratch or no compute since)");
  /* slot 1 holds next only once a compute has finished (or been queued) in full */
  m->has_next = false;
  if (m->mod.ctx->backend == CC_BACKEND_CUDA) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_match_compute (m->cuda, cc_stream_resolve (m->mod.ctx,
                stream), &m->params, prev, next, reuse_prev)));
    m->has_next = true;
    return CC_SUCCESS;
  }
  if (reuse_prev)
    cc_match_swap_slots (m->luma, m->smooth, m->census);
  else
    cpu_pyramid (m, 0, prev);
  cpu_pyramid (m, 1, next);
  cpu_compute (m);
  if (cc_cancel_requested (m->mod.ctx))
    return cc_cancelled_error ("cc_match_compute");
  m->has_next = true;
  return CC_SUCCESS;
}

bool
cc_match_has_next (const cc_match *m)
{
  return m && m->has_next;
}

cc_status
cc_match_compute (cc_match *m, cc_stream stream, const cc_image *prev, const cc_image *next)
{
  return cc_match_compute_sequence (m, stream, prev, next, false);
}

const cc_flow_match *
cc_match_matches (const cc_match *m)
{
  if (!m)
    return NULL;
#if CC_HAVE_CUDA
  if (m->cuda)
    return cc_cuda_match_matches (m->cuda);
#endif
  return m->matches;
}

cc_status
cc_match_download_sync (cc_match *m, cc_stream stream, cc_flow_match *out, int max, int *count)
{
  CC_CHECK_ARG (m != NULL, "cc_match_download_sync: m is NULL");
  CC_CHECK_ARG (out != NULL || max == 0, "cc_match_download_sync: out is NULL");
  CC_CHECK_ARG (max >= 0, "cc_match_download_sync: max %d is negative", max);
  int n = cc_match_capacity (m);
  if (n > max)
    n = max;
  if (count)
    *count = 0;
  if (n > 0) {
    if (m->mod.ctx->backend == CC_BACKEND_CUDA)
      CC_TRY (CC_CUDA_ONLY (cc_cuda_match_download (m->cuda, cc_stream_resolve (m->mod.ctx,
                  stream), out, n)));
    else
      memcpy (out, m->matches, (size_t) n * sizeof *out);
  }
  if (count)
    *count = n;
  return CC_SUCCESS;
}
