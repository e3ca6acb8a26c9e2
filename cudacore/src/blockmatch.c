/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Block matching: the API, parameter checks, and the CPU reference.
 *
 * The algorithm (identical on both backends, integer sums, same tie-break):
 *  1. Pyramids of the 8-bit luma: each level is the rounded 2x2 mean of the one
 *     below (last row / column replicated on odd sizes).
 *  2. Coarsest level first. Block (bx, by) of a level covers [bx B, bx B + B) x
 *     [by B, by B + B) clipped to the level (B = block_size); its seed is zero at
 *     the coarsest level, else twice the vector of block (bx / 2, by / 2) of the
 *     coarser level. Every displacement seed + d, |dx|, |dy| <= radius, is scored
 *     (candidate pixels outside the frame replicate the border). The block's own
 *     sums (n, sum a, sum a^2: its normalisation) are computed once per frame.
 *  3. The lowest cost wins (ties: smaller |d|, then lower index). A flat block
 *     (std dev < flat_threshold) keeps its seed.
 *  4. At level 0: sub-pixel parabola per axis (when the neighbours are inside the
 *     search window), confidence = max(NCC at best, 0) x (1 - best / second best
 *     at >= 2 px from the best), and the optional dense field.
 */
#include "blockmatch_internal.h"
#include "blockmatch_hostdev.h"

#include <stdlib.h>
#include <string.h>

void
cc_blockmatch_params_default (cc_blockmatch_params *p)
{
  p->block_size = 16;
  p->search_radius = 16;
  p->seed_radius = 2;
  p->levels = 4;
  p->metric = CC_BLOCKMATCH_NCC;
  p->subpixel = true;
  p->flat_threshold = 2.0f;
}

cc_status
cc_blockmatch_params_check (const cc_blockmatch_params *p)
{
  CC_CHECK_ARG (p != NULL, "blockmatch: params is NULL");
  CC_CHECK_ARG (p->block_size >= CC_BLOCKMATCH_BLOCK_MIN
      && p->block_size <= CC_BLOCKMATCH_BLOCK_MAX,
      "blockmatch: block_size %d out of range %d..%d", p->block_size,
      CC_BLOCKMATCH_BLOCK_MIN, CC_BLOCKMATCH_BLOCK_MAX);
  CC_CHECK_ARG (p->search_radius >= CC_BLOCKMATCH_RADIUS_MIN
      && p->search_radius <= CC_BLOCKMATCH_RADIUS_MAX,
      "blockmatch: search_radius %d out of range %d..%d", p->search_radius,
      CC_BLOCKMATCH_RADIUS_MIN, CC_BLOCKMATCH_RADIUS_MAX);
  CC_CHECK_ARG (p->seed_radius >= CC_BLOCKMATCH_SEED_RADIUS_MIN
      && p->seed_radius <= CC_BLOCKMATCH_SEED_RADIUS_MAX,
      "blockmatch: seed_radius %d out of range %d..%d", p->seed_radius,
      CC_BLOCKMATCH_SEED_RADIUS_MIN, CC_BLOCKMATCH_SEED_RADIUS_MAX);
  CC_CHECK_ARG (p->levels >= CC_BLOCKMATCH_LEVELS_MIN && p->levels <= CC_BLOCKMATCH_LEVELS_MAX,
      "blockmatch: levels %d out of range %d..%d", p->levels, CC_BLOCKMATCH_LEVELS_MIN,
      CC_BLOCKMATCH_LEVELS_MAX);
  CC_CHECK_ARG (p->metric == CC_BLOCKMATCH_NCC || p->metric == CC_BLOCKMATCH_SSD
      || p->metric == CC_BLOCKMATCH_SAD, "blockmatch: unknown metric %d", (int) p->metric);
  CC_CHECK_ARG (p->flat_threshold >= 0.0f && p->flat_threshold <= 255.0f,
      "blockmatch: flat_threshold %g out of range [0, 255]", p->flat_threshold);
  return CC_SUCCESS;
}

