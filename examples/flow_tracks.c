/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* flow_tracks: an application reading the results of two cudavision elements from a
 * running pipeline (docs/api.md):
 *   - cudaflowlk's dense flow (GstCvFlowMeta on every buffer), read in a pad probe;
 *   - moctracker's tracks: a GstVideoRegionOfInterestMeta per present object on the
 *     same buffer (with a "moctracker" parameter structure), and one `moctracker`
 *     element message per frame on the bus.
 * For each frame it prints the mean flow over the frame and, per tracked object, its
 * box, centroid and velocity beside the mean flow inside its box.
 * Built against GStreamer 1.24+ with the analytics library (cudavision-1.0.pc then
 * defines CUDAVISION_HAVE_ANALYTICS), it also reads the same results from the buffer's
 * GstAnalyticsRelationMeta (docs/analytics.md), as any analytics consumer does: per
 * box (GstAnalyticsODMtd) its type and the related track (GstAnalyticsTrackingMtd:
 * id, lost), the lost tracks, and on 1.26+ the flow field (GstCvFlowMtd), printed as
 * "frame F analytics ..." lines with the figures of the lines above.
 *
 *   cc flow_tracks.c -o flow_tracks $(pkg-config --cflags --libs cudavision-1.0)
 *   GST_PLUGIN_PATH=build/gst ./flow_tracks [FRAMES [SOURCE]]
 *
 * FRAMES (default 10) frames of SOURCE, a launch fragment that produces raw video
 * (default: videotestsrc's moving white ball, 160x120). The object list tracks white.
 * Exit status 0 when the pipeline ran to the end. */
#include <cudavision/gstcvflowmeta.h>
#include <gst/video/video.h>
#if defined(CUDAVISION_HAVE_ANALYTICS) && CUDAVISION_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#define HAVE_ANALYTICS 1
#if GST_CHECK_VERSION(1, 26, 0)
#include <cudavision/gstcvflowmtd.h>
#define HAVE_FLOW_MTD 1
#endif
#endif

#include <math.h>
#include <stdlib.h>

/* The mean vector over the cells of box (frame pixels) whose confidence is > 0. */
static gboolean
mean_flow_in (GstCvFlowMeta * meta, int x0, int y0, int w, int h, double *mu, double *mv)
{
  const gfloat *uv, *conf;
  gsize uv_stride, conf_stride;
  if (!gst_cv_flow_meta_map_host (meta, &uv, &uv_stride, &conf, &conf_stride))
    return FALSE;
  double su = 0, sv = 0;
  long n = 0;
  for (int y = y0; y < y0 + h; y++) {
    int gy = y / (int) meta->cell_height;
    if (gy < 0 || gy >= (int) meta->grid_height)
      continue;
    const gfloat *row = (const gfloat *) ((const guint8 *) uv + gy * uv_stride);
    const gfloat *crow = (const gfloat *) ((const guint8 *) conf + gy * conf_stride);
    for (int x = x0; x < x0 + w; x++) {
      int gx = x / (int) meta->cell_width;
      if (gx < 0 || gx >= (int) meta->grid_width || crow[gx] <= 0)
        continue;
      su += row[2 * gx];
      sv += row[2 * gx + 1];
      n++;
    }
  }
  *mu = n ? su / n : 0;
  *mv = n ? sv / n : 0;
  return TRUE;
}

#ifdef HAVE_ANALYTICS
/* The frame's results from its relation meta: the flow mtd (1.26+), each box with its
 * track, the tracks lost on this frame. */
static void
print_analytics (GstBuffer * buf, guint frame)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta) {
    g_print ("frame %u analytics no relation meta\n", frame);
    return;
  }
  GstAnalyticsMtd mtd;
  gpointer state = NULL;
