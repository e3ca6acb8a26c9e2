/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudaflowepic through GstHarness: a 40 px translation recovered in the meta (beyond
 * cudaflowlk's reach), the confidence type and range, the first frame not valid,
 * stream resets, visualize=quality drawing the confidence, and cudaupload ->
 * cudaflowepic -> cudadownload (CUDA memory) against the CPU backend. */
#include "element_common.h"
#include "gstcvflowmeta.h"
#include <math.h>
#include <string.h>

static GstBuffer *
push_pair (GstHarness * hn, const gchar * format, const guint8 * a, const guint8 * b, int w,
    int h, GstCvFlowMeta ** first_meta)
{
  GstBuffer *first = gst_harness_push_and_pull (hn, cv_buffer_from_gray (format, a, w, h));
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (first);
  fail_unless (m != NULL);
  if (first_meta)
    *first_meta = m;
  ck_assert (!m->valid);
  gst_buffer_unref (first);
  return gst_harness_push_and_pull (hn, cv_buffer_from_gray (format, b, w, h));
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
    GstBuffer *out = push_pair (hn, formats[f], a, b, w, h, NULL);
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
        const gfloat *v = (const gfloat *) ((const guint8 *) uv + y * us) + 2 * x;
        gfloat c = ((const gfloat *) ((const guint8 *) conf + y * cs))[x];
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
  const int w = 64, h = 48;
  guint8 *flat = g_malloc (w * h);
  memset (flat, 120, w * h);
  GstHarness *hn = cv_harness_new ("cudaflowepic backend=cpu visualize=quality", "GRAY8", w, h);
  GstBuffer *out = push_pair (hn, "GRAY8", flat, flat, w, h, NULL);
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out);
  ck_assert (m->valid);
  const gfloat *uv, *conf;
  gsize us, cs;
  fail_unless (gst_cv_flow_meta_map_host (m, &uv, &us, &conf, &cs));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const gfloat *v = (const gfloat *) ((const guint8 *) uv + y * us) + 2 * x;
      fail_unless (v[0] == 0.0f && v[1] == 0.0f);
      fail_unless (((const gfloat *) ((const guint8 *) conf + y * cs))[x] == 0.0f);
    }
  GstMapInfo map;
  gst_buffer_map (out, &map, GST_MAP_READ);
  for (int i = 0; i < w * h; i++)
    ck_assert_int_eq (map.data[i], 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (hn);
  g_free (flat);
}
GST_END_TEST;

GST_START_TEST (test_reset_on_flush_discont_segment)
{
  const gchar *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < 2; b++) {
    if (b == 1 && cc_cuda_device_count () == 0) {
      g_print ("SKIP cudaflowepic reset on backend=cuda: no CUDA device\n");
      continue;
    }
    gchar *launch = g_strdup_printf ("cudaflowepic backend=%s", backends[b]);
    cv_check_stream_reset (launch, CV_RESET_FLUSH);
    cv_check_stream_reset (launch, CV_RESET_DISCONT);
    cv_check_stream_reset (launch, CV_RESET_SEGMENT);
    g_free (launch);
  }
}
GST_END_TEST;

/* The flow of the second frame through `launch` (appsink "sink"; the element, when
 * named "flow", must have been given CUDA memory). */
static gfloat *
pipeline_flow (const gchar * launch, int w, int h, gboolean * on_device)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstSample *s = NULL;
  for (int i = 0; i < 2; i++) {
    if (s)
      gst_sample_unref (s);
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL, "no sample from %s", launch);
  }
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (gst_sample_get_buffer (s));
  fail_unless (m && m->valid);
  GstElement *flow = gst_bin_get_by_name (GST_BIN (pipe), "flow");
  if (flow) {
    GstPad *pad = gst_element_get_static_pad (flow, "sink");
    GstCaps *caps = gst_pad_get_current_caps (pad);
    fail_unless (caps && gst_caps_features_contains (gst_caps_get_features (caps, 0),
            "memory:CUDAMemory"), "cudaflowepic got %" GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);
    gst_object_unref (pad);
    gst_object_unref (flow);
  }
  gconstpointer dv;
  *on_device = gst_cv_flow_meta_get_device (m, &dv, NULL, NULL, NULL);
  const gfloat *uv;
  gsize st;
  fail_unless (gst_cv_flow_meta_map_host (m, &uv, &st, NULL, NULL));
  gfloat *out = g_new (gfloat, 2 * w * h);
  for (int y = 0; y < h; y++)
    memcpy (out + 2 * w * y, (const guint8 *) uv + y * st, 8 * w);
  gst_sample_unref (s);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return out;
}

/* cudaupload -> cudaflowepic visualize=color -> cudadownload: the field stays on the
 * device and equals the CPU backend's (matches and interpolation are the same bits;
 * the refinement's fp16 sweeps: mean 0.05 px). */
GST_START_TEST (test_cuda_memory_matches_cpu)
{
  if (!cv_have_cuda_elements ("cudaflowepic cuda_memory_matches_cpu"))
    return;
  const gchar *src = "videotestsrc pattern=ball motion=sweep num-buffers=4 ! "
      "video/x-raw,format=NV12,width=642,height=480";
  gchar *gpu = g_strdup_printf ("%s ! cudaupload ! video/x-raw(memory:CUDAMemory) ! "
      "cudaflowepic name=flow backend=cuda visualize=color ! cudadownload ! "
      "appsink name=sink sync=false", src);
  gchar *cpu = g_strdup_printf ("%s ! cudaflowepic backend=cpu visualize=color ! "
      "appsink name=sink sync=false", src);
  gboolean dev_g, dev_c;
  gfloat *fg = pipeline_flow (gpu, 642, 480, &dev_g), *fc = pipeline_flow (cpu, 642, 480, &dev_c);
  ck_assert (dev_g);
  ck_assert (!dev_c);
  double diff = 0;
  for (int i = 0; i < 2 * 642 * 480; i++)
    diff += fabs (fg[i] - fc[i]);
  diff /= 2 * 642 * 480;
  g_print ("cudaflowepic CUDA memory vs CPU: mean |diff| %.5f px\n", diff);
  ck_assert_msg (diff <= 0.05, "mean |diff| %.5f px", diff);
  g_free (fg); g_free (fc); g_free (gpu); g_free (cpu);
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

GST_CHECK_MAIN (cudaflowepic);
