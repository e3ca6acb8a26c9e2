/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer helpers shared by the tools that drive a pipeline (header only: cvtools
 * itself does not link GStreamer). */
#ifndef CV_GST_H
#define CV_GST_H
#include <gst/gst.h>
#include <stdio.h>

/* Sets pipe PLAYING, waits for EOS or an error (printed as "PROG: error: ..."), then
 * sets it to NULL. TRUE at EOS. The caller keeps its reference to pipe. */
static inline gboolean
cv_gst_play_to_end (GstElement *pipe, const char *prog)
{
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gboolean ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    fprintf (stderr, "%s: error: %s (%s)\n", prog, e->message, dbg ? dbg : "");
    g_error_free (e);
    g_free (dbg);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  return ok;
}
#endif
