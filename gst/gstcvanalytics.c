/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The analytics mtds of every element, attached in one place (gstcvanalytics.h). */
#include "gstcvanalytics.h"
#include <string.h>

/* ---------------------------------------------------------------- relation meta */

#if CV_HAVE_ANALYTICS
/* Bytes a mtd takes in the relation meta's storage, with its header (the OD and
 * tracking data are about 32 bytes, the header 24): a size hint, the meta grows. */
#define MTD_BYTES 64

GstAnalyticsRelationMeta *
gst_cv_analytics_relation_meta (GstBuffer * buffer, gsize n_mtds)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buffer);
  if (rmeta)
    return rmeta;               /* upstream's: ours are appended */
  GstAnalyticsRelationMetaInitParams params = {
    .initial_relation_order = MAX (n_mtds, 4),
    .initial_buf_size = MAX (n_mtds, 4) * MTD_BYTES,
  };
  return gst_buffer_add_analytics_relation_meta_full (buffer, &params);
}
#endif

/* ---------------------------------------------------------------- flow */

GstCvFlowMeta *
gst_cv_flow_attach (GstCvFilter * filter, GstBuffer * buffer, GstCvFlowField * field,
    guint cell_width, guint cell_height, GstCvFlowConfidence confidence, gboolean valid)
{
#if CV_HAVE_ANALYTICS && GST_CHECK_VERSION(1, 26, 0)
  GstCvFlowField *extra = gst_cv_flow_field_ref (field);
#endif
  GstCvFlowMeta *meta = gst_buffer_add_cv_flow_meta (buffer, field, cell_width, cell_height,
      confidence, valid);
#if CV_HAVE_ANALYTICS && GST_CHECK_VERSION(1, 26, 0)
  if (meta) {
    const GstVideoInfo *info = gst_cv_filter_get_info (filter);
    GstAnalyticsRelationMeta *rmeta = gst_cv_analytics_relation_meta (buffer, 1);
    if (!rmeta || !gst_cv_analytics_add_flow_mtd (rmeta, extra, GST_VIDEO_INFO_WIDTH (info),
            GST_VIDEO_INFO_HEIGHT (info), cell_width, cell_height, confidence, valid, NULL))
      GST_WARNING_OBJECT (filter, "could not attach the flow mtd");
  }
  gst_cv_flow_field_unref (extra);
#endif
  return meta;
}

/* ---------------------------------------------------------------- tracks */

typedef struct {
  gchar name[CC_MOCT_NAME_MAX];
  GQuark quark;
  gboolean seen;                /* present in the previous frame */
  GstClockTime first_seen, last_seen;
} Track;

struct _GstCvTracks {
  Track *slots;
  gint n;
};

GstCvTracks *
gst_cv_tracks_new (void)
{
  return g_new0 (GstCvTracks, 1);
}

void
gst_cv_tracks_free (GstCvTracks * tracks)
{
  if (!tracks)
    return;
  g_free (tracks->slots);
  g_free (tracks);
}

void
gst_cv_tracks_reset (GstCvTracks * tracks)
{
  for (gint i = 0; i < tracks->n; i++)
    tracks->slots[i].seen = FALSE;
}

