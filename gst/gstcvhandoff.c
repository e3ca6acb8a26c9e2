/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA-memory hand-off: see gstcvhandoff.h for the rule and why. */
#include "gstcvhandoff.h"
#include "gstcvconfig.h"
#include "gstcvcuda.h"

#include "gstcvcudaapi.h"

GType
gst_cv_fence_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };
  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCvFenceMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* A fence in a memory's qdata, shared by every consumer that reads the memory (a
 * tee's branches): counted, replaced and read under one lock. */
typedef struct {
  gint refcount;
  cc_fence *fence;
  gpointer cuda_ctx;   /* GstCudaContext (ref): current around the fence's destroy */
} CvFence;

static GMutex fence_lock;

static GQuark
fence_quark (void)
{
  static GQuark q = 0;
  if (!q)
    q = g_quark_from_static_string ("GstCvHandOff.fence");
  return q;
}

static void
cv_fence_unref (gpointer data)
{
  CvFence *f = data;
  if (!g_atomic_int_dec_and_test (&f->refcount))
    return;
  gboolean pushed = gst_cv_cuda_context_push (f->cuda_ctx);
  cc_fence_destroy (f->fence);
  if (pushed)
    gst_cv_cuda_context_pop ();
  gst_cv_cuda_context_unref (f->cuda_ctx);
  g_free (f);
}

#if CV_HAVE_GST_CUDA_STREAM
/* The memory's stream handle when it has one, else NULL. */
static cc_stream
memory_stream (GstMemory * mem)
{
  GstCudaStream *ms = gst_is_cuda_memory (mem) ?
      gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem)) : NULL;
  return ms ? (cc_stream) gst_cuda_stream_get_handle (ms) : NULL;
}
#endif

cc_status
gst_cv_cuda_memory_wait (cc_context * core, GstMemory * mem)
{
  cc_stream ours = cc_context_stream (core);
  cc_status st = CC_SUCCESS;
  g_mutex_lock (&fence_lock);
  CvFence *f = gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), fence_quark ());
  if (f)
    g_atomic_int_inc (&f->refcount);
  g_mutex_unlock (&fence_lock);
  if (f) {
    st = cc_fence_wait (core, ours, f->fence);
    cv_fence_unref (f);
  }
#if CV_HAVE_GST_CUDA_STREAM
  cc_stream theirs = memory_stream (mem);
  if (st == CC_SUCCESS && theirs && theirs != ours
      && GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC)) {
    cc_fence *fence = NULL;
    st = cc_fence_record (core, theirs, &fence);
    if (st == CC_SUCCESS)
      st = cc_fence_wait (core, ours, fence);
    cc_fence_destroy (fence);
  }
#endif
  return st;
}

cc_status
gst_cv_cuda_memory_hand_off (cc_context * core, gpointer cuda_context, GstMemory * mem,
    gboolean downstream_waits)
{
  cc_stream ours = cc_context_stream (core);
  cc_fence *fence = NULL;
  cc_status st;
#if CV_HAVE_GST_CUDA_STREAM
  cc_stream theirs = memory_stream (mem);
  if (theirs) {
    st = CC_SUCCESS;
    if (theirs != ours) {
      st = cc_fence_record (core, ours, &fence);
      if (st == CC_SUCCESS)
        st = cc_fence_wait (core, theirs, fence);
      cc_fence_destroy (fence);
    }
    if (st == CC_SUCCESS)
      GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
    return st;
  }
#endif
  if (!downstream_waits)
    return cc_context_synchronize (core);
  st = cc_fence_record (core, ours, &fence);
  if (st != CC_SUCCESS || !fence)
    return st;
  CvFence *f = g_new0 (CvFence, 1);
  f->refcount = 1;
  f->fence = fence;
  f->cuda_ctx = gst_cv_cuda_context_ref (cuda_context);
  g_mutex_lock (&fence_lock);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), fence_quark (), f, cv_fence_unref);
  g_mutex_unlock (&fence_lock);
  return CC_SUCCESS;
}
