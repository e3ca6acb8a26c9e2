/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reliability checks every element goes through, one row per element in
 * cv_element_cases (element_common.c): state changes with and without data (like
 * gst-check's generic states test), a flushing seek, size and format changes
 * mid-stream, 1x1 / 2x2 / 641x479 / 7680x4320 frames, padded strides, EOS with no
 * frames, every property at its minimum, maximum and an invalid value while
 * PLAYING, and CUDA-memory caps on a machine without a GPU. Each case is a loop test: a failure names the element's row. */
#include "element_common.h"
#include <math.h>
#include <string.h>

#define CASE (&cv_element_cases[__i__])

/* The element inside a harness (gst_harness_new_parse wraps it in a bin). */
static GstElement *
harness_element (GstHarness * hn)
{
  if (!GST_IS_BIN (hn->element))
    return gst_object_ref (hn->element);
  GList *children = GST_BIN_CHILDREN (hn->element);
  fail_unless (children && !children->next, "the harness holds more than one element");
  return gst_object_ref (children->data);
}

/* A harness around the case's element with `extra` properties appended. */
static GstHarness *
case_harness (const CvElementCase * c, const gchar * extra, const gchar * format, int w, int h)
{
  gchar *launch = g_strdup_printf ("%s %s", c->launch, extra ? extra : "");
  GstHarness *hn = cv_harness_new (launch, format, w, h);
  g_free (launch);
  return hn;
}

/* Pushes frames first..first+n-1 and returns their outputs (caller unrefs each). */
static void
push_frames (GstHarness * hn, const gchar * format, int w, int h, guint first, guint n,
    guint pad, GstBuffer ** out)
{
  for (guint i = 0; i < n; i++) {
    out[i] = gst_harness_push_and_pull (hn, cv_test_frame (format, w, h, first + i, pad));
    fail_unless (out[i] != NULL, "no output for frame %u (%s %dx%d)", first + i, format, w, h);
  }
}

/* Outputs of frames 0..n-1 through a fresh element. */
static void
fresh_outputs (const CvElementCase * c, const gchar * format, int w, int h, guint n,
    GstBuffer ** out)
{
  GstHarness *hn = case_harness (c, NULL, format, w, h);
  push_frames (hn, format, w, h, 0, n, 0, out);
  gst_harness_teardown (hn);
}

static void
unref_all (GstBuffer ** b, guint n)
{
  for (guint i = 0; i < n; i++)
    gst_buffer_unref (b[i]);
}

static void
set_state_checked (GstElement * e, GstState s, const gchar * what)
{
  fail_if (gst_element_set_state (e, s) == GST_STATE_CHANGE_FAILURE, "%s: to %s", what,
      gst_element_state_get_name (s));
  fail_if (gst_element_get_state (e, NULL, NULL, 30 * GST_SECOND) != GST_STATE_CHANGE_SUCCESS,
      "%s: reaching %s", what, gst_element_state_get_name (s));
}

/* The element alone, NULL -> READY -> PAUSED -> PLAYING and back, over and over. */
GST_START_TEST (test_states_without_data)
{
  GstElement *e = gst_element_factory_make (CASE->name, NULL);
  fail_unless (e != NULL, "%s not found", CASE->name);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
  const GstState up[] = { GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING };
  for (int round = 0; round < 20; round++) {
    for (gsize i = 0; i < G_N_ELEMENTS (up); i++)
      set_state_checked (e, up[i], CASE->name);
    if (round % 2) {             /* every other round down step by step */
      set_state_checked (e, GST_STATE_PAUSED, CASE->name);
      set_state_checked (e, GST_STATE_READY, CASE->name);
    }
    set_state_checked (e, GST_STATE_NULL, CASE->name);
  }
  gst_object_unref (e);
}
GST_END_TEST;

static void
count_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gint * n)
{
  g_atomic_int_inc (n);
}

/* Frames flowing: up to PLAYING, a few frames through, then down, 10 times; every
 * other round straight from PLAYING to NULL while frames flow. */