gboolean
gst_cv_tracks_attach (GstCvTracks * tracks, const GstSegment * segment, GstBuffer * buffer,
    const cc_moct_object * objects, const cc_moct_result * results, gint n)
{
#if CV_HAVE_ANALYTICS
  if (n != tracks->n) {
    tracks->slots = g_renew (Track, tracks->slots, MAX (n, 1));
    if (n > tracks->n)
      memset (tracks->slots + tracks->n, 0, (n - tracks->n) * sizeof (Track));
    tracks->n = n;
  }
  /* what to add: two mtds per present object, one per object lost now */
  gsize n_mtds = 0;
  for (gint i = 0; i < n; i++) {
    Track *t = &tracks->slots[i];
    if (strcmp (t->name, objects[i].name) != 0) {
      /* another object in this slot (the list changed): its track restarts */
      g_strlcpy (t->name, objects[i].name, sizeof t->name);
      t->quark = g_quark_from_string (t->name);
      t->seen = FALSE;
    }
    n_mtds += results[i].present ? 2 : t->seen;
  }
  if (n_mtds == 0)
    return TRUE;
  GstClockTime now = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buffer));
  GstAnalyticsRelationMeta *rmeta = gst_cv_analytics_relation_meta (buffer, n_mtds);
  if (!rmeta)
    return FALSE;
  gboolean ok = TRUE;
  for (gint i = 0; i < n; i++) {
    const cc_moct_result *r = &results[i];
    Track *t = &tracks->slots[i];
    GstAnalyticsTrackingMtd trk;
    if (r->present) {
      GstAnalyticsODMtd od;
      if (!t->seen)
        t->first_seen = now;
      t->seen = TRUE;
      t->last_seen = now;
      ok &= gst_analytics_relation_meta_add_od_mtd (rmeta, t->quark, r->x0, r->y0,
          r->x1 - r->x0 + 1, r->y1 - r->y0 + 1, 1.0f, &od)
          && gst_analytics_relation_meta_add_tracking_mtd (rmeta, (guint64) i, t->first_seen,
          &trk)
          && gst_analytics_tracking_mtd_update_last_seen (&trk, now)
          && gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO,
          od.id, trk.id);
    } else if (t->seen) {
      t->seen = FALSE;
      ok &= gst_analytics_relation_meta_add_tracking_mtd (rmeta, (guint64) i, t->first_seen,
          &trk)
          && gst_analytics_tracking_mtd_update_last_seen (&trk, t->last_seen)
          && gst_analytics_tracking_mtd_set_lost (&trk);
    }
  }
  return ok;
#else
  return TRUE;
#endif
}

/* ---------------------------------------------------------------- masks */

#if CV_HAVE_ANALYTICS && GST_CHECK_VERSION(1, 26, 0)
#include <gst/video/gstvideopool.h>
#include "gstcvcuda.h"
#include "gstcvcudaapi.h"
#include "gstcvhandoff.h"
#if CV_HAVE_GST_CUDA_STREAM
#include <gst/cuda/gstcudabufferpool.h>
#endif

struct _GstCvMaskOut {
  GstBufferPool *pool;
  GstVideoInfo info;
  cc_context *ctx;
  gpointer cuda_ctx;            /* the GstCudaContext of a CUDA-memory pool, or NULL */
  cc_image scratch;             /* device GRAY8 for CUDA backends with a host pool */
  gboolean have_scratch;
  /* between begin and finish */
  GstBuffer *buffer;
  GstVideoFrame frame;
  cc_image view;                /* the mapped buffer */
};

/* A pool of CUDA memory on the element's stream: the mask stays on the device and
 * is handed on as nvcodec hands on its frames (NEED_SYNC); a reader that maps it
 * for the host gets it downloaded then, and no frame pays for a copy nobody reads. */
static GstBufferPool *
cuda_pool_new (gpointer cuda_ctx, gpointer cuda_stream)
{
#if CV_HAVE_GST_CUDA_STREAM
  if (cuda_ctx && cuda_stream)
    return gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (cuda_ctx));
#endif
  return NULL;
}

static gboolean
pool_configure (GstCvMaskOut * out, gpointer cuda_stream)
{
  GstCaps *caps = gst_video_info_to_caps (&out->info);
  GstStructure *config = gst_buffer_pool_get_config (out->pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&out->info), 2, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
#if CV_HAVE_GST_CUDA_STREAM
  if (out->cuda_ctx)
    gst_buffer_pool_config_set_cuda_stream (config, GST_CUDA_STREAM (cuda_stream));
#endif
  gst_caps_unref (caps);
  return gst_buffer_pool_set_config (out->pool, config)
      && gst_buffer_pool_set_active (out->pool, TRUE);
}

GstCvMaskOut *
gst_cv_mask_out_new (cc_context * ctx, gpointer cuda_context, gpointer cuda_stream,
    gint width, gint height)
{
  GstCvMaskOut *out = g_new0 (GstCvMaskOut, 1);
  out->ctx = ctx;
  gst_video_info_set_format (&out->info, GST_VIDEO_FORMAT_GRAY8, width, height);
  const gboolean cuda = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  if (cuda && (out->pool = cuda_pool_new (cuda_context, cuda_stream)))
    out->cuda_ctx = gst_cv_cuda_context_ref (cuda_context);
  else
    out->pool = gst_video_buffer_pool_new ();
  if (!pool_configure (out, cuda_stream)) {
    GST_WARNING ("mask pool: cannot configure a %dx%d GRAY8 pool", width, height);
    gst_cv_mask_out_free (out);
    return NULL;
  }
  if (cuda && !out->cuda_ctx) {
    if (cc_image_alloc (out->ctx, width, height, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE,
            &out->scratch) != CC_SUCCESS) {
      GST_WARNING ("mask pool: %s", cc_last_error ());
      gst_cv_mask_out_free (out);
      return NULL;
    }
    out->have_scratch = TRUE;
  }
  return out;
}