void
cc_bm_layout_compute (int width, int height, const cc_blockmatch_params *p, cc_bm_layout *o)
{
  memset (o, 0, sizeof *o);
  o->block = p->block_size;
  o->levels = 1;
  o->width[0] = width;
  o->height[0] = height;
  for (int l = 1; l < p->levels; l++) {
    int w = (o->width[l - 1] + 1) / 2, h = (o->height[l - 1] + 1) / 2;
    if (w < p->block_size || h < p->block_size)
      break;
    o->width[l] = w;
    o->height[l] = h;
    o->levels = l + 1;
  }
  for (int l = 0; l < o->levels; l++) {
    o->grid_w[l] = (o->width[l] + p->block_size - 1) / p->block_size;
    o->grid_h[l] = (o->height[l] + p->block_size - 1) / p->block_size;
    o->radius[l] = p->seed_radius;
  }
  /* the coarsest level covers the search radius on its own */
  int top = o->levels - 1, scale = 1 << top;
  int r = (p->search_radius + scale - 1) / scale;
  o->radius[top] = r > p->seed_radius || top == 0 ? r : p->seed_radius;
}

/* ------------------------------------------------------------ CPU reference */

struct cc_blockmatch {
  cc_module mod;            /* ctx, frame size (first: module.c) */
  cc_blockmatch_params params;
  cc_bm_layout layout;
  /* CPU */
  uint8_t *pyr[2][CC_BLOCKMATCH_LEVELS_MAX];
  int *vec[CC_BLOCKMATCH_LEVELS_MAX];     /* integer vectors per level, pairs */
  float *fvec, *conf;                     /* level 0: frame px, confidence */
  /* CUDA */
  cc_cuda_bm *cuda;
};

static void
cpu_pyramid (cc_blockmatch *bm, int slot, const cc_image *f)
{
  const cc_bm_layout *L = &bm->layout;
  uint8_t *l0 = bm->pyr[slot][0];
  int rgbx = f->format == CC_FORMAT_RGBX8, bgrx = f->format == CC_FORMAT_BGRX8;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (bm->mod.ctx))
  for (int y = 0; y < bm->mod.height; y++) {
    const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
    for (int x = 0; x < bm->mod.width; x++)
      l0[(size_t) y * bm->mod.width + x] = (uint8_t) cc_row_luma8 (row, x, rgbx, bgrx);
  }
  for (int l = 1; l < L->levels; l++) {
    const uint8_t *s = bm->pyr[slot][l - 1];
    uint8_t *d = bm->pyr[slot][l];
    int sw = L->width[l - 1], sh = L->height[l - 1];
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (bm->mod.ctx))
    for (int y = 0; y < L->height[l]; y++)
      for (int x = 0; x < L->width[l]; x++) {
        int x0 = 2 * x, y0 = 2 * y;
        int x1 = x0 + 1 < sw ? x0 + 1 : x0, y1 = y0 + 1 < sh ? y0 + 1 : y0;
        d[y * L->width[l] + x] = (uint8_t) ((s[y0 * sw + x0] + s[y0 * sw + x1]
                + s[y1 * sw + x0] + s[y1 * sw + x1] + 2) >> 2);
      }
  }
}

static void
candidate_sums (const uint8_t *a, const uint8_t *b, int w, int h, int x0, int y0, int bw,
    int bh, int cx, int cy, cc_bm_sums *s)
{
  memset (s, 0, sizeof *s);
  for (int j = 0; j < bh; j++) {
    const uint8_t *brow = b + (size_t) cc_clampi (cy + j, 0, h - 1) * w;
    const uint8_t *arow = a + (size_t) (y0 + j) * w + x0;
    for (int i = 0; i < bw; i++) {
      int av = arow[i], bv = brow[cc_clampi (cx + i, 0, w - 1)];
      s->sab += av * bv;
      s->sb += bv;
      s->sbb += bv * bv;
      s->sad += av > bv ? av - bv : bv - av;
    }
  }
}

