/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flow visualisation: CPU behaviour (arrow drawing order, invalid cells), the CUDA
 * twin against the CPU on every frame format and mode (when a device exists), and
 * cc_timer. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_flow_vis.h>
#include <cudacore/cc_timer.h>

#include <math.h>
#include <string.h>

/* A field with varied and large vectors, invalid cells and a NaN vector. */
static void
make_field (int gw, int gh, cc_image *flow, cc_image *conf)
{
  CC_ASSERT_OK (cv_image_new (gw, gh, CC_FORMAT_F32C2, flow));
  CC_ASSERT_OK (cv_image_new (gw, gh, CC_FORMAT_F32, conf));
  for (int y = 0; y < gh; y++)
    for (int x = 0; x < gw; x++) {
      float *v = (float *) ((char *) flow->planes[0] + y * flow->pitch[0]) + 2 * x;
      v[0] = 6 * sinf (x * 0.13f + y * 0.05f) + (x % 17 == 0 ? 20 : 0);
      v[1] = 5 * cosf (x * 0.07f - y * 0.11f);
      float *c = (float *) ((char *) conf->planes[0] + y * conf->pitch[0]) + x;
      *c = (x * 7 + y * 3) % 11 == 0 ? CC_FLOW_INVALID : ((x + y) % 5) * 2e-4f;
    }
  ((float *) flow->planes[0])[0] = NAN;
}

/* A host frame of a format (all planes), from the synthetic clip. */
static void
make_frame (cc_format fmt, int w, int h, cc_image *out)
{
  cc_image rgbx;
  CC_ASSERT_OK (cv_synth_clip_frame (1, w, h, &rgbx, NULL));
  CC_ASSERT_OK (cc_image_alloc (NULL, w, h, fmt, CC_LOCATION_HOST, out));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *s = (const uint8_t *) rgbx.planes[0] + y * rgbx.pitch[0] + 4 * x;
      uint8_t *d = (uint8_t *) out->planes[0] + y * out->pitch[0];
      if (fmt == CC_FORMAT_RGBX8 || fmt == CC_FORMAT_BGRX8)
        memcpy (d + 4 * x, s, 4);
      else
        d[x] = s[1];
    }
  for (int p = 1; p < cc_format_planes (fmt); p++)
    memset (out->planes[p], 100 + 20 * p, out->pitch[p] * ((h + 1) / 2));
  cv_image_free (&rgbx);
}

/* ARROWS: every tail dot is black, even where a later arrow's line crosses it. */
START_TEST (test_arrow_tails_on_top)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  const int w = 64, h = 32;
  cc_image frame, flow;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &frame));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_F32C2, &flow));
  /* every vector is 12 px long (max_magnitude 8, spacing 8, scale 1: 12 px), pointing
   * left: each line crosses the tail of the arrow before */
  for (int i = 0; i < w * h; i++) {
    ((float *) flow.planes[0])[2 * i] = -12.0f;
    ((float *) flow.planes[0])[2 * i + 1] = 0.0f;
  }
  cc_flow_vis_params vp;
  cc_flow_vis_params_default (&vp);
  vp.mode = CC_FLOW_VIS_ARROWS;
  vp.arrow_spacing = 8;
  CC_ASSERT_OK (cc_flow_vis_draw (ctx, NULL, &flow, NULL, &vp, &frame));
  for (int y = 4; y < h; y += 8)
    for (int x = 4; x < w; x += 8) {
      const uint8_t *px = (const uint8_t *) frame.planes[0] + y * frame.pitch[0] + 4 * x;
      ck_assert_msg (px[0] == 0 && px[1] == 0 && px[2] == 0,
          "tail (%d,%d) is (%d,%d,%d), not black", x, y, px[0], px[1], px[2]);
      /* the pixel left of a tail lies on this arrow's line: white */
      ck_assert_int_eq (px[-4], 255);
    }
  cv_image_free (&frame);
  cv_image_free (&flow);
  cc_context_destroy (ctx);
}
END_TEST

/* The CUDA twin writes the same bytes as the CPU (COLOR may differ by one level on
 * a few pixels: atan2f of the device and of the host libm can differ by an ulp). */
