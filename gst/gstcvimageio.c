/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvimageio.h"
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
