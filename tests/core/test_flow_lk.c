/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pyramidal Lucas-Kanade: accuracy against exact ground truth on the CPU reference,
 * the same cases on CUDA (when a device exists) plus GPU == CPU within 0.01 px mean,
 * and the Middlebury pairs of ../shared/media when present. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_flow_io.h>
#include <cudacore/cc_flow_lk.h>

#include <math.h>
#include <string.h>

/* Which stream a run submits on (test_explicit_stream). */
typedef enum {
  LK_STREAM_NULL = 0,   /* NULL: the context's own */
  LK_STREAM_OWN,        /* cc_context_stream (ctx), named */
  LK_STREAM_FOREIGN     /* CUDA: a second context's stream; CPU: a bogus pointer that
                           the CPU backend must ignore */
} lk_stream_mode;

/* Flow of a host pair on a backend with `threads` CPU threads (0 = all cores),
 * submitted on the stream `mode` picks; host results (packed) in flow/conf. */
static void
lk_pair_stream (cc_backend backend, int threads, lk_stream_mode mode,
    const cc_flow_lk_params *p, const cc_image *a, const cc_image *b,
    const cc_image *host_mask, cc_image *flow, cc_image *conf)
{
  cc_context *ctx, *other = NULL;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  cc_stream stream = NULL;
  if (mode == LK_STREAM_OWN)
    stream = cc_context_stream (ctx);
  else if (mode == LK_STREAM_FOREIGN && backend == CC_BACKEND_CUDA) {
    CC_ASSERT_OK (cc_context_create (backend, -1, &other));
    stream = cc_context_stream (other);
    ck_assert_ptr_nonnull (stream);
    ck_assert_ptr_ne (stream, cc_context_stream (ctx));
  } else if (mode == LK_STREAM_FOREIGN)
    stream = (cc_stream) (uintptr_t) 0x40;
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  cc_flow_lk *lk;
  CC_ASSERT_OK (cc_flow_lk_create (ctx, a->width, a->height, p, &lk));
  cc_image da, db, dm, df, dc;
  CC_ASSERT_OK (cv_test_to_backend (ctx, a, &da));
  CC_ASSERT_OK (cv_test_to_backend (ctx, b, &db));
  if (host_mask)
    CC_ASSERT_OK (cv_test_to_backend (ctx, host_mask, &dm));
  cc_location loc = backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  CC_ASSERT_OK (cc_image_alloc (ctx, a->width, a->height, CC_FORMAT_F32C2, loc, &df));
  CC_ASSERT_OK (cc_image_alloc (ctx, a->width, a->height, CC_FORMAT_F32, loc, &dc));
  /* poison the outputs: every pixel must be written */
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &df, 0xFF));
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dc, 0xFF));
  /* the fills went on the context's stream: a foreign stream starts after them */
  if (other)
    CC_ASSERT_OK (cc_context_synchronize (ctx));
  CC_ASSERT_OK (cc_flow_lk_compute (lk, stream, &da, &db, host_mask ? &dm : NULL, &df, &dc));
  if (other)
    CC_ASSERT_OK (cc_context_synchronize (other));
  CC_ASSERT_OK (cv_test_to_host (ctx, &df, flow));
  CC_ASSERT_OK (cv_test_to_host (ctx, &dc, conf));
  cc_image_free (ctx, &da);
  cc_image_free (ctx, &db);
  if (host_mask)
    cc_image_free (ctx, &dm);
  cc_image_free (ctx, &df);
  cc_image_free (ctx, &dc);
  cc_flow_lk_destroy (lk);
  cc_context_destroy (ctx);
  cc_context_destroy (other);
}

static void
lk_pair_threads (cc_backend backend, int threads, const cc_flow_lk_params *p,
    const cc_image *a, const cc_image *b, const cc_image *host_mask, cc_image *flow,
    cc_image *conf)
{
  lk_pair_stream (backend, threads, LK_STREAM_NULL, p, a, b, host_mask, flow, conf);
}

static void
lk_pair (cc_backend backend, const cc_flow_lk_params *p, const cc_image *a, const cc_image *b,
    const cc_image *host_mask, cc_image *flow, cc_image *conf)
{
  lk_pair_threads (backend, 0, p, a, b, host_mask, flow, conf);
}

