/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Status codes, per-thread error messages, backends and contexts. */
#include "cc_internal.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static _Thread_local char last_error[1024];

const char *
cc_status_name (cc_status status)
{
  switch (status) {
    case CC_SUCCESS: return "CC_SUCCESS";
    case CC_ERROR_INVALID_ARGUMENT: return "CC_ERROR_INVALID_ARGUMENT";
    case CC_ERROR_OUT_OF_MEMORY: return "CC_ERROR_OUT_OF_MEMORY";
    case CC_ERROR_NO_DEVICE: return "CC_ERROR_NO_DEVICE";
    case CC_ERROR_NOT_SUPPORTED: return "CC_ERROR_NOT_SUPPORTED";
    case CC_ERROR_CUDA: return "CC_ERROR_CUDA";
    case CC_ERROR_IO: return "CC_ERROR_IO";
    case CC_ERROR_CORRUPT_DATA: return "CC_ERROR_CORRUPT_DATA";
    case CC_ERROR_INTERNAL: return "CC_ERROR_INTERNAL";
    case CC_ERROR_CANCELLED: return "CC_ERROR_CANCELLED";
  }
  return "CC_ERROR_UNKNOWN";
}

const char *
cc_last_error (void)
{
  return last_error;
}

cc_status
cc_set_error (cc_status status, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  vsnprintf (last_error, sizeof last_error, fmt, args);
  va_end (args);
  return status;
}

const char *
cc_backend_name (cc_backend backend)
{
  switch (backend) {
    case CC_BACKEND_AUTO: return "auto";
    case CC_BACKEND_CPU: return "cpu";
    case CC_BACKEND_CUDA: return "cuda";
  }
  return "unknown";
}

bool
cc_built_with_cuda (void)
{
  return CC_HAVE_CUDA;
}

int
cc_cuda_device_count (void)
{
#if CC_HAVE_CUDA
  /* Probed once per process (devices do not come and go under a running process);
   * two threads racing on the first call both probe and store the same count. */
  static atomic_int cached = -1;
  int n = atomic_load (&cached);
  if (n < 0) {
    n = cc_cuda_device_count_impl ();
    atomic_store (&cached, n);
  }
  return n;
#else
  return 0;
#endif
}

const char *
cc_cuda_unavailable_reason (void)
{
#if CC_HAVE_CUDA
  return cc_cuda_unavailable_reason_impl ();
#else
  return "this build of cudavision has no CUDA kernels";
#endif
}

cc_backend
cc_backend_resolve (cc_backend backend)
{
  if (backend == CC_BACKEND_AUTO)
    return cc_cuda_device_count () > 0 ? CC_BACKEND_CUDA : CC_BACKEND_CPU;
  return backend;
}

cc_status
cc_context_create (cc_backend backend, int device_id, cc_context **out)
{
  CC_CHECK_ARG (out != NULL, "cc_context_create: out is NULL");
  *out = NULL;
  CC_CHECK_ARG (backend == CC_BACKEND_AUTO || backend == CC_BACKEND_CPU
      || backend == CC_BACKEND_CUDA, "cc_context_create: unknown backend %d", (int) backend);
  CC_CHECK_ARG (device_id >= CC_DEVICE_CURRENT,
      "cc_context_create: device_id %d (use >= 0, -1 = auto, -2 = current)", device_id);

  backend = cc_backend_resolve (backend);

  cc_context *ctx = calloc (1, sizeof *ctx);
  if (!ctx)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_context_create: out of host memory");
  ctx->backend = backend;
  ctx->device = -1;
  if (backend == CC_BACKEND_CUDA) {
    cc_status st;
    if (!CC_HAVE_CUDA)
      st = cc_set_error (CC_ERROR_NO_DEVICE,
          "cc_context_create: CUDA backend asked for, but this build has no CUDA kernels");
    else
      st = CC_CUDA_ONLY (cc_cuda_context_init (ctx, device_id));
    if (st != CC_SUCCESS) {
      free (ctx);
      return st;
    }
  }
  *out = ctx;
  return CC_SUCCESS;
}

void
cc_context_destroy (cc_context *ctx)
{
  if (!ctx)
    return;
#if CC_HAVE_CUDA
  if (ctx->backend == CC_BACKEND_CUDA)
    cc_cuda_context_fini (ctx);
#endif
  free (ctx);
}

