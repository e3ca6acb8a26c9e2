/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Block matching: exact recovery of known block translations on the CPU reference,
 * flat blocks flagged, every metric, parameter errors, odd sizes, and CUDA == CPU
 * (same vectors: both backends use exact integer scores) when a device exists. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_blockmatch.h>

#include <math.h>
#include <string.h>

typedef struct {
  cc_image grid, conf, dense;   /* host, packed */
  int gw, gh;
} bm_result;

/* Block matching of a host pair on a backend (frames and outputs where it computes;
 * host_io: host frames and outputs even on CUDA, to exercise the staging path). */
static void
bm_pair_threads (cc_backend backend, int threads, const cc_blockmatch_params *p,
    const cc_image *a, const cc_image *b, bool host_io, bm_result *r)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  cc_blockmatch *bm;
  CC_ASSERT_OK (cc_blockmatch_create (ctx, a->width, a->height, p, &bm));
  cc_blockmatch_grid_size (bm, &r->gw, &r->gh);
  ck_assert_int_eq (r->gw, (a->width + p->block_size - 1) / p->block_size);
  ck_assert_int_eq (r->gh, (a->height + p->block_size - 1) / p->block_size);
  bool dev = backend == CC_BACKEND_CUDA && !host_io;
  cc_location loc = dev ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  cc_image da = *a, db = *b, dg, dc, dd;
  if (dev) {
    CC_ASSERT_OK (cv_test_to_backend (ctx, a, &da));
    CC_ASSERT_OK (cv_test_to_backend (ctx, b, &db));
  }
  CC_ASSERT_OK (cc_image_alloc (ctx, r->gw, r->gh, CC_FORMAT_F32C2, loc, &dg));
  CC_ASSERT_OK (cc_image_alloc (ctx, r->gw, r->gh, CC_FORMAT_F32, loc, &dc));
  CC_ASSERT_OK (cc_image_alloc (ctx, a->width, a->height, CC_FORMAT_F32C2, loc, &dd));
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dg, 0xFF));   /* poison: every cell must be written */
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dc, 0xFF));
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dd, 0xFF));
  CC_ASSERT_OK (cc_blockmatch_compute (bm, NULL, &da, &db, &dg, &dc, &dd));
  CC_ASSERT_OK (cv_test_to_host (ctx, &dg, &r->grid));
  CC_ASSERT_OK (cv_test_to_host (ctx, &dc, &r->conf));
  CC_ASSERT_OK (cv_test_to_host (ctx, &dd, &r->dense));
  if (dev) {
    cc_image_free (ctx, &da);
    cc_image_free (ctx, &db);
  }
  cc_image_free (ctx, &dg);
  cc_image_free (ctx, &dc);
  cc_image_free (ctx, &dd);
  cc_blockmatch_destroy (bm);
  cc_context_destroy (ctx);
}

/* As bm_pair_threads with the context's default (all cores). */
static void
bm_pair (cc_backend backend, const cc_blockmatch_params *p, const cc_image *a,
    const cc_image *b, bool host_io, bm_result *r)
{
  bm_pair_threads (backend, 0, p, a, b, host_io, r);
}

static void
bm_result_free (bm_result *r)
{
  cv_image_free (&r->grid);
  cv_image_free (&r->conf);
  cv_image_free (&r->dense);
}

/* Block (x, y)'s vector in frame pixels. */
static void
block_vector (const bm_result *r, int w, int h, int x, int y, float *u, float *v)
{
  const float *g = (const float *) r->grid.planes[0] + 2 * (y * r->gw + x);
  *u = g[0] * (float) w / r->gw;
  *v = g[1] * (float) h / r->gh;
}

static float
block_conf (const bm_result *r, int x, int y)
{
  return ((const float *) r->conf.planes[0])[y * r->gw + x];
}

/* A block whose displaced copy, and its coarse-level parents' (32 px around it),
 * stay inside the frame: near the edges the coarse levels see replicated
 * borders and may seed the fine search wrongly. */
static bool
interior_block (int bx, int by, int dx, int dy, int w, int h)
{
  int x0 = bx * 16 + dx, y0 = by * 16 + dy;
  return x0 >= 32 && y0 >= 32 && x0 + 16 + 32 <= w && y0 + 16 + 32 <= h;
}

/* Interior blocks recover an
 * integer translation exactly, with every metric and on every backend; the
 * sub-pixel fit stays within 0.2 px of it. */
