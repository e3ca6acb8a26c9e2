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
  return gst_cv_flow_field_get_device (meta->field, vectors, vectors_stride, confidence,
      confidence_stride);
}

/* ------------------------------------------- accessors for bindings and simple callers */

/**
 * gst_buffer_get_cv_flow_meta:
 * @buffer: a #GstBuffer
 *
 * The flow meta that cudaflowlk or cudablockmatch attached to @buffer.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL when the buffer has none
 */
GstCvFlowMeta *
gst_buffer_get_cv_flow_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstCvFlowMeta *) gst_buffer_get_meta (buffer, GST_CV_FLOW_META_API_TYPE);
}

/**
 * gst_cv_flow_meta_get_grid_size:
 * @meta: a #GstCvFlowMeta
 * @width: (out) (optional): vectors per row
 * @height: (out) (optional): vectors per column
 *
 * The grid size: the frame size for dense flow, ceil (frame / cell) for blocks.
 */
void
gst_cv_flow_meta_get_grid_size (GstCvFlowMeta * meta, guint * width, guint * height)
{
  g_return_if_fail (meta != NULL);
  if (width) *width = meta->grid_width;
  if (height) *height = meta->grid_height;
}

/**
 * gst_cv_flow_meta_get_cell_size:
 * @meta: a #GstCvFlowMeta
 * @width: (out) (optional): frame pixels per cell, horizontally
 * @height: (out) (optional): frame pixels per cell, vertically
 *
 * The frame pixels one vector stands for: 1 x 1 for dense flow, the block size of
 * cudablockmatch otherwise.
 */
void
gst_cv_flow_meta_get_cell_size (GstCvFlowMeta * meta, guint * width, guint * height)
{
  g_return_if_fail (meta != NULL);
  if (width) *width = meta->cell_width;
  if (height) *height = meta->cell_height;
}

/**
 * gst_cv_flow_meta_is_valid:
 * @meta: a #GstCvFlowMeta
 *
 * Returns: %FALSE on the first frame of a stream (after a caps change, a flushing
 * seek, a new segment or a DISCONT buffer): its vectors are zero
 */
gboolean
gst_cv_flow_meta_is_valid (GstCvFlowMeta * meta)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  return meta->valid;
}

/**
 * gst_cv_flow_meta_get_confidence_kind:
 * @meta: a #GstCvFlowMeta
 *
 * Returns: what the confidence values measure
 */
GstCvFlowConfidence
gst_cv_flow_meta_get_confidence_kind (GstCvFlowMeta * meta)
{
  g_return_val_if_fail (meta != NULL, GST_CV_FLOW_CONFIDENCE_MIN_EIGENVALUE);
  return meta->confidence;
}

/* A packed copy (rows without padding) of `channels` floats a cell from the host view;
 * NULL when the download failed. */
static gfloat *
flow_meta_copy (GstCvFlowMeta * meta, gboolean vectors, gsize * n_values)
{
  const gfloat *vec, *conf;
  gsize vec_stride, conf_stride;
  if (n_values)
    *n_values = 0;
  if (!gst_cv_flow_meta_map_host (meta, &vec, &vec_stride, &conf, &conf_stride))
    return NULL;
  const gfloat *src = vectors ? vec : conf;
  gsize stride = vectors ? vec_stride : conf_stride;
  gsize row = (gsize) meta->grid_width * (vectors ? 2 : 1);
  gsize n = row * meta->grid_height;
  gfloat *out = g_new (gfloat, MAX (n, 1));
  for (guint y = 0; y < meta->grid_height; y++)
    memcpy (out + y * row, (const guint8 *) src + y * stride, row * sizeof (gfloat));
  if (n_values)
    *n_values = n;
  return out;
}

/**
 * gst_cv_flow_meta_get_vectors:
 * @meta: a #GstCvFlowMeta
 * @n_values: (out): the number of floats returned: 2 x grid_width x grid_height
 *
 * A copy of the motion vectors, row by row: (u, v) of cell (x, y) at
 * [2 * (y * grid_width + x)] and the next float. Units: frame pixels of motion from
 * the previous frame to this one for dense flow (cell 1 x 1), grid cells for
 * cudablockmatch's block vectors (times frame width / grid_width and frame height /
 * grid_height, about cell_width and cell_height, for pixels); +x is
 * right, +y down.
 *
 * Returns: (array length=n_values) (transfer full) (nullable): the vectors (g_free),
 * or %NULL when the field could not be downloaded from the GPU
 */
gfloat *
gst_cv_flow_meta_get_vectors (GstCvFlowMeta * meta, gsize * n_values)
{
  g_return_val_if_fail (meta != NULL && meta->field != NULL, NULL);
  return flow_meta_copy (meta, TRUE, n_values);
}

/**
 * gst_cv_flow_meta_get_confidence:
 * @meta: a #GstCvFlowMeta
 * @n_values: (out): the number of floats returned: grid_width x grid_height
 *
 * A copy of the confidence of each vector, row by row; what it measures is
 * gst_cv_flow_meta_get_confidence_kind().
 *
 * Returns: (array length=n_values) (transfer full) (nullable): the confidence
 * (g_free), or %NULL when the field could not be downloaded from the GPU
 */
gfloat *
gst_cv_flow_meta_get_confidence (GstCvFlowMeta * meta, gsize * n_values)
{
  g_return_val_if_fail (meta != NULL && meta->field != NULL, NULL);
  return flow_meta_copy (meta, FALSE, n_values);
}

static GBytes *
flow_meta_bytes (GstCvFlowMeta * meta, gboolean vectors)
{
  gsize n;
  gfloat *data = flow_meta_copy (meta, vectors, &n);
  return data ? g_bytes_new_take (data, n * sizeof (gfloat)) : NULL;
}

/**
 * gst_cv_flow_meta_get_vectors_bytes:
 * @meta: a #GstCvFlowMeta
 *
 * The vectors of gst_cv_flow_meta_get_vectors() as native-endian float32 bytes (for
 * numpy.frombuffer (bytes.get_data (), numpy.float32) in Python: no list of floats).
 *
 * Returns: (transfer full) (nullable): the bytes, or %NULL when the download failed
 */
GBytes *
gst_cv_flow_meta_get_vectors_bytes (GstCvFlowMeta * meta)
{
  g_return_val_if_fail (meta != NULL && meta->field != NULL, NULL);
  return flow_meta_bytes (meta, TRUE);
}

/**
 * gst_cv_flow_meta_get_confidence_bytes:
 * @meta: a #GstCvFlowMeta
 *
 * The confidence of gst_cv_flow_meta_get_confidence() as native-endian float32 bytes.
 *
 * Returns: (transfer full) (nullable): the bytes, or %NULL when the download failed
 */
GBytes *
gst_cv_flow_meta_get_confidence_bytes (GstCvFlowMeta * meta)
{
  g_return_val_if_fail (meta != NULL && meta->field != NULL, NULL);
  return flow_meta_bytes (meta, FALSE);
}
