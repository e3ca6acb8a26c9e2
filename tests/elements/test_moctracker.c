/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moctracker through GstHarness: region-of-interest metas and messages against the
 * exact pixel sets of a synthetic clip with known motion, drawn pixels against the
 * core, refused object lists, trajectories cleared by a flush, a caps change, the
 * objects file, and CUDA memory when a GPU is present. */
#include "element_common.h"
#include <cudacore/cc_moct.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

typedef struct { const char *name; guint8 r, g, b; } Obj;
static const Obj objs[] = {
  { "red", 220, 30, 30 }, { "green", 30, 200, 60 }, { "blue", 40, 60, 220 },
};
#define OBJECTS "red:#dc1e1e:60;green:#1ec83c:60;blue:#283cdc:60"
#define N_OBJ 3

/* Disc i of frame t: centre and radius (known motion: 3 px/frame right, 2 down for
 * red; green moves left 2; blue stays; blue is absent on frame 2). */
static void
disc (int i, int t, int w, double *cx, double *cy, double *rad)
{
  static const double x0[] = { 20.5, 90.0, 60.0 }, y0[] = { 20.0, 40.3, 70.0 };
  static const double vx[] = { 3, -2, 0 }, vy[] = { 2, 0, 0 }, r[] = { 9.5, 7.2, 12.0 };
  *cx = x0[i] + vx[i] * t;
  *cy = y0[i] + vy[i] * t;
  *rad = r[i];
  (void) w;
}

static gboolean
in_disc (int i, int t, int w, int x, int y)
{
  double cx, cy, rad;
  if (i == 2 && t == 2)
    return FALSE;
  disc (i, t, w, &cx, &cy, &rad);
  return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= rad * rad;
}

/* An RGBA (or BGRx) frame: grey background, the discs of frame t. */
static GstBuffer *
make_frame (const gchar * format, int w, int h, int t)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w, h);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (&info),
      w, h, GST_VIDEO_INFO_N_PLANES (&info), info.offset, info.stride);
  GstVideoFrame vf;
  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
  gboolean bgr = g_str_has_prefix (format, "BGR");
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      guint8 *p = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + 4 * x;
      guint8 c[3] = { 128, 128, 128 };
      for (int i = 0; i < N_OBJ; i++)
        if (in_disc (i, t, w, x, y)) {
          c[0] = objs[i].r;
          c[1] = objs[i].g;
          c[2] = objs[i].b;
        }
      p[0] = bgr ? c[2] : c[0];
      p[1] = c[1];
      p[2] = bgr ? c[0] : c[2];
      p[3] = 255;
    }
  gst_video_frame_unmap (&vf);
  GST_BUFFER_PTS (buf) = t * GST_SECOND / 30;
  return buf;
}

/* The exact statistics of disc i in frame t, clipped to the frame. */
typedef struct { gint64 mass; double cx, cy; int x0, y0, x1, y1; } Truth;
static Truth
truth (int i, int t, int w, int h)
{
  Truth tr = { 0, 0, 0, w, h, -1, -1 };
  double sx = 0, sy = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (in_disc (i, t, w, x, y)) {
        tr.mass++;
        sx += x;
        sy += y;
        tr.x0 = MIN (tr.x0, x);
        tr.y0 = MIN (tr.y0, y);
        tr.x1 = MAX (tr.x1, x);
        tr.y1 = MAX (tr.y1, y);
      }
  if (tr.mass) {
    tr.cx = sx / tr.mass;
    tr.cy = sy / tr.mass;
  }
  return tr;
}

static GstVideoRegionOfInterestMeta *
roi_of (GstBuffer * buf, const gchar * name)
{
  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
    if (r->roi_type == g_quark_from_string (name))
      return r;
  }
  return NULL;
}

