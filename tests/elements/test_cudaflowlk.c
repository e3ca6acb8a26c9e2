/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudaflowlk through GstHarness: caps per format, the flow meta's grid and values,
 * exact visualisation pixels, live property and resolution changes, odd sizes,
 * refused property values, states, no-GPU behaviour, and CUDA memory when present. */
#include "element_common.h"
#include "gstcvfilter.h"
#include "gstcvflowmeta.h"
#include <cudacore/cc_flow_vis.h>
#include <math.h>
#include <string.h>

static const gchar *formats[] = { "GRAY8", "NV12", "I420", "RGBA", "BGRA", "RGBx", "BGRx" };

/* Mean vector over the interior of a host meta view. */
static void
meta_mean (GstCvFlowMeta * meta, int border, double *u, double *v)
{
  const gfloat *uv;
  gsize stride;
  fail_unless (gst_cv_flow_meta_map_host (meta, &uv, &stride, NULL, NULL));
  double su = 0, sv = 0;
  long n = 0;
  for (guint y = border; y < meta->grid_height - border; y++)
    for (guint x = border; x < meta->grid_width - border; x++) {
      const gfloat *p = cv_flow_vector (uv, stride, x, y);
      su += p[0];
      sv += p[1];
      n++;
    }
  *u = su / n;
  *v = sv / n;
}

GST_START_TEST (test_formats_and_meta)
{
  const int w = 160, h = 120;
  guint8 *a, *b;
  cv_translation_pair (w, h, 1.0, 0.5, &a, &b);
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *hn = cv_harness_new ("cudaflowlk backend=cpu", formats[f], w, h);
    GstBuffer *out1 = cv_push_gray (hn, formats[f], a, w, h);
    GstBuffer *out2 = cv_push_gray (hn, formats[f], b, w, h);
    fail_unless (out1 && out2, "%s: no output", formats[f]);
    GstCaps *caps = gst_pad_get_current_caps (hn->sinkpad);
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, caps));
    ck_assert_str_eq (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)), formats[f]);
    gst_caps_unref (caps);
    GstCvFlowMeta *m1 = gst_buffer_get_cv_flow_meta (out1);
    GstCvFlowMeta *m2 = gst_buffer_get_cv_flow_meta (out2);
    fail_unless (m1 && m2, "%s: flow meta missing", formats[f]);
    ck_assert_uint_eq (m2->grid_width, w);
    ck_assert_uint_eq (m2->grid_height, h);
    ck_assert_uint_eq (m2->cell_width, 1);
    ck_assert (!m1->valid);
    ck_assert (m2->valid);
    double u, v;
    meta_mean (m1, 0, &u, &v);
    ck_assert_msg (u == 0.0 && v == 0.0, "first frame flow must be zero");
    meta_mean (m2, 16, &u, &v);
    ck_assert_msg (fabs (u - 1.0) < 0.05 && fabs (v - 0.5) < 0.05,
        "%s: mean flow (%.3f, %.3f), expected (1, 0.5)", formats[f], u, v);
    gst_buffer_unref (out1);
    gst_buffer_unref (out2);
    gst_harness_teardown (hn);
  }
  g_free (a);
  g_free (b);
}
GST_END_TEST;

