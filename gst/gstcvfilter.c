/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFilter: see gstcvfilter.h for what it does and why. */
#include "gstcvfilter.h"
#include "gstcvconfig.h"
#include "gstcvcuda.h"
#include "gstcvenum.h"
#include "gstcvhandoff.h"

#include "gstcvcudaapi.h"

GST_DEBUG_CATEGORY_STATIC (cv_filter_debug);
#define GST_CAT_DEFAULT cv_filter_debug

enum { PROP_0, PROP_BACKEND, PROP_CUDA_DEVICE_ID, PROP_CPU_THREADS, PROP_ACTIVE_BACKEND,
  N_PROPS };
static GParamSpec *properties[N_PROPS];
#define DEFAULT_BACKEND CC_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID (-1)

/* How a negotiated buffer reaches process(): derived once per negotiation. */
typedef enum {
  PATH_HOST,          /* system memory, CPU backend: the mapped frame */
  PATH_STAGED,        /* system memory, CUDA backend: a device copy (staging) */
  PATH_CUDA,          /* CUDA memory, CUDA backend: the device frame itself */
  PATH_CUDA_ON_HOST,  /* CUDA memory, CPU backend: GstCudaMemory's host mapping */
} FramePath;

struct _GstCvCoreRef {
  gint refcount;
  cc_context *core;
  gpointer cuda_ctx;   /* GstCudaContext (ref) or NULL */
#if CV_HAVE_GST_CUDA_STREAM
  GstCudaStream *gst_stream;   /* the stream `core` adopted (ref), or NULL */
#endif
};

typedef struct {
  /* properties (object lock) */
  cc_backend backend_prop;
  gint device_id_prop;
  gint cpu_threads_prop;
  gboolean setup_requested;
  gboolean reset_pending;    /* a stream event asked for a reset before the next frame */
  cc_backend active;         /* active-backend: the core's, AUTO (none) without one */
  gint warned_size[2];       /* the frame size gst_cv_filter_warn_cpu_time last warned of */

  /* streaming state */
  GstVideoInfo info;
  gboolean have_info;
  gboolean cuda_memory;      /* negotiated caps carry memory:CUDAMemory */
  FramePath path;            /* from cuda_memory and the backend, at setup */
  cc_location location;      /* where process() frames and scratch live, at setup */
  GstCvCoreRef *core_ref;    /* owns core (and a ref of cuda_ctx) */
  cc_context *core;
  cc_stream stream;          /* the element's stream, adopted by `core` (NULL on the CPU) */
#if CV_HAVE_GST_CUDA_STREAM
  GstCudaStream *gst_stream; /* the GstCudaStream behind `stream`, or NULL */
#endif
  gpointer cuda_ctx;         /* GstCudaContext or NULL */
  cc_image staging;          /* device copy of system-memory frames (CUDA backend) */
  gboolean have_staging;
  cc_image previous;         /* copy of the last frame (needs_previous_frame) */
  gboolean have_previous_buffer, previous_valid, kept_this_frame;
  gboolean subclass_ready;
  guint64 frame_number;
  gboolean said_fallback;
  gboolean downstream_waits; /* the allocation query's answer (object lock): every
                              * consumer downstream waits for a fence (gstcvhandoff.h) */
} GstCvFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCvFilter, gst_cv_filter, GST_TYPE_BASE_TRANSFORM);
#define PRIV(f) ((GstCvFilterPrivate *) gst_cv_filter_get_instance_private (GST_CV_FILTER (f)))

GType
gst_cv_backend_get_type (void)
GST_CV_ENUM_BODY ("GstCvBackend",
    { CC_BACKEND_AUTO, "CUDA when a device is present, else CPU", "auto" },
    { CC_BACKEND_CPU, "CPU reference implementation", "cpu" },
    { CC_BACKEND_CUDA, "CUDA kernels (fails without a device)", "cuda" })

/* active-backend: the cc_backend values, AUTO standing for none. */
#define GST_TYPE_CV_ACTIVE_BACKEND (gst_cv_active_backend_get_type ())
GST_CV_DEFINE_ENUM (gst_cv_active_backend_get_type, "GstCvActiveBackend",
    { CC_BACKEND_AUTO, "Not running (no stream since the element left READY)", "none" },
    { CC_BACKEND_CPU, "The CPU backend", "cpu" },
    { CC_BACKEND_CUDA, "The CUDA backend", "cuda" })

/* Sets active-backend (notified when it changes: gst-launch-1.0 -v prints it). */
static void
set_active_backend (GstCvFilter * self, cc_backend backend)
{
  GstCvFilterPrivate *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  gboolean changed = p->active != backend;
  p->active = backend;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE_BACKEND]);
}

/* Marks (or clears) the cancellation of the core's CPU work in flight, from any
 * thread: the streaming thread's process() then returns CC_ERROR_CANCELLED, which the
 * base turns into FLUSHING without an error (frame_error). */
