/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFlowMtd: the flow field as an analytics mtd (registered through the public
 * GstAnalyticsMtdImpl; 1.26+, which calls mtd_meta_clear so the mtd can hold a
 * reference on the pooled field). Compiled empty without the analytics library. */
#include "gstcvconfig.h"
#include "gstcvanalytics.h"

#if CV_HAVE_ANALYTICS && GST_CHECK_VERSION(1, 26, 0)
#include "gstcvflowmtd.h"
#include "gstcvflowfield.h"
#include <gst/video/video.h>

/* What the relation meta stores per flow mtd (copied bytewise with the meta). */
typedef struct {
  guint grid_width, grid_height;
  guint cell_width, cell_height;
  guint frame_width, frame_height;
  GstCvFlowConfidence confidence;
  gboolean valid;
  GstCvFlowField *field;          /* a reference, dropped by flow_mtd_clear */
} FlowMtdData;

static gboolean flow_mtd_transform (GstBuffer * transbuf, GstAnalyticsMtd * transmtd,
    GstBuffer * buffer, GQuark type, gpointer data);
static void flow_mtd_clear (GstBuffer * buffer, GstAnalyticsMtd * mtd);

static const GstAnalyticsMtdImpl flow_impl = {
  .name = "cv-flow",
  .mtd_meta_transform = flow_mtd_transform,
  .mtd_meta_clear = flow_mtd_clear,
};

GstAnalyticsMtdType
gst_cv_flow_mtd_get_mtd_type (void)
{
  return (GstAnalyticsMtdType) & flow_impl;
}

static FlowMtdData *
flow_data (const GstCvFlowMtd * mtd)
{
  g_return_val_if_fail (mtd && mtd->meta, NULL);
  if (gst_analytics_mtd_get_mtd_type (mtd) != gst_cv_flow_mtd_get_mtd_type ())
    return NULL;
  return gst_analytics_relation_meta_get_mtd_data (mtd->meta, mtd->id);
}

/* The relation meta has already copied the bytes (field pointer included) into the
 * new meta: the copy takes its own reference, whatever the transform. A scaled copy
 * keeps the field in the pixels of the frame it was computed on (frame_width,
 * frame_height say which). */
static gboolean
flow_mtd_transform (GstBuffer * transbuf, GstAnalyticsMtd * transmtd, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  FlowMtdData *d = gst_analytics_relation_meta_get_mtd_data (transmtd->meta, transmtd->id);
  if (d && d->field && transbuf != buffer)
    gst_cv_flow_field_ref (d->field);
  return TRUE;
}

static void
flow_mtd_clear (GstBuffer * buffer, GstAnalyticsMtd * mtd)
{
  FlowMtdData *d = gst_analytics_relation_meta_get_mtd_data (mtd->meta, mtd->id);
  if (d && d->field) {
    gst_cv_flow_field_unref (d->field);
    d->field = NULL;
  }
}

gboolean
gst_cv_analytics_add_flow_mtd (GstAnalyticsRelationMeta * rmeta, GstCvFlowField * field,
    guint frame_width, guint frame_height, guint cell_width, guint cell_height,
    GstCvFlowConfidence confidence, gboolean valid, GstAnalyticsMtd * out)
{
  GstAnalyticsMtd mtd;
  FlowMtdData *d = gst_analytics_relation_meta_add_mtd (rmeta, &flow_impl,
      sizeof (FlowMtdData), &mtd);
  if (!d)
    return FALSE;
  d->grid_width = (guint) gst_cv_flow_field_vectors (field)->width;
  d->grid_height = (guint) gst_cv_flow_field_vectors (field)->height;
  d->cell_width = cell_width;
  d->cell_height = cell_height;
  d->frame_width = frame_width;
  d->frame_height = frame_height;
  d->confidence = confidence;
  d->valid = valid;
  d->field = gst_cv_flow_field_ref (field);
  if (out)
    *out = mtd;
  return TRUE;
}

gboolean
gst_analytics_relation_meta_get_cv_flow_mtd (GstAnalyticsRelationMeta * meta,
    guint an_meta_id, GstCvFlowMtd * rlt)
{
  return gst_analytics_relation_meta_get_mtd (meta, an_meta_id,
      gst_cv_flow_mtd_get_mtd_type (), rlt);
}

gboolean
gst_cv_flow_mtd_get_grid (const GstCvFlowMtd * mtd, guint * grid_width, guint * grid_height,
    guint * cell_width, guint * cell_height)
{
  FlowMtdData *d = flow_data (mtd);
  if (!d)
    return FALSE;
  if (grid_width) *grid_width = d->grid_width;
  if (grid_height) *grid_height = d->grid_height;
  if (cell_width) *cell_width = d->cell_width;
  if (cell_height) *cell_height = d->cell_height;
  return TRUE;
}

gboolean
gst_cv_flow_mtd_get_frame_size (const GstCvFlowMtd * mtd, guint * width, guint * height)
{
  FlowMtdData *d = flow_data (mtd);
  if (!d)
    return FALSE;
  if (width) *width = d->frame_width;
  if (height) *height = d->frame_height;
  return TRUE;
}

gboolean
gst_cv_flow_mtd_get_info (const GstCvFlowMtd * mtd, GstCvFlowConfidence * confidence,
    gboolean * valid)
{
  FlowMtdData *d = flow_data (mtd);
  if (!d)
    return FALSE;
  if (confidence) *confidence = d->confidence;
  if (valid) *valid = d->valid;
  return TRUE;
}

gboolean
gst_cv_flow_mtd_map_host (const GstCvFlowMtd * mtd, const gfloat ** vectors,
    gsize * vectors_stride, const gfloat ** confidence, gsize * confidence_stride)
{
  FlowMtdData *d = flow_data (mtd);
  if (!d || !d->field)
    return FALSE;
  return gst_cv_flow_field_map_host (d->field, vectors, vectors_stride, confidence,
      confidence_stride);
}

gboolean
gst_cv_flow_mtd_get_device (const GstCvFlowMtd * mtd, gconstpointer * vectors,
    gsize * vectors_stride, gconstpointer * confidence, gsize * confidence_stride)
{
  FlowMtdData *d = flow_data (mtd);
  if (!d || !d->field)
    return FALSE;
  return gst_cv_flow_field_get_device (d->field, vectors, vectors_stride, confidence,
      confidence_stride);
}

#endif
