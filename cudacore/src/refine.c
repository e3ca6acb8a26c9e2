/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Variational flow refinement: the API, parameter checks, and the CPU reference.
 *
 * The algorithm (identical on both backends except for the SOR visiting order):
 *  1. Pyramids: level 0 is the luma in 0..255; each next level is the 5-tap
 *     binomial blur of the previous one sampled at even pixels (borders
 *     replicated). The initial field gets the same blur-down, halved per level.
 *  2. Coarse to fine. The coarsest level starts from the initial field's own
 *     level; each finer level starts from its initial field plus twice the
 *     bilinear upsampling of the correction found at the coarser level, so the
 *     detail of the initial estimate is kept while large-scale errors are fixed.
 *  3. Per level, frame 2 is warped once by that start field w (bilinear, its 3x3
 *     neighbourhood too, for derivatives): eight data terms per pixel
 *     (refine_hostdev.h); at level 0 both frames' luma is first presmoothed
 *     (presmooth_sigma). Each pixel's local smoothness weight a = exp(-kappa |grad I|)
 *     comes from frame 1's luma there. The increment dw minimises the linearised energy
 *     E(dw) = sum delta Psi(rc) + gamma Psi(rg) + alpha a Psi(|grad(w + dw)|^2)
 *     by `outer` fixed-point iterations: each freezes the Charbonnier weights at
 *     the current dw (a quadratic majorant of E, so E cannot increase) and makes
 *     `inner` SOR sweeps on that quadratic.
 *  4. Both backends sweep in red-black order (red cells, (x + y) even, first):
 *     each cell's four neighbours are of the other colour, so the cells of one
 *     colour are independent. The CPU splits each colour's rows among the
 *     context's threads (the result does not depend on their number); CUDA works
 *     on split red and black arrays (kernels/refine.cu). Tests compare them.
 *  Every other CPU stage is per pixel and split by rows the same way.
 */
#include "refine_internal.h"
#include "refine_hostdev.h"

#include <stdlib.h>
#include <string.h>

void
cc_refine_params_default (cc_refine_params *p)
{
  p->levels = 3;
  p->outer_iterations = 5;
  p->inner_iterations = 30;
  p->omega = 1.6f;
  p->smoothness_weight = 15.0f;
  p->color_weight = 5.0f;
  p->gradient_weight = 10.0f;
  p->smoothness_kappa = 0.0f;
  p->presmooth_sigma = 0.0f;
}

void
cc_refine_tuning_default (cc_refine_tuning *t)
{
  t->precision = CC_REFINE_PRECISION_AUTO;
  t->track_energy = false;
}

cc_status
cc_refine_params_check (const cc_refine_params *p)
{
  CC_CHECK_ARG (p != NULL, "refine: params is NULL");
  CC_CHECK_ARG (p->levels >= CC_REFINE_LEVELS_MIN && p->levels <= CC_REFINE_LEVELS_MAX,
      "refine: levels %d out of range %d..%d", p->levels, CC_REFINE_LEVELS_MIN,
      CC_REFINE_LEVELS_MAX);
  CC_CHECK_ARG (p->outer_iterations >= CC_REFINE_OUTER_MIN
      && p->outer_iterations <= CC_REFINE_OUTER_MAX,
      "refine: outer_iterations %d out of range %d..%d", p->outer_iterations,
      CC_REFINE_OUTER_MIN, CC_REFINE_OUTER_MAX);
  CC_CHECK_ARG (p->inner_iterations >= CC_REFINE_INNER_MIN
      && p->inner_iterations <= CC_REFINE_INNER_MAX,
      "refine: inner_iterations %d out of range %d..%d", p->inner_iterations,
      CC_REFINE_INNER_MIN, CC_REFINE_INNER_MAX);
  CC_CHECK_ARG (p->omega > 0.0f && p->omega < 2.0f,
      "refine: omega %g out of range (0, 2)", p->omega);
  CC_CHECK_ARG (p->smoothness_weight > 0.0f && p->smoothness_weight <= 1e4f,
      "refine: smoothness_weight %g out of range (0, 1e4]", p->smoothness_weight);
  CC_CHECK_ARG (p->color_weight >= 0.0f && p->color_weight <= 1e4f,
      "refine: color_weight %g out of range [0, 1e4]", p->color_weight);
  CC_CHECK_ARG (p->gradient_weight >= 0.0f && p->gradient_weight <= 1e4f,
      "refine: gradient_weight %g out of range [0, 1e4]", p->gradient_weight);
  CC_CHECK_ARG (p->smoothness_kappa >= 0.0f && p->smoothness_kappa <= 100.0f,
      "refine: smoothness_kappa %g out of range [0, 100]", p->smoothness_kappa);
  CC_CHECK_ARG (p->presmooth_sigma >= 0.0f && p->presmooth_sigma <= 3.0f,
      "refine: presmooth_sigma %g out of range [0, 3]", p->presmooth_sigma);
  return CC_SUCCESS;
}

