/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a hostile or careless user can do to the elements:
 *  - every GST_PARAM_MUTABLE_PLAYING property of every element changed from other
 *    threads while frames stream (gst_harness_stress_property_start_full, as
 *    gst-plugins-good's videoflip test), under ASan in CI;
 *  - moctracker's objects-file naming /dev/zero, a FIFO, a folder or a huge file:
 *    refused at once, without reading it;
 *  - refused object lists reach the bus (not only a g_warning on stderr): an error at
 *    the start, a warning while running with the previous list kept;
 *  - moctracker's instances are named moctracker0, ...;
 *  - cpu-threads is capped at the machine's cores;
 *  - quadcut's plate-location or background-location naming a truncated JPEG is an
 *    element error, not a half-decoded picture. */
#include "element_common.h"
#include "gstcvfilter.h"
#include <cudacore/cc_moct_objects.h>
#include <glib/gstdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#define W 64
#define H 48

/* The text of the first message of `type` on `bus` that contains `needle` (g_free), or
 * NULL; with `src`, the name of the element that posted it. */
static gchar *
bus_find (GstBus * bus, GstMessageType type, const gchar * needle, gchar ** src)
{
  GstMessage *msg;
  gchar *found = NULL;
  while (!found && (msg = gst_bus_pop_filtered (bus, type))) {
    GError *err = NULL;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
      gst_message_parse_warning (msg, &err, NULL);
    else
      gst_message_parse_error (msg, &err, NULL);
    if (err && strstr (err->message, needle)) {
      found = g_strdup (err->message);
      if (src)
        *src = gst_object_get_name (GST_MESSAGE_SRC (msg));
    }
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  return found;
}

/* ------------------------------------------------------------- property stress */

/* Values a property flips between: its default, minimum and maximum (enums: first and
 * last; flags: none and all; strings: the default and ""). FALSE for types left out. */
static gboolean
stress_values (GParamSpec * p, GValue v[3])
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (p);
  for (int i = 0; i < 3; i++)
    g_value_init (&v[i], t);
  g_param_value_set_default (p, &v[0]);
  if (G_IS_PARAM_SPEC_BOOLEAN (p)) {
    g_value_set_boolean (&v[1], FALSE);
    g_value_set_boolean (&v[2], TRUE);
  } else if (G_IS_PARAM_SPEC_INT (p)) {
    g_value_set_int (&v[1], G_PARAM_SPEC_INT (p)->minimum);
    g_value_set_int (&v[2], G_PARAM_SPEC_INT (p)->maximum);
  } else if (G_IS_PARAM_SPEC_UINT (p)) {
    g_value_set_uint (&v[1], G_PARAM_SPEC_UINT (p)->minimum);
    g_value_set_uint (&v[2], G_PARAM_SPEC_UINT (p)->maximum);
  } else if (G_IS_PARAM_SPEC_INT64 (p)) {
    g_value_set_int64 (&v[1], G_PARAM_SPEC_INT64 (p)->minimum);
    g_value_set_int64 (&v[2], G_PARAM_SPEC_INT64 (p)->maximum);
  } else if (G_IS_PARAM_SPEC_UINT64 (p)) {
    g_value_set_uint64 (&v[1], G_PARAM_SPEC_UINT64 (p)->minimum);
    g_value_set_uint64 (&v[2], G_PARAM_SPEC_UINT64 (p)->maximum);
  } else if (G_IS_PARAM_SPEC_DOUBLE (p)) {
    g_value_set_double (&v[1], G_PARAM_SPEC_DOUBLE (p)->minimum);
    g_value_set_double (&v[2], G_PARAM_SPEC_DOUBLE (p)->maximum);
  } else if (G_IS_PARAM_SPEC_FLOAT (p)) {
    g_value_set_float (&v[1], G_PARAM_SPEC_FLOAT (p)->minimum);
    g_value_set_float (&v[2], G_PARAM_SPEC_FLOAT (p)->maximum);
  } else if (G_IS_PARAM_SPEC_ENUM (p)) {
    GEnumClass *e = G_PARAM_SPEC_ENUM (p)->enum_class;
    g_value_set_enum (&v[1], e->values[0].value);
    g_value_set_enum (&v[2], e->values[e->n_values - 1].value);
  } else if (G_IS_PARAM_SPEC_FLAGS (p)) {
    g_value_set_flags (&v[1], 0);
    g_value_set_flags (&v[2], G_PARAM_SPEC_FLAGS (p)->flags_class->mask);
  } else if (G_IS_PARAM_SPEC_STRING (p)) {
    g_value_set_string (&v[1], "");
    g_value_set_string (&v[2], "");
  } else {
    for (int i = 0; i < 3; i++)
      g_value_unset (&v[i]);
    return FALSE;
  }
  return TRUE;
}

/* File names are read when set and a missing file is an element error by design (the
 * suites of moctracker and quadcut and the fuzzers cover them). */
static gboolean
is_file_name (const gchar * name)
{
  return g_str_has_suffix (name, "-file") || g_str_has_suffix (name, "-location");
}

/* Warnings of the elements' own (domain NULL) while properties are stressed: a value
 * in its spec's range but refused for this frame (cvdmosaic's sites above the pixels,
 * cudaflowlk's even window sizes) is a g_warning by design, counted here; GLib's own
 * warnings and every critical still fail the test (gst-check's handlers). */
static void
count_warning (const gchar * domain, GLogLevelFlags level, const gchar * message,
    gpointer data)
{
  (*(guint *) data)++;
  GST_DEBUG ("refused while stressed: %s", message);
}

/* Row `_i` of cv_element_cases: each property that may change while PLAYING is set
 * from three threads (its default, minimum and maximum, every 1 ms) while frames
 * stream; every frame must come out and no error reach the bus. Small frames, a few
 * frames a property: quick under ASan (asanci). */
GST_START_TEST (test_stress_properties)
{
  const CvElementCase *row = &cv_element_cases[__i__];
  const gchar *format = row->formats[0];
  GError *perr = NULL;
  GstElement *e = gst_parse_launch (row->launch, &perr);
  fail_unless (e != NULL, "%s: %s", row->launch, perr ? perr->message : "");
  gst_object_ref_sink (e);   /* (floating) ours; the harness takes its own reference */
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
      format, W, H);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  GstBus *bus = cv_harness_bus (h);
  guint n_props, stressed = 0, frame = 0, refused = 0;
  guint handler = g_log_set_handler (NULL, G_LOG_LEVEL_WARNING, count_warning, &refused);
  GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n_props);
  for (guint k = 0; k < n_props; k++) {
    GParamSpec *p = props[k];
    gint64 t_prop = g_get_monotonic_time ();
    if (!(p->flags & G_PARAM_WRITABLE) || !(p->flags & GST_PARAM_MUTABLE_PLAYING)
        || (p->flags & G_PARAM_CONSTRUCT_ONLY) || is_file_name (p->name))
      continue;
    GValue v[3] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT };
    if (!stress_values (p, v))
      continue;
    GValue before = G_VALUE_INIT;
    g_value_init (&before, G_PARAM_SPEC_VALUE_TYPE (p));
    g_object_get_property (G_OBJECT (e), p->name, &before);
    GstHarnessThread *t[3];
    for (int i = 0; i < 3; i++)
      t[i] = gst_harness_stress_property_start_full (h, p->name, &v[i], 1000);
    for (int f = 0; f < 2; f++, frame++) {
      GstBuffer *out = gst_harness_push_and_pull (h, cv_test_frame (format, W, H, frame, 0));
      fail_unless (out != NULL, "%s: no frame out while %s changes", row->name, p->name);
      gst_buffer_unref (out);
    }
    for (int i = 0; i < 3; i++) {
      gst_harness_stress_thread_stop (t[i]);
      g_value_unset (&v[i]);
    }
    /* the property set back, one frame at it */
    g_object_set_property (G_OBJECT (e), p->name, &before);
    g_value_unset (&before);
    gst_buffer_unref (gst_harness_push_and_pull (h, cv_test_frame (format, W, H, frame++, 0)));
    gchar *what = g_strdup_printf ("%s while %s changes", row->name, p->name);
    cv_assert_no_error (bus, what);
    g_free (what);
    stressed++;
    if (g_getenv ("CV_STRESS_TIMES"))
      g_print ("  %s %.2f s\n", p->name, (g_get_monotonic_time () - t_prop) / 1e6);
  }
  g_free (props);
  g_log_remove_handler (NULL, handler);
  /* backend and cuda-device-id are READY-only; every element has more than these */
  fail_unless (stressed >= 3, "%s: only %u properties stressed", row->name, stressed);
  g_print ("%s: %u properties stressed over %u frames, %u values refused\n", row->name,
      stressed, frame, refused);
  cv_harness_teardown (h, bus);
  gst_object_unref (e);
}
GST_END_TEST;

