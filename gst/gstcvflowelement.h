/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the flow elements (cudaflowlk, cudablockmatch, cudaflowepic) share around their
 * own computation: the `visualize` and refine-* properties dispatched under the object
 * lock, the pool of the fields they attach (made in setup()), and the two ends of
 * process(): a field from the pool, then keeping the frame, drawing and attaching. */
#ifndef GST_CV_FLOW_ELEMENT_H
#define GST_CV_FLOW_ELEMENT_H

#include "gstcvfilter.h"
#include "gstcvflowfield.h"
#include "gstcvflowvis.h"
#include "gstcvrefine.h"

G_BEGIN_DECLS

/* set_property/get_property: TRUE when prop_id is one of the drawing properties (ids
 * from vis_first) or, with `refine` (NULL: the element has none), of the refinement
 * (ids from refine_first); each takes `owner`'s object lock itself. */
gboolean gst_cv_flow_element_set_property (GstObject * owner, GstCvFlowVis * vis,
    guint vis_first, GstCvRefine * refine, guint refine_first, guint prop_id,
    const GValue * value);
gboolean gst_cv_flow_element_get_property (GstObject * owner, GstCvFlowVis * vis,
    guint vis_first, GstCvRefine * refine, guint refine_first, guint prop_id,
    GValue * value);

/* setup(): the pool of grid_width x grid_height fields the element attaches; NULL
 * after posting the element error. */
GstCvFieldPool *gst_cv_flow_element_pool_new (GstCvFilter * filter, int grid_width,
    int grid_height);

/* One frame's field, filled by the element between begin and finish. */
typedef struct {
  GstCvFlowField *field;
  cc_image *vectors, *confidence;
} GstCvFlowFrame;

/* How a frame's field ends: drawn (gst_cv_flow_vis_draw) and attached
 * (gst_cv_flow_attach). */
typedef struct {
  gboolean keep_frame;        /* keep the frame as the next one's previous, before drawing */
  float min_confidence;       /* drawing: cells under it are drawn still */
  float quality_scale;        /* drawing: the confidence shown white (visualize=quality) */
  guint cell_width, cell_height;
  GstCvFlowConfidence confidence;
  gboolean valid;             /* the field is a motion (FALSE on the stream's first frame) */
  const gchar *name;          /* *what on success: the name the hand-off fails with */
} GstCvFlowFrameEnd;

/* process(): takes a field from `pool` into `f`; a failure returns with *what set. */
cc_status gst_cv_flow_frame_begin (GstCvFlowFrame * f, GstCvFieldPool * pool,
    const gchar ** what);
/* Zero vectors and confidence (no previous frame) on `stream`. */
cc_status gst_cv_flow_frame_zero (GstCvFlowFrame * f, GstCvFilter * filter,
    cc_stream stream);
/* The end of process(), `st` being the computation's status: on success keeps the
 * frame (end->keep_frame), draws the field with `vis` and attaches it to `buffer`
 * (*what = end->name); on any failure the field goes back to its pool and the failing
 * status is returned with *what naming the work (NULL where an error was posted). */
cc_status gst_cv_flow_frame_finish (GstCvFlowFrame * f, cc_status st, GstCvFilter * filter,
    GstBuffer * buffer, cc_stream stream, cc_image * frame, GstCvFlowVis * vis,
    const GstCvFlowFrameEnd * end, const gchar ** what);

G_END_DECLS
#endif
