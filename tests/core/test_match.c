/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sparse matcher (cc_match): accuracy on generated large-motion pairs with exact
 * ground truth (cv_pairs: textured layers, 40-60 px affine motions, occlusions),
 * matches pinned at the displacement limit rejected, identical / textureless / tiny
 * frames, parameter and argument errors, the grid
 * layout, thread-count independence, luma formats, and CUDA == CPU (identical
 * matches: both backends share every per-seed step, integer costs) when a device
 * exists. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_pairs.h"
#include "cv_synth.h"
#include <cudacore/cc_epic.h>

#include <math.h>
#include <string.h>

/* Matches of a host pair on a backend (frames uploaded for CUDA); malloc'd. */
static cc_flow_match *
run_match_threads (cc_backend backend, int threads, const cc_match_params *p,
    const cc_image *a, const cc_image *b, int *count)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  cc_match *m;
  CC_ASSERT_OK (cc_match_create (ctx, a->width, a->height, p, &m));
  int n = cc_match_capacity (m);
  cc_image da, db;
  CC_ASSERT_OK (cv_test_to_backend (ctx, a, &da));
  CC_ASSERT_OK (cv_test_to_backend (ctx, b, &db));
  CC_ASSERT_OK (cc_match_compute (m, NULL, &da, &db));
  cc_flow_match *out = malloc ((size_t) n * sizeof *out);
  ck_assert_ptr_nonnull (out);
  memset (out, 0xFF, (size_t) n * sizeof *out);   /* poison: every entry is written */
  CC_ASSERT_OK (cc_match_download_sync (m, NULL, out, n, count));
  ck_assert_int_eq (*count, n);
  ck_assert_ptr_nonnull (cc_match_matches (m));
  cc_image_free (ctx, &da);
  cc_image_free (ctx, &db);
  cc_match_destroy (m);
  cc_context_destroy (ctx);
  return out;
}

static cc_flow_match *
run_match (cc_backend backend, const cc_match_params *p, const cc_image *a, const cc_image *b,
    int *count)
{
  return run_match_threads (backend, 0, p, a, b, count);
}

/* Every match: on its grid position, finite, confidence in [0, 1], zero vector when
 * rejected. */
static void
assert_well_formed (const cc_flow_match *m, int n, int w, int h, int step)
{
  int gw = (w + step - 1) / step, gh = (h + step - 1) / step;
  ck_assert_int_eq (n, gw * gh);
  for (int i = 0; i < n; i++) {
    int gx = i % gw, gy = i / gw;
    int x = gx * step + step / 2, y = gy * step + step / 2;
    ck_assert_float_eq (m[i].x, (float) (x < w ? x : w - 1));
    ck_assert_float_eq (m[i].y, (float) (y < h ? y : h - 1));
    ck_assert_msg (isfinite (m[i].u) && isfinite (m[i].v), "match %d not finite", i);
    ck_assert_msg (m[i].confidence >= 0.0f && m[i].confidence <= 1.0f,
        "match %d confidence %g", i, m[i].confidence);
    if (m[i].confidence == 0.0f)
      ck_assert_msg (m[i].u == 0.0f && m[i].v == 0.0f, "rejected match %d has a vector", i);
  }
}

typedef struct {
  long valid, confident, correct;
  float max_truth;   /* largest true motion among valid seeds */
} pair_score;

/* Scores matches against a truth field and occlusion mask (tolerance px). */
static pair_score
score (const cc_flow_match *m, int n, const cc_image *flow, const cc_image *occ, float tol)
{
  pair_score s = { 0, 0, 0, 0.0f };
  for (int i = 0; i < n; i++) {
    int x = (int) m[i].x, y = (int) m[i].y;
    if (((const uint8_t *) occ->planes[0])[y * occ->pitch[0] + x])
      continue;
    const float *g = (const float *) ((const char *) flow->planes[0] + y * flow->pitch[0]) + 2 * x;
    s.valid++;
    float mag = hypotf (g[0], g[1]);
    s.max_truth = mag > s.max_truth ? mag : s.max_truth;
    if (m[i].confidence > 0.0f) {
      s.confident++;
      s.correct += hypotf (m[i].u - g[0], m[i].v - g[1]) <= tol;
    }
  }
  return s;
}

/* Generated 256x192 pairs, procedural textures, motions up to 60 px: >= 90 % of
 * confident matches within 2 px of the truth, >= 50 % of the non-occluded seeds
 * confident, and of the non-occluded seeds that move 30+ px, half matched within
 * 2 px over both pairs (30 % in each: the fast layer of a pair is a single object). */
