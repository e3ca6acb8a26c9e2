/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Shared by every kernels/*.cu file.
#pragma once
#include <cuda_runtime.h>
#include "cc_internal.h"

#define CC_CUDA_TRY(call, what)                                                   \
  do {                                                                            \
    cudaError_t cc_err_ = (call);                                                 \
    if (cc_err_ != cudaSuccess) {                                                 \
      cudaGetLastError ();                                                        \
      return cc_set_error (cc_err_ == cudaErrorMemoryAllocation                   \
              ? CC_ERROR_OUT_OF_MEMORY : CC_ERROR_CUDA, "%s (%s:%d): %s", what,   \
          __FILE__, __LINE__, cudaGetErrorString (cc_err_));                      \
    }                                                                             \
  } while (0)

// After a launch: returns the launch error, naming the kernel.
#define CC_CUDA_LAUNCHED(name) CC_TRY (cc_cuda_check_launch (name))

static inline cudaStream_t
cc_stream_of (const cc_context *ctx)
{
  return (cudaStream_t) ctx->stream;
}

static inline unsigned
cc_div_up (unsigned a, unsigned b)
{
  return (a + b - 1) / b;
}