GST_START_TEST (test_states_with_data)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball ! video/x-raw,format=%s,width=64,"
      "height=48,framerate=30/1 ! %s ! fakesink name=sink signal-handoffs=true sync=false",
      CASE->formats[0], CASE->launch);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc, err ? err->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gint n = 0;
  g_signal_connect (sink, "handoff", G_CALLBACK (count_handoff), &n);
  GstBus *bus = gst_element_get_bus (pipe);
  for (int round = 0; round < 10; round++) {
    gint before = g_atomic_int_get (&n);
    set_state_checked (pipe, GST_STATE_PLAYING, desc);
    for (int waited = 0; g_atomic_int_get (&n) < before + 3 && waited < 1000; waited++)
      g_usleep (10000);
    fail_unless (g_atomic_int_get (&n) >= before + 3, "%s: no frames in round %d", desc, round);
    cv_assert_no_error (bus, CASE->name);
    if (round % 2 == 0) {
      set_state_checked (pipe, GST_STATE_PAUSED, desc);
      set_state_checked (pipe, GST_STATE_READY, desc);
    }
    set_state_checked (pipe, GST_STATE_NULL, desc);
  }
  cv_assert_no_error (bus, CASE->name);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
}
GST_END_TEST;

/* A flushing seek mid-stream: the frames after it give what a fresh element gives. */
GST_START_TEST (test_flushing_seek)
{
  const CvElementCase *c = CASE;
  const gchar *f = c->formats[0];
  const int w = 64, h = 48, n = 3;
  GstBuffer *fresh[3], *out[3];
  fresh_outputs (c, f, w, h, n, fresh);
  GstHarness *hn = case_harness (c, NULL, f, w, h);
  GstBus *bus = cv_harness_bus (hn);
  push_frames (hn, f, w, h, 5, n, 0, out);   /* another part of the clip first */
  unref_all (out, n);
  fail_unless (gst_harness_push_event (hn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hn, gst_event_new_flush_stop (TRUE)));
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hn, gst_event_new_segment (&segment)));
  push_frames (hn, f, w, h, 0, n, 0, out);
  for (int i = 0; i < n; i++) {
    gchar *what = g_strdup_printf ("%s frame %d after the flushing seek", c->name, i);
    cv_assert_same_output (out[i], fresh[i], f, w, h, what);
    g_free (what);
  }
  cv_assert_no_error (bus, c->name);
  unref_all (out, n);
  unref_all (fresh, n);
  cv_harness_teardown (hn, bus);
}
GST_END_TEST;

/* A size change, then a format change, mid-stream: after each, the element gives what a
 * fresh element given those caps gives. */
GST_START_TEST (test_renegotiation)
{
  const CvElementCase *c = CASE;
  const int n = 3;
  struct { const gchar *format; int w, h; } steps[] = {
    { c->formats[0], 64, 48 }, { c->formats[0], 80, 62 }, { c->formats[1], 80, 62 },
    { c->formats[0], 64, 48 },
  };
  GstHarness *hn = case_harness (c, NULL, steps[0].format, steps[0].w, steps[0].h);
  GstBus *bus = cv_harness_bus (hn);
  for (gsize s = 0; s < G_N_ELEMENTS (steps); s++) {
    GstBuffer *fresh[3], *out[3];
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
        steps[s].format, steps[s].w, steps[s].h);
    gst_harness_set_src_caps_str (hn, caps);
    g_free (caps);
    push_frames (hn, steps[s].format, steps[s].w, steps[s].h, 0, n, 0, out);
    fresh_outputs (c, steps[s].format, steps[s].w, steps[s].h, n, fresh);
    for (int i = 0; i < n; i++) {
      gchar *what = g_strdup_printf ("%s caps step %zu (%s %dx%d) frame %d", c->name, s,
          steps[s].format, steps[s].w, steps[s].h, i);
      cv_assert_same_output (out[i], fresh[i], steps[s].format, steps[s].w, steps[s].h, what);
      g_free (what);
    }
    unref_all (out, n);
    unref_all (fresh, n);
  }
  cv_assert_no_error (bus, c->name);
  cv_harness_teardown (hn, bus);
}
GST_END_TEST;

/* Tiny, odd and 8K frames (8K: one frame at the cheapest settings, for time): an output buffer
 * of the input's size for every frame, no error. */