START_TEST (test_integer_translations)
{
  const int w = 256, h = 192;
  const int shifts[][2] = { { 3, -2 }, { 7, 5 }, { -13, 9 }, { 0, 0 }, { 21, -17 } };
  const cc_blockmatch_metric metrics[] = {
    CC_BLOCKMATCH_NCC, CC_BLOCKMATCH_SSD, CC_BLOCKMATCH_SAD };
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int m = 0; m < 3; m++)
      for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
        cc_blockmatch_params p;
        cc_blockmatch_params_default (&p);
        p.metric = metrics[m];
        p.search_radius = 24;
        cc_image a, b;
        CC_ASSERT_OK (cv_synth_translation (w, h, shifts[s][0], shifts[s][1], 21 + s, &a, &b));
        bm_result r;
        bm_pair (cv_test_backend (bk), &p, &a, &b, false, &r);
        int checked = 0;
        for (int by = 0; by < r.gh; by++)
          for (int bx = 0; bx < r.gw; bx++) {
            if (!interior_block (bx, by, shifts[s][0], shifts[s][1], w, h))
              continue;
            float u, v;
            block_vector (&r, w, h, bx, by, &u, &v);
            ck_assert_msg (fabsf (u - shifts[s][0]) < 0.2f && fabsf (v - shifts[s][1]) < 0.2f,
                "%s metric %d shift (%d,%d): block (%d,%d) found (%.3f,%.3f)",
                cc_backend_name (cv_test_backend (bk)), (int) p.metric, shifts[s][0],
                shifts[s][1], bx, by, u, v);
            ck_assert_msg (block_conf (&r, bx, by) > 0.2f, "confidence %.3f of a textured block",
                block_conf (&r, bx, by));
            checked++;
          }
        ck_assert_int_gt (checked, 30);
        /* without sub-pixel the vectors are the exact integers */
        p.subpixel = false;
        bm_result ri;
        bm_pair (cv_test_backend (bk), &p, &a, &b, false, &ri);
        for (int by = 0; by < ri.gh; by++)
          for (int bx = 0; bx < ri.gw; bx++) {
            if (!interior_block (bx, by, shifts[s][0], shifts[s][1], w, h))
              continue;
            float u, v;
            block_vector (&ri, w, h, bx, by, &u, &v);
            ck_assert_msg (fabsf (u - shifts[s][0]) < 1e-4f && fabsf (v - shifts[s][1]) < 1e-4f,
                "integer search: block (%d,%d) found (%.3f,%.3f)", bx, by, u, v);
          }
        bm_result_free (&r);
        bm_result_free (&ri);
        cv_image_free (&a);
        cv_image_free (&b);
      }
}
END_TEST

/* Sub-pixel translations: the parabola fit brings the mean error well under the
 * 0.5 px of integer matching; the dense field follows. */
START_TEST (test_subpixel_translation)
{
  const int w = 256, h = 192;
  const double dx = 4.3, dy = -2.6;
  cc_blockmatch_params p;
  cc_blockmatch_params_default (&p);
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (w, h, dx, dy, 7, &a, &b));
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    bm_result r;
    bm_pair (cv_test_backend (bk), &p, &a, &b, false, &r);
    double err = 0;
    int n = 0;
    for (int by = 1; by < r.gh - 1; by++)
      for (int bx = 1; bx < r.gw - 1; bx++) {
        float u, v;
        block_vector (&r, w, h, bx, by, &u, &v);
        err += hypot (u - dx, v - dy);
        n++;
      }
    double dense_err = 0;
    int dn = 0;
    for (int y = 24; y < h - 24; y++)
      for (int x = 24; x < w - 24; x++) {
        const float *f = (const float *) r.dense.planes[0] + 2 * (y * w + x);
        dense_err += hypot (f[0] - dx, f[1] - dy);
        dn++;
      }
    printf ("sub-pixel (%.1f, %.1f) on %s: block EPE %.3f, dense EPE %.3f\n", dx, dy,
        cc_backend_name (cv_test_backend (bk)), err / n, dense_err / dn);
    ck_assert_msg (err / n < 0.2, "block EPE %.3f", err / n);
    ck_assert_msg (dense_err / dn < 0.2, "dense EPE %.3f", dense_err / dn);
    bm_result_free (&r);
  }
  cv_image_free (&a);
  cv_image_free (&b);
}
END_TEST

/* Multi-scale: a (29, -22) px motion found through 4 levels, each searching only a
 * few pixels around its seed. */
