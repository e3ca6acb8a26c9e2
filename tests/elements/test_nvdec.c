/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hardware decode into the elements: nvh264dec's CUDA memory straight into
 * cudaflowepic, moctracker and quadcut (no host copy) gives, frame by frame, the bytes
 * of the same decoded frames brought to system memory first (cudadownload) and
 * processed there on the same backend. The clip is the project's objects clip encoded
 * by the build (media/objects.h264, x264enc). Skips without a device, nvh264dec or the
 * file. */
#include "element_common.h"
#include <gst/app/gstappsink.h>
#include <stdio.h>
#include <string.h>

#define FRAMES 48

static const gchar *
nvdec_missing (void)
{
  const gchar *why = cv_cuda_elements_missing ();
  if (why)
    return why;
  GstElementFactory *f = gst_element_factory_find ("nvh264dec");
  if (!f)
    return CV_SKIP_NO_ELEMENT;
  gst_object_unref (f);
  if (!g_file_test (CV_OBJECTS_H264, G_FILE_TEST_EXISTS))
    return CV_SKIP_NO_ELEMENT;   /* x264enc was missing at build time */
  return NULL;
}

/* Every output frame of `launch` (appsink "s"), packed NV12 640x360, concatenated. */
static guint8 *
run_frames (const gchar * launch, guint * n_frames, gsize * frame_size)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL, "%s: %s", launch, err ? err->message : "?");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "s");
  ck_assert_int_ne (gst_element_set_state (pipe, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GByteArray *all = g_byte_array_new ();
  guint n = 0;
  GstSample *sample;
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 60 * GST_SECOND))) {
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
    GstVideoFrame vf;
    fail_unless (gst_video_frame_map (&vf, &info, gst_sample_get_buffer (sample), GST_MAP_READ));
    *frame_size = 0;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
      int rows = GST_VIDEO_FRAME_COMP_HEIGHT (&vf, p);
      int bytes = GST_VIDEO_FRAME_COMP_WIDTH (&vf, p) * GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, p);
      for (int y = 0; y < rows; y++)
        g_byte_array_append (all, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, p)
            + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p), bytes);
      *frame_size += (gsize) rows * bytes;
    }
    gst_video_frame_unmap (&vf);
    gst_sample_unref (sample);
    n++;
  }
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: no EOS", launch);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  *n_frames = n;
  return g_byte_array_free (all, FALSE);
}

/* `element` (with backend=cuda) fed by nvh264dec in CUDA memory, against the same
 * element after cudadownload (system memory, uploaded by the element). */
static void
check_nvdec (const gchar * element)
{
  const gchar *src = "filesrc location=" CV_OBJECTS_H264 " ! h264parse ! nvh264dec ! ";
  const gchar *nv12 = "video/x-raw,format=NV12";
  gchar *direct = g_strdup_printf ("%s video/x-raw(memory:CUDAMemory),format=NV12 ! %s ! "
      "cudadownload ! %s ! appsink name=s sync=false", src, element, nv12);
  gchar *staged = g_strdup_printf ("%s cudadownload ! %s ! %s ! appsink name=s sync=false",
      src, nv12, element);
  guint na, nb;
  gsize fa = 0, fb = 0;
  guint8 *a = run_frames (direct, &na, &fa), *b = run_frames (staged, &nb, &fb);
  ck_assert_uint_eq (na, FRAMES);
  ck_assert_uint_eq (nb, FRAMES);
  ck_assert_uint_eq (fa, fb);
  int first_bad = -1;
  long differ = 0;
  for (guint f = 0; f < na; f++) {
    long d = 0;
    for (gsize i = 0; i < fa; i++)
      d += a[f * fa + i] != b[f * fa + i];
    if (d && first_bad < 0)
      first_bad = (int) f;
    differ += d;
  }
  g_print ("nvh264dec ! %s: %u frames, CUDA memory vs system memory: %ld bytes differ\n",
      element, na, differ);
  ck_assert_msg (differ == 0, "%s: %ld bytes differ (first at frame %d)", element, differ,
      first_bad);
  g_free (a);
  g_free (b);
  g_free (direct);
  g_free (staged);
}

/* The clip's objects (frame 0 of objects.csv: r, g, b) as moctracker's list. */
static gchar *
clip_objects (void)
{
  FILE *f = fopen (CV_OBJECTS_CLIP "/objects.csv", "r");
  fail_unless (f != NULL);
  GString *s = g_string_new (NULL);
  char line[256];
  fail_unless (fgets (line, sizeof line, f) != NULL);   /* header */
  while (fgets (line, sizeof line, f)) {
    int frame, id, r, g, b;
    if (sscanf (line, "%d,%d,%d,%d,%d", &frame, &id, &r, &g, &b) != 5 || frame != 0)
      break;
    g_string_append_printf (s, "%so%d:#%02x%02x%02x:40", s->len ? ";" : "", id, r, g, b);
  }
  fclose (f);
  return g_string_free (s, FALSE);
}

#define SKIP_WITHOUT_NVDEC(what)                                                  \
  do {                                                                            \
    const gchar *why_ = nvdec_missing ();                                         \
    if (why_)                                                                     \
      CV_SKIP ((what), why_);                                                     \
  } while (0)

GST_START_TEST (test_nvdec_cudaflowepic)
{
  SKIP_WITHOUT_NVDEC ("nvh264dec ! cudaflowepic");
  check_nvdec ("cudaflowepic backend=cuda visualize=color");
}
GST_END_TEST;

GST_START_TEST (test_nvdec_moctracker)
{
  SKIP_WITHOUT_NVDEC ("nvh264dec ! moctracker");
  gchar *objects = clip_objects ();
  gchar *element = g_strdup_printf ("moctracker backend=cuda draw=all objects=\"%s\"", objects);
  check_nvdec (element);
  g_free (element);
  g_free (objects);
}
GST_END_TEST;

#ifdef CV_HAVE_QUADCUT
GST_START_TEST (test_nvdec_quadcut)
{
  SKIP_WITHOUT_NVDEC ("nvh264dec ! quadcut");
  check_nvdec ("quadcut backend=cuda mode=plate learn-frames=4 output=composite");
}
GST_END_TEST;
#endif

static Suite *
nvdec_suite (void)
{
  Suite *s = suite_create ("nvdec");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_nvdec_cudaflowepic);
  tcase_add_test (tc, test_nvdec_moctracker);
#ifdef CV_HAVE_QUADCUT
  tcase_add_test (tc, test_nvdec_quadcut);
#endif
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (nvdec);
