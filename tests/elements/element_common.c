#include "element_common.h"
#include "cv_imageio.h"
#include "cv_synth.h"
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
