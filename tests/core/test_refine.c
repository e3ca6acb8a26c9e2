/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Variational refinement: the energy decreases at every outer iteration, a
 * perturbed field is pulled back to the truth, parameter errors are named, odd
 * sizes are safe, CUDA and CPU (both red-black SOR, CUDA in fp16 by default) reach
 * the same field, the CPU gives the same bits on any number of threads, and on the Middlebury pairs refinement lowers the EPE of LK and of
 * block matching on every sequence. */
#include "cv_test.h"
#include "cc_tuning.h"   /* cudacore/src: the sweep precision */
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_blockmatch.h>
#include <cudacore/cc_flow_io.h>
#include <cudacore/cc_flow_lk.h>
#include <cudacore/cc_refine.h>

#include <math.h>
#include <string.h>

/* Refines a host initial field on a backend `runs` times with one refiner (on CUDA
 * with device images the later runs replay a captured graph); the results in out[0..
 * runs-1] (host, packed). With count, the runs record their energies
 * (cc_refine_tuning.track_energy): energies (may be NULL) gets up to max values of the
 * last run, *count how many. */
/* The sweep precision the runs below set (cc_tuning.h; CUDA only). */
static cc_refine_precision run_precision = CC_REFINE_PRECISION_AUTO;

static void
refine_runs_threads (cc_backend backend, int threads, const cc_refine_params *p,
    const cc_image *a, const cc_image *b, const cc_image *init, cc_image *out, int runs,
    double *energies, int max, int *count)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  cc_refine *rf;
  CC_ASSERT_OK (cc_refine_create (ctx, a->width, a->height, p, &rf));
  cc_refine_tuning t = { .precision = run_precision, .track_energy = count != NULL };
  CC_ASSERT_OK (cc_refine_set_tuning (rf, &t));
  cc_image da, db, di, dout;
  CC_ASSERT_OK (cv_test_to_backend (ctx, a, &da));
  CC_ASSERT_OK (cv_test_to_backend (ctx, b, &db));
  CC_ASSERT_OK (cv_test_to_backend (ctx, init, &di));
  CC_ASSERT_OK (cv_test_to_backend (ctx, init, &dout));
  for (int run = 0; run < runs; run++) {
    CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dout, 0xFF));   /* poison: every pixel written */
    CC_ASSERT_OK (cc_refine_compute (rf, NULL, &da, &db, &di, &dout));
    CC_ASSERT_OK (cv_test_to_host (ctx, &dout, &out[run]));
  }
  if (count)
    *count = cc_refine_energies (rf, energies, max, NULL);
  cc_image_free (ctx, &da);
  cc_image_free (ctx, &db);
  cc_image_free (ctx, &di);
  cc_image_free (ctx, &dout);
  cc_refine_destroy (rf);
  cc_context_destroy (ctx);
}

/* As refine_runs_threads with the context's default (all cores). */
static void
refine_runs (cc_backend backend, const cc_refine_params *p, const cc_image *a,
    const cc_image *b, const cc_image *init, cc_image *out, int runs, double *energies,
    int max, int *count)
{
  refine_runs_threads (backend, 0, p, a, b, init, out, runs, energies, max, count);
}

/* One run: the result in *out. */
static void
refine_pair (cc_backend backend, const cc_refine_params *p, const cc_image *a,
    const cc_image *b, const cc_image *init, cc_image *out, double *energies, int max,
    int *count)
{
  refine_runs (backend, p, a, b, init, out, 1, energies, max, count);
}

/* truth + a smooth perturbation of amplitude `amp` px. */
static cc_image
perturbed (const cc_image *truth, float amp)
{
  cc_image f;
  cv_image_new (truth->width, truth->height, CC_FORMAT_F32C2, &f);
  for (int y = 0; y < truth->height; y++)
    for (int x = 0; x < truth->width; x++) {
      const float *t = (const float *) truth->planes[0] + 2 * (y * truth->width + x);
      float *o = (float *) f.planes[0] + 2 * (y * truth->width + x);
      o[0] = t[0] + amp * sinf (0.05f * x + 0.3f) * cosf (0.07f * y);
      o[1] = t[1] + amp * cosf (0.04f * x) * sinf (0.06f * y + 1.0f);
    }
  return f;
}