GST_START_TEST (test_sizes)
{
  const CvElementCase *c = CASE;
  struct { int w, h; guint frames; gboolean cheap; } sizes[] = {
    { 1, 1, 3, FALSE }, { 2, 2, 3, FALSE }, { 641, 479, 3, FALSE }, { 7680, 4320, 1, TRUE },
  };
  /* CV_TEST_QUICK (the CI sanitizer run, tests/meson.build's asanci): no 8K frame, which
   * takes minutes under ASan (the normal suite and --setup asan keep it) */
  gboolean quick = cv_test_quick ();
  if (quick)
    g_print ("%s: CV_TEST_QUICK: the 7680x4320 frame left out\n", c->name);
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (int fi = 0; fi < 2; fi++) {
      const gchar *f = c->formats[fi];
      if (sizes[s].cheap && (fi > 0 || quick))
        continue;                /* one format at 8K keeps the suite quick */
      GstHarness *hn = case_harness (c, sizes[s].cheap ? c->cheap : NULL, f, sizes[s].w,
          sizes[s].h);
      GstBus *bus = cv_harness_bus (hn);
      GstVideoInfo info;
      gst_video_info_set_format (&info, gst_video_format_from_string (f), sizes[s].w,
          sizes[s].h);
      for (guint i = 0; i < sizes[s].frames; i++) {
        GstBuffer *in = cv_test_frame (f, sizes[s].w, sizes[s].h, i, 0);
        GstBuffer *out = gst_harness_push_and_pull (hn, in);
        fail_unless (out != NULL, "%s %s %dx%d: no output for frame %u", c->name, f,
            sizes[s].w, sizes[s].h, i);
        ck_assert_uint_eq (gst_buffer_get_size (out), GST_VIDEO_INFO_SIZE (&info));
        gst_buffer_unref (out);
      }
      gchar *what = g_strdup_printf ("%s %s %dx%d", c->name, f, sizes[s].w, sizes[s].h);
      cv_assert_no_error (bus, what);
      g_free (what);
      cv_harness_teardown (hn, bus);
    }
}
GST_END_TEST;

/* Strides wider than the width (GstVideoMeta): the same output as unpadded frames. */
GST_START_TEST (test_stride_padding)
{
  const CvElementCase *c = CASE;
  const int n = 3;
  struct { int w, h; } sizes[] = { { 64, 48 }, { 67, 45 } };
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (int fi = 0; fi < 2; fi++) {
      const gchar *f = c->formats[fi];
      int w = sizes[s].w, h = sizes[s].h;
      GstBuffer *plain[3], *padded[3];
      GstHarness *a = case_harness (c, NULL, f, w, h);
      GstHarness *b = case_harness (c, NULL, f, w, h);
      push_frames (a, f, w, h, 0, n, 0, plain);
      push_frames (b, f, w, h, 0, n, 13, padded);
      for (int i = 0; i < n; i++) {
        gchar *what = g_strdup_printf ("%s padded frame %d", c->name, i);
        GstVideoMeta *vm = gst_buffer_get_video_meta (padded[i]);
        GstVideoInfo plain_info;
        gst_video_info_set_format (&plain_info, gst_video_format_from_string (f), w, h);
        fail_unless (vm && vm->stride[0] > GST_VIDEO_INFO_PLANE_STRIDE (&plain_info, 0),
            "%s: the stride is not padded", what);
        cv_assert_same_output (padded[i], plain[i], f, w, h, what);
        g_free (what);
      }
      unref_all (plain, n);
      unref_all (padded, n);
      gst_harness_teardown (a);
      gst_harness_teardown (b);
    }
}
GST_END_TEST;

/* EOS before any frame: EOS goes downstream, no buffer, no error; and in a pipeline
 * whose source has no frames at all. */
GST_START_TEST (test_eos_without_frames)
{
  const CvElementCase *c = CASE;
  GstHarness *hn = case_harness (c, NULL, c->formats[0], 64, 48);
  GstBus *bus = cv_harness_bus (hn);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  GstEvent *ev;
  gboolean eos = FALSE;
  while ((ev = gst_harness_try_pull_event (hn))) {
    eos |= GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  fail_unless (eos, "%s: EOS not forwarded", c->name);
  ck_assert_uint_eq (gst_harness_buffers_received (hn), 0);
  cv_assert_no_error (bus, c->name);
  cv_harness_teardown (hn, bus);

  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=0 ! video/x-raw,format=%s,"
      "width=64,height=48 ! %s ! fakesink", c->formats[0], c->launch);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: no EOS", desc);
  gst_message_unref (msg);
  set_state_checked (pipe, GST_STATE_NULL, desc);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
}
GST_END_TEST;

