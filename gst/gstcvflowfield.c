/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFlowField and its pool: see gstcvflowfield.h. */
#include "gstcvflowfield.h"
#include "gstcvcuda.h"

GST_DEBUG_CATEGORY_STATIC (cv_flow_field_debug);
#define GST_CAT_DEFAULT cv_flow_field_debug

struct _GstCvFieldPool {
  gint refcount;              /* the element's ref + one per field out */
  cc_location location;       /* where fields live */
  GstCvCoreRef *core_ref;     /* the element's context: allocations, downloads, frees */
  gpointer cuda_context;      /* its GstCudaContext or NULL (transfer none) */
  cc_context *core;
  int grid_width, grid_height;
  GMutex lock;
  GQueue free_fields;
};

struct _GstCvFlowField {
  gint refcount;
  GstCvFieldPool *pool;
  cc_image vectors, confidence;  /* where the pool's backend computes */
  gfloat *host_vectors, *host_confidence;  /* download cache (device fields) */
  gboolean host_valid;
  GMutex host_lock;
};

static void
field_free (GstCvFieldPool * pool, GstCvFlowField * f)
{
  cc_image_free (pool->core, &f->vectors);
  cc_image_free (pool->core, &f->confidence);
  g_free (f->host_vectors);
  g_free (f->host_confidence);
  g_mutex_clear (&f->host_lock);
  g_free (f);
}

static void
pool_free (GstCvFieldPool * pool)
{
  gboolean pushed = gst_cv_cuda_context_push (pool->cuda_context);
  GstCvFlowField *f;
  while ((f = g_queue_pop_head (&pool->free_fields)))
    field_free (pool, f);
  if (pushed)
    gst_cv_cuda_context_pop ();
  gst_cv_core_ref_unref (pool->core_ref);
  g_mutex_clear (&pool->lock);
  g_free (pool);
}

GstCvFieldPool *
gst_cv_field_pool_new_on (GstCvCoreRef * core, cc_location location, int grid_width,
    int grid_height)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (cv_flow_field_debug, "cvflowfield", 0,
        "cudavision flow-field pool");
    g_once_init_leave (&once, 1);
  }
  GstCvFieldPool *pool = g_new0 (GstCvFieldPool, 1);
  pool->refcount = 1;
  pool->location = location;
  pool->core_ref = gst_cv_core_ref_ref (core);
  pool->core = gst_cv_core_ref_context (core);
  pool->cuda_context = gst_cv_core_ref_cuda_context (core);
  pool->grid_width = grid_width;
  pool->grid_height = grid_height;
  g_mutex_init (&pool->lock);
  g_queue_init (&pool->free_fields);
  return pool;
}

GstCvFieldPool *
gst_cv_field_pool_new (GstCvFilter * filter, int grid_width, int grid_height)
{
  GstCvCoreRef *core_ref = gst_cv_filter_ref_core (filter);
  if (!core_ref) {
    cc_set_error (CC_ERROR_INVALID_ARGUMENT, "flow field pool: the element has no context");
    return NULL;
  }
  GstCvFieldPool *pool = gst_cv_field_pool_new_on (core_ref,
      gst_cv_filter_get_location (filter), grid_width, grid_height);
  gst_cv_core_ref_unref (core_ref);
  return pool;
}

void
gst_cv_field_pool_unref (GstCvFieldPool * pool)
{
  if (pool && g_atomic_int_dec_and_test (&pool->refcount))
    pool_free (pool);
}

GstCvFlowField *
gst_cv_field_pool_acquire (GstCvFieldPool * pool)
{
  g_mutex_lock (&pool->lock);
  GstCvFlowField *f = g_queue_pop_head (&pool->free_fields);
  g_mutex_unlock (&pool->lock);
  if (!f) {
    cc_location loc = pool->location;
    f = g_new0 (GstCvFlowField, 1);
    g_mutex_init (&f->host_lock);
    if (cc_image_alloc (pool->core, pool->grid_width, pool->grid_height, CC_FORMAT_F32C2,
            loc, &f->vectors) != CC_SUCCESS
        || cc_image_alloc (pool->core, pool->grid_width, pool->grid_height, CC_FORMAT_F32,
            loc, &f->confidence) != CC_SUCCESS) {
      field_free (pool, f);
      return NULL;
    }
  }
  f->refcount = 1;
  f->host_valid = FALSE;
  f->pool = pool;
  g_atomic_int_inc (&pool->refcount);
  return f;
}