/* A synthetic clip pair (frames k, k + 1 of w x h), its ground truth and a start field
 * perturbed by amp px. */
typedef struct {
  cc_image f0, f1, gt, init;
} clip_case;

static clip_case
clip_case_new (int k, int w, int h, float amp)
{
  clip_case c;
  CC_ASSERT_OK (cv_synth_clip_frame (k, w, h, &c.f0, &c.gt));
  CC_ASSERT_OK (cv_synth_clip_frame (k + 1, w, h, &c.f1, NULL));
  c.init = perturbed (&c.gt, amp);
  return c;
}

static void
clip_case_free (clip_case *c)
{
  cv_image_free (&c->f0); cv_image_free (&c->f1); cv_image_free (&c->gt);
  cv_image_free (&c->init);
}

/* A clip case refined on CUDA (device images) with the given sweep precision. */
static void
clip_case_cuda (const clip_case *c, const cc_refine_params *p, cc_refine_precision precision,
    cc_image *out)
{
  run_precision = precision;
  refine_pair (CC_BACKEND_CUDA, p, &c->f0, &c->f1, &c->init, out, NULL, 0, NULL);
  run_precision = CC_REFINE_PRECISION_AUTO;
}

/* Each outer iteration minimises a quadratic majorant of the level's energy, so
 * the energy never increases (up to float rounding of the sums). */
START_TEST (test_energy_decreases)
{
  const int w = 192, h = 128;
  clip_case cc = clip_case_new (3, w, h, 0.6f);
  cc_refine_params p;
  cc_refine_params_default (&p);
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    double e[64];
    int n = 0;
    cc_image out;
    refine_pair (cv_test_backend (bk), &p, &cc.f0, &cc.f1, &cc.init, &out, e, 64, &n);
    int per_level = p.outer_iterations + 1;
    ck_assert_int_eq (n % per_level, 0);
    ck_assert_int_ge (n / per_level, 2);
    for (int l = 0; l < n / per_level; l++) {
      printf ("%s level %d energy:", cc_backend_name (cv_test_backend (bk)), n / per_level - 1 - l);
      for (int k = 0; k < per_level; k++)
        printf (" %.1f", e[l * per_level + k]);
      printf ("\n");
      for (int k = 1; k < per_level; k++) {
        double prev = e[l * per_level + k - 1], cur = e[l * per_level + k];
        ck_assert_msg (cur <= prev * (1 + 1e-6), "%s: level %d outer %d: energy %.3f > %.3f",
            cc_backend_name (cv_test_backend (bk)), l, k, cur, prev);
      }
      ck_assert_msg (e[l * per_level + per_level - 1] < e[l * per_level],
          "energy did not decrease over a level");
    }
    cv_image_free (&out);
  }
  clip_case_free (&cc);
}
END_TEST

/* A smoothly perturbed field and a constant offset are pulled back to the truth. */
START_TEST (test_pulls_back_to_truth)
{
  const int w = 160, h = 120;
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (w, h, 1.25, -0.75, 9, &a, &b));
  cc_image gt = cv_test_constant_field (w, h, 1.25f, -0.75f);
  cc_image inits[2] = { perturbed (&gt, 0.5f), cv_test_constant_field (w, h, 0.5f, 0.0f) };
  cc_refine_params p;
  cc_refine_params_default (&p);
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int i = 0; i < 2; i++) {
      cc_image out;
      refine_pair (cv_test_backend (bk), &p, &a, &b, &inits[i], &out, NULL, 0, NULL);
      cc_flow_metrics before, after;
      CC_ASSERT_OK (cc_flow_compare (&inits[i], &gt, 8, &before));
      CC_ASSERT_OK (cc_flow_compare (&out, &gt, 8, &after));
      printf ("translation on %s, init %d: EPE %.4f -> %.4f\n",
          cc_backend_name (cv_test_backend (bk)), i, before.epe, after.epe);
      /* the 1 px offset is linearised once per level: a little is left over */
      double bound = i == 0 ? 0.05 : 0.1;
      ck_assert_msg (after.epe < bound, "refined EPE %.4f (from %.4f) >= %.2f", after.epe,
          before.epe, bound);
      cv_image_free (&out);
    }
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&gt);
  cv_image_free (&inits[0]); cv_image_free (&inits[1]);
}
END_TEST

