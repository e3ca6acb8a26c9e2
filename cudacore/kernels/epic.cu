/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The CUDA steps of cc_epic (src/epic.c describes the method): the count of surviving
// matches, and the last step of the confidence (which also zeroes the field when no
// match survived: decided on the device, no host wait).
#include "cuda_common.cuh"
#include "epic_internal.h"
#include "epic_hostdev.h"

#include <string.h>

#define EPIC_THREADS 256

__global__ void
epic_count_kernel (const cc_flow_match *in, int n, int *valid)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool ok = i < n && in[i].confidence > 0.0f;
  unsigned m = __ballot_sync (0xFFFFFFFFu, ok);
  if ((threadIdx.x & 31) == 0 && m)
    atomicAdd (valid, __popc (m));
}

__global__ void
epic_finish_kernel (const int *valid, cc_image prev, cc_image next, cc_image flow,
    cc_image conf, int has_conf)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= flow.width)
    return;
  float *f = (float *) ((uint8_t *) flow.planes[0] + (size_t) y * flow.pitch[0]);
  float *c = has_conf ? (float *) ((uint8_t *) conf.planes[0] + (size_t) y * conf.pitch[0])
      : NULL;
  if (*valid == 0) {
    f[2 * x] = 0.0f;
    f[2 * x + 1] = 0.0f;
    if (c)
      c[x] = 0.0f;
  } else if (c)
    c[x] = cc_epic_confidence (c[x], f[2 * x], f[2 * x + 1], x, y, &prev, &next);
}

extern "C" cc_status
cc_cuda_epic_count (cc_stream stream, const cc_flow_match *in, int n, int *valid)
{
  cudaStream_t cs = (cudaStream_t) stream;
  CC_CUDA_TRY (cudaMemsetAsync (valid, 0, sizeof (int), cs), "epic: clear count");
  if (n > 0) {
    epic_count_kernel<<<cc_div_up (n, EPIC_THREADS), EPIC_THREADS, 0, cs>>> (in, n, valid);
    CC_CUDA_LAUNCHED ("epic_count_kernel");
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_epic_finish (cc_stream stream, const int *valid, const cc_image *prev,
    const cc_image *next, cc_image *flow, cc_image *confidence)
{
  cudaStream_t cs = (cudaStream_t) stream;
  cc_image none;
  memset (&none, 0, sizeof none);
  dim3 rows (cc_div_up (flow->width, EPIC_THREADS), flow->height);
  epic_finish_kernel<<<rows, EPIC_THREADS, 0, cs>>> (valid, *prev, *next, *flow,
      confidence ? *confidence : none, confidence != NULL);
  CC_CUDA_LAUNCHED ("epic_finish_kernel");
  return CC_SUCCESS;
}
