/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCvFilter: the base class every cudavision video element derives from.
 *
 * It turns each buffer, in system memory or in CUDA memory (from cudaupload or
 * nvh264dec), into a cudacore image view that lives where the chosen backend
 * computes, with no host copy for CUDA memory on the CUDA backend:
 *
 *   memory   backend  what the subclass gets
 *   system   cpu      the mapped frame
 *   system   cuda     a device copy (uploaded; downloaded back if the subclass wrote it)
 *   CUDA     cuda     the device frame itself (GstCudaContext pushed around the call)
 *   CUDA     cpu      a host mapping made by GstCudaMemory (slow; said once in the log)
 *
 * It owns the `backend`, `cuda-device-id` and `cpu-threads` properties and the
 * read-only `active-backend` (none, then the cpu or cuda that `backend` resolved to),
 * shares the GstCudaContext with cudaupload/nvh264dec (context query / set_context),
 * creates the cudacore context, and calls the subclass's setup() on each caps or
 * backend change.
 *
 * Cancellation: leaving PAUSED (towards READY or NULL) and FLUSH_START mark the
 * cudacore context cancelled (cc_context_cancel) before the streaming thread is waited
 * for, so that long CPU work in flight (cc_epic_compute) returns CC_ERROR_CANCELLED
 * within a second; process() returns that status and the base drops the frame
 * (GST_FLOW_FLUSHING, no error). FLUSH_STOP clears the mark.
 *
 * Frame lifecycle: one stream per element, on which its cudacore context computes
 * (cc_context_adopt_stream: on GStreamer 1.24+ a GstCudaStream of the shared
 * GstCudaContext, else the context's own), handed to process(). After process() the
 * base hands the frame off: host outputs wait for the stream; CUDA memory goes on by
 * the one rule of gstcvhandoff.h (nvcodec's NEED_SYNC where the memory has a
 * GstCudaStream; else a fence when every consumer downstream answered the
 * allocation query that it waits for one, a host wait otherwise). Each element
 * answers that query for itself: it waits for fences when it reads CUDA memory on
 * the device.
 * Per-stream state: on FLUSH_STOP (a flushing seek), STREAM_START, a new SEGMENT and a
 * buffer flagged DISCONT, the base drops the previous frame and the frame counter and
 * calls the subclass's reset() before the next frame, so that frame behaves like the
 * stream's first. A caps change does the same through teardown() and setup(). */
#ifndef GST_CV_FILTER_H
#define GST_CV_FILTER_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <cudacore/cc_core.h>
#include "gstcvframe.h"

G_BEGIN_DECLS

#define GST_TYPE_CV_FILTER (gst_cv_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCvFilter, gst_cv_filter, GST, CV_FILTER, GstBaseTransform)

#define GST_TYPE_CV_BACKEND (gst_cv_backend_get_type ())
GType gst_cv_backend_get_type (void);

/* Formats every cudavision video element takes. CUDA memory excludes GRAY8: the
 * 1.22 CUDA allocator aborts on it (see docs/architecture.md). */
#define GST_CV_SYSTEM_FORMATS "{ GRAY8, NV12, I420, RGBA, BGRA, RGBx, BGRx }"
#define GST_CV_CUDA_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx }"
/* Colour formats alone (elements that need colour: no GRAY8). */
#define GST_CV_COLOR_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx }"

/* The subclass contract. The base owns each frame's GPU life: it derives once per
 * negotiation where frames and scratch live (gst_cv_filter_get_location), owns the
 * element's stream and passes it to process(), then does the end-of-frame hand-off
 * (a wait, or downstream ordered after the stream) and reports a failure once, as
 * "<what> failed on frame N". */
struct _GstCvFilterClass
{
  GstBaseTransformClass parent_class;

  /* (Re)creates the subclass's cudacore objects for `info` on `ctx`; called with
   * the CUDA context pushed. Return FALSE after posting an error. */
  gboolean (*setup) (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx);
  /* Destroys them (CUDA context pushed). Must be safe to call twice. */
  void (*teardown) (GstCvFilter * filter);
  /* TRUE when process() will write into the frame (the frame is then mapped
   * writable, and downloaded back when it was uploaded). */
  gboolean (*writes_frame) (GstCvFilter * filter);
  /* Submits one frame's work on `stream` (the element's: give it to every cudacore
   * call) and attaches the frame's metas; `frame` lives where the backend computes
   * and may be written in place. Nothing needs to wait: the base hands the frame off
   * after it. Returns CC_SUCCESS, or the failing status with *what naming the work
   * ("optical flow"): the base posts "<what> failed on frame N" with the core's
   * message. *what may be set before the work and kept on success: a failure of the
   * hand-off is reported with it. A subclass that posted its own error returns a
   * failing status with *what = NULL. */
  cc_status (*process) (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
      cc_stream stream, const gchar ** what);
  /* Optional: TRUE while process() needs the previous frame
   * (gst_cv_filter_get_previous_frame): the base class then keeps a copy of each
   * frame, before any drawing, in the backend's memory (allocated at setup when the
   * vfunc exists). */
  gboolean (*wants_previous_frame) (GstCvFilter * filter);
  /* Optional: drops every piece of state the subclass keeps across frames
   * (trajectories, a core object's previous frame...). Called on the streaming
   * thread, CUDA context pushed, before the first frame after a flush, a new
   * segment or stream, or a DISCONT buffer; never concurrently with process(). */
  void (*reset) (GstCvFilter * filter);
  /* Optional: why the element, as its properties stand, refuses caps of `info` (a
   * format a mode cannot write), or NULL when it takes them. The base posts the
   * reason as a CORE NEGOTIATION error with *hint (what to do instead: set it to a
   * static string when refusing) as its debug text, from accept_caps (fixed caps:
   * refused) and before setup() (the setup fails). The caps queries are not
   * narrowed: a link to a capsfilter of a refused format would then fail in
   * gst_parse_launch with a bare "could not link", before any message could say
   * why. Returns a newly allocated string. */
  gchar *(*refuse_caps) (GstCvFilter * filter, const GstVideoInfo * info,
      const gchar ** hint);
};

/* A writes_frame for subclasses that write into every frame: TRUE. */
gboolean gst_cv_filter_writes_always (GstCvFilter * filter);
/* For refuse_caps, a mode that writes the alpha channel: NULL when the format of
 * `info` has one (RGBA, BGRA), else the reason "<what> needs RGBA or BGRA caps, not
 * <format>: <why>" (newly allocated), with *hint_out = hint (a static string). */
gchar *gst_cv_filter_refuse_without_alpha (const GstVideoInfo * info, const gchar * what,
    const gchar * why, const gchar * hint, const gchar ** hint_out);

/* The previous frame of the stream (a copy where the backend computes), or NULL
 * on the first frame after a setup. Valid during process(). */
const cc_image *gst_cv_filter_get_previous_frame (GstCvFilter * filter);
/* For subclasses that draw: copies the current frame into the previous-frame slot
 * now (before drawing). Otherwise the base class copies it after process().
 * FALSE after posting an error. */
gboolean gst_cv_filter_keep_frame (GstCvFilter * filter, const cc_image * frame);
/* gst_cv_filter_keep_frame as process() reports it: CC_SUCCESS, or CC_ERROR_INTERNAL
 * with *what = NULL (the error is posted). */
cc_status gst_cv_filter_keep_frame_status (GstCvFilter * filter, const cc_image * frame,
    const gchar ** what);

/* Adds the sink and src templates: system memory in GST_CV_SYSTEM_FORMATS and,
 * in CUDA builds, memory:CUDAMemory in GST_CV_CUDA_FORMATS. */
void gst_cv_filter_class_add_pad_templates (GstCvFilterClass * klass);
/* The same with the element's own format lists (GStreamer list syntax). */
void gst_cv_filter_class_add_pad_templates_full (GstCvFilterClass * klass,
    const gchar * system_formats, const gchar * cuda_formats);

/* The negotiated video info (valid after caps). */
const GstVideoInfo *gst_cv_filter_get_info (GstCvFilter * filter);
/* The cudacore context (valid in setup/process). */
cc_context *gst_cv_filter_get_context (GstCvFilter * filter);
/* The element's stream (valid in setup/process; NULL on the CPU backend): the one
 * process() is given, for helpers that submit work on the subclass's behalf. */
cc_stream gst_cv_filter_get_stream (GstCvFilter * filter);
/* Where the frames given to process() and the subclass's images live: device memory
 * on the CUDA backend, host memory on the CPU backend. Derived once per negotiation
 * (valid in setup/process). */
cc_location gst_cv_filter_get_location (GstCvFilter * filter);
/* For setup() of a method that is slow on the CPU: when the backend is the CPU and a
 * frame of the negotiated size is expected to take a second or more (the pixel count
 * times `seconds_per_megapixel`, measured on `measured_threads` threads, scaled to the
 * context's threads), posts one element warning with the expected time, once per
 * frame size. `what` names the work ("EpicFlow optical flow"). */
void gst_cv_filter_warn_cpu_time (GstCvFilter * filter, double seconds_per_megapixel,
    int measured_threads, const gchar * what);
/* Frame counter since the last setup or stream reset (for messages). */
guint64 gst_cv_filter_get_frame_number (GstCvFilter * filter);
/* The GstCudaContext in use, or NULL (transfer none). */
gpointer gst_cv_filter_get_cuda_context (GstCvFilter * filter);
/* The element's GstCudaStream (GStreamer 1.24+, CUDA backend with a GstCudaContext:
 * the stream the context adopted), or NULL (transfer none; valid in setup/process). */
gpointer gst_cv_filter_get_cuda_stream (GstCvFilter * filter);
/* Asks for setup() to run again before the next frame (a property that changes
 * buffer sizes). Takes the object lock itself. */
void gst_cv_filter_request_setup (GstCvFilter * filter);

/* The element's cudacore context held by something that may outlive the element's
 * current setup (the flow-field pool whose fields travel downstream): a reference
 * that keeps the context, its stream and its GstCudaContext alive. */
typedef struct _GstCvCoreRef GstCvCoreRef;
/* A new reference to the context of the current setup, or NULL before one. */
GstCvCoreRef *gst_cv_filter_ref_core (GstCvFilter * filter);
/* A reference that owns `core` (destroyed with the last reference, with
 * `cuda_context` pushed) and holds a reference of `cuda_context` (a GstCudaContext,
 * or NULL). The filter makes one per setup; tools that use the gst/ helpers
 * without an element make their own. */
GstCvCoreRef *gst_cv_core_ref_new (cc_context * core, gpointer cuda_context);
GstCvCoreRef *gst_cv_core_ref_ref (GstCvCoreRef * ref);
void gst_cv_core_ref_unref (GstCvCoreRef * ref);
cc_context *gst_cv_core_ref_context (GstCvCoreRef * ref);
/* The GstCudaContext, or NULL (transfer none). */
gpointer gst_cv_core_ref_cuda_context (GstCvCoreRef * ref);

/* Converts a cc_status into an element error with the core's message (setup and
 * property errors; process() failures are reported by the base). */
#define GST_CV_FILTER_CORE_ERROR(filter, status, what)                              \
  GST_ELEMENT_ERROR ((filter), LIBRARY, FAILED, ("%s failed: %s", (what),          \
          cc_status_name (status)), ("%s", cc_last_error ()))

G_END_DECLS
#endif
