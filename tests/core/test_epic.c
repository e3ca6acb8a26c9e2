/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The EpicFlow method (cc_epic): accuracy on generated large-motion pairs with exact
 * ground truth (CPU), a confidence that is lower on occluded pixels, the defined
 * results (textureless, identical, tiny, 1x1 frames: zero flow, zero confidence but
 * for identical textured frames), bad arguments, and CUDA vs CPU when a device
 * exists. */
#include "cv_test.h"
#include "cc_tuning.h"   /* cudacore/src: the refinement's sweep precision */
#include "cv_imageio.h"
#include "cv_pairs.h"
#include <cudacore/cc_epic.h>

#include <math.h>
#include <string.h>

typedef struct {
  cc_image flow, conf;   /* host */
} epic_result;

/* The refinement sweeps' precision the runs below set (cc_tuning.h; CUDA only). */
static cc_refine_precision run_precision = CC_REFINE_PRECISION_AUTO;

static void
epic_on (cc_backend backend, const cc_epic_params *p, const cc_image *a, const cc_image *b,
    epic_result *r)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  cc_epic *e;
  CC_ASSERT_OK (cc_epic_create (ctx, a->width, a->height, p, &e));
  cc_refine_tuning t = { .precision = run_precision };
  CC_ASSERT_OK (cc_epic_set_refine_tuning (e, &t));
  cc_location loc = backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  cc_image da, db, df, dc;
  CC_ASSERT_OK (cv_test_to_backend (ctx, a, &da));
  CC_ASSERT_OK (cv_test_to_backend (ctx, b, &db));
  CC_ASSERT_OK (cc_image_alloc (ctx, a->width, a->height, CC_FORMAT_F32C2, loc, &df));
  CC_ASSERT_OK (cc_image_alloc (ctx, a->width, a->height, CC_FORMAT_F32, loc, &dc));
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &df, 0xFF));
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dc, 0xFF));
  CC_ASSERT_OK (cc_epic_compute (e, NULL, &da, &db, &df, &dc));
  CC_ASSERT_OK (cv_test_to_host (ctx, &df, &r->flow));
  CC_ASSERT_OK (cv_test_to_host (ctx, &dc, &r->conf));
  cv_test_assert_finite (&r->flow, "epic flow");
  cv_test_assert_finite (&r->conf, "epic confidence");
  cc_image_free (ctx, &da);
  cc_image_free (ctx, &db);
  cc_image_free (ctx, &df);
  cc_image_free (ctx, &dc);
  cc_epic_destroy (e);
  cc_context_destroy (ctx);
}

static void
epic_result_free (epic_result *r)
{
  cv_image_free (&r->flow);
  cv_image_free (&r->conf);
}

static const float *
px2 (const cc_image *f, int x, int y)
{
  return (const float *) ((const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0]) + 2 * x;
}

static float
px1 (const cc_image *f, int x, int y)
{
  return ((const float *) ((const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0]))[x];
}

/* Mean EPE of a field over the pixels not occluded, and of zero flow. */
static void
epe (const cc_image *flow, const cc_image *truth, const cc_image *occ, double *e, double *zero)
{
  double s = 0.0, z = 0.0;
  long n = 0;
  for (int y = 0; y < flow->height; y++)
    for (int x = 0; x < flow->width; x++) {
      if (((const uint8_t *) occ->planes[0])[(size_t) y * occ->pitch[0] + x])
        continue;
      const float *f = px2 (flow, x, y), *t = px2 (truth, x, y);
      s += hypot (f[0] - t[0], f[1] - t[1]);
      z += hypot (t[0], t[1]);
      n++;
    }
  *e = s / (n ? n : 1);
  *zero = z / (n ? n : 1);
}

/* Three generated 256x192 pairs with 50 px motions: mean EPE over visible pixels
 * well under a pixel scale of the motion, confidence in [0, 1] and lower on the
 * occluded pixels than on the visible ones. */