static guint
roi_count (GstBuffer * buf)
{
  return gst_buffer_get_n_meta (buf, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
}

/* prev_t: the frame of the object's previous present sample (velocity = centroid
 * change / frame gap), or -1 when the velocity must not be valid. */
static void
check_roi (GstBuffer * buf, int i, int t, int w, int h, int prev_t)
{
  gboolean want_velocity = prev_t >= 0;
  Truth tr = truth (i, t, w, h);
  GstVideoRegionOfInterestMeta *r = roi_of (buf, objs[i].name);
  if (tr.mass < 16) {
    fail_unless (r == NULL, "%s present on frame %d", objs[i].name, t);
    return;
  }
  fail_unless (r != NULL, "%s missing on frame %d", objs[i].name, t);
  ck_assert_int_eq (r->id, i);
  ck_assert_uint_eq (r->x, tr.x0);
  ck_assert_uint_eq (r->y, tr.y0);
  ck_assert_uint_eq (r->w, tr.x1 - tr.x0 + 1);
  ck_assert_uint_eq (r->h, tr.y1 - tr.y0 + 1);
  GstStructure *s = gst_video_region_of_interest_meta_get_param (r, "moctracker");
  fail_unless (s != NULL);
  gdouble cx, cy, vx, vy;
  gint64 mass;
  gboolean vvalid;
  fail_unless (gst_structure_get (s, "centroid-x", G_TYPE_DOUBLE, &cx, "centroid-y",
          G_TYPE_DOUBLE, &cy, "mass", G_TYPE_INT64, &mass, "velocity-x", G_TYPE_DOUBLE, &vx,
          "velocity-y", G_TYPE_DOUBLE, &vy, "velocity-valid", G_TYPE_BOOLEAN, &vvalid, NULL));
  ck_assert_int_eq (mass, tr.mass);
  ck_assert_msg (fabs (cx - tr.cx) < 1e-9 && fabs (cy - tr.cy) < 1e-9,
      "%s frame %d: centroid (%.6f, %.6f), want (%.6f, %.6f)", objs[i].name, t, cx, cy,
      tr.cx, tr.cy);
  ck_assert_msg (vvalid == want_velocity, "%s frame %d: velocity-valid %d", objs[i].name, t,
      vvalid);
  if (want_velocity) {
    Truth prev = truth (i, prev_t, w, h);
    double gap = t - prev_t;
    ck_assert_msg (fabs (vx - (tr.cx - prev.cx) / gap) < 1e-9
        && fabs (vy - (tr.cy - prev.cy) / gap) < 1e-9,
        "%s frame %d: velocity (%.4f, %.4f)", objs[i].name, t, vx, vy);
  }
  gdouble major, minor;
  fail_unless (gst_structure_get (s, "major-axis", G_TYPE_DOUBLE, &major, "minor-axis",
          G_TYPE_DOUBLE, &minor, NULL));
  double cxr, cyr, rad;
  disc (i, t, w, &cxr, &cyr, &rad);
  /* a disc's semi-axes from its moments: about its radius */
  ck_assert_msg (fabs (major - rad) < 0.6 && fabs (minor - rad) < 0.6,
      "%s: axes %.3f %.3f for radius %.1f", objs[i].name, major, minor, rad);
}

GST_START_TEST (test_metas_and_messages)
{
  const int w = 128, h = 96;
  const gchar *formats[] = { "RGBA", "BGRx" };
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *hn = gst_harness_new_parse ("moctracker backend=cpu post-messages=true "
        "objects=\"" OBJECTS "\"");
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (hn->element, bus);
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
        formats[f], w, h);
    gst_harness_set_src_caps_str (hn, caps);
    g_free (caps);
    for (int t = 0; t < 4; t++) {
      GstBuffer *out = gst_harness_push_and_pull (hn, make_frame (formats[f], w, h, t));
      fail_unless (out != NULL);
      ck_assert_uint_eq (roi_count (out), t == 2 ? 2 : 3);
      for (int i = 0; i < N_OBJ; i++)
        check_roi (out, i, t, w, h, t == 0 ? -1 : (i == 2 && t == 3) ? 1 : t - 1);
      /* the message: every object, present or not */
      GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
      fail_unless (msg != NULL, "no message for frame %d", t);
      const GstStructure *s = gst_message_get_structure (msg);
      fail_unless (gst_structure_has_name (s, "moctracker"));
      guint64 ts;
      fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
      ck_assert_uint_eq (ts, GST_BUFFER_PTS (out));
      const GValue *list = gst_structure_get_value (s, "objects");
      ck_assert_uint_eq (gst_value_list_get_size (list), N_OBJ);
      for (int i = 0; i < N_OBJ; i++) {
        const GstStructure *o = gst_value_get_structure (gst_value_list_get_value (list, i));
        Truth tr = truth (i, t, w, h);
        gboolean present;
        gint64 mass;
        gint x, width;
        ck_assert_str_eq (gst_structure_get_string (o, "name"), objs[i].name);
        fail_unless (gst_structure_get (o, "present", G_TYPE_BOOLEAN, &present, "mass",
                G_TYPE_INT64, &mass, "x", G_TYPE_INT, &x, "width", G_TYPE_INT, &width, NULL));
        ck_assert_int_eq (present, tr.mass >= 16);
        ck_assert_int_eq (mass, tr.mass);
        if (tr.mass) {
          ck_assert_int_eq (x, tr.x0);
          ck_assert_int_eq (width, tr.x1 - tr.x0 + 1);
        }
      }
      gst_message_unref (msg);
      gst_buffer_unref (out);
    }
    gst_element_set_bus (hn->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (hn);
  }
}
GST_END_TEST;