void
cc_refine_sizes_compute (int width, int height, int wanted, cc_refine_sizes *out)
{
  out->levels = cc_pyramid_sizes (width, height, wanted, CC_REFINE_MIN_LEVEL_SIZE, out->width,
      out->height);
}

/* ------------------------------------------------------------ CPU reference */

struct cc_refine {
  cc_module mod;             /* ctx, frame size (first: module.c) */
  cc_refine_params params;
  cc_refine_tuning tuning;   /* cc_tuning.h: defaults unless a bench or test sets it */
  cc_refine_sizes sizes;
  int energy_count;          /* energies recorded by the last run */
  double *energies;          /* host copy (CPU: written directly) */
  /* CPU: per level packed images */
  float *i0[CC_REFINE_LEVELS_MAX], *i1[CC_REFINE_LEVELS_MAX];
  float *init[CC_REFINE_LEVELS_MAX];     /* initial field per level, F32C2 packed */
  float *field[CC_REFINE_LEVELS_MAX];    /* refined field per level */
  float *tmp;                            /* blur scratch, 2 x level-0 size */
  cc_refine_data *data;                  /* data terms, level-0 size */
  float *coef;                           /* a11 a12 a22 b1 b2 per pixel */
  float *smooth;                         /* lagged smoothness weight per pixel */
  float *local;                          /* local smoothness weight per pixel */
  float *du, *dv;
  /* CUDA */
  cc_cuda_refine *cuda;
};

static float
frame_luma255 (const cc_image *f, int x, int y)
{
  const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  return cc_refine_luma255 (row, x, f->format == CC_FORMAT_RGBX8, f->format == CC_FORMAT_BGRX8);
}

/* Binomial (1 4 6 4 1)/16 blur sampled at even pixels, `channels` interleaved. */
static void
blur_down (const float *src, int sw, int sh, float *dst, int dw, int dh, int channels,
    float scale, float *tmp, int threads)
{
  static const float k[5] = { 1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f };
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < dh; y++)
    for (int x = 0; x < sw * channels; x++) {
      float s = 0;
      for (int i = -2; i <= 2; i++)
        s += k[i + 2] * src[cc_clampi (2 * y + i, 0, sh - 1) * sw * channels + x];
      tmp[y * sw * channels + x] = s;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < dh; y++)
    for (int x = 0; x < dw; x++)
      for (int c = 0; c < channels; c++) {
        float s = 0;
        for (int i = -2; i <= 2; i++)
          s += k[i + 2] * tmp[(y * sw + cc_clampi (2 * x + i, 0, sw - 1)) * channels + c];
        dst[(y * dw + x) * channels + c] = scale * s;
      }
}

/* Twice the bilinear upsampling of a coarse field, added to `fine`. */
static void
add_upsampled (const float *coarse, int cw, int ch, float *fine, int fw, int fh, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < fh; y++)
    for (int x = 0; x < fw; x++) {
      cc_bilinear_taps t = cc_upsample2_taps (x, y, cw, ch);
      for (int k = 0; k < 2; k++)
        fine[2 * (y * fw + x) + k] += cc_upsample2 (&t, coarse[2 * (t.y0 * cw + t.x0) + k],
            coarse[2 * (t.y0 * cw + t.x1) + k], coarse[2 * (t.y1 * cw + t.x0) + k],
            coarse[2 * (t.y1 * cw + t.x1) + k]);
    }
}

/* Both frames' level 0 presmoothed in place (refine_hostdev.h), `tmp` 2 x level 0. */
static void
presmooth_level0 (float *i0, float *i1, int w, int h, float sigma, float *tmp, int threads)
{
  float k[2 * CC_REFINE_PRESMOOTH_RADIUS + 1];
  int rad = cc_refine_presmooth_taps (sigma, k);
  if (rad == 0)
    return;
  size_t n = (size_t) w * h;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      tmp[(size_t) y * w + x] = cc_refine_presmooth_at (i0, w, h, x, y, k, rad);
      tmp[n + (size_t) y * w + x] = cc_refine_presmooth_at (i1, w, h, x, y, k, rad);
    }
  memcpy (i0, tmp, n * sizeof (float));
  memcpy (i1, tmp + n, n * sizeof (float));
}

