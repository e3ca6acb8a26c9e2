/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "element_common.h"
#include "gstcvflowmeta.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <math.h>
#include <string.h>

GstHarness *
cv_harness_new (const gchar * launch, const gchar * format, int width, int height)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
      format, width, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

GstBuffer *
cv_buffer_from_gray (const gchar * format, const guint8 * gray, int width, int height)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), width, height);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (buf, 0, 128, GST_VIDEO_INFO_SIZE (&info));   /* neutral chroma */
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), width, height, GST_VIDEO_INFO_N_PLANES (&info),
      info.offset, info.stride);
  GstVideoFrame vf;
  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
  guint8 *p0 = GST_VIDEO_FRAME_PLANE_DATA (&vf, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0);
  gboolean rgb = GST_VIDEO_INFO_IS_RGB (&info);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      guint8 g = gray[y * width + x];
      if (rgb) {
        guint8 *px = p0 + y * stride + 4 * x;
        px[0] = px[1] = px[2] = g;
        px[3] = 255;
      } else {
        p0[y * stride + x] = g;
      }
    }
  gst_video_frame_unmap (&vf);
  return buf;
}

GstBuffer *
cv_push_gray (GstHarness * h, const gchar * format, const guint8 * gray, int width, int height)
{
  return gst_harness_push_and_pull (h, cv_buffer_from_gray (format, gray, width, height));
}

GstBuffer *
cv_push_pair (GstHarness * h, const gchar * format, const guint8 * first,
    const guint8 * second, int width, int height)
{
  gst_buffer_unref (cv_push_gray (h, format, first, width, height));
  return cv_push_gray (h, format, second, width, height);
}

void
cv_translation_pair (int width, int height, double dx, double dy, guint8 ** first,
    guint8 ** second)
{
  cc_image a, b;
  fail_unless (cv_synth_translation (width, height, dx, dy, 21, &a, &b) == CC_SUCCESS);
  *first = g_malloc (width * height);
  *second = g_malloc (width * height);
  for (int y = 0; y < height; y++) {
    memcpy (*first + y * width, (guint8 *) a.planes[0] + y * a.pitch[0], width);
    memcpy (*second + y * width, (guint8 *) b.planes[0] + y * b.pitch[0], width);
  }
  cv_image_free (&a);
  cv_image_free (&b);
}

GstBus *
cv_watch_bus (GstElement * e)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  return bus;
}

void
cv_assert_warning (GstBus * bus, const gchar * pattern)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL, "no warning on the bus (expected \"%s\")", pattern);
  GError *err = NULL;
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (g_pattern_match_simple (pattern, err->message), "warning \"%s\" is not \"%s\"",
      err->message, pattern);
  g_error_free (err);
  gst_message_unref (m);
}

const gchar *
cv_cuda_elements_missing (void)
{
  const char *why = cv_test_gpu_missing ();
  if (why)
    return why;
  GstElementFactory *f = gst_element_factory_find ("cudaupload");
  if (!f)
    return CV_SKIP_NO_CUDA_ELEMENTS;
  gst_object_unref (f);
  return NULL;
}

int
cv_check_run_suite (Suite * suite, const gchar * argv0)
{
  SRunner *sr = srunner_create (suite);
  cv_test_skip_begin ();
  GTimer *timer = g_timer_new ();
  srunner_run_all (sr, CK_NORMAL);
  int run = srunner_ntests_run (sr), failed = srunner_ntests_failed (sr);
  const char *name = cv_test_skip_program_name (argv0);
  g_print ("Check suite %s ran in %.3fs (tests failed: %d)\n", name,
      g_timer_elapsed (timer, NULL), failed);
  g_timer_destroy (timer);
  srunner_free (sr);
  return cv_test_skip_finish (name, run, failed);
}

/* Largest |component| of the meta's vectors (in frame pixels) and confidence. */
static void
meta_extent (GstCvFlowMeta * meta, double *max_vec, double *max_conf)
{
  const gfloat *uv, *conf;
  gsize uv_stride, conf_stride;
  fail_unless (gst_cv_flow_meta_map_host (meta, &uv, &uv_stride, &conf, &conf_stride));
  *max_vec = *max_conf = 0;
  for (guint y = 0; y < meta->grid_height; y++)
    for (guint x = 0; x < meta->grid_width; x++) {
      const gfloat *v = cv_flow_vector (uv, uv_stride, x, y);
      *max_vec = MAX (*max_vec, MAX (fabs (v[0]) * meta->cell_width,
              fabs (v[1]) * meta->cell_height));
      *max_conf = MAX (*max_conf, fabs (cv_flow_confidence (conf, conf_stride, x, y)));
    }
}