/* The frames drawn with `draw` equal the core's CPU drawing (flags) of the same
 * frames; returns the drawn frames' bytes (caller frees each, then the array). */
static guint8 **
drawn_frames (const gchar * draw, unsigned flags, int w, int h, int frames)
{
  gchar *launch = g_strdup_printf ("moctracker backend=cpu draw=%s objects=\"" OBJECTS "\"",
      draw);
  GstHarness *hn = cv_harness_new (launch, "RGBA", w, h);
  g_free (launch);
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct_params p;
  cc_moct_params_default (&p);
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, w, h, &p, &m));
  cc_moct_object table[N_OBJ];
  memset (table, 0, sizeof table);
  for (int i = 0; i < N_OBJ; i++) {
    g_strlcpy (table[i].name, objs[i].name, sizeof table[i].name);
    table[i].r = objs[i].r;
    table[i].g = objs[i].g;
    table[i].b = objs[i].b;
    table[i].tolerance = 60;
  }
  CC_ASSERT_OK (cc_moct_set_objects (m, table, N_OBJ));
  guint8 **out_frames = g_new0 (guint8 *, frames);
  for (int t = 0; t < frames; t++) {
    GstBuffer *in = make_frame ("RGBA", w, h, t);
    GstMapInfo im;
    fail_unless (gst_buffer_map (in, &im, GST_MAP_READ));
    guint8 *want = g_memdup2 (im.data, im.size);
    gst_buffer_unmap (in, &im);
    cc_image view = cc_image_view (want, 4 * w, w, h, CC_FORMAT_RGBX8, CC_LOCATION_HOST);
    CC_ASSERT_OK (cc_moct_compute (m, NULL, &view, NULL));
    CC_ASSERT_OK (cc_moct_draw (m, NULL, &view, flags));
    GstBuffer *out = gst_harness_push_and_pull (hn, in);
    GstMapInfo om;
    fail_unless (gst_buffer_map (out, &om, GST_MAP_READ));
    long differ = 0, drawn = 0;
    for (gsize k = 0; k < om.size; k++) {
      differ += om.data[k] != want[k];
      drawn += (k % 4 != 3) && om.data[k] != 128;
    }
    ck_assert_msg (differ == 0, "draw=%s frame %d: %ld bytes differ from cc_moct_draw", draw,
        t, differ);
    fail_unless (drawn > 0);
    out_frames[t] = g_memdup2 (om.data, om.size);
    gst_buffer_unmap (out, &om);
    gst_buffer_unref (out);
    g_free (want);
  }
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
  gst_harness_teardown (hn);
  return out_frames;
}

/* draw=all: the drawn frame equals the core's CPU drawing of the same frames. */
GST_START_TEST (test_drawn_pixels)
{
  guint8 **f = drawn_frames ("all", CC_MOCT_DRAW_ALL, 96, 80, 4);
  for (int t = 0; t < 4; t++)
    g_free (f[t]);
  g_free (f);
}
GST_END_TEST;

/* draw=labels: the core's drawing, and every pixel that differs from the input is a
 * glyph pixel in a present object's colour, in the 7 rows above its true box
 * (left-aligned, one row of gap: "red", "green", "blue" are 17, 29, 23 px wide). */