static void
cpu_match_level (cc_blockmatch *bm, int l)
{
  const cc_bm_layout *L = &bm->layout;
  const cc_blockmatch_params *p = &bm->params;
  const int w = L->width[l], h = L->height[l], B = L->block, r = L->radius[l];
  const int side = 2 * r + 1;
  const uint8_t *a = bm->pyr[0][l], *b = bm->pyr[1][l];
  /* blocks are independent (each reads only the coarser level's vectors): rows of
   * blocks are split among the threads, each block scoring into its own keys */
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (bm->mod.ctx))
  for (int by = 0; by < L->grid_h[l]; by++)
    for (int bx = 0; bx < L->grid_w[l]; bx++) {
      uint32_t keys[(2 * CC_BLOCKMATCH_RADIUS_MAX + 1) * (2 * CC_BLOCKMATCH_RADIUS_MAX + 1)];
      int x0 = bx * B, y0 = by * B;
      int bw = w - x0 < B ? w - x0 : B, bh = h - y0 < B ? h - y0 : B;
      int sx = 0, sy = 0;
      if (l + 1 < L->levels) {
        int pbx = cc_clampi (bx / 2, 0, L->grid_w[l + 1] - 1);
        int pby = cc_clampi (by / 2, 0, L->grid_h[l + 1] - 1);
        const int *pv = bm->vec[l + 1] + 2 * (pby * L->grid_w[l + 1] + pbx);
        sx = 2 * pv[0];
        sy = 2 * pv[1];
      }
      long long n = (long long) bw * bh, sa = 0, saa = 0;
      for (int j = 0; j < bh; j++)
        for (int i = 0; i < bw; i++) {
          int av = a[(size_t) (y0 + j) * w + x0 + i];
          sa += av;
          saa += av * av;
        }
      int *out = bm->vec[l] + 2 * (by * L->grid_w[l] + bx);
      size_t gi = (size_t) by * L->grid_w[l] + bx;
      if (cc_bm_flat (n, sa, saa, p->flat_threshold)) {
        out[0] = sx;
        out[1] = sy;
        if (l == 0) {
          bm->fvec[2 * gi] = (float) sx;
          bm->fvec[2 * gi + 1] = (float) sy;
          bm->conf[gi] = 0.0f;
        }
        continue;
      }
      unsigned long long best = ~0ull;
      for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
          int c = (dy + r) * side + dx + r;
          cc_bm_sums s;
          candidate_sums (a, b, w, h, x0, y0, bw, bh, x0 + sx + dx, y0 + sy + dy, &s);
          keys[c] = cc_bm_key (cc_bm_cost ((int) p->metric, n, sa, saa, &s));
          unsigned long long k = cc_bm_pack (keys[c], dx, dy, c);
          if (k < best)
            best = k;
        }
      int bc = (int) (best & 0xFFFF);
      int bdx = bc % side - r, bdy = bc / side - r;
      out[0] = sx + bdx;
      out[1] = sy + bdy;
      if (l > 0)
        continue;
      /* second best at >= 2 px (Chebyshev) from the best */
      uint32_t second = 0xFFFFFFFFu;
      int has_second = 0;
      for (int c = 0; c < side * side; c++) {
        int ddx = c % side - r - bdx, ddy = c / side - r - bdy;
        if ((ddx > 1 || ddx < -1 || ddy > 1 || ddy < -1) && keys[c] <= second) {
          second = keys[c];
          has_second = 1;
        }
      }
      float best_cost = cc_bm_key_value ((uint32_t) (best >> 32));
      float ox = 0.0f, oy = 0.0f;
      if (p->subpixel)
        cc_bm_subpixel (keys, side, r, bc, bdx, bdy, best_cost, &ox, &oy);
      cc_bm_sums s;
      candidate_sums (a, b, w, h, x0, y0, bw, bh, x0 + out[0], y0 + out[1], &s);
      double ncc = cc_bm_ncc (n, sa, saa, s.sab, s.sb, s.sbb);
      bm->fvec[2 * gi] = (float) out[0] + ox;
      bm->fvec[2 * gi + 1] = (float) out[1] + oy;
      bm->conf[gi] = cc_bm_confidence (ncc, best_cost,
          has_second ? cc_bm_key_value (second) : 0.0f, has_second);
    }
}