/* Eight data terms per pixel, frame 2 warped by `w`, and the local smoothness weights
 * (from the same neighbourhood of frame 1). */
static void
cpu_data_terms (const float *i0, const float *i1, int w, int h, const float *field,
    float kappa, cc_refine_data *data, float *local, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      float qx = x + field[2 * i], qy = y + field[2 * i + 1];
      float n0[3][3], n1[3][3];
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          n0[dy + 1][dx + 1] = i0[cc_clampi (y + dy, 0, h - 1) * w + cc_clampi (x + dx, 0, w - 1)];
          n1[dy + 1][dx + 1] = cc_bilinear (i1, w, h, qx + dx, qy + dy);
        }
      int valid = cc_inside (qx, qy, w, h);
      cc_refine_data_terms (n0, n1, valid, &data[i]);
      local[i] = cc_refine_local_weight (n0, kappa);
    }
}

/* |grad (w + dw)|^2 by forward differences (zero across the last row / column). */
static float
grad2_at (const float *field, const float *du, const float *dv, int w, int h, int x, int y)
{
  size_t i = (size_t) y * w + x;
  float u = field[2 * i] + du[i], v = field[2 * i + 1] + dv[i];
  float g = 0.0f;
  if (x + 1 < w) {
    float ux = field[2 * (i + 1)] + du[i + 1] - u, vx = field[2 * (i + 1) + 1] + dv[i + 1] - v;
    g += ux * ux + vx * vx;
  }
  if (y + 1 < h) {
    float uy = field[2 * (i + w)] + du[i + w] - u, vy = field[2 * (i + w) + 1] + dv[i + w] - v;
    g += uy * uy + vy * vy;
  }
  return g;
}

static double
cpu_energy (const cc_refine *r, const float *field, int w, int h)
{
  const cc_refine_params *p = &r->params;
  double e = 0.0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      e += cc_refine_data_energy (&r->data[i], r->du[i], r->dv[i], p->color_weight,
          p->gradient_weight);
      e += cc_refine_smooth_energy (grad2_at (field, r->du, r->dv, w, h, x, y),
          p->smoothness_weight, r->local[i]);
    }
  return e;
}

/* Refines `field` (w x h, F32C2 packed) in place. */
static void
cpu_refine_level (cc_refine *r, int level, float *field)
{
  const cc_refine_params *p = &r->params;
  int w = r->sizes.width[level], h = r->sizes.height[level];
  size_t n = (size_t) w * h;
  float *du = r->du, *dv = r->dv, *s = r->smooth, *c = r->coef;
  const float omega = p->omega;
  const int nt = cc_context_cpu_threads (r->mod.ctx);
  if (cc_cancel_requested (r->mod.ctx))
    return;   /* cpu_run reports it */
  cpu_data_terms (r->i0[level], r->i1[level], w, h, field, p->smoothness_kappa, r->data,
      r->local, nt);
  memset (du, 0, n * sizeof (float));
  memset (dv, 0, n * sizeof (float));
  if (r->tuning.track_energy)
    r->energies[r->energy_count++] = cpu_energy (r, field, w, h);
  for (int outer = 0; outer < p->outer_iterations; outer++) {
    if (cc_cancel_requested (r->mod.ctx))
      break;   /* cpu_run reports it */
    /* freeze the Charbonnier weights at the current increment */
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        size_t i = (size_t) y * w + x;
        s[i] = cc_refine_smooth_weight (grad2_at (field, du, dv, w, h, x, y),
            p->smoothness_weight, r->local[i]);
      }
    /* per pixel: 1 / diag_u, 1 / diag_v, a12, rhs_u, rhs_v, with the start field's
     * smoothness term folded into the right-hand side (as the CUDA kernels) */
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        size_t i = (size_t) y * w + x;
        float a11, a12, a22, b1, b2;
        cc_refine_data_system (&r->data[i], du[i], dv[i], p->color_weight,
            p->gradient_weight, &a11, &a12, &a22, &b1, &b2);
        /* edge weights: the forward edges carry the pixel's own weight */
        const int exists[4] = { x > 0, x + 1 < w, y > 0, y + 1 < h };
        const long off[4] = { -1, 1, -(long) w, (long) w };
        const float wgt[4] = { x > 0 ? s[i - 1] : 0.0f, s[i], y > 0 ? s[i - w] : 0.0f, s[i] };
        float sum_w = 0.0f;
        for (int k = 0; k < 4; k++)
          if (exists[k]) {
            size_t q = i + off[k];
            sum_w += wgt[k];
            b1 += wgt[k] * (field[2 * q] - field[2 * i]);
            b2 += wgt[k] * (field[2 * q + 1] - field[2 * i + 1]);
          }
        c[5 * i] = cc_refine_inverse_diag (a11 + sum_w);
        c[5 * i + 1] = cc_refine_inverse_diag (a22 + sum_w);
        c[5 * i + 2] = a12;
        c[5 * i + 3] = b1;
        c[5 * i + 4] = b2;
      }
    /* red-black SOR: one team for all sweeps, a barrier after each colour */
