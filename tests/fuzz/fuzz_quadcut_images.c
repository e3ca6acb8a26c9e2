/* SPDX-License-Identifier: GPL-3.0-or-later */
/* quadcut's images (plugin cudavisiongpl): the input is the file named by
 * plate-location or background-location (background=image), read when the element
 * starts (cv_image_load: PNG or JPEG by the signature), then scaled to the frame and
 * converted to its format (GstVideoConverter). The first byte picks the property, the
 * frame's format and size; the rest is the file. A bad file must give an element
 * error and nothing else; a good one a frame through. The plugin is loaded from
 * CV_FUZZ_PLUGIN_DIR (the build's gst/). */
#include "fuzz_common.h"
#include "fuzz_gst.h"
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void
quiet_log (const gchar * domain, GLogLevelFlags level, const gchar * msg, gpointer data)
{
  /* the size warning of a plate that is scaled is by design */
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_gst_init (CV_FUZZ_PLUGIN_DIR, quiet_log);
  GstElementFactory *f = gst_element_factory_find ("quadcut");
  if (!f) {
    fprintf (stderr, "quadcut not found in %s\n", CV_FUZZ_PLUGIN_DIR);
    abort ();
  }
  gst_object_unref (f);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  static const char *formats[] = { "RGBA", "I420", "NV12", "BGRx" };
  static const int sizes[][2] = { { 16, 12 }, { 7, 5 } };
  gboolean plate = (data[0] & 1) == 0;
  const char *format = formats[(data[0] >> 1) & 3];
  int w = sizes[(data[0] >> 3) & 1][0], h = sizes[(data[0] >> 3) & 1][1];
  const char *path = fuzz_write_file (data + 1, size - 1, ".img");
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1\" format=time ! quadcut name=e backend=cpu %s=%s %s ! "
      "fakesink sync=false", format, w, h, plate ? "plate-location" : "background-location",
      path, plate ? "" : "background=image");
  GstElement *pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (!pipe)
    abort ();
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  gsize bytes = (gsize) w * h * 4;   /* enough for every format here */
  GstBuffer *buf = gst_buffer_new_allocate (NULL, bytes, NULL);
  gst_buffer_memset (buf, 0, size > 1 ? data[1] : 0x80, bytes);
  gst_app_src_push_buffer (GST_APP_SRC (src), buf);   /* FLUSHING after an error: fine */
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (!msg)
    abort ();   /* neither an error nor EOS: a hang */
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return 0;
}
