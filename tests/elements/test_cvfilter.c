/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFilter itself, through a minimal subclass defined here: the frame error with
 * its number is posted once by the base, the memory location is derived once per
 * negotiation and follows a caps change, and process() gets the element's stream. */
#include "element_common.h"
#include "gstcvfilter.h"

/* ------------------------------------------------------------- the subclass */

typedef struct {
  GstCvFilter parent;
  /* what the test asks for */
  gint fail_at;            /* process() fails on this frame (-1: never) */
  gboolean post_own;       /* ... posting its own error (what = NULL) */
  /* what the element saw */
  gint setups;
  cc_location setup_location;
  cc_location frame_location;
  cc_stream setup_stream, frame_stream;
  gint frame_width;
  guint frames;
} GstCvTestFilter;

typedef struct {
  GstCvFilterClass parent_class;
} GstCvTestFilterClass;

GType gst_cv_test_filter_get_type (void);
G_DEFINE_TYPE (GstCvTestFilter, gst_cv_test_filter, GST_TYPE_CV_FILTER);
#define TEST_FILTER(o) ((GstCvTestFilter *) (o))

static gboolean
test_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstCvTestFilter *self = TEST_FILTER (filter);
  self->setups++;
  self->setup_location = gst_cv_filter_get_location (filter);
  self->setup_stream = gst_cv_filter_get_stream (filter);
  return TRUE;
}

static cc_status
test_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame, cc_stream stream,
    const gchar ** what)
{
  GstCvTestFilter *self = TEST_FILTER (filter);
  self->frame_location = frame->location;
  self->frame_stream = stream;
  self->frame_width = frame->width;
  self->frames++;
  if ((gint) gst_cv_filter_get_frame_number (filter) == self->fail_at) {
    if (self->post_own) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("the subclass's own error"), (NULL));
      *what = NULL;
      return CC_ERROR_INTERNAL;
    }
    *what = "the test work";
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "deliberate failure");
  }
  *what = "the test work";
  /* real work on the stream: the frame's first byte set to 7 */
  return cc_image_fill (gst_cv_filter_get_context (filter), stream, frame, 7);
}

static gboolean
test_writes_frame (GstCvFilter * filter)
{
  return TRUE;
}

static void
gst_cv_test_filter_class_init (GstCvTestFilterClass * klass)
{
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "cv test filter",
      "Filter/Video", "GstCvFilter under test", "cudavision");
  gst_cv_filter_class_add_pad_templates (filter_class);
  filter_class->setup = test_setup;
  filter_class->process = test_process;
  filter_class->writes_frame = test_writes_frame;
}

static void
gst_cv_test_filter_init (GstCvTestFilter * self)
{
  self->fail_at = -1;
}

static GstHarness *
test_harness (const gchar * backend, const gchar * format, int w, int height)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    gst_element_register (NULL, "cvtestfilter", GST_RANK_NONE, gst_cv_test_filter_get_type ());
    g_once_init_leave (&once, 1);
  }
  GstHarness *h = gst_harness_new ("cvtestfilter");
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
      format, w, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* The first error on the element's bus (NULL if none); *count: how many. */
static GstMessage *
first_error (GstBus * bus, guint * count)
{
  GstMessage *first = NULL, *m;
  *count = 0;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    (*count)++;
    if (!first)
      first = m;
    else
      gst_message_unref (m);
  }
  return first;
}

/* ------------------------------------------------------------- tests */

/* A process() failure is reported by the base, once, with the frame's number, the
 * subclass's "what" and the core's message. */