static const double shifts[][2] = {
  { 0.25, 0.0 }, { 0.0, -0.5 }, { 0.75, 0.25 }, { -1.5, 1.0 }, { 3.0, -2.25 }, { 6.0, 4.0 },
};

START_TEST (test_subpixel_translations)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  const int w = 200, h = 150;
  for (int b = 0; b < cv_test_backend_count (); b++)
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
      cc_image f1, f2, flow, conf;
      CC_ASSERT_OK (cv_synth_translation (w, h, shifts[i][0], shifts[i][1], 11 + i, &f1, &f2));
      lk_pair (cv_test_backend (b), &p, &f1, &f2, NULL, &flow, &conf);
      cc_image gt = cv_test_constant_field (w, h, (float) shifts[i][0], (float) shifts[i][1]);
      cc_flow_metrics m;
      /* interior: a window plus the shift away from the edges */
      CC_ASSERT_OK (cc_flow_compare (&flow, &gt, 4 + p.window_size, &m));
      printf ("translation (%.2f, %.2f) on %s: EPE %.4f px\n", shifts[i][0], shifts[i][1],
          cc_backend_name (cv_test_backend (b)), m.epe);
      ck_assert_msg (m.epe < 0.05, "translation (%.2f, %.2f) on %s: EPE %.4f >= 0.05",
          shifts[i][0], shifts[i][1], cc_backend_name (cv_test_backend (b)), m.epe);
      cv_test_assert_finite (&flow, "flow");
      cv_test_assert_finite (&conf, "confidence");
      cv_image_free (&f1); cv_image_free (&f2); cv_image_free (&flow);
      cv_image_free (&conf); cv_image_free (&gt);
    }
}
END_TEST

START_TEST (test_large_motion_through_pyramid)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  const int w = 320, h = 240;
  cc_image f1, f2;
  CC_ASSERT_OK (cv_synth_translation (w, h, 20.0, -12.0, 5, &f1, &f2));
  cc_image gt = cv_test_constant_field (w, h, 20.0f, -12.0f);
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_image flow, conf;
    lk_pair (cv_test_backend (b), &p, &f1, &f2, NULL, &flow, &conf);
    cc_flow_metrics m;
    CC_ASSERT_OK (cc_flow_compare (&flow, &gt, 32, &m));
    printf ("20 px motion on %s: EPE %.4f px\n", cc_backend_name (cv_test_backend (b)), m.epe);
    ck_assert_msg (m.epe < 0.05, "20 px motion: EPE %.4f", m.epe);
    /* one level cannot follow 20 px: the pyramid is what recovers it */
    if (b == 0) {
      cc_flow_lk_params one = p;
      one.pyramid_levels = 1;
      cc_image f1l, c1l;
      lk_pair (CC_BACKEND_CPU, &one, &f1, &f2, NULL, &f1l, &c1l);
      cc_flow_metrics m1;
      CC_ASSERT_OK (cc_flow_compare (&f1l, &gt, 32, &m1));
      ck_assert_msg (m1.epe > 5.0, "without a pyramid EPE should be large, is %.3f", m1.epe);
      cv_image_free (&f1l); cv_image_free (&c1l);
    }
    cv_image_free (&flow); cv_image_free (&conf);
  }
  cv_image_free (&f1); cv_image_free (&f2); cv_image_free (&gt);
}
END_TEST

START_TEST (test_synthetic_clip)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  const int w = 320, h = 180;
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_image f0, f1, gt, flow, conf;
    CC_ASSERT_OK (cv_synth_clip_frame (3, w, h, &f0, &gt));
    CC_ASSERT_OK (cv_synth_clip_frame (4, w, h, &f1, NULL));
    lk_pair (cv_test_backend (b), &p, &f0, &f1, NULL, &flow, &conf);
    cc_flow_metrics m;
    CC_ASSERT_OK (cc_flow_compare (&flow, &gt, 8, &m));
    printf ("synthetic clip frames 3->4 on %s: EPE %.3f px, >1px %.1f%%\n",
        cc_backend_name (cv_test_backend (b)), m.epe, 100 * m.over1);
    /* three layers and an occluding edge: errors concentrate at the boundaries */
    ck_assert_msg (m.epe < 0.35, "clip EPE %.3f", m.epe);
    ck_assert_msg (m.over1 < 0.06, "clip: %.1f%% of pixels off by > 1 px", 100 * m.over1);
    cv_image_free (&f0); cv_image_free (&f1); cv_image_free (&gt);
    cv_image_free (&flow); cv_image_free (&conf);
  }
}
END_TEST