/* ------------------------------------------------------------- moctracker */

static long
peak_rss_kb (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* objects-file: what is not a regular file of at most CC_MOCT_OBJECTS_FILE_MAX bytes
 * is refused at once, without reading it; the list stays. */
GST_START_TEST (test_objects_file_hostile)
{
  gchar *dir = g_dir_make_tmp ("cv-robust-XXXXXX", NULL);
  fail_unless (dir != NULL);
  gchar *fifo = g_build_filename (dir, "fifo", NULL);
  fail_unless (mkfifo (fifo, 0600) == 0);
  /* one byte over the limit, of valid lines */
  gchar *big = g_build_filename (dir, "big.txt", NULL);
  gchar *text = g_malloc (CC_MOCT_OBJECTS_FILE_MAX + 2);
  memset (text, ' ', CC_MOCT_OBJECTS_FILE_MAX + 1);
  memcpy (text, "a #102030\n", 10);
  text[CC_MOCT_OBJECTS_FILE_MAX + 1] = '\0';
  fail_unless (g_file_set_contents (big, text, CC_MOCT_OBJECTS_FILE_MAX + 1, NULL));
  /* at the limit: taken */
  gchar *limit = g_build_filename (dir, "limit.txt", NULL);
  fail_unless (g_file_set_contents (limit, text, CC_MOCT_OBJECTS_FILE_MAX, NULL));
  g_free (text);
  gchar *nul = g_build_filename (dir, "nul.txt", NULL);
  fail_unless (g_file_set_contents (nul, "a #102030\n\0b #405060\n", 21, NULL));

  GstElement *e = gst_element_factory_make ("moctracker", NULL);
  g_object_set (e, "objects", "keep:#010203", NULL);
  struct { const gchar *path, *pattern; } bad[] = {
    { "/dev/zero", "*/dev/zero: not a regular file (a character device)*" },
    { "/dev/urandom", "*not a regular file*" },
    { fifo, "*not a regular file (a FIFO)*" },
    { dir, "*not a regular file (a folder)*" },
    { big, "*1048577 bytes, over the 1048576 bytes*" },
    { nul, "*a NUL byte at offset 10*" },
  };
  long rss0 = peak_rss_kb ();
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    gint64 t0 = g_get_monotonic_time ();
    g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, bad[i].pattern);
    g_object_set (e, "objects-file", bad[i].path, NULL);
    g_test_assert_expected_messages ();
    gdouble s = (g_get_monotonic_time () - t0) / 1e6;
    fail_unless (s < 2.0, "%s: refused after %.1f s", bad[i].path, s);
    gchar *now;
    g_object_get (e, "objects", &now, NULL);
    ck_assert_str_eq (now, "keep:#010203");
    g_free (now);
  }
  long grown = peak_rss_kb () - rss0;
  fail_unless (grown < 64 * 1024, "peak RSS grew by %ld kB", grown);
  g_object_set (e, "objects-file", limit, NULL);
  gchar *now;
  g_object_get (e, "objects", &now, NULL);
  ck_assert_str_eq (now, "a:#102030");
  g_free (now);
  gst_object_unref (e);
  g_unlink (fifo);
  g_unlink (big);
  g_unlink (limit);
  g_unlink (nul);
  g_rmdir (dir);
  g_free (fifo);
  g_free (big);
  g_free (limit);
  g_free (nul);
  g_free (dir);
}
GST_END_TEST;

