/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudacore: the algorithms of cudavision behind a plain C11 API.
 *
 * Conventions (every module follows them):
 *  - one public prefix, cc_; opaque handles with create / compute / destroy;
 *  - verbs: cc_<module>_compute queues one frame's (or one input's) work on a stream;
 *    cc_<module>_compute_video is the streaming variant that keeps what it derived
 *    from the previous frame, and cc_<module>_reset forgets it (every reset returns a
 *    cc_status); cc_<module>_draw draws a handle's results into a frame;
 *    set_params / get_params change and read the parameters, whose defaults live in
 *    one place, cc_<module>_params_default (the struct's field comments give the same
 *    numbers);
 *  - every call returns a cc_status, except destroy, getters and queries that cannot
 *    fail (void, a count, a name); cc_last_error() gives a per-thread message saying
 *    what went wrong (which argument, which value, which CUDA error). Every call may
 *    return CC_ERROR_INVALID_ARGUMENT (a NULL handle or pointer, a value out of range,
 *    an image of the wrong size, format or location) and, on the CUDA backend,
 *    CC_ERROR_CUDA (a CUDA call or launch failed); the comment of each call names the
 *    others it returns;
 *  - each call's comment tags its parameters [in], [out] or [in,out] with their
 *    constraints; images are "where the context computes" (device memory for CUDA,
 *    host memory for CPU) unless the comment says host or device is accepted;
 *  - image views never own memory: the caller's frames are read and written in
 *    place, on the host or on the device;
 *  - scratch memory is allocated at create time for a size and reused; nothing is
 *    allocated per frame;
 *  - streams: every submit call takes the stream it runs on as its argument right
 *    after the handle (after ctx for context-level calls such as cc_image_copy),
 *    as CV-CUDA's cvcudaFlipSubmit (handle, stream, in, out). NULL means the
 *    context's stream (cc_context_stream: its own, or one it adopted); the CPU
 *    backend ignores it. create, destroy, set_params and get_params take no
 *    stream; a create that initialises device memory waits for it, so that a first
 *    call on any stream finds it done;
 *  - waiting (the CPU backend computes in the call, so this is about CUDA): a call
 *    waits for its stream only
 *     (a) when its name ends in _sync (it waits for its own result:
 *         cc_apsp_compute_sync, cc_match_download_sync), or it is
 *         cc_context_synchronize;
 *     (b) when it returns results in host memory (a host output image, a host array,
 *         a value such as a timer's): it copies them on the call's stream and waits
 *         for that. Readbacks of a handle's last results that take no stream
 *         (cc_apsp_get_rows, cc_moct_get_trajectory, cc_cvd_get_sites, ...) use the
 *         stream of the handle's last submit call and wait for it;
 *     (c) when its inputs are in host memory: it uploads them and waits for the
 *         upload;
 *     (d) when it is a configuration call, which takes no stream (create,
 *         set_params, set_objects): a create that initialises device memory waits
 *         for it, so that a first call on any stream finds it done, and a call that
 *         replaces what the last submit's stream reads waits for that stream first.
 *         destroy, cc_image_free and a set_params that reallocates free device
 *         memory with cudaFree, which waits for the device.
 *    Each header lists its calls that wait;
 *  - a handle's work is ordered on the stream each call gives: a handle used on two
 *    streams needs the caller to order them (an event, or a wait), as its scratch is
 *    shared; different handles on different streams run concurrently;
 *  - the device: the context selects it once at creation (cudaSetDevice for a
 *    device id, nothing for CC_DEVICE_CURRENT); calls never switch it, so a thread
 *    that uses a context on a device other than its current one makes it current
 *    first.
 *
 * Calls of this header that wait (CUDA): cc_context_synchronize; cc_context_destroy
 * (for the context's stream); cc_image_copy with a host side; cc_image_free of a
 * device image (cudaFree). The others do not.
 *
 * This header compiles without the CUDA toolkit. */
#ifndef CUDACORE_CC_CORE_H
#define CUDACORE_CC_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaStream_t without the CUDA headers. */
typedef struct CUstream_st *cc_stream;

typedef enum cc_status {
  CC_SUCCESS = 0,
  CC_ERROR_INVALID_ARGUMENT,  /* a parameter out of range, a size mismatch, a NULL */
  CC_ERROR_OUT_OF_MEMORY,     /* host or device allocation failed */
  CC_ERROR_NO_DEVICE,         /* CUDA asked for, but no usable device or driver */
  CC_ERROR_NOT_SUPPORTED,     /* format or backend this build or call does not handle */
  CC_ERROR_CUDA,              /* a CUDA runtime call or kernel launch failed */
  CC_ERROR_IO,                /* a file could not be read or written */
  CC_ERROR_CORRUPT_DATA,      /* a file or buffer is malformed */
  CC_ERROR_INTERNAL,
  CC_ERROR_CANCELLED          /* cc_context_cancel stopped the call (CPU backend) */
} cc_status;

/* "CC_ERROR_INVALID_ARGUMENT" etc.; "CC_ERROR_UNKNOWN" outside the enum. Never NULL. */
const char *cc_status_name (cc_status status);
/* Message of the last failing cc_ call on this thread ("" if none). Never NULL. */
const char *cc_last_error (void);
/* Records a printf-style message as this thread's last error and returns `status`:
 * for code that reports its own failures through cc_status (the modules, and the
 * tools' and plugins' helpers that return one). */
cc_status cc_set_error (cc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;

typedef enum cc_backend {
  CC_BACKEND_AUTO = 0,   /* CUDA when a device exists, else CPU */
  CC_BACKEND_CPU,
  CC_BACKEND_CUDA
} cc_backend;

/* "auto", "cpu", "cuda"; "unknown" otherwise. Never NULL. */
const char *cc_backend_name (cc_backend backend);
/* True when this build contains the CUDA kernels. */
bool cc_built_with_cuda (void);
/* Number of usable CUDA devices; 0 without CUDA build, driver or device. Never fails. */
int cc_cuda_device_count (void);
/* Why no CUDA device is usable, for messages ("this build has no CUDA kernels", the
 * driver's own error such as "CUDA driver version is insufficient..."), or NULL when
 * cc_cuda_device_count () > 0. Never fails. */
const char *cc_cuda_unavailable_reason (void);

/* device_id for cc_context_create: */
#define CC_DEVICE_AUTO    (-1)  /* device 0 (primary context) */
#define CC_DEVICE_CURRENT (-2)  /* the CUDA context current on this thread (e.g. a
                                   pushed GstCudaContext); the core never switches it */

typedef struct cc_context cc_context;

/* The backend `backend` stands for: AUTO becomes CUDA when a device is usable, else
 * CPU (the device count is probed once per process); CPU and CUDA stay. The one
 * place that resolves AUTO (cc_context_create uses it too). */
cc_backend cc_backend_resolve (cc_backend backend);

/* [in] backend: AUTO resolves to CUDA or CPU here, once.
 * [in] device_id: >= 0, CC_DEVICE_AUTO or CC_DEVICE_CURRENT (used by CUDA only).
 * [out] out: new context (NULL on error); for CUDA it owns a non-blocking stream.
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (out NULL, unknown backend, device_id
 * below CC_DEVICE_CURRENT); CC_ERROR_NO_DEVICE (CUDA asked for without a usable
 * device, or a device_id past the last one); CC_ERROR_OUT_OF_MEMORY; CC_ERROR_CUDA.
 * Does not wait. */
cc_status cc_context_create (cc_backend backend, int device_id, cc_context **out);
/* [in] ctx: a context no handle uses any more, or NULL (no-op). Waits for the
 * context's stream (CUDA), then frees it. */
void cc_context_destroy (cc_context *ctx);
cc_backend cc_context_backend (const cc_context *ctx);   /* never AUTO; CPU for NULL */
int cc_context_device (const cc_context *ctx);           /* -1 for CPU or NULL */
cc_stream cc_context_stream (const cc_context *ctx);     /* NULL for CPU or NULL */
/* Makes `stream` the context's stream: what cc_context_stream returns, what a NULL
 * stream argument stands for and what cc_context_synchronize waits for, from now on
 * (a GStreamer element's GstCudaStream, so that the context computes on one stream).
 * The context does not own it: the caller keeps it alive until it adopts another or
 * destroys the context. NULL goes back to the context's own stream. Call it between
 * frames: work already queued stays on the stream it was queued on.
 * [in,out] ctx; [in] stream: a CUDA stream of the context's device, or NULL.
 * Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (ctx NULL; a non-NULL stream for a
 * CPU context). Does not wait. */
cc_status cc_context_adopt_stream (cc_context *ctx, cc_stream stream);
/* Waits for all work submitted on the context's stream (cc_context_stream; not on
 * other streams the caller passed). [in] ctx. Returns CC_SUCCESS (at once on CPU),
 * CC_ERROR_INVALID_ARGUMENT (ctx NULL), or CC_ERROR_CUDA (the stream's work failed).
 * Waits. */
cc_status cc_context_synchronize (cc_context *ctx);

/* A point in a stream's work, to order another stream after it without a host wait
 * (two handles or two contexts of one CUDA context, such as two elements of one
 * pipeline that share a GstCudaContext; the CUDA context that records a fence is the
 * one current on the calling thread, and waits and the destroy use it too).
 * cc_fence_record marks what `stream` (NULL = ctx's) has been given so far; on the
 * CPU backend there is nothing to wait for and *out is NULL. cc_fence_wait makes
 * `stream` wait on the device for the fence (NULL fence: nothing to do); it does not
 * block the host. A fence may be destroyed while waits on it are pending.
 * [in] ctx: not NULL. [in] stream: a stream of ctx's device, or NULL.
 * [out] out: the fence (NULL on CPU and on error). [in] fence: a recorded fence or NULL.
 * Both return CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (ctx or out NULL),
 * CC_ERROR_OUT_OF_MEMORY (record) or CC_ERROR_CUDA. Neither waits. */
typedef struct cc_fence cc_fence;
cc_status cc_fence_record (cc_context *ctx, cc_stream stream, cc_fence **out);
cc_status cc_fence_wait (cc_context *ctx, cc_stream stream, const cc_fence *fence);
void cc_fence_destroy (cc_fence *fence);   /* NULL: no-op */

/* Threads of the context's CPU work (the OpenMP team of every module's CPU path):
 * 0 = all cores of the machine (the default), N = exactly N threads, more than the
 * cores allowed (1..CC_CONTEXT_THREADS_MAX; tests use it to split work unevenly).
 * Results do not depend on it: the CPU path gives the same bits with any count. Each
 * context keeps its own setting, so contexts used from different threads do not
 * interfere. A build without OpenMP accepts the setting and runs on one thread.
 * Negative or too large: INVALID_ARGUMENT (also for a NULL ctx). Set it between calls,
 * not while a module computes on the context. Does not wait.
 * The maximum is 256: past the cores every thread only adds its start and its share of
 * each barrier (docs/architecture.md has the figure); machines with more cores than
 * that use 0 (all cores). */
#define CC_CONTEXT_THREADS_MAX 256
cc_status cc_context_set_threads (cc_context *ctx, int threads);
/* The setting as given (0 = all cores); 0 for a NULL context. */
int cc_context_threads (const cc_context *ctx);
/* The threads the context's CPU work runs on: the setting, or the cores available
 * to the process when it is 0 (or ctx is NULL); 1 in a build without OpenMP. (Each
 * CPU loop of the core asks for this many with a num_threads clause rather than
 * omp_set_num_threads, a per-thread global that two contexts would share.) */
int cc_context_cpu_threads (const cc_context *ctx);
/* True when this build runs the CPU paths on several threads (OpenMP). */
bool cc_built_with_openmp (void);

/* Cancellation of long CPU work, from another thread (a GStreamer element going to
 * READY while a frame is in flight). cc_context_cancel marks the context: the CPU
 * paths of cc_epic_compute, cc_match_compute, cc_interp_compute and cc_refine_compute look at
 * the mark between their stages and passes (each pass well under a second apart for
 * a 3840x2160 frame on the dev machine, 2 cores) and return CC_ERROR_CANCELLED, their
 * outputs undefined; so does every such call until cc_context_resume clears the mark
 * (cc_epic_compute returns it through its parts).
 * Other modules and the CUDA backend (submitted work completes) do not look at it.
 * Both are safe to call from any thread while a call runs on the context; NULL is
 * ignored. cc_context_cancelled says whether the mark is set. */
void cc_context_cancel (cc_context *ctx);
void cc_context_resume (cc_context *ctx);
bool cc_context_cancelled (const cc_context *ctx);

/* ---------------------------------------------------------------- parameters */

typedef enum cc_param_kind {
  CC_PARAM_INT = 0,             /* an int field */
  CC_PARAM_FLOAT                /* a float field */
} cc_param_kind;

/* One tunable field of a module's parameter struct, described for a user interface
 * (an element builds its properties from these) and for the range check. */
typedef struct cc_param_info {
  const char *name;             /* the element's property name, e.g. "sigma-l" */
  const char *field;            /* the field's C name, e.g. "sigma_l" */
  const char *nick;             /* a short title */
  const char *blurb;            /* what the value does, for a user */
  cc_param_kind kind;
  size_t offset;                /* of the field in the parameter struct */
  double min, max;              /* the accepted range, both included (a float field:
                                   compared as floats) */
} cc_param_info;

/* ---------------------------------------------------------------- images */

typedef enum cc_location { CC_LOCATION_HOST = 0, CC_LOCATION_DEVICE } cc_location;

typedef enum cc_format {
  CC_FORMAT_GRAY8 = 0,  /* 1 plane, 1 byte */
  CC_FORMAT_RGBX8,      /* 1 plane, bytes R G B X (RGBA, RGBx) */
  CC_FORMAT_BGRX8,      /* 1 plane, bytes B G R X (BGRA, BGRx) */
  CC_FORMAT_NV12,       /* Y plane, interleaved UV plane at half size */
  CC_FORMAT_I420,       /* Y, U, V planes; chroma at half size (rounded up) */
  CC_FORMAT_F32,        /* 1 plane of float */
  CC_FORMAT_F32C2       /* 1 plane of float pairs (flow u, v) */
} cc_format;

#define CC_MAX_PLANES 3

/* A view: never owns its memory. pitch is in bytes. */
typedef struct cc_image {
  void *planes[CC_MAX_PLANES];
  size_t pitch[CC_MAX_PLANES];
  int width, height;
  cc_format format;
  cc_location location;
} cc_image;

/* What goes behind a foreground when a module composites one over it. */
typedef enum cc_background_kind {
  CC_BACKGROUND_IMAGE = 0,   /* image: same size and format as the frame */
  CC_BACKGROUND_COLOR,       /* r, g, b */
  CC_BACKGROUND_BLUR         /* the frame under a box blur of blur_radius (1..256) */
} cc_background_kind;

typedef struct cc_background {
  cc_background_kind kind;
  const cc_image *image;
  uint8_t r, g, b;
  int blur_radius;
} cc_background;

/* "GRAY8", ...; "unknown" for a value outside the enum. Never NULL. */
const char *cc_format_name (cc_format format);
/* Planes of the format: 2 for NV12, 3 for I420, else 1. */
int cc_format_planes (cc_format format);
/* A single-plane view of `data` (nothing is checked or copied). */
cc_image cc_image_view (void *data, size_t pitch, int width, int height,
    cc_format format, cc_location location);
/* [in] img: checked for a known format, a size in 1..65536 a side, non-NULL planes and
 * pitches of at least a row. [in] what: names the image in the message.
 * Returns CC_SUCCESS or CC_ERROR_INVALID_ARGUMENT. */
cc_status cc_image_check (const cc_image *img, const char *what);

/* Convenience allocation for tools and tests (the element path never uses it per
 * frame): host rows padded to 64 bytes, device rows by cudaMallocPitch.
 * [in] ctx: a CUDA context for DEVICE; may be NULL for HOST.
 * [in] width, height: 1..65536. [out] out: the image (zeroed on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (out NULL, size, DEVICE without a
 * CUDA context), CC_ERROR_OUT_OF_MEMORY. Does not wait. */
cc_status cc_image_alloc (cc_context *ctx, int width, int height, cc_format format,
    cc_location location, cc_image *out);
/* Frees an image of cc_image_alloc (with the same ctx) and clears its planes; NULL or
 * an empty image: no-op. A device image is freed by cudaFree, which waits. */
void cc_image_free (cc_context *ctx, cc_image *img);
/* Copies src to dst on `stream`.
 * [in] ctx: a CUDA context when either image is on the device (may be NULL for two
 *      host images). [in] src. [out] dst: same size and format as src, any location.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA.
 * Device to device does not wait; a copy with either side on the host waits. */
cc_status cc_image_copy (cc_context *ctx, cc_stream stream, const cc_image *src,
    cc_image *dst);
/* Sets every byte of every plane of `img` to `value`.
 * [in] ctx: a CUDA context when img is on the device. [in,out] img.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA. Does not wait (a host
 * image is filled in the call). */
cc_status cc_image_fill (cc_context *ctx, cc_stream stream, cc_image *img, uint8_t value);

/* Nearest-neighbour resampling of a single-plane F32 or F32C2 image to dst's size:
 * dst(x, y) = src(x * sw / dw, y * sh / dh). Values are copied, not rescaled.
 * [in] ctx: not NULL. [in] src, [out] dst: both F32 or both F32C2, where the context
 * computes. Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA.
 * Does not wait. */
cc_status cc_image_resize_nearest (cc_context *ctx, cc_stream stream, const cc_image *src,
    cc_image *dst);

#ifdef __cplusplus
}
#endif
#endif