void
cv_harness_interrupt (GstHarness * h, CvResetKind kind, GstBuffer * next)
{
  if (kind == CV_RESET_FLUSH) {
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  }
  if (kind == CV_RESET_FLUSH || kind == CV_RESET_SEGMENT) {
    GstSegment segment;
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  }
  if (kind == CV_RESET_DISCONT)
    GST_BUFFER_FLAG_SET (next, GST_BUFFER_FLAG_DISCONT);
}

static GstBuffer *
push_pull_frame (GstHarness * h, const guint8 * gray, int w, int hgt, CvResetKind * interrupt)
{
  GstBuffer *in = cv_buffer_from_gray ("GRAY8", gray, w, hgt);
  if (interrupt)
    cv_harness_interrupt (h, *interrupt, in);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "no output buffer");
  return out;
}

void
cv_check_stream_reset (const gchar * launch, CvResetKind kind)
{
  const int w = 128, hgt = 96;
  guint8 *a, *b;
  cv_translation_pair (w, hgt, 2.0, 1.0, &a, &b);
  GstHarness *h = cv_harness_new (launch, "GRAY8", w, hgt);
  gst_buffer_unref (push_pull_frame (h, a, w, hgt, NULL));
  GstBuffer *out = push_pull_frame (h, b, w, hgt, NULL);
  GstCvFlowMeta *meta = gst_buffer_get_cv_flow_meta (out);
  double vec, conf;
  fail_unless (meta && meta->valid, "%s: second frame not valid", launch);
  meta_extent (meta, &vec, &conf);
  fail_unless (vec > 0.5, "%s: second frame has no flow (max %.3f)", launch, vec);
  gst_buffer_unref (out);

  /* A after B: a stale previous frame would give about (-2, -1) everywhere */
  out = push_pull_frame (h, a, w, hgt, &kind);
  meta = gst_buffer_get_cv_flow_meta (out);
  fail_unless (meta != NULL, "%s: meta missing after the reset", launch);
  fail_if (meta->valid, "%s: the first frame after the reset is marked valid", launch);
  meta_extent (meta, &vec, &conf);
  fail_unless (vec == 0.0 && conf == 0.0,
      "%s: first frame after the reset has flow %.3f, confidence %.3f (want 0, 0)", launch,
      vec, conf);
  gst_buffer_unref (out);

  out = push_pull_frame (h, b, w, hgt, NULL);
  meta = gst_buffer_get_cv_flow_meta (out);
  fail_unless (meta && meta->valid, "%s: the frame after the reset's first is not valid",
      launch);
  meta_extent (meta, &vec, &conf);
  fail_unless (vec > 0.5, "%s: no flow after the reset (max %.3f)", launch, vec);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (a);
  g_free (b);
}

void
cv_check_stream_resets (const gchar * launch_format)
{
  const gchar *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < 2; b++) {
    gchar *launch = g_strdup_printf (launch_format, backends[b]);
    const char *no_gpu = b == 1 ? cv_test_gpu_missing () : NULL;
    if (no_gpu) {
      gchar *what = g_strdup_printf ("%s reset", launch);
      CV_SKIP_PART (what, no_gpu);
      g_free (what);
    } else {
      cv_check_stream_reset (launch, CV_RESET_FLUSH);
      cv_check_stream_reset (launch, CV_RESET_DISCONT);
      cv_check_stream_reset (launch, CV_RESET_SEGMENT);
    }
    g_free (launch);
  }
}