/* Runs `launch` to its end; returns the first ERROR's text (g_free) and the name of
 * the element that posted it, or NULL. */
static gchar *
run_pipeline (const gchar * launch, gchar ** src)
{
  GstElement *pipe = gst_parse_launch (launch, NULL);
  fail_unless (pipe != NULL, "%s", launch);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: neither an error nor EOS in 30 s", launch);
  gchar *text = NULL;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err;
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    *src = gst_object_get_name (GST_MESSAGE_SRC (msg));
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return text;
}

/* A list refused before the start fails the start with an error naming it (not a run
 * that tracks nothing and exits 0); while running, a refused change is a warning on
 * the bus and the previous list keeps tracking. */
GST_START_TEST (test_objects_refused_on_the_bus)
{
  struct { const gchar *prop, *pattern, *message; } bad[] = {
    { "objects-file=/nonexistent/objects.txt", "*objects-file*cannot open*",
      "objects-file \"/nonexistent/objects.txt\" refused: /nonexistent/objects.txt: cannot open" },
    { "objects-file=/dev/zero", "*not a regular file*", "not a regular file" },
    { "objects=\"red:#zz0000\"", "*colour*", "entry 1 (\"red\"): colour \"#zz0000\"" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=3 ! "
        "video/x-raw,format=RGBA,width=%d,height=%d ! moctracker backend=cpu %s ! fakesink",
        W, H, bad[i].prop);
    g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, bad[i].pattern);
    gchar *src = NULL, *text = run_pipeline (launch, &src);
    g_test_assert_expected_messages ();
    fail_unless (text && strstr (text, bad[i].message), "%s: error '%s'", launch,
        text ? text : "(none: EOS)");
    fail_unless (g_str_has_prefix (src, "moctracker"), "posted by %s", src);
    g_free (src);
    g_free (text);
    g_free (launch);
  }
  /* while running: warnings, the previous list kept and still tracking */
  GstHarness *h = gst_harness_new_parse ("moctracker backend=cpu objects=box:#ffffff:60");
  GstBus *bus = cv_harness_bus (h);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,height=48,"
      "framerate=30/1");
  gst_buffer_unref (gst_harness_push_and_pull (h, cv_test_frame ("RGBA", W, H, 0, 0)));
  GstElement *e = gst_harness_find_element (h, "moctracker");
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*objects refused: entry 2*");
  g_object_set (e, "objects", "box:#ffffff:60;bad", NULL);
  g_test_assert_expected_messages ();
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*not a regular file*");
  g_object_set (e, "objects-file", "/dev/zero", NULL);
  g_test_assert_expected_messages ();
  gchar *what = NULL;
  gchar *w1 = bus_find (bus, GST_MESSAGE_WARNING, "objects refused: entry 2", &what);
  fail_unless (w1 != NULL, "no warning for a refused objects while running");
  fail_unless (strstr (w1, "the previous list is kept") != NULL, "%s", w1);
  g_free (what);
  gchar *w2 = bus_find (bus, GST_MESSAGE_WARNING, "not a regular file", NULL);
  fail_unless (w2 != NULL, "no warning for a refused objects-file while running");
  g_free (w1);
  g_free (w2);
  gchar *now;
  g_object_get (e, "objects", &now, NULL);
  ck_assert_str_eq (now, "box:#ffffff:60");
  g_free (now);
  GstBuffer *out = gst_harness_push_and_pull (h, cv_test_frame ("RGBA", W, H, 1, 0));
  fail_unless (gst_buffer_get_video_region_of_interest_meta (out) != NULL,
      "the kept list tracks nothing");
  gst_buffer_unref (out);
  cv_assert_no_error (bus, "refused changes while running");
  gst_object_unref (e);
  cv_harness_teardown (h, bus);
}
GST_END_TEST;