static cc_status
cpu_compute (cc_blockmatch *bm, cc_image *grid_flow, cc_image *grid_conf, cc_image *dense)
{
  const cc_bm_layout *L = &bm->layout;
  for (int l = L->levels - 1; l >= 0; l--)
    cpu_match_level (bm, l);
  int gw = L->grid_w[0], gh = L->grid_h[0];
  float sx = (float) gw / (float) bm->mod.width, sy = (float) gh / (float) bm->mod.height;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (bm->mod.ctx))
  for (int y = 0; y < gh; y++) {
    float *row = (float *) ((char *) grid_flow->planes[0] + (size_t) y * grid_flow->pitch[0]);
    for (int x = 0; x < gw; x++) {
      row[2 * x] = bm->fvec[2 * (y * gw + x)] * sx;
      row[2 * x + 1] = bm->fvec[2 * (y * gw + x) + 1] * sy;
    }
    if (grid_conf)
      memcpy ((char *) grid_conf->planes[0] + (size_t) y * grid_conf->pitch[0],
          bm->conf + (size_t) y * gw, gw * sizeof (float));
  }
  if (dense) {
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (bm->mod.ctx))
    for (int y = 0; y < bm->mod.height; y++) {
      float *row = (float *) ((char *) dense->planes[0] + (size_t) y * dense->pitch[0]);
      for (int x = 0; x < bm->mod.width; x++)
        cc_bm_dense_at (bm->fvec, bm->conf, gw, gh, L->block, x, y, &row[2 * x],
            &row[2 * x + 1]);
    }
  }
  return CC_SUCCESS;
}

static void
cpu_free (cc_blockmatch *bm)
{
  for (int l = 0; l < CC_BLOCKMATCH_LEVELS_MAX; l++) {
    free (bm->pyr[0][l]); free (bm->pyr[1][l]); free (bm->vec[l]);
    bm->pyr[0][l] = bm->pyr[1][l] = NULL;
    bm->vec[l] = NULL;
  }
  free (bm->fvec); free (bm->conf);
  bm->fvec = bm->conf = NULL;
}

static cc_status
cpu_alloc (cc_blockmatch *bm)
{
  const cc_bm_layout *L = &bm->layout;
  bool ok = true;
  for (int l = 0; l < L->levels; l++) {
    size_t n = (size_t) L->width[l] * L->height[l];
    ok &= (bm->pyr[0][l] = malloc (n)) != NULL;
    ok &= (bm->pyr[1][l] = malloc (n)) != NULL;
    ok &= (bm->vec[l] = malloc (2 * sizeof (int) * L->grid_w[l] * L->grid_h[l])) != NULL;
  }
  size_t g = (size_t) L->grid_w[0] * L->grid_h[0];
  ok &= (bm->fvec = malloc (2 * g * sizeof (float))) != NULL;
  ok &= (bm->conf = malloc (g * sizeof (float))) != NULL;
  if (!ok) {
    cpu_free (bm);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
        "blockmatch: out of host memory for %dx%d scratch", bm->mod.width, bm->mod.height);
  }
  return CC_SUCCESS;
}

/* ------------------------------------------------------------------ API */

static cc_status
bm_alloc (cc_module *mod)
{
  cc_blockmatch *bm = (cc_blockmatch *) mod;
  cc_bm_layout_compute (bm->mod.width, bm->mod.height, &bm->params, &bm->layout);
  if (bm->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_bm_create (bm->mod.ctx, &bm->layout, &bm->cuda));
  return cpu_alloc (bm);
}

static void
bm_free (cc_module *mod)
{
  cc_blockmatch *bm = (cc_blockmatch *) mod;
#if CC_HAVE_CUDA
  if (bm->cuda)
    cc_cuda_bm_destroy (bm->cuda);
#endif
  bm->cuda = NULL;
  cpu_free (bm);
}