/* visualize=color writes exactly cc_flow_vis_draw's pixels for the meta's field. */
GST_START_TEST (test_visualize_color_pixels)
{
  const int w = 96, h = 64;
  guint8 *a, *b;
  cv_translation_pair (w, h, 2.0, 0.0, &a, &b);
  GstHarness *hn = cv_harness_new ("cudaflowlk backend=cpu visualize=color max-magnitude=8",
      "RGBA", w, h);
  GstBuffer *out = cv_push_pair (hn, "RGBA", a, b, w, h);
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out);
  fail_unless (m != NULL);
  const gfloat *uv, *conf;
  gsize us, cs;
  fail_unless (gst_cv_flow_meta_map_host (m, &uv, &us, &conf, &cs));
  /* expected: the CPU drawing of the same field into a blank frame (the colour
   * modes overwrite every pixel's RGB) */
  cc_image field = cc_image_view ((void *) uv, us, w, h, CC_FORMAT_F32C2, CC_LOCATION_HOST);
  cc_image cfield = cc_image_view ((void *) conf, cs, w, h, CC_FORMAT_F32, CC_LOCATION_HOST);
  guint8 *expect = g_malloc0 (w * h * 4);
  cc_image ex = cc_image_view (expect, w * 4, w, h, CC_FORMAT_RGBX8, CC_LOCATION_HOST);
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_flow_vis_params vp;
  cc_flow_vis_params_default (&vp);
  vp.min_confidence = 1e-6f;
  CC_ASSERT_OK (cc_flow_vis_draw (ctx, NULL, &field, &cfield, &vp, &ex));
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (int i = 0; i < w * h; i++)
    for (int c = 0; c < 3; c++)
      ck_assert_msg (map.data[4 * i + c] == expect[4 * i + c],
          "pixel %d channel %d: %d != %d", i, c, map.data[4 * i + c], expect[4 * i + c]);
  /* and it is the wheel's colour for (2, 0) / 8 in the interior */
  guint8 r, g, bb;
  cc_flow_color_rgb (2.0f / 8.0f, 0.0f, &r, &g, &bb);
  const guint8 *px = map.data + 4 * (32 * w + 48);
  ck_assert_msg (abs (px[0] - r) <= 3 && abs (px[1] - g) <= 3 && abs (px[2] - bb) <= 3,
      "centre colour (%d,%d,%d) vs wheel (%d,%d,%d)", px[0], px[1], px[2], r, g, bb);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  cc_context_destroy (ctx);
  g_free (expect);
  gst_harness_teardown (hn);
  g_free (a);
  g_free (b);
}
GST_END_TEST;

GST_START_TEST (test_property_change_mid_stream)
{
  const int w = 96, h = 64;
  guint8 *a, *b;
  cv_translation_pair (w, h, 1.5, 0.0, &a, &b);
  GstHarness *hn = cv_harness_new ("cudaflowlk name=lk backend=cpu", "GRAY8", w, h);
  GstElement *lk = gst_harness_find_element (hn, "cudaflowlk");
  GstBuffer *o1 = cv_push_gray (hn, "GRAY8", a, w, h);
  GstBuffer *o2 = cv_push_gray (hn, "GRAY8", b, w, h);
  GstMapInfo m2;
  gst_buffer_map (o2, &m2, GST_MAP_READ);
  ck_assert_int_eq (memcmp (m2.data, b, w * h), 0);  /* visualize=none: video unchanged */
  gst_buffer_unmap (o2, &m2);
  g_object_set (lk, "visualize", 1, "window-size", 15, "iterations", 5, NULL);
  GstBuffer *o3 = cv_push_gray (hn, "GRAY8", a, w, h);
  GstMapInfo m3;
  gst_buffer_map (o3, &m3, GST_MAP_READ);
  ck_assert_int_ne (memcmp (m3.data, a, w * h), 0);  /* now drawn */
  gst_buffer_unmap (o3, &m3);
  double u, v;
  GstCvFlowMeta *meta = gst_buffer_get_cv_flow_meta (o3);
  meta_mean (meta, 20, &u, &v);
  ck_assert_msg (fabs (u + 1.5) < 0.1, "back to frame a: u %.3f, expected -1.5", u);
  gint ws;
  g_object_get (lk, "window-size", &ws, NULL);
  ck_assert_int_eq (ws, 15);
  gst_buffer_unref (o1); gst_buffer_unref (o2); gst_buffer_unref (o3);
  gst_object_unref (lk);
  gst_harness_teardown (hn);
  g_free (a);
  g_free (b);
}
GST_END_TEST;