START_TEST (test_generated_pairs_accuracy)
{
  cc_match_params p;
  cc_match_params_default (&p);
  long all_large = 0, all_large_ok = 0;
  for (unsigned seed = 1; seed <= 2; seed++) {
    cv_pair_params gp = { 256, 192, 60.0f, seed };
    cc_image f1, f2, flow, occ;
    CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &flow, &occ));
    int n;
    cc_flow_match *m = run_match (CC_BACKEND_CPU, &p, &f1, &f2, &n);
    assert_well_formed (m, n, 256, 192, p.step);
    pair_score s = score (m, n, &flow, &occ, 2.0f);
    double acc = (double) s.correct / (double) s.confident;
    double survival = (double) s.confident / (double) s.valid;
    printf ("match: pair seed %u: %ld valid, %ld confident, accuracy(2 px) %.4f, survival "
        "%.4f, max true motion %.1f px\n", seed, s.valid, s.confident, acc, survival,
        s.max_truth);
    fflush (stdout);
    ck_assert_msg (s.max_truth >= 30.0f, "pair %u: largest motion only %g px", seed,
        s.max_truth);
    ck_assert_msg (acc >= 0.90, "pair %u: accuracy %.3f", seed, acc);
    ck_assert_msg (survival >= 0.50, "pair %u: survival %.3f", seed, survival);
    /* the large motions are found: matches of 30+ px within 2 px of the truth */
    long large = 0, large_conf = 0, large_ok = 0;
    for (int i = 0; i < n; i++) {
      int x = (int) m[i].x, y = (int) m[i].y;
      const float *g = (const float *) ((const char *) flow.planes[0] + y * flow.pitch[0]) + 2 * x;
      if (((const uint8_t *) occ.planes[0])[y * occ.pitch[0] + x] || hypotf (g[0], g[1]) < 30.0f)
        continue;
      large++;
      large_conf += m[i].confidence > 0.0f;
      large_ok += m[i].confidence > 0.0f && hypotf (m[i].u - g[0], m[i].v - g[1]) <= 2.0f;
    }
    printf ("match: pair seed %u: %ld valid seeds move 30+ px, %ld confident, %ld within 2 px\n",
        seed, large, large_conf, large_ok);
    fflush (stdout);
    ck_assert_msg (large_ok * 10 >= large * 3, "pair %u: only %ld of %ld seeds moving 30+ px "
        "matched", seed, large_ok, large);
    all_large += large;
    all_large_ok += large_ok;
    free (m);
    cv_image_free (&f1);
    cv_image_free (&f2);
    cv_image_free (&flow);
    cv_image_free (&occ);
  }
  ck_assert_msg (all_large_ok * 2 >= all_large, "only %ld of %ld seeds moving 30+ px matched",
      all_large_ok, all_large);
}
END_TEST

/* A pure 57 px / -23 px translation of a procedural texture (GRAY8): nearly every
 * seed whose target stays inside lands within 1 px. */
START_TEST (test_translation)
{
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (240, 160, 57.0, -23.0, 5, &a, &b));
  cc_match_params p;
  cc_match_params_default (&p);
  p.step = 4;
  int n;
  cc_flow_match *m = run_match (CC_BACKEND_CPU, &p, &a, &b, &n);
  assert_well_formed (m, n, 240, 160, 4);
  long inside = 0, confident = 0, correct = 0;
  for (int i = 0; i < n; i++) {
    if (m[i].x + 57 > 239 - 4 || m[i].y - 23 < 4 || m[i].x < 4 || m[i].y > 155)
      continue;
    inside++;
    if (m[i].confidence > 0.0f) {
      confident++;
      correct += fabsf (m[i].u - 57.0f) <= 1.0f && fabsf (m[i].v + 23.0f) <= 1.0f;
    }
  }
  printf ("match: translation (57, -23): %ld inside, %ld confident, %ld within 1 px\n",
      inside, confident, correct);
  ck_assert_int_ge (confident, inside / 2);
  ck_assert_int_ge (correct, confident * 95 / 100);
  free (m);
  cv_image_free (&a);
  cv_image_free (&b);
}
END_TEST

/* A motion beyond max_displacement: the search stops at the limit, forward and
 * backward alike, so the pinned matches agree with each other; none is kept (a
 * target outside the frame pins matches the same way). */
