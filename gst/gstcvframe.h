/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GStreamer video formats and mapped frames as cudacore images: the formats of
 * GstCvFilter's caps and their cc_format, and a cc_image view of a frame's planes. */
#ifndef GST_CV_FRAME_H
#define GST_CV_FRAME_H

#include <gst/video/video.h>
#include <cudacore/cc_core.h>

G_BEGIN_DECLS

/* The cc_format of a GStreamer video format: TRUE for GRAY8, RGBA / RGBx (RGBX8),
 * BGRA / BGRx (BGRX8), NV12 and I420; FALSE (and *out unchanged) for any other. */
gboolean gst_cv_video_format_to_cc (GstVideoFormat format, cc_format * out);

/* A cudacore view of a mapped video frame's planes (formats of GstCvFilter's caps;
 * others come out as GRAY8). */
cc_image gst_cv_video_frame_view (const GstVideoFrame * vf, cc_location location);

G_END_DECLS

#endif
