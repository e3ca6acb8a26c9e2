/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* analytics-bench: the CPU cost per frame of attaching the analytics mtds
 * (gst/gstcvanalytics.c), apart from any computing: moctracker's OD + tracking mtds
 * for N present objects (default 128), the flow mtd, and quadcut's segmentation
 * mask at the frame size (default 1920x1080). Each case runs on buffers from a pool
 * (what a pipeline's decoder or videotestsrc gives: the relation meta is kept and
 * cleared with the buffer) and on fresh buffers (the meta allocated and freed each
 * frame); the time includes dropping the buffer. Times are the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID: on a shared machine, preemption does not count), the
 * best of 5 rounds of frames / 5 frames each. Prints one JSON object.
 *
 *   analytics-bench [--objects N] [--width W] [--height H] [--frames F] */
#include "gstcvanalytics.h"
#include "gstcvflowfield.h"
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#if CV_HAVE_ANALYTICS
static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define ROUNDS 5
/* Runs `body` (one frame, index f) for 10 warm-up frames, then ROUNDS rounds of
 * `count` frames; sets `best` to the best round's ms per frame. */
#define TIME_FRAMES(best, count, body)                                            \
  do {                                                                            \
    best = 1e30;                                                                  \
    for (int f = -10; f < 0; f++) { body; }                                       \
    for (int r_ = 0; r_ < ROUNDS; r_++) {                                         \
      double t_ = cpu_ms ();                                                      \
      for (int f = r_ * (count); f < (r_ + 1) * (count); f++) { body; }           \
      best = MIN (best, (cpu_ms () - t_) / (count));                              \
    }                                                                             \
  } while (0)

static GstBufferPool *
frame_pool (int w, int h)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, w, h);
  GstCaps *caps = gst_video_info_to_caps (&info);
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 64, 2, 0);   /* no pixels needed */
  gst_caps_unref (caps);
  gst_buffer_pool_set_config (pool, config);
  gst_buffer_pool_set_active (pool, TRUE);
  return pool;
}

static GstBuffer *
next_buffer (GstBufferPool * pool, int i)
{
  GstBuffer *b = NULL;
  if (pool)
    gst_buffer_pool_acquire_buffer (pool, &b, NULL);
  else
    b = gst_buffer_new ();
  GST_BUFFER_PTS (b) = (GstClockTime) i * GST_SECOND / 30;
  return b;
}

#endif

static const char help[] =
"usage: analytics-bench [--objects N] [--width W] [--height H] [--frames F]\n"
"The CPU cost per frame of attaching the analytics mtds (no computing): moctracker's\n"
"OD and tracking mtds, the flow mtd and quadcut's segmentation mask, on pooled and\n"
"on fresh buffers; the thread's CPU time, best of 5 rounds; one JSON object.\n"
"  --objects N  present objects (1..%d; default 128)\n"
"  --width W    frame width (16 or more; default 1920)\n"
"  --height H   frame height (16 or more; default 1080)\n"
"  --frames F   frames a round (10 or more; default 2000)\n"
"  -h, --help   this text\n";

int
main (int argc, char **argv)
{
  int n = 128, w = 1920, h = 1080, frames = 2000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--help") || !strcmp (argv[i], "-h")) {
      printf (help, CC_MOCT_MAX_OBJECTS);
      return 0;
    } else if (!strcmp (argv[i], "--objects") && i + 1 < argc) n = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--width") && i + 1 < argc) w = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--height") && i + 1 < argc) h = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--frames") && i + 1 < argc) frames = atoi (argv[++i]);
    else {
      fprintf (stderr, "usage: analytics-bench [--objects N] [--width W] [--height H] "
          "[--frames F]\n");
      return 2;
    }
  }
  if (n < 1 || n > CC_MOCT_MAX_OBJECTS || w < 16 || h < 16 || frames < 10) {
    fprintf (stderr, "analytics-bench: objects 1..%d, sizes >= 16, frames >= 10\n",
        CC_MOCT_MAX_OBJECTS);
    return 2;
  }
  gst_init (&argc, &argv);
#if !CV_HAVE_ANALYTICS
  printf ("{\"analytics\": false, \"note\": \"built without gstreamer-analytics-1.0\"}\n");
  return 0;