/* No GPU, but CUDA memory: caps with memory:CUDAMemory on a machine without a device
 * (a source that claims it, as no cudaupload exists there) fail to negotiate with an
 * error that says why; nothing aborts, and the element still works in system memory
 * afterwards. (Skips where a device is present: there the CUDA-memory tests run.) */
GST_START_TEST (test_cuda_memory_without_device)
{
  const CvElementCase *c = CASE;
  if (cc_cuda_device_count () > 0) {
    gchar what[96];
    g_snprintf (what, sizeof what, "cuda_memory_without_device (%s)", c->name);
    CV_SKIP (what, CV_SKIP_HAS_DEVICE);
  }
  /* the first of the row's formats that the sink template takes in CUDA memory
   * (cudaflowlk: GRAY8 only in system memory, as nvcodec has no GRAY8 CUDA memory) */
  const gchar *f = NULL;
  GstElementFactory *factory = gst_element_factory_find (c->name);
  fail_unless (factory != NULL);
  for (int fi = 0; fi < 2 && !f; fi++) {
    gchar *str = g_strdup_printf ("video/x-raw(memory:CUDAMemory),format=%s", c->formats[fi]);
    GstCaps *caps = gst_caps_from_string (str);
    if (gst_element_factory_can_sink_any_caps (factory, caps))
      f = c->formats[fi];
    gst_caps_unref (caps);
    g_free (str);
  }
  gst_object_unref (factory);
  /* a build without GStreamer's CUDA memory (-Dcuda=disabled) has no such caps in its
   * templates: refused there, before the element sees them (no message of its own) */
  gboolean in_templates = f != NULL;
  if (!in_templates) {
    g_print ("%s: no CUDA memory in the templates (a build without it)\n", c->name);
    f = c->formats[0];
  }
  const int w = 32, h = 24;
  /* backend=cpu comes from the row's launch line; auto and cuda must say the same */
  const gchar *backends[] = { "", "backend=auto", "backend=cuda" };
  for (gsize b = 0; b < G_N_ELEMENTS (backends); b++) {
    GstHarness *hn = case_harness (c, backends[b], f, w, h);
    GstBus *bus = cv_harness_bus (hn);
    gchar *caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory),format=%s,width=%d,"
        "height=%d,framerate=30/1", f, w, h);
    gst_harness_set_src_caps_str (hn, caps);
    g_free (caps);
    GstFlowReturn ret = gst_harness_push (hn, cv_test_frame (f, w, h, 0, 0));
    fail_unless (ret == GST_FLOW_NOT_NEGOTIATED || ret == GST_FLOW_ERROR,
        "%s %s: CUDA memory without a device gave %s", c->name, backends[b],
        gst_flow_get_name (ret));
    ck_assert_uint_eq (gst_harness_buffers_received (hn), 0);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (!in_templates) {
      fail_unless (ret == GST_FLOW_NOT_NEGOTIATED);
      if (msg)
        gst_message_unref (msg);
      cv_harness_teardown (hn, bus);
      continue;
    }
    fail_unless (msg != NULL, "%s %s: no error message", c->name, backends[b]);
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (strstr (err->message, "CUDA") && strstr (err->message, "no CUDA device"),
        "%s %s: the error does not say why: %s", c->name, backends[b], err->message);
    g_error_free (err);
    gst_message_unref (msg);
    cv_harness_teardown (hn, bus);
  }
  /* the same element type in system memory right after: unaffected */
  GstHarness *hn = case_harness (c, NULL, f, w, h);
  GstBuffer *out = gst_harness_push_and_pull (hn, cv_test_frame (f, w, h, 0, 0));
  fail_unless (out != NULL, "%s: no output in system memory", c->name);
  gst_buffer_unref (out);
  gst_harness_teardown (hn);
}
GST_END_TEST;

/* Sets `v` on the element; TRUE when the type has such a value. which: 0 min, 1 max,
 * 2 invalid (out of range / not in the enum or flags). */
