/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer helpers shared by the tools that drive a pipeline (header only: cvtools
 * itself does not link GStreamer). */
#ifndef CV_GST_H
#define CV_GST_H
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>

/* Says on stderr, once per element, the backend each cudavision element of `pipe` runs
 * on ("PROG: NAME runs on the cpu backend"), when its active-backend property leaves
 * none (call before PLAYING). */
static inline void
cv_gst_backend_notified (GObject *e, GParamSpec *ps, gpointer prog)
{
  gint v = 0;
  g_object_get (e, "active-backend", &v, NULL);
  GEnumValue *ev = g_enum_get_value (G_ENUM_CLASS (g_type_class_peek (ps->value_type)), v);
  if (!ev || !strcmp (ev->value_nick, "none") || g_object_get_data (e, "cv-said-backend"))
    return;
  g_object_set_data (e, "cv-said-backend", GINT_TO_POINTER (1));
  fprintf (stderr, "%s: %s runs on the %s backend\n", (const char *) prog,
      GST_OBJECT_NAME (e), ev->value_nick);
}

static inline void
cv_gst_report_backends (GstElement *pipe, const char *prog)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipe));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GObject *e = g_value_get_object (&item);
    if (g_object_class_find_property (G_OBJECT_GET_CLASS (e), "active-backend"))
      g_signal_connect (e, "notify::active-backend", G_CALLBACK (cv_gst_backend_notified),
          (gpointer) prog);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}

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

/* The next sample of the appsink `sink` in `pipe`: 1, 0 at the end of the stream, -1
 * after "PREFIX: MESSAGE" on stderr when the pipeline posts an error or gives no
 * sample for stall_s seconds. Never blocks longer than CV_GST_POLL_MS without reading
 * the bus: a blocking pull waits forever when a source or decoder fails (no EOS
 * comes), e.g. on a file that is not a playable video. */
#define CV_GST_POLL_MS 100
static inline int
cv_gst_pull (GstElement *pipe, GstElement *sink, const char *prefix, int stall_s,
    GstSample **out)
{
  GstBus *bus = gst_element_get_bus (pipe);
  gint64 start = g_get_monotonic_time ();
  int rc = 0;
  for (;;) {
    *out = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), CV_GST_POLL_MS * GST_MSECOND);
    if (*out) {
      rc = 1;
      break;
    }
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      fprintf (stderr, "%s: %s\n", prefix, err->message);
      g_error_free (err);
      gst_message_unref (msg);
      rc = -1;
      break;
    }
    if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
      break;
    if (g_get_monotonic_time () - start > (gint64) stall_s * G_USEC_PER_SEC) {
      fprintf (stderr, "%s: no frame for %d s\n", prefix, stall_s);
      rc = -1;
      break;
    }
  }
  gst_object_unref (bus);
  return rc;
}
#endif