START_TEST (test_displacement_limit)
{
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (240, 160, 57.0, -23.0, 5, &a, &b));
  cc_match_params p;
  cc_match_params_default (&p);
  p.step = 4;
  p.max_displacement = 16.0f;
  int n, kept = 0, pinned = 0;
  cc_flow_match *m = run_match (CC_BACKEND_CPU, &p, &a, &b, &n);
  assert_well_formed (m, n, 240, 160, 4);
  for (int i = 0; i < n; i++)
    if (m[i].confidence > 0.0f) {
      kept++;
      pinned += fabsf (m[i].u) >= 15.5f || fabsf (m[i].v) >= 15.5f;
    }
  printf ("match: (57, -23) with a 16 px limit: %d kept, %d at the limit\n", kept, pinned);
  ck_assert_int_eq (pinned, 0);
  free (m);
  cv_image_free (&a);
  cv_image_free (&b);
}
END_TEST

/* Identical frames: every match has a zero vector; the textured seeds are kept
 * with full forward-backward agreement. */
START_TEST (test_identical_frames)
{
  cv_pair_params gp = { 200, 120, 40.0f, 7 };
  cc_image f1, f2, flow, occ;
  CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &flow, &occ));
  cc_match_params p;
  cc_match_params_default (&p);
  int n;
  cc_flow_match *m = run_match (CC_BACKEND_CPU, &p, &f1, &f1, &n);
  assert_well_formed (m, n, 200, 120, p.step);
  long confident = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_msg (m[i].u == 0.0f && m[i].v == 0.0f, "match %d: (%g, %g)", i, m[i].u, m[i].v);
    confident += m[i].confidence > 0.0f;
    if (m[i].confidence > 0.0f)
      ck_assert_float_eq (m[i].confidence, 1.0f);   /* zero cost, zero FB error */
  }
  ck_assert_int_ge (confident, n * 8 / 10);
  free (m);
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&flow);
  cv_image_free (&occ);
}
END_TEST

/* Textureless frames (constant, and a linear ramp: no texture across it): zero
 * confidence and zero vectors everywhere. */
START_TEST (test_textureless)
{
  cc_image a, b;
  CC_ASSERT_OK (cv_image_new (160, 96, CC_FORMAT_GRAY8, &a));
  CC_ASSERT_OK (cv_image_new (160, 96, CC_FORMAT_GRAY8, &b));
  cc_match_params p;
  cc_match_params_default (&p);
  for (int kind = 0; kind < 2; kind++) {
    for (int y = 0; y < 96; y++)
      for (int x = 0; x < 160; x++) {
        ((uint8_t *) a.planes[0])[y * a.pitch[0] + x] = (uint8_t) (kind ? x + 40 : 90);
        ((uint8_t *) b.planes[0])[y * b.pitch[0] + x] = (uint8_t) (kind ? x + 45 : 90);
      }
    int n;
    cc_flow_match *m = run_match (CC_BACKEND_CPU, &p, &a, &b, &n);
    assert_well_formed (m, n, 160, 96, p.step);
    for (int i = 0; i < n; i++)
      ck_assert_msg (m[i].confidence == 0.0f, "kind %d match %d confidence %g", kind, i,
          m[i].confidence);
    free (m);
  }
  cv_image_free (&a);
  cv_image_free (&b);
}
END_TEST

/* 1x1, frames smaller than a patch, thin frames: a defined result. */
START_TEST (test_tiny_frames)
{
  static const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 7, 5 }, { 9, 9 }, { 33, 2 }, { 17, 40 } };
  for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    int w = sizes[k][0], h = sizes[k][1];
    cc_image a, b;
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &a));
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &b));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        ((uint8_t *) a.planes[0])[y * w + x] = (uint8_t) ((x * 37 + y * 91) & 255);
        ((uint8_t *) b.planes[0])[y * w + x] = (uint8_t) ((x * 53 + y * 17) & 255);
      }
    cc_match_params p;
    cc_match_params_default (&p);
    p.step = 2;
    int n;
    cc_flow_match *m = run_match (CC_BACKEND_CPU, &p, &a, &b, &n);
    assert_well_formed (m, n, w, h, 2);
    for (int i = 0; i < n; i++) {
      /* targets stay inside the frame */
      ck_assert (m[i].x + m[i].u >= -0.5f && m[i].x + m[i].u <= w - 0.5f);
      ck_assert (m[i].y + m[i].v >= -0.5f && m[i].y + m[i].v <= h - 0.5f);
    }
    if (w == 1 && h == 1)
      ck_assert_float_eq (m[0].confidence, 0.0f);
    free (m);
    cv_image_free (&a);
    cv_image_free (&b);
  }
}
END_TEST

