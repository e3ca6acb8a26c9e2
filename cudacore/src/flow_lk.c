/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dense pyramidal Lucas-Kanade: the API, parameter checks, and the CPU reference.
 *
 * The algorithm (identical on both backends; the CUDA kernels fuse its steps):
 *  1. Pyramids: level 0 is the luma in [0,1]; each next level is the 5-tap binomial
 *     blur (1 4 6 4 1)/16 of the previous one (borders replicated), sampled at even
 *     pixels. Each frame's pyramid is built once.
 *  2. Coarse to fine, each level starts from twice the bilinear upsampling of the
 *     coarser level's field (zero at the coarsest).
 *  3. Each iteration warps J by the current field (bilinear, borders replicated):
 *     Jw(p) = J(p + F(p)); takes the gradient of the average (I + Jw)/2 (Scharr or
 *     Sobel, as ringaby-2008 takes Sobel of I+J) and the temporal difference
 *     It = Jw - I. Each window pixel q, linearised around its own vector F(q), says
 *     It(q) + g(q).(c - F(q)) = 0 for the window's flow c; the normal equations
 *     G c = sum g (g.F - It) take five window sums (gx^2, gx gy, gy^2 and the two
 *     right-hand sides; borders replicated) and are solved in closed form. Unlike
 *     F += -G^-1 sum g It, this step damps high-frequency errors of the field
 *     (each pixel warping by its own vector makes the plain update only neutrally
 *     stable: it diverged after ~5 iterations in our tests). A pixel whose G has its smallest eigenvalue (per window pixel)
 *     under the threshold keeps its estimate. Every pixel reads the fields of the
 *     previous iteration (Jacobi order), so the result is independent of the order
 *     in which pixels are visited: what lets the GPU agree with this code.
 *  4. Confidence is that smallest eigenvalue at the last iteration of level 0; with
 *     the forward-backward check on, the backward field J -> I is computed the same
 *     way and confidence becomes |F(p) + B(p + F(p))| (invalid above the threshold).
 */
#include "flow_lk_internal.h"
#include "flow_lk_hostdev.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

void
cc_flow_lk_params_default (cc_flow_lk_params *p)
{
  p->pyramid_levels = 5;
  p->iterations = 3;
  p->window_size = 9;
  p->min_eigen_threshold = 1e-6f;
  p->gradient = CC_GRADIENT_SCHARR;
  p->fb_check = false;
  p->fb_threshold = 1.0f;
}

cc_status
cc_flow_lk_params_check (const cc_flow_lk_params *p)
{
  CC_CHECK_ARG (p != NULL, "flow-lk: params is NULL");
  CC_CHECK_ARG (p->pyramid_levels >= CC_FLOW_LK_LEVELS_MIN
      && p->pyramid_levels <= CC_FLOW_LK_LEVELS_MAX,
      "flow-lk: pyramid_levels %d out of range %d..%d", p->pyramid_levels,
      CC_FLOW_LK_LEVELS_MIN, CC_FLOW_LK_LEVELS_MAX);
  CC_CHECK_ARG (p->iterations >= CC_FLOW_LK_ITERATIONS_MIN
      && p->iterations <= CC_FLOW_LK_ITERATIONS_MAX,
      "flow-lk: iterations %d out of range %d..%d", p->iterations,
      CC_FLOW_LK_ITERATIONS_MIN, CC_FLOW_LK_ITERATIONS_MAX);
  CC_CHECK_ARG (p->window_size >= CC_FLOW_LK_WINDOW_MIN
      && p->window_size <= CC_FLOW_LK_WINDOW_MAX && (p->window_size & 1),
      "flow-lk: window_size %d must be odd and in %d..%d", p->window_size,
      CC_FLOW_LK_WINDOW_MIN, CC_FLOW_LK_WINDOW_MAX);
  CC_CHECK_ARG (p->min_eigen_threshold >= 0.0f && p->min_eigen_threshold < 1.0f,
      "flow-lk: min_eigen_threshold %g out of range [0, 1)", p->min_eigen_threshold);
  CC_CHECK_ARG (p->gradient == CC_GRADIENT_SCHARR || p->gradient == CC_GRADIENT_SOBEL,
      "flow-lk: unknown gradient %d", (int) p->gradient);
  CC_CHECK_ARG (p->fb_threshold > 0.0f && p->fb_threshold <= 1000.0f,
      "flow-lk: fb_threshold %g out of range (0, 1000]", p->fb_threshold);
  return CC_SUCCESS;
}

