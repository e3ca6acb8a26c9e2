/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The CUDA steps of cc_epic (src/epic.c describes the method): reversed matches with
// the count of surviving ones, and the forward-backward confidence (which also zeroes
// the field when no match survived: decided on the device, no host wait).
#include "cuda_common.cuh"
#include "epic_internal.h"
#include "epic_hostdev.h"

#include <string.h>

#define EPIC_THREADS 256

__global__ void
epic_reverse_kernel (const cc_flow_match *in, int n, cc_flow_match *out, int *valid)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  cc_flow_match m = in[i], r;
  r.x = m.x + m.u;
  r.y = m.y + m.v;
  r.u = -m.u;
  r.v = -m.v;
  r.confidence = m.confidence;
  out[i] = r;
  if (m.confidence > 0.0f)
    atomicAdd (valid, 1);
}

__global__ void
epic_confidence_kernel (const int *valid, cc_image flow, cc_image back, cc_image conf,
    int has_conf)
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
    c[x] = cc_epic_consistency (f[2 * x], f[2 * x + 1], x, y, back.planes[0], back.pitch[0],
        flow.width, flow.height);
}

extern "C" cc_status
cc_cuda_epic_reverse (cc_stream stream, const cc_flow_match *in, int n, cc_flow_match *out,
    int *valid)
{
  cudaStream_t cs = (cudaStream_t) stream;
  CC_CUDA_TRY (cudaMemsetAsync (valid, 0, sizeof (int), cs), "epic: clear count");
  if (n > 0) {
    epic_reverse_kernel<<<cc_div_up (n, EPIC_THREADS), EPIC_THREADS, 0, cs>>> (in, n, out,
        valid);
    CC_CUDA_LAUNCHED ("epic_reverse_kernel");
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_epic_confidence (cc_stream stream, const int *valid, cc_image *flow,
    const cc_image *backward, cc_image *confidence)
{
  cudaStream_t cs = (cudaStream_t) stream;
  cc_image none;
  memset (&none, 0, sizeof none);
  dim3 rows (cc_div_up (flow->width, EPIC_THREADS), flow->height);
  epic_confidence_kernel<<<rows, EPIC_THREADS, 0, cs>>> (valid, *flow, *backward,
      confidence ? *confidence : none, confidence != NULL);
  CC_CUDA_LAUNCHED ("epic_confidence_kernel");
  return CC_SUCCESS;
}
