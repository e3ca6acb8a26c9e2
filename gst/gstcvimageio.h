/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Image files named by element properties (quadcut's plate-location and
 * background-location): cudacore-imageio's readers with the failure posted on the
 * bus. A truncated or corrupt PNG or JPEG is an element error, never a half-decoded
 * picture. */
#ifndef GST_CV_IMAGEIO_H
#define GST_CV_IMAGEIO_H

#include <gst/gst.h>
#include <cudacore/cc_imageio.h>

G_BEGIN_DECLS

/* Reads a PNG or JPEG (cc_image_read) into a new host RGBX8 image (cc_image_host_free).
 * FALSE after posting an element error on `element` that names the property, the file
 * and what is wrong (RESOURCE NOT_FOUND: cannot open; RESOURCE READ: not a PNG or
 * JPEG, truncated, corrupt, too large); *out is then zeroed. */
gboolean gst_cv_image_load (GstElement * element, const gchar * property, const gchar * path,
    cc_image * out);

G_END_DECLS
#endif