GST_START_TEST (test_drawn_labels)
{
  const int w = 96, h = 80, frames = 4;
  static const int text_w[N_OBJ] = { 17, 29, 23 };
  guint8 **f = drawn_frames ("labels", CC_MOCT_DRAW_LABELS, w, h, frames);
  for (int t = 0; t < frames; t++) {
    GstBuffer *in = make_frame ("RGBA", w, h, t);
    GstMapInfo im;
    fail_unless (gst_buffer_map (in, &im, GST_MAP_READ));
    int glyph[N_OBJ] = { 0 };
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const guint8 *a = im.data + 4 * (y * w + x), *b = f[t] + 4 * (y * w + x);
        if (!memcmp (a, b, 4))
          continue;
        int owner = -1;
        for (int i = 0; i < N_OBJ; i++) {
          Truth tr = truth (i, t, w, h);
          if (tr.mass > 0 && x >= tr.x0 && x < tr.x0 + text_w[i] && y >= tr.y0 - 8
              && y <= tr.y0 - 2 && b[0] == objs[i].r && b[1] == objs[i].g && b[2] == objs[i].b)
            owner = i;
        }
        ck_assert_msg (owner >= 0, "frame %d: (%d, %d) drawn outside every label", t, x, y);
        ck_assert_int_eq (b[3], a[3]);
        glyph[owner]++;
      }
    /* every present object has its name (blue is absent on frame 2) */
    for (int i = 0; i < N_OBJ; i++)
      ck_assert_msg ((glyph[i] > 0) == (truth (i, t, w, h).mass > 0), "frame %d object %d: %d"
          " glyph pixels", t, i, glyph[i]);
    gst_buffer_unmap (in, &im);
    gst_buffer_unref (in);
    g_free (f[t]);
  }
  g_free (f);
}
GST_END_TEST;

/* Invalid lists are refused with a warning naming the entry; the old list stays. */
GST_START_TEST (test_property_errors)
{
  GstElement *e = gst_element_factory_make ("moctracker", NULL);
  g_object_set (e, "objects", "a:#102030:20;b:#405060", NULL);
  struct { const gchar *list, *pattern; } bad[] = {
    { "a:#10203:20", "*entry 1 (\"a\"): colour \"#10203\" is not #rrggbb*" },
    { "a:#102030;b:#zz0000", "*entry 2 (\"b\"): colour*" },
    { "a:#102030;a:#405060", "*entry 2 (\"a\"): the name is used by object 1*" },
    { "a:#102030:-3", "*entry 1 (\"a\"): tolerance \"-3\"*" },
    { "a:#102030:20:xyz", "*colour space \"xyz\"*" },
    { ":#102030", "*entry 1 (\"\"): a name*" },
    { "a", "*entry 1 (\"a\"): want name, colour*" },
    { "a b:#102030", "*entry 1 (\"a b\"): a name has no white space*" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, bad[i].pattern);
    g_object_set (e, "objects", bad[i].list, NULL);
    g_test_assert_expected_messages ();
    gchar *now;
    g_object_get (e, "objects", &now, NULL);
    ck_assert_str_eq (now, "a:#102030:20;b:#405060");
    g_free (now);
  }
  /* an empty list (and white space, and ';' alone) is taken: no objects. It crashed
   * (NULL list, no error) before gst_cv_objects_parse allocated empty lists. */
  const gchar *empty[] = { "", " ", ";;" };
  for (gsize i = 0; i < G_N_ELEMENTS (empty); i++) {
    g_object_set (e, "objects", "a:#102030:20", NULL);
    g_object_set (e, "objects", empty[i], NULL);
    gchar *now;
    g_object_get (e, "objects", &now, NULL);
    ck_assert_str_eq (now, "");
    g_free (now);
  }
  g_object_set (e, "objects", "a:#102030:20;b:#405060", NULL);
  /* a file's name may not hold ';' either: the getter's inline list would not read
   * back (found by tests/fuzz/fuzz-objects) */
  gchar *semi = g_build_filename (g_get_tmp_dir (), "cv-objects-semicolon.txt", NULL);
  g_file_set_contents (semi, "b;c #102030\n", -1, NULL);
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*line 1 (\"b;c\"): a name has no*");
  g_object_set (e, "objects-file", semi, NULL);
  g_test_assert_expected_messages ();
  g_unlink (semi);
  g_free (semi);
  /* 1025 objects: refused; 1024: taken */
  GString *many = g_string_new (NULL);
  for (int i = 0; i < 1025; i++)
    g_string_append_printf (many, "%so%d:#%06x", i ? ";" : "", i, i * 16001);
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*entry 1025: more than 1024 objects*");
  g_object_set (e, "objects", many->str, NULL);
  g_test_assert_expected_messages ();
  g_string_truncate (many, strrchr (many->str, ';') - many->str);
  g_object_set (e, "objects", many->str, NULL);
  gchar *now;
  g_object_get (e, "objects", &now, NULL);
  ck_assert_str_eq (now, many->str);
  g_free (now);
  g_string_free (many, TRUE);
  /* a missing file is refused too */
  g_test_expect_message (NULL, G_LOG_LEVEL_WARNING, "*objects-file*refused*cannot open*");
  g_object_set (e, "objects-file", "/nonexistent/objects.txt", NULL);
  g_test_assert_expected_messages ();
  gst_object_unref (e);
}
GST_END_TEST;

