/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFlowMeta (the pooled storage behind it: gstcvflowfield.c). */
#include "gstcvflowfield.h"
#include <gst/video/video.h>

#include <string.h>

/* ------------------------------------------------------------------ meta */

static gboolean
flow_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  m->field = NULL;
  m->grid_width = m->grid_height = 0;
  m->cell_width = m->cell_height = 1;
  m->valid = FALSE;
  return TRUE;
}

static void
flow_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  gst_cv_flow_field_unref (m->field);
  m->field = NULL;
}

static gboolean
flow_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer, GQuark type,
    gpointer data)
{
  GstCvFlowMeta *m = (GstCvFlowMeta *) meta;
  /* Copies share the field. Scaling a frame would change what the vectors mean:
   * only plain copies carry the meta over. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  GstCvFlowMeta *d = gst_buffer_add_cv_flow_meta (dest, gst_cv_flow_field_ref (m->field),
      m->cell_width, m->cell_height, m->confidence, m->valid);
  return d != NULL;
}

GType
gst_cv_flow_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR, NULL };
  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCvFlowMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

const GstMetaInfo *
gst_cv_flow_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;
  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_CV_FLOW_META_API_TYPE, "GstCvFlowMeta",
        sizeof (GstCvFlowMeta), flow_meta_init, flow_meta_free, flow_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstCvFlowMeta *
gst_buffer_add_cv_flow_meta (GstBuffer * buffer, GstCvFlowField * field, guint cell_width,
    guint cell_height, GstCvFlowConfidence confidence, gboolean valid)
{
  g_return_val_if_fail (field != NULL, NULL);
  GstCvFlowMeta *m = (GstCvFlowMeta *) gst_buffer_add_meta (buffer,
      gst_cv_flow_meta_get_info (), NULL);
  if (!m) {
    gst_cv_flow_field_unref (field);
    return NULL;
  }
  m->field = field;
  m->grid_width = gst_cv_flow_field_vectors (field)->width;
  m->grid_height = gst_cv_flow_field_vectors (field)->height;
  m->cell_width = cell_width;
  m->cell_height = cell_height;
  m->confidence = confidence;
  m->valid = valid;
  return m;
}

gboolean
gst_cv_flow_meta_map_host (GstCvFlowMeta * meta, const gfloat ** vectors,
    gsize * vectors_stride, const gfloat ** confidence, gsize * confidence_stride)
{
  g_return_val_if_fail (meta && meta->field, FALSE);
  return gst_cv_flow_field_map_host (meta->field, vectors, vectors_stride, confidence,
      confidence_stride);
}

gboolean
gst_cv_flow_meta_get_device (GstCvFlowMeta * meta, gconstpointer * vectors,
    gsize * vectors_stride, gconstpointer * confidence, gsize * confidence_stride)
{
  g_return_val_if_fail (meta && meta->field, FALSE);
  GstCvFlowField *f = meta->field;
  const cc_image *v = gst_cv_flow_field_vectors (f), *c = gst_cv_flow_field_confidence (f);
  if (v->location != CC_LOCATION_DEVICE)
    return FALSE;
  if (vectors) *vectors = v->planes[0];
  if (vectors_stride) *vectors_stride = v->pitch[0];
  if (confidence) *confidence = c->planes[0];
  if (confidence_stride) *confidence_stride = c->pitch[0];
  return TRUE;
}