START_TEST (test_invalid_parameters)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  /* kappa and sigma: 0 (valid) unless a row sets them */
  struct { const char *field; int levels, outer, inner; float omega, alpha, delta, gamma, kappa,
      sigma; } bad[] = {
    { "levels", 0, 5, 30, 1.6f, 10, 5, 10 }, { "levels", 7, 5, 30, 1.6f, 10, 5, 10 },
    { "outer_iterations", 3, 0, 30, 1.6f, 10, 5, 10 },
    { "outer_iterations", 3, 51, 30, 1.6f, 10, 5, 10 },
    { "inner_iterations", 3, 5, 0, 1.6f, 10, 5, 10 },
    { "inner_iterations", 3, 5, 501, 1.6f, 10, 5, 10 },
    { "omega", 3, 5, 30, 0.0f, 10, 5, 10 }, { "omega", 3, 5, 30, 2.0f, 10, 5, 10 },
    { "smoothness_weight", 3, 5, 30, 1.6f, 0, 5, 10 },
    { "color_weight", 3, 5, 30, 1.6f, 10, -1, 10 },
    { "gradient_weight", 3, 5, 30, 1.6f, 10, 5, -1 },
    { "smoothness_kappa", 3, 5, 30, 1.6f, 10, 5, 10, -1.0f, 0.0f },
    { "smoothness_kappa", 3, 5, 30, 1.6f, 10, 5, 10, 101.0f, 0.0f },
    { "presmooth_sigma", 3, 5, 30, 1.6f, 10, 5, 10, 0.0f, -0.5f },
    { "presmooth_sigma", 3, 5, 30, 1.6f, 10, 5, 10, 0.0f, 3.5f },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cc_refine_params p;
    cc_refine_params_default (&p);
    p.levels = bad[i].levels;
    p.outer_iterations = bad[i].outer;
    p.inner_iterations = bad[i].inner;
    p.omega = bad[i].omega;
    p.smoothness_weight = bad[i].alpha;
    p.color_weight = bad[i].delta;
    p.gradient_weight = bad[i].gamma;
    p.smoothness_kappa = bad[i].kappa;
    p.presmooth_sigma = bad[i].sigma;
    cc_refine *rf = NULL;
    ck_assert_int_eq (cc_refine_create (ctx, 64, 64, &p, &rf), CC_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null (rf);
    ck_assert_msg (strstr (cc_last_error (), bad[i].field) != NULL,
        "message '%s' does not name %s", cc_last_error (), bad[i].field);
  }
  cc_refine *rf;
  CC_ASSERT_OK (cc_refine_create (ctx, 64, 48, NULL, &rf));
  cc_refine_tuning q = { .precision = (cc_refine_precision) 7 };
  ck_assert_int_eq (cc_refine_set_tuning (rf, &q), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "precision"));
  cc_image a, b, f, small;
  CC_ASSERT_OK (cv_synth_translation (64, 48, 1, 1, 1, &a, &b));
  cv_image_new (64, 48, CC_FORMAT_F32C2, &f);
  cv_image_new (32, 48, CC_FORMAT_F32C2, &small);
  ck_assert_int_eq (cc_refine_compute (rf, NULL, &a, &b, &small, &f), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "flow_in"));
  ck_assert_int_eq (cc_refine_compute (rf, NULL, &a, &b, &f, &small), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "flow_out"));
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&f); cv_image_free (&small);
  cc_refine_destroy (rf);
  cc_context_destroy (ctx);
}
END_TEST

/* set_params: other levels re-allocate and give what a new handle with those params
 * gives; any change drops the last run's energies; bad params leave the handle as it
 * was; NULL is refused. */