/* objects-file: comments, white space or ':' separators, per-object tolerance/space. */
GST_START_TEST (test_objects_file)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("moct-XXXXXX.txt", &path, NULL);
  fail_unless (fd >= 0);
  const gchar *text = "# billiard\n\nred #dc1e1e 60\n  green:#1ec83c:60:rgb\nblue #283cdc 60 lab\n";
  fail_unless (write (fd, text, strlen (text)) == (gssize) strlen (text));
  close (fd);
  const int w = 128, h = 96;
  GstHarness *hn = gst_harness_new_parse ("moctracker backend=cpu");
  GstElement *e = gst_harness_find_element (hn, "moctracker");
  g_object_set (e, "objects-file", path, NULL);
  gchar *now;
  g_object_get (e, "objects", &now, NULL);
  gst_object_unref (e);
  ck_assert_str_eq (now, "red:#dc1e1e:60;green:#1ec83c:60:rgb;blue:#283cdc:60:lab");
  g_free (now);
  gst_harness_set_src_caps_str (hn, "video/x-raw,format=RGBA,width=128,height=96,framerate=30/1");
  GstBuffer *out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 0));
  ck_assert_uint_eq (roi_count (out), 3);
  for (int i = 0; i < N_OBJ; i++)
    check_roi (out, i, 0, w, h, -1);
  gst_buffer_unref (out);
  gst_harness_teardown (hn);
  g_unlink (path);
  g_free (path);
}
GST_END_TEST;

/* A flush (and a DISCONT buffer) clears the trajectories: no velocity on the next
 * frame; a caps change mid-stream gives boxes of the new size. */
GST_START_TEST (test_flush_and_caps_change)
{
  const int w = 128, h = 96;
  GstHarness *hn = cv_harness_new ("moctracker backend=cpu objects=\"" OBJECTS "\"", "RGBA",
      w, h);
  gst_buffer_unref (gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 0)));
  GstBuffer *out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 1));
  check_roi (out, 0, 1, w, h, 0);
  gst_buffer_unref (out);
  fail_unless (gst_harness_push_event (hn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hn, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hn, gst_event_new_segment (&seg)));
  out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 1));
  check_roi (out, 0, 1, w, h, -1);
  gst_buffer_unref (out);
  out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 2));
  check_roi (out, 0, 2, w, h, 1);
  gst_buffer_unref (out);
  GstBuffer *in = make_frame ("RGBA", w, h, 3);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  out = gst_harness_push_and_pull (hn, in);
  check_roi (out, 0, 3, w, h, -1);
  gst_buffer_unref (out);

  /* caps change: 64x48 cuts the discs at the frame edge */
  gst_harness_set_src_caps_str (hn, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1");
  out = gst_harness_push_and_pull (hn, make_frame ("RGBA", 64, 48, 1));
  for (int i = 0; i < N_OBJ; i++)
    check_roi (out, i, 1, 64, 48, -1);
  gst_buffer_unref (out);
  gst_harness_teardown (hn);
}
GST_END_TEST;

/* search-window: a distractor of red's colour far away stops counting once red was
 * seen (the first frame searches the whole frame). */