#else
  /* n objects on a grid over the frame, all present, moving 1 px a frame */
  cc_moct_object *objs = g_new0 (cc_moct_object, n);
  cc_moct_result *res = g_new0 (cc_moct_result, n);
  int cols = (int) ceil (sqrt ((double) n));
  for (int i = 0; i < n; i++) {
    g_snprintf (objs[i].name, sizeof objs[i].name, "object-%d", i);
    res[i].id = i;
    res[i].present = true;
    res[i].mass = 400;
    res[i].x0 = (i % cols) * (w / cols);
    res[i].y0 = (i / cols) * (h / cols);
    res[i].x1 = res[i].x0 + 19;
    res[i].y1 = res[i].y0 + 19;
  }
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  cc_context *ctx = NULL;
  cc_context_create (CC_BACKEND_CPU, -1, &ctx);
  GstCvCoreRef *core = gst_cv_core_ref_new (ctx, NULL);       /* owns ctx */
  GstCvFieldPool *fields = gst_cv_field_pool_new_on (core, CC_LOCATION_HOST, w / 8, h / 8);

  printf ("{\"bench\": \"analytics-attach\", \"gstreamer\": \"%s\", \"objects\": %d, "
      "\"width\": %d, \"height\": %d, \"frames\": %d, \"ms_per_frame\": {",
      gst_version_string (), n, w, h, frames);
  for (int pooled = 1; pooled >= 0; pooled--) {
    GstBufferPool *pool = pooled ? frame_pool (w, h) : NULL;
    const char *kind = pooled ? "pooled" : "fresh";
    /* tracks */
    GstCvTracks *tracks = gst_cv_tracks_new ();
    double tracks_ms;
    TIME_FRAMES (tracks_ms, frames / ROUNDS, {
      GstBuffer *b = next_buffer (pool, f);
      for (int i = 0; i < n; i++) {
        res[i].x0 = (res[i].x0 + 1) % (w - 20);
        res[i].x1 = res[i].x0 + 19;
      }
      if (!gst_cv_tracks_attach (tracks, &segment, b, objs, res, n)) {
        fprintf (stderr, "analytics-bench: attaching failed\n");
        return 1;
      }
      gst_buffer_unref (b);
    });
    gst_cv_tracks_free (tracks);
#if GST_CHECK_VERSION(1, 26, 0)
    /* flow: the meta and the mtd on one pooled field (a w/8 x h/8 grid) */
    GstCvFlowField *field = gst_cv_field_pool_acquire (fields);
    double flow_ms;
    TIME_FRAMES (flow_ms, frames / ROUNDS, {
      GstBuffer *b = next_buffer (pool, f);
      GstCvFlowMeta *m = gst_buffer_add_cv_flow_meta (b, gst_cv_flow_field_ref (field), 8, 8,
          GST_CV_FLOW_CONFIDENCE_MATCH, TRUE);
      GstAnalyticsRelationMeta *rmeta = gst_cv_analytics_relation_meta (b, 1);
      if (!m || !gst_cv_analytics_add_flow_mtd (rmeta, field, w, h, 8, 8,
              GST_CV_FLOW_CONFIDENCE_MATCH, TRUE, NULL))
        return 1;
      gst_buffer_unref (b);
    });
    gst_cv_flow_field_unref (field);
    /* the segmentation mask (CPU backend: filled in place, here by a fill) */
    GstCvMaskOut *mask = gst_cv_mask_out_new (ctx, NULL, NULL, w, h);
    static const guint regions[] = { 0, 255 };
    double mask_ms;
    TIME_FRAMES (mask_ms, MAX (frames / 50, 2), {
      GstBuffer *b = next_buffer (pool, f);
      cc_image *dst = gst_cv_mask_out_begin (mask);
      if (!dst || cc_image_fill (ctx, NULL, dst, (guint8) (f & 1 ? 255 : 0)) != CC_SUCCESS
          || !gst_cv_mask_out_finish (mask, b, TRUE, regions, 2))
        return 1;
      gst_buffer_unref (b);
    });
    gst_cv_mask_out_free (mask);
    printf ("%s\"%s\": {\"tracks\": %.5f, \"flow\": %.5f, \"mask_with_fill\": %.4f}",
        pooled ? "" : ", ", kind, tracks_ms, flow_ms, mask_ms);
#else
    printf ("%s\"%s\": {\"tracks\": %.5f}", pooled ? "" : ", ", kind, tracks_ms);
#endif
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
  }
  printf ("}}\n");
  gst_cv_field_pool_unref (fields);
  gst_cv_core_ref_unref (core);
  g_free (objs);
  g_free (res);
  return 0;
#endif
}