START_TEST (test_large_motion_levels)
{
  const int w = 320, h = 240;
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (w, h, 29.0, -22.0, 3, &a, &b));
  cc_blockmatch_params p;
  cc_blockmatch_params_default (&p);
  p.search_radius = 32;
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    bm_result r;
    bm_pair (cv_test_backend (bk), &p, &a, &b, false, &r);
    int good = 0, n = 0;
    for (int by = 2; by < r.gh - 2; by++)
      for (int bx = 2; bx < r.gw - 2; bx++) {
        float u, v;
        block_vector (&r, w, h, bx, by, &u, &v);
        good += hypot (u - 29.0, v + 22.0) < 0.5;
        n++;
      }
    printf ("29,-22 px through %d levels on %s: %d/%d blocks within 0.5 px\n", p.levels,
        cc_backend_name (cv_test_backend (bk)), good, n);
    ck_assert_msg (good > 0.9 * n, "%d/%d blocks within 0.5 px", good, n);
    bm_result_free (&r);
  }
  cv_image_free (&a);
  cv_image_free (&b);
}
END_TEST

/* Flat blocks: confidence 0 and zero motion; textured blocks confident. */
START_TEST (test_flat_blocks_flagged)
{
  const int w = 128, h = 96;
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (w, h, 2.0, 1.0, 5, &a, &b));
  for (int y = 0; y < h; y++)
    for (int x = w / 2; x < w; x++) {
      ((uint8_t *) a.planes[0])[y * w + x] = 120;
      ((uint8_t *) b.planes[0])[y * w + x] = 120 + ((x * 7 + y * 3) % 3 == 0);   /* +-1 noise */
    }
  const cc_blockmatch_metric metrics[] = {
    CC_BLOCKMATCH_NCC, CC_BLOCKMATCH_SSD, CC_BLOCKMATCH_SAD };
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int m = 0; m < 3; m++) {
      cc_blockmatch_params p;
      cc_blockmatch_params_default (&p);
      p.metric = metrics[m];
      bm_result r;
      bm_pair (cv_test_backend (bk), &p, &a, &b, false, &r);
      for (int by = 0; by < r.gh; by++)
        for (int bx = 0; bx < r.gw; bx++) {
          float c = block_conf (&r, bx, by), u, v;
          block_vector (&r, w, h, bx, by, &u, &v);
          ck_assert_msg (c >= 0.0f && c <= 1.0f, "confidence %g out of [0,1]", c);
          if (bx >= r.gw / 2) {
            ck_assert_msg (c == 0.0f, "flat block (%d,%d) confidence %g", bx, by, c);
            ck_assert_msg (u == 0.0f && v == 0.0f, "flat block (%d,%d) moved (%g,%g)", bx, by, u, v);
          } else if (bx > 0 && by > 0 && by < r.gh - 1 && bx < r.gw / 2 - 1) {
            ck_assert_msg (c > 0.2f, "textured block (%d,%d) confidence %g", bx, by, c);
          }
        }
      bm_result_free (&r);
    }
  cv_image_free (&a);
  cv_image_free (&b);
}
END_TEST

START_TEST (test_invalid_parameters)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  struct { const char *field; int block, radius, seed, levels, metric; float flat; } bad[] = {
    { "block_size", 3, 16, 2, 4, 0, 2 }, { "block_size", 65, 16, 2, 4, 0, 2 },
    { "search_radius", 16, 0, 2, 4, 0, 2 }, { "search_radius", 16, 33, 2, 4, 0, 2 },
    { "seed_radius", 16, 16, 0, 4, 0, 2 }, { "seed_radius", 16, 16, 9, 4, 0, 2 },
    { "levels", 16, 16, 2, 0, 0, 2 }, { "levels", 16, 16, 2, 6, 0, 2 },
    { "metric", 16, 16, 2, 4, 7, 2 }, { "flat_threshold", 16, 16, 2, 4, 0, -1 },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cc_blockmatch_params p;
    cc_blockmatch_params_default (&p);
    p.block_size = bad[i].block;
    p.search_radius = bad[i].radius;
    p.seed_radius = bad[i].seed;
    p.levels = bad[i].levels;
    p.metric = (cc_blockmatch_metric) bad[i].metric;
    p.flat_threshold = bad[i].flat;
    cc_blockmatch *bm = NULL;
    ck_assert_int_eq (cc_blockmatch_create (ctx, 64, 64, &p, &bm), CC_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null (bm);
    ck_assert_msg (strstr (cc_last_error (), bad[i].field) != NULL,
        "message '%s' does not name %s", cc_last_error (), bad[i].field);
  }
  /* wrong output sizes are refused with the expected size in the message */
  cc_blockmatch *bm;
  CC_ASSERT_OK (cc_blockmatch_create (ctx, 64, 48, NULL, &bm));
  cc_image a, b, g;
  CC_ASSERT_OK (cv_synth_translation (64, 48, 1, 1, 1, &a, &b));
  cv_image_new (5, 3, CC_FORMAT_F32C2, &g);
  ck_assert_int_eq (cc_blockmatch_compute (bm, NULL, &a, &b, &g, NULL, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "4x3"));
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&g);
  cc_blockmatch_destroy (bm);
  cc_context_destroy (ctx);
}
END_TEST