START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("vis gpu_matches_cpu");
  cc_context *cpu, *gpu;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, -1, &gpu));
  const int W = 643, H = 363;
  cc_image flow, conf, dflow, dconf;
  make_field (161, 91, &flow, &conf);
  CC_ASSERT_OK (cv_test_to_backend (gpu, &flow, &dflow));
  CC_ASSERT_OK (cv_test_to_backend (gpu, &conf, &dconf));
  const cc_format fmts[] = { CC_FORMAT_RGBX8, CC_FORMAT_BGRX8, CC_FORMAT_GRAY8,
    CC_FORMAT_NV12, CC_FORMAT_I420 };
  for (int fi = 0; fi < 5; fi++)
    for (int mode = CC_FLOW_VIS_COLOR; mode <= CC_FLOW_VIS_QUALITY; mode++)
      for (int variant = 0; variant < 3; variant++) {
        /* variant 0: confidence; 1: confidence + min_confidence; 2: no confidence */
        if (mode == CC_FLOW_VIS_QUALITY && variant == 2)
          continue;
        cc_flow_vis_params vp;
        cc_flow_vis_params_default (&vp);
        vp.mode = mode;
        vp.arrow_spacing = 8;
        vp.arrow_scale = 3.0f;
        vp.min_confidence = variant == 1 ? 3e-4f : 0.0f;
        const cc_image *c = variant == 2 ? NULL : &conf, *dc = variant == 2 ? NULL : &dconf;
        cc_image fc, dfr, fg;
        make_frame (fmts[fi], W, H, &fc);
        CC_ASSERT_OK (cv_test_to_backend (gpu, &fc, &dfr));
        CC_ASSERT_OK (cc_flow_vis_draw (cpu, NULL, &flow, c, &vp, &fc));
        CC_ASSERT_OK (cc_flow_vis_draw (gpu, NULL, &dflow, dc, &vp, &dfr));
        CC_ASSERT_OK (cc_image_alloc (NULL, W, H, fmts[fi], CC_LOCATION_HOST, &fg));
        CC_ASSERT_OK (cc_image_copy (gpu, NULL, &dfr, &fg));
        long differ = 0, total = 0;
        int maxd = 0;
        for (int p = 0; p < cc_format_planes (fmts[fi]); p++) {
          int ph = p ? (H + 1) / 2 : H;
          size_t row = fmts[fi] == CC_FORMAT_RGBX8 || fmts[fi] == CC_FORMAT_BGRX8 ? 4 * W
              : p == 0 ? W : fmts[fi] == CC_FORMAT_NV12 ? 2 * ((W + 1) / 2) : (W + 1) / 2;
          for (int y = 0; y < ph; y++)
            for (size_t x = 0; x < row; x++) {
              int a = ((uint8_t *) fc.planes[p])[y * fc.pitch[p] + x];
              int b = ((uint8_t *) fg.planes[p])[y * fg.pitch[p] + x];
              total++;
              if (a != b) {
                differ++;
                maxd = abs (a - b) > maxd ? abs (a - b) : maxd;
              }
            }
        }
        printf ("vis %s mode %d variant %d: %ld of %ld bytes differ (max %d)\n",
            cc_format_name (fmts[fi]), mode, variant, differ, total, maxd);
        if (mode == CC_FLOW_VIS_COLOR)
          ck_assert_msg (maxd <= 1 && differ * 1000 <= total,
              "COLOR %s: %ld bytes differ, max %d", cc_format_name (fmts[fi]), differ, maxd);
        else
          ck_assert_msg (differ == 0, "mode %d %s: %ld bytes differ", mode,
              cc_format_name (fmts[fi]), differ);
        cc_image_free (NULL, &fc);
        cc_image_free (NULL, &fg);
        cc_image_free (gpu, &dfr);
      }
  cc_image_free (gpu, &dflow);
  cc_image_free (gpu, &dconf);
  cv_image_free (&flow);
  cv_image_free (&conf);
  cc_context_destroy (cpu);
  cc_context_destroy (gpu);
}
END_TEST

/* The CPU drawing gives the same bytes on 1 and 4 threads (rows split among them,
 * 4 > the cores of a small machine) in every mode, on an odd size with a chroma
 * format (the even rows write the chroma) and a packed one. */
START_TEST (test_cpu_threads_bit_exact)
{
  cc_context *ctx[2];
  const int threads[2] = { 1, 4 };
  for (int t = 0; t < 2; t++) {
    CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx[t]));
    CC_ASSERT_OK (cc_context_set_threads (ctx[t], threads[t]));
  }
  const int W = 643, H = 363;
  cc_image flow, conf;
  make_field (161, 91, &flow, &conf);
  const cc_format fmts[] = { CC_FORMAT_RGBX8, CC_FORMAT_NV12, CC_FORMAT_I420 };
  for (int fi = 0; fi < 3; fi++)
    for (int mode = CC_FLOW_VIS_COLOR; mode <= CC_FLOW_VIS_QUALITY; mode++) {
      cc_flow_vis_params vp;
      cc_flow_vis_params_default (&vp);
      vp.mode = mode;
      vp.min_confidence = 3e-4f;
      cc_image fr[2];
      for (int t = 0; t < 2; t++) {
        make_frame (fmts[fi], W, H, &fr[t]);
        CC_ASSERT_OK (cc_flow_vis_draw (ctx[t], NULL, &flow, &conf, &vp, &fr[t]));
      }
      char what[64];
      snprintf (what, sizeof what, "%s mode %d, 1 vs 4 threads", cc_format_name (fmts[fi]),
          mode);
      cv_test_assert_same_bits (&fr[0], &fr[1], what);
      cc_image_free (NULL, &fr[0]);
      cc_image_free (NULL, &fr[1]);
    }
  cv_image_free (&flow);
  cv_image_free (&conf);
  cc_context_destroy (ctx[0]);
  cc_context_destroy (ctx[1]);
}
END_TEST

/* cc_timer on every backend: a stop before any start is refused, times are sane. */
START_TEST (test_timer)
{
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_context *ctx;
    CC_ASSERT_OK (cc_context_create (cv_test_backend (b), -1, &ctx));
    cc_timer *t;
    CC_ASSERT_OK (cc_timer_create (ctx, &t));
    float ms = -1.0f;
    CC_ASSERT_OK (cc_timer_start (t, NULL));
    CC_ASSERT_OK (cc_timer_stop (t, NULL));
    CC_ASSERT_OK (cc_timer_elapsed_ms (t, &ms));
    ck_assert_msg (ms >= 0.0f && ms < 1000.0f, "timer gave %g ms", ms);
    cc_timer_destroy (t);
    cc_context_destroy (ctx);
  }
}
END_TEST

static Suite *
flow_vis_suite (void)
{
  Suite *s = suite_create ("flow-vis");
  TCase *tc = tcase_create ("vis");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_arrow_tails_on_top);
  tcase_add_test (tc, test_gpu_matches_cpu);
  tcase_add_test (tc, test_cpu_threads_bit_exact);
  tcase_add_test (tc, test_timer);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (flow_vis_suite ());
}
