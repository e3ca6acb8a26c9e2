/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvimageio.h"
#include "gstcvfilter.h"
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (cv_imageio_debug);
#define GST_CAT_DEFAULT cv_imageio_debug

gboolean
gst_cv_image_load (GstElement * element, const gchar * property, const gchar * path,
    cc_image * out)
{
  static gsize init = 0;
  if (g_once_init_enter (&init)) {
    GST_DEBUG_CATEGORY_INIT (cv_imageio_debug, "cvimageio", 0, "cudavision image files");
    g_once_init_leave (&init, 1);
  }
  cc_status st = cc_image_read (path, out);
  if (st == CC_SUCCESS) {
    GST_DEBUG_OBJECT (element, "%s: %s, %dx%d", property, path, out->width, out->height);
    return TRUE;
  }
  memset (out, 0, sizeof *out);
  if (st == CC_ERROR_IO)
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("%s: cannot open \"%s\"", property, path),
        ("%s", cc_last_error ()));
  else if (st == CC_ERROR_NOT_SUPPORTED)
    GST_ELEMENT_ERROR (element, RESOURCE, READ, ("%s: \"%s\" is neither a PNG nor a JPEG image",
            property, path), (NULL));
  else
    GST_ELEMENT_ERROR (element, RESOURCE, READ, ("%s: cannot read the image \"%s\": %s",
            property, path, cc_last_error ()), ("%s", cc_status_name (st)));
  return FALSE;
}

gboolean
gst_cv_image_load_property (GstElement * element, const gchar * property, cc_image * out)
{
  gchar *path = NULL;
  g_object_get (element, property, &path, NULL);
  gboolean ok = TRUE;
  if (path && *path)
    ok = gst_cv_image_load (element, property, path, out);
  else
    memset (out, 0, sizeof *out);
  g_free (path);
  return ok;
}

/* Copies the converted frame where the backend computes (the copy from the host
 * waits for the stream: the frame's buffer may go after it). */
static gboolean
upload (GstElement * element, cc_context * ctx, cc_stream stream, cc_location location,
    const GstVideoFrame * converted, cc_image * dst)
{
  cc_image host = gst_cv_video_frame_view (converted, CC_LOCATION_HOST);
  cc_status st = cc_image_alloc (ctx, host.width, host.height, host.format, location, dst);
  if (st == CC_SUCCESS && (st = cc_image_copy (ctx, stream, &host, dst)) != CC_SUCCESS)
    cc_image_free (ctx, dst);
  if (st != CC_SUCCESS)
    GST_CV_FILTER_CORE_ERROR (element, st, "preparing an image for the frame");
  return st == CC_SUCCESS;
}

gboolean
gst_cv_image_convert (GstElement * element, cc_context * ctx, cc_stream stream,
    cc_location location, const cc_image * src, const GstVideoInfo * frame_info,
    GstVideoFormat format, cc_image * dst)
{
  GstVideoInfo sinfo, dinfo;
  gst_video_info_set_format (&sinfo, GST_VIDEO_FORMAT_RGBA, src->width, src->height);
  sinfo.stride[0] = (gint) src->pitch[0];
  sinfo.size = src->pitch[0] * src->height;
  gst_video_info_set_format (&dinfo, format, GST_VIDEO_INFO_WIDTH (frame_info),
      GST_VIDEO_INFO_HEIGHT (frame_info));
  if (GST_VIDEO_INFO_IS_YUV (&dinfo))
    dinfo.colorimetry = frame_info->colorimetry;
  GstBuffer *sbuf = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, src->planes[0],
      sinfo.size, 0, sinfo.size, NULL, NULL);
  GstBuffer *dbuf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&dinfo), NULL);
  GstVideoFrame sf, df;
  gboolean ok = FALSE, mapped = FALSE;
  if (gst_video_frame_map (&sf, &sinfo, sbuf, GST_MAP_READ)) {
    if (gst_video_frame_map (&df, &dinfo, dbuf, GST_MAP_WRITE)) {
      mapped = TRUE;
      /* bilinear, no dithering: the picture is a reference (a plate), and a flat colour
       * stays flat (the default cubic taps overshoot it by up to 3 levels in places) */
      GstStructure *config = gst_structure_new ("GstVideoConverter",
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD,
          GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR, NULL);
      GstVideoConverter *conv = gst_video_converter_new (&sinfo, &dinfo, config);
      if (conv) {
        gst_video_converter_frame (conv, &sf, &df);
        gst_video_converter_free (conv);
        ok = upload (element, ctx, stream, location, &df, dst);
      } else {
        GST_ELEMENT_ERROR (element, CORE, FAILED, ("cannot convert an image to the frame's "
                "%s", gst_video_format_to_string (format)), (NULL));
      }
      gst_video_frame_unmap (&df);
    }
    gst_video_frame_unmap (&sf);
  }
  if (!mapped)
    GST_ELEMENT_ERROR (element, CORE, FAILED, ("cannot map a %dx%d image for the conversion "
            "to the frame", src->width, src->height), (NULL));
  gst_buffer_unref (sbuf);
  gst_buffer_unref (dbuf);
  return ok;
}

gboolean
gst_cv_image_convert_to_frame (GstCvFilter * filter, cc_context * ctx, const cc_image * src,
    const GstVideoInfo * frame_info, GstVideoFormat format, cc_image * dst)
{
  return gst_cv_image_convert (GST_ELEMENT (filter), ctx, gst_cv_filter_get_stream (filter),
      gst_cv_filter_get_location (filter), src, frame_info, format, dst);
}

gboolean
gst_cv_image_reference_to_frame (GstCvFilter * filter, cc_context * ctx, const cc_image * src,
    const GstVideoInfo * frame_info, const gchar * what, const gchar * hint, cc_image * dst)
{
  const int w = GST_VIDEO_INFO_WIDTH (frame_info), h = GST_VIDEO_INFO_HEIGHT (frame_info);
  memset (dst, 0, sizeof *dst);
  if (!src->planes[0])
    return TRUE;
  if (src->width != w || src->height != h)
    GST_ELEMENT_WARNING (filter, STREAM, FORMAT, ("the %s is %dx%d, the frames %dx%d: the "
            "%s is scaled", what, src->width, src->height, w, h, what), ("%s", hint));
  return gst_cv_image_convert (GST_ELEMENT (filter), ctx, gst_cv_filter_get_stream (filter),
      CC_LOCATION_HOST, src, frame_info, GST_VIDEO_FORMAT_RGBA, dst);
}