/* set_params: a new block size re-lays the grid and gives what a new handle with
 * those params gives; bad params leave the handle as it was; NULL is refused. */
START_TEST (test_set_params)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_image a, b;
  CC_ASSERT_OK (cv_synth_translation (64, 48, 3, -2, 4, &a, &b));
  cc_blockmatch *bm;
  CC_ASSERT_OK (cc_blockmatch_create (ctx, 64, 48, NULL, &bm));
  int gw, gh;
  cc_blockmatch_grid_size (bm, &gw, &gh);
  ck_assert (gw == 4 && gh == 3);
  cc_blockmatch_params p;
  cc_blockmatch_get_params (bm, &p);
  p.block_size = 8;
  CC_ASSERT_OK (cc_blockmatch_set_params (bm, &p));
  cc_blockmatch_grid_size (bm, &gw, &gh);
  ck_assert (gw == 8 && gh == 6);
  cc_image g, c, d;
  cv_image_new (8, 6, CC_FORMAT_F32C2, &g);
  cv_image_new (8, 6, CC_FORMAT_F32, &c);
  cv_image_new (64, 48, CC_FORMAT_F32C2, &d);
  CC_ASSERT_OK (cc_blockmatch_compute (bm, NULL, &a, &b, &g, &c, &d));
  bm_result fresh;
  bm_pair (CC_BACKEND_CPU, &p, &a, &b, false, &fresh);
  ck_assert_int_eq (memcmp (g.planes[0], fresh.grid.planes[0], 8 * 6 * 8), 0);
  ck_assert_int_eq (memcmp (d.planes[0], fresh.dense.planes[0], 64 * 48 * 8), 0);
  bm_result_free (&fresh);
  cc_blockmatch_params bad = p;
  bad.block_size = 3;
  ck_assert_int_eq (cc_blockmatch_set_params (bm, &bad), CC_ERROR_INVALID_ARGUMENT);
  cc_blockmatch_get_params (bm, &bad);
  ck_assert_int_eq (bad.block_size, 8);
  ck_assert_int_eq (cc_blockmatch_set_params (NULL, &p), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "cc_blockmatch_set_params"));
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&g); cv_image_free (&c);
  cv_image_free (&d);
  cc_blockmatch_destroy (bm);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_odd_and_tiny_sizes)
{
  const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 17, 9 }, { 101, 77 }, { 64, 5 } };
  const int blocks[] = { 4, 7, 16, 64 };
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int s = 0; s < 5; s++)
      for (int k = 0; k < 4; k++) {
        cc_blockmatch_params p;
        cc_blockmatch_params_default (&p);
        p.block_size = blocks[k];
        p.search_radius = 5;
        cc_image a, b;
        CC_ASSERT_OK (cv_synth_translation (sizes[s][0], sizes[s][1], 1.0, -1.0, 2, &a, &b));
        bm_result r;
        bm_pair (cv_test_backend (bk), &p, &a, &b, false, &r);
        cv_test_assert_finite (&r.grid, "grid flow");
        cv_test_assert_finite (&r.conf, "confidence");
        cv_test_assert_finite (&r.dense, "dense flow");
        bm_result_free (&r);
        cv_image_free (&a);
        cv_image_free (&b);
      }
}
END_TEST

/* The CPU path gives the same bits on 1 and 4 threads (blocks and rows split among
 * them, 4 > the cores of a small machine), for NCC and SAD on an odd size. */
START_TEST (test_cpu_threads_bit_exact)
{
  cc_image f0, f1;
  CC_ASSERT_OK (cv_synth_clip_frame (2, 641, 479, &f0, NULL));
  CC_ASSERT_OK (cv_synth_clip_frame (3, 641, 479, &f1, NULL));
  for (int m = 0; m < 2; m++) {
    cc_blockmatch_params p;
    cc_blockmatch_params_default (&p);
    p.metric = m ? CC_BLOCKMATCH_SAD : CC_BLOCKMATCH_NCC;
    bm_result r1, r4;
    bm_pair_threads (CC_BACKEND_CPU, 1, &p, &f0, &f1, false, &r1);
    bm_pair_threads (CC_BACKEND_CPU, 4, &p, &f0, &f1, false, &r4);
    cv_test_assert_same_bits (&r1.grid, &r4.grid, "grid flow, 1 vs 4 threads");
    cv_test_assert_same_bits (&r1.conf, &r4.conf, "confidence, 1 vs 4 threads");
    cv_test_assert_same_bits (&r1.dense, &r4.dense, "dense flow, 1 vs 4 threads");
    bm_result_free (&r1);
    bm_result_free (&r4);
  }
  cv_image_free (&f0);
  cv_image_free (&f1);
}
END_TEST