static void
cancel_core (GstCvFilter * self, gboolean cancel)
{
  GstCvFilterPrivate *p = PRIV (self);
  GST_OBJECT_LOCK (self);
  GstCvCoreRef *ref = p->core_ref ? gst_cv_core_ref_ref (p->core_ref) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!ref)
    return;
  if (cancel)
    cc_context_cancel (gst_cv_core_ref_context (ref));
  else
    cc_context_resume (gst_cv_core_ref_context (ref));
  GST_DEBUG_OBJECT (self, "%s the core's work", cancel ? "cancelling" : "resuming");
  gst_cv_core_ref_unref (ref);
}

/* ------------------------------------------------------------- helpers */

const GstVideoInfo *
gst_cv_filter_get_info (GstCvFilter * filter)
{
  return &PRIV (filter)->info;
}

cc_context *
gst_cv_filter_get_context (GstCvFilter * filter)
{
  return PRIV (filter)->core;
}

cc_stream
gst_cv_filter_get_stream (GstCvFilter * filter)
{
  return PRIV (filter)->stream;
}

cc_location
gst_cv_filter_get_location (GstCvFilter * filter)
{
  return PRIV (filter)->location;
}

GstCvCoreRef *
gst_cv_filter_ref_core (GstCvFilter * filter)
{
  GstCvFilterPrivate *p = PRIV (filter);
  return p->core_ref ? gst_cv_core_ref_ref (p->core_ref) : NULL;
}

GstCvCoreRef *
gst_cv_core_ref_new (cc_context * core, gpointer cuda_context)
{
  GstCvCoreRef *ref = g_new0 (GstCvCoreRef, 1);
  ref->refcount = 1;
  ref->core = core;
  ref->cuda_ctx = gst_cv_cuda_context_ref (cuda_context);
  return ref;
}

GstCvCoreRef *
gst_cv_core_ref_ref (GstCvCoreRef * ref)
{
  g_atomic_int_inc (&ref->refcount);
  return ref;
}

void
gst_cv_core_ref_unref (GstCvCoreRef * ref)
{
  if (!ref || !g_atomic_int_dec_and_test (&ref->refcount))
    return;
  gboolean pushed = gst_cv_cuda_context_push (ref->cuda_ctx);
  cc_context_destroy (ref->core);   /* waits for the adopted stream */
  if (pushed)
    gst_cv_cuda_context_pop ();
#if CV_HAVE_GST_CUDA_STREAM
  if (ref->gst_stream)
    gst_cuda_stream_unref (ref->gst_stream);
#endif
  gst_cv_cuda_context_unref (ref->cuda_ctx);
  g_free (ref);
}

cc_context *
gst_cv_core_ref_context (GstCvCoreRef * ref)
{
  return ref->core;
}

gpointer
gst_cv_core_ref_cuda_context (GstCvCoreRef * ref)
{
  return ref->cuda_ctx;
}

void
gst_cv_filter_warn_cpu_time (GstCvFilter * filter, double seconds_per_megapixel,
    int measured_threads, const gchar * what)
{
  GstCvFilterPrivate *p = PRIV (filter);
  if (!p->core || cc_context_backend (p->core) != CC_BACKEND_CPU)
    return;
  int w = GST_VIDEO_INFO_WIDTH (&p->info), h = GST_VIDEO_INFO_HEIGHT (&p->info);
  int threads = cc_context_cpu_threads (p->core);
  double seconds = (double) w * h / 1e6 * seconds_per_megapixel * measured_threads
      / MAX (threads, 1);
  if (seconds < 1.0 || (p->warned_size[0] == w && p->warned_size[1] == h))
    return;
  p->warned_size[0] = w;
  p->warned_size[1] = h;
  GST_ELEMENT_WARNING (filter, RESOURCE, SETTINGS,
      ("%s on the CPU backend: about %.0f s per %dx%d frame", what, seconds, w, h),
      ("expected from %.1f s per megapixel on %d threads (measured on a 2-core machine), "
          "here %d threads; a GPU (backend=cuda) or a smaller frame (videoscale) is "
          "faster; setting the pipeline to NULL stops a frame in flight",
          seconds_per_megapixel, measured_threads, threads));
}

guint64
gst_cv_filter_get_frame_number (GstCvFilter * filter)
{
  return PRIV (filter)->frame_number;
}

gpointer
gst_cv_filter_get_cuda_context (GstCvFilter * filter)
{
  return PRIV (filter)->cuda_ctx;
}

gpointer
gst_cv_filter_get_cuda_stream (GstCvFilter * filter)
{
#if CV_HAVE_GST_CUDA_STREAM
  return PRIV (filter)->gst_stream;
#else
  return NULL;
#endif
}

gboolean
gst_cv_filter_writes_always (GstCvFilter * filter)
{
  return TRUE;
}

