/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFlowMeta: the optical-flow field that cudaflowlk and cudablockmatch attach
 * to each buffer, readable by applications.
 *
 *   GstCvFlowMeta *meta = gst_buffer_get_cv_flow_meta (buffer);
 *   const gfloat *uv, *conf; gsize uv_stride, conf_stride;
 *   if (meta && gst_cv_flow_meta_map_host (meta, &uv, &uv_stride, &conf, &conf_stride)) {
 *     // vector of grid cell (x, y): uv[y * uv_stride / 4 + 2 * x + {0,1}], in frame pixels
 *   }
 *
 * The vectors stay in device memory when the element ran on CUDA; the host view is
 * downloaded on first use and cached. */
#ifndef GST_CV_FLOW_META_H
#define GST_CV_FLOW_META_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum {
  GST_CV_FLOW_CONFIDENCE_MIN_EIGENVALUE = 0,  /* LK: structure tensor's smallest eigenvalue */
  GST_CV_FLOW_CONFIDENCE_FB_ERROR = 1,        /* LK + fb check: px error, -1 = invalid */
  GST_CV_FLOW_CONFIDENCE_MATCH = 2,           /* block matching: NCC peak x distinctiveness */
  /* cudaflowepic: support of the interpolated vector and the frames' agreement along
   * it, in [0, 1] */
  GST_CV_FLOW_CONFIDENCE_CONSISTENCY = 3
} GstCvFlowConfidence;

typedef struct _GstCvFlowField GstCvFlowField;   /* opaque, refcounted storage */

/**
 * GstCvFlowMeta:
 * @meta: the parent #GstMeta
 * @grid_width: vectors per row
 * @grid_height: vectors per column
 * @cell_width: frame pixels per grid cell, horizontally (1 when dense)
 * @cell_height: frame pixels per grid cell, vertically (1 when dense)
 * @confidence: what the confidence values measure
 * @valid: FALSE on a stream's first frame (zero vectors, confidence 0)
 * @field: (skip): the storage (opaque)
 *
 * The flow field of one frame, from the previous frame to this one (docs/api.md).
 */
typedef struct {
  GstMeta meta;
  guint grid_width, grid_height;   /* vectors per row / column */
  guint cell_width, cell_height;   /* frame pixels per grid cell (1 x 1 when dense) */
  GstCvFlowConfidence confidence;
  gboolean valid;                  /* FALSE on a stream's first frame: zero vectors */
  GstCvFlowField *field;
} GstCvFlowMeta;

GType gst_cv_flow_meta_api_get_type (void);
#define GST_CV_FLOW_META_API_TYPE (gst_cv_flow_meta_api_get_type ())
const GstMetaInfo *gst_cv_flow_meta_get_info (void);
GstCvFlowMeta *gst_buffer_get_cv_flow_meta (GstBuffer * buffer);

/**
 * gst_cv_flow_meta_map_host: (skip)
 *
 * Host view of the vectors (u, v float pairs, in frame pixels of motion) and of the
 * confidence (float); strides in bytes. FALSE if a download failed.
 */
gboolean gst_cv_flow_meta_map_host (GstCvFlowMeta * meta, const gfloat ** vectors,
    gsize * vectors_stride, const gfloat ** confidence, gsize * confidence_stride);
/**
 * gst_cv_flow_meta_get_device: (skip)
 *
 * Device pointers when the field lives in CUDA memory (FALSE otherwise).
 */
gboolean gst_cv_flow_meta_get_device (GstCvFlowMeta * meta, gconstpointer * vectors,
    gsize * vectors_stride, gconstpointer * confidence, gsize * confidence_stride);

/* Copies for bindings and simple C callers (docs/api.md; gstcvflowmeta.c documents
 * each): packed rows, no stride; from the host view above (downloaded when the
 * field is in CUDA memory). */
void gst_cv_flow_meta_get_grid_size (GstCvFlowMeta * meta, guint * width, guint * height);
void gst_cv_flow_meta_get_cell_size (GstCvFlowMeta * meta, guint * width, guint * height);
gboolean gst_cv_flow_meta_is_valid (GstCvFlowMeta * meta);
GstCvFlowConfidence gst_cv_flow_meta_get_confidence_kind (GstCvFlowMeta * meta);
gfloat *gst_cv_flow_meta_get_vectors (GstCvFlowMeta * meta, gsize * n_values);
gfloat *gst_cv_flow_meta_get_confidence (GstCvFlowMeta * meta, gsize * n_values);
GBytes *gst_cv_flow_meta_get_vectors_bytes (GstCvFlowMeta * meta);
GBytes *gst_cv_flow_meta_get_confidence_bytes (GstCvFlowMeta * meta);

G_END_DECLS
#endif