GST_START_TEST (test_resolution_change_mid_stream)
{
  guint8 *a, *b, *c, *d;
  cv_translation_pair (128, 96, 1.0, 0.0, &a, &b);
  cv_translation_pair (64, 48, 0.0, 1.0, &c, &d);
  GstHarness *hn = cv_harness_new ("cudaflowlk backend=cpu", "I420", 128, 96);
  gst_buffer_unref (cv_push_gray (hn, "I420", a, 128, 96));
  gst_buffer_unref (cv_push_gray (hn, "I420", b, 128, 96));
  gst_harness_set_src_caps_str (hn, "video/x-raw,format=I420,width=64,height=48,framerate=30/1");
  GstBuffer *o1 = cv_push_gray (hn, "I420", c, 64, 48);
  GstBuffer *o2 = cv_push_gray (hn, "I420", d, 64, 48);
  GstCvFlowMeta *m1 = gst_buffer_get_cv_flow_meta (o1), *m2 = gst_buffer_get_cv_flow_meta (o2);
  ck_assert_uint_eq (m1->grid_width, 64);
  ck_assert_uint_eq (m1->grid_height, 48);
  ck_assert (!m1->valid);   /* new size: no previous frame */
  ck_assert (m2->valid);
  double u, v;
  meta_mean (m2, 12, &u, &v);
  ck_assert_msg (fabs (v - 1.0) < 0.1 && fabs (u) < 0.1, "flow after resize (%.3f, %.3f)", u, v);
  gst_buffer_unref (o1); gst_buffer_unref (o2);
  gst_harness_teardown (hn);
  g_free (a); g_free (b); g_free (c); g_free (d);
}
GST_END_TEST;

GST_START_TEST (test_odd_and_tiny_sizes)
{
  const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 641, 479 } };
  for (int s = 0; s < 3; s++)
    for (int f = 0; f < 3; f++) {
      int w = sizes[s][0], h = sizes[s][1];
      guint8 *a, *b;
      cv_translation_pair (w, h, 0.5, 0.5, &a, &b);
      GstHarness *hn = cv_harness_new ("cudaflowlk backend=cpu visualize=color",
          formats[f], w, h);
      GstBuffer *o = cv_push_pair (hn, formats[f], a, b, w, h);
      GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (o);
      fail_unless (m && m->grid_width == (guint) w && m->grid_height == (guint) h);
      const gfloat *uv;
      gsize st;
      fail_unless (gst_cv_flow_meta_map_host (m, &uv, &st, NULL, NULL));
      for (int y = 0; y < h; y++)
        for (int x = 0; x < 2 * w; x++)
          fail_unless (isfinite (((const gfloat *) ((const guint8 *) uv + y * st))[x]));
      gst_buffer_unref (o);
      gst_harness_teardown (hn);
      g_free (a);
      g_free (b);
    }
}
GST_END_TEST;

GST_START_TEST (test_invalid_property_values)
{
  GstElement *lk = gst_element_factory_make ("cudaflowlk", NULL);
  fail_unless (lk != NULL);
  GstBus *bus = cv_watch_bus (lk);
  /* refused by the element: a warning on the bus */
  g_object_set (lk, "window-size", 10, NULL);
  cv_assert_warning (bus, "window-size must be odd (got 10); keeping 9");
  g_object_set (lk, "roi", "10,10,-5,3", NULL);
  cv_assert_warning (bus, "roi must be \"x,y,width,height\" (got \"10,10,-5,3\"); unchanged");
  gst_element_set_bus (lk, NULL);
  gst_object_unref (bus);
  /* outside the property's range: GObject's warning */
  ASSERT_WARNING (g_object_set (lk, "window-size", 33, NULL));
  ASSERT_WARNING (g_object_set (lk, "pyramid-levels", 0, NULL));
  ASSERT_WARNING (g_object_set (lk, "max-magnitude", 0.0, NULL));
  gint ws, lv;
  gchar *roi;
  g_object_get (lk, "window-size", &ws, "pyramid-levels", &lv, "roi", &roi, NULL);
  ck_assert_int_eq (ws, 9);
  ck_assert_int_eq (lv, 5);
  ck_assert_str_eq (roi, "");
  g_free (roi);
  g_object_set (lk, "roi", "8,4,32,16", NULL);
  g_object_get (lk, "roi", &roi, NULL);
  ck_assert_str_eq (roi, "8,4,32,16");
  g_free (roi);
  gst_object_unref (lk);
}
GST_END_TEST;

