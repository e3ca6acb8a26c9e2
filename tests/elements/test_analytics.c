/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The analytics mtds (GStreamer 1.24+; docs/analytics.md) through GstHarness:
 * moctracker's OD + tracking mtds per object (ids, first / last seen, lost, a track
 * that vanishes and returns, a stream reset, more objects than a relation meta's
 * initial size, a relation meta from upstream appended to), objectdetectionoverlay
 * drawing moctracker's boxes (pixels), quadcut's segmentation mtd against its mask
 * output byte for byte, and the flow mtd against GstCvFlowMeta. Without the
 * analytics library the program skips with a message. */
#include "gstcvconfig.h"
#include <glib.h>
#include <stdio.h>

#if !CV_HAVE_ANALYTICS
int
main (void)
{
  g_print ("SKIP: built without gstreamer-analytics-1.0 (GStreamer 1.24+): no analytics "
      "mtds to test\n");
  /* the line of cv_test_skip_finish (tests/common/cv_test_skip.h), for a program whose
   * cases are not even built */
  g_print ("cv-test element-analytics: all cases skipped (built without "
      "gstreamer-analytics-1.0)\n");
  return 77;
}
#else

#include "element_common.h"
#include "gstcvflowmeta.h"
#include <gst/analytics/analytics.h>
#if GST_CHECK_VERSION(1, 26, 0)
#include "gstcvflowmtd.h"
#endif
#ifdef CV_HAVE_QUADCUT
#include "cv_synth.h"
#include "cv_imageio.h"
#include <glib/gstdio.h>
#endif
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- frames */

/* Object i: a 6x6 square of its own colour (channels from {20, 80, 180, 240}, far
 * from the grey background and from each other for tolerance 20). */
typedef struct { gchar name[16]; guint8 r, g, b; } Obj;

static Obj
obj (int i)
{
  static const guint8 lv[] = { 20, 80, 180, 240 };
  Obj o;
  g_snprintf (o.name, sizeof o.name, "o%d", i);
  o.r = lv[i % 4];
  o.g = lv[(i / 4) % 4];
  o.b = lv[(i / 16) % 4];
  return o;
}

static gchar *
objects_prop (int n)
{
  GString *s = g_string_new (NULL);
  for (int i = 0; i < n; i++) {
    Obj o = obj (i);
    g_string_append_printf (s, "%s%s:#%02x%02x%02x:20", i ? ";" : "", o.name, o.r, o.g, o.b);
  }
  return g_string_free (s, FALSE);
}

#define SQ 6
#define W 128
#define H 96

/* Where object i is in frame t (top-left), or FALSE when absent. Objects sit on
 * a 16 px grid; object 0 moves 1 px right a frame; `gone_from`..`gone_to` (inclusive)
 * is when object 1 is absent. */
static int gone_from = -1, gone_to = -1;

static gboolean
where (int i, int t, int *x, int *y)
{
  if (i == 1 && t >= gone_from && t <= gone_to)
    return FALSE;
  *x = 4 + 16 * (i % 8) + (i == 0 ? t : 0);
  *y = 4 + 16 * (i / 8);
  return TRUE;
}

static GstClockTime
pts_of (int t)
{
  return t * GST_SECOND / 30;
}

static GstBuffer *
make_frame (int n, int t)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, W, H);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_RGBA, W, H,
      1, info.offset, info.stride);
  GstMapInfo m;
  fail_unless (gst_buffer_map (buf, &m, GST_MAP_WRITE));
  for (int p = 0; p < W * H; p++) {
    m.data[4 * p] = m.data[4 * p + 1] = m.data[4 * p + 2] = 128;
    m.data[4 * p + 3] = 255;
  }
  for (int i = 0; i < n; i++) {
    int x0, y0;
    if (!where (i, t, &x0, &y0))
      continue;
    Obj o = obj (i);
    for (int y = y0; y < y0 + SQ; y++)
      for (int x = x0; x < x0 + SQ; x++) {
        guint8 *q = m.data + 4 * (y * W + x);
        q[0] = o.r;
        q[1] = o.g;
        q[2] = o.b;
      }
  }
  gst_buffer_unmap (buf, &m);
  GST_BUFFER_PTS (buf) = pts_of (t);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* ---------------------------------------------------------------- reading mtds */

static GstAnalyticsRelationMeta *
rmeta_of (GstBuffer * buf)
{
  ck_assert_int_eq (gst_buffer_get_n_meta (buf, GST_ANALYTICS_RELATION_META_API_TYPE), 1);
  GstAnalyticsRelationMeta *r = gst_buffer_get_analytics_relation_meta (buf);
  fail_unless (r != NULL);
  return r;
}

