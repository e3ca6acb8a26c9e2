/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal to cudacore: shared by the C sources and the CUDA kernels (no CUDA types here). */
#ifndef CUDACORE_CC_INTERNAL_H
#define CUDACORE_CC_INTERNAL_H

#include "cc_config.h"
#include "cudacore/cc_core.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cc_context {
  cc_backend backend;   /* CPU or CUDA, never AUTO */
  int device;           /* CUDA device ordinal, -1 for CPU */
  cc_stream stream;     /* the stream NULL stands for: own_stream or an adopted one */
  cc_stream own_stream; /* the context's CUDA stream (owned), NULL for CPU */
  int threads;          /* CPU threads as set (0 = all cores) */
  int cancel;           /* cc_context_cancel's mark (atomic loads and stores) */
};

/* True once cc_context_cancel marked ctx (until cc_context_resume): the CPU paths that
 * can run for seconds check it between passes and return CC_ERROR_CANCELLED
 * (cc_cancelled_error sets the message). Cheap enough for every row of a pass. */
static inline bool
cc_cancel_requested (const cc_context *ctx)
{
  return ctx && __atomic_load_n (&ctx->cancel, __ATOMIC_RELAXED) != 0;
}
#define cc_cancelled_error(fn) cc_set_error (CC_ERROR_CANCELLED, "%s: cancelled", (fn))

/* Bytes per pixel of plane p (chroma of NV12 = 2, of I420 = 1). */
int cc_format_plane_bpp (cc_format format, int plane);
/* Width and height of plane p. */
void cc_format_plane_size (cc_format format, int width, int height, int plane,
    int *plane_width, int *plane_height);

/* The stream a submit call runs on: its argument, or the context's own stream when
 * that is NULL (NULL again for a CPU context). */
static inline cc_stream
cc_stream_resolve (const cc_context *ctx, cc_stream stream)
{
  return stream ? stream : (ctx ? ctx->stream : NULL);
}

/* Monotonic wall-clock time in milliseconds (CLOCK_MONOTONIC), for the CPU paths'
 * timers and stage timings (timer.c). */

/* A pyramid that halves each level, rounding up: level 0 is width x height, level l
 * ((w_{l-1} + 1) / 2, (h_{l-1} + 1) / 2); it stops at `wanted` levels or before a
 * level under min_size on a side. Returns the level count (>= 1). */
int cc_pyramid_sizes (int width, int height, int wanted, int min_size, int *widths,
    int *heights);

/* Argument checks with a message. */
#define CC_CHECK_ARG(cond, ...) \
  do { if (!(cond)) return cc_set_error (CC_ERROR_INVALID_ARGUMENT, __VA_ARGS__); } while (0)
#define CC_TRY(expr) \
  do { cc_status cc_try_status_ = (expr); if (cc_try_status_ != CC_SUCCESS) return cc_try_status_; } while (0)

/* The checks every module's create() starts with: *out cleared, a context, and a
 * frame size in 1..16384. */
#define CC_CHECK_CREATE(fn, ctx, width, height, out)                              \
  do {                                                                           \
    CC_CHECK_ARG ((out) != NULL, "%s: out is NULL", fn);                          \
    *(out) = NULL;                                                               \
    CC_CHECK_ARG ((ctx) != NULL, "%s: ctx is NULL", fn);                          \
    CC_CHECK_ARG ((width) >= 1 && (height) >= 1 && (width) <= 16384                \
        && (height) <= 16384, "%s: size %dx%d out of range 1..16384", fn,          \
        (width), (height));                                                      \
  } while (0)

/* ---- Frame-sized modules (flow-lk, blockmatch, match, interp, refine, epic, moct, cvd,
 * quadcut; module.c): a handle for frames of one size with its params, and scratch that
 * depends on both, allocated at create and again when set_params changes what it
 * depends on. The handle's first member is its cc_module (so a cc_module * converts
 * to the handle and back); the class says how to check, store and allocate. Messages
 * name the public calls ("cc_match_create: ..."). cc_apsp is not one: its handle is
 * sized by a node count (1..CC_APSP_MAX_NODES, not a frame size), it reads no
 * frames and its params are fixed at create, so create, check_frame and set_params
 * would not serve it. */
typedef struct cc_module cc_module;
typedef struct cc_module_class {
  const char *name;        /* the public prefix: "cc_match" */
  size_t size;             /* sizeof the handle */
  size_t params_offset;    /* offsetof the handle's params */
  size_t params_size;      /* sizeof them */
  void (*params_default) (void *params);
  cc_status (*params_check) (const void *params);
  /* set_params, before the checked params are stored: readies the handle for them
   * (a composite passes them on to its parts) and sets *realloc when the scratch
   * must be allocated anew (NULL: never); a failure leaves the params as they were. */
  cc_status (*params_changing) (cc_module *m, const void *params, bool *realloc);
  cc_status (*alloc) (cc_module *m);   /* the scratch for the size and the params */
  void (*release) (cc_module *m);      /* frees it, also a partial one */
} cc_module_class;