#pragma omp parallel num_threads(nt)
    for (int inner = 0; inner < p->inner_iterations; inner++)
      for (int colour = 0; colour < 2; colour++) {
#pragma omp for schedule(static)
        for (int y = 0; y < h; y++) {
          if (cc_cancel_requested (r->mod.ctx))
            continue;   /* cpu_run reports it */
          bool edge_row = y == 0 || y + 1 == h;
          for (int x = (y + colour) & 1; x < w; x += 2) {
            size_t i = (size_t) y * w + x;
            float nbr_du, nbr_dv;
            if (!edge_row && x > 0 && x + 1 < w) {   /* interior: all four neighbours */
              float wl = s[i - 1], wu = s[i - w], ws = s[i];
              nbr_du = wl * du[i - 1] + ws * du[i + 1] + wu * du[i - w] + ws * du[i + w];
              nbr_dv = wl * dv[i - 1] + ws * dv[i + 1] + wu * dv[i - w] + ws * dv[i + w];
            } else {
              nbr_du = nbr_dv = 0.0f;
              if (x > 0) { nbr_du += s[i - 1] * du[i - 1]; nbr_dv += s[i - 1] * dv[i - 1]; }
              if (x + 1 < w) { nbr_du += s[i] * du[i + 1]; nbr_dv += s[i] * dv[i + 1]; }
              if (y > 0) { nbr_du += s[i - w] * du[i - w]; nbr_dv += s[i - w] * dv[i - w]; }
              if (y + 1 < h) { nbr_du += s[i] * du[i + w]; nbr_dv += s[i] * dv[i + w]; }
            }
            cc_refine_sor_step (c[5 * i], c[5 * i + 1], c[5 * i + 2], c[5 * i + 3],
                c[5 * i + 4], nbr_du, nbr_dv, omega, &du[i], &dv[i]);
          }
        }
      }
    if (r->tuning.track_energy)
      r->energies[r->energy_count++] = cpu_energy (r, field, w, h);
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (size_t i = 0; i < n; i++) {
    field[2 * i] += du[i];
    field[2 * i + 1] += dv[i];
  }
}

static cc_status
cpu_run (cc_refine *r, const cc_image *prev, const cc_image *next, const cc_image *flow_in,
    cc_image *flow_out)
{
  const cc_refine_sizes *s = &r->sizes;
  int w = r->mod.width, h = r->mod.height;
  const int nt = cc_context_cpu_threads (r->mod.ctx);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int y = 0; y < h; y++) {
    if (cc_cancel_requested (r->mod.ctx))
      continue;   /* reported after the levels */
    const float *row = (const float *) ((const char *) flow_in->planes[0]
        + (size_t) y * flow_in->pitch[0]);
    for (int x = 0; x < w; x++) {
      r->i0[0][y * w + x] = frame_luma255 (prev, x, y);
      r->i1[0][y * w + x] = frame_luma255 (next, x, y);
      r->init[0][2 * (y * w + x)] = row[2 * x];
      r->init[0][2 * (y * w + x) + 1] = row[2 * x + 1];
    }
  }
  for (int l = 1; l < s->levels; l++) {
    int pw = s->width[l - 1], ph = s->height[l - 1];
    blur_down (r->i0[l - 1], pw, ph, r->i0[l], s->width[l], s->height[l], 1, 1.0f, r->tmp, nt);
    blur_down (r->i1[l - 1], pw, ph, r->i1[l], s->width[l], s->height[l], 1, 1.0f, r->tmp, nt);
    blur_down (r->init[l - 1], pw, ph, r->init[l], s->width[l], s->height[l], 2, 0.5f, r->tmp,
        nt);
  }
  /* after the pyramid, which is built from the unsmoothed luma */
  presmooth_level0 (r->i0[0], r->i1[0], w, h, r->params.presmooth_sigma, r->tmp, nt);
  r->energy_count = 0;
  for (int l = s->levels - 1; l >= 0; l--) {
    size_t n = (size_t) s->width[l] * s->height[l];
    memcpy (r->field[l], r->init[l], 2 * n * sizeof (float));
    if (l + 1 < s->levels) {
      /* the coarser level's correction (refined - initial), upsampled */
      size_t cn = (size_t) s->width[l + 1] * s->height[l + 1];
      for (size_t i = 0; i < 2 * cn; i++)
        r->field[l + 1][i] -= r->init[l + 1][i];
      add_upsampled (r->field[l + 1], s->width[l + 1], s->height[l + 1], r->field[l],
          s->width[l], s->height[l], nt);
    }
    cpu_refine_level (r, l, r->field[l]);
    if (cc_cancel_requested (r->mod.ctx))
      return cc_cancelled_error ("cc_refine_compute");
  }
  for (int y = 0; y < h; y++) {
    float *row = (float *) ((char *) flow_out->planes[0] + (size_t) y * flow_out->pitch[0]);
    memcpy (row, r->field[0] + 2 * (size_t) y * w, 2 * w * sizeof (float));
  }
  return CC_SUCCESS;
}