void
cc_lk_pyramid_sizes_compute (int width, int height, int wanted, cc_lk_pyramid_sizes *out)
{
  out->levels = cc_pyramid_sizes (width, height, wanted, CC_LK_MIN_LEVEL_SIZE, out->width,
      out->height);
}

/* ------------------------------------------------------------ CPU reference */

typedef struct {
  float *level[CC_FLOW_LK_LEVELS_MAX];   /* packed, pitch = level width */
} cpu_pyramid;

struct cc_flow_lk {
  cc_module mod;             /* ctx, frame size (first: module.c) */
  cc_flow_lk_params params;
  cc_lk_pyramid_sizes sizes;
  int current_slot;          /* slot holding the last pushed frame */
  bool has_previous;
  /* CPU */
  cpu_pyramid pyr[2];
  float *field_a, *field_b;  /* F32C2 packed, level-0 sized ping-pong */
  float *backward;           /* backward field (fb check) */
  float *conf;               /* level-0 confidence */
  float *products;           /* 5 planes of level-0 size */
  float *average, *temporal; /* (I+Jw)/2 and Jw-I */
  /* CUDA */
  cc_cuda_lk *cuda;
};

static void
cpu_blur_down (const float *src, int sw, int sh, float *dst, int dw, int dh, float *tmp,
    int threads)
{
  static const float k[5] = { 1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f };
  /* vertical blur at even rows into tmp (dh x sw), then horizontal at even columns */
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < dh; y++)
    for (int x = 0; x < sw; x++) {
      float s = 0;
      for (int i = -2; i <= 2; i++)
        s += k[i + 2] * src[cc_clampi (2 * y + i, 0, sh - 1) * sw + x];
      tmp[y * sw + x] = s;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < dh; y++)
    for (int x = 0; x < dw; x++) {
      float s = 0;
      for (int i = -2; i <= 2; i++)
        s += k[i + 2] * tmp[y * sw + cc_clampi (2 * x + i, 0, sw - 1)];
      dst[y * dw + x] = s;
    }
}

static void
cpu_build_pyramid (cc_flow_lk *lk, int slot, const cc_image *frame)
{
  cpu_pyramid *p = &lk->pyr[slot];
  const int nt = cc_context_cpu_threads (lk->mod.ctx);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int y = 0; y < lk->mod.height; y++) {
    const uint8_t *row = (const uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    for (int x = 0; x < lk->mod.width; x++)
      p->level[0][y * lk->mod.width + x] = cc_lk_luma01 (row, x,
          frame->format == CC_FORMAT_RGBX8, frame->format == CC_FORMAT_BGRX8);
  }
  for (int l = 1; l < lk->sizes.levels; l++)
    cpu_blur_down (p->level[l - 1], lk->sizes.width[l - 1], lk->sizes.height[l - 1],
        p->level[l], lk->sizes.width[l], lk->sizes.height[l], lk->products, nt);
}

/* Gradient of img at (x, y), borders replicated. */
static void
gradient_at (const float *img, int w, int h, int x, int y, cc_gradient kind,
    float *gx, float *gy)
{
  float s, c;
  cc_lk_gradient_weights (kind, &s, &c);
  int xm = cc_clampi (x - 1, 0, w - 1), xp = cc_clampi (x + 1, 0, w - 1);
  int ym = cc_clampi (y - 1, 0, h - 1), yp = cc_clampi (y + 1, 0, h - 1);
  const float *up = img + ym * w, *mid = img + y * w, *dn = img + yp * w;
  cc_lk_gradient (s, c, up[xm], up[x], up[xp], mid[xm], mid[xp], dn[xm], dn[x], dn[xp], gx, gy);
}

/* One warp-and-solve iteration at one level: reads `in`, writes `out`.
 * mask (level 0 only) may be NULL; conf may be NULL. Every pixel of each of the
 * three passes is independent (Jacobi order), so the rows are split among the
 * context's threads and the result does not depend on their number. */