static guint
count_mtds (GstAnalyticsRelationMeta * rmeta, GstAnalyticsMtdType type)
{
  gpointer state = NULL;
  GstAnalyticsMtd mtd;
  guint n = 0;
  while (gst_analytics_relation_meta_iterate (rmeta, &state, type, &mtd))
    n++;
  return n;
}

static GstVideoRegionOfInterestMeta *
roi_with_id (GstBuffer * buf, gint id)
{
  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (((GstVideoRegionOfInterestMeta *) m)->id == id)
      return (GstVideoRegionOfInterestMeta *) m;
  return NULL;
}

/* The tracking mtd of tracking id `id` (present or lost), FALSE if none. */
static gboolean
tracking_of (GstAnalyticsRelationMeta * rmeta, guint64 id, GstAnalyticsTrackingMtd * out)
{
  gpointer state = NULL;
  GstAnalyticsMtd mtd;
  gboolean found = FALSE;
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_tracking_mtd_get_mtd_type (), &mtd)) {
    guint64 tid;
    fail_unless (gst_analytics_tracking_mtd_get_info (&mtd, &tid, NULL, NULL, NULL));
    if (tid == id) {
      fail_if (found, "two tracking mtds for id %" G_GUINT64_FORMAT, id);
      *out = mtd;
      found = TRUE;
    }
  }
  return found;
}

/* Every OD mtd of our objects: its box, type and confidence match the ROI meta of
 * the same object, and exactly one tracking mtd is related to it, whose tracking
 * id is the ROI id, not lost, last seen now. Returns the number of OD mtds of
 * type "oN". */
static guint
check_present (GstBuffer * buf, GstAnalyticsRelationMeta * rmeta, int t)
{
  gpointer state = NULL;
  GstAnalyticsMtd od;
  guint n = 0;
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &od)) {
    const gchar *type = g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od));
    if (!g_str_has_prefix (type, "o"))
      continue;                 /* upstream's */
    gint x, y, w, h;
    gfloat conf;
    fail_unless (gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h, &conf));
    fail_unless (conf == 1.0f, "%s: confidence %f", type, conf);
    gpointer rstate = NULL;
    GstAnalyticsMtd trk;
    fail_unless (gst_analytics_relation_meta_get_direct_related (rmeta, od.id,
            GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type (),
            &rstate, &trk), "OD mtd %s has no related tracking mtd", type);
    guint64 tid;
    GstClockTime first, last;
    gboolean lost;
    fail_unless (gst_analytics_tracking_mtd_get_info (&trk, &tid, &first, &last, &lost));
    GstVideoRegionOfInterestMeta *roi = roi_with_id (buf, (gint) tid);
    fail_unless (roi != NULL, "no ROI meta with the tracking id %" G_GUINT64_FORMAT, tid);
    ck_assert_str_eq (g_quark_to_string (roi->roi_type), type);
    ck_assert_int_eq (roi->x, x);
    ck_assert_int_eq (roi->y, y);
    ck_assert_int_eq (roi->w, w);
    ck_assert_int_eq (roi->h, h);
    int ex, ey;
    fail_unless (where ((int) tid, t, &ex, &ey));
    ck_assert_int_eq (x, ex);
    ck_assert_int_eq (y, ey);
    ck_assert_int_eq (w, SQ);
    ck_assert_int_eq (h, SQ);
    fail_if (lost, "%s lost while present", type);
    ck_assert_uint_eq (last, pts_of (t));
    fail_if (gst_analytics_relation_meta_get_direct_related (rmeta, od.id,
            GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type (),
            &rstate, &trk), "two tracking mtds related to %s", type);
    n++;
  }
  return n;
}

static void
tracking_info (GstAnalyticsTrackingMtd * trk, GstClockTime * first, GstClockTime * last,
    gboolean * lost)
{
  fail_unless (gst_analytics_tracking_mtd_get_info (trk, NULL, first, last, lost));
}

/* ---------------------------------------------------------------- moctracker */

/* moctracker on the CPU tracking objects 0..n-1 (objects_prop), RGBA W x H. */
static GstHarness *
tracker_harness (int n)
{
  gchar *objs = objects_prop (n);
  gchar *launch = g_strdup_printf ("moctracker backend=cpu objects=%s", objs);
  GstHarness *h = cv_harness_new (launch, "RGBA", W, H);
  g_free (launch);
  g_free (objs);
  return h;
}

/* Three objects over 7 frames; object 1 leaves on frame 2, is away on 3, returns on
 * frame 4. Ids stay, first seen stays while present, lost is set on the frame it
 * leaves (with its last seen), nothing while away, a new track when it returns. */