START_TEST (test_constant_images_zero_confidence)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  cc_image a, b;
  cv_image_new (64, 48, CC_FORMAT_GRAY8, &a);
  cv_image_new (64, 48, CC_FORMAT_GRAY8, &b);
  memset (a.planes[0], 90, 64 * 48);
  memset (b.planes[0], 140, 64 * 48);   /* brightness change, no structure */
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    cc_image flow, conf;
    lk_pair (cv_test_backend (bk), &p, &a, &b, NULL, &flow, &conf);
    for (int i = 0; i < 64 * 48; i++) {
      ck_assert_float_eq (((float *) conf.planes[0])[i], 0.0f);
      ck_assert_float_eq (((float *) flow.planes[0])[2 * i], 0.0f);
      ck_assert_float_eq (((float *) flow.planes[0])[2 * i + 1], 0.0f);
    }
    cv_image_free (&flow); cv_image_free (&conf);
  }
  cv_image_free (&a); cv_image_free (&b);
}
END_TEST

START_TEST (test_odd_and_tiny_sizes)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 7, 5 }, { 641, 479 } };
  for (int bk = 0; bk < cv_test_backend_count (); bk++)
    for (int s = 0; s < 4; s++) {
      cc_image a, b, flow, conf;
      CC_ASSERT_OK (cv_synth_translation (sizes[s][0], sizes[s][1], 1.0, 0.5, 3, &a, &b));
      lk_pair (cv_test_backend (bk), &p, &a, &b, NULL, &flow, &conf);
      cv_test_assert_finite (&flow, "flow");
      cv_test_assert_finite (&conf, "confidence");
      if (sizes[s][0] > 100) {
        cc_image gt = cv_test_constant_field (sizes[s][0], sizes[s][1], 1.0f, 0.5f);
        cc_flow_metrics m;
        CC_ASSERT_OK (cc_flow_compare (&flow, &gt, 16, &m));
        ck_assert_msg (m.epe < 0.05, "641x479: EPE %.4f", m.epe);
        cv_image_free (&gt);
      }
      cv_image_free (&a); cv_image_free (&b); cv_image_free (&flow); cv_image_free (&conf);
    }
}
END_TEST

START_TEST (test_mask_roi)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  const int w = 160, h = 120;
  cc_image a, b, mask;
  CC_ASSERT_OK (cv_synth_translation (w, h, 1.5, -0.75, 9, &a, &b));
  cv_image_new (w, h, CC_FORMAT_GRAY8, &mask);
  for (int y = 30; y < 90; y++)
    for (int x = 40; x < 120; x++)
      ((uint8_t *) mask.planes[0])[y * w + x] = 255;
  cc_image gt = cv_test_constant_field (w, h, 1.5f, -0.75f);
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    cc_image flow, conf;
    lk_pair (cv_test_backend (bk), &p, &a, &b, &mask, &flow, &conf);
    double in_err = 0;
    int in_n = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        float *f = (float *) flow.planes[0] + 2 * (y * w + x);
        float c = ((float *) conf.planes[0])[y * w + x];
        if (((uint8_t *) mask.planes[0])[y * w + x]) {
          in_err += hypot (f[0] - 1.5, f[1] + 0.75);
          in_n++;
          ck_assert_msg (c > 0.0f, "confidence inside the mask at (%d,%d) is %g", x, y, c);
        } else {
          ck_assert_msg (f[0] == 0.0f && f[1] == 0.0f && c == 0.0f,
              "outside the mask (%d,%d): flow (%g,%g) conf %g", x, y, f[0], f[1], c);
        }
      }
    ck_assert_msg (in_err / in_n < 0.05, "EPE inside the mask %.4f", in_err / in_n);
    cv_image_free (&flow); cv_image_free (&conf);
  }
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&mask); cv_image_free (&gt);
}
END_TEST

