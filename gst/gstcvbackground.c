/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvbackground.h"
#include "gstcvimageio.h"
#include <string.h>

void
gst_cv_background_settings_init (GstCvBackgroundSettings * s)
{
  memset (s, 0, sizeof *s);
  s->kind = GST_CV_BACKGROUND_AUTO;
  s->color = 0x00B140;
  s->blur_radius = 15;
}

void
gst_cv_background_settings_clear (GstCvBackgroundSettings * s)
{
  g_clear_pointer (&s->location, g_free);
}

gboolean
gst_cv_background_start (GstCvBackground * bg, GstElement * element)
{
  GstCvBackgroundKind kind;
  gchar *location = NULL;
  g_object_get (element, "background", &kind, "background-location", &location, NULL);
  const gboolean missing = kind == GST_CV_BACKGROUND_IMAGE && !(location && *location);
  g_free (location);
  gst_cv_background_stop (bg);
  if (missing) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("background=image, but no "
            "background-location is set"), (NULL));
    return FALSE;
  }
  return gst_cv_image_load_property (element, "background-location", &bg->picture);
}

gboolean
gst_cv_background_setup (GstCvBackground * bg, GstCvFilter * filter, cc_context * ctx,
    const GstVideoInfo * info)
{
  return !bg->picture.planes[0] || gst_cv_image_convert_to_frame (filter, ctx, &bg->picture,
      info, GST_VIDEO_INFO_FORMAT (info), &bg->frame);
}

void
gst_cv_background_teardown (GstCvBackground * bg, cc_context * ctx)
{
  cc_image_free (ctx, &bg->frame);
}

void
gst_cv_background_stop (GstCvBackground * bg)
{
  cc_image_host_free (&bg->picture);
}

cc_background
gst_cv_background_get (const GstCvBackground * bg, const GstCvBackgroundSettings * s)
{
  cc_background out = { .kind = CC_BACKGROUND_COLOR, .r = (s->color >> 16) & 0xFF,
    .g = (s->color >> 8) & 0xFF, .b = s->color & 0xFF, .blur_radius = s->blur_radius };
  if (s->kind == GST_CV_BACKGROUND_BLUR)
    out.kind = CC_BACKGROUND_BLUR;
  else if ((s->kind == GST_CV_BACKGROUND_IMAGE || s->kind == GST_CV_BACKGROUND_AUTO)
      && bg->frame.planes[0]) {
    out.kind = CC_BACKGROUND_IMAGE;
    out.image = &bg->frame;
  }
  return out;
}
