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

gboolean
cv_have_cuda_elements (const gchar * name)
{
  if (cc_cuda_device_count () == 0) {
    g_print ("SKIP %s: no CUDA device\n", name);
    return FALSE;
  }
  GstElementFactory *f = gst_element_factory_find ("cudaupload");
  if (!f) {
    g_print ("SKIP %s: nvcodec's cudaupload is not installed\n", name);
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
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
      const gfloat *v = (const gfloat *) ((const guint8 *) uv + y * uv_stride) + 2 * x;
      const gfloat *c = (const gfloat *) ((const guint8 *) conf + y * conf_stride) + x;
      *max_vec = MAX (*max_vec, MAX (fabs (v[0]) * meta->cell_width,
              fabs (v[1]) * meta->cell_height));
      *max_conf = MAX (*max_conf, fabs (*c));
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