START_TEST (test_set_params)
{
  const int w = 128, h = 96;   /* 3 levels of at least 32 x 24 */
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (w, h, 0.75, 0.5, 4, &a, &b));
  cc_image init = cv_test_constant_field (w, h, 0.5f, 0.25f), out, fresh;   /* fresh: refine_pair's */
  cv_image_new (w, h, CC_FORMAT_F32C2, &out);
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_refine_params p;
  cc_refine_params_default (&p);
  cc_refine *rf;
  CC_ASSERT_OK (cc_refine_create (ctx, w, h, &p, &rf));
  cc_refine_tuning track;
  cc_refine_tuning_default (&track);
  track.track_energy = true;
  CC_ASSERT_OK (cc_refine_set_tuning (rf, &track));
  CC_ASSERT_OK (cc_refine_compute (rf, NULL, &a, &b, &init, &out));
  int levels = 0;
  ck_assert_int_eq (cc_refine_energies (rf, NULL, 0, &levels), 3 * (p.outer_iterations + 1));
  ck_assert_int_eq (levels, 3);
  p.inner_iterations = 20;   /* same levels: no re-allocation, the energies go */
  CC_ASSERT_OK (cc_refine_set_params (rf, &p));
  ck_assert_int_eq (cc_refine_energies (rf, NULL, 0, NULL), 0);
  p.levels = 2;
  CC_ASSERT_OK (cc_refine_set_params (rf, &p));
  CC_ASSERT_OK (cc_refine_compute (rf, NULL, &a, &b, &init, &out));
  ck_assert_int_eq (cc_refine_energies (rf, NULL, 0, &levels), 2 * (p.outer_iterations + 1));
  ck_assert_int_eq (levels, 2);
  refine_pair (CC_BACKEND_CPU, &p, &a, &b, &init, &fresh, NULL, 0, NULL);
  ck_assert_int_eq (memcmp (out.planes[0], fresh.planes[0], (size_t) w * h * 8), 0);
  cc_refine_params bad = p;
  bad.levels = 0;
  ck_assert_int_eq (cc_refine_set_params (rf, &bad), CC_ERROR_INVALID_ARGUMENT);
  cc_refine_get_params (rf, &bad);
  ck_assert_int_eq (bad.levels, 2);
  ck_assert_int_eq (cc_refine_set_params (NULL, &p), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "cc_refine_set_params"));
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&init); cv_image_free (&out);
  cv_image_free (&fresh);
  cc_refine_destroy (rf);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_odd_and_tiny_sizes)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 7, 5 }, { 33, 17 }, { 65, 47 } };
  cc_refine_params p;
  cc_refine_params_default (&p);
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int s = 0; s < 5; s++) {
      cc_image a, b, out;
      CC_ASSERT_OK (cv_synth_translation (sizes[s][0], sizes[s][1], 0.5, -0.5, 3, &a, &b));
      cc_image init = cv_test_constant_field (sizes[s][0], sizes[s][1], 0.25f, 0.0f);
      double e[64];
      int n;
      refine_pair (cv_test_backend (bk), &p, &a, &b, &init, &out, e, 64, &n);
      cv_test_assert_finite (&out, "refined flow");
      for (int i = 0; i < n; i++)
        ck_assert_msg (isfinite (e[i]), "energy %d not finite", i);
      cv_image_free (&a); cv_image_free (&b); cv_image_free (&out); cv_image_free (&init);
    }
}
END_TEST

/* The CPU path gives the same bits on 1 and 4 threads (red-black sweeps: the cells
 * of one colour are independent; 4 > the cores of a small machine), energies included,
 * on an odd size. */