GST_START_TEST (test_tracks_lost_and_return)
{
  const int n = 3;
  gone_from = 2;
  gone_to = 3;
  GstHarness *h = tracker_harness (n);
  for (int t = 0; t < 7; t++) {
    GstBuffer *out = gst_harness_push_and_pull (h, make_frame (n, t));
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    gboolean one_present = !(t >= 2 && t <= 3);
    ck_assert_uint_eq (check_present (out, rmeta, t), one_present ? 3 : 2);
    ck_assert_uint_eq (count_mtds (rmeta, gst_analytics_od_mtd_get_mtd_type ()),
        one_present ? 3 : 2);
    GstAnalyticsTrackingMtd trk;
    GstClockTime first, last;
    gboolean lost;
    /* object 0: one track since frame 0 */
    fail_unless (tracking_of (rmeta, 0, &trk));
    tracking_info (&trk, &first, &last, &lost);
    ck_assert_uint_eq (first, pts_of (0));
    /* object 1 */
    gboolean has1 = tracking_of (rmeta, 1, &trk);
    if (t < 2) {
      fail_unless (has1);
      tracking_info (&trk, &first, &last, &lost);
      ck_assert_uint_eq (first, pts_of (0));
    } else if (t == 2) {
      fail_unless (has1, "frame 2: no lost tracking mtd for the object that left");
      tracking_info (&trk, &first, &last, &lost);
      fail_unless (lost, "frame 2: the object that left is not lost");
      ck_assert_uint_eq (first, pts_of (0));
      ck_assert_uint_eq (last, pts_of (1));
      /* no box goes with a lost track */
      gpointer st = NULL;
      GstAnalyticsMtd od;
      fail_if (gst_analytics_relation_meta_get_direct_related (rmeta, trk.id,
              GST_ANALYTICS_REL_TYPE_ANY, gst_analytics_od_mtd_get_mtd_type (), &st, &od));
      ck_assert_uint_eq (count_mtds (rmeta, gst_analytics_tracking_mtd_get_mtd_type ()), 3);
    } else if (t == 3) {
      fail_if (has1, "frame 3: a tracking mtd for an object still away");
      ck_assert_uint_eq (count_mtds (rmeta, gst_analytics_tracking_mtd_get_mtd_type ()), 2);
    } else {
      fail_unless (has1);
      tracking_info (&trk, &first, &last, &lost);
      fail_if (lost);
      ck_assert_uint_eq (first, pts_of (4));   /* a new track from its return */
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  gone_from = gone_to = -1;
}

GST_END_TEST;

/* A DISCONT buffer resets the stream: tracks restart (first seen = that frame), and
 * the reset itself loses nothing. */
GST_START_TEST (test_tracks_reset)
{
  const int n = 2;
  GstHarness *h = tracker_harness (n);
  for (int t = 0; t < 5; t++) {
    GstBuffer *in = make_frame (n, t);
    if (t == 3)
      cv_harness_interrupt (h, CV_RESET_DISCONT, in);
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    ck_assert_uint_eq (check_present (out, rmeta, t), 2);
    for (int i = 0; i < n; i++) {
      GstAnalyticsTrackingMtd trk;
      GstClockTime first, last;
      gboolean lost;
      fail_unless (tracking_of (rmeta, i, &trk));
      tracking_info (&trk, &first, &last, &lost);
      fail_if (lost);
      ck_assert_uint_eq (first, pts_of (t < 3 ? 0 : 3));
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 40 objects: 80 mtds and 40 relations, more than a relation meta's default size
 * (and than the one given upstream in the next test). */
GST_START_TEST (test_tracks_many_objects)
{
  const int n = 40;
  GstHarness *h = tracker_harness (n);
  for (int t = 0; t < 2; t++) {
    GstBuffer *out = gst_harness_push_and_pull (h, make_frame (n, t));
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    ck_assert_uint_eq (gst_analytics_relation_get_length (rmeta), 2 * n);
    ck_assert_uint_eq (check_present (out, rmeta, t), n);
    for (int i = 0; i < n; i++) {
      GstAnalyticsTrackingMtd trk;
      fail_unless (tracking_of (rmeta, i, &trk), "object %d: no tracking mtd", i);
    }
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A relation meta from upstream (2 detections related to each other, room for 2
 * mtds): moctracker appends to it; upstream's mtds, ids and relation stay. */
GST_START_TEST (test_tracks_append_to_upstream)
{
  const int n = 40;
  GstHarness *h = tracker_harness (n);
  GQuark car = g_quark_from_string ("car"), wheel = g_quark_from_string ("wheel");
  for (int t = 0; t < 2; t++) {
    GstBuffer *in = make_frame (n, t);
    GstAnalyticsRelationMetaInitParams small = { 2, 16 };
    GstAnalyticsRelationMeta *up = gst_buffer_add_analytics_relation_meta_full (in, &small);
    GstAnalyticsODMtd a, b;
    fail_unless (gst_analytics_relation_meta_add_od_mtd (up, car, 1, 2, 30, 20, 0.5f, &a));
    fail_unless (gst_analytics_relation_meta_add_od_mtd (up, wheel, 3, 15, 5, 5, 0.25f, &b));
    fail_unless (gst_analytics_relation_meta_set_relation (up, GST_ANALYTICS_REL_TYPE_CONTAIN,
            a.id, b.id));
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    ck_assert_uint_eq (gst_analytics_relation_get_length (rmeta), 2 + 2 * n);
    GstAnalyticsODMtd od;
    gint x, y, w, hh;
    gfloat conf;
    fail_unless (gst_analytics_relation_meta_get_od_mtd (rmeta, a.id, &od));
    ck_assert_uint_eq (gst_analytics_od_mtd_get_obj_type (&od), car);
    fail_unless (gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &hh, &conf));
    fail_unless (x == 1 && y == 2 && w == 30 && hh == 20 && conf == 0.5f);
    fail_unless (gst_analytics_relation_meta_get_od_mtd (rmeta, b.id, &od));
    ck_assert_uint_eq (gst_analytics_od_mtd_get_obj_type (&od), wheel);
    ck_assert_int_eq (gst_analytics_relation_meta_get_relation (rmeta, a.id, b.id),
        GST_ANALYTICS_REL_TYPE_CONTAIN);
    ck_assert_uint_eq (check_present (out, rmeta, t), n);
    ck_assert_uint_eq (count_mtds (rmeta, gst_analytics_od_mtd_get_mtd_type ()), 2 + n);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* objectdetectionoverlay (gst-plugins-bad 1.26), no option set, draws moctracker's
 * boxes: pixels on the outline of each object's box change, pixels away from the
 * boxes and their labels do not; without objects nothing is drawn. */
GST_START_TEST (test_objectdetectionoverlay_draws_boxes)
{
  GstElementFactory *f = gst_element_factory_find ("objectdetectionoverlay");
  if (!f)
    CV_SKIP ("objectdetectionoverlay_draws_boxes: no objectdetectionoverlay "
        "(gst-plugins-bad 1.26)", CV_SKIP_NO_ELEMENT);
  gst_object_unref (f);
  const int n = 2;
  gchar *objs = objects_prop (n);
  for (int with_objects = 0; with_objects < 2; with_objects++) {
    gchar *launch = with_objects ? g_strdup_printf ("moctracker backend=cpu objects=%s ! "
        "objectdetectionoverlay", objs) : g_strdup ("moctracker backend=cpu ! "
        "objectdetectionoverlay");
    GstHarness *h = cv_harness_new (launch, "RGBA", W, H);
    GstBuffer *in = make_frame (n, 0);
    GstBuffer *ref = gst_buffer_copy_deep (in);
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    GstMapInfo mo, mr;
    fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
    fail_unless (gst_buffer_map (ref, &mr, GST_MAP_READ));
    long changed_far = 0, changed_total = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int p = 4 * (y * W + x);
        gboolean ch = memcmp (mo.data + p, mr.data + p, 3) != 0;
        changed_total += ch;
        /* away from both boxes (and their labels, drawn above or inside them) */
        if (y >= 4 + SQ + 20)
          changed_far += ch;
      }
    if (!with_objects) {
      ck_assert_int_eq (changed_total, 0);
    } else {
      ck_assert_int_eq (changed_far, 0);
      for (int i = 0; i < n; i++) {
        int x0, y0;
        fail_unless (where (i, 0, &x0, &y0));
        /* each side of the box: most of its pixels changed (the outline) */
        int sides[4] = { 0, 0, 0, 0 };
        for (int k = 0; k < SQ; k++) {
          int pts[4][2] = { { x0 + k, y0 }, { x0 + k, y0 + SQ - 1 }, { x0, y0 + k },
          { x0 + SQ - 1, y0 + k } };
          for (int s = 0; s < 4; s++) {
            int p = 4 * (pts[s][1] * W + pts[s][0]);
            sides[s] += memcmp (mo.data + p, mr.data + p, 3) != 0;
          }
        }
        for (int s = 0; s < 4; s++)
          fail_unless (sides[s] >= SQ / 2, "object %d, side %d of its box: %d of %d "
              "pixels drawn", i, s, sides[s], SQ);
      }
    }
    gst_buffer_unmap (out, &mo);
    gst_buffer_unmap (ref, &mr);
    gst_buffer_unref (out);
    gst_buffer_unref (ref);
    gst_harness_teardown (h);
    g_free (launch);
  }
  g_free (objs);
}

GST_END_TEST;

/* ---------------------------------------------------------------- quadcut */

#if defined(CV_HAVE_QUADCUT) && GST_CHECK_VERSION(1, 26, 0)
static GstBuffer *
rgbx_buffer (const cc_image * img)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, img->width, img->height);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  GstMapInfo m;
  fail_unless (gst_buffer_map (buf, &m, GST_MAP_WRITE));
  for (int y = 0; y < img->height; y++)
    memcpy (m.data + y * info.stride[0], (const guint8 *) img->planes[0] + y * img->pitch[0],
        4 * img->width);
  gst_buffer_unmap (buf, &m);
  return buf;
}

/* The moving-foreground clip's plate as a PNG in a new temporary folder (*dir);
 * plate_file_remove deletes both and frees the names. */
static gchar *
plate_file (int w, int h, gchar ** dir)
{
  cc_image plate;
  fail_unless (cv_synth_fg_plate (w, h, &plate) == CC_SUCCESS);
  *dir = g_dir_make_tmp ("analytics-XXXXXX", NULL);
  gchar *path = g_build_filename (*dir, "plate.png", NULL);
  fail_unless (cv_png_save (path, &plate) == CC_SUCCESS);
  cv_image_free (&plate);
  return path;
}

static void
plate_file_remove (gchar * path, gchar * dir)
{
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* The segmentation mtd's mask equals the mask output (feather 0: the cut's mask)
 * byte for byte, over a clip with the foreground moving; regions 0 and 255. */
GST_START_TEST (test_quadcut_segmentation_mtd)
{
  const int w = 96, h = 64;
  gchar *dir = NULL, *path = plate_file (w, h, &dir);
  gchar *launch = g_strdup_printf ("quadcut backend=cpu shadow-depth=0.6 output=mask "
      "feather=0 plate-location=%s", path);
  GstHarness *hs = cv_harness_new (launch, "RGBA", w, h);
  guint8 *truth = g_malloc (w * h);
  GstBuffer *masks[4];
  for (int t = 0; t < 4; t++) {
    cc_image img;
    fail_unless (cv_synth_fg_frame (t, w, h, 0, 6, &img, truth) == CC_SUCCESS);
    GstBuffer *in = rgbx_buffer (&img);
    cv_image_free (&img);
    GST_BUFFER_PTS (in) = pts_of (t);
    GstBuffer *out = gst_harness_push_and_pull (hs, in);
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    ck_assert_uint_eq (count_mtds (rmeta, gst_analytics_segmentation_mtd_get_mtd_type ()), 1);
    gpointer state = NULL;
    GstAnalyticsMtd seg;
    fail_unless (gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_analytics_segmentation_mtd_get_mtd_type (), &seg));
    ck_assert_uint_eq (gst_analytics_segmentation_mtd_get_region_count (&seg), 2);
    ck_assert_uint_eq (gst_analytics_segmentation_mtd_get_region_id (&seg, 0), 0);
    ck_assert_uint_eq (gst_analytics_segmentation_mtd_get_region_id (&seg, 1), 255);
    gint lx, ly;
    guint lw, lh;
    GstBuffer *mask = gst_analytics_segmentation_mtd_get_mask (&seg, &lx, &ly, &lw, &lh);
    fail_unless (mask != NULL);
    /* the masks go back to the element's pool (2 buffers, first in first out) with
     * their frames: frame t reuses frame t - 2's */
    masks[t] = mask;
    if (t >= 2)
      ck_assert_ptr_eq (mask, masks[t - 2]);
    fail_unless (lx == 0 && ly == 0 && lw == (guint) w && lh == (guint) h);
    GstVideoMeta *vm = gst_buffer_get_video_meta (mask);
    fail_unless (vm != NULL && vm->format == GST_VIDEO_FORMAT_GRAY8 && vm->width == (guint) w
        && vm->height == (guint) h);
    GstMapInfo mm, mo;
    fail_unless (gst_buffer_map (mask, &mm, GST_MAP_READ));
    fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
    long fg = 0, diff = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        guint8 mv = mm.data[vm->offset[0] + y * vm->stride[0] + x];
        guint8 ov = mo.data[4 * (y * w + x)];
        diff += mv != ov;
        fg += mv == 255;
        fail_unless (mv == 0 || mv == 255);
      }
    gst_buffer_unmap (mask, &mm);
    gst_buffer_unmap (out, &mo);
    ck_assert_int_eq (diff, 0);
    fail_unless (fg > 100 && fg < w * h / 2, "frame %d: %ld foreground pixels", t, fg);
    gst_buffer_unref (mask);
    gst_buffer_unref (out);
  }
  g_free (truth);
  gst_harness_teardown (hs);
  plate_file_remove (path, dir);
  g_free (launch);
}

GST_END_TEST;

/* The masks of quadcut's segmentation mtd over the moving-foreground clip (feather 0),
 * packed, one per frame, from `launch_prefix` + quadcut on `backend` (RGBA input). */
static guint8 *
segmentation_masks (const gchar * launch_prefix, const gchar * backend,
    const gchar * plate_path, int w, int h, int frames)
{
  gchar *launch = g_strdup_printf ("%squadcut backend=%s shadow-depth=0.6 output=mask "
      "feather=0 plate-location=%s", launch_prefix, backend, plate_path);
  GstHarness *hs = cv_harness_new (launch, "RGBA", w, h);
  guint8 *masks = g_malloc ((gsize) frames * w * h), *truth = g_malloc ((gsize) w * h);
  for (int t = 0; t < frames; t++) {
    cc_image img;
    fail_unless (cv_synth_fg_frame (t, w, h, 0, 6, &img, truth) == CC_SUCCESS);
    GstBuffer *in = rgbx_buffer (&img);
    cv_image_free (&img);
    GST_BUFFER_PTS (in) = pts_of (t);
    GstBuffer *out = gst_harness_push_and_pull (hs, in);
    fail_unless (out != NULL, "%s: no frame %d", launch, t);
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    gpointer state = NULL;
    GstAnalyticsMtd seg;
    fail_unless (gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_analytics_segmentation_mtd_get_mtd_type (), &seg), "%s: no mtd", launch);
    gint lx, ly;
    guint lw, lh;
    GstBuffer *mask = gst_analytics_segmentation_mtd_get_mask (&seg, &lx, &ly, &lw, &lh);
    GstVideoMeta *vm = gst_buffer_get_video_meta (mask);
    fail_unless (vm != NULL);
    GstMapInfo mm;
    fail_unless (gst_buffer_map (mask, &mm, GST_MAP_READ));
    for (int y = 0; y < h; y++)
      memcpy (masks + ((gsize) t * h + y) * w, mm.data + vm->offset[0] + y * vm->stride[0], w);
    gst_buffer_unmap (mask, &mm);
    gst_buffer_unref (mask);
    gst_buffer_unref (out);
  }
  g_free (truth);
  gst_harness_teardown (hs);
  g_free (launch);
  return masks;
}

/* From CUDA-memory frames (cudaupload, CUDA backend) the segmentation mtd's masks
 * equal the CPU backend's, byte for byte, on every frame. */
GST_START_TEST (test_quadcut_segmentation_mtd_cuda_memory)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("quadcut segmentation mtd from CUDA memory");
  const int w = 96, h = 64, frames = 4;
  gchar *dir = NULL, *path = plate_file (w, h, &dir);
  guint8 *cpu = segmentation_masks ("", "cpu", path, w, h, frames);
  guint8 *cuda = segmentation_masks ("cudaupload ! video/x-raw(memory:CUDAMemory) ! ", "cuda",
      path, w, h, frames);
  long differ = 0, fg = 0;
  for (gsize i = 0; i < (gsize) frames * w * h; i++) {
    differ += cpu[i] != cuda[i];
    fg += cpu[i] == 255;
  }
  g_print ("quadcut segmentation mtd, CUDA memory vs CPU: %ld of %d mask bytes differ "
      "(%ld foreground)\n", differ, frames * w * h, fg);
  ck_assert_int_eq (differ, 0);
  fail_unless (fg > 100);
  g_free (cpu);
  g_free (cuda);
  plate_file_remove (path, dir);
}

GST_END_TEST;
#endif

/* ---------------------------------------------------------------- flow */

#if GST_CHECK_VERSION(1, 26, 0)
/* The flow mtd of each flow element equals its GstCvFlowMeta: grid, cells, frame
 * size, confidence kind, validity and every vector and confidence value; a copy of
 * the buffer keeps a readable mtd after the original is gone. */
static void
check_flow_mtd (const gchar * launch)
{
  const int w = 128, h = 96;
  guint8 *a, *b;
  cv_translation_pair (w, h, 2.0, 1.0, &a, &b);
  GstHarness *hs = cv_harness_new (launch, "GRAY8", w, h);
  const gfloat *first_field = NULL;
  for (int t = 0; t < 3; t++) {
    GstBuffer *out = gst_harness_push_and_pull (hs, cv_buffer_from_gray ("GRAY8",
            t == 1 ? b : a, w, h));
    GstCvFlowMeta *fm = gst_buffer_get_cv_flow_meta (out);
    fail_unless (fm != NULL);
    GstAnalyticsRelationMeta *rmeta = rmeta_of (out);
    ck_assert_uint_eq (count_mtds (rmeta, gst_cv_flow_mtd_get_mtd_type ()), 1);
    gpointer state = NULL;
    GstCvFlowMtd mtd;
    fail_unless (gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_cv_flow_mtd_get_mtd_type (), &mtd));
    GstCvFlowMtd again;
    fail_unless (gst_analytics_relation_meta_get_cv_flow_mtd (rmeta, mtd.id, &again));
    ck_assert_str_eq (gst_analytics_mtd_type_get_name (gst_cv_flow_mtd_get_mtd_type ()),
        "cv-flow");
    guint gw, gh, cw, ch, fw, fh;
    fail_unless (gst_cv_flow_mtd_get_grid (&mtd, &gw, &gh, &cw, &ch));
    fail_unless (gw == fm->grid_width && gh == fm->grid_height && cw == fm->cell_width
        && ch == fm->cell_height);
    fail_unless (gst_cv_flow_mtd_get_frame_size (&mtd, &fw, &fh));
    fail_unless (fw == (guint) w && fh == (guint) h);
    GstCvFlowConfidence kind;
    gboolean valid;
    fail_unless (gst_cv_flow_mtd_get_info (&mtd, &kind, &valid));
    ck_assert_int_eq (kind, fm->confidence);
    ck_assert_int_eq (valid, fm->valid);
    ck_assert_int_eq (valid, t >= 1);
    const gfloat *mv, *mc, *tv, *tc;
    gsize mvs, mcs, tvs, tcs;
    fail_unless (gst_cv_flow_meta_map_host (fm, &mv, &mvs, &mc, &mcs));
    fail_unless (gst_cv_flow_mtd_map_host (&mtd, &tv, &tvs, &tc, &tcs));
    long nonzero = 0;
    for (guint y = 0; y < gh; y++) {
      fail_unless (memcmp ((const guint8 *) tv + y * tvs, (const guint8 *) mv + y * mvs,
              gw * 8) == 0, "row %u: vectors differ", y);
      fail_unless (memcmp ((const guint8 *) tc + y * tcs, (const guint8 *) mc + y * mcs,
              gw * 4) == 0, "row %u: confidence differs", y);
      for (guint x = 0; x < 2 * gw; x++)
        nonzero += ((const gfloat *) ((const guint8 *) tv + y * tvs))[x] != 0.0f;
    }
    if (t >= 1)
      fail_unless (nonzero > 0, "an all-zero field");
    /* the previous frame's field came back to the element's pool when its buffer
     * (meta and mtd, each with a reference) was dropped: the same one again */
    if (t == 0)
      first_field = tv;
    else
      ck_assert_ptr_eq (tv, first_field);
    gconstpointer dv;
    fail_if (gst_cv_flow_mtd_get_device (&mtd, &dv, NULL, NULL, NULL));   /* CPU */
    /* a copy holds its own reference on the field */
    GstBuffer *copy = gst_buffer_copy (out);
    gst_buffer_unref (out);
    rmeta = rmeta_of (copy);
    state = NULL;
    fail_unless (gst_analytics_relation_meta_iterate (rmeta, &state,
            gst_cv_flow_mtd_get_mtd_type (), &mtd));
    const gfloat *cv;
    gsize cvs;
    fail_unless (gst_cv_flow_mtd_map_host (&mtd, &cv, &cvs, NULL, NULL));
    ck_assert_ptr_eq (cv, tv);   /* the same pooled field, not a copy */
    fm = gst_buffer_get_cv_flow_meta (copy);
    fail_unless (fm != NULL);
    gst_buffer_unref (copy);
  }
  gst_harness_teardown (hs);
  g_free (a);
  g_free (b);
}