cc_backend
cc_context_backend (const cc_context *ctx)
{
  return ctx ? ctx->backend : CC_BACKEND_CPU;
}

int
cc_context_device (const cc_context *ctx)
{
  return ctx ? ctx->device : -1;
}

cc_stream
cc_context_stream (const cc_context *ctx)
{
  return ctx ? ctx->stream : NULL;
}

cc_status
cc_context_adopt_stream (cc_context *ctx, cc_stream stream)
{
  CC_CHECK_ARG (ctx != NULL, "cc_context_adopt_stream: ctx is NULL");
  if (ctx->backend != CC_BACKEND_CUDA)
    return stream ? cc_set_error (CC_ERROR_INVALID_ARGUMENT,
        "cc_context_adopt_stream: a CPU context has no stream") : CC_SUCCESS;
  ctx->stream = stream ? stream : ctx->own_stream;
  return CC_SUCCESS;
}

cc_status
cc_context_synchronize (cc_context *ctx)
{
  CC_CHECK_ARG (ctx != NULL, "cc_context_synchronize: ctx is NULL");
  if (ctx->backend != CC_BACKEND_CUDA)
    return CC_SUCCESS;
  return CC_CUDA_ONLY (cc_cuda_synchronize (ctx));
}

struct cc_fence {
  void *event;   /* cudaEvent_t */
};

cc_status
cc_fence_record (cc_context *ctx, cc_stream stream, cc_fence **out)
{
  CC_CHECK_ARG (out != NULL, "cc_fence_record: out is NULL");
  *out = NULL;
  CC_CHECK_ARG (ctx != NULL, "cc_fence_record: ctx is NULL");
  if (ctx->backend != CC_BACKEND_CUDA)
    return CC_SUCCESS;   /* CPU work is done when its call returns */
  cc_fence *f = calloc (1, sizeof *f);
  if (!f)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_fence_record: out of host memory");
  cc_status st = CC_CUDA_ONLY (cc_cuda_fence_record (cc_stream_resolve (ctx, stream),
          &f->event));
  if (st != CC_SUCCESS) {
    free (f);
    return st;
  }
  *out = f;
  return CC_SUCCESS;
}

cc_status
cc_fence_wait (cc_context *ctx, cc_stream stream, const cc_fence *fence)
{
  CC_CHECK_ARG (ctx != NULL, "cc_fence_wait: ctx is NULL");
  if (!fence || ctx->backend != CC_BACKEND_CUDA)
    return CC_SUCCESS;
  return CC_CUDA_ONLY (cc_cuda_fence_wait (cc_stream_resolve (ctx, stream), fence->event));
}

void
cc_fence_destroy (cc_fence *fence)
{
  if (!fence)
    return;
#if CC_HAVE_CUDA
  cc_cuda_fence_destroy (fence->event);
#endif
  free (fence);
}

cc_status
cc_context_set_threads (cc_context *ctx, int threads)
{
  CC_CHECK_ARG (ctx != NULL, "cc_context_set_threads: ctx is NULL");
  CC_CHECK_ARG (threads >= 0 && threads <= CC_CONTEXT_THREADS_MAX,
      "cc_context_set_threads: threads %d out of range 0..%d (0 = all cores)", threads,
      CC_CONTEXT_THREADS_MAX);
  ctx->threads = threads;
  return CC_SUCCESS;
}

int
cc_context_threads (const cc_context *ctx)
{
  return ctx ? ctx->threads : 0;
}

bool
cc_built_with_openmp (void)
{
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

int
cc_context_cpu_threads (const cc_context *ctx)
{
#ifdef _OPENMP
  if (ctx && ctx->threads > 0)
    return ctx->threads;
  return omp_get_num_procs ();
#else
  (void) ctx;
  return 1;
#endif
}

void
cc_context_cancel (cc_context *ctx)
{
  if (ctx)
    __atomic_store_n (&ctx->cancel, 1, __ATOMIC_RELAXED);
}

void
cc_context_resume (cc_context *ctx)
{
  if (ctx)
    __atomic_store_n (&ctx->cancel, 0, __ATOMIC_RELAXED);
}

bool
cc_context_cancelled (const cc_context *ctx)
{
  return cc_cancel_requested (ctx);
}