static void
cpu_free (cc_refine *r)
{
  for (int l = 0; l < CC_REFINE_LEVELS_MAX; l++) {
    free (r->i0[l]); free (r->i1[l]); free (r->init[l]); free (r->field[l]);
    r->i0[l] = r->i1[l] = r->init[l] = r->field[l] = NULL;
  }
  free (r->tmp); free (r->data); free (r->coef); free (r->smooth); free (r->local); free (r->du);
  free (r->dv);
  r->tmp = r->coef = r->smooth = r->local = r->du = r->dv = NULL;
  r->data = NULL;
}

static cc_status
cpu_alloc (cc_refine *r)
{
  size_t n = (size_t) r->mod.width * r->mod.height;
  bool ok = true;
  for (int l = 0; l < r->sizes.levels; l++) {
    size_t ln = (size_t) r->sizes.width[l] * r->sizes.height[l];
    ok &= (r->i0[l] = malloc (ln * sizeof (float))) != NULL;
    ok &= (r->i1[l] = malloc (ln * sizeof (float))) != NULL;
    ok &= (r->init[l] = malloc (2 * ln * sizeof (float))) != NULL;
    ok &= (r->field[l] = malloc (2 * ln * sizeof (float))) != NULL;
  }
  ok &= (r->tmp = malloc (2 * n * sizeof (float))) != NULL;
  ok &= (r->data = malloc (n * sizeof (cc_refine_data))) != NULL;
  ok &= (r->coef = malloc (5 * n * sizeof (float))) != NULL;
  ok &= (r->smooth = malloc (n * sizeof (float))) != NULL;
  ok &= (r->local = malloc (n * sizeof (float))) != NULL;
  ok &= (r->du = malloc (n * sizeof (float))) != NULL;
  ok &= (r->dv = malloc (n * sizeof (float))) != NULL;
  if (!ok) {
    cpu_free (r);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
        "refine: out of host memory for %dx%d scratch", r->mod.width, r->mod.height);
  }
  return CC_SUCCESS;
}

/* ------------------------------------------------------------------ API */

static int
energy_capacity (const cc_refine *r)
{
  return r->sizes.levels * (r->params.outer_iterations + 1);
}

static cc_status
refine_alloc (cc_module *mod)
{
  cc_refine *r = (cc_refine *) mod;
  cc_refine_sizes_compute (r->mod.width, r->mod.height, r->params.levels, &r->sizes);
  r->energies = calloc ((size_t) CC_REFINE_LEVELS_MAX * (CC_REFINE_OUTER_MAX + 1),
      sizeof (double));
  if (!r->energies)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "refine: out of host memory");
  if (r->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_refine_create (r->mod.ctx, &r->sizes, CC_REFINE_OUTER_MAX,
            &r->cuda));
  return cpu_alloc (r);
}

static void
refine_free (cc_module *mod)
{
  cc_refine *r = (cc_refine *) mod;
#if CC_HAVE_CUDA
  if (r->cuda)
    cc_cuda_refine_destroy (r->cuda);
#endif
  r->cuda = NULL;
  cpu_free (r);
  free (r->energies);
  r->energies = NULL;
  r->energy_count = 0;
}