GST_START_TEST (test_roi_mask)
{
  const int w = 96, h = 64;
  guint8 *a, *b;
  cv_translation_pair (w, h, 1.0, 0.0, &a, &b);
  GstHarness *hn = cv_harness_new ("cudaflowlk backend=cpu roi=20,10,40,30", "GRAY8", w, h);
  GstBuffer *o = cv_push_pair (hn, "GRAY8", a, b, w, h);
  const gfloat *uv;
  gsize st;
  fail_unless (gst_cv_flow_meta_map_host (gst_buffer_get_cv_flow_meta (o), &uv, &st, NULL, NULL));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const gfloat *p = cv_flow_vector (uv, st, x, y);
      gboolean inside = x >= 20 && x < 60 && y >= 10 && y < 40;
      if (!inside)
        fail_unless (p[0] == 0.0f && p[1] == 0.0f, "flow outside the roi at (%d,%d)", x, y);
      else if (x >= 28 && x < 52 && y >= 18 && y < 32)
        fail_unless (fabsf (p[0] - 1.0f) < 0.1f, "roi interior (%d,%d) u %.3f", x, y, p[0]);
    }
  gst_buffer_unref (o);
  gst_harness_teardown (hn);
  g_free (a);
  g_free (b);
}
GST_END_TEST;

GST_START_TEST (test_states)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=5 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! cudaflowlk ! fakesink", NULL);
  fail_unless (pipe != NULL);
  const GstState states[] = { GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING,
    GST_STATE_PAUSED, GST_STATE_READY, GST_STATE_NULL, GST_STATE_PLAYING, GST_STATE_NULL };
  cv_cycle_states (pipe, states, G_N_ELEMENTS (states));
  gst_object_unref (pipe);
}
GST_END_TEST;

/* backend=cuda without a device: a clear element error, not a crash. */
GST_START_TEST (test_cuda_backend_without_device)
{
  if (cc_cuda_device_count () > 0)
    CV_SKIP ("cuda_backend_without_device", CV_SKIP_HAS_DEVICE);
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=GRAY8,width=32,height=32 ! cudaflowlk backend=cuda ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "expected an error");
  GError *err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  ck_assert_msg (strstr (err->message, "no CUDA device") != NULL, "error: %s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* cudaupload -> cudaflowlk (CUDA memory, no host copy) equals the CPU backend. */
GST_START_TEST (test_cuda_memory_matches_cpu)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("cudaflowlk cuda_memory_matches_cpu");
  cv_check_flow_cuda_vs_cpu ("cudaflowlk cuda_memory_matches_cpu",
      "videotestsrc pattern=ball num-buffers=4 ! video/x-raw,format=NV12,width=642,height=480",
      "cudaflowlk", 0.01);
}
GST_END_TEST;

/* Pulls the second output frame of `launch` (appsink "sink") into a packed copy. */
static guint8 *
pipeline_frame (const gchar * launch, gsize * size)
{
  GstElement *pipe;
  GstSample *s = cv_pipeline_second_sample (launch, &pipe);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (s)));
  GstVideoFrame vf;
  fail_unless (gst_video_frame_map (&vf, &info, gst_sample_get_buffer (s), GST_MAP_READ));
  int w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
  *size = (gsize) w * h * 4;
  guint8 *out = g_malloc (*size);
  for (int y = 0; y < h; y++)
    memcpy (out + (gsize) y * w * 4, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0), (gsize) w * 4);
  gst_video_frame_unmap (&vf);
  gst_sample_unref (s);
  cv_pipeline_stop (pipe);
  return out;
}

/* visualize=color drawn into CUDA memory (RGBA, odd width: padded pitch) gives the
 * CPU backend's pixels (device atan2f may move a colour by one level). */
