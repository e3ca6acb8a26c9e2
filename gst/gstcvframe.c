/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvframe.h"

gboolean
gst_cv_video_format_to_cc (GstVideoFormat f, cc_format * out)
{
  switch (f) {
    case GST_VIDEO_FORMAT_GRAY8: *out = CC_FORMAT_GRAY8; return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx: *out = CC_FORMAT_RGBX8; return TRUE;
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx: *out = CC_FORMAT_BGRX8; return TRUE;
    case GST_VIDEO_FORMAT_NV12: *out = CC_FORMAT_NV12; return TRUE;
    case GST_VIDEO_FORMAT_I420: *out = CC_FORMAT_I420; return TRUE;
    default: return FALSE;
  }
}

cc_image
gst_cv_video_frame_view (const GstVideoFrame * vf, cc_location loc)
{
  cc_image img = { 0 };
  cc_format fmt = CC_FORMAT_GRAY8;
  gst_cv_video_format_to_cc (GST_VIDEO_FRAME_FORMAT (vf), &fmt);
  img.width = GST_VIDEO_FRAME_WIDTH (vf);
  img.height = GST_VIDEO_FRAME_HEIGHT (vf);
  img.format = fmt;
  img.location = loc;
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (vf) && i < CC_MAX_PLANES; i++) {
    img.planes[i] = GST_VIDEO_FRAME_PLANE_DATA (vf, i);
    img.pitch[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, i);
  }
  return img;
}