/* New params drop the last run's energies; new scratch when the levels change. */
static cc_status
refine_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_refine *r = (cc_refine *) mod;
  r->energy_count = 0;
  *realloc = ((const cc_refine_params *) params)->levels != r->params.levels;
  return CC_SUCCESS;
}

CC_MODULE_CLASS (refine_class, cc_refine, cc_refine_params, cc_refine, refine_params_changing,
    refine_alloc, refine_free);

cc_status
cc_refine_create (cc_context *ctx, int width, int height, const cc_refine_params *params,
    cc_refine **out)
{
  cc_module *r = NULL;
  cc_status st = cc_module_create (&refine_class, ctx, width, height, params, out ? &r : NULL);
  if (st == CC_SUCCESS)
    cc_refine_tuning_default (&((cc_refine *) r)->tuning);
  if (out)
    *out = (cc_refine *) r;
  return st;
}

void
cc_refine_destroy (cc_refine *r)
{
  cc_module_destroy ((cc_module *) r);
}

cc_status
cc_refine_set_tuning (cc_refine *r, const cc_refine_tuning *t)
{
  CC_CHECK_ARG (r != NULL && t != NULL, "cc_refine_set_tuning: refine or tuning is NULL");
  CC_CHECK_ARG (t->precision == CC_REFINE_PRECISION_AUTO
      || t->precision == CC_REFINE_PRECISION_FP32,
      "refine: precision %d is not a cc_refine_precision", (int) t->precision);
  r->tuning = *t;
  return CC_SUCCESS;
}

cc_status
cc_refine_set_params (cc_refine *r, const cc_refine_params *params)
{
  CC_CHECK_ARG (r != NULL, "cc_refine_set_params: refine is NULL");
  return cc_module_set_params (&r->mod, params);
}

void
cc_refine_get_params (const cc_refine *r, cc_refine_params *params)
{
  *params = r->params;
}

static cc_status
check_frame (const cc_refine *r, const cc_image *img, const char *what)
{
  return cc_module_check_frame (&r->mod, img, what, "refine", true);
}

static cc_status
check_field (const cc_refine *r, const cc_image *img, const char *what)
{
  CC_CHECK_ARG (img != NULL, "%s is NULL", what);
  CC_TRY (cc_image_check (img, what));
  CC_CHECK_ARG (img->format == CC_FORMAT_F32C2 && img->width == r->mod.width
      && img->height == r->mod.height, "%s must be F32C2 %dx%d (is %s %dx%d)", what,
      r->mod.width, r->mod.height, cc_format_name (img->format), img->width, img->height);
  CC_CHECK_ARG (img->location == CC_LOCATION_HOST || r->mod.ctx->backend == CC_BACKEND_CUDA,
      "%s: device memory needs the CUDA backend", what);
  return CC_SUCCESS;
}

cc_status
cc_refine_compute (cc_refine *r, cc_stream stream, const cc_image *prev,
    const cc_image *next, const cc_image *flow_in, cc_image *flow_out)
{
  CC_CHECK_ARG (r != NULL, "cc_refine_compute: refine is NULL");
  stream = cc_stream_resolve (r->mod.ctx, stream);
  CC_TRY (check_frame (r, prev, "refine: prev frame"));
  CC_TRY (check_frame (r, next, "refine: next frame"));
  CC_TRY (check_field (r, flow_in, "refine: flow_in"));
  CC_TRY (check_field (r, flow_out, "refine: flow_out"));
  r->energy_count = 0;
  if (r->mod.ctx->backend == CC_BACKEND_CUDA) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_refine_compute (r->cuda, stream, &r->params, &r->tuning, prev,
            next, flow_in, flow_out)));
    if (r->tuning.track_energy)
      r->energy_count = energy_capacity (r);
    return CC_SUCCESS;
  }
  return cpu_run (r, prev, next, flow_in, flow_out);
}

int
cc_refine_energies (cc_refine *r, double *energies, int max, int *levels_run)
{
  if (!r)
    return 0;
  if (levels_run)
    *levels_run = r->sizes.levels;
  int n = r->energy_count;
  if (n > 0 && energies && max > 0) {
    int k = n < max ? n : max;
#if CC_HAVE_CUDA
    if (r->cuda && cc_cuda_refine_energies (r->cuda, r->energies, n) != CC_SUCCESS)
      return 0;
#endif
    memcpy (energies, r->energies, (size_t) k * sizeof (double));
  }
  return n;
}