GST_START_TEST (test_cuda_memory_visualize_matches_cpu)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("cuda_memory_visualize_matches_cpu");
  const gchar *src = "videotestsrc pattern=ball num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=641,height=361";
  gchar *gpu = g_strdup_printf ("%s ! cudaupload ! video/x-raw(memory:CUDAMemory) ! "
      "cudaflowlk backend=cuda visualize=color ! cudadownload ! "
      "video/x-raw,format=RGBA ! appsink name=sink sync=false", src);
  gchar *cpu = g_strdup_printf ("%s ! cudaflowlk backend=cpu visualize=color ! "
      "appsink name=sink sync=false", src);
  gsize ng, nc;
  guint8 *g = pipeline_frame (gpu, &ng), *c = pipeline_frame (cpu, &nc);
  ck_assert_uint_eq (ng, nc);
  gsize off1 = 0, off_more = 0;
  for (gsize i = 0; i < ng; i++) {
    int d = abs ((int) g[i] - (int) c[i]);
    off1 += d == 1;
    off_more += d > 1;
  }
  g_print ("visualize on CUDA memory vs CPU: %" G_GSIZE_FORMAT " bytes off by 1, %"
      G_GSIZE_FORMAT " by more (of %" G_GSIZE_FORMAT ")\n", off1, off_more, ng);
  ck_assert_msg (off_more == 0 && off1 * 1000 <= ng, "%" G_GSIZE_FORMAT " bytes differ by > 1, %"
      G_GSIZE_FORMAT " by 1", off_more, off1);
  g_free (g); g_free (c); g_free (gpu); g_free (cpu);
}
GST_END_TEST;

/* Two cudavision elements on CUDA memory hand the frame over on the device: the
 * second's stream waits for the first's fence, no host wait between them. The
 * second reads the frame the first drew into: the same bytes as with an identity
 * between them (the first then waits for its stream before the push). */
GST_START_TEST (test_cuda_memory_chain_handoff)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("cuda_memory_chain_handoff");
  const gchar *src = "videotestsrc pattern=ball num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=641,height=361 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory)";
  const gchar *tail = "cudaflowlk backend=cuda visualize=arrows ! cudadownload ! "
      "video/x-raw,format=RGBA ! appsink name=sink sync=false";
  gchar *fenced = g_strdup_printf ("%s ! cudaflowlk backend=cuda visualize=color ! %s", src,
      tail);
  gchar *waited = g_strdup_printf ("%s ! cudaflowlk backend=cuda visualize=color ! "
      "identity ! %s", src, tail);
  gsize nf, nw;
  guint8 *f = pipeline_frame (fenced, &nf), *w = pipeline_frame (waited, &nw);
  ck_assert_uint_eq (nf, nw);
  gsize differ = 0;
  for (gsize i = 0; i < nf; i++)
    differ += f[i] != w[i];
  g_print ("chain fenced vs waited: %" G_GSIZE_FORMAT " bytes differ (of %" G_GSIZE_FORMAT
      ")\n", differ, nf);
  ck_assert_uint_eq (differ, 0);
  g_free (f); g_free (w); g_free (fenced); g_free (waited);
}
GST_END_TEST;

/* Flushing seek, DISCONT and a new segment each reset the stream: the next frame has
 * zero flow and a not-valid meta (CPU, and the CUDA backend when a device exists). */
GST_START_TEST (test_reset_on_flush_discont_segment)
{
  cv_check_stream_resets ("cudaflowlk backend=%s");
  cv_check_stream_resets ("cudaflowlk refine=variational refine-levels=1 "
      "refine-outer-iterations=1 backend=%s");
}
GST_END_TEST;