#ifdef HAVE_FLOW_MTD
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_cv_flow_mtd_get_mtd_type (),
          &mtd)) {
    guint gw = 0, gh = 0, cw = 0, ch = 0;
    GstCvFlowConfidence confidence;
    gboolean valid = FALSE;
    const gfloat *uv;
    gsize stride;
    double mu = 0, mv = 0;
    gst_cv_flow_mtd_get_grid (&mtd, &gw, &gh, &cw, &ch);
    gst_cv_flow_mtd_get_info (&mtd, &confidence, &valid);
    /* the whole grid in row order, as the packed copy above is summed */
    if (gw && gh && gst_cv_flow_mtd_map_host (&mtd, &uv, &stride, NULL, NULL)) {
      for (guint y = 0; y < gh; y++) {
        const gfloat *row = (const gfloat *) ((const guint8 *) uv + y * stride);
        for (guint x = 0; x < gw; x++) {
          mu += row[2 * x];
          mv += row[2 * x + 1];
        }
      }
      mu /= (double) gw * gh;
      mv /= (double) gw * gh;
    }
    g_print ("frame %u analytics flow grid %ux%u cell %ux%u %s mean %+.3f %+.3f\n", frame, gw,
        gh, cw, ch, valid ? "valid" : "first", mu, mv);
  }
  state = NULL;
#endif
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_od_mtd_get_mtd_type (),
          &mtd)) {
    gint x = 0, y = 0, w = 0, h = 0;
    gfloat conf = 0;
    gst_analytics_od_mtd_get_location (&mtd, &x, &y, &w, &h, &conf);
    const char *type = g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&mtd));
    GstAnalyticsMtd trk;
    gpointer rstate = NULL;
    guint64 id = 0;
    GstClockTime first = GST_CLOCK_TIME_NONE, last = GST_CLOCK_TIME_NONE;
    gboolean lost = FALSE;
    if (gst_analytics_relation_meta_get_direct_related (rmeta, mtd.id,
            GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type (),
            &rstate, &trk)
        && gst_analytics_tracking_mtd_get_info (&trk, &id, &first, &last, &lost))
      g_print ("frame %u analytics track %s id %" G_GUINT64_FORMAT " box %d,%d %dx%d lost %s "
          "first-seen %" GST_TIME_FORMAT "\n", frame, type, id, x, y, w, h, lost ? "yes" : "no",
          GST_TIME_ARGS (first));
    else
      g_print ("frame %u analytics box %s box %d,%d %dx%d (no track)\n", frame, type, x, y, w, h);
  }
  state = NULL;
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_tracking_mtd_get_mtd_type (), &mtd)) {
    guint64 id = 0;
    GstClockTime first, last;
    gboolean lost = FALSE;
    if (gst_analytics_tracking_mtd_get_info (&mtd, &id, &first, &last, &lost) && lost)
      g_print ("frame %u analytics lost id %" G_GUINT64_FORMAT " last-seen %" GST_TIME_FORMAT
          "\n", frame, id, GST_TIME_ARGS (last));
  }
}
#endif

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  (void) pad;
  guint *frame = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCvFlowMeta *flow = gst_buffer_get_cv_flow_meta (buf);
  double mu = 0, mv = 0;
  if (flow) {
    /* the whole frame, through the packed copy every binding gets */
    gsize n;
    gfloat *vec = gst_cv_flow_meta_get_vectors (flow, &n);
    if (vec) {
      for (gsize i = 0; i < n; i += 2) {
        mu += vec[i];
        mv += vec[i + 1];
      }
      if (n) {
        mu /= n / 2;
        mv /= n / 2;
      }
      g_free (vec);
    }
    g_print ("frame %u flow grid %ux%u cell %ux%u %s mean %+.3f %+.3f\n", *frame,
        flow->grid_width, flow->grid_height, flow->cell_width, flow->cell_height,
        flow->valid ? "valid" : "first", mu, mv);
  } else {
    g_print ("frame %u no flow meta\n", *frame);
  }

  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    GstStructure *s = gst_video_region_of_interest_meta_get_param (roi, "moctracker");
    double cx = 0, cy = 0, vx = 0, vy = 0, fu = 0, fv = 0;
    gboolean vvalid = FALSE;
    if (s) {
      gst_structure_get (s, "centroid-x", G_TYPE_DOUBLE, &cx, "centroid-y", G_TYPE_DOUBLE, &cy,
          "velocity-x", G_TYPE_DOUBLE, &vx, "velocity-y", G_TYPE_DOUBLE, &vy,
          "velocity-valid", G_TYPE_BOOLEAN, &vvalid, NULL);
    }
    if (flow && flow->valid)
      mean_flow_in (flow, roi->x, roi->y, roi->w, roi->h, &fu, &fv);
    g_print ("frame %u track %s id %d box %u,%u %ux%u centroid %.2f %.2f velocity %s "
        "%+.3f %+.3f flow-in-box %+.3f %+.3f\n", *frame, g_quark_to_string (roi->roi_type),
        roi->id, roi->x, roi->y, roi->w, roi->h, cx, cy, vvalid ? "valid" : "none", vx, vy,
        fu, fv);
  }