gchar *
gst_cv_filter_refuse_without_alpha (const GstVideoInfo * info, const gchar * what,
    const gchar * why, const gchar * hint, const gchar ** hint_out)
{
  if (GST_VIDEO_INFO_HAS_ALPHA (info))
    return NULL;
  *hint_out = hint;
  return g_strdup_printf ("%s needs RGBA or BGRA caps, not %s: %s", what,
      GST_VIDEO_INFO_NAME (info), why);
}

const cc_image *
gst_cv_filter_get_previous_frame (GstCvFilter * filter)
{
  GstCvFilterPrivate *p = PRIV (filter);
  return p->previous_valid ? &p->previous : NULL;
}

gboolean
gst_cv_filter_keep_frame (GstCvFilter * filter, const cc_image * frame)
{
  GstCvFilterPrivate *p = PRIV (filter);
  if (!p->have_previous_buffer || p->kept_this_frame)
    return p->kept_this_frame;
  cc_status st = cc_image_copy (p->core, p->stream, frame, &p->previous);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (filter, st, "keeping the previous frame");
    return FALSE;
  }
  p->kept_this_frame = TRUE;
  return TRUE;
}

cc_status
gst_cv_filter_keep_frame_status (GstCvFilter * filter, const cc_image * frame,
    const gchar ** what)
{
  if (gst_cv_filter_keep_frame (filter, frame))
    return CC_SUCCESS;
  *what = NULL;   /* posted */
  return CC_ERROR_INTERNAL;
}

/* Waits on the host for the element's stream (the context's, adopted). */
static cc_status
wait_for_stream (GstCvFilter * self)
{
  return cc_context_synchronize (PRIV (self)->core);
}

/* Posts "<what> failed on frame N" for a failed process() or hand-off (what NULL:
 * the subclass posted its own error). */
static GstFlowReturn
frame_error (GstCvFilter * self, cc_status st, const gchar * what)
{
  if (st == CC_ERROR_CANCELLED) {
    /* cancel_core: the element is leaving PAUSED or flushing; no error */
    GST_INFO_OBJECT (self, "frame %" G_GUINT64_FORMAT " cancelled", PRIV (self)->frame_number);
    return GST_FLOW_FLUSHING;
  }
  if (what)
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s failed on frame %" G_GUINT64_FORMAT, what,
            PRIV (self)->frame_number), ("%s: %s", cc_status_name (st), cc_last_error ()));
  return GST_FLOW_ERROR;
}

/* process() plus the previous-frame bookkeeping; *what for the hand-off's error. */
static GstFlowReturn
run_process (GstCvFilter * self, GstBuffer * buf, cc_image * frame, const gchar ** what)
{
  GstCvFilterPrivate *p = PRIV (self);
  GstCvFilterClass *klass = GST_CV_FILTER_GET_CLASS (self);
  gboolean keep = p->have_previous_buffer && klass->wants_previous_frame (self);
  if (!keep)
    p->previous_valid = FALSE;
  p->kept_this_frame = FALSE;
  *what = G_OBJECT_TYPE_NAME (self);
  cc_status st = klass->process (self, buf, frame, p->stream, what);
  if (st != CC_SUCCESS)
    return frame_error (self, st, *what);
  if (keep) {
    if (!p->kept_this_frame && !gst_cv_filter_keep_frame (self, frame))
      return GST_FLOW_ERROR;
    p->previous_valid = TRUE;
  }
  return GST_FLOW_OK;
}

void
gst_cv_filter_request_setup (GstCvFilter * filter)
{
  GST_OBJECT_LOCK (filter);
  PRIV (filter)->setup_requested = TRUE;
  GST_OBJECT_UNLOCK (filter);
}

/* Drops the per-stream state (streaming thread, before a frame): the previous frame,
 * the frame counter and, through reset(), the subclass's. */
static void
reset_stream (GstCvFilter * self)
{
  GstCvFilterPrivate *p = PRIV (self);
  GstCvFilterClass *klass = GST_CV_FILTER_GET_CLASS (self);
  GST_DEBUG_OBJECT (self, "stream reset after %" G_GUINT64_FORMAT " frames", p->frame_number);
  p->previous_valid = FALSE;
  p->frame_number = 0;
  if (p->subclass_ready && klass->reset) {
    gboolean pushed = gst_cv_cuda_context_push (p->cuda_ctx);
    klass->reset (self);
    if (pushed)
      gst_cv_cuda_context_pop ();
  }
}