/* A message of `type` from the element's bus whose text contains `needle`. */
static gboolean
bus_has_message (GstBus * bus, GstMessageType type, const gchar * needle, gchar ** text)
{
  GstMessage *msg;
  gboolean found = FALSE;
  while (!found && (msg = gst_bus_pop_filtered (bus, type))) {
    GError *err = NULL;
    if (type == GST_MESSAGE_WARNING)
      gst_message_parse_warning (msg, &err, NULL);
    else if (type == GST_MESSAGE_INFO)
      gst_message_parse_info (msg, &err, NULL);
    else
      gst_message_parse_error (msg, &err, NULL);
    if (err && strstr (err->message, needle)) {
      found = TRUE;
      if (text)
        *text = g_strdup (err->message);
    }
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  return found;
}

/* roi sums past INT_MAX are clamped to the frame (they once overflowed into zero flow
 * everywhere); a roi wholly outside the frame is refused with a warning. */
GST_START_TEST (test_roi_overflow_and_outside)
{
  const int w = 96, h = 64;
  guint8 *a, *b;
  cv_translation_pair (w, h, 1.0, 0.0, &a, &b);
  GstHarness *hn = cv_harness_new ("cudaflowlk backend=cpu roi=10,10,2147483647,2147483647",
      "GRAY8", w, h);
  GstBuffer *o = cv_push_pair (hn, "GRAY8", a, b, w, h);
  const gfloat *uv;
  gsize st;
  fail_unless (gst_cv_flow_meta_map_host (gst_buffer_get_cv_flow_meta (o), &uv, &st, NULL, NULL));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const gfloat *p = cv_flow_vector (uv, st, x, y);
      if (x < 10 || y < 10)
        fail_unless (p[0] == 0.0f && p[1] == 0.0f, "flow outside the roi at (%d,%d)", x, y);
      else if (x >= 18 && x < w - 8 && y >= 18 && y < h - 8)
        fail_unless (fabsf (p[0] - 1.0f) < 0.1f, "roi interior (%d,%d) u %.3f", x, y, p[0]);
    }
  gst_buffer_unref (o);
  gst_harness_teardown (hn);

  /* wholly outside: one warning naming the roi (once, not once per setup), and flow
   * over the whole frame */
  hn = gst_harness_new_parse ("cudaflowlk backend=cpu roi=200,10,5,5");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (hn->element, bus);
  gst_harness_set_src_caps_str (hn, "video/x-raw,format=GRAY8,width=96,height=64,"
      "framerate=30/1");
  o = cv_push_pair (hn, "GRAY8", a, b, w, h);
  gchar *text = NULL;
  fail_unless (bus_has_message (bus, GST_MESSAGE_WARNING, "roi 200,10,5,5 lies outside", &text),
      "no warning for a roi outside the frame");
  ck_assert_msg (strstr (text, "96x64") != NULL, "warning: %s", text);
  g_free (text);
  fail_if (bus_has_message (bus, GST_MESSAGE_WARNING, "lies outside", NULL),
      "the roi warning was posted twice");
  /* another property that sets up again: no new warning; a new roi outside: one */
  GstElement *lk_e = gst_harness_find_element (hn, "cudaflowlk");
  g_object_set (lk_e, "cpu-threads", 1, NULL);
  gst_buffer_unref (cv_push_gray (hn, "GRAY8", a, w, h));
  fail_if (bus_has_message (bus, GST_MESSAGE_WARNING, "lies outside", NULL),
      "the roi warning came again for an unchanged roi");
  g_object_set (lk_e, "roi", "300,10,5,5", NULL);
  gst_object_unref (lk_e);
  gst_buffer_unref (cv_push_gray (hn, "GRAY8", a, w, h));
  fail_unless (bus_has_message (bus, GST_MESSAGE_WARNING, "roi 300,10,5,5 lies outside", NULL),
      "no warning for the new roi");
  fail_if (bus_has_message (bus, GST_MESSAGE_WARNING, "lies outside", NULL),
      "the new roi's warning was posted twice");
  fail_unless (gst_cv_flow_meta_map_host (gst_buffer_get_cv_flow_meta (o), &uv, &st, NULL, NULL));
  const gfloat *mid = cv_flow_vector (uv, st, w / 2, h / 2);
  fail_unless (fabsf (mid[0] - 1.0f) < 0.1f, "whole-frame flow expected, u %.3f", mid[0]);
  gst_buffer_unref (o);
  gst_element_set_bus (hn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hn);

  /* values past INT_MAX or negative are refused at set time, the old roi kept */
  GstElement *lk = gst_element_factory_make ("cudaflowlk", NULL);
  g_object_set (lk, "roi", "1,2,3,4", NULL);
  bus = cv_watch_bus (lk);
  const gchar *bad[] = { "1,2,3,2147483648", "-1,2,3,4", "1,2,0,4", "1,2,3", "1,2,3,4,5",
    "1, 2,3,4", "99999999999999999999,1,1,1" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_object_set (lk, "roi", bad[i], NULL);
    cv_assert_warning (bus, "*roi must be*");
    gchar *roi;
    g_object_get (lk, "roi", &roi, NULL);
    ck_assert_str_eq (roi, "1,2,3,4");
    g_free (roi);
  }
  gst_element_set_bus (lk, NULL);
  gst_object_unref (bus);
  gst_object_unref (lk);
  g_free (a);
  g_free (b);
}
GST_END_TEST;