void
cv_check_flat_pair (const gchar * launch, int w, int h, gboolean zero_vectors)
{
  guint8 *flat = g_malloc (w * h);
  memset (flat, 120, w * h);
  GstHarness *hn = cv_harness_new (launch, "GRAY8", w, h);
  GstBuffer *out = cv_push_pair (hn, "GRAY8", flat, flat, w, h);
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out);
  fail_unless (m != NULL, "%s: no flow meta", launch);
  ck_assert (m->valid);
  const gfloat *uv, *conf;
  gsize us, cs;
  fail_unless (gst_cv_flow_meta_map_host (m, &uv, &us, &conf, &cs));
  for (guint y = 0; y < m->grid_height; y++)
    for (guint x = 0; x < m->grid_width; x++) {
      const gfloat *v = cv_flow_vector (uv, us, x, y);
      if (zero_vectors)
        fail_unless (v[0] == 0.0f && v[1] == 0.0f, "%s: flow at (%u,%u)", launch, x, y);
      fail_unless (cv_flow_confidence (conf, cs, x, y) == 0.0f, "%s: confidence at (%u,%u)",
          launch, x, y);
    }
  GstMapInfo map;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  for (int i = 0; i < w * h; i++)
    ck_assert_int_eq (map.data[i], 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (hn);
  g_free (flat);
}

gfloat *
cv_flow_meta_copy (GstCvFlowMeta * meta)
{
  const gfloat *uv;
  gsize stride;
  fail_unless (gst_cv_flow_meta_map_host (meta, &uv, &stride, NULL, NULL));
  const guint w = meta->grid_width, h = meta->grid_height;
  gfloat *out = g_new (gfloat, 2 * (gsize) w * h);
  for (guint y = 0; y < h; y++)
    memcpy (out + 2 * (gsize) w * y, (const guint8 *) uv + y * stride, 8 * (gsize) w);
  return out;
}

GstSample *
cv_pipeline_second_sample (const gchar * launch, GstElement ** pipe)
{
  *pipe = gst_parse_launch (launch, NULL);
  fail_unless (*pipe != NULL, "cannot build %s", launch);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (*pipe), "sink");
  fail_unless (sink != NULL, "no appsink named sink in %s", launch);
  gst_element_set_state (*pipe, GST_STATE_PLAYING);
  GstSample *s = NULL;
  for (int i = 0; i < 2; i++) {
    if (s)
      gst_sample_unref (s);
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL, "no sample from %s", launch);
  }
  gst_object_unref (sink);
  return s;
}

void
cv_pipeline_stop (GstElement * pipe)
{
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

gfloat *
cv_pipeline_flow (const gchar * launch, gboolean * on_device, gsize * n_floats)
{
  GstElement *pipe;
  GstSample *s = cv_pipeline_second_sample (launch, &pipe);
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (gst_sample_get_buffer (s));
  fail_unless (m && m->valid, "%s: no valid flow meta", launch);
  GstElement *flow = gst_bin_get_by_name (GST_BIN (pipe), "flow");
  if (flow) {   /* the element must really have been given CUDA memory */
    GstPad *pad = gst_element_get_static_pad (flow, "sink");
    GstCaps *caps = gst_pad_get_current_caps (pad);
    fail_unless (caps && gst_caps_features_contains (gst_caps_get_features (caps, 0),
            "memory:CUDAMemory"), "%s got %" GST_PTR_FORMAT,
        gst_plugin_feature_get_name (gst_element_get_factory (flow)), caps);
    gst_caps_unref (caps);
    gst_object_unref (pad);
    gst_object_unref (flow);
  }
  gconstpointer dv;
  *on_device = gst_cv_flow_meta_get_device (m, &dv, NULL, NULL, NULL);
  gfloat *out = cv_flow_meta_copy (m);
  *n_floats = 2 * (gsize) m->grid_width * m->grid_height;
  gst_sample_unref (s);
  cv_pipeline_stop (pipe);
  return out;
}

double
cv_flow_cuda_vs_cpu (const gchar * src, const gchar * element)
{
  /* the caps filter forces CUDA memory: without it cudaupload and cudadownload would
   * agree on system memory and pass buffers through */
  gchar *gpu_launch = g_strdup_printf ("%s ! cudaupload ! video/x-raw(memory:CUDAMemory) ! "
      "%s name=flow backend=cuda ! cudadownload ! appsink name=sink sync=false", src, element);
  gchar *cpu_launch = g_strdup_printf ("%s ! %s backend=cpu ! appsink name=sink sync=false",
      src, element);
  gboolean dev_g, dev_c;
  gsize ng, nc;
  gfloat *fg = cv_pipeline_flow (gpu_launch, &dev_g, &ng);
  gfloat *fc = cv_pipeline_flow (cpu_launch, &dev_c, &nc);
  g_free (gpu_launch);
  g_free (cpu_launch);
  ck_assert (dev_g);
  ck_assert (!dev_c);
  ck_assert_uint_eq (ng, nc);
  double diff = 0;
  for (gsize i = 0; i < ng; i++)
    diff += fabs (fg[i] - fc[i]);
  g_free (fg);
  g_free (fc);
  return diff / ng;
}

void
cv_check_flow_cuda_vs_cpu (const gchar * name, const gchar * src, const gchar * element,
    double max_mean_diff)
{
  double diff = cv_flow_cuda_vs_cpu (src, element);
  g_print ("%s: CUDA memory vs CPU: mean |diff| %.5f px\n", name, diff);
  ck_assert_msg (diff <= max_mean_diff, "%s: mean |diff| %.5f px > %g", name, diff,
      max_mean_diff);
}

void
cv_cycle_states (GstElement * pipe, const GstState * states, gsize n_states)
{
  for (gsize i = 0; i < n_states; i++) {
    fail_if (gst_element_set_state (pipe, states[i]) == GST_STATE_CHANGE_FAILURE,
        "to %s", gst_element_state_get_name (states[i]));
    fail_if (gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND)
        == GST_STATE_CHANGE_FAILURE, "to %s", gst_element_state_get_name (states[i]));
  }
}