START_TEST (test_forward_backward_check)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  p.fb_check = true;
  const int w = 320, h = 180;
  cc_image f0, f1, gt;
  CC_ASSERT_OK (cv_synth_clip_frame (5, w, h, &f0, &gt));
  CC_ASSERT_OK (cv_synth_clip_frame (6, w, h, &f1, NULL));
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    cc_image flow, conf;
    lk_pair (cv_test_backend (bk), &p, &f0, &f1, NULL, &flow, &conf);
    long invalid = 0, valid = 0;
    double err_valid = 0, err_invalid = 0;
    for (int i = 0; i < w * h; i++) {
      float c = ((float *) conf.planes[0])[i];
      int x = i % w, y = i / w;
      if (x < 8 || y < 8 || x >= w - 8 || y >= h - 8)
        continue;   /* at the frame's edge vectors leave the frame: not checkable */
      float *f = (float *) flow.planes[0] + 2 * i, *g = (float *) gt.planes[0] + 2 * i;
      double e = hypot (f[0] - g[0], f[1] - g[1]);
      ck_assert_msg (c == CC_FLOW_INVALID || (c >= 0.0f && c <= p.fb_threshold),
          "fb confidence %g out of its range", c);
      if (c < 0) { invalid++; err_invalid += e; } else { valid++; err_valid += e; }
    }
    printf ("fb check on %s: %ld invalid pixels, EPE valid %.3f, invalid %.3f\n",
        cc_backend_name (cv_test_backend (bk)), invalid, err_valid / valid,
        invalid ? err_invalid / invalid : 0.0);
    /* the occluding square uncovers background: some pixels must fail, and the
     * ones that fail must be the wrong ones */
    ck_assert_msg (invalid > 20 && invalid < w * h / 10, "%ld invalid pixels", invalid);
    ck_assert_msg (err_invalid / invalid > 2 * err_valid / valid,
        "invalid pixels (EPE %.3f) are not worse than valid ones (EPE %.3f)",
        err_invalid / invalid, err_valid / valid);
    cv_image_free (&flow); cv_image_free (&conf);
  }
  cv_image_free (&f0); cv_image_free (&f1); cv_image_free (&gt);
}
END_TEST

START_TEST (test_push_streaming)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_flow_lk *lk;
  CC_ASSERT_OK (cc_flow_lk_create (ctx, 96, 64, NULL, &lk));
  cc_image a, b, flow, conf, direct, dconf;
  CC_ASSERT_OK (cv_synth_translation (96, 64, 1.0, 0.0, 4, &a, &b));
  cv_image_new (96, 64, CC_FORMAT_F32C2, &flow);
  cv_image_new (96, 64, CC_FORMAT_F32, &conf);
  cv_image_new (96, 64, CC_FORMAT_F32C2, &direct);
  cv_image_new (96, 64, CC_FORMAT_F32, &dconf);
  bool had = true;
  memset (flow.planes[0], 0x7f, 96 * 64 * 8);
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &a, NULL, &flow, &conf, &had));
  ck_assert (!had);
  for (int i = 0; i < 96 * 64 * 2; i++)
    ck_assert_float_eq (((float *) flow.planes[0])[i], 0.0f);
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &b, NULL, &flow, &conf, &had));
  ck_assert (had);
  CC_ASSERT_OK (cc_flow_lk_compute (lk, NULL, &a, &b, NULL, &direct, &dconf));
  ck_assert_int_eq (memcmp (flow.planes[0], direct.planes[0], 96 * 64 * 8), 0);
  CC_ASSERT_OK (cc_flow_lk_reset (lk));
  ck_assert_int_eq (cc_flow_lk_reset (NULL), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &b, NULL, &flow, &conf, &had));
  ck_assert (!had);
  /* a frame of another size is refused with a message naming both sizes */
  cc_image small;
  cv_image_new (10, 10, CC_FORMAT_GRAY8, &small);
  ck_assert_int_eq (cc_flow_lk_compute_video (lk, NULL, &small, NULL, &flow, &conf, NULL),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "10x10"));
  cv_image_free (&small);
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&flow); cv_image_free (&conf);
  cv_image_free (&direct); cv_image_free (&dconf);
  cc_flow_lk_destroy (lk);
  cc_context_destroy (ctx);
}
END_TEST