#ifdef HAVE_ANALYTICS
  print_analytics (buf, *frame);
#endif
  (*frame)++;
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  int frames = argc > 1 ? atoi (argv[1]) : 10;
  const char *source = argc > 2 ? argv[2]
      : "videotestsrc pattern=ball ! video/x-raw,width=160,height=120";
  if (frames < 1 || frames > 100000) {
    g_printerr ("usage: flow_tracks [FRAMES (1..100000) [SOURCE]]\n");
    return 2;
  }
  /* identity ends the stream in place of buffer FRAMES + 1 */
  gchar *launch = g_strdup_printf ("%s ! identity eos-after=%d ! videoconvert ! "
      "video/x-raw,format=RGBA ! cudaflowlk name=flow ! "
      "moctracker name=track objects=\"ball:#ffffff:60\" post-messages=true ! fakesink",
      source, frames + 1);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  g_free (launch);
  if (!pipe) {
    g_printerr ("flow_tracks: %s (GST_PLUGIN_PATH must name the plugin's folder)\n",
        err->message);
    g_error_free (err);
    return 1;
  }
#ifdef HAVE_ANALYTICS
#ifdef HAVE_FLOW_MTD
  g_print ("flow_tracks: analytics metas: tracks and flow\n");
#else
  g_print ("flow_tracks: analytics metas: tracks (no flow mtd below GStreamer 1.26)\n");
#endif
#else
  g_print ("flow_tracks: analytics metas not read (built without gstreamer-analytics-1.0)\n");
#endif
  guint frame = 0;
  GstElement *track = gst_bin_get_by_name (GST_BIN (pipe), "track");
  GstPad *pad = gst_element_get_static_pad (track, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &frame, NULL);
  gst_object_unref (pad);

  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  int status = 1;
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!msg) {
      g_printerr ("flow_tracks: no end of stream after 60 s\n");
      break;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      status = 0;
      gst_message_unref (msg);
      break;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("flow_tracks: %s (%s)\n", err->message, dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (msg);
      break;
    }
    const GstStructure *s = gst_message_get_structure (msg);
    if (GST_MESSAGE_SRC (msg) == GST_OBJECT (track) && gst_structure_has_name (s, "moctracker")) {
      guint64 fr = 0, ts = 0;
      gst_structure_get (s, "frame", G_TYPE_UINT64, &fr, "timestamp", G_TYPE_UINT64, &ts, NULL);
      const GValue *objects = gst_structure_get_value (s, "objects");
      guint n = objects ? gst_value_list_get_size (objects) : 0;
      for (guint i = 0; i < n; i++) {
        const GstStructure *o = gst_value_get_structure (gst_value_list_get_value (objects, i));
        gboolean present = FALSE;
        gint x = 0, y = 0, w = 0, h = 0;
        gint64 mass = 0;
        gst_structure_get (o, "present", G_TYPE_BOOLEAN, &present, "x", G_TYPE_INT, &x,
            "y", G_TYPE_INT, &y, "width", G_TYPE_INT, &w, "height", G_TYPE_INT, &h,
            "mass", G_TYPE_INT64, &mass, NULL);
        g_print ("message frame %" G_GUINT64_FORMAT " time %" GST_TIME_FORMAT " object %s %s "
            "box %d,%d %dx%d mass %" G_GINT64_FORMAT "\n", fr, GST_TIME_ARGS (ts),
            gst_structure_get_string (o, "name"), present ? "present" : "absent", x, y, w, h,
            mass);
      }
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (track);
  gst_object_unref (pipe);
  g_print ("flow_tracks: %u frames\n", frame);
  return status;
}