static gboolean
property_value (GParamSpec * ps, int which, GValue * v)
{
  g_value_init (v, ps->value_type);
  if (G_IS_PARAM_SPEC_INT (ps)) {
    GParamSpecInt *s = (GParamSpecInt *) ps;
    if (which == 2) {
      if (s->maximum == G_MAXINT && s->minimum == G_MININT)
        return FALSE;
      g_value_set_int (v, s->maximum < G_MAXINT ? s->maximum + 1 : s->minimum - 1);
    } else
      g_value_set_int (v, which == 0 ? s->minimum : s->maximum);
  } else if (G_IS_PARAM_SPEC_UINT (ps)) {
    GParamSpecUInt *s = (GParamSpecUInt *) ps;
    if (which == 2) {
      if (s->maximum == G_MAXUINT && s->minimum == 0)
        return FALSE;
      g_value_set_uint (v, s->maximum < G_MAXUINT ? s->maximum + 1 : s->minimum - 1);
    } else
      g_value_set_uint (v, which == 0 ? s->minimum : s->maximum);
  } else if (G_IS_PARAM_SPEC_UINT64 (ps)) {
    GParamSpecUInt64 *s = (GParamSpecUInt64 *) ps;
    if (which == 2) {
      if (s->maximum == G_MAXUINT64 && s->minimum == 0)
        return FALSE;
      g_value_set_uint64 (v, s->maximum < G_MAXUINT64 ? s->maximum + 1 : s->minimum - 1);
    } else
      g_value_set_uint64 (v, which == 0 ? s->minimum : s->maximum);
  } else if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
    GParamSpecDouble *s = (GParamSpecDouble *) ps;
    if (which == 2)
      g_value_set_double (v, s->maximum < G_MAXDOUBLE ? s->maximum * 2 + 1 : s->minimum - 1);
    else
      g_value_set_double (v, which == 0 ? s->minimum : s->maximum);
  } else if (G_IS_PARAM_SPEC_FLOAT (ps)) {
    GParamSpecFloat *s = (GParamSpecFloat *) ps;
    if (which == 2)
      g_value_set_float (v, s->maximum < G_MAXFLOAT / 4 ? s->maximum * 2 + 1 : s->minimum - 1);
    else
      g_value_set_float (v, which == 0 ? s->minimum : s->maximum);
    if (which == 2 && s->maximum >= G_MAXFLOAT / 4 && s->minimum <= -G_MAXFLOAT / 4)
      return FALSE;
  } else if (G_IS_PARAM_SPEC_BOOLEAN (ps)) {
    if (which == 2)
      return FALSE;
    g_value_set_boolean (v, which == 1);
  } else if (G_IS_PARAM_SPEC_ENUM (ps)) {
    GEnumClass *k = ((GParamSpecEnum *) ps)->enum_class;
    g_value_set_enum (v, which == 0 ? k->minimum : which == 1 ? k->maximum : k->maximum + 1);
  } else if (G_IS_PARAM_SPEC_FLAGS (ps)) {
    GFlagsClass *k = ((GParamSpecFlags *) ps)->flags_class;
    if (which == 2 && k->mask == G_MAXUINT)
      return FALSE;
    g_value_set_flags (v, which == 0 ? 0 : which == 1 ? k->mask : ~k->mask);
  } else if (G_IS_PARAM_SPEC_STRING (ps)) {
    /* min: empty; max: a long text; invalid: garbage the parser must refuse */
    if (which == 0)
      g_value_set_string (v, "");
    else {
      gchar *s = g_strnfill (which == 1 ? 4096 : 300, which == 1 ? 'x' : ';');
      g_value_take_string (v, which == 1 ? s : g_strconcat (s, ":#zz", NULL));
      if (which == 2)
        g_free (s);
    }
    return which != 1;           /* a long text is just another invalid one */
  } else {
    return FALSE;
  }
  return TRUE;
}

/* Equal values; doubles within float precision (several elements keep them as floats). */
static gboolean
values_equal (GParamSpec * ps, const GValue * a, const GValue * b)
{
  if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
    gdouble x = g_value_get_double (a), y = g_value_get_double (b);
    return fabs (x - y) <= 1e-6 * MAX (1.0, fabs (x));
  }
  if (G_IS_PARAM_SPEC_FLOAT (ps)) {
    gfloat x = g_value_get_float (a), y = g_value_get_float (b);
    return fabsf (x - y) <= 1e-6f * MAX (1.0f, fabsf (x));
  }
  return g_param_values_cmp (ps, a, b) == 0;
}

/* An enum value kept for old launch lines that reads back as its canonical value (its
 * description starts "Accepted for": GstCvRefineMode's false and true). */