/* backend=auto with no device: gst-launch shows the INFO message's text, which must
 * say that the CPU backend runs and why. */
GST_START_TEST (test_cpu_fallback_message)
{
  if (cc_cuda_device_count () > 0)
    CV_SKIP ("cpu_fallback_message", CV_SKIP_HAS_DEVICE);
  GstHarness *hn = gst_harness_new_parse ("cudaflowlk");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (hn->element, bus);   /* before the caps: the backend is chosen then */
  gst_harness_set_src_caps_str (hn, "video/x-raw,format=GRAY8,width=32,height=32,framerate=30/1");
  guint8 gray[32 * 32] = { 0 };
  gst_buffer_unref (cv_push_gray (hn, "GRAY8", gray, 32, 32));
  /* one INFO message: its text, and its debug part (all gst-launch prints), say it */
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_INFO);
  fail_unless (msg != NULL, "no INFO message saying the CPU backend runs");
  gchar *debug = NULL;
  GError *err = NULL;
  gst_message_parse_info (msg, &err, &debug);
  const gchar *text = err->message;
  ck_assert_msg (g_str_has_prefix (text, "no CUDA device (") && strstr (text, "): running"),
      "message: %s", text);
  ck_assert_msg (strstr (text, "running on the CPU backend"), "message: %s", text);
  ck_assert_msg (strlen (text) > strlen ("no CUDA device (): running on the CPU backend"),
      "no reason given: %s", text);
  ck_assert_msg (debug && strstr (debug, "): running on the CPU backend"), "debug: %s", debug);
  g_free (debug);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_bus (hn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hn);
}
GST_END_TEST;

/* gst-inspect's plugin metadata names what exists and a real origin. */
GST_START_TEST (test_plugin_metadata)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "cudavision");
  fail_unless (plugin != NULL);
  const gchar *desc = gst_plugin_get_description (plugin);
  const gchar *origin = gst_plugin_get_origin (plugin);
  ck_assert_msg (strstr (desc, "optical flow") != NULL, "description: %s", desc);
  ck_assert_msg (strstr (origin, "example.invalid") == NULL, "origin: %s", origin);
  /* only elements that exist are named: each word a registered feature's topic */
  static const gchar *topics[][2] = {
    { "segmentation", "quadcut" }, { "tracking", "moctracker" }, { "mosaic", "cvdmosaic" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (topics); i++) {
    if (strstr (desc, topics[i][0]) == NULL)
      continue;
    /* transfer full: the reference is dropped here (else LeakSanitizer reports it when
     * the registry is freed at gst_deinit) */
    GstPluginFeature *f = gst_registry_find_feature (gst_registry_get (), topics[i][1],
        GST_TYPE_ELEMENT_FACTORY);
    ck_assert_msg (f != NULL, "description names %s without %s: %s", topics[i][0],
        topics[i][1], desc);
    gst_object_unref (f);
  }
  gst_object_unref (plugin);
}
GST_END_TEST;

/* A real flushing seek in a playing pipeline: the first frame after it is not valid and
 * has zero flow (it once got flow against the stale pre-seek frame, marked valid). */
GST_START_TEST (test_seek_in_pipeline)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc pattern=ball motion=sweep ! "
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1 ! cudaflowlk backend=cpu ! "
      "appsink name=sink sync=false max-buffers=2", NULL);
  fail_unless (pipe != NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND)
      == GST_STATE_CHANGE_SUCCESS);
  for (int i = 0; i < 4; i++) {
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL);
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (gst_sample_get_buffer (s));
    fail_unless (m && m->valid == (i > 0), "frame %d: valid %d", i, m ? m->valid : -1);
    gst_sample_unref (s);
  }
  fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, 2 * GST_SECOND));
  /* the first sample at or after the seek target: not valid, zero flow; then valid */
  gboolean seen_first = FALSE;
  for (int i = 0; i < 20; i++) {
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL);
    GstBuffer *b = gst_sample_get_buffer (s);
    if (GST_BUFFER_PTS (b) < 2 * GST_SECOND) {   /* queued before the flush reached it */
      gst_sample_unref (s);
      continue;
    }
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (b);
    fail_unless (m != NULL);
    if (!seen_first) {
      fail_if (m->valid, "first frame after the seek (pts %" GST_TIME_FORMAT ") is valid",
          GST_TIME_ARGS (GST_BUFFER_PTS (b)));
      const gfloat *uv;
      gsize st;
      fail_unless (gst_cv_flow_meta_map_host (m, &uv, &st, NULL, NULL));
      for (guint y = 0; y < m->grid_height; y++)
        for (guint x = 0; x < 2 * m->grid_width; x++)
          fail_unless (((const gfloat *) ((const guint8 *) uv + y * st))[x] == 0.0f);
      seen_first = TRUE;
    } else {
      fail_unless (m->valid, "second frame after the seek is not valid");
      gst_sample_unref (s);
      break;
    }
    gst_sample_unref (s);
  }
  fail_unless (seen_first);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* cpu-threads reaches the core's context (also when changed while playing), and 1
 * and 3 threads (or the cores, when fewer) give the same flow, bit for bit. */
