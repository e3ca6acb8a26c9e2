/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFlowMtd: an optical-flow field as an analytics mtd (GStreamer 1.26+), beside
 * the GstCvFlowMeta that cudaflowlk and cudablockmatch attach to the same buffer.
 * A proposal for an upstream flow type (docs/analytics.md): the analytics library
 * has boxes, tracks, classes, segmentation and tensors, but no motion field.
 *
 * An application reads it from the buffer's GstAnalyticsRelationMeta as it reads
 * boxes:
 *
 *   GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
 *   GstAnalyticsMtd mtd;
 *   gpointer state = NULL;
 *   while (rmeta && gst_analytics_relation_meta_iterate (rmeta, &state,
 *           gst_cv_flow_mtd_get_mtd_type (), &mtd)) {
 *     guint gw, gh, cw, ch;
 *     const gfloat *uv;
 *     gsize stride;
 *     gst_cv_flow_mtd_get_grid (&mtd, &gw, &gh, &cw, &ch);
 *     if (gst_cv_flow_mtd_map_host (&mtd, &uv, &stride, NULL, NULL)) {
 *       // cell (x, y) covers frame pixels [x cw, (x + 1) cw) x [y ch, (y + 1) ch);
 *       // its motion in frame pixels: uv[y * stride / 4 + 2 * x + {0, 1}]
 *     }
 *   }
 *
 * The mtd holds a reference on the element's pooled field (no copy per frame; on
 * CUDA the vectors stay in device memory and the host view is downloaded on first
 * use, shared with GstCvFlowMeta's). Copies of the buffer share the field. A scaled
 * copy keeps the vectors and cells in the pixels of the frame they were computed on
 * (gst_cv_flow_mtd_get_frame_size says which). */
#ifndef GST_CV_FLOW_MTD_H
#define GST_CV_FLOW_MTD_H

#include <gst/gst.h>
#include <gst/analytics/analytics.h>
#include "gstcvflowmeta.h"

G_BEGIN_DECLS

#if GST_CHECK_VERSION(1, 26, 0)

typedef GstAnalyticsMtd GstCvFlowMtd;

/* The type (name "cv-flow") for gst_analytics_relation_meta_iterate and _get_mtd. */
GstAnalyticsMtdType gst_cv_flow_mtd_get_mtd_type (void);
/* Fills `rlt` when mtd `an_meta_id` of `meta` is a flow mtd. */
gboolean gst_analytics_relation_meta_get_cv_flow_mtd (GstAnalyticsRelationMeta * meta,
    guint an_meta_id, GstCvFlowMtd * rlt);

/* Vectors per row / column, and frame pixels per cell (1 x 1 when dense). */
gboolean gst_cv_flow_mtd_get_grid (const GstCvFlowMtd * mtd, guint * grid_width,
    guint * grid_height, guint * cell_width, guint * cell_height);
/* The size of the frame the field was computed on (its pixels are the units). */
gboolean gst_cv_flow_mtd_get_frame_size (const GstCvFlowMtd * mtd, guint * width,
    guint * height);
/* What the confidence plane holds, and whether the field is valid (FALSE on a
 * stream's first frame: zero vectors). */
gboolean gst_cv_flow_mtd_get_info (const GstCvFlowMtd * mtd,
    GstCvFlowConfidence * confidence, gboolean * valid);
/* Host view of the vectors (u, v float pairs) and confidence (float); strides in
 * bytes; any output may be NULL. The same memory as gst_cv_flow_meta_map_host of the
 * buffer's GstCvFlowMeta. FALSE if a download failed. */
gboolean gst_cv_flow_mtd_map_host (const GstCvFlowMtd * mtd, const gfloat ** vectors,
    gsize * vectors_stride, const gfloat ** confidence, gsize * confidence_stride);
/* Device pointers when the field lives in CUDA memory (FALSE otherwise). */
gboolean gst_cv_flow_mtd_get_device (const GstCvFlowMtd * mtd, gconstpointer * vectors,
    gsize * vectors_stride, gconstpointer * confidence, gsize * confidence_stride);

#endif

G_END_DECLS
#endif
