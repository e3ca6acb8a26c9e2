/* SPDX-License-Identifier: LGPL-2.1-or-later */
// CUDA events for cc_timer (src/timer.c).
#include "cuda_common.cuh"
#include "timer_internal.h"

extern "C" cc_status
cc_cuda_events_create (void **start, void **stop)
{
  cudaEvent_t a, b;
  CC_CUDA_TRY (cudaEventCreate (&a), "cudaEventCreate");
  cudaError_t err = cudaEventCreate (&b);
  if (err != cudaSuccess) {
    cudaEventDestroy (a);
    CC_CUDA_TRY (err, "cudaEventCreate");
  }
  *start = (void *) a;
  *stop = (void *) b;
  return CC_SUCCESS;
}

extern "C" void
cc_cuda_events_destroy (void *start, void *stop)
{
  cudaEventDestroy ((cudaEvent_t) start);
  cudaEventDestroy ((cudaEvent_t) stop);
}

extern "C" cc_status
cc_cuda_event_record (cc_stream stream, void *event)
{
  CC_CUDA_TRY (cudaEventRecord ((cudaEvent_t) event, (cudaStream_t) stream), "cudaEventRecord");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_events_elapsed_ms (void *start, void *stop, float *ms)
{
  CC_CUDA_TRY (cudaEventSynchronize ((cudaEvent_t) stop), "cudaEventSynchronize");
  CC_CUDA_TRY (cudaEventElapsedTime (ms, (cudaEvent_t) start, (cudaEvent_t) stop),
      "cudaEventElapsedTime");
  return CC_SUCCESS;
}