GST_START_TEST (test_error_carries_frame_number)
{
  GstHarness *h = test_harness ("cpu", "GRAY8", 32, 24);
  GstCvTestFilter *self = TEST_FILTER (h->element);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  self->fail_at = 2;
  for (guint i = 0; i < 2; i++)
    ck_assert_int_eq (gst_harness_push (h, cv_test_frame ("GRAY8", 32, 24, i, 0)), GST_FLOW_OK);
  ck_assert_int_eq (gst_harness_push (h, cv_test_frame ("GRAY8", 32, 24, 2, 0)),
      GST_FLOW_ERROR);
  guint n;
  GstMessage *m = first_error (bus, &n);
  ck_assert_uint_eq (n, 1);
  GError *err = NULL;
  gchar *debug = NULL;
  gst_message_parse_error (m, &err, &debug);
  ck_assert_str_eq (err->message, "the test work failed on frame 2");
  ck_assert_msg (strstr (debug, "CC_ERROR_INVALID_ARGUMENT: deliberate failure") != NULL,
      "debug: %s", debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (m);
  gst_buffer_unref (gst_harness_pull (h));
  gst_buffer_unref (gst_harness_pull (h));
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A subclass that posts its own error (what = NULL): exactly that one error. */
GST_START_TEST (test_own_error_posted_once)
{
  GstHarness *h = test_harness ("cpu", "GRAY8", 32, 24);
  GstCvTestFilter *self = TEST_FILTER (h->element);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  self->fail_at = 0;
  self->post_own = TRUE;
  ck_assert_int_eq (gst_harness_push (h, cv_test_frame ("GRAY8", 32, 24, 0, 0)),
      GST_FLOW_ERROR);
  guint n;
  GstMessage *m = first_error (bus, &n);
  ck_assert_uint_eq (n, 1);
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  ck_assert_str_eq (err->message, "the subclass's own error");
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Pushes one frame and checks what the subclass saw: the location derived at setup
 * is the frame's, the stream given to process() is the one of the setup. */
static void
check_frame (GstHarness * h, const gchar * format, int w, int hgt, guint index,
    cc_location want, gint want_setups)
{
  GstCvTestFilter *self = TEST_FILTER (h->element);
  ck_assert_int_eq (gst_harness_push (h, cv_test_frame (format, w, hgt, index, 0)),
      GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  ck_assert_int_eq (self->setups, want_setups);
  ck_assert_int_eq (self->setup_location, want);
  ck_assert_int_eq (self->frame_location, want);
  ck_assert_int_eq (self->frame_width, w);
  ck_assert (self->frame_stream == self->setup_stream);
  if (want == CC_LOCATION_HOST)
    ck_assert (self->frame_stream == NULL);   /* the CPU backend has none */
  else
    ck_assert (self->frame_stream != NULL);
  /* the work reached the output (downloaded back from the device when staged) */
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  ck_assert_uint_eq (map.data[0], 7);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

/* The location follows the backend and is derived again on a caps change (size and
 * format): system memory on the CPU backend (host), and on the CUDA backend (device
 * staging) when a device exists. CUDA memory caps need cudaupload and a device:
 * test_cudaflowlk's CUDA-memory tests run that path. */
GST_START_TEST (test_location_per_negotiation)
{
  const gchar *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < 2; b++) {
    const char *no_gpu = b == 1 ? cv_test_gpu_missing () : NULL;
    if (no_gpu) {
      CV_SKIP_PART ("location on backend=cuda", no_gpu);
      continue;
    }
    cc_location want = b == 0 ? CC_LOCATION_HOST : CC_LOCATION_DEVICE;
    GstHarness *h = test_harness (backends[b], "GRAY8", 32, 24);
    check_frame (h, "GRAY8", 32, 24, 0, want, 1);
    check_frame (h, "GRAY8", 32, 24, 1, want, 1);   /* no new negotiation: no setup */
    gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=48,height=20,"
        "framerate=30/1");
    check_frame (h, "RGBA", 48, 20, 2, want, 2);
    gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=32,height=24,"
        "framerate=30/1");
    check_frame (h, "GRAY8", 32, 24, 3, want, 3);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

static Suite *
cvfilter_suite (void)
{
  Suite *s = suite_create ("cvfilter");
  TCase *tc = tcase_create ("base");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_error_carries_frame_number);
  tcase_add_test (tc, test_own_error_posted_once);
  tcase_add_test (tc, test_location_per_negotiation);
  return s;
}

CV_CHECK_MAIN (cvfilter);