START_TEST (test_cpu_threads_bit_exact)
{
  cc_refine_params p;
  cc_refine_params_default (&p);
  clip_case c = clip_case_new (2, 321, 239, 1.5f);
  cc_image out[2];
  double e[2][64];
  int n[2];
  const int threads[2] = { 1, 4 };
  for (int t = 0; t < 2; t++)
    refine_runs_threads (CC_BACKEND_CPU, threads[t], &p, &c.f0, &c.f1, &c.init, &out[t], 1,
        e[t], 64, &n[t]);
  cv_test_assert_same_bits (&out[0], &out[1], "refined flow, 1 vs 4 threads");
  ck_assert_int_eq (n[0], n[1]);
  ck_assert_int_gt (n[0], 0);
  ck_assert_msg (memcmp (e[0], e[1], n[0] * sizeof (double)) == 0, "energies differ");
  cv_image_free (&out[0]);
  cv_image_free (&out[1]);
  clip_case_free (&c);
}
END_TEST

/* In place (flow_in == flow_out) gives the same field as separate images. */
START_TEST (test_in_place)
{
  const int w = 96, h = 64;
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (w, h, 0.75, 0.5, 4, &a, &b));
  cc_image field = cv_test_constant_field (w, h, 0.5f, 0.25f), copy = cv_test_constant_field (w, h, 0.5f, 0.25f);
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_refine *rf;
  CC_ASSERT_OK (cc_refine_create (ctx, w, h, NULL, &rf));
  cc_image out;
  cv_image_new (w, h, CC_FORMAT_F32C2, &out);
  CC_ASSERT_OK (cc_refine_compute (rf, NULL, &a, &b, &copy, &out));
  CC_ASSERT_OK (cc_refine_compute (rf, NULL, &a, &b, &field, &field));
  ck_assert_int_eq (memcmp (out.planes[0], field.planes[0], (size_t) w * h * 8), 0);
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&field); cv_image_free (&copy);
  cv_image_free (&out);
  cc_refine_destroy (rf);
  cc_context_destroy (ctx);
}
END_TEST

/* CUDA and CPU (red-black SOR on both) reach the same field: mean difference <= 0.02
 * px, on a clip pair with occlusions, from a perturbed start. Both CUDA sweep
 * precisions: the default fp16 register tiles (rf_sor_h2_kernel) and the fp32 ones
 * (CC_REFINE_PRECISION_FP32, rf_sor_regs_kernel), which differ by <= 0.005 px. Two
 * energies: the module's defaults, and the presets' EpicFlow energy (a local
 * smoothness weight, kappa 5; level 0 presmoothed, sigma 0.8; no brightness
 * constancy), which runs rf_presmooth_kernel and the per-cell local weights. */
START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("refine gpu_matches_cpu");
  const int w = 321, h = 181;
  clip_case cc = clip_case_new (5, w, h, 0.5f);
  static const char *energies[2] = { "module defaults", "kappa 5, presmooth 0.8, delta 0" };
  for (int energy = 0; energy < 2; energy++) {
    cc_refine_params p;
    cc_refine_params_default (&p);
    if (energy == 1) {
      p.smoothness_kappa = 5.0f;
      p.presmooth_sigma = 0.8f;
      p.color_weight = 0.0f;
    }
    cc_image fc;
    refine_pair (CC_BACKEND_CPU, &p, &cc.f0, &cc.f1, &cc.init, &fc, NULL, 0, NULL);
    cc_flow_metrics mc;
    CC_ASSERT_OK (cc_flow_compare (&fc, &cc.gt, 4, &mc));
    static const char *names[2] = { "fp16", "fp32" };
    static const cc_refine_precision precision[2] = { CC_REFINE_PRECISION_AUTO,
      CC_REFINE_PRECISION_FP32 };
    cc_image fg[2];
    for (int path = 0; path < 2; path++) {
      clip_case_cuda (&cc, &p, precision[path], &fg[path]);
      double d = cv_test_mean_abs_diff (&fc, &fg[path]);
      cc_flow_metrics mg;
      CC_ASSERT_OK (cc_flow_compare (&fg[path], &cc.gt, 4, &mg));
      printf ("refine GPU (%s sweeps, %s) vs CPU: mean |diff| %.4f px; EPE CPU %.3f, "
          "GPU %.3f\n", names[path], energies[energy], d, mc.epe, mg.epe);
      fflush (stdout);
      ck_assert_msg (d <= 0.02, "GPU (%s sweeps, %s) and CPU differ by %.4f px mean",
          names[path], energies[energy], d);
    }
    /* the fp16 tiles: the same sweeps with an 11-bit significand (measured 0.001 px) */
    double dh = cv_test_mean_abs_diff (&fg[0], &fg[1]);
    printf ("refine GPU fp16 vs fp32 sweeps (%s): mean |diff| %.2g px\n", energies[energy],
        dh);
    fflush (stdout);
    ck_assert_msg (dh <= 0.005, "fp16 and fp32 sweeps differ by %g px mean (%s)", dh,
        energies[energy]);
    cv_image_free (&fc);
    for (int path = 0; path < 2; path++)
      cv_image_free (&fg[path]);
  }
  clip_case_free (&cc);
}
END_TEST