/* set_params: other pyramid levels re-allocate, drop the pushed frame and give what
 * a new handle with those params gives; other changes keep the pushed frame; bad
 * params leave the handle as it was; NULL is refused. */
START_TEST (test_set_params)
{
  const int w = 96, h = 64;
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_image a, b, flow, conf, fresh, fconf;   /* fresh, fconf: lk_pair's */
  CC_ASSERT_OK (cv_synth_translation (w, h, 1.5, -0.5, 4, &a, &b));
  cv_image_new (w, h, CC_FORMAT_F32C2, &flow);
  cv_image_new (w, h, CC_FORMAT_F32, &conf);
  cc_flow_lk *lk;
  CC_ASSERT_OK (cc_flow_lk_create (ctx, w, h, NULL, &lk));
  cc_flow_lk_params p;
  cc_flow_lk_get_params (lk, &p);
  bool had = false;
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &a, NULL, &flow, &conf, &had));
  p.iterations = p.iterations + 1;   /* same levels: the pushed frame stays */
  CC_ASSERT_OK (cc_flow_lk_set_params (lk, &p));
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &b, NULL, &flow, &conf, &had));
  ck_assert (had);
  p.pyramid_levels = 2;              /* new pyramids: the pushed frame goes */
  CC_ASSERT_OK (cc_flow_lk_set_params (lk, &p));
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &a, NULL, &flow, &conf, &had));
  ck_assert (!had);
  CC_ASSERT_OK (cc_flow_lk_compute_video (lk, NULL, &b, NULL, &flow, &conf, &had));
  ck_assert (had);
  lk_pair (CC_BACKEND_CPU, &p, &a, &b, NULL, &fresh, &fconf);
  ck_assert_int_eq (memcmp (flow.planes[0], fresh.planes[0], (size_t) w * h * 8), 0);
  ck_assert_int_eq (memcmp (conf.planes[0], fconf.planes[0], (size_t) w * h * 4), 0);
  cc_flow_lk_params bad = p;
  bad.pyramid_levels = 0;
  ck_assert_int_eq (cc_flow_lk_set_params (lk, &bad), CC_ERROR_INVALID_ARGUMENT);
  cc_flow_lk_get_params (lk, &bad);
  ck_assert_int_eq (bad.pyramid_levels, 2);
  ck_assert_int_eq (cc_flow_lk_set_params (NULL, &p), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "cc_flow_lk_set_params"));
  cv_image_free (&a); cv_image_free (&b); cv_image_free (&flow); cv_image_free (&conf);
  cv_image_free (&fresh); cv_image_free (&fconf);
  cc_flow_lk_destroy (lk);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_invalid_parameters)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_flow_lk_params p;
  cc_flow_lk *lk = NULL;
  struct { const char *field; int window, levels, iterations; float eig; } bad[] = {
    { "window_size", 4, 5, 3, 1e-6f }, { "window_size", 33, 5, 3, 1e-6f },
    { "window_size", 10, 5, 3, 1e-6f }, { "pyramid_levels", 9, 0, 3, 1e-6f },
    { "pyramid_levels", 9, 9, 3, 1e-6f }, { "iterations", 9, 5, 0, 1e-6f },
    { "iterations", 9, 5, 1000, 1e-6f }, { "min_eigen_threshold", 9, 5, 3, -1.0f },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cc_flow_lk_params_default (&p);
    p.window_size = bad[i].window;
    p.pyramid_levels = bad[i].levels;
    p.iterations = bad[i].iterations;
    p.min_eigen_threshold = bad[i].eig;
    ck_assert_int_eq (cc_flow_lk_create (ctx, 64, 64, &p, &lk), CC_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null (lk);
    ck_assert_msg (strstr (cc_last_error (), bad[i].field) != NULL,
        "message '%s' does not name %s", cc_last_error (), bad[i].field);
  }
  ck_assert_int_eq (cc_flow_lk_create (ctx, 0, 64, NULL, &lk), CC_ERROR_INVALID_ARGUMENT);
  cc_context_destroy (ctx);
}
END_TEST