GstCvFlowField *
gst_cv_flow_field_ref (GstCvFlowField * field)
{
  g_atomic_int_inc (&field->refcount);
  return field;
}

void
gst_cv_flow_field_unref (GstCvFlowField * field)
{
  if (!field || !g_atomic_int_dec_and_test (&field->refcount))
    return;
  GstCvFieldPool *pool = field->pool;
  g_mutex_lock (&pool->lock);
  g_queue_push_head (&pool->free_fields, field);
  g_mutex_unlock (&pool->lock);
  gst_cv_field_pool_unref (pool);
}

cc_image *
gst_cv_flow_field_vectors (GstCvFlowField * field)
{
  return &field->vectors;
}

cc_image *
gst_cv_flow_field_confidence (GstCvFlowField * field)
{
  return &field->confidence;
}

gboolean
gst_cv_flow_field_map_host (GstCvFlowField * f, const gfloat ** vectors,
    gsize * vectors_stride, const gfloat ** confidence, gsize * confidence_stride)
{
  if (f->vectors.location == CC_LOCATION_HOST) {
    if (vectors) *vectors = f->vectors.planes[0];
    if (vectors_stride) *vectors_stride = f->vectors.pitch[0];
    if (confidence) *confidence = f->confidence.planes[0];
    if (confidence_stride) *confidence_stride = f->confidence.pitch[0];
    return TRUE;
  }
  gboolean ok = TRUE;
  g_mutex_lock (&f->host_lock);
  int w = f->vectors.width, h = f->vectors.height;
  if (!f->host_valid) {
    if (!f->host_vectors) {
      f->host_vectors = g_new (gfloat, (gsize) 2 * w * h);
      f->host_confidence = g_new (gfloat, (gsize) w * h);
    }
    cc_image hv = cc_image_view (f->host_vectors, (size_t) w * 8, w, h, CC_FORMAT_F32C2,
        CC_LOCATION_HOST);
    cc_image hc = cc_image_view (f->host_confidence, (size_t) w * 4, w, h, CC_FORMAT_F32,
        CC_LOCATION_HOST);
    gboolean pushed = gst_cv_cuda_context_push (f->pool->cuda_context);
    /* on the stream the element's context computes on (adopted), which produced
     * the field: the copies wait for it */
    cc_stream stream = cc_context_stream (f->pool->core);
    ok = cc_image_copy (f->pool->core, stream, &f->vectors, &hv) == CC_SUCCESS
        && cc_image_copy (f->pool->core, stream, &f->confidence, &hc) == CC_SUCCESS;
    if (pushed)
      gst_cv_cuda_context_pop ();
    if (!ok)
      GST_ERROR ("flow meta download failed: %s", cc_last_error ());
    f->host_valid = ok;
  }
  g_mutex_unlock (&f->host_lock);
  if (!ok)
    return FALSE;
  if (vectors) *vectors = f->host_vectors;
  if (vectors_stride) *vectors_stride = (gsize) w * 8;
  if (confidence) *confidence = f->host_confidence;
  if (confidence_stride) *confidence_stride = (gsize) w * 4;
  return TRUE;
}

gboolean
gst_cv_flow_field_get_device (GstCvFlowField * f, gconstpointer * vectors,
    gsize * vectors_stride, gconstpointer * confidence, gsize * confidence_stride)
{
  if (f->vectors.location != CC_LOCATION_DEVICE)
    return FALSE;
  if (vectors) *vectors = f->vectors.planes[0];
  if (vectors_stride) *vectors_stride = f->vectors.pitch[0];
  if (confidence) *confidence = f->confidence.planes[0];
  if (confidence_stride) *confidence_stride = f->confidence.pitch[0];
  return TRUE;
}
