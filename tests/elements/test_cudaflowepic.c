/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudaflowepic through GstHarness: a 40 px translation recovered in the meta (beyond
 * cudaflowlk's reach), the confidence type and range, the first frame not valid,
 * stream resets, visualize=quality drawing the confidence, extrapolate continuing a
 * stretched field past the frame's bottom, and cudaupload -> cudaflowepic ->
 * cudadownload (CUDA memory) against the CPU backend. */
#include "element_common.h"
#include "gstcvflowmeta.h"
#include <cudacore/cc_epic.h>
#include "cv_synth.h"
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

/* Video mode: in a stream A, B, C the third frame's field (computed from what the
 * method kept of B) is the field a fresh element gives for B, C, bit for bit. */
GST_START_TEST (test_video_mode_matches_fresh)
{
  const int w = 128, hgt = 96;
  guint8 *a, *b, *c, *d;
  cv_translation_pair (w, hgt, 3.0, -2.0, &a, &b);
  cv_translation_pair (w, hgt, 6.0, 1.0, &c, &d);   /* d: the scene moved by (6, 1) */
  GstHarness *h = cv_harness_new ("cudaflowepic backend=cpu", "GRAY8", w, hgt);
  gst_buffer_unref (cv_push_pair (h, "GRAY8", a, b, w, hgt));
  GstBuffer *third = cv_push_gray (h, "GRAY8", d, w, hgt);
  GstHarness *fresh = cv_harness_new ("cudaflowepic backend=cpu", "GRAY8", w, hgt);
  GstBuffer *pair = cv_push_pair (fresh, "GRAY8", b, d, w, hgt);
  GstCvFlowMeta *m3 = gst_buffer_get_cv_flow_meta (third), *mp = gst_buffer_get_cv_flow_meta (pair);
  fail_unless (m3 && mp && m3->valid && mp->valid, "video mode: metas missing or not valid");
  gfloat *v3 = cv_flow_meta_copy (m3), *vp = cv_flow_meta_copy (mp);
  gsize n = 2 * (gsize) m3->grid_width * m3->grid_height;
  double extent = 0;
  for (gsize i = 0; i < n; i++)
    extent = MAX (extent, fabs (vp[i]));
  fail_unless (extent > 0.5, "video mode: the pair B, D has no flow (max %.3f)", extent);
  fail_unless (memcmp (v3, vp, n * sizeof (gfloat)) == 0,
      "video mode: the third frame's field differs from a fresh element's");
  g_free (v3);
  g_free (vp);
  gst_buffer_unref (third);
  gst_buffer_unref (pair);
  gst_harness_teardown (h);
  gst_harness_teardown (fresh);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
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

/* refine is the shared GstCvRefineMode of cudaflowlk and cudablockmatch: none and
 * variational, with false and true still accepted (the former boolean); refine-* are
 * there with the method's defaults (one level). */
GST_START_TEST (test_refine_vocabulary)
{
  const gchar *lines[][2] = {
    { "cudaflowepic", "variational" },
    { "cudaflowepic refine=none", "none" },
    { "cudaflowepic refine=variational", "variational" },
    { "cudaflowepic refine=false", "none" },
    { "cudaflowepic refine=true", "variational" },
    { "cudaflowlk refine=true", "variational" },
    { "cudaflowlk", "none" },
    { "cudablockmatch refine=variational", "variational" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (lines); i++) {
    GError *err = NULL;
    GstElement *e = gst_parse_launch (lines[i][0], &err);
    fail_unless (e != NULL && err == NULL, "%s: %s", lines[i][0], err ? err->message : "");
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "refine");
    fail_unless (ps != NULL);
    ck_assert_str_eq (g_type_name (ps->value_type), "GstCvRefineMode");
    gint v;
    g_object_get (e, "refine", &v, NULL);
    GEnumValue *ev = g_enum_get_value (G_ENUM_CLASS (g_type_class_peek (ps->value_type)), v);
    ck_assert_str_eq (ev->value_nick, lines[i][1]);
    gst_object_unref (e);
  }
  GstElement *e = gst_element_factory_make ("cudaflowepic", NULL);
  gint levels, outer, inner;
  gdouble omega, kappa, presmooth, color;
  g_object_get (e, "refine-levels", &levels, "refine-outer-iterations", &outer,
      "refine-inner-iterations", &inner, "refine-omega", &omega,
      "refine-smoothness-kappa", &kappa, "refine-presmooth", &presmooth,
      "refine-color-weight", &color, NULL);
  /* the method's own refinement defaults (cc_epic_params_default), not cudaflowlk's */
  cc_epic_params d;
  cc_epic_params_default (&d);
  ck_assert_int_eq (levels, d.refine_params.levels);
  ck_assert_int_eq (outer, d.refine_params.outer_iterations);
  ck_assert_int_eq (inner, d.refine_params.inner_iterations);
  ck_assert_int_eq (levels, 2);
  ck_assert_int_eq (outer, 3);
  ck_assert_int_eq (inner, 10);
  /* EpicFlow's energy and SOR factor, not cudaflowlk's constant smoothness */
  ck_assert (fabs (omega - 1.8) < 1e-6 && fabs (kappa - 5.0) < 1e-6);
  ck_assert (fabs (presmooth - 0.8) < 1e-6 && color == 0.0);
  gst_object_unref (e);
}
GST_END_TEST;

static gint second_buffer_in;

static GstBusSyncReply
count_errors (GstBus * bus, GstMessage * m, gpointer data)
{
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
    g_atomic_int_inc ((gint *) data);
  return GST_BUS_PASS;
}

static GstPadProbeReturn
count_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *n = data;
  if (g_atomic_int_add (n, 1) == 1)
    g_atomic_int_set (&second_buffer_in, 1);
  return GST_PAD_PROBE_OK;
}

/* A 1920x1080 stream on the CPU with 2 threads (about 4 s a frame expected, whatever
 * the machine's cores: the warning's estimate scales with the threads, and under 1 s
 * none is given): one warning with the expected time at the start, and a state change
 * to NULL while the second frame (the first with a flow to compute) is in flight
 * returns within a second, with no error and that frame never reaching the sink. */
GST_START_TEST (test_cpu_frame_warned_and_cancelled)
{
  const gchar *desc = "videotestsrc pattern=snow ! video/x-raw,format=GRAY8,width=1920,"
      "height=1080,framerate=30/1 ! cudaflowepic name=flow backend=cpu cpu-threads=2 ! "
      "fakesink name=sink sync=false signal-handoffs=true";
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL && err == NULL, "%s", err ? err->message : "");
  GstElement *flow = gst_bin_get_by_name (GST_BIN (pipe), "flow");
  GstPad *sinkpad = gst_element_get_static_pad (flow, "sink");
  gint in = 0;
  g_atomic_int_set (&second_buffer_in, 0);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, count_in, &in, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gint errors = 0;   /* also those posted on the way to NULL (the bus then flushes) */
  gst_bus_set_sync_handler (bus, count_errors, &errors, NULL);
  gint active_backend;
  g_object_get (flow, "active-backend", &active_backend, NULL);
  ck_assert_int_eq (active_backend, CC_BACKEND_AUTO);   /* none before the stream */
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  for (int waited = 0; !g_atomic_int_get (&second_buffer_in) && waited < 3000; waited++)
    g_usleep (10000);
  fail_unless (g_atomic_int_get (&second_buffer_in), "the second frame never came");
  g_usleep (300000);   /* well inside its computation */
  g_object_get (flow, "active-backend", &active_backend, NULL);
  ck_assert_int_eq (active_backend, CC_BACKEND_CPU);
  /* the bus is flushed on the way to NULL: its messages first */
  GstMessage *m;
  gboolean warned = FALSE;
  while ((m = gst_bus_pop (bus))) {
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "an error was posted");
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      GError *w = NULL;
      gchar *dbg = NULL;
      gst_message_parse_warning (m, &w, &dbg);
      g_print ("warning: %s (%s)\n", w->message, dbg);
      fail_unless (g_pattern_match_simple ("EpicFlow optical flow on the CPU backend: about "
              "* s per 1920x1080 frame", w->message), "warning \"%s\"", w->message);
      fail_if (warned, "warned twice");
      warned = TRUE;
      g_error_free (w);
      g_free (dbg);
    }
    gst_message_unref (m);
  }
  fail_unless (warned, "no warning of the CPU time");
  gint64 t0 = g_get_monotonic_time ();
  fail_if (gst_element_set_state (pipe, GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE);
  double ms = (g_get_monotonic_time () - t0) / 1000.0;
  g_print ("cudaflowepic 1920x1080 on the CPU: set_state (NULL) returned in %.1f ms with "
      "the second frame in flight\n", ms);
  fail_unless (ms < 1000.0, "NULL took %.0f ms", ms);
  g_object_get (flow, "active-backend", &active_backend, NULL);
  ck_assert_int_eq (active_backend, CC_BACKEND_AUTO);   /* none */
  ck_assert_int_eq (g_atomic_int_get (&errors), 0);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  guint64 rendered = 0;
  GstStructure *stats = NULL;
  g_object_get (sink, "stats", &stats, NULL);
  gst_structure_get_uint64 (stats, "rendered", &rendered);
  gst_structure_free (stats);
  ck_assert_uint_le (rendered, 1);   /* the second frame was cut short */
  gst_object_unref (sink);
  gst_object_unref (bus);
  gst_object_unref (sinkpad);
  gst_object_unref (flow);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* preset sets every parameter at once; properties set after it change them, and
 * it reads the last preset set. */
GST_START_TEST (test_preset_property)
{
  GstElement *e = gst_element_factory_make ("cudaflowepic", NULL);
  fail_unless (e != NULL);
  gint preset, step, levels, inner, cell;
  g_object_get (e, "preset", &preset, "match-step", &step, NULL);
  ck_assert_int_eq (preset, 0);   /* fast, the defaults */
  ck_assert_int_eq (step, 5);
  gst_util_set_object_arg (G_OBJECT (e), "preset", "balanced");
  g_object_get (e, "preset", &preset, "match-step", &step, "cell", &cell, "refine-levels",
      &levels, "refine-inner-iterations", &inner, NULL);
  ck_assert_int_eq (preset, 1);
  ck_assert_int_eq (step, 4);
  ck_assert_int_eq (cell, 4);
  ck_assert_int_eq (levels, 2);
  ck_assert_int_eq (inner, 15);
  g_object_set (e, "match-step", 6, NULL);
  g_object_get (e, "preset", &preset, "match-step", &step, "cell", &cell, NULL);
  ck_assert_int_eq (preset, 1);
  ck_assert_int_eq (step, 6);
  ck_assert_int_eq (cell, 4);
  gst_util_set_object_arg (G_OBJECT (e), "preset", "accurate");
  g_object_get (e, "match-step", &step, "refine-levels", &levels, "refine-inner-iterations",
      &inner, NULL);
  ck_assert_int_eq (step, 4);
  ck_assert_int_eq (levels, 2);
  ck_assert_int_eq (inner, 30);
  gst_object_unref (e);
}
GST_END_TEST;

/* extrapolate: a frame stretched downward (v = 0.25 y, u = 0: the ground under a camera
 * moving forward), whose bottom rows leave the frame. The property reaches the core:
 * with it the bottom rows' flow continues the trend, closer to the truth (CPU backend,
 * 160x120: 7.98 -> 4.82 px), and the top half (matched, its targets in the frame)
 * stays as it was (within the refinement's spread, 0.0008 px). */
GST_START_TEST (test_extrapolate_property)
{
  const int w = 160, h = 120;
  guint8 *a = g_malloc (w * h), *b = g_malloc (w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      a[y * w + x] = (guint8) lrintf (255.0f * cv_synth_texture (x, y, 7));
      b[y * w + x] = (guint8) lrintf (255.0f * cv_synth_texture (x, y / 1.25, 7));
    }
  double bottom[2] = { 0, 0 }, top_diff = 0;
  gfloat *top0 = g_new0 (gfloat, w * (h / 2));
  for (int run = 0; run < 2; run++) {
    GstHarness *hn = cv_harness_new (run ? "cudaflowepic backend=cpu extrapolate=2"
        : "cudaflowepic backend=cpu", "GRAY8", w, h);
    GstBuffer *out = push_pair (hn, "GRAY8", a, b, w, h);
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out);
    const gfloat *uv, *conf;
    gsize us, cs;
    fail_unless (m && m->valid && gst_cv_flow_meta_map_host (m, &uv, &us, &conf, &cs));
    for (int y = h - 4; y < h; y++)
      for (int x = 8; x < w - 8; x++)
        bottom[run] += fabs (cv_flow_vector (uv, us, x, y)[1] - 0.25 * y) / (4 * (w - 16));
    for (int y = 0; y < h / 2; y++)
      for (int x = 0; x < w; x++) {
        const gfloat v = cv_flow_vector (uv, us, x, y)[1];
        if (run)
          top_diff += fabs (v - top0[y * w + x]) / (w * (h / 2));
        else
          top0[y * w + x] = v;
      }
    gst_buffer_unref (out);
    gst_harness_teardown (hn);
  }
  g_printerr ("extrapolate: bottom rows |error| %.3f -> %.3f px, top half moved %.4f px\n",
      bottom[0], bottom[1], top_diff);
  fail_unless (bottom[0] > 2.0, "the mean should stop short of the bottom (%g)", bottom[0]);
  fail_unless (bottom[1] < 0.75 * bottom[0], "extrapolate: %g against %g", bottom[1],
      bottom[0]);
  fail_unless (top_diff < 0.05, "the top half moved by %g px", top_diff);
  g_free (top0);
  g_free (a);
  g_free (b);
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
  tcase_add_test (tc, test_preset_property);
  tcase_add_test (tc, test_reset_on_flush_discont_segment);
  tcase_add_test (tc, test_video_mode_matches_fresh);
  tcase_add_test (tc, test_cuda_memory_matches_cpu);
  tcase_add_test (tc, test_refine_vocabulary);
  tcase_add_test (tc, test_extrapolate_property);
  tcase_add_test (tc, test_cpu_frame_warned_and_cancelled);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (cudaflowepic);
