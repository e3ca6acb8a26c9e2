/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvflowelement.h"
#include "gstcvanalytics.h"

gboolean
gst_cv_flow_element_set_property (GstObject * owner, GstCvFlowVis * vis, guint vis_first,
    GstCvRefine * refine, guint refine_first, guint prop_id, const GValue * value)
{
  GST_OBJECT_LOCK (owner);
  gboolean mine = (refine && gst_cv_refine_set_property (refine, refine_first, prop_id, value))
      || gst_cv_flow_vis_set_property (vis, vis_first, prop_id, value);
  GST_OBJECT_UNLOCK (owner);
  return mine;
}

gboolean
gst_cv_flow_element_get_property (GstObject * owner, GstCvFlowVis * vis, guint vis_first,
    GstCvRefine * refine, guint refine_first, guint prop_id, GValue * value)
{
  GST_OBJECT_LOCK (owner);
  gboolean mine = (refine && gst_cv_refine_get_property (refine, refine_first, prop_id, value))
      || gst_cv_flow_vis_get_property (vis, vis_first, prop_id, value);
  GST_OBJECT_UNLOCK (owner);
  return mine;
}

GstCvFieldPool *
gst_cv_flow_element_pool_new (GstCvFilter * filter, int grid_width, int grid_height)
{
  GstCvFieldPool *pool = gst_cv_field_pool_new (filter, grid_width, grid_height);
  if (!pool)
    GST_ELEMENT_ERROR (filter, RESOURCE, NO_SPACE_LEFT, ("cannot create the flow field pool"),
        ("%s", cc_last_error ()));
  return pool;
}

cc_status
gst_cv_flow_frame_begin (GstCvFlowFrame * f, GstCvFieldPool * pool, const gchar ** what)
{
  *what = "allocating a flow field";
  f->field = gst_cv_field_pool_acquire (pool);
  if (!f->field)
    return CC_ERROR_OUT_OF_MEMORY;
  f->vectors = gst_cv_flow_field_vectors (f->field);
  f->confidence = gst_cv_flow_field_confidence (f->field);
  return CC_SUCCESS;
}

cc_status
gst_cv_flow_frame_zero (GstCvFlowFrame * f, GstCvFilter * filter, cc_stream stream)
{
  cc_context *ctx = gst_cv_filter_get_context (filter);
  cc_status st = cc_image_fill (ctx, stream, f->vectors, 0);
  if (st == CC_SUCCESS)
    st = cc_image_fill (ctx, stream, f->confidence, 0);
  return st;
}

cc_status
gst_cv_flow_frame_finish (GstCvFlowFrame * f, cc_status st, GstCvFilter * filter,
    GstBuffer * buffer, cc_stream stream, cc_image * frame, GstCvFlowVis * vis,
    const GstCvFlowFrameEnd * end, const gchar ** what)
{
  if (st == CC_SUCCESS && end->keep_frame)
    st = gst_cv_filter_keep_frame_status (filter, frame, what);
  if (st == CC_SUCCESS)
    st = gst_cv_flow_vis_draw (vis, filter, stream, f->vectors, f->confidence,
        end->min_confidence, end->quality_scale, frame, what);
  if (st != CC_SUCCESS) {
    gst_cv_flow_field_unref (f->field);
    f->field = NULL;
    return st;
  }
  *what = end->name;
  gst_cv_flow_attach (filter, buffer, f->field, end->cell_width, end->cell_height,
      end->confidence, end->valid);
  f->field = NULL;   /* the meta holds it */
  return CC_SUCCESS;
}