/* Tears down the subclass, the staging frame and (when `all`) the contexts. */
static void
release (GstCvFilter * self, gboolean all)
{
  GstCvFilterPrivate *p = PRIV (self);
  GstCvFilterClass *klass = GST_CV_FILTER_GET_CLASS (self);
  gboolean pushed = gst_cv_cuda_context_push (p->cuda_ctx);
  if (p->subclass_ready && klass->teardown)
    klass->teardown (self);
  p->subclass_ready = FALSE;
  if (p->have_staging)
    cc_image_free (p->core, &p->staging);
  p->have_staging = FALSE;
  if (p->have_previous_buffer)
    cc_image_free (p->core, &p->previous);
  p->have_previous_buffer = p->previous_valid = FALSE;
  if (all) {
    if (p->core)
      wait_for_stream (self);   /* our frames in flight are done */
#if CV_HAVE_GST_CUDA_STREAM
    gst_clear_cuda_stream (&p->gst_stream);
#endif
    p->stream = NULL;
  }
  if (pushed)
    gst_cv_cuda_context_pop ();
  if (all) {
    /* the flow-field pool may hold the context longer (fields out downstream) */
    GST_OBJECT_LOCK (self);
    GstCvCoreRef *ref = p->core_ref;
    p->core_ref = NULL;   /* cancel_core reads it under the lock */
    GST_OBJECT_UNLOCK (self);
    gst_cv_core_ref_unref (ref);
    p->core = NULL;
    gst_cv_cuda_context_unref (p->cuda_ctx);
    p->cuda_ctx = NULL;
    p->warned_size[0] = p->warned_size[1] = 0;
    set_active_backend (self, CC_BACKEND_AUTO);
  }
}

/* Picks the backend, gets the CUDA context, creates the core context. */
static gboolean
ensure_core (GstCvFilter * self)
{
  GstCvFilterPrivate *p = PRIV (self);
  if (p->core)
    return TRUE;
  GST_OBJECT_LOCK (self);
  cc_backend want = p->backend_prop;
  gint device_id = p->device_id_prop;
  GST_OBJECT_UNLOCK (self);

  int devices = cc_cuda_device_count ();
  if (want == CC_BACKEND_CUDA && devices == 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("backend=cuda, but no CUDA device is usable"),
        ("%s; use backend=auto or backend=cpu to run on the CPU",
            cc_built_with_cuda () ? "no device or driver found" :
            "this build of cudavision has no CUDA kernels"));
    return FALSE;
  }
  if (want == CC_BACKEND_CUDA && device_id >= devices) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("cuda-device-id=%d, but only %d CUDA device(s) present", device_id, devices), (NULL));
    return FALSE;
  }
  cc_backend backend = cc_backend_resolve (want);   /* the one resolution of auto */
  if (backend == CC_BACKEND_CPU && !p->said_fallback) {
    /* gst-launch prints only the debug part of an INFO message: both parts say that
     * the CPU runs, and why. */
    if (want == CC_BACKEND_AUTO) {
      const char *why = cc_cuda_unavailable_reason ();
      gchar *text = g_strdup_printf ("no CUDA device (%s): running on the CPU backend",
          why ? why : "unknown reason");
      GST_ELEMENT_INFO (self, RESOURCE, NOT_FOUND, ("%s", text),
          ("%s (this build has CUDA kernels: %s)", text, cc_built_with_cuda () ? "yes" : "no"));
      g_free (text);
    }
    p->said_fallback = TRUE;
  }
  if (p->cuda_memory && backend == CC_BACKEND_CPU)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("CUDA memory on the CPU backend"),
        ("every frame is copied to the host and back: use backend=cuda/auto on a GPU machine"));

#if CV_HAVE_GST_CUDA
  if (backend == CC_BACKEND_CUDA && gst_cv_cuda_available () && !p->cuda_ctx) {
    GstCudaContext *c = NULL;
    if (gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id, &c))
      p->cuda_ctx = c;
  }
#endif
  if (backend == CC_BACKEND_CUDA && p->cuda_memory && !p->cuda_ctx) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, ("could not get a GstCudaContext for CUDA memory"),
        ("libgstcuda could not load the driver or share the upstream context"));
    return FALSE;
  }
  gboolean pushed = gst_cv_cuda_context_push (p->cuda_ctx);
  cc_status st = cc_context_create (backend,
      backend == CC_BACKEND_CUDA ? (pushed ? CC_DEVICE_CURRENT : device_id) : -1, &p->core);
  if (st == CC_SUCCESS) {
    GstCvCoreRef *ref = gst_cv_core_ref_new (p->core, p->cuda_ctx);
    GST_OBJECT_LOCK (self);
    p->core_ref = ref;
    GST_OBJECT_UNLOCK (self);
    /* the element's stream: a GstCudaStream of the shared GstCudaContext where
     * libgstcuda has them, adopted by the context, else the context's own; the
     * context computes on it and nothing else */
#if CV_HAVE_GST_CUDA_STREAM
    if (backend == CC_BACKEND_CUDA && p->cuda_ctx) {
      p->gst_stream = gst_cuda_stream_new (GST_CUDA_CONTEXT (p->cuda_ctx));
      if (p->gst_stream) {
        st = cc_context_adopt_stream (p->core,
            (cc_stream) gst_cuda_stream_get_handle (p->gst_stream));
        /* the reference keeps the stream as long as the context (the flow-field
         * pool may hold it after the element stops) */
        ref->gst_stream = gst_cuda_stream_ref (p->gst_stream);
      }
    }
#endif
    p->stream = cc_context_stream (p->core);
  }
  if (pushed)
    gst_cv_cuda_context_pop ();
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating the cudacore context");
    return FALSE;
  }
  GST_INFO_OBJECT (self, "backend %s, device %d, GstCudaContext %p, stream %p",
      cc_backend_name (backend), cc_context_device (p->core), p->cuda_ctx, (void *) p->stream);
  set_active_backend (self, cc_context_backend (p->core));
  return TRUE;
}

