/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The flow elements' drawing: the `visualize`, `max-magnitude` and `arrow-spacing`
 * properties (installed by one call) and the per-frame draw. */
#ifndef GST_CV_FLOW_VIS_H
#define GST_CV_FLOW_VIS_H

#include "gstcvfilter.h"
#include <cudacore/cc_flow_vis.h>

G_BEGIN_DECLS

typedef enum {
  GST_CV_VISUALIZE_NONE = 0,
  GST_CV_VISUALIZE_COLOR,
  GST_CV_VISUALIZE_ARROWS,
  GST_CV_VISUALIZE_QUALITY,
} GstCvVisualize;

enum { GST_CV_VIS_PROP_MODE = 0, GST_CV_VIS_PROP_MAX_MAGNITUDE, GST_CV_VIS_PROP_SPACING,
  GST_CV_VIS_N_PROPS };

typedef struct {
  GstCvVisualize mode;
  cc_flow_vis_params params;
} GstCvFlowVis;

void gst_cv_flow_vis_init (GstCvFlowVis * v);
/* with_quality: offer visualize=quality (a confidence in [0, 1]). */
void gst_cv_flow_vis_install_properties (GObjectClass * klass, guint first_id,
    gboolean with_quality);
gboolean gst_cv_flow_vis_set_property (GstCvFlowVis * v, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_cv_flow_vis_get_property (GstCvFlowVis * v, guint first_id, guint prop_id,
    GValue * value);
/* TRUE when the current mode draws; takes `owner`'s object lock (the element that
 * holds `v`), so a subclass's writes_frame is this one call. */
gboolean gst_cv_flow_vis_draws (GstObject * owner, const GstCvFlowVis * v);
/* Draws `flow` (+ confidence) into `frame` on `stream` with a snapshot of the
 * settings taken under the lock; min_confidence: cells under it are drawn still. A
 * failure sets *what for the base's frame error (process() returns it). */
cc_status gst_cv_flow_vis_draw (GstCvFlowVis * v, GstCvFilter * filter, cc_stream stream,
    const cc_image * flow, const cc_image * confidence, float min_confidence,
    float quality_scale, cc_image * frame, const gchar ** what);

G_END_DECLS
#endif