START_TEST (test_generated_pairs)
{
  cc_epic_params p;
  cc_epic_params_default (&p);
  double sum = 0.0;
  for (unsigned seed = 1; seed <= 3; seed++) {
    cv_pair_params gp = { 256, 192, 50.0f, seed };
    cc_image f1, f2, truth, occ;
    CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &truth, &occ));
    epic_result r;
    epic_on (CC_BACKEND_CPU, &p, &f1, &f2, &r);
    double e, z;
    epe (&r.flow, &truth, &occ, &e, &z);
    double cv = 0.0, co = 0.0;
    long nv = 0, no = 0;
    for (int y = 0; y < 192; y++)
      for (int x = 0; x < 256; x++) {
        float c = px1 (&r.conf, x, y);
        ck_assert_msg (c >= 0.0f && c <= 1.0f, "confidence %g out of [0, 1]", c);
        if (((uint8_t *) occ.planes[0])[(size_t) y * occ.pitch[0] + x]) {
          co += c;
          no++;
        } else {
          cv += c;
          nv++;
        }
      }
    printf ("epic generated pair %u: EPE %.3f px (zero flow %.2f), confidence visible "
        "%.3f occluded %.3f\n", seed, e, z, cv / nv, no ? co / no : 0.0);
    ck_assert_msg (e < 0.3 * z, "pair %u: EPE %g vs zero-flow %g", seed, e, z);
    if (no > 200)
      ck_assert_msg (co / no < cv / nv - 0.1, "pair %u: occluded confidence %g is not "
          "below the visible %g", seed, co / no, cv / nv);
    sum += e;
    epic_result_free (&r);
    cv_image_free (&f1);
    cv_image_free (&f2);
    cv_image_free (&truth);
    cv_image_free (&occ);
  }
  ck_assert_msg (sum / 3 < 2.5, "mean EPE %g", sum / 3);
}
END_TEST

static cc_image
gray (int w, int h, int value)
{
  cc_image f;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &f));
  memset (f.planes[0], value, f.pitch[0] * h);
  return f;
}

static void
assert_zero (const epic_result *r, bool zero_conf, const char *what)
{
  for (int y = 0; y < r->flow.height; y++)
    for (int x = 0; x < r->flow.width; x++) {
      const float *f = px2 (&r->flow, x, y);
      ck_assert_msg (f[0] == 0.0f && f[1] == 0.0f, "%s: flow (%g, %g) at (%d, %d)", what,
          f[0], f[1], x, y);
      if (zero_conf)
        ck_assert_msg (px1 (&r->conf, x, y) == 0.0f, "%s: confidence %g at (%d, %d)", what,
            px1 (&r->conf, x, y), x, y);
    }
}

/* Textureless, tiny and 1x1 frames: zero flow, zero confidence. Identical textured
 * frames: zero flow, confident (> 0.99) inside. */
START_TEST (test_defined_results)
{
  cc_epic_params p;
  cc_epic_params_default (&p);
  epic_result r;
  cc_image a = gray (64, 48, 90), b = gray (64, 48, 170);
  epic_on (CC_BACKEND_CPU, &p, &a, &b, &r);
  assert_zero (&r, true, "textureless");
  epic_result_free (&r);
  cv_image_free (&a);
  cv_image_free (&b);
  const int sizes[][2] = { { 1, 1 }, { 7, 5 }, { 2, 9 } };
  for (int i = 0; i < 3; i++) {
    cv_pair_params gp = { 32, 32, 4.0f, 5 };
    cc_image f1, f2, t, o;
    CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &t, &o));
    f1.width = f2.width = sizes[i][0];
    f1.height = f2.height = sizes[i][1];
    epic_on (CC_BACKEND_CPU, &p, &f1, &f2, &r);
    char what[32];
    snprintf (what, sizeof what, "tiny %dx%d", sizes[i][0], sizes[i][1]);
    assert_zero (&r, true, what);
    epic_result_free (&r);
    cv_image_free (&f1);
    cv_image_free (&f2);
    cv_image_free (&t);
    cv_image_free (&o);
  }
  cv_pair_params gp = { 96, 80, 20.0f, 9 };
  cc_image f1, f2, t, o;
  CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &t, &o));
  epic_on (CC_BACKEND_CPU, &p, &f1, &f1, &r);
  assert_zero (&r, false, "identical");
  for (int y = 8; y < 72; y++)
    for (int x = 8; x < 88; x++)
      ck_assert_msg (px1 (&r.conf, x, y) > 0.99f, "identical: confidence %g at (%d, %d)",
          px1 (&r.conf, x, y), x, y);
  epic_result_free (&r);
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&t);
  cv_image_free (&o);
}
END_TEST