/* The flow mtd of `element` on the CUDA backend from CUDA-memory frames (cudaupload):
 * the field stays on the device (the mtd gives its device pointer) and its host copy
 * equals the CPU backend's mtd within `max_mean_diff` px (mean |difference| of the
 * vector components), on the second and third frames of a translation pair. */
static void
check_flow_mtd_cuda_memory (const gchar * element, double max_mean_diff)
{
  const int w = 128, h = 96;
  guint8 *a, *b;
  cv_translation_pair (w, h, 2.0, 1.0, &a, &b);
  gchar *launch[2] = {
    g_strdup_printf ("%s backend=cpu", element),
    g_strdup_printf ("cudaupload ! video/x-raw(memory:CUDAMemory) ! %s backend=cuda", element),
  };
  GstHarness *hs[2];
  for (int k = 0; k < 2; k++)
    hs[k] = cv_harness_new (launch[k], "NV12", w, h);
  for (int t = 0; t < 3; t++) {
    GstBuffer *out[2];
    GstCvFlowMtd mtd[2];
    const gfloat *v[2];
    gsize vs[2];
    guint gw = 0, gh = 0;
    for (int k = 0; k < 2; k++) {
      out[k] = gst_harness_push_and_pull (hs[k], cv_buffer_from_gray ("NV12",
              t == 1 ? b : a, w, h));
      fail_unless (out[k] != NULL);
      GstAnalyticsRelationMeta *rmeta = rmeta_of (out[k]);
      gpointer state = NULL;
      fail_unless (gst_analytics_relation_meta_iterate (rmeta, &state,
              gst_cv_flow_mtd_get_mtd_type (), &mtd[k]), "%s: no flow mtd", launch[k]);
      guint kw, kh;
      fail_unless (gst_cv_flow_mtd_get_grid (&mtd[k], &kw, &kh, NULL, NULL));
      if (k == 1)
        fail_unless (kw == gw && kh == gh, "%s: grid %ux%u, CPU %ux%u", element, kw, kh, gw, gh);
      gw = kw;
      gh = kh;
      GstCvFlowConfidence kind;
      gboolean valid;
      fail_unless (gst_cv_flow_mtd_get_info (&mtd[k], &kind, &valid));
      ck_assert_int_eq (valid, t >= 1);
      fail_unless (gst_cv_flow_mtd_map_host (&mtd[k], &v[k], &vs[k], NULL, NULL));
    }
    gconstpointer dv = NULL;
    fail_unless (gst_cv_flow_mtd_get_device (&mtd[1], &dv, NULL, NULL, NULL) && dv != NULL,
        "%s: the CUDA-memory field is not on the device", element);
    double diff = 0;
    for (guint y = 0; y < gh; y++)
      for (guint x = 0; x < 2 * gw; x++)
        diff += fabs (((const gfloat *) ((const guint8 *) v[0] + y * vs[0]))[x]
            - ((const gfloat *) ((const guint8 *) v[1] + y * vs[1]))[x]);
    diff /= 2.0 * gw * gh;
    g_print ("%s flow mtd frame %d, CUDA memory vs CPU: mean |diff| %.5f px\n", element, t,
        diff);
    ck_assert_msg (diff <= max_mean_diff, "%s frame %d: mean |diff| %.5f px > %g", element, t,
        diff, max_mean_diff);
    gst_buffer_unref (out[0]);
    gst_buffer_unref (out[1]);
  }
  for (int k = 0; k < 2; k++) {
    gst_harness_teardown (hs[k]);
    g_free (launch[k]);
  }
  g_free (a);
  g_free (b);
}