/* The fp16 sweeps scale each row equation (by 1/256 at the default weights, more for
 * larger weights) to stay inside fp16's range: with a start field 6 px off (large
 * increments and right-hand sides) the result is finite everywhere, stays close to the
 * fp32 sweeps' and pulls the field back towards the truth as far, at the default
 * weights and at weights 40x larger; beyond weights of 1000 the fp32 sweeps run
 * instead (the same field bit for bit). */
START_TEST (test_gpu_half_large_increments)
{
  CV_SKIP_WITHOUT_GPU ("refine gpu_half_large_increments");
  const int w = 257, h = 193;
  clip_case cc = clip_case_new (7, w, h, 6.0f);
  static const float weights[3][3] = { { 0, 0, 0 }, { 600, 150, 300 }, { 5000, 5, 10 } };
  for (int k = 0; k < 3; k++) {
    cc_refine_params p;
    cc_refine_params_default (&p);
    if (k > 0) {
      p.smoothness_weight = weights[k][0];
      p.color_weight = weights[k][1];
      p.gradient_weight = weights[k][2];
    }
    cc_image f16, f32;
    clip_case_cuda (&cc, &p, CC_REFINE_PRECISION_AUTO, &f16);
    clip_case_cuda (&cc, &p, CC_REFINE_PRECISION_FP32, &f32);
    const float *v = (const float *) f16.planes[0];
    for (size_t i = 0; i < (size_t) w * h * 2; i++)
      ck_assert_msg (isfinite (v[i]), "weights %d: value %zu is %g", k, i, v[i]);
    cc_flow_metrics m0, m16, m32;
    CC_ASSERT_OK (cc_flow_compare (&cc.init, &cc.gt, 4, &m0));
    CC_ASSERT_OK (cc_flow_compare (&f16, &cc.gt, 4, &m16));
    CC_ASSERT_OK (cc_flow_compare (&f32, &cc.gt, 4, &m32));
    double d = cv_test_mean_abs_diff (&f16, &f32);
    printf ("refine 6 px off, weights (%g, %g, %g): EPE start %.3f, fp32 sweeps %.3f, "
        "default sweeps %.3f; mean |diff| %.4f px\n", p.smoothness_weight, p.color_weight,
        p.gradient_weight, m0.epe, m32.epe, m16.epe, d);
    fflush (stdout);
    if (k == 2)
      ck_assert_msg (memcmp (f16.planes[0], f32.planes[0], (size_t) w * h * 8) == 0,
          "weights beyond 1000: not the fp32 sweeps (%g px mean)", d);
    ck_assert_msg (d <= 0.01, "weights %d: fp16 and fp32 sweeps differ by %.4f px mean", k, d);
    ck_assert_msg (fabs (m16.epe - m32.epe) <= 0.01, "weights %d: EPE fp16 %.4f vs fp32 %.4f",
        k, m16.epe, m32.epe);
    cv_image_free (&f16);
    cv_image_free (&f32);
  }
  clip_case_free (&cc);
}
END_TEST