START_TEST (test_bad_arguments)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_epic_params p;
  cc_epic_params_default (&p);
  cc_epic *e;
  CC_ASSERT_OK (cc_epic_create (ctx, 40, 30, &p, &e));
  cc_image a = gray (40, 30, 10), small = gray (39, 30, 10), flow, conf;
  CC_ASSERT_OK (cv_image_new (40, 30, CC_FORMAT_F32C2, &flow));
  CC_ASSERT_OK (cv_image_new (40, 30, CC_FORMAT_F32, &conf));
  ck_assert_int_eq (cc_epic_compute (e, NULL, &a, &small, &flow, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_epic_compute (e, NULL, &a, &a, &conf, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_epic_compute (e, NULL, &a, &a, &flow, &flow), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_epic_compute (e, NULL, &a, NULL, &flow, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_epic_compute (NULL, NULL, &a, &a, &flow, NULL), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_epic_compute (e, NULL, &a, &a, &flow, NULL));
  cc_epic_params q = p;
  q.interp.k = 0;
  ck_assert_int_eq (cc_epic_set_params (e, &q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.match.step = 1;
  ck_assert_int_eq (cc_epic_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.refine_params.levels = 0;
  ck_assert_int_eq (cc_epic_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  /* a new step changes the match count: still runs */
  q = p;
  q.match.step = 5;
  CC_ASSERT_OK (cc_epic_set_params (e, &q));
  CC_ASSERT_OK (cc_epic_compute (e, NULL, &a, &a, &flow, &conf));
  cc_epic *none;
  ck_assert_int_eq (cc_epic_create (ctx, 40, 0, &p, &none), CC_ERROR_INVALID_ARGUMENT);
  cc_epic_destroy (e);
  cv_image_free (&a);
  cv_image_free (&small);
  cv_image_free (&flow);
  cv_image_free (&conf);
  cc_context_destroy (ctx);
}
END_TEST

/* CUDA vs CPU, whole method. Matches and interpolation are the same bits, so without
 * the refinement the flow agrees within 1e-4 px and the confidence within 1e-4. The
 * refinement (fp32 sweeps) differs by rounding, which the iterations carry further
 * at a few unstable pixels (motion boundaries, occlusions): flow within 0.01 px
 * mean, 99 % of the pixels within 0.1 px and every pixel within 2 px; confidence
 * within 0.01 mean. */
static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("epic: CUDA vs CPU");
  const int w = 240, h = 160;
  cv_pair_params gp = { w, h, 50.0f, 21 };
  cc_image f1, f2, t, o;
  CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &t, &o));
  double *diff = malloc ((size_t) w * h * sizeof *diff);
  for (int refine = 0; refine <= 1; refine++) {
    cc_epic_params p;
    cc_epic_params_default (&p);
    p.refine = refine;
    run_precision = CC_REFINE_PRECISION_FP32;
    epic_result rc, rg;
    epic_on (CC_BACKEND_CPU, &p, &f1, &f2, &rc);
    epic_on (CC_BACKEND_CUDA, &p, &f1, &f2, &rg);
    run_precision = CC_REFINE_PRECISION_AUTO;
    double mean = cv_test_mean_abs_diff (&rc.flow, &rg.flow), worst = 0.0, cdiff = 0.0;
    double cworst = 0.0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        double d = 0.0;
        for (int c = 0; c < 2; c++)
          d = fmax (d, fabs (px2 (&rc.flow, x, y)[c] - px2 (&rg.flow, x, y)[c]));
        diff[(size_t) y * w + x] = d;
        worst = fmax (worst, d);
        double cd = fabs (px1 (&rc.conf, x, y) - px1 (&rg.conf, x, y));
        cdiff += cd;
        cworst = fmax (cworst, cd);
      }
    cdiff /= w * h;
    qsort (diff, (size_t) w * h, sizeof *diff, cmp_double);
    double p99 = diff[(size_t) (0.99 * w * h)];
    printf ("epic CUDA vs CPU, refine %d: flow mean %.5f p99 %.4f max %.4f px, confidence "
        "mean %.5f max %.5f\n", refine, mean, p99, worst, cdiff, cworst);
    if (!refine) {
      ck_assert_msg (worst < 1e-4 && cworst < 1e-4,
          "interpolated flow differs by %g px, confidence by %g", worst, cworst);
    } else {
      ck_assert_msg (mean < 0.01 && p99 < 0.1 && worst < 2.0,
          "flow differs: mean %g p99 %g max %g", mean, p99, worst);
      ck_assert_msg (cdiff < 0.01, "confidence differs by %g", cdiff);
    }
    epic_result_free (&rc);
    epic_result_free (&rg);
  }
  free (diff);
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&t);
  cv_image_free (&o);
}
END_TEST

static Suite *
epic_suite (void)
{
  Suite *s = suite_create ("epic");
  TCase *tc = tcase_create ("epic");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_generated_pairs);
  tcase_add_test (tc, test_defined_results);
  tcase_add_test (tc, test_bad_arguments);
  tcase_add_test (tc, test_gpu_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (epic_suite ());
}