static gboolean
is_alias_value (GParamSpec * ps, const GValue * v)
{
  if (!G_IS_PARAM_SPEC_ENUM (ps))
    return FALSE;
  GEnumValue *ev = g_enum_get_value (((GParamSpecEnum *) ps)->enum_class, g_value_get_enum (v));
  return ev && g_str_has_prefix (ev->value_name, "Accepted for");
}

static gboolean
skip_property (GParamSpec * ps)
{
  /* the base objects' name/parent are not the element's; file names (objects-file,
   * quadcut's plate-location and background-location) are read when the element
   * starts or the file is taken, and a missing file is an element error by design:
   * their element suites check those errors and the fuzzers read their contents */
  return !(ps->flags & G_PARAM_WRITABLE) || (ps->flags & G_PARAM_CONSTRUCT_ONLY)
      || ps->owner_type == GST_TYPE_OBJECT || ps->owner_type == G_TYPE_OBJECT
      || g_str_has_suffix (ps->name, "-file") || g_str_has_suffix (ps->name, "-location");
}

/* Every writable property at its minimum, its maximum, then an invalid value, each
 * while PLAYING with a frame through after it: no crash, no error; the invalid value is
 * refused with a warning and the property keeps its value. */
GST_START_TEST (test_properties_while_playing)
{
  const CvElementCase *c = CASE;
  const gchar *f = c->formats[0];
  const int w = 32, h = 24;
  GstHarness *hn = case_harness (c, NULL, f, w, h);
  GstBus *bus = cv_harness_bus (hn);
  guint idx = 0;
  gst_buffer_unref (gst_harness_push_and_pull (hn, cv_test_frame (f, w, h, idx++, 0)));
  guint n_props;
  GstElement *e = harness_element (hn);
  GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n_props);
  for (guint i = 0; i < n_props; i++) {
    GParamSpec *ps = props[i];
    if (skip_property (ps))
      continue;
    GValue orig = G_VALUE_INIT;
    g_value_init (&orig, ps->value_type);
    g_object_get_property (G_OBJECT (e), ps->name, &orig);
    for (int which = 0; which < 3; which++) {
      GValue v = G_VALUE_INIT;
      if (!property_value (ps, which, &v)) {
        if (G_IS_VALUE (&v))
          g_value_unset (&v);
        continue;
      }
      GValue before = G_VALUE_INIT, after = G_VALUE_INIT;
      g_value_init (&before, ps->value_type);
      g_value_init (&after, ps->value_type);
      g_object_get_property (G_OBJECT (e), ps->name, &before);
      /* the warning: GObject's for a value outside the spec (a g_warning in older
       * GLib, a g_critical in newer: gst-check raises one flag or the other), or the
       * element's own on the bus for one its setter refuses; a limit may also be
       * refused where the element documents a bound that depends on the frame
       * (cvdmosaic: sites <= pixels) */
      GstMessage *wm;
      while ((wm = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING)))   /* earlier ones */
        gst_message_unref (wm);
      _gst_check_raised_warning = FALSE;
      _gst_check_raised_critical = FALSE;
      _gst_check_expecting_log = TRUE;
      g_object_set_property (G_OBJECT (e), ps->name, &v);
      _gst_check_expecting_log = FALSE;
      wm = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
      gboolean warned = _gst_check_raised_warning || _gst_check_raised_critical || wm != NULL;
      if (wm)
        gst_message_unref (wm);
      if (which == 2)
        fail_unless (warned, "%s: invalid %s taken without a warning", c->name, ps->name);
      g_object_get_property (G_OBJECT (e), ps->name, &after);
      if (which == 2 || warned)
        fail_unless (values_equal (ps, &before, &after),
            "%s: %s refused with a warning, but the value changed", c->name, ps->name);
      else
        fail_unless (values_equal (ps, &v, &after) || is_alias_value (ps, &v),
            "%s: %s was accepted, but reads back another value", c->name, ps->name);
      _gst_check_raised_warning = FALSE;
      _gst_check_raised_critical = FALSE;
      g_value_unset (&before);
      g_value_unset (&after);
      GstBuffer *out = gst_harness_push_and_pull (hn, cv_test_frame (f, w, h, idx++, 0));
      fail_unless (out != NULL, "%s: no output after %s = %s", c->name, ps->name,
          which == 0 ? "min" : which == 1 ? "max" : "invalid");
      gst_buffer_unref (out);
      gchar *what = g_strdup_printf ("%s %s=%s", c->name, ps->name,
          which == 0 ? "min" : which == 1 ? "max" : "invalid");
      cv_assert_no_error (bus, what);
      g_free (what);
      g_value_unset (&v);
    }
    g_object_set_property (G_OBJECT (e), ps->name, &orig);
    g_value_unset (&orig);
  }
  g_free (props);
  gst_object_unref (e);
  cv_harness_teardown (hn, bus);
}
GST_END_TEST;