static void
cpu_lk_iteration (cc_flow_lk *lk, const float *I, const float *J, int w, int h,
    const float *in, float *out, float *conf, const cc_image *mask)
{
  const cc_flow_lk_params *prm = &lk->params;
  const int r = prm->window_size / 2;
  const float inv_n = 1.0f / (float) (prm->window_size * prm->window_size);
  float *avg = lk->average, *dt = lk->temporal;
  size_t n = (size_t) w * h;
  float *P[5];
  for (int i = 0; i < 5; i++)
    P[i] = lk->products + i * n;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (lk->mod.ctx))
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const float *f = in + 2 * ((size_t) y * w + x);
      float jw = cc_bilinear (J, w, h, x + f[0], y + f[1]);
      float i0 = I[y * w + x];
      avg[y * w + x] = 0.5f * (i0 + jw);
      /* a pixel warped out of J has no data: NAN marks it, and it drops out of the sums */
      dt[y * w + x] = cc_inside (x + f[0], y + f[1], w, h) ? jw - i0 : NAN;
    }
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (lk->mod.ctx))
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float gx, gy;
      size_t i = (size_t) y * w + x;
      gradient_at (avg, w, h, x, y, prm->gradient, &gx, &gy);
      float prod[5] = { 0, 0, 0, 0, 0 };
      if (!isnan (dt[i]))
        cc_lk_products (gx, gy, in[2 * i], in[2 * i + 1], dt[i], prod);
      for (int k = 0; k < 5; k++)
        P[k][i] = prod[k];
    }
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (lk->mod.ctx))
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      float *o = out + 2 * i;
      const float *f = in + 2 * i;
      if (mask && ((const uint8_t *) mask->planes[0])[(size_t) y * mask->pitch[0] + x] == 0) {
        o[0] = f[0];
        o[1] = f[1];
        if (conf)
          conf[i] = 0.0f;
        continue;
      }
      /* window sums, borders replicated: rows first, then columns of that sum */
      float S[5] = { 0, 0, 0, 0, 0 };
      for (int dy = -r; dy <= r; dy++) {
        int yy = cc_clampi (y + dy, 0, h - 1);
        for (int dx = -r; dx <= r; dx++) {
          size_t j = (size_t) yy * w + cc_clampi (x + dx, 0, w - 1);
          for (int k = 0; k < 5; k++)
            S[k] += P[k][j];
        }
      }
      o[0] = f[0];
      o[1] = f[1];
      float c = cc_lk_solve_window (S, inv_n, prm->min_eigen_threshold, &o[0], &o[1]);
      if (conf)
        conf[i] = c;
    }
}

/* Twice the bilinear upsampling of the coarse field onto the fine level. */
static void
cpu_upsample_field (const float *coarse, int cw, int ch, float *fine, int fw, int fh,
    int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < fh; y++)
    for (int x = 0; x < fw; x++) {
      cc_bilinear_taps t = cc_upsample2_taps (x, y, cw, ch);
      for (int k = 0; k < 2; k++)
        fine[2 * (y * fw + x) + k] = cc_upsample2 (&t, coarse[2 * (t.y0 * cw + t.x0) + k],
            coarse[2 * (t.y0 * cw + t.x1) + k], coarse[2 * (t.y1 * cw + t.x0) + k],
            coarse[2 * (t.y1 * cw + t.x1) + k]);
    }
}

/* Coarse-to-fine flow from pyramid `from` to pyramid `to`; the level-0 result is
 * left in *result (one of field_a / field_b / backward scratch). */
static float *
cpu_lk_field (cc_flow_lk *lk, const cpu_pyramid *from, const cpu_pyramid *to,
    float *buf_a, float *buf_b, float *conf, const cc_image *mask)
{
  const cc_lk_pyramid_sizes *s = &lk->sizes;
  int top = s->levels - 1;
  memset (buf_a, 0, sizeof (float) * 2 * s->width[top] * s->height[top]);
  float *cur = buf_a, *next = buf_b;
  for (int l = top; l >= 0; l--) {
    int w = s->width[l], h = s->height[l];
    if (l < top) {
      cpu_upsample_field (cur, s->width[l + 1], s->height[l + 1], next, w, h,
          cc_context_cpu_threads (lk->mod.ctx));
      float *t = cur; cur = next; next = t;
    }
    for (int it = 0; it < lk->params.iterations; it++) {
      bool last = l == 0 && it == lk->params.iterations - 1;
      cpu_lk_iteration (lk, from->level[l], to->level[l], w, h, cur, next,
          last ? conf : NULL, l == 0 ? mask : NULL);
      float *t = cur; cur = next; next = t;
    }
  }
  return cur;
}