/* FALSE after posting the subclass's refusal of info (refuse_caps). */
static gboolean
caps_accepted (GstCvFilter * self, const GstVideoInfo * info)
{
  GstCvFilterClass *klass = GST_CV_FILTER_GET_CLASS (self);
  const gchar *hint = "";
  gchar *reason = klass->refuse_caps ? klass->refuse_caps (self, info, &hint) : NULL;
  if (reason)
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", reason), ("%s", hint));
  g_free (reason);
  return reason == NULL;
}

/* Runs the subclass's setup for the current info (and the staging frame). */
static gboolean
do_setup (GstCvFilter * self)
{
  GstCvFilterPrivate *p = PRIV (self);
  GstCvFilterClass *klass = GST_CV_FILTER_GET_CLASS (self);
  release (self, FALSE);
  if (!ensure_core (self))
    return FALSE;
  GST_OBJECT_LOCK (self);
  /* more threads than cores only slow the CPU path down (docs/architecture.md has the
   * figure): capped at the cores */
  gint threads = MIN (p->cpu_threads_prop, (gint) g_get_num_processors ());
  /* this setup reads every property set so far: a request made before it (a property
   * set before the caps) must not run the setup a second time on the first frame */
  p->setup_requested = FALSE;
  GST_OBJECT_UNLOCK (self);
  cc_context_set_threads (p->core, threads);   /* in range: the property's spec */
  /* the memory path and location, once for this negotiation and backend */
  gboolean on_cuda = cc_context_backend (p->core) == CC_BACKEND_CUDA;
  p->location = on_cuda ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  p->path = p->cuda_memory ? (on_cuda ? PATH_CUDA : PATH_CUDA_ON_HOST)
      : (on_cuda ? PATH_STAGED : PATH_HOST);
  /* the subclass's refusal first: nothing allocated for caps it will not take */
  gboolean ok = caps_accepted (self, &p->info);
  gboolean pushed = gst_cv_cuda_context_push (p->cuda_ctx);
  cc_format fmt = CC_FORMAT_GRAY8;
  gst_cv_video_format_to_cc (GST_VIDEO_INFO_FORMAT (&p->info), &fmt);
  const int w = GST_VIDEO_INFO_WIDTH (&p->info), h = GST_VIDEO_INFO_HEIGHT (&p->info);
  if (ok && p->path == PATH_STAGED) {
    cc_status st = cc_image_alloc (p->core, w, h, fmt, CC_LOCATION_DEVICE, &p->staging);
    if (st != CC_SUCCESS) {
      GST_CV_FILTER_CORE_ERROR (self, st, "allocating the device frame");
      ok = FALSE;
    }
    p->have_staging = ok;
  }
  if (ok && klass->wants_previous_frame) {
    cc_status st = cc_image_alloc (p->core, w, h, fmt, p->location, &p->previous);
    if (st != CC_SUCCESS) {
      GST_CV_FILTER_CORE_ERROR (self, st, "allocating the previous-frame copy");
      ok = FALSE;
    }
    p->have_previous_buffer = ok;
    p->previous_valid = FALSE;
  }
  if (ok && klass->setup)
    ok = klass->setup (self, &p->info, p->core);
  p->subclass_ready = ok;
  p->frame_number = 0;
  if (pushed)
    gst_cv_cuda_context_pop ();
  return ok;
}

/* ------------------------------------------------------------- vfuncs */

static gboolean
gst_cv_filter_accept_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps)
{
  GstVideoInfo info;
  if (GST_CV_FILTER_GET_CLASS (trans)->refuse_caps && gst_caps_is_fixed (caps)
      && gst_video_info_from_caps (&info, caps)
      && !caps_accepted (GST_CV_FILTER (trans), &info))
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_cv_filter_parent_class)->accept_caps (trans,
      direction, caps);
}

