/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudaflowepic through GstHarness: a 40 px translation recovered in the meta (beyond
 * cudaflowlk's reach), the confidence type and range, the first frame not valid,
 * stream resets, visualize=quality drawing the confidence, and cudaupload ->
 * cudaflowepic -> cudadownload (CUDA memory) against the CPU backend. */
#include "element_common.h"
#include "gstcvflowmeta.h"
#include <math.h>
#include <string.h>

/* Pushes a pair; the first output carries a not-valid meta. Returns the second output. */
static GstBuffer *
push_pair (GstHarness * hn, const gchar * format, const guint8 * a, const guint8 * b, int w,
    int h)
{
  GstBuffer *first = cv_push_gray (hn, format, a, w, h);
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (first);
  fail_unless (m != NULL);
  ck_assert (!m->valid);
  gst_buffer_unref (first);
  return cv_push_gray (hn, format, b, w, h);
}

/* (40, -12) px: interior vectors within 0.5 px, confidence in [0, 1] and high there. */
GST_START_TEST (test_large_translation_meta)
{
  const int w = 200, h = 120;
  guint8 *a, *b;
  cv_translation_pair (w, h, 40.0, -12.0, &a, &b);
  const gchar *formats[] = { "GRAY8", "NV12", "BGRx" };
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *hn = cv_harness_new ("cudaflowepic backend=cpu", formats[f], w, h);
    GstBuffer *out = push_pair (hn, formats[f], a, b, w, h);
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out);
    fail_unless (m != NULL);
    ck_assert (m->valid);
    ck_assert_uint_eq (m->grid_width, w);
    ck_assert_uint_eq (m->cell_width, 1);
    ck_assert_int_eq (m->confidence, GST_CV_FLOW_CONFIDENCE_CONSISTENCY);
    const gfloat *uv, *conf;
    gsize us, cs;
    fail_unless (gst_cv_flow_meta_map_host (m, &uv, &us, &conf, &cs));
    int good = 0, total = 0;
    for (int y = 20; y < h - 20; y++)
      for (int x = 50; x < w - 45; x++) {   /* the target stays inside */
        const gfloat *v = cv_flow_vector (uv, us, x, y);
        gfloat c = cv_flow_confidence (conf, cs, x, y);
        fail_unless (c >= 0.0f && c <= 1.0f, "confidence %g", c);
        good += fabsf (v[0] - 40.0f) < 0.5f && fabsf (v[1] + 12.0f) < 0.5f && c > 0.5f;
        total++;
      }
    fail_unless (good >= total * 95 / 100, "%s: %d of %d interior pixels right", formats[f],
        good, total);
    gst_buffer_unref (out);
    gst_harness_teardown (hn);
  }
  g_free (a);
  g_free (b);
}
GST_END_TEST;

/* A flat frame: no match survives: zero flow, zero confidence, and visualize=quality
 * draws black. */
GST_START_TEST (test_flat_frames)
{
  cv_check_flat_pair ("cudaflowepic backend=cpu visualize=quality", 64, 48, TRUE);
}
GST_END_TEST;

GST_START_TEST (test_reset_on_flush_discont_segment)
{
  cv_check_stream_resets ("cudaflowepic backend=%s");
}
GST_END_TEST;

/* cudaupload -> cudaflowepic visualize=color -> cudadownload: the field stays on the
 * device and equals the CPU backend's (matches and interpolation are the same bits;
 * the refinement's fp16 sweeps: mean 0.05 px). */
GST_START_TEST (test_cuda_memory_matches_cpu)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("cudaflowepic cuda_memory_matches_cpu");
  cv_check_flow_cuda_vs_cpu ("cudaflowepic cuda_memory_matches_cpu",
      "videotestsrc pattern=ball motion=sweep num-buffers=4 ! "
      "video/x-raw,format=NV12,width=642,height=480", "cudaflowepic visualize=color", 0.05);
}
GST_END_TEST;

static Suite *
cudaflowepic_suite (void)
{
  Suite *s = suite_create ("cudaflowepic");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_large_translation_meta);
  tcase_add_test (tc, test_flat_frames);
  tcase_add_test (tc, test_reset_on_flush_discont_segment);
  tcase_add_test (tc, test_cuda_memory_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (cudaflowepic);