START_TEST (test_invalid_arguments)
{
  cc_match_params d, p;
  cc_match_params_default (&d);
  ck_assert_int_eq (d.step, 3);
  ck_assert_int_eq (d.levels, 5);
  ck_assert_int_eq (d.iterations, 4);
  ck_assert_float_eq (d.max_displacement, 400.0f);
  ck_assert_float_eq (d.fb_threshold, 3.0f);
  CC_ASSERT_OK (cc_match_params_check (&d));
  ck_assert_int_eq (cc_match_params_check (NULL), CC_ERROR_INVALID_ARGUMENT);
#define BAD(field, value)                                                         \
  do {                                                                            \
    p = d;                                                                        \
    p.field = value;                                                              \
    ck_assert_int_eq (cc_match_params_check (&p), CC_ERROR_INVALID_ARGUMENT);     \
  } while (0)
  BAD (step, 1);
  BAD (step, 33);
  BAD (levels, 0);
  BAD (levels, 9);
  BAD (iterations, 0);
  BAD (iterations, 33);
  BAD (max_displacement, 7.9f);
  BAD (max_displacement, 1025.0f);
  BAD (max_displacement, NAN);
  BAD (fb_threshold, 0.0f);
  BAD (fb_threshold, -1.0f);
  BAD (fb_threshold, NAN);
#undef BAD
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_match *m = (cc_match *) 1;
  p = d;
  p.step = 0;
  ck_assert_int_eq (cc_match_create (ctx, 64, 48, &p, &m), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null (m);
  ck_assert_int_eq (cc_match_create (NULL, 64, 48, &d, &m), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_create (ctx, 0, 48, &d, &m), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_create (ctx, 64, 16385, &d, &m), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_match_create (ctx, 64, 48, NULL, &m));   /* NULL: the defaults */
  cc_match_get_params (m, &p);
  ck_assert_int_eq (p.step, 3);
  ck_assert_int_eq (cc_match_capacity (m), 22 * 16);
  /* frames: NULL, wrong size, wrong format */
  cc_image a, b, f;
  CC_ASSERT_OK (cv_image_new (64, 48, CC_FORMAT_GRAY8, &a));
  CC_ASSERT_OK (cv_image_new (64, 40, CC_FORMAT_GRAY8, &b));
  CC_ASSERT_OK (cv_image_new (64, 48, CC_FORMAT_F32, &f));
  ck_assert_int_eq (cc_match_compute (NULL, NULL, &a, &a), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_compute (m, NULL, NULL, &a), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_compute (m, NULL, &a, &b), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_compute (m, NULL, &f, &a), CC_ERROR_INVALID_ARGUMENT);
  cc_image dev = a;
  dev.location = CC_LOCATION_DEVICE;   /* device memory on the CPU backend */
  ck_assert_int_eq (cc_match_compute (m, NULL, &dev, &a), CC_ERROR_INVALID_ARGUMENT);
  /* bad params leave the handle as it was */
  p = d;
  p.iterations = 0;
  ck_assert_int_eq (cc_match_set_params (m, &p), CC_ERROR_INVALID_ARGUMENT);
  cc_match_get_params (m, &p);
  ck_assert_int_eq (p.iterations, 4);
  /* download: partial, none, bad */
  CC_ASSERT_OK (cc_match_compute (m, NULL, &a, &a));
  cc_flow_match out[4];
  int count = -1;
  CC_ASSERT_OK (cc_match_download_sync (m, NULL, out, 4, &count));
  ck_assert_int_eq (count, 4);
  CC_ASSERT_OK (cc_match_download_sync (m, NULL, NULL, 0, &count));
  ck_assert_int_eq (count, 0);
  ck_assert_int_eq (cc_match_download_sync (m, NULL, NULL, 4, &count), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_download_sync (m, NULL, out, -1, &count), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_match_download_sync (NULL, NULL, out, 4, &count), CC_ERROR_INVALID_ARGUMENT);
  /* a new step re-lays the grid */
  p = d;
  p.step = 8;
  CC_ASSERT_OK (cc_match_set_params (m, &p));
  ck_assert_int_eq (cc_match_capacity (m), 8 * 6);
  CC_ASSERT_OK (cc_match_compute (m, NULL, &a, &a));
  ck_assert_int_eq (cc_match_capacity (NULL), 0);
  ck_assert_ptr_null (cc_match_matches (NULL));
  cc_match_destroy (m);
  cc_match_destroy (NULL);
  cv_image_free (&a);
  cv_image_free (&b);
  cv_image_free (&f);
  cc_context_destroy (ctx);
}
END_TEST

/* 1 thread and 2 threads give the same bits; BGRX8 the same as RGBX8, NV12 the same
 * as GRAY8, and GRAY8 of the rounded luma nearly the same as RGBX8. */
START_TEST (test_threads_and_formats)
{
  cv_pair_params gp = { 160, 120, 40.0f, 11 };
  cc_image f1, f2, flow, occ;
  CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &flow, &occ));
  cc_match_params p;
  cc_match_params_default (&p);
  int n1, n2;
  cc_flow_match *m1 = run_match_threads (CC_BACKEND_CPU, 1, &p, &f1, &f2, &n1);
  cc_flow_match *m2 = run_match_threads (CC_BACKEND_CPU, 2, &p, &f1, &f2, &n2);
  ck_assert_int_eq (n1, n2);
  ck_assert_int_eq (memcmp (m1, m2, (size_t) n1 * sizeof *m1), 0);
  /* GRAY8 / NV12 (Y plane) from the BT.601 integer luma; BGRX8 with swapped bytes */
  cc_image g[2], nv[2], bgr[2];
  const cc_image *rgb[2] = { &f1, &f2 };
  for (int k = 0; k < 2; k++) {
    CC_ASSERT_OK (cv_image_new (160, 120, CC_FORMAT_GRAY8, &g[k]));
    CC_ASSERT_OK (cv_image_new (160, 120, CC_FORMAT_BGRX8, &bgr[k]));
    for (int y = 0; y < 120; y++)
      for (int x = 0; x < 160; x++) {
        const uint8_t *s = (const uint8_t *) rgb[k]->planes[0] + y * rgb[k]->pitch[0] + 4 * x;
        uint8_t *d = (uint8_t *) bgr[k].planes[0] + y * bgr[k].pitch[0] + 4 * x;
        ((uint8_t *) g[k].planes[0])[y * 160 + x] =
            (uint8_t) ((77 * s[0] + 150 * s[1] + 29 * s[2] + 128) >> 8);
        d[0] = s[2];
        d[1] = s[1];
        d[2] = s[0];
        d[3] = 255;
      }
    /* NV12: the Y plane, then a grey UV plane */
    uint8_t *buf = malloc (160 * 120 * 3 / 2);
    memcpy (buf, g[k].planes[0], 160 * 120);
    memset (buf + 160 * 120, 128, 160 * 60);
    nv[k] = cc_image_view (buf, 160, 160, 120, CC_FORMAT_NV12, CC_LOCATION_HOST);
    nv[k].planes[1] = buf + 160 * 120;
    nv[k].pitch[1] = 160;
  }
  /* BGRX8 == RGBX8 (the 1/256-level luma of both); NV12 == GRAY8 (the Y byte) */
  int nb, ng, nn;
  cc_flow_match *mb = run_match (CC_BACKEND_CPU, &p, &bgr[0], &bgr[1], &nb);
  cc_flow_match *mg = run_match (CC_BACKEND_CPU, &p, &g[0], &g[1], &ng);
  cc_flow_match *mn = run_match (CC_BACKEND_CPU, &p, &nv[0], &nv[1], &nn);
  ck_assert_int_eq (nb, n1);
  ck_assert_int_eq (ng, n1);
  ck_assert_int_eq (nn, n1);
  ck_assert_msg (memcmp (mb, m1, (size_t) n1 * sizeof *mb) == 0, "BGRX8 differs from RGBX8");
  ck_assert_msg (memcmp (mn, mg, (size_t) n1 * sizeof *mn) == 0, "NV12 differs from GRAY8");
  /* the 8-bit luma loses sub-level detail but finds nearly the same matches */
  long same = 0, both = 0;
  for (int i = 0; i < n1; i++)
    if (m1[i].confidence > 0.0f && mg[i].confidence > 0.0f) {
      both++;
      same += hypotf (m1[i].u - mg[i].u, m1[i].v - mg[i].v) <= 1.0f;
    }
  ck_assert_int_ge (both, n1 / 2);
  ck_assert_int_ge (same, both * 95 / 100);
  free (mb);
  free (mg);
  free (mn);
  for (int k = 0; k < 2; k++) {
    cv_image_free (&g[k]);
    cv_image_free (&bgr[k]);
    free (nv[k].planes[0]);
  }
  free (m1);
  free (m2);
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&flow);
  cv_image_free (&occ);
}
END_TEST