/* Instances are named after the element: moctracker0, not mocttracker0. */
GST_START_TEST (test_instance_names)
{
  for (gint i = 0; i < cv_n_element_cases; i++) {
    GstElement *e = gst_element_factory_make (cv_element_cases[i].name, NULL);
    gchar *name = gst_object_get_name (GST_OBJECT (e));
    fail_unless (g_str_has_prefix (name, cv_element_cases[i].name)
        && g_ascii_isdigit (name[strlen (cv_element_cases[i].name)]),
        "an instance of %s is named %s", cv_element_cases[i].name, name);
    g_free (name);
    gst_object_unref (e);
  }
}
GST_END_TEST;

/* cpu-threads above the machine's cores reads back as set, and the context runs on
 * the cores (docs/architecture.md, "cudacore", says what more threads cost). */
GST_START_TEST (test_cpu_threads_capped)
{
  const gint cores = (gint) g_get_num_processors ();
  for (gint i = 0; i < cv_n_element_cases; i++) {
    const CvElementCase *row = &cv_element_cases[i];
    GstHarness *h = cv_harness_new (row->launch, row->formats[0], W, H);
    GstElement *e = gst_harness_find_element (h, row->name);
    g_object_set (e, "cpu-threads", CC_CONTEXT_THREADS_MAX, NULL);
    gint threads;
    g_object_get (e, "cpu-threads", &threads, NULL);
    ck_assert_int_eq (threads, CC_CONTEXT_THREADS_MAX);   /* reads back as set */
    gint64 t0 = g_get_monotonic_time ();
    gst_buffer_unref (gst_harness_push_and_pull (h, cv_test_frame (row->formats[0], W, H, 0, 0)));
    ck_assert_int_eq (cc_context_cpu_threads (gst_cv_filter_get_context (GST_CV_FILTER (e))),
        cc_built_with_openmp () ? MIN (cores, CC_CONTEXT_THREADS_MAX) : 1);
    g_print ("%s: a frame at cpu-threads=max in %.3f s\n", row->name,
        (g_get_monotonic_time () - t0) / 1e6);
    g_object_set (e, "cpu-threads", 1, NULL);
    g_object_get (e, "cpu-threads", &threads, NULL);
    ck_assert_int_eq (threads, 1);
    gst_object_unref (e);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* ------------------------------------------------------------- quadcut */
#ifdef CV_HAVE_QUADCUT
/* A truncated JPEG as plate-location or background-location: an element error that
 * says so, not libjpeg's "Premature end of JPEG file" on stderr and the half-decoded
 * picture used. */
GST_START_TEST (test_quadcut_truncated_jpeg)
{
  gchar *src_path = g_build_filename (g_getenv ("CV_SOURCE_ROOT"), "tests", "fuzz", "corpus",
      "jpeg", "rgb-8x8.jpg", NULL);
  gchar *bytes;
  gsize len;
  fail_unless (g_file_get_contents (src_path, &bytes, &len, NULL), "%s", src_path);
  fail_unless (len > 400);
  gchar *cut = g_build_filename (g_get_tmp_dir (), "cv-robust-truncated.jpg", NULL);
  fail_unless (g_file_set_contents (cut, bytes, 400, NULL));
  const gchar *props[] = { "plate-location", "background-location" };
  for (int i = 0; i < 2; i++) {
    /* the files are read when the element starts: the start fails */
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,"
        "width=%d,height=%d ! quadcut backend=cpu %s%s=%s ! fakesink", W, H,
        i ? "background=image " : "", props[i], cut);
    gchar *src = NULL, *text = run_pipeline (launch, &src);
    fail_unless (text && strstr (text, "Premature end of JPEG file") && strstr (text, props[i]),
        "%s: error '%s'", launch, text ? text : "(none: EOS)");
    fail_unless (g_str_has_prefix (src, "quadcut"), "posted by %s", src);
    g_free (src);
    g_free (text);
    g_free (launch);
  }
  /* the whole file is taken */
  gchar *launch = g_strdup_printf ("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,"
      "width=%d,height=%d ! quadcut backend=cpu plate-location=%s ! fakesink", W, H, src_path);
  gchar *src = NULL, *text = run_pipeline (launch, &src);
  fail_unless (text == NULL, "an intact JPEG plate: error %s", text);
  g_free (launch);
  g_unlink (cut);
  g_free (cut);
  g_free (bytes);
  g_free (src_path);
}
GST_END_TEST;
#endif

static Suite *
robustness_suite (void)
{
  Suite *s = suite_create ("robustness");
  TCase *tc = tcase_create ("robustness");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, test_stress_properties, 0, cv_n_element_cases);
  tcase_add_test (tc, test_objects_file_hostile);
  tcase_add_test (tc, test_objects_refused_on_the_bus);
  tcase_add_test (tc, test_instance_names);
  tcase_add_test (tc, test_cpu_threads_capped);
#ifdef CV_HAVE_QUADCUT
  tcase_add_test (tc, test_quadcut_truncated_jpeg);
#endif
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (robustness);