/* One refiner run again and again on device images (the run is captured once into a
 * CUDA graph and replayed) gives the same field every time, bit for bit the field of
 * the same launches issued one by one (host images: no graph), at a size with many
 * tiles at every level and both tile shapes (>= 250k px: 8 px halo; under: 12 px), with
 * an inner iteration count that leaves a shorter last launch (27: 6 x 4 + 3 sweeps at
 * 8 px, 4 x 6 + 3 at 12 px). CV_TEST_QUICK (compute-sanitizer): 503x499 (250,997 px,
 * still the 8 px halo at the top level), 2 outer x 7 inner iterations (4 + 3 and 6 + 1:
 * still a shorter last launch) and 2 graph runs (the capture, then a replay): 31x less
 * sweep work. */
START_TEST (test_gpu_graph_replay)
{
  CV_SKIP_WITHOUT_GPU ("refine gpu_graph_replay");
  const int quick = cv_test_quick ();
  const int w = quick ? 503 : 1001, h = quick ? 499 : 603, runs = quick ? 2 : 3;
  clip_case cc = clip_case_new (3, w, h, 0.7f);
  cc_refine_params p;
  cc_refine_params_default (&p);
  p.inner_iterations = quick ? 7 : 27;
  if (quick)
    p.outer_iterations = 2;
  cc_image ref, out[3];
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, -1, &ctx));
  cc_refine *rf;
  CC_ASSERT_OK (cc_refine_create (ctx, w, h, &p, &rf));
  cv_image_new (w, h, CC_FORMAT_F32C2, &ref);
  memset (ref.planes[0], 0xFF, (size_t) w * h * 8);   /* poison: every pixel written */
  CC_ASSERT_OK (cc_refine_compute (rf, NULL, &cc.f0, &cc.f1, &cc.init, &ref));
  cc_refine_destroy (rf);
  cc_context_destroy (ctx);
  refine_runs (CC_BACKEND_CUDA, &p, &cc.f0, &cc.f1, &cc.init, out, runs, NULL, 0, NULL);
  for (int run = 0; run < runs; run++) {
    double d = cv_test_mean_abs_diff (&out[run], &ref);
    printf ("refine GPU graph run %d vs launches one by one: mean |diff| %.2g px\n", run, d);
    ck_assert_msg (memcmp (out[run].planes[0], ref.planes[0], (size_t) w * h * 8) == 0,
        "graph run %d differs from the one-by-one launches by %g px mean", run, d);
    cv_image_free (&out[run]);
  }
  clip_case_free (&cc);
  cv_image_free (&ref);
}
END_TEST

/* Initial field of a method on a backend (host result). */
static void
initial_field (cc_backend backend, bool blockmatch, const cc_image *a, const cc_image *b,
    cc_image *out)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  cc_image da, db, df;
  CC_ASSERT_OK (cv_test_to_backend (ctx, a, &da));
  CC_ASSERT_OK (cv_test_to_backend (ctx, b, &db));
  cc_location loc = backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  CC_ASSERT_OK (cc_image_alloc (ctx, a->width, a->height, CC_FORMAT_F32C2, loc, &df));
  if (blockmatch) {
    cc_blockmatch *bm;
    cc_image grid;
    int gw, gh;
    CC_ASSERT_OK (cc_blockmatch_create (ctx, a->width, a->height, NULL, &bm));
    cc_blockmatch_grid_size (bm, &gw, &gh);
    CC_ASSERT_OK (cc_image_alloc (ctx, gw, gh, CC_FORMAT_F32C2, loc, &grid));
    CC_ASSERT_OK (cc_blockmatch_compute (bm, NULL, &da, &db, &grid, NULL, &df));
    cc_image_free (ctx, &grid);
    cc_blockmatch_destroy (bm);
  } else {
    cc_flow_lk *lk;
    CC_ASSERT_OK (cc_flow_lk_create (ctx, a->width, a->height, NULL, &lk));
    CC_ASSERT_OK (cc_flow_lk_compute (lk, NULL, &da, &db, NULL, &df, NULL));
    cc_flow_lk_destroy (lk);
  }
  CC_ASSERT_OK (cv_test_to_host (ctx, &df, out));
  cc_image_free (ctx, &da);
  cc_image_free (ctx, &db);
  cc_image_free (ctx, &df);
  cc_context_destroy (ctx);
}