static cc_status
cpu_flow (cc_flow_lk *lk, int slot_prev, int slot_next, const cc_image *mask,
    cc_image *flow, cc_image *confidence)
{
  int w = lk->mod.width, h = lk->mod.height;
  float *fwd = cpu_lk_field (lk, &lk->pyr[slot_prev], &lk->pyr[slot_next],
      lk->field_a, lk->field_b, lk->conf, mask);
  if (lk->params.fb_check) {
    /* backward field J -> I into the other ping-pong buffer and `backward` */
    float *other = fwd == lk->field_a ? lk->field_b : lk->field_a;
    float *bwd = cpu_lk_field (lk, &lk->pyr[slot_next], &lk->pyr[slot_prev],
        lk->backward, other, NULL, mask);
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (lk->mod.ctx))
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        size_t i = (size_t) y * w + x;
        if (lk->conf[i] == 0.0f && mask
            && ((const uint8_t *) mask->planes[0])[(size_t) y * mask->pitch[0] + x] == 0)
          continue;
        float u = fwd[2 * i], v = fwd[2 * i + 1];
        float qx = x + u, qy = y + v;
        float err;
        if (qx < 0 || qy < 0 || qx > w - 1 || qy > h - 1)
          err = FLT_MAX;      /* leaves the frame: cannot be checked */
        else {
          float bu = 0, bv = 0;
          /* bilinear of the interleaved backward field */
          int x0 = (int) qx, y0 = (int) qy;
          int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
          float fx = qx - x0, fy = qy - y0;
          for (int k = 0; k < 2; k++) {
            float a = bwd[2 * ((size_t) y0 * w + x0) + k], b = bwd[2 * ((size_t) y0 * w + x1) + k];
            float c = bwd[2 * ((size_t) y1 * w + x0) + k], d = bwd[2 * ((size_t) y1 * w + x1) + k];
            float t = a + fx * (b - a), bo = c + fx * (d - c);
            *(k ? &bv : &bu) = t + fy * (bo - t);
          }
          err = sqrtf ((u + bu) * (u + bu) + (v + bv) * (v + bv));
        }
        lk->conf[i] = err <= lk->params.fb_threshold ? err : CC_FLOW_INVALID;
      }
  }
  for (int y = 0; y < h; y++) {
    float *frow = (float *) ((char *) flow->planes[0] + (size_t) y * flow->pitch[0]);
    float *crow = confidence
        ? (float *) ((char *) confidence->planes[0] + (size_t) y * confidence->pitch[0]) : NULL;
    const uint8_t *mrow = mask ? (const uint8_t *) mask->planes[0] + (size_t) y * mask->pitch[0] : NULL;
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      bool off = mrow && mrow[x] == 0;
      frow[2 * x] = off ? 0.0f : fwd[2 * i];
      frow[2 * x + 1] = off ? 0.0f : fwd[2 * i + 1];
      if (crow)
        crow[x] = off ? 0.0f : lk->conf[i];
    }
  }
  return CC_SUCCESS;
}

static void
cpu_free (cc_flow_lk *lk)
{
  for (int s = 0; s < 2; s++)
    for (int l = 0; l < CC_FLOW_LK_LEVELS_MAX; l++) {
      free (lk->pyr[s].level[l]);
      lk->pyr[s].level[l] = NULL;
    }
  free (lk->field_a); free (lk->field_b); free (lk->backward); free (lk->conf);
  free (lk->products); free (lk->average); free (lk->temporal);
  lk->field_a = lk->field_b = lk->backward = lk->conf = NULL;
  lk->products = lk->average = lk->temporal = NULL;
}