/* The CPU path gives the same bits on 1 and 4 threads (4 > the cores of a small
 * machine: rows split unevenly), with the forward-backward check and a mask on an
 * odd size, so that every parallel loop runs. */
START_TEST (test_cpu_threads_bit_exact)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  p.fb_check = true;
  const int w = 641, h = 479;
  cc_image f0, f1, mask, flow[2], conf[2];
  CC_ASSERT_OK (cv_synth_clip_frame (2, w, h, &f0, NULL));
  CC_ASSERT_OK (cv_synth_clip_frame (3, w, h, &f1, NULL));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &mask));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      ((uint8_t *) mask.planes[0])[y * mask.pitch[0] + x] = x > 500 && y > 300 ? 0 : 255;
  const int threads[2] = { 1, 4 };
  for (int t = 0; t < 2; t++)
    lk_pair_threads (CC_BACKEND_CPU, threads[t], &p, &f0, &f1, &mask, &flow[t], &conf[t]);
  cv_test_assert_same_bits (&flow[0], &flow[1], "flow, 1 vs 4 threads");
  cv_test_assert_same_bits (&conf[0], &conf[1], "confidence, 1 vs 4 threads");
  cv_image_free (&f0); cv_image_free (&f1); cv_image_free (&mask);
  for (int t = 0; t < 2; t++) {
    cv_image_free (&flow[t]);
    cv_image_free (&conf[t]);
  }
}
END_TEST

/* The stream argument: NULL, the context's stream named, and another stream (CUDA: a
 * second context's, waited for; CPU: a bogus pointer, ignored) give the same bits
 * on every backend, with the forward-backward check (two flows, two pyramids). */
START_TEST (test_explicit_stream)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  p.fb_check = true;
  cc_image f0, f1;
  CC_ASSERT_OK (cv_synth_clip_frame (2, 161, 97, &f0, NULL));
  CC_ASSERT_OK (cv_synth_clip_frame (3, 161, 97, &f1, NULL));
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_image flow[3], conf[3];
    for (int m = 0; m < 3; m++)
      lk_pair_stream (cv_test_backend (b), 0, (lk_stream_mode) m, &p, &f0, &f1, NULL,
          &flow[m], &conf[m]);
    for (int m = 1; m < 3; m++) {
      cv_test_assert_same_bits (&flow[0], &flow[m], "flow, NULL vs named stream");
      cv_test_assert_same_bits (&conf[0], &conf[m], "confidence, NULL vs named stream");
    }
    /* and the flow is real: the clip's frames move */
    cc_image zero = cv_test_constant_field (161, 97, 0.0f, 0.0f);
    ck_assert_msg (cv_test_mean_abs_diff (&flow[0], &zero) > 0.01,
        "%s: zero flow between two moving frames", cc_backend_name (cv_test_backend (b)));
    cv_image_free (&zero);
    for (int m = 0; m < 3; m++) {
      cv_image_free (&flow[m]);
      cv_image_free (&conf[m]);
    }
  }
  cv_image_free (&f0);
  cv_image_free (&f1);
}
END_TEST

/* The same pairs on CUDA and CPU agree within 0.01 px mean. */
START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("gpu_matches_cpu");
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  for (int fb = 0; fb < 2; fb++) {
    p.fb_check = fb;
    cc_image f0, f1, fc, cc_, fg, cg;
    CC_ASSERT_OK (cv_synth_clip_frame (2, 641, 359, &f0, NULL));
    CC_ASSERT_OK (cv_synth_clip_frame (3, 641, 359, &f1, NULL));
    lk_pair (CC_BACKEND_CPU, &p, &f0, &f1, NULL, &fc, &cc_);
    lk_pair (CC_BACKEND_CUDA, &p, &f0, &f1, NULL, &fg, &cg);
    double d = cv_test_mean_abs_diff (&fc, &fg);
    printf ("GPU vs CPU (fb %d): mean |diff| %.5f px\n", fb, d);
    ck_assert_msg (d <= 0.01, "GPU and CPU differ by %.5f px mean", d);
    cv_image_free (&f0); cv_image_free (&f1); cv_image_free (&fc);
    cv_image_free (&cc_); cv_image_free (&fg); cv_image_free (&cg);
  }
}
END_TEST

