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

GstCvBackgroundKind
gst_cv_background_pick (const GstCvBackground * bg, const GstCvBackgroundSettings * s,
    const cc_image ** image)
{
  *image = NULL;
  if (s->kind == GST_CV_BACKGROUND_BLUR)
    return GST_CV_BACKGROUND_BLUR;
  if ((s->kind == GST_CV_BACKGROUND_IMAGE || s->kind == GST_CV_BACKGROUND_AUTO)
      && bg->frame.planes[0]) {
    *image = &bg->frame;
    return GST_CV_BACKGROUND_IMAGE;
  }
  return GST_CV_BACKGROUND_COLOR;
}
