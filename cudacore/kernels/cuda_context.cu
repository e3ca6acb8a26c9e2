/* SPDX-License-Identifier: LGPL-2.1-or-later */
// CUDA runtime side of cc_context and memory helpers.
#include <dlfcn.h>
#include "cc_internal.h"
#include "cuda_common.cuh"

extern "C" int
cc_cuda_device_count_impl (void)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    cudaGetLastError ();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

extern "C" const char *
cc_cuda_unavailable_reason_impl (void)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    // Without a driver at all the runtime says "insufficient driver": say what is missing.
    void *driver = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!driver)
      return "no NVIDIA driver: libcuda.so.1 not found";
    dlclose (driver);
    return cudaGetErrorString (err);   // a static string of the runtime
  }
  return n > 0 ? NULL : "no CUDA device found";
}

extern "C" cc_status
cc_cuda_context_init (cc_context *ctx, int device_id)
{
  int count = cc_cuda_device_count ();   // probed once per process
  if (count <= 0)
    return cc_set_error (CC_ERROR_NO_DEVICE,
        "CUDA backend asked for, but no CUDA device or driver was found");
  if (device_id == CC_DEVICE_CURRENT) {
    // Keep the context the caller made current (a pushed GstCudaContext).
    CC_CUDA_TRY (cudaGetDevice (&ctx->device), "cudaGetDevice");
  } else {
    int dev = device_id < 0 ? 0 : device_id;
    if (dev >= count)
      return cc_set_error (CC_ERROR_NO_DEVICE, "CUDA device %d asked for, but only %d present",
          dev, count);
    CC_CUDA_TRY (cudaSetDevice (dev), "cudaSetDevice");
    ctx->device = dev;
  }
  cudaStream_t stream;
  CC_CUDA_TRY (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  ctx->stream = ctx->own_stream = (cc_stream) stream;
  return CC_SUCCESS;
}

extern "C" void
cc_cuda_context_fini (cc_context *ctx)
{
  if (ctx->stream && ctx->stream != ctx->own_stream)
    cudaStreamSynchronize ((cudaStream_t) ctx->stream);
  if (ctx->own_stream) {
    cudaStreamSynchronize ((cudaStream_t) ctx->own_stream);
    cudaStreamDestroy ((cudaStream_t) ctx->own_stream);
  }
  ctx->stream = ctx->own_stream = NULL;
}

extern "C" cc_status
cc_cuda_synchronize (cc_context *ctx)
{
  CC_CUDA_TRY (cudaStreamSynchronize ((cudaStream_t) ctx->stream), "cudaStreamSynchronize");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_stream_synchronize (cc_stream stream)
{
  CC_CUDA_TRY (cudaStreamSynchronize ((cudaStream_t) stream), "cudaStreamSynchronize");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_malloc (cc_context *ctx, size_t bytes, void **out)
{
  (void) ctx;
  cudaError_t err = cudaMalloc (out, bytes ? bytes : 1);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    *out = NULL;
    return cc_set_error (err == cudaErrorMemoryAllocation ? CC_ERROR_OUT_OF_MEMORY : CC_ERROR_CUDA,
        "cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString (err));
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_malloc_pitch (cc_context *ctx, size_t width_bytes, size_t height, void **out,
    size_t *pitch)
{
  (void) ctx;
  cudaError_t err = cudaMallocPitch (out, pitch, width_bytes ? width_bytes : 1, height ? height : 1);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    *out = NULL;
    return cc_set_error (err == cudaErrorMemoryAllocation ? CC_ERROR_OUT_OF_MEMORY : CC_ERROR_CUDA,
        "cudaMallocPitch of %zu x %zu bytes: %s", width_bytes, height, cudaGetErrorString (err));
  }
  return CC_SUCCESS;
}

extern "C" void
cc_cuda_free (cc_context *ctx, void *ptr)
{
  (void) ctx;
  if (ptr)
    cudaFree (ptr);
}

extern "C" cc_status
cc_cuda_memset_async (cc_stream stream, void *ptr, int value, size_t bytes)
{
  CC_CUDA_TRY (cudaMemsetAsync (ptr, value, bytes, (cudaStream_t) stream), "cudaMemsetAsync");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_memset_2d_async (cc_stream stream, void *ptr, size_t pitch, int value,
    size_t width_bytes, size_t height)
{
  CC_CUDA_TRY (cudaMemset2DAsync (ptr, pitch, value, width_bytes, height,
          (cudaStream_t) stream), "cudaMemset2DAsync");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_copy_2d (cc_stream cstream, void *dst, size_t dst_pitch, cc_location dst_loc,
    const void *src, size_t src_pitch, cc_location src_loc, size_t width_bytes, size_t height)
{
  cudaMemcpyKind kind = src_loc == CC_LOCATION_HOST
      ? (dst_loc == CC_LOCATION_HOST ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
      : (dst_loc == CC_LOCATION_HOST ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  cudaStream_t stream = (cudaStream_t) cstream;
  CC_CUDA_TRY (cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, width_bytes, height, kind,
          stream), "cudaMemcpy2DAsync");
  // Host destinations and pageable host sources must be complete when we return.
  if (dst_loc == CC_LOCATION_HOST || src_loc == CC_LOCATION_HOST)
    CC_CUDA_TRY (cudaStreamSynchronize (stream), "cudaStreamSynchronize");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_check_launch (const char *kernel_name)
{
  cudaError_t err = cudaGetLastError ();
  if (err != cudaSuccess)
    return cc_set_error (CC_ERROR_CUDA, "kernel %s: %s", kernel_name, cudaGetErrorString (err));
  return CC_SUCCESS;
}

// Nearest-neighbour resampling (cc_image_resize_nearest); T is float or float2.
template <typename T>
__global__ void
resize_nearest_kernel (const char *src, size_t spitch, int sw, int sh, char *dst,
    size_t dpitch, int dw, int dh)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh)
    return;
  int sx = (int) ((long long) x * sw / dw), sy = (int) ((long long) y * sh / dh);
  ((T *) (dst + (size_t) y * dpitch))[x] = ((const T *) (src + (size_t) sy * spitch))[sx];
}

extern "C" cc_status
cc_cuda_resize_nearest (cc_stream stream, const cc_image *src, cc_image *dst)
{
  cudaStream_t st = (cudaStream_t) stream;
  dim3 block (32, 8), grid (cc_div_up (dst->width, 32), cc_div_up (dst->height, 8));
  if (src->format == CC_FORMAT_F32)
    resize_nearest_kernel<float><<<grid, block, 0, st>>> (
        (const char *) src->planes[0], src->pitch[0], src->width, src->height,
        (char *) dst->planes[0], dst->pitch[0], dst->width, dst->height);
  else
    resize_nearest_kernel<float2><<<grid, block, 0, st>>> (
        (const char *) src->planes[0], src->pitch[0], src->width, src->height,
        (char *) dst->planes[0], dst->pitch[0], dst->width, dst->height);
  CC_CUDA_LAUNCHED ("resize_nearest");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_fence_record (cc_stream stream, void **out)
{
  cudaEvent_t ev;
  CC_CUDA_TRY (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming), "cudaEventCreate");
  cudaError_t err = cudaEventRecord (ev, (cudaStream_t) stream);
  if (err != cudaSuccess) {
    cudaEventDestroy (ev);
    CC_CUDA_TRY (err, "cudaEventRecord");
  }
  *out = (void *) ev;
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_fence_wait (cc_stream stream, void *event)
{
  CC_CUDA_TRY (cudaStreamWaitEvent ((cudaStream_t) stream, (cudaEvent_t) event, 0),
      "cudaStreamWaitEvent");
  return CC_SUCCESS;
}

extern "C" void
cc_cuda_fence_destroy (void *event)
{
  cudaEventDestroy ((cudaEvent_t) event);
}