void
gst_cv_mask_out_free (GstCvMaskOut * out)
{
  if (!out)
    return;
  if (out->buffer) {
    gst_video_frame_unmap (&out->frame);
    gst_buffer_unref (out->buffer);
  }
  if (out->have_scratch)
    cc_image_free (out->ctx, &out->scratch);
  if (out->pool) {
    /* buffers still held by segmentation mtds go back to the pool and are freed
     * when the last of them is dropped */
    gst_buffer_pool_set_active (out->pool, FALSE);
    gst_object_unref (out->pool);
  }
  gst_cv_cuda_context_unref (out->cuda_ctx);
  g_free (out);
}

cc_image *
gst_cv_mask_out_begin (GstCvMaskOut * out)
{
  if (!out)
    return NULL;
  g_return_val_if_fail (out->buffer == NULL, NULL);
  if (gst_buffer_pool_acquire_buffer (out->pool, &out->buffer, NULL) != GST_FLOW_OK) {
    out->buffer = NULL;
    return NULL;
  }
#if CV_HAVE_GST_CUDA_STREAM
  const GstMapFlags flags = out->cuda_ctx ? GST_MAP_WRITE | GST_MAP_CUDA : GST_MAP_WRITE;
#else
  const GstMapFlags flags = GST_MAP_WRITE;
#endif
  if (!gst_video_frame_map (&out->frame, &out->info, out->buffer, flags)) {
    gst_buffer_unref (out->buffer);
    out->buffer = NULL;
    return NULL;
  }
  out->view = gst_cv_video_frame_view (&out->frame,
      out->cuda_ctx ? CC_LOCATION_DEVICE : CC_LOCATION_HOST);
  return out->have_scratch ? &out->scratch : &out->view;
}

gboolean
gst_cv_mask_out_finish (GstCvMaskOut * out, GstBuffer * buffer, gboolean ok,
    const guint * region_ids, gsize n_regions)
{
  if (!out || !out->buffer)
    return FALSE;
  if (ok && out->have_scratch)
    ok = cc_image_copy (out->ctx, cc_context_stream (out->ctx), &out->scratch,
        &out->view) == CC_SUCCESS;
  gst_video_frame_unmap (&out->frame);
  GstBuffer *mask = out->buffer;
  out->buffer = NULL;
  if (ok && out->cuda_ctx)
    ok = gst_cv_cuda_memory_hand_off (out->ctx, out->cuda_ctx,
        gst_buffer_peek_memory (mask, 0), FALSE) == CC_SUCCESS;
  if (!ok) {
    gst_buffer_unref (mask);
    return FALSE;
  }
  GstAnalyticsRelationMeta *rmeta = gst_cv_analytics_relation_meta (buffer, 1);
  GstAnalyticsSegmentationMtd seg;
  /* the mtd takes the mask buffer */
  if (!rmeta || !gst_analytics_relation_meta_add_segmentation_mtd (rmeta, mask,
          GST_SEGMENTATION_TYPE_SEMANTIC, n_regions, (guint *) region_ids, 0, 0,
          GST_VIDEO_INFO_WIDTH (&out->info), GST_VIDEO_INFO_HEIGHT (&out->info), &seg)) {
    gst_buffer_unref (mask);
    return FALSE;
  }
  return TRUE;
}

#else

GstCvMaskOut *
gst_cv_mask_out_new (cc_context * ctx, gpointer cuda_context, gpointer cuda_stream,
    gint width, gint height)
{
  return NULL;
}

void
gst_cv_mask_out_free (GstCvMaskOut * out)
{
}

cc_image *
gst_cv_mask_out_begin (GstCvMaskOut * out)
{
  return NULL;
}

gboolean
gst_cv_mask_out_finish (GstCvMaskOut * out, GstBuffer * buffer, gboolean ok,
    const guint * region_ids, gsize n_regions)
{
  return FALSE;
}

#endif