static cc_status
cpu_alloc (cc_flow_lk *lk)
{
  size_t n = (size_t) lk->mod.width * lk->mod.height;
  bool ok = true;
  for (int s = 0; s < 2; s++)
    for (int l = 0; l < lk->sizes.levels; l++)
      ok &= (lk->pyr[s].level[l] =
          malloc (sizeof (float) * lk->sizes.width[l] * lk->sizes.height[l])) != NULL;
  ok &= (lk->field_a = malloc (sizeof (float) * 2 * n)) != NULL;
  ok &= (lk->field_b = malloc (sizeof (float) * 2 * n)) != NULL;
  ok &= (lk->backward = malloc (sizeof (float) * 2 * n)) != NULL;
  ok &= (lk->conf = malloc (sizeof (float) * n)) != NULL;
  ok &= (lk->products = malloc (sizeof (float) * 5 * n)) != NULL;
  ok &= (lk->average = malloc (sizeof (float) * n)) != NULL;
  ok &= (lk->temporal = malloc (sizeof (float) * n)) != NULL;
  if (!ok) {
    cpu_free (lk);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
        "flow-lk: out of host memory for %dx%d scratch", lk->mod.width, lk->mod.height);
  }
  return CC_SUCCESS;
}

/* ------------------------------------------------------------------ API */

static cc_status
lk_alloc (cc_module *mod)
{
  cc_flow_lk *lk = (cc_flow_lk *) mod;
  cc_lk_pyramid_sizes_compute (lk->mod.width, lk->mod.height, lk->params.pyramid_levels,
      &lk->sizes);
  if (lk->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_lk_create (lk->mod.ctx, &lk->sizes, true, &lk->cuda));
  return cpu_alloc (lk);
}

static void
lk_free (cc_module *mod)
{
  cc_flow_lk *lk = (cc_flow_lk *) mod;
#if CC_HAVE_CUDA
  if (lk->cuda)
    cc_cuda_lk_destroy (lk->cuda);
#endif
  lk->cuda = NULL;
  cpu_free (lk);
}

/* New scratch when the levels change (the previous frame's pyramid goes with it). */
static cc_status
lk_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_flow_lk *lk = (cc_flow_lk *) mod;
  *realloc = ((const cc_flow_lk_params *) params)->pyramid_levels != lk->params.pyramid_levels;
  if (*realloc)
    lk->has_previous = false;
  return CC_SUCCESS;
}

CC_MODULE_CLASS (flow_lk_class, cc_flow_lk, cc_flow_lk_params, cc_flow_lk,
    lk_params_changing, lk_alloc, lk_free);

cc_status
cc_flow_lk_create (cc_context *ctx, int width, int height,
    const cc_flow_lk_params *params, cc_flow_lk **out)
{
  cc_module *lk = NULL;
  cc_status st = cc_module_create (&flow_lk_class, ctx, width, height, params,
      out ? &lk : NULL);
  if (out)
    *out = (cc_flow_lk *) lk;
  return st;
}

void
cc_flow_lk_destroy (cc_flow_lk *lk)
{
  cc_module_destroy ((cc_module *) lk);
}

cc_status
cc_flow_lk_set_params (cc_flow_lk *lk, const cc_flow_lk_params *params)
{
  CC_CHECK_ARG (lk != NULL, "cc_flow_lk_set_params: lk is NULL");
  return cc_module_set_params (&lk->mod, params);
}

void
cc_flow_lk_get_params (const cc_flow_lk *lk, cc_flow_lk_params *params)
{
  *params = lk->params;
}

cc_status
cc_flow_lk_reset (cc_flow_lk *lk)
{
  CC_CHECK_ARG (lk != NULL, "cc_flow_lk_reset: lk is NULL");
  lk->has_previous = false;
  return CC_SUCCESS;
}

static cc_status
check_frame (const cc_flow_lk *lk, const cc_image *img, const char *what)
{
  return cc_module_check_frame (&lk->mod, img, what, "flow-lk", true);
}