static gboolean
gst_cv_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvFilter *self = GST_CV_FILTER (trans);
  GstCvFilterPrivate *p = PRIV (self);
  GstVideoInfo info;
  cc_format fmt;
  if (!gst_video_info_from_caps (&info, incaps)
      || !gst_cv_video_format_to_cc (GST_VIDEO_INFO_FORMAT (&info), &fmt)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("unsupported caps"),
        ("%" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  GstCapsFeatures *features = gst_caps_get_features (incaps, 0);
  gboolean cuda_memory = features
      && gst_caps_features_contains (features, "memory:CUDAMemory");
  if (cuda_memory && cc_cuda_device_count () == 0) {
    /* no device: such frames cannot exist (nothing could have put them there), and the
     * CPU path would take the buffers for host memory. Refused whatever the backend. */
    const char *why = cc_cuda_unavailable_reason ();
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("CUDA memory asked for, but no CUDA device is usable"),
        ("caps %" GST_PTR_FORMAT ": %s; on a machine without a GPU negotiate system "
            "memory (video/x-raw without memory:CUDAMemory)", incaps,
            why ? why : (cc_built_with_cuda () ? "no device or driver found" :
                "this build of cudavision has no CUDA kernels")));
    return FALSE;
  }
  if (cuda_memory && p->core && p->cuda_memory != cuda_memory)
    release (self, TRUE);   /* the memory kind changed: get the upstream context anew */
  p->info = info;
  p->have_info = TRUE;
  p->cuda_memory = cuda_memory;
  GST_DEBUG_OBJECT (self, "caps %" GST_PTR_FORMAT, incaps);
  return do_setup (self);
}

/* Stream events only mark the reset: it runs on the streaming thread before the next
 * frame (FLUSH_STOP may arrive on the thread that seeks). */
static gboolean
gst_cv_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      cancel_core (GST_CV_FILTER (trans), TRUE);   /* the frame in flight is dropped */
      break;
    case GST_EVENT_FLUSH_STOP:
      cancel_core (GST_CV_FILTER (trans), FALSE);   /* the streaming thread is idle */
      /* fall through */
    case GST_EVENT_STREAM_START:
    case GST_EVENT_SEGMENT:
      GST_OBJECT_LOCK (trans);
      PRIV (trans)->reset_pending = TRUE;
      GST_OBJECT_UNLOCK (trans);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cv_filter_parent_class)->sink_event (trans, event);
}

static gboolean
gst_cv_filter_start (GstBaseTransform * trans)
{
  PRIV (trans)->have_info = FALSE;
  return TRUE;
}

static gboolean
gst_cv_filter_stop (GstBaseTransform * trans)
{
  release (GST_CV_FILTER (trans), TRUE);
  PRIV (trans)->have_info = FALSE;
  return TRUE;
}

/* Leaving PAUSED (to READY or NULL) while a frame is in flight: the pads' deactivation
 * waits for the streaming thread, so the core's CPU work is cancelled first (a 4K
 * EpicFlow frame takes tens of seconds on the CPU); stop() then destroys the context.
 * A context kept past a failed deactivation is resumed on the way back up. */
static GstStateChangeReturn
gst_cv_filter_change_state (GstElement * element, GstStateChange transition)
{
  GstCvFilter *self = GST_CV_FILTER (element);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    cancel_core (self, TRUE);
  else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    cancel_core (self, FALSE);
  return GST_ELEMENT_CLASS (gst_cv_filter_parent_class)->change_state (element, transition);
}

static void
gst_cv_filter_set_context (GstElement * element, GstContext * context)
{
#if CV_HAVE_GST_CUDA
  GstCvFilterPrivate *p = PRIV (element);
  if (gst_cv_cuda_available ()) {
    GstCudaContext *c = p->cuda_ctx;
    gst_cuda_handle_set_context (element, context, p->device_id_prop, &c);
    p->cuda_ctx = c;
  }
#endif
  GST_ELEMENT_CLASS (gst_cv_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_cv_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
#if CV_HAVE_GST_CUDA
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && PRIV (trans)->cuda_ctx
      && gst_cuda_handle_context_query (GST_ELEMENT (trans), query, PRIV (trans)->cuda_ctx))
    return TRUE;
#endif
  return GST_BASE_TRANSFORM_CLASS (gst_cv_filter_parent_class)->query (trans, direction, query);
}

static gboolean
gst_cv_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  GstCvFilterPrivate *p = PRIV (trans);
  /* in place: the parent forwards the query downstream (decide_query is NULL), whose
   * answer says whether every consumer there waits for a fence (gstcvhandoff.h) */
  GST_BASE_TRANSFORM_CLASS (gst_cv_filter_parent_class)->propose_allocation (trans,
      decide_query, query);
  guint index;
  gboolean waits = gst_query_find_allocation_meta (query, GST_CV_FENCE_META_API_TYPE, &index);
  GST_OBJECT_LOCK (trans);
  p->downstream_waits = waits;
  GST_OBJECT_UNLOCK (trans);
  GST_DEBUG_OBJECT (trans, "downstream %s for a fence", waits ? "waits" : "does not wait");
  /* our own answer to upstream: we wait for fences when we read CUDA memory on the
   * device (not on the CPU backend, whose host mapping does not see them) */
  if (p->path == PATH_CUDA && !waits)
    gst_query_add_allocation_meta (query, GST_CV_FENCE_META_API_TYPE, NULL);
  else if (p->path != PATH_CUDA && waits)
    gst_query_remove_nth_allocation_meta (query, index);
  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