/* LK and block matching: the same arithmetic on both (0.01 px, as the elements'
 * own CUDA-memory tests); EpicFlow: the refinement's fp16 sweeps (0.05 px). */
GST_START_TEST (test_flow_mtd_cuda_memory)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("flow mtds from CUDA memory");
  check_flow_mtd_cuda_memory ("cudaflowlk", 0.01);
  check_flow_mtd_cuda_memory ("cudablockmatch", 0.01);
  check_flow_mtd_cuda_memory ("cudaflowepic", 0.05);
}

GST_END_TEST;

GST_START_TEST (test_flow_mtd_lk)
{
  check_flow_mtd ("cudaflowlk backend=cpu");
}

GST_END_TEST;

GST_START_TEST (test_flow_mtd_blockmatch)
{
  check_flow_mtd ("cudablockmatch backend=cpu");
}

GST_END_TEST;

GST_START_TEST (test_flow_mtd_epic)
{
  check_flow_mtd ("cudaflowepic backend=cpu");
}

GST_END_TEST;
#endif

static Suite *
analytics_suite (void)
{
  Suite *s = suite_create ("analytics");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_tracks_lost_and_return);
  tcase_add_test (tc, test_tracks_reset);
  tcase_add_test (tc, test_tracks_many_objects);
  tcase_add_test (tc, test_tracks_append_to_upstream);
  tcase_add_test (tc, test_objectdetectionoverlay_draws_boxes);
#if GST_CHECK_VERSION(1, 26, 0)
#ifdef CV_HAVE_QUADCUT
  tcase_add_test (tc, test_quadcut_segmentation_mtd);
  tcase_add_test (tc, test_quadcut_segmentation_mtd_cuda_memory);
#endif
  tcase_add_test (tc, test_flow_mtd_lk);
  tcase_add_test (tc, test_flow_mtd_blockmatch);
  tcase_add_test (tc, test_flow_mtd_epic);
  tcase_add_test (tc, test_flow_mtd_cuda_memory);
#else
  /* the segmentation mtd cases (with quadcut) and the four flow mtd cases */
#ifdef CV_HAVE_QUADCUT
  cv_test_skip_cases (6, "segmentation and flow mtds (GStreamer 1.26)", CV_SKIP_OLD_GSTREAMER);
#else
  cv_test_skip_cases (4, "flow mtds (GStreamer 1.26)", CV_SKIP_OLD_GSTREAMER);
#endif
#endif
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (analytics);
#endif