static cc_status
check_outputs (const cc_flow_lk *lk, const cc_image *mask, const cc_image *flow,
    const cc_image *confidence)
{
  CC_TRY (cc_image_check (flow, "flow-lk: flow output"));
  CC_CHECK_ARG (flow->format == CC_FORMAT_F32C2 && flow->width == lk->mod.width
      && flow->height == lk->mod.height, "flow-lk: flow output must be F32C2 %dx%d (is %s %dx%d)",
      lk->mod.width, lk->mod.height, cc_format_name (flow->format), flow->width, flow->height);
  CC_CHECK_ARG (flow->location == CC_LOCATION_HOST || lk->mod.ctx->backend == CC_BACKEND_CUDA,
      "flow-lk: flow output in device memory needs the CUDA backend");
  if (confidence) {
    CC_TRY (cc_image_check (confidence, "flow-lk: confidence output"));
    CC_CHECK_ARG (confidence->format == CC_FORMAT_F32 && confidence->width == lk->mod.width
        && confidence->height == lk->mod.height,
        "flow-lk: confidence output must be F32 %dx%d", lk->mod.width, lk->mod.height);
    CC_CHECK_ARG (confidence->location == CC_LOCATION_HOST
        || lk->mod.ctx->backend == CC_BACKEND_CUDA,
        "flow-lk: confidence output in device memory needs the CUDA backend");
  }
  if (mask) {
    CC_TRY (cc_image_check (mask, "flow-lk: mask"));
    CC_CHECK_ARG (mask->format == CC_FORMAT_GRAY8 && mask->width == lk->mod.width
        && mask->height == lk->mod.height, "flow-lk: mask must be GRAY8 %dx%d",
        lk->mod.width, lk->mod.height);
    CC_CHECK_ARG (mask->location == (lk->mod.ctx->backend == CC_BACKEND_CUDA
            ? CC_LOCATION_DEVICE : CC_LOCATION_HOST),
        "flow-lk: the mask must be in %s memory for the %s backend",
        lk->mod.ctx->backend == CC_BACKEND_CUDA ? "device" : "host",
        cc_backend_name (lk->mod.ctx->backend));
  }
  return CC_SUCCESS;
}

static cc_status
build_pyramid (cc_flow_lk *lk, cc_stream stream, int slot, const cc_image *frame)
{
  if (lk->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_lk_build_pyramid (lk->cuda, stream, slot, frame));
  cpu_build_pyramid (lk, slot, frame);
  return CC_SUCCESS;
}

static cc_status
run_flow (cc_flow_lk *lk, cc_stream stream, int slot_prev, int slot_next,
    const cc_image *mask, cc_image *flow, cc_image *confidence)
{
  if (lk->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_lk_flow (lk->cuda, stream, slot_prev, slot_next, &lk->params,
            mask, flow, confidence));
  return cpu_flow (lk, slot_prev, slot_next, mask, flow, confidence);
}

cc_status
cc_flow_lk_compute (cc_flow_lk *lk, cc_stream stream, const cc_image *prev,
    const cc_image *next, const cc_image *mask, cc_image *flow, cc_image *confidence)
{
  CC_CHECK_ARG (lk != NULL, "cc_flow_lk_compute: lk is NULL");
  stream = cc_stream_resolve (lk->mod.ctx, stream);
  CC_TRY (check_frame (lk, prev, "flow-lk: prev frame"));
  CC_TRY (check_frame (lk, next, "flow-lk: next frame"));
  CC_TRY (check_outputs (lk, mask, flow, confidence));
  CC_TRY (build_pyramid (lk, stream, 0, prev));
  CC_TRY (build_pyramid (lk, stream, 1, next));
  lk->current_slot = 1;
  lk->has_previous = true;
  return run_flow (lk, stream, 0, 1, mask, flow, confidence);
}

cc_status
cc_flow_lk_compute_video (cc_flow_lk *lk, cc_stream stream, const cc_image *frame,
    const cc_image *mask, cc_image *flow, cc_image *confidence, bool *has_previous)
{
  CC_CHECK_ARG (lk != NULL, "cc_flow_lk_compute_video: lk is NULL");
  stream = cc_stream_resolve (lk->mod.ctx, stream);
  CC_TRY (check_frame (lk, frame, "flow-lk: frame"));
  CC_TRY (check_outputs (lk, mask, flow, confidence));
  int slot = lk->has_previous ? 1 - lk->current_slot : lk->current_slot;
  CC_TRY (build_pyramid (lk, stream, slot, frame));
  bool had = lk->has_previous;
  if (has_previous)
    *has_previous = had;
  if (!had) {
    lk->current_slot = slot;
    lk->has_previous = true;
    CC_TRY (cc_image_fill (lk->mod.ctx, stream, flow, 0));
    if (confidence)
      CC_TRY (cc_image_fill (lk->mod.ctx, stream, confidence, 0));
    return CC_SUCCESS;
  }
  cc_status st = run_flow (lk, stream, lk->current_slot, slot, mask, flow, confidence);
  lk->current_slot = slot;
  return st;
}