GST_START_TEST (test_search_window)
{
  const int w = 128, h = 96;
  GstHarness *hn = cv_harness_new ("moctracker backend=cpu search-window=16 objects=\""
      OBJECTS "\"", "RGBA", w, h);
  /* frame 0: red alone; frames 1, 2: a red square at the bottom right too */
  for (int t = 0; t < 3; t++) {
    GstBuffer *in = make_frame ("RGBA", w, h, t);
    if (t > 0) {
      GstMapInfo m;
      fail_unless (gst_buffer_map (in, &m, GST_MAP_WRITE));
      for (int y = 84; y < 92; y++)
        for (int x = 116; x < 124; x++) {
          guint8 *p = m.data + (y * w + x) * 4;
          p[0] = objs[0].r; p[1] = objs[0].g; p[2] = objs[0].b;
        }
      gst_buffer_unmap (in, &m);
    }
    GstBuffer *out = gst_harness_push_and_pull (hn, in);
    check_roi (out, 0, t, w, h, t - 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (hn);
}
GST_END_TEST;

/* size-ratio (default 3) with search-window: a red blob four times red's size over
 * it is a look-alike: red is absent (no meta) and `lost` in the message; the next
 * frame re-acquires it (velocity from its last accepted frame). A flush (the
 * base's reset) drops the reference, so the same blob is then accepted; with
 * size-ratio=0 it is followed. */
static GstBuffer *
frame_with_blob (int w, int h, int t)
{
  GstBuffer *in = make_frame ("RGBA", w, h, t);
  GstMapInfo m;
  fail_unless (gst_buffer_map (in, &m, GST_MAP_WRITE));
  for (int y = 10; y < 50; y++)
    for (int x = 10; x < 50; x++) {
      guint8 *p = m.data + (y * w + x) * 4;
      p[0] = objs[0].r; p[1] = objs[0].g; p[2] = objs[0].b;
    }
  gst_buffer_unmap (in, &m);
  return in;
}

static gboolean
red_lost (GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL);
  const GValue *list = gst_structure_get_value (gst_message_get_structure (msg), "objects");
  const GstStructure *o = gst_value_get_structure (gst_value_list_get_value (list, 0));
  gboolean lost, present;
  fail_unless (gst_structure_get (o, "lost", G_TYPE_BOOLEAN, &lost, "present",
          G_TYPE_BOOLEAN, &present, NULL));
  gst_message_unref (msg);
  fail_unless (!(lost && present));
  return lost;
}

GST_START_TEST (test_size_ratio)
{
  const int w = 128, h = 96;
  for (int gate = 1; gate >= 0; gate--) {
    GstHarness *hn = cv_harness_new (gate ? "moctracker backend=cpu search-window=16 "
        "post-messages=true objects=\"" OBJECTS "\"" : "moctracker backend=cpu "
        "search-window=16 size-ratio=0 post-messages=true objects=\"" OBJECTS "\"", "RGBA", w, h);
    gdouble ratio;
    /* the parsed harness element is a bin around the tracker */
    g_object_get (GST_BIN_CHILDREN (GST_BIN (hn->element))->data, "size-ratio", &ratio, NULL);
    ck_assert (ratio == (gate ? 3.0 : 0.0));
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (hn->element, bus);
    for (int t = 0; t < 2; t++) {
      GstBuffer *out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, t));
      check_roi (out, 0, t, w, h, t - 1);
      fail_if (red_lost (bus));
      gst_buffer_unref (out);
    }
    GstBuffer *out = gst_harness_push_and_pull (hn, frame_with_blob (w, h, 2));
    ck_assert (gate ? roi_of (out, "red") == NULL : roi_of (out, "red") != NULL);
    ck_assert (red_lost (bus) == (gate != 0));
    gst_buffer_unref (out);
    if (gate) {
      out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 3));
      check_roi (out, 0, 3, w, h, 1);
      fail_if (red_lost (bus));
      gst_buffer_unref (out);
      /* reset(): the reference goes with the trajectories */
      fail_unless (gst_harness_push_event (hn, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (hn, gst_event_new_flush_stop (TRUE)));
      GstSegment seg;
      gst_segment_init (&seg, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (hn, gst_event_new_segment (&seg)));
      out = gst_harness_push_and_pull (hn, frame_with_blob (w, h, 2));
      GstVideoRegionOfInterestMeta *r = roi_of (out, "red");
      fail_unless (r != NULL);
      ck_assert_uint_eq (r->w, 40);   /* the blob's box (the whole frame is searched) */
      fail_if (red_lost (bus));
      gst_buffer_unref (out);
    }
    gst_element_set_bus (hn->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (hn);
  }
}
GST_END_TEST;