/* ------------------------------------------------------------- reliability */

/* One row per element: adding an element to every generic check is one line here. */
const CvElementCase cv_element_cases[] = {
  { "cudaflowlk", "cudaflowlk backend=cpu visualize=color",
    "pyramid-levels=1 iterations=1 window-size=5", { "GRAY8", "NV12" } },
  { "cudablockmatch", "cudablockmatch backend=cpu block-size=8 visualize=color",
    "block-size=64 search-radius=1 levels=1", { "I420", "BGRx" } },
  { "cudaflowepic", "cudaflowepic backend=cpu visualize=color",
    "match-step=8 neighbours=8 refine=none", { "NV12", "RGBA" } },
  { "moctracker", "moctracker backend=cpu objects=box:#ffffff:60 draw=all",
    "draw=0", { "NV12", "RGBA" } },
  { "cvdmosaic", "cvdmosaic backend=cpu sites=40 iterations=2 seed=7",
    "sites=16 iterations=1 density=uniform", { "BGRx", "I420" } },
#ifdef CV_HAVE_QUADCUT
  /* GPL plugin cudavisiongpl: a learned plate (learn-frames above the frames a check
   * pushes, so a flush or new caps drop it and the run equals a fresh element's) */
  { "quadcut", "quadcut backend=cpu mode=plate learn-frames=50 output=composite",
    "max-level=6", { "RGBA", "I420" } },
#endif
};
const gint cv_n_element_cases = G_N_ELEMENTS (cv_element_cases);

GstBuffer *
cv_test_frame (const gchar * format, int width, int height, guint index, guint pad)
{
  GstVideoInfo rgba, out;
  gst_video_info_set_format (&rgba, GST_VIDEO_FORMAT_RGBA, width, height);
  gst_video_info_set_format (&out, gst_video_format_from_string (format), width, height);
  fail_unless (GST_VIDEO_INFO_FORMAT (&out) != GST_VIDEO_FORMAT_UNKNOWN, "format %s", format);
  if (pad > 0) {
    GstVideoAlignment align;
    gst_video_alignment_reset (&align);
    align.padding_right = pad;
    fail_unless (gst_video_info_align (&out, &align));
  }
  /* texture in 0..159 per channel, so the white square is the only white */
  guint8 *src = g_malloc ((gsize) width * height * 4);
  int sq = MAX (1, MIN (width, height) / 4);
  int sx = (width / 4 + 2 * (int) index) % MAX (1, width - sq + 1);
  int sy = (height / 3 + (int) index) % MAX (1, height - sq + 1);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      guint8 *p = src + ((gsize) y * width + x) * 4;
      gboolean in = x >= sx && x < sx + sq && y >= sy && y < sy + sq;
      guint h = (guint) (x * 7 + y * 13) ^ (guint) (x * y);
      p[0] = in ? 255 : (guint8) (h % 160);
      p[1] = in ? 255 : (guint8) ((h >> 3) % 160);
      p[2] = in ? 255 : (guint8) ((x * 3 + y) % 160);
      p[3] = 255;
    }
  GstBuffer *sbuf = gst_buffer_new_wrapped (src, (gsize) width * height * 4);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&out), NULL);
  gst_buffer_memset (buf, 0, 0xa5, GST_VIDEO_INFO_SIZE (&out));   /* garbage in the padding */
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT (&out),
      width, height, GST_VIDEO_INFO_N_PLANES (&out), out.offset, out.stride);
  GstVideoFrame sf, df;
  fail_unless (gst_video_frame_map (&sf, &rgba, sbuf, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&df, &out, buf, GST_MAP_WRITE));
  GstVideoConverter *conv = gst_video_converter_new (&rgba, &out,
      gst_structure_new ("options", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
          GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
          GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, 1, NULL));
  gst_video_converter_frame (conv, &sf, &df);
  gst_video_converter_free (conv);
  gst_video_frame_unmap (&df);
  gst_video_frame_unmap (&sf);
  gst_buffer_unref (sbuf);
  GST_BUFFER_PTS (buf) = index * (GST_SECOND / 30);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static void
