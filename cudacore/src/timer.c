/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cc_timer: CUDA events on the CUDA backend, the monotonic clock on the CPU. */
#include "timer_internal.h"
#include "cudacore/cc_timer.h"

#include <stdlib.h>
#include <time.h>

struct cc_timer {
  cc_context *ctx;
  void *start_event, *stop_event;   /* CUDA */
  double start_ms, stop_ms;         /* CPU */
};

double
cc_now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

cc_status
cc_timer_create (cc_context *ctx, cc_timer **out)
{
  CC_CHECK_ARG (out != NULL, "cc_timer_create: out is NULL");
  *out = NULL;
  CC_CHECK_ARG (ctx != NULL, "cc_timer_create: ctx is NULL");
  cc_timer *t = calloc (1, sizeof *t);
  if (!t)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_timer_create: out of host memory");
  t->ctx = ctx;
  if (ctx->backend == CC_BACKEND_CUDA) {
    cc_status st = CC_CUDA_ONLY (cc_cuda_events_create (&t->start_event, &t->stop_event));
    if (st != CC_SUCCESS) {
      free (t);
      return st;
    }
  }
  *out = t;
  return CC_SUCCESS;
}

void
cc_timer_destroy (cc_timer *t)
{
  if (!t)
    return;
#if CC_HAVE_CUDA
  if (t->start_event)
    cc_cuda_events_destroy (t->start_event, t->stop_event);
#endif
  free (t);
}

cc_status
cc_timer_start (cc_timer *t, cc_stream stream)
{
  CC_CHECK_ARG (t != NULL, "cc_timer_start: timer is NULL");
  if (t->ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_event_record (cc_stream_resolve (t->ctx, stream),
            t->start_event));
  t->start_ms = cc_now_ms ();
  return CC_SUCCESS;
}

cc_status
cc_timer_stop (cc_timer *t, cc_stream stream)
{
  CC_CHECK_ARG (t != NULL, "cc_timer_stop: timer is NULL");
  if (t->ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_event_record (cc_stream_resolve (t->ctx, stream),
            t->stop_event));
  t->stop_ms = cc_now_ms ();
  return CC_SUCCESS;
}

cc_status
cc_timer_elapsed_ms (cc_timer *t, float *ms)
{
  CC_CHECK_ARG (t != NULL && ms != NULL, "cc_timer_elapsed_ms: NULL argument");
  if (t->ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_events_elapsed_ms (t->start_event, t->stop_event, ms));
  *ms = (float) (t->stop_ms - t->start_ms);
  return CC_SUCCESS;
}