#if CV_HAVE_GST_CUDA
/* CUDA memory on the CUDA backend: the device planes, no copy. */
static GstFlowReturn
process_cuda_memory (GstCvFilter * self, GstBuffer * buf, gboolean writes)
{
  GstCvFilterPrivate *p = PRIV (self);
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ? gst_buffer_peek_memory (buf, 0) : NULL;
  if (!mem || !gst_is_cuda_memory (mem)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("caps say CUDA memory, but buffer %"
            G_GUINT64_FORMAT " is not one GstCudaMemory", p->frame_number), (NULL));
    return GST_FLOW_ERROR;
  }
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  if ((gpointer) cmem->context != p->cuda_ctx) {
    /* Our stream and scratch must live in the frame's CUDA context: adopt it. */
    GST_INFO_OBJECT (self, "adopting the frames' GstCudaContext %p", cmem->context);
    release (self, TRUE);
    p->cuda_ctx = gst_object_ref (cmem->context);
    if (!do_setup (self))
      return GST_FLOW_ERROR;
  }
  GstMapInfo map;
  GstMapFlags flags = GST_MAP_READ | GST_MAP_CUDA | (writes ? GST_MAP_WRITE : 0);
  if (!gst_memory_map (mem, &map, flags)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("cannot map CUDA memory of frame %"
            G_GUINT64_FORMAT, p->frame_number), (NULL));
    return GST_FLOW_ERROR;
  }
  cc_image img = { 0 };
  gst_cv_video_format_to_cc (GST_VIDEO_INFO_FORMAT (&cmem->info), &img.format);
  img.width = GST_VIDEO_INFO_WIDTH (&p->info);
  img.height = GST_VIDEO_INFO_HEIGHT (&p->info);
  img.location = CC_LOCATION_DEVICE;
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (&cmem->info) && i < CC_MAX_PLANES; i++) {
    img.planes[i] = (guint8 *) map.data + GST_VIDEO_INFO_PLANE_OFFSET (&cmem->info, i);
    img.pitch[i] = GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, i);
  }
  GstFlowReturn ret = GST_FLOW_ERROR;
  if (gst_cv_cuda_context_push (p->cuda_ctx)) {
    const gchar *what = "waiting for the frame's producer";
    cc_status st = gst_cv_cuda_memory_wait (p->core, mem);
    if (st != CC_SUCCESS)
      ret = frame_error (self, st, what);
    else
      ret = run_process (self, buf, &img, &what);
    GST_OBJECT_LOCK (self);
    gboolean downstream_waits = p->downstream_waits;
    GST_OBJECT_UNLOCK (self);
    if (ret == GST_FLOW_OK && (st = gst_cv_cuda_memory_hand_off (p->core, p->cuda_ctx, mem,
                downstream_waits)) != CC_SUCCESS)
      ret = frame_error (self, st, what);
    gst_cv_cuda_context_pop ();
  } else {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("cannot push the frame's CUDA context"), (NULL));
  }
  gst_memory_unmap (mem, &map);
  return ret;
}
#endif

static GstFlowReturn
gst_cv_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCvFilter *self = GST_CV_FILTER (trans);
  GstCvFilterPrivate *p = PRIV (self);
  GstCvFilterClass *klass = GST_CV_FILTER_GET_CLASS (self);

  if (!p->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("no caps before the first buffer"), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GST_OBJECT_LOCK (self);
  gboolean again = p->setup_requested;
  gboolean reset = p->reset_pending || GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);
  p->setup_requested = p->reset_pending = FALSE;
  GST_OBJECT_UNLOCK (self);
  if ((again || !p->subclass_ready) && !do_setup (self))
    return GST_FLOW_ERROR;
  if (reset)
    reset_stream (self);

  gboolean writes = klass->writes_frame ? klass->writes_frame (self) : FALSE;
  GstFlowReturn ret;
#if CV_HAVE_GST_CUDA
  if (p->path == PATH_CUDA) {
    ret = process_cuda_memory (self, buf, writes);
    p->frame_number++;
    return ret;
  }