/* CUDA and CPU pick the same vectors (exact integer scores, same tie-break); the
 * sub-pixel offsets, confidences and dense fields agree to float rounding. Host
 * frames and outputs on the CUDA backend give the same result as device ones. */
START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("blockmatch gpu_matches_cpu");
  cc_image f0, f1;
  CC_ASSERT_OK (cv_synth_clip_frame (2, 641, 359, &f0, NULL));
  CC_ASSERT_OK (cv_synth_clip_frame (3, 641, 359, &f1, NULL));
  const cc_blockmatch_metric metrics[] = {
    CC_BLOCKMATCH_NCC, CC_BLOCKMATCH_SSD, CC_BLOCKMATCH_SAD };
  const int blocks[] = { 16, 8, 13 };
  for (int m = 0; m < 3; m++) {
    cc_blockmatch_params p;
    cc_blockmatch_params_default (&p);
    p.metric = metrics[m];
    p.block_size = blocks[m];
    bm_result rc, rg, rh;
    bm_pair (CC_BACKEND_CPU, &p, &f0, &f1, false, &rc);
    bm_pair (CC_BACKEND_CUDA, &p, &f0, &f1, false, &rg);
    bm_pair (CC_BACKEND_CUDA, &p, &f0, &f1, true, &rh);
    int differ = 0;
    double max_diff = 0, max_conf = 0, dense_diff = 0;
    for (int i = 0; i < rc.gw * rc.gh; i++) {
      for (int k = 0; k < 2; k++) {
        double d = fabs (((float *) rc.grid.planes[0])[2 * i + k] * (k ? 359.0 / rc.gh : 641.0 / rc.gw)
            - ((float *) rg.grid.planes[0])[2 * i + k] * (k ? 359.0 / rc.gh : 641.0 / rc.gw));
        max_diff = fmax (max_diff, d);
        differ += d > 0.05;
      }
      max_conf = fmax (max_conf, fabs (((float *) rc.conf.planes[0])[i]
              - ((float *) rg.conf.planes[0])[i]));
    }
    for (int i = 0; i < 641 * 359 * 2; i++)
      dense_diff = fmax (dense_diff, fabs (((float *) rc.dense.planes[0])[i]
              - ((float *) rg.dense.planes[0])[i]));
    printf ("blockmatch GPU vs CPU, metric %d block %d: max vector diff %.2g px, max confidence"
        " diff %.2g, max dense diff %.2g\n", m, blocks[m], max_diff, max_conf, dense_diff);
    ck_assert_msg (differ == 0, "%d vector components differ by > 0.05 px", differ);
    ck_assert_msg (max_conf < 1e-4, "confidence differs by %g", max_conf);
    ck_assert_msg (dense_diff < 1e-2, "dense field differs by %g", dense_diff);
    ck_assert_int_eq (memcmp (rg.grid.planes[0], rh.grid.planes[0],
            (size_t) rg.gw * rg.gh * 8), 0);
    ck_assert_int_eq (memcmp (rg.dense.planes[0], rh.dense.planes[0], (size_t) 641 * 359 * 8), 0);
    bm_result_free (&rc);
    bm_result_free (&rg);
    bm_result_free (&rh);
  }
  cv_image_free (&f0);
  cv_image_free (&f1);
}
END_TEST

static Suite *
blockmatch_suite (void)
{
  Suite *s = suite_create ("blockmatch");
  TCase *tc = tcase_create ("blockmatch");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_integer_translations);
  tcase_add_test (tc, test_subpixel_translation);
  tcase_add_test (tc, test_large_motion_levels);
  tcase_add_test (tc, test_flat_blocks_flagged);
  tcase_add_test (tc, test_invalid_parameters);
  tcase_add_test (tc, test_set_params);
  tcase_add_test (tc, test_odd_and_tiny_sizes);
  tcase_add_test (tc, test_cpu_threads_bit_exact);
  tcase_add_test (tc, test_gpu_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (blockmatch_suite ());
}
