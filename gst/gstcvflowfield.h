/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal to the plugin (implemented in gstcvflowfield.c): pooled storage for flow
 * fields attached as GstCvFlowMeta.
 * A pool holds fields of one grid size in the element's memory (device for CUDA);
 * a field goes back to its pool when the last meta holding it is freed, so nothing
 * is allocated per frame. The pool outlives its element while fields are out. */
#ifndef GST_CV_FLOW_FIELD_H
#define GST_CV_FLOW_FIELD_H

#include "gstcvflowmeta.h"
#include "gstcvfilter.h"
#include <cudacore/cc_core.h>

G_BEGIN_DECLS

typedef struct _GstCvFieldPool GstCvFieldPool;

/* A pool on the element's cudacore context (held by the pool: fields live where the
 * element computes, gst_cv_filter_get_location, and their downloads run on the
 * element's stream); NULL + core message before the element's setup. Call from
 * setup() (CUDA context pushed). */
GstCvFieldPool *gst_cv_field_pool_new (GstCvFilter * filter, int grid_width,
    int grid_height);
/* The same on a given context (the pool takes its own reference of `core`), with
 * fields at `location`: for tools that use the pool without an element. */
GstCvFieldPool *gst_cv_field_pool_new_on (GstCvCoreRef * core, cc_location location,
    int grid_width, int grid_height);
void gst_cv_field_pool_unref (GstCvFieldPool * pool);
/* A field (transfer full) whose views are filled by the element; NULL + core message on failure. */
GstCvFlowField *gst_cv_field_pool_acquire (GstCvFieldPool * pool);

GstCvFlowField *gst_cv_flow_field_ref (GstCvFlowField * field);
void gst_cv_flow_field_unref (GstCvFlowField * field);
cc_image *gst_cv_flow_field_vectors (GstCvFlowField * field);
cc_image *gst_cv_flow_field_confidence (GstCvFlowField * field);
/* What gst_cv_flow_meta_map_host / _get_device give, for any holder of the field: the
 * views themselves for host fields, a download cached in the field (on the element's
 * context) for device fields. FALSE on failure. */
gboolean gst_cv_flow_field_map_host (GstCvFlowField * field, const gfloat ** vectors,
    gsize * vectors_stride, const gfloat ** confidence, gsize * confidence_stride);
gboolean gst_cv_flow_field_get_device (GstCvFlowField * field, gconstpointer * vectors,
    gsize * vectors_stride, gconstpointer * confidence, gsize * confidence_stride);

/* Adds the meta (takes the field reference). */
GstCvFlowMeta *gst_buffer_add_cv_flow_meta (GstBuffer * buffer, GstCvFlowField * field,
    guint cell_width, guint cell_height, GstCvFlowConfidence confidence, gboolean valid);

G_END_DECLS
#endif
