/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal to the plugin: the one place where elements attach their results as
 * GStreamer analytics mtds (gstreamer-analytics-1.0; docs/analytics.md). Every call
 * exists in every build: without the library (GStreamer 1.22) or below the version
 * a mtd needs, it attaches only what it did before (or nothing) and returns TRUE.
 *
 * All mtds of a buffer go into its one GstAnalyticsRelationMeta: taken from the
 * buffer when upstream attached one (ours are appended; upstream's mtds and
 * relations stay), added otherwise, sized for what is attached. */
#ifndef GST_CV_ANALYTICS_H
#define GST_CV_ANALYTICS_H

#include "gstcvconfig.h"
#include "gstcvfilter.h"
#include "gstcvflowfield.h"
#include <cudacore/cc_moct.h>
#if CV_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

G_BEGIN_DECLS

/* ---- flow (cudaflowlk, cudablockmatch, cudaflowepic) */

/* Adds the GstCvFlowMeta (takes the field reference) and, on 1.26+, a GstCvFlowMtd
 * sharing the field (gstcvflowmtd.h). Returns the flow meta (NULL on failure). */
GstCvFlowMeta *gst_cv_flow_attach (GstCvFilter * filter, GstBuffer * buffer,
    GstCvFlowField * field, guint cell_width, guint cell_height,
    GstCvFlowConfidence confidence, gboolean valid);

/* ---- tracks (moctracker) */

/* Per object slot: when its track started and was last seen, across frames. */
typedef struct _GstCvTracks GstCvTracks;

GstCvTracks *gst_cv_tracks_new (void);
void gst_cv_tracks_free (GstCvTracks * tracks);
/* Forgets every track (a stream reset): the next frame starts them anew. */
void gst_cv_tracks_reset (GstCvTracks * tracks);
/* 1.24+: per present object a GstAnalyticsODMtd (its box, type = the quark of its
 * name, confidence 1) and a GstAnalyticsTrackingMtd (tracking id = its index, the
 * ROI meta's id; first seen = the running time of the frame its track started,
 * last seen = this frame's) related to it (od RELATE_TO tracking, as upstream's
 * ioutracker); per object present in the previous frame and absent now a tracking
 * mtd alone, lost, last seen = the last frame it was present. A slot whose name
 * changed restarts. Times are running times of the buffers' PTS in `segment`. */
gboolean gst_cv_tracks_attach (GstCvTracks * tracks, const GstSegment * segment,
    GstBuffer * buffer, const cc_moct_object * objects, const cc_moct_result * results, gint n);

/* ---- segmentation masks (quadcut) */

/* GRAY8 mask buffers of one frame size from a pool (no allocation per frame once
 * the pool has grown), attached as a GstAnalyticsSegmentationMtd (1.26+). On the
 * CUDA backend with a GstCudaContext the buffers are CUDA memory on the element's
 * GstCudaStream, handed on as the element's frames are (gstcvhandoff.h: NEED_SYNC;
 * a host reader's map downloads it); otherwise system memory. */
typedef struct _GstCvMaskOut GstCvMaskOut;

/* NULL where the segmentation mtd does not exist (below 1.26). [in] ctx: the
 * element's core context; [in] cuda_context, cuda_stream: its GstCudaContext and
 * GstCudaStream (gst_cv_filter_get_cuda_context/_stream), or NULL for system memory
 * (a device scratch and a copy per frame on CUDA backends). */
GstCvMaskOut *gst_cv_mask_out_new (cc_context * ctx, gpointer cuda_context,
    gpointer cuda_stream, gint width, gint height);
void gst_cv_mask_out_free (GstCvMaskOut * out);
/* Where the element writes the frame's GRAY8 mask (where its backend computes),
 * or NULL (no pool: nothing to attach, or a buffer could not be had). */
cc_image *gst_cv_mask_out_begin (GstCvMaskOut * out);
/* After begin: when ok, attaches the mask as a semantic segmentation mtd covering
 * the frame, region ids `region_ids` (the mask's values); otherwise drops it. */
gboolean gst_cv_mask_out_finish (GstCvMaskOut * out, GstBuffer * buffer, gboolean ok,
    const guint * region_ids, gsize n_regions);

#if CV_HAVE_ANALYTICS
/* The buffer's relation meta, added (sized for n_mtds more) when there is none. */
GstAnalyticsRelationMeta *gst_cv_analytics_relation_meta (GstBuffer * buffer, gsize n_mtds);
#if GST_CHECK_VERSION(1, 26, 0)
gboolean gst_cv_analytics_add_flow_mtd (GstAnalyticsRelationMeta * rmeta,
    GstCvFlowField * field, guint frame_width, guint frame_height, guint cell_width,
    guint cell_height, GstCvFlowConfidence confidence, gboolean valid, GstAnalyticsMtd * out);
#endif
#endif

G_END_DECLS
#endif