#endif
  GstVideoFrame vf;
  /* NO_REF: the subclass adds metas, which needs the buffer to stay writable */
  if (!gst_video_frame_map (&vf, &p->info, buf, GST_MAP_READ | (writes ? GST_MAP_WRITE : 0)
          | GST_VIDEO_FRAME_MAP_FLAG_NO_REF)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("cannot map frame %" G_GUINT64_FORMAT,
            p->frame_number), (NULL));
    return GST_FLOW_ERROR;
  }
  cc_image host = gst_cv_video_frame_view (&vf, CC_LOCATION_HOST);
  const gchar *what = NULL;
  if (p->path != PATH_STAGED) {
    /* the CPU backend: done when process() returns */
    ret = run_process (self, buf, &host, &what);
  } else {
    gboolean pushed = gst_cv_cuda_context_push (p->cuda_ctx);
    cc_status st = cc_image_copy (p->core, p->stream, &host, &p->staging);
    if (st != CC_SUCCESS) {
      ret = frame_error (self, st, "uploading the frame");
    } else {
      ret = run_process (self, buf, &p->staging, &what);
      /* the hand-off to host memory: the download waits for the stream; without one,
       * the metas (device fields read from the host downstream) need the wait */
      if (ret == GST_FLOW_OK) {
        st = writes ? cc_image_copy (p->core, p->stream, &p->staging, &host)
            : wait_for_stream (self);
        if (st != CC_SUCCESS)
          ret = frame_error (self, st, writes ? "downloading the frame" : what);
      }
    }
    if (pushed)
      gst_cv_cuda_context_pop ();
  }
  gst_video_frame_unmap (&vf);
  p->frame_number++;
  return ret;
}

void
gst_cv_filter_class_add_pad_templates (GstCvFilterClass * klass)
{
  gst_cv_filter_class_add_pad_templates_full (klass, GST_CV_SYSTEM_FORMATS,
      GST_CV_CUDA_FORMATS);
}

void
gst_cv_filter_class_add_pad_templates_full (GstCvFilterClass * klass,
    const gchar * system_formats, const gchar * cuda_formats)
{
  gchar *s = g_strdup_printf (GST_VIDEO_CAPS_MAKE ("%s"), system_formats);
  GstCaps *caps = gst_caps_from_string (s);
  g_free (s);
#if CV_HAVE_GST_CUDA
  s = g_strdup_printf (GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", "%s"),
      cuda_formats);
  gst_caps_append (caps, gst_caps_from_string (s));
  g_free (s);
#endif
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (GST_ELEMENT_CLASS (klass),
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

/* ------------------------------------------------------------- GObject */

static void
gst_cv_filter_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCvFilterPrivate *p = PRIV (object);
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND: p->backend_prop = g_value_get_enum (value); break;
    case PROP_CUDA_DEVICE_ID: p->device_id_prop = g_value_get_int (value); break;
    case PROP_CPU_THREADS:
      p->cpu_threads_prop = g_value_get_int (value);
      p->setup_requested = TRUE;   /* modules size their per-thread scratch at setup */
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cv_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCvFilterPrivate *p = PRIV (object);
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_BACKEND: g_value_set_enum (value, p->backend_prop); break;
    case PROP_CUDA_DEVICE_ID: g_value_set_int (value, p->device_id_prop); break;
    case PROP_CPU_THREADS: g_value_set_int (value, p->cpu_threads_prop); break;
    case PROP_ACTIVE_BACKEND: g_value_set_enum (value, p->active); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cv_filter_finalize (GObject * object)
{
  release (GST_CV_FILTER (object), TRUE);
  G_OBJECT_CLASS (gst_cv_filter_parent_class)->finalize (object);
}

static void
gst_cv_filter_class_init (GstCvFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (cv_filter_debug, "cvfilter", 0, "cudavision base filter");
  gobject_class->set_property = gst_cv_filter_set_property;
  gobject_class->get_property = gst_cv_filter_get_property;
  gobject_class->finalize = gst_cv_filter_finalize;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the algorithm runs: auto (CUDA when a device is present), cpu or cuda",
          GST_TYPE_CV_BACKEND, DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = the upstream element's, or the first)", -1, 64,
          DEFAULT_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CPU_THREADS,
      g_param_spec_int ("cpu-threads", "CPU threads",
          "Threads of the CPU backend (0 = all cores; 1 = the single-threaded reference). "
          "More than the machine's cores (g_get_num_processors) runs on the cores",
          0, CC_CONTEXT_THREADS_MAX, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));

  properties[PROP_ACTIVE_BACKEND] = g_param_spec_enum ("active-backend", "Active backend",
      "The backend the element runs on: none until its first caps, then cpu or cuda "
      "(what backend=auto resolved to); none again after it leaves PAUSED",
      GST_TYPE_CV_ACTIVE_BACKEND, CC_BACKEND_AUTO, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      properties[PROP_ACTIVE_BACKEND]);

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_cv_filter_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cv_filter_set_context);
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_cv_filter_accept_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cv_filter_set_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cv_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cv_filter_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cv_filter_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cv_filter_query);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cv_filter_propose_allocation);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cv_filter_transform_ip);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_CV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CV_ACTIVE_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CV_FILTER, 0);
}

static void
gst_cv_filter_init (GstCvFilter * self)
{
  GstCvFilterPrivate *p = PRIV (self);
  p->backend_prop = DEFAULT_BACKEND;
  p->device_id_prop = DEFAULT_CUDA_DEVICE_ID;
  p->active = CC_BACKEND_AUTO;
}