/* Middlebury pairs with ground truth (../shared/media): EPE per sequence, bounded. */
START_TEST (test_middlebury)
{
  const char *media = cv_test_shared_media_with ("middlebury", "optflow/middlebury");
  if (!media)
    CV_SKIP ("middlebury", CV_SKIP_NO_MEDIA);
  /* CPU reference figures measured at the defaults (5 levels, 3 iterations, 9x9):
   * Dimetrodon 0.227, Grove2 0.381, RubberWhale 0.266, Venus 0.629; bounds leave ~15% */
  struct { const char *name; double bound; } seq[] = {
    { "Dimetrodon", 0.26 }, { "Grove2", 0.44 }, { "RubberWhale", 0.31 }, { "Venus", 0.72 },
  };
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  for (int bk = 0; bk < cv_test_backend_count (); bk++) {
    double sum = 0;
    for (int i = 0; i < 4; i++) {
      char p1[4096], p2[4096], g[4096];
      snprintf (p1, sizeof p1, "%s/optflow/middlebury/%s/frame10.png", media, seq[i].name);
      snprintf (p2, sizeof p2, "%s/optflow/middlebury/%s/frame11.png", media, seq[i].name);
      snprintf (g, sizeof g, "%s/optflow/middlebury/%s/flow10.flo", media, seq[i].name);
      cc_image a, b, gt, flow, conf;
      CC_ASSERT_OK (cv_png_load (p1, CC_FORMAT_RGBX8, &a));
      CC_ASSERT_OK (cv_png_load (p2, CC_FORMAT_RGBX8, &b));
      CC_ASSERT_OK (cc_flo_read (g, &gt));
      lk_pair (cv_test_backend (bk), &p, &a, &b, NULL, &flow, &conf);
      cc_flow_metrics m;
      CC_ASSERT_OK (cc_flow_compare (&flow, &gt, 0, &m));
      printf ("Middlebury %-12s on %s: EPE %.3f  AE %.2f deg  >1px %.1f%%\n", seq[i].name,
          cc_backend_name (cv_test_backend (bk)), m.epe, m.angular_error, 100 * m.over1);
      ck_assert_msg (m.epe < seq[i].bound, "%s EPE %.3f >= %.2f", seq[i].name, m.epe,
          seq[i].bound);
      sum += m.epe;
      cv_image_free (&a); cv_image_free (&b); cc_flo_free (&gt);
      cv_image_free (&flow); cv_image_free (&conf);
    }
    printf ("Middlebury mean EPE on %s: %.3f\n", cc_backend_name (cv_test_backend (bk)), sum / 4);
    ck_assert_msg (sum / 4 <= 0.6, "mean EPE %.3f > 0.6", sum / 4);
  }
}
END_TEST

static Suite *
flow_lk_suite (void)
{
  Suite *s = suite_create ("flow-lk");
  TCase *tc = tcase_create ("lk");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_subpixel_translations);
  tcase_add_test (tc, test_large_motion_through_pyramid);
  tcase_add_test (tc, test_synthetic_clip);
  tcase_add_test (tc, test_constant_images_zero_confidence);
  tcase_add_test (tc, test_odd_and_tiny_sizes);
  tcase_add_test (tc, test_mask_roi);
  tcase_add_test (tc, test_forward_backward_check);
  tcase_add_test (tc, test_push_streaming);
  tcase_add_test (tc, test_invalid_parameters);
  tcase_add_test (tc, test_set_params);
  tcase_add_test (tc, test_cpu_threads_bit_exact);
  tcase_add_test (tc, test_explicit_stream);
  tcase_add_test (tc, test_gpu_matches_cpu);
  tcase_add_test (tc, test_middlebury);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (flow_lk_suite ());
}