GST_START_TEST (test_cpu_threads)
{
  const int w = 97, h = 71;
  guint8 *a, *b;
  cv_translation_pair (w, h, 1.5, -0.5, &a, &b);
  gfloat *fields[2];
  /* cpu-threads is capped at the machine's cores */
  const gint cores = (gint) g_get_num_processors ();
  const gint threads[2] = { 1, MIN (3, cores) };
  for (int k = 0; k < 2; k++) {
    gchar *launch = g_strdup_printf ("cudaflowlk backend=cpu cpu-threads=%d", threads[k]);
    GstHarness *hn = cv_harness_new (launch, "GRAY8", w, h);
    g_free (launch);
    gst_buffer_unref (cv_push_gray (hn, "GRAY8", a, w, h));
    GstElement *e = gst_harness_find_element (hn, "cudaflowlk");
    ck_assert_int_eq (cc_context_cpu_threads (gst_cv_filter_get_context (GST_CV_FILTER (e))),
        threads[k]);
    GstBuffer *o = cv_push_gray (hn, "GRAY8", b, w, h);
    fields[k] = cv_flow_meta_copy (gst_buffer_get_cv_flow_meta (o));
    gst_buffer_unref (o);
    /* a change while playing applies from the next frame */
    g_object_set (e, "cpu-threads", 2, NULL);
    gst_buffer_unref (cv_push_gray (hn, "GRAY8", a, w, h));
    ck_assert_int_eq (cc_context_cpu_threads (gst_cv_filter_get_context (GST_CV_FILTER (e))),
        MIN (2, cores));
    gst_object_unref (e);
    gst_harness_teardown (hn);
  }
  ck_assert_msg (memcmp (fields[0], fields[1], sizeof (gfloat) * 2 * w * h) == 0,
      "1 and 3 CPU threads give different flow");
  g_free (fields[0]);
  g_free (fields[1]);
  g_free (a);
  g_free (b);
}
GST_END_TEST;

static Suite *
cudaflowlk_suite (void)
{
  Suite *s = suite_create ("cudaflowlk");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_formats_and_meta);
  tcase_add_test (tc, test_visualize_color_pixels);
  tcase_add_test (tc, test_property_change_mid_stream);
  tcase_add_test (tc, test_resolution_change_mid_stream);
  tcase_add_test (tc, test_odd_and_tiny_sizes);
  tcase_add_test (tc, test_invalid_property_values);
  tcase_add_test (tc, test_roi_mask);
  tcase_add_test (tc, test_roi_overflow_and_outside);
  tcase_add_test (tc, test_reset_on_flush_discont_segment);
  tcase_add_test (tc, test_seek_in_pipeline);
  tcase_add_test (tc, test_cpu_threads);
  tcase_add_test (tc, test_cpu_fallback_message);
  tcase_add_test (tc, test_plugin_metadata);
  tcase_add_test (tc, test_states);
  tcase_add_test (tc, test_cuda_backend_without_device);
  tcase_add_test (tc, test_cuda_memory_matches_cpu);
  tcase_add_test (tc, test_cuda_memory_visualize_matches_cpu);
  tcase_add_test (tc, test_cuda_memory_chain_handoff);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (cudaflowlk);
