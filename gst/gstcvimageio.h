/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Image files named by element properties (quadcut's plate-location and
 * background-location): cudacore-imageio's readers with the failure posted on the
 * bus, and the conversion of such a picture to the frames' size and format (scaled
 * with a warning where the picture is a reference for the frames). A
 * truncated or corrupt PNG or JPEG is an element error, never a half-decoded
 * picture. */
#ifndef GST_CV_IMAGEIO_H
#define GST_CV_IMAGEIO_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <cudacore/cc_imageio.h>
#include "gstcvfilter.h"

G_BEGIN_DECLS

/* Reads a PNG or JPEG (cc_image_read) into a new host RGBX8 image (cc_image_host_free).
 * FALSE after posting an element error on `element` that names the property, the file
 * and what is wrong (RESOURCE NOT_FOUND: cannot open; RESOURCE READ: not a PNG or
 * JPEG, truncated, corrupt, too large); *out is then zeroed. */
gboolean gst_cv_image_load (GstElement * element, const gchar * property, const gchar * path,
    cc_image * out);

/* The file named by the string property `property` of `element`: gst_cv_image_load's
 * image when the property is set (not NULL, not empty); unset, *out zeroed and TRUE. */
gboolean gst_cv_image_load_property (GstElement * element, const gchar * property,
    cc_image * out);

/* A host RGBX8 image (any size) scaled and converted by GstVideoConverter (bilinear,
 * no dithering) to `format` at the frame's size (frame_info's, whose colorimetry a YUV
 * format takes) into a new image at `location` (dst: free with cc_image_free on ctx).
 * The copy runs on `stream` and waits for it (its source is on the host).
 * FALSE after posting an element error on `element`: the converter or a mapping
 * failed (CORE FAILED), or the core did (LIBRARY FAILED, the core's message); *dst is
 * then unset. */
gboolean gst_cv_image_convert (GstElement * element, cc_context * ctx, cc_stream stream,
    cc_location location, const cc_image * src, const GstVideoInfo * frame_info,
    GstVideoFormat format, cc_image * dst);
/* gst_cv_image_convert for a GstCvFilter's frames: on the filter's stream, to where
 * it computes (gst_cv_filter_get_location); for its setup on `ctx`. */
gboolean gst_cv_image_convert_to_frame (GstCvFilter * filter, cc_context * ctx,
    const cc_image * src, const GstVideoInfo * frame_info, GstVideoFormat format,
    cc_image * dst);

/* A reference for the frames (a background plate: host RGBX8 of any size; without
 * planes: none) as a new host RGBA image of the frame's size (gst_cv_image_convert on
 * the filter's stream; dst: free with cc_image_free on ctx; zeroed when there is
 * none). A picture of another size is scaled with a warning on the bus, STREAM FORMAT
 * "the <what> is WxH, the frames WxH: the <what> is scaled", `hint` its detail.
 * FALSE after posting gst_cv_image_convert's error. */
gboolean gst_cv_image_reference_to_frame (GstCvFilter * filter, cc_context * ctx,
    const cc_image * src, const GstVideoInfo * frame_info, const gchar * what,
    const gchar * hint, cc_image * dst);

G_END_DECLS
#endif