assert_same_flow_meta (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  GstCvFlowMeta *ma = gst_buffer_get_cv_flow_meta (a), *mb = gst_buffer_get_cv_flow_meta (b);
  fail_unless ((ma == NULL) == (mb == NULL), "%s: flow meta on one output only", what);
  if (!ma)
    return;
  fail_unless (ma->grid_width == mb->grid_width && ma->grid_height == mb->grid_height
      && ma->valid == mb->valid, "%s: flow meta %ux%u valid %d vs %ux%u valid %d", what,
      ma->grid_width, ma->grid_height, ma->valid, mb->grid_width, mb->grid_height, mb->valid);
  const gfloat *uva, *uvb, *ca, *cb;
  gsize sua, sub, sca, scb;
  fail_unless (gst_cv_flow_meta_map_host (ma, &uva, &sua, &ca, &sca));
  fail_unless (gst_cv_flow_meta_map_host (mb, &uvb, &sub, &cb, &scb));
  for (guint y = 0; y < ma->grid_height; y++) {
    fail_unless (memcmp ((const guint8 *) uva + y * sua, (const guint8 *) uvb + y * sub,
            ma->grid_width * 2 * sizeof (gfloat)) == 0, "%s: flow row %u differs", what, y);
    fail_unless (memcmp ((const guint8 *) ca + y * sca, (const guint8 *) cb + y * scb,
            ma->grid_width * sizeof (gfloat)) == 0, "%s: confidence row %u differs", what, y);
  }
}

static void
assert_same_roi_metas (GstBuffer * a, GstBuffer * b, const gchar * what)
{
  gpointer sa = NULL, sb = NULL;
  GstVideoRegionOfInterestMeta *ra, *rb;
  for (;;) {
    ra = (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (a, &sa,
        GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
    rb = (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (b, &sb,
        GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
    fail_unless ((ra == NULL) == (rb == NULL), "%s: a different number of roi metas", what);
    if (!ra)
      return;
    fail_unless (ra->roi_type == rb->roi_type && ra->x == rb->x && ra->y == rb->y
        && ra->w == rb->w && ra->h == rb->h, "%s: roi %u,%u %ux%u vs %u,%u %ux%u", what,
        ra->x, ra->y, ra->w, ra->h, rb->x, rb->y, rb->w, rb->h);
  }
}

void
cv_assert_same_output (GstBuffer * a, GstBuffer * b, const gchar * format, int width,
    int height, const gchar * what)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), width, height);
  GstVideoFrame fa, fb;
  /* with a GstVideoMeta on the buffer, the frame takes its strides and offsets */
  fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ), "%s: map", what);
  fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ), "%s: map", what);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comp);
    gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0])
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    if (GST_VIDEO_FRAME_N_PLANES (&fa) == 2 && p == 1)
      row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, 1) * 2;   /* NV12: interleaved UV */
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]); y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      if (memcmp (ra, rb, row) != 0) {
        gsize x = 0;
        while (ra[x] == rb[x])
          x++;
        fail ("%s: %s %dx%d plane %u row %d byte %zu: %u vs %u", what, format, width, height,
            p, y, x, ra[x], rb[x]);
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  assert_same_flow_meta (a, b, what);
  assert_same_roi_metas (a, b, what);
}

GstBus *
cv_harness_bus (GstHarness * h)
{
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  return bus;
}

void
cv_assert_no_error (GstBus * bus, const gchar * what)
{
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    fail ("%s: error from %s: %s (%s)", what, GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        err->message, dbg ? dbg : "");
  }
}

void
cv_harness_teardown (GstHarness * h, GstBus * bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}
