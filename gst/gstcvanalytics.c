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
#include "gstcvcudaapi.h"
#include "gstcvhandoff.h"

/* Device masks (CUDA backend with a GstCudaContext and GstCudaStream): GRAY8 planes
 * of CUDA device memory, kept in a store and handed out wrapped as GstCudaMemory on
 * the element's stream (libgstcuda's own allocator has no GRAY8 layout). The mask
 * stays on the device and goes on as nvcodec hands on its frames (NEED_SYNC); a
 * reader that maps it for the host gets it downloaded then, so no frame pays for a
 * copy nobody reads. A plane comes back to the store when the last buffer holding it
 * is dropped, which may be after the element stopped: the store lives as long as
 * its planes (a reference each), and frees each plane once closed. */
#define MASK_PLANES_MAX 16      /* planes out at once (downstream queues) */

#if CV_HAVE_GST_CUDA_STREAM
typedef struct {
  gint refcount;                /* the mask-out's, and one per plane out */
  GMutex lock;
  GstCudaContext *context;
  GArray *free;                 /* CUdeviceptr planes ready for a frame */
  guint total;                  /* planes allocated and not freed */
  gboolean closed;              /* the mask-out is gone: planes coming back are freed */
} MaskStore;

typedef struct {
  MaskStore *store;
  CUdeviceptr plane;
} MaskPlane;

static void
mask_store_free_plane (MaskStore * st, CUdeviceptr plane)
{
  if (gst_cuda_context_push (st->context)) {
    CuMemFree (plane);
    gst_cuda_context_pop (NULL);
  }
  st->total--;
}

static void
mask_store_unref (MaskStore * st)
{
  if (!g_atomic_int_dec_and_test (&st->refcount))
    return;
  for (guint i = 0; i < st->free->len; i++)
    mask_store_free_plane (st, g_array_index (st->free, CUdeviceptr, i));
  g_array_free (st->free, TRUE);
  gst_object_unref (st->context);
  g_mutex_clear (&st->lock);
  g_free (st);
}

/* GstCudaMemory's notify: the plane back to the store (freed once it is closed). */
static void
mask_plane_release (gpointer data)
{
  MaskPlane *mp = data;
  MaskStore *st = mp->store;
  g_mutex_lock (&st->lock);
  if (st->closed)
    mask_store_free_plane (st, mp->plane);
  else
    g_array_append_val (st->free, mp->plane);
  g_mutex_unlock (&st->lock);
  g_free (mp);
  mask_store_unref (st);
}
#endif

struct _GstCvMaskOut {
  GstBufferPool *pool;          /* host GRAY8 buffers, or NULL (device store) */
  GstVideoInfo info;            /* GRAY8 at the frame size (device: stride[0] the
                                   planes' pitch) */
  cc_context *ctx;
  cc_image scratch;             /* device GRAY8 for CUDA backends with a host pool */
  gboolean have_scratch;
#if CV_HAVE_GST_CUDA_STREAM
  MaskStore *store;
  GstCudaStream *stream;
  MaskPlane *plane;             /* between begin and finish (device store) */
#endif
  /* between begin and finish (host pool) */
  GstBuffer *buffer;
  GstVideoFrame frame;
  cc_image view;                /* where the element writes */
};

#if CV_HAVE_GST_CUDA_STREAM
/* A new GRAY8 plane of the frame size in `context`, or 0; *pitch its row pitch. */
static CUdeviceptr
mask_plane_alloc (GstCudaContext * context, const GstVideoInfo * info, size_t * pitch)
{
  CUdeviceptr plane = 0;
  if (!gst_cuda_context_push (context))
    return 0;
  if (!gst_cuda_result (CuMemAllocPitch (&plane, pitch, GST_VIDEO_INFO_WIDTH (info),
              GST_VIDEO_INFO_HEIGHT (info), 16)))
    plane = 0;
  gst_cuda_context_pop (NULL);
  return plane;
}
#endif

/* The device store of an element with a GstCudaContext and stream: TRUE when the
 * first plane could be allocated (its pitch then describes every plane). */
static gboolean
device_store_new (GstCvMaskOut * out, gpointer cuda_context, gpointer cuda_stream)
{
#if CV_HAVE_GST_CUDA_STREAM
  if (!cuda_context || !cuda_stream)
    return FALSE;
  size_t pitch = 0;
  GstCudaContext *context = GST_CUDA_CONTEXT (cuda_context);
  CUdeviceptr plane = mask_plane_alloc (context, &out->info, &pitch);
  if (!plane)
    return FALSE;
  MaskStore *st = g_new0 (MaskStore, 1);
  st->refcount = 1;
  g_mutex_init (&st->lock);
  st->context = gst_object_ref (context);
  st->free = g_array_new (FALSE, FALSE, sizeof (CUdeviceptr));
  g_array_append_val (st->free, plane);
  st->total = 1;
  out->store = st;
  out->stream = gst_cuda_stream_ref (GST_CUDA_STREAM (cuda_stream));
  out->info.stride[0] = (gint) pitch;
  out->info.size = pitch * (gsize) GST_VIDEO_INFO_HEIGHT (&out->info);
  return TRUE;
#else
  return FALSE;
#endif
}