struct cc_module {
  const cc_module_class *cls;
  cc_context *ctx;
  int width, height;
};

/* Defines `static const cc_module_class cls` for the handle type T (its cc_module
 * `mod` first, its params `params` of type P) of the public calls PREFIX_...
 * (PREFIX_params_default and PREFIX_params_check), with the other callbacks named. */
#define CC_MODULE_CLASS(cls, T, P, PREFIX, changing, alloc, release)                  \
  static void cls##_params_default (void *p) { PREFIX##_params_default ((P *) p); }  \
  static cc_status cls##_params_check (const void *p)                                \
  {                                                                                  \
    return PREFIX##_params_check ((const P *) p);                                    \
  }                                                                                  \
  static const cc_module_class cls = { #PREFIX, sizeof (T), offsetof (T, params),   \
    sizeof (P), cls##_params_default, cls##_params_check, changing, alloc, release }

/* CC_CHECK_CREATE's checks, the params (NULL: the defaults) checked, a zeroed handle
 * with ctx, size and params, its scratch allocated; on failure *out is NULL and
 * nothing is left allocated. out may be NULL (INVALID_ARGUMENT). */
cc_status cc_module_create (const cc_module_class *cls, cc_context *ctx, int width,
    int height, const void *params, cc_module **out);
/* Frees the scratch and the handle; NULL is a no-op. */
void cc_module_destroy (cc_module *m);
/* Checks and stores the params (m not NULL: the public call checks it, naming its
 * argument), allocating the scratch anew when params_changing asks. */
cc_status cc_module_set_params (cc_module *m, const void *params);
/* A frame the module reads: a valid image in a video frame format (GRAY8, RGBX8,
 * BGRX8, NV12, I420) of the module's size (`module` names it in the messages), in
 * host memory or, on the CUDA backend, device memory (copy_host: the module copies
 * host frames to the device) or else where the context computes
 * (cc_image_check_location). */
cc_status cc_module_check_frame (const cc_module *m, const cc_image *img, const char *what,
    const char *module, bool copy_host);

/* An image must be where the context computes (device for CUDA, host for CPU),
 * except where a module copies host inputs explicitly. */
cc_status cc_image_check_location (const cc_context *ctx, const cc_image *img,
    const char *what);
/* Same width, height (and format when check_format). */
cc_status cc_image_check_same_size (const cc_image *a, const cc_image *b,
    const char *what_a, const char *what_b);

/* ---- CUDA backend (kernels/cuda_context.cu); never called in a CPU-only build,
 * where CC_CUDA_ONLY() turns each call site into a NOT_SUPPORTED error. */
#if CC_HAVE_CUDA
#define CC_CUDA_ONLY(expr) (expr)
#else
#define CC_CUDA_ONLY(expr) \
  ((void) sizeof (expr),  /* its arguments count as used, never evaluated */ \
   cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s: this build has no CUDA backend", __func__))
#endif

int cc_cuda_device_count_impl (void);
const char *cc_cuda_unavailable_reason_impl (void);
cc_status cc_cuda_context_init (cc_context *ctx, int device_id);
void cc_cuda_context_fini (cc_context *ctx);
cc_status cc_cuda_synchronize (cc_context *ctx);
/* Waits for one stream (a handle's last stream before it replaces what it reads). */
cc_status cc_cuda_stream_synchronize (cc_stream stream);
/* cc_fence: a cudaEvent_t recorded on a stream (kernels/cuda_context.cu). */
cc_status cc_cuda_fence_record (cc_stream stream, void **out);
cc_status cc_cuda_fence_wait (cc_stream stream, void *event);
void cc_cuda_fence_destroy (void *event);
cc_status cc_cuda_malloc (cc_context *ctx, size_t bytes, void **out);
cc_status cc_cuda_malloc_pitch (cc_context *ctx, size_t width_bytes, size_t height,
    void **out, size_t *pitch);
void cc_cuda_free (cc_context *ctx, void *ptr);
/* The helpers below take the (resolved, non-NULL) stream of the call they serve. */
cc_status cc_cuda_memset_async (cc_stream stream, void *ptr, int value, size_t bytes);
/* 2D copy with kind inferred from the locations; waits for the stream when either side
 * is on the host (a host destination is complete, a pageable host source reusable). */
cc_status cc_cuda_copy_2d (cc_stream stream, void *dst, size_t dst_pitch, cc_location dst_loc,
    const void *src, size_t src_pitch, cc_location src_loc, size_t width_bytes, size_t height);
cc_status cc_cuda_memset_2d_async (cc_stream stream, void *ptr, size_t pitch, int value,
    size_t width_bytes, size_t height);
cc_status cc_cuda_resize_nearest (cc_stream stream, const cc_image *src, cc_image *dst);
/* Checks cudaGetLastError after a launch; names the kernel in the message. */
cc_status cc_cuda_check_launch (const char *kernel_name);

#ifdef __cplusplus
}
#endif
#endif