/* New params need new scratch when they change the layout. */
static cc_status
bm_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_blockmatch *bm = (cc_blockmatch *) mod;
  cc_bm_layout next;
  cc_bm_layout_compute (bm->mod.width, bm->mod.height, params, &next);
  *realloc = memcmp (&next, &bm->layout, sizeof next) != 0;
  return CC_SUCCESS;
}

CC_MODULE_CLASS (blockmatch_class, cc_blockmatch, cc_blockmatch_params, cc_blockmatch,
    bm_params_changing, bm_alloc, bm_free);

cc_status
cc_blockmatch_create (cc_context *ctx, int width, int height,
    const cc_blockmatch_params *params, cc_blockmatch **out)
{
  cc_module *bm = NULL;
  cc_status st = cc_module_create (&blockmatch_class, ctx, width, height, params,
      out ? &bm : NULL);
  if (out)
    *out = (cc_blockmatch *) bm;
  return st;
}

void
cc_blockmatch_destroy (cc_blockmatch *bm)
{
  cc_module_destroy ((cc_module *) bm);
}

cc_status
cc_blockmatch_set_params (cc_blockmatch *bm, const cc_blockmatch_params *params)
{
  CC_CHECK_ARG (bm != NULL, "cc_blockmatch_set_params: bm is NULL");
  return cc_module_set_params (&bm->mod, params);
}

void
cc_blockmatch_get_params (const cc_blockmatch *bm, cc_blockmatch_params *params)
{
  *params = bm->params;
}

void
cc_blockmatch_grid_size (const cc_blockmatch *bm, int *gw, int *gh)
{
  if (gw)
    *gw = bm->layout.grid_w[0];
  if (gh)
    *gh = bm->layout.grid_h[0];
}

static cc_status
check_frame (const cc_blockmatch *bm, const cc_image *img, const char *what)
{
  return cc_module_check_frame (&bm->mod, img, what, "blockmatch", true);
}

static cc_status
check_output (const cc_blockmatch *bm, const cc_image *img, cc_format format, int w, int h,
    const char *what)
{
  CC_TRY (cc_image_check (img, what));
  CC_CHECK_ARG (img->format == format && img->width == w && img->height == h,
      "%s must be %s %dx%d (is %s %dx%d)", what, cc_format_name (format), w, h,
      cc_format_name (img->format), img->width, img->height);
  CC_CHECK_ARG (img->location == CC_LOCATION_HOST || bm->mod.ctx->backend == CC_BACKEND_CUDA,
      "%s: device memory needs the CUDA backend", what);
  return CC_SUCCESS;
}

cc_status
cc_blockmatch_compute (cc_blockmatch *bm, cc_stream stream, const cc_image *prev,
    const cc_image *next, cc_image *grid_flow, cc_image *grid_confidence,
    cc_image *dense_flow)
{
  CC_CHECK_ARG (bm != NULL, "cc_blockmatch_compute: bm is NULL");
  stream = cc_stream_resolve (bm->mod.ctx, stream);
  CC_TRY (check_frame (bm, prev, "blockmatch: prev frame"));
  CC_TRY (check_frame (bm, next, "blockmatch: next frame"));
  CC_CHECK_ARG (grid_flow != NULL, "blockmatch: grid_flow is NULL");
  int gw = bm->layout.grid_w[0], gh = bm->layout.grid_h[0];
  CC_TRY (check_output (bm, grid_flow, CC_FORMAT_F32C2, gw, gh, "blockmatch: grid_flow"));
  if (grid_confidence)
    CC_TRY (check_output (bm, grid_confidence, CC_FORMAT_F32, gw, gh,
            "blockmatch: grid_confidence"));
  if (dense_flow)
    CC_TRY (check_output (bm, dense_flow, CC_FORMAT_F32C2, bm->mod.width, bm->mod.height,
            "blockmatch: dense_flow"));
  if (bm->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_bm_compute (bm->cuda, stream, &bm->params, prev, next, grid_flow,
            grid_confidence, dense_flow));
  cpu_pyramid (bm, 0, prev);
  cpu_pyramid (bm, 1, next);
  return cpu_compute (bm, grid_flow, grid_confidence, dense_flow);
}