GstCvMaskOut *
gst_cv_mask_out_new (cc_context * ctx, gpointer cuda_context, gpointer cuda_stream,
    gint width, gint height)
{
  GstCvMaskOut *out = g_new0 (GstCvMaskOut, 1);
  out->ctx = ctx;
  gst_video_info_set_format (&out->info, GST_VIDEO_FORMAT_GRAY8, width, height);
  const gboolean cuda = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  if (cuda && device_store_new (out, cuda_context, cuda_stream))
    return out;
  out->pool = gst_video_buffer_pool_new ();
  GstCaps *caps = gst_video_info_to_caps (&out->info);
  GstStructure *config = gst_buffer_pool_get_config (out->pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&out->info), 2, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (out->pool, config)
      || !gst_buffer_pool_set_active (out->pool, TRUE)) {
    GST_WARNING ("mask pool: cannot configure a %dx%d GRAY8 pool", width, height);
    gst_cv_mask_out_free (out);
    return NULL;
  }
  if (cuda) {
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
#if CV_HAVE_GST_CUDA_STREAM
  if (out->store) {
    MaskStore *st = out->store;
    g_mutex_lock (&st->lock);
    if (out->plane) {   /* begun, never finished */
      g_array_append_val (st->free, out->plane->plane);
      g_free (out->plane);
      mask_store_unref (st);   /* the plane's reference (never the last) */
    }
    st->closed = TRUE;
    for (guint i = 0; i < st->free->len; i++)
      mask_store_free_plane (st, g_array_index (st->free, CUdeviceptr, i));
    g_array_set_size (st->free, 0);
    g_mutex_unlock (&st->lock);
    mask_store_unref (st);
    gst_cuda_stream_unref (out->stream);
  }
#endif
  g_free (out);
}

#if CV_HAVE_GST_CUDA_STREAM
/* A plane of the store for this frame: a free one, else a new one while fewer than
 * MASK_PLANES_MAX are out; NULL otherwise. */
static cc_image *
device_begin (GstCvMaskOut * out)
{
  MaskStore *st = out->store;
  CUdeviceptr plane = 0;
  g_mutex_lock (&st->lock);
  if (st->free->len > 0) {
    plane = g_array_index (st->free, CUdeviceptr, st->free->len - 1);
    g_array_set_size (st->free, st->free->len - 1);
  } else if (st->total < MASK_PLANES_MAX) {
    size_t pitch = 0;
    plane = mask_plane_alloc (st->context, &out->info, &pitch);
    if (plane)
      st->total++;
    if (plane && pitch != (size_t) out->info.stride[0]) {   /* one layout for all */
      mask_store_free_plane (st, plane);
      plane = 0;
    }
  }
  g_mutex_unlock (&st->lock);
  if (!plane) {
    GST_DEBUG ("mask: %u planes out, none free: no mask on this frame", st->total);
    return NULL;
  }
  g_atomic_int_inc (&st->refcount);
  out->plane = g_new0 (MaskPlane, 1);
  out->plane->store = st;
  out->plane->plane = plane;
  out->view = cc_image_view ((void *) (guintptr) plane, out->info.stride[0],
      GST_VIDEO_INFO_WIDTH (&out->info), GST_VIDEO_INFO_HEIGHT (&out->info),
      CC_FORMAT_GRAY8, CC_LOCATION_DEVICE);
  return &out->view;
}

/* The written plane as a buffer of one GstCudaMemory on the element's stream, handed
 * on (NEED_SYNC), or NULL (the plane back to the store). */
static GstBuffer *
device_finish (GstCvMaskOut * out, gboolean ok)
{
  MaskPlane *mp = out->plane;
  out->plane = NULL;
  GstMemory *mem = ok ? gst_cuda_allocator_alloc_wrapped (NULL, out->store->context,
      out->stream, &out->info, mp->plane, mp, mask_plane_release) : NULL;
  if (!mem) {
    mask_plane_release (mp);
    return NULL;
  }
  if (gst_cv_cuda_memory_hand_off (out->ctx, out->store->context, mem, FALSE) != CC_SUCCESS) {
    gst_memory_unref (mem);
    return NULL;
  }
  GstBuffer *mask = gst_buffer_new ();
  gst_buffer_append_memory (mask, mem);
  gst_buffer_add_video_meta_full (mask, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8,
      GST_VIDEO_INFO_WIDTH (&out->info), GST_VIDEO_INFO_HEIGHT (&out->info), 1,
      out->info.offset, out->info.stride);
  return mask;
}
#endif

cc_image *
gst_cv_mask_out_begin (GstCvMaskOut * out)
{
  if (!out)
    return NULL;
#if CV_HAVE_GST_CUDA_STREAM
  if (out->store) {
    g_return_val_if_fail (out->plane == NULL, NULL);
    return device_begin (out);
  }
#endif
  g_return_val_if_fail (out->buffer == NULL, NULL);
  if (gst_buffer_pool_acquire_buffer (out->pool, &out->buffer, NULL) != GST_FLOW_OK) {
    out->buffer = NULL;
    return NULL;
  }
  if (!gst_video_frame_map (&out->frame, &out->info, out->buffer, GST_MAP_WRITE)) {
    gst_buffer_unref (out->buffer);
    out->buffer = NULL;
    return NULL;
  }
  out->view = gst_cv_video_frame_view (&out->frame, CC_LOCATION_HOST);
  return out->have_scratch ? &out->scratch : &out->view;
}

gboolean
gst_cv_mask_out_finish (GstCvMaskOut * out, GstBuffer * buffer, gboolean ok,
    const guint * region_ids, gsize n_regions)
{
  if (!out)
    return FALSE;
  GstBuffer *mask = NULL;
#if CV_HAVE_GST_CUDA_STREAM
  if (out->store) {
    if (!out->plane)
      return FALSE;
    mask = device_finish (out, ok);
    ok = mask != NULL;
  } else
#endif
  {
    if (!out->buffer)
      return FALSE;
    /* a host copy: waits for the stream */
    if (ok && out->have_scratch)
      ok = cc_image_copy (out->ctx, cc_context_stream (out->ctx), &out->scratch,
          &out->view) == CC_SUCCESS;
    gst_video_frame_unmap (&out->frame);
    mask = out->buffer;
    out->buffer = NULL;
  }
  if (!ok) {
    if (mask)
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