/* GRAY8 is refused at negotiation; 1x1 and odd sizes run. */
GST_START_TEST (test_formats_and_sizes)
{
  GstElement *e = gst_element_factory_make ("moctracker", NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *gray = gst_caps_from_string ("video/x-raw,format=GRAY8,width=8,height=8");
  fail_if (gst_pad_query_accept_caps (sink, gray));
  gst_caps_unref (gray);
  gst_object_unref (sink);
  gst_object_unref (e);
  const int sizes[][2] = { { 1, 1 }, { 3, 5 }, { 101, 67 } };
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++) {
    int w = sizes[s][0], h = sizes[s][1];
    GstHarness *hn = cv_harness_new ("moctracker backend=cpu min-mass=1 draw=all objects=\""
        OBJECTS "\"", "RGBA", w, h);
    GstBuffer *out = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 0));
    fail_unless (out != NULL);
    guint n = 0;
    for (int i = 0; i < N_OBJ; i++)
      n += truth (i, 0, w, h).mass > 0;
    ck_assert_uint_eq (roi_count (out), n);
    gst_buffer_unref (out);
    gst_harness_teardown (hn);
  }
}
GST_END_TEST;

/* cudaupload -> moctracker (CUDA memory) -> cudadownload: the same metas and drawn
 * pixels as the CPU backend. */
GST_START_TEST (test_cuda_memory_matches_cpu)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("moctracker cuda_memory_matches_cpu");
  const int w = 128, h = 96;
  GstBuffer *outs[2];
  const gchar *launches[2] = {
    "cudaupload ! video/x-raw(memory:CUDAMemory) ! moctracker name=m draw=all objects=\""
        OBJECTS "\" ! cudadownload ! capsfilter caps=video/x-raw,format=RGBA",
    "moctracker backend=cpu draw=all objects=\"" OBJECTS "\"",
  };
  for (int k = 0; k < 2; k++) {
    GstHarness *hn = cv_harness_new (launches[k], "RGBA", w, h);
    gst_buffer_unref (gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 0)));
    outs[k] = gst_harness_push_and_pull (hn, make_frame ("RGBA", w, h, 1));
    fail_unless (outs[k] != NULL);
    gst_harness_teardown (hn);
  }
  /* metas do not survive cudadownload's copy in every version: compare pixels, and
   * the CPU run's metas against the truth */
  GstMapInfo a, b;
  fail_unless (gst_buffer_map (outs[0], &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (outs[1], &b, GST_MAP_READ));
  ck_assert_uint_eq (a.size, b.size);
  long differ = 0;
  for (gsize k = 0; k < a.size; k++)
    differ += a.data[k] != b.data[k];
  ck_assert_msg (differ == 0, "%ld bytes differ between CUDA memory and the CPU", differ);
  g_print ("moctracker CUDA memory vs CPU: 0 of %" G_GSIZE_FORMAT " bytes differ\n", a.size);
  gst_buffer_unmap (outs[0], &a);
  gst_buffer_unmap (outs[1], &b);
  for (int i = 0; i < N_OBJ; i++)
    check_roi (outs[1], i, 1, w, h, 0);
  gst_buffer_unref (outs[0]);
  gst_buffer_unref (outs[1]);
}
GST_END_TEST;

static Suite *
moctracker_suite (void)
{
  Suite *s = suite_create ("moctracker");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_metas_and_messages);
  tcase_add_test (tc, test_drawn_pixels);
  tcase_add_test (tc, test_drawn_labels);
  tcase_add_test (tc, test_property_errors);
  tcase_add_test (tc, test_objects_file);
  tcase_add_test (tc, test_flush_and_caps_change);
  tcase_add_test (tc, test_formats_and_sizes);
  tcase_add_test (tc, test_search_window);
  tcase_add_test (tc, test_size_ratio);
  tcase_add_test (tc, test_cuda_memory_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (moctracker);