/* CUDA == CPU: the same matches, bit for bit (tolerance 0: integer costs, the
 * shared per-seed code, match.cu without FMA contraction), on a generated pair
 * (odd size, 70 px motions), identical frames and a tiny frame; the stream
 * argument: a NULL stream and the context's own stream give the same. */
START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("test_gpu_matches_cpu");
  cv_pair_params gp = { 333, 211, 70.0f, 3 };
  cc_image f1, f2, flow, occ;
  CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &flow, &occ));
  cc_image t1, t2;
  CC_ASSERT_OK (cv_image_new (7, 5, CC_FORMAT_GRAY8, &t1));
  CC_ASSERT_OK (cv_image_new (7, 5, CC_FORMAT_GRAY8, &t2));
  for (int i = 0; i < 35; i++) {
    ((uint8_t *) t1.planes[0])[i] = (uint8_t) (i * 37);
    ((uint8_t *) t2.planes[0])[i] = (uint8_t) (i * 41);
  }
  const cc_image *pairs[3][2] = { { &f1, &f2 }, { &f1, &f1 }, { &t1, &t2 } };
  cc_match_params p;
  cc_match_params_default (&p);
  for (int k = 0; k < 3; k++) {
    int nc, ng;
    cc_flow_match *c = run_match (CC_BACKEND_CPU, &p, pairs[k][0], pairs[k][1], &nc);
    cc_flow_match *g = run_match (CC_BACKEND_CUDA, &p, pairs[k][0], pairs[k][1], &ng);
    ck_assert_int_eq (nc, ng);
    long differ = 0;
    for (int i = 0; i < nc; i++)
      differ += memcmp (&c[i], &g[i], sizeof c[i]) != 0;
    printf ("match: CUDA vs CPU, pair %d: %ld of %d matches differ\n", k, differ, nc);
    ck_assert_int_eq (differ, 0);
    free (c);
    free (g);
  }
  /* an explicit stream (the context's) */
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, -1, &ctx));
  cc_match *m;
  CC_ASSERT_OK (cc_match_create (ctx, 333, 211, &p, &m));
  cc_image d1, d2;
  CC_ASSERT_OK (cv_test_to_backend (ctx, &f1, &d1));
  CC_ASSERT_OK (cv_test_to_backend (ctx, &f2, &d2));
  CC_ASSERT_OK (cc_match_compute (m, cc_context_stream (ctx), &d1, &d2));
  int n = cc_match_capacity (m), count;
  cc_flow_match *a = malloc ((size_t) n * sizeof *a), *b = malloc ((size_t) n * sizeof *b);
  CC_ASSERT_OK (cc_match_download_sync (m, cc_context_stream (ctx), a, n, &count));
  int nc;
  cc_flow_match *c = run_match (CC_BACKEND_CPU, &p, &f1, &f2, &nc);
  memcpy (b, c, (size_t) n * sizeof *b);
  ck_assert_int_eq (memcmp (a, b, (size_t) n * sizeof *a), 0);
  /* host frames on the CUDA backend: refused */
  ck_assert_int_eq (cc_match_compute (m, NULL, &f1, &f2), CC_ERROR_INVALID_ARGUMENT);
  free (a);
  free (b);
  free (c);
  cc_image_free (ctx, &d1);
  cc_image_free (ctx, &d2);
  cc_match_destroy (m);
  cc_context_destroy (ctx);
  cv_image_free (&t1);
  cv_image_free (&t2);
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&flow);
  cv_image_free (&occ);
}
END_TEST

static Suite *
match_suite (void)
{
  Suite *s = suite_create ("match");
  TCase *tc = tcase_create ("match");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_generated_pairs_accuracy);
  tcase_add_test (tc, test_translation);
  tcase_add_test (tc, test_displacement_limit);
  tcase_add_test (tc, test_identical_frames);
  tcase_add_test (tc, test_textureless);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_invalid_arguments);
  tcase_add_test (tc, test_threads_and_formats);
  tcase_add_test (tc, test_gpu_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (match_suite ());
}