/* The nick of the element's active-backend. */
static gchar *
active_backend (GstElement * e)
{
  gint v;
  g_object_get (e, "active-backend", &v, NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "active-backend");
  GEnumValue *ev = g_enum_get_value (G_ENUM_CLASS (g_type_class_peek (ps->value_type)), v);
  fail_unless (ev != NULL, "active-backend %d", v);
  return g_strdup (ev->value_nick);
}

/* active-backend (read-only, from the base class): none before a stream, the backend
 * that backend=auto resolved to once a buffer went through (cpu without a CUDA
 * device, cuda with one), none again after the element went back to NULL. */
GST_START_TEST (test_active_backend)
{
  const CvElementCase *c = CASE;
  const gchar *f = c->formats[0];
  const int w = 32, h = 24;
  GstHarness *hn = case_harness (c, "backend=auto", f, w, h);
  GstElement *e = harness_element (hn);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "active-backend");
  fail_unless (ps != NULL && !(ps->flags & G_PARAM_WRITABLE), "%s: no read-only "
      "active-backend", c->name);
  GstElement *fresh = gst_element_factory_make (c->name, NULL);
  gchar *before = active_backend (fresh);
  ck_assert_str_eq (before, "none");
  g_free (before);
  gst_object_unref (fresh);
  gst_buffer_unref (gst_harness_push_and_pull (hn, cv_test_frame (f, w, h, 0, 0)));
  gst_buffer_unref (gst_harness_push_and_pull (hn, cv_test_frame (f, w, h, 1, 0)));
  gchar *now = active_backend (e);
  const gchar *expected = cc_cuda_device_count () > 0 ? "cuda" : "cpu";
  g_print ("%s backend=auto: active-backend=%s after 2 frames\n", c->name, now);
  ck_assert_str_eq (now, expected);
  g_free (now);
  gst_harness_teardown (hn);   /* to NULL */
  gchar *after = active_backend (e);
  ck_assert_str_eq (after, "none");
  g_free (after);
  gst_object_unref (e);
}
GST_END_TEST;

/* One test case per element (named after it: CK_RUN_CASE=quadcut runs its row alone). */
static Suite *
generic_suite (void)
{
  Suite *s = suite_create ("generic");
  for (int i = 0; i < cv_n_element_cases; i++) {
    TCase *tc = tcase_create (cv_element_cases[i].name);
    tcase_set_timeout (tc, 590);
    tcase_add_loop_test (tc, test_states_without_data, i, i + 1);
    tcase_add_loop_test (tc, test_states_with_data, i, i + 1);
    tcase_add_loop_test (tc, test_flushing_seek, i, i + 1);
    tcase_add_loop_test (tc, test_renegotiation, i, i + 1);
    tcase_add_loop_test (tc, test_sizes, i, i + 1);
    tcase_add_loop_test (tc, test_stride_padding, i, i + 1);
    tcase_add_loop_test (tc, test_eos_without_frames, i, i + 1);
    tcase_add_loop_test (tc, test_properties_while_playing, i, i + 1);
    tcase_add_loop_test (tc, test_cuda_memory_without_device, i, i + 1);
    tcase_add_loop_test (tc, test_active_backend, i, i + 1);
    suite_add_tcase (s, tc);
  }
  return s;
}

/* CV_CHECK_MAIN, and a CK_RUN_CASE that names no row is an error (meson runs one
 * test per row by that name: a renamed row must not pass by running nothing). */
int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  const gchar *only = g_getenv ("CK_RUN_CASE");
  gboolean found = only == NULL;
  for (int i = 0; only && i < cv_n_element_cases; i++)
    found |= g_str_equal (only, cv_element_cases[i].name);
  if (!found) {
    g_printerr ("CK_RUN_CASE=%s: no such row in cv_element_cases\n", only);
    return 1;
  }
  return cv_check_run_suite (generic_suite (), argv[0]);
}