/* Middlebury (../shared/media): refinement at the defaults lowers the EPE of LK and
 * of block matching on every sequence; LK + refinement averages <= 0.27 px.
 * CV_TEST_QUICK (compute-sanitizer): on CUDA only Venus (the smallest, 420x380), so
 * the mean bound is the CPU's alone there; the CPU runs all four either way. */
START_TEST (test_middlebury)
{
  const char *media = cv_test_shared_media_with ("refine middlebury", "optflow/middlebury");
  if (!media)
    CV_SKIP ("refine middlebury", CV_SKIP_NO_MEDIA);
  const char *seq[] = { "Dimetrodon", "Grove2", "RubberWhale", "Venus" };
  cc_refine_params p;
  cc_refine_params_default (&p);
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int method = 0; method < 2; method++) {
      double sum = 0;
      const int first = cv_test_backend (bk) == CC_BACKEND_CUDA && cv_test_quick () ? 3 : 0;
      for (int i = first; i < 4; i++) {
        char p1[4096], p2[4096], g[4096];
        snprintf (p1, sizeof p1, "%s/optflow/middlebury/%s/frame10.png", media, seq[i]);
        snprintf (p2, sizeof p2, "%s/optflow/middlebury/%s/frame11.png", media, seq[i]);
        snprintf (g, sizeof g, "%s/optflow/middlebury/%s/flow10.flo", media, seq[i]);
        cc_image a, b, gt, init, out;
        CC_ASSERT_OK (cv_png_load (p1, CC_FORMAT_RGBX8, &a));
        CC_ASSERT_OK (cv_png_load (p2, CC_FORMAT_RGBX8, &b));
        CC_ASSERT_OK (cc_flo_read (g, &gt));
        initial_field (cv_test_backend (bk), method == 1, &a, &b, &init);
        refine_pair (cv_test_backend (bk), &p, &a, &b, &init, &out, NULL, 0, NULL);
        cc_flow_metrics before, after;
        CC_ASSERT_OK (cc_flow_compare (&init, &gt, 0, &before));
        CC_ASSERT_OK (cc_flow_compare (&out, &gt, 0, &after));
        printf ("Middlebury %-12s %-10s on %s: EPE %.3f -> refined %.3f\n", seq[i],
            method ? "blockmatch" : "lk", cc_backend_name (cv_test_backend (bk)), before.epe,
            after.epe);
        ck_assert_msg (after.epe < before.epe, "%s %s: refinement raised EPE %.3f -> %.3f",
            seq[i], method ? "blockmatch" : "lk", before.epe, after.epe);
        sum += after.epe;
        cv_image_free (&a); cv_image_free (&b); cc_flo_free (&gt);
        cv_image_free (&init); cv_image_free (&out);
      }
      if (first > 0) {
        printf ("Middlebury (%s) on %s: CV_TEST_QUICK, Venus alone (no mean bound)\n",
            method ? "blockmatch" : "lk", cc_backend_name (cv_test_backend (bk)));
        continue;
      }
      printf ("Middlebury mean refined EPE (%s) on %s: %.3f\n", method ? "blockmatch" : "lk",
          cc_backend_name (cv_test_backend (bk)), sum / 4);
      ck_assert_msg (sum / 4 <= 0.27, "mean refined EPE %.3f > 0.27", sum / 4);
    }
}
END_TEST

static Suite *
refine_suite (void)
{
  Suite *s = suite_create ("refine");
  TCase *tc = tcase_create ("refine");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_energy_decreases);
  tcase_add_test (tc, test_pulls_back_to_truth);
  tcase_add_test (tc, test_invalid_parameters);
  tcase_add_test (tc, test_set_params);
  tcase_add_test (tc, test_odd_and_tiny_sizes);
  tcase_add_test (tc, test_cpu_threads_bit_exact);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_gpu_matches_cpu);
  tcase_add_test (tc, test_gpu_graph_replay);
  tcase_add_test (tc, test_gpu_half_large_increments);
  tcase_add_test (tc, test_middlebury);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (refine_suite ());
}
