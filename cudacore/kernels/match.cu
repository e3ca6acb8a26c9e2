/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Sparse matcher on CUDA: the twin of the CPU reference in src/match.c.
//
// One thread per seed (both directions in one launch, blockIdx.z), every per-seed
// step the shared function of match_hostdev.h. Per level: an init launch, then per
// iteration two launches, one per colour of the grid's checkerboard (a seed reads
// only the other colour's flows, so the parallel update equals the CPU's loop).
// Integer costs and a hash-driven random search: the matches equal the CPU's bit
// for bit (built with -fmad=false for the few float steps).
#include "cuda_common.cuh"
#include "match_internal.h"
#include "blockmatch_hostdev.h"

#include <stdlib.h>
#include <string.h>

#define MATCH_THREADS 128

struct cc_cuda_match {
  cc_context *ctx;
  cc_stream stream;   // the stream of the last compute (destroy waits for it)
  cc_match_layout L;
  uint16_t *luma[2][CC_MATCH_LEVELS_MAX];
  uint16_t *smooth[2][CC_MATCH_LEVELS_MAX];
  uint32_t *census[2][CC_MATCH_LEVELS_MAX];   // padded
  int *flow[2], *cost[2];
  float *fflow[2];
  unsigned char *textured;
  cc_flow_match *matches;
};

// ------------------------------------------------------------------ kernels

__global__ void
match_luma_kernel (const uint8_t *src, size_t pitch, int w, int h, int rgbx, int bgrx,
    uint16_t *dst)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  dst[(size_t) y * w + x] = (uint16_t) cc_row_luma256 (src + (size_t) y * pitch, x, rgbx, bgrx);
}

__global__ void
match_down_kernel (const uint16_t *s, int sw, int sh, uint16_t *d, int dw, int dh)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh)
    return;
  int x0 = 2 * x, y0 = 2 * y;
  int x1 = x0 + 1 < sw ? x0 + 1 : x0, y1 = y0 + 1 < sh ? y0 + 1 : y0;
  d[y * dw + x] = (uint16_t) ((s[y0 * sw + x0] + s[y0 * sw + x1] + s[y1 * sw + x0]
          + s[y1 * sw + x1] + 2) >> 2);
}

__global__ void
match_smooth_kernel (const uint16_t *img, int w, int h, uint16_t *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  out[(size_t) y * w + x] = cc_match_smooth (img, w, h, x, y);
}

__global__ void
match_census_kernel (const uint16_t *img, int w, int h, uint32_t *out)
{
  int pw = w + 2 * CC_MATCH_PAD, ph = h + 2 * CC_MATCH_PAD;
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= pw || y >= ph)
    return;
  out[(size_t) y * pw + x] = cc_match_census_padded (img, w, h, x, y);
}

__global__ void
match_init_kernel (cc_match_view v0, cc_match_view v1, int scale, int n)
{
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  cc_match_view v = blockIdx.z ? v1 : v0;
  cc_match_seed_init (&v, s, scale);
}

// Thread (k, gy) updates seed (2 k + ((gy + colour) & 1), gy).
__global__ void
match_step_kernel (cc_match_view v0, cc_match_view v1, int iteration, int colour)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x, gy = blockIdx.y;
  cc_match_view v = blockIdx.z ? v1 : v0;
  int gx = 2 * k + ((gy + colour) & 1);
  if (gx >= v.gw)
    return;
  cc_match_seed_step (&v, gy * v.gw + gx, iteration);
}

__global__ void
match_finish_kernel (cc_match_view v0, cc_match_view v1, const uint16_t *luma0,
    const uint16_t *luma1, float *fflow0, float *fflow1, unsigned char *textured, int n)
{
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  float *f = blockIdx.z ? fflow1 : fflow0;
  cc_match_view v = blockIdx.z ? v1 : v0;
  int t = cc_match_seed_finish (&v, blockIdx.z ? luma1 : luma0, s, &f[2 * s], &f[2 * s + 1]);
  if (!blockIdx.z)
    textured[s] = (unsigned char) t;
}

__global__ void
match_fb_kernel (const float *fwd, const float *bwd, const int *cost,
    const unsigned char *textured, int gw, int gh, int step, int w, int h, float fb_threshold,
    float max_disp, cc_flow_match *out)
{
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= gw * gh)
    return;
  out[s] = cc_match_fb (fwd, bwd, cost, textured, gw, gh, step, w, h, fb_threshold, max_disp,
      s);
}

// ------------------------------------------------------------------ host side

static void
state_free (cc_cuda_match *st)
{
  for (int s = 0; s < 2; s++) {
    for (int l = 0; l < CC_MATCH_LEVELS_MAX; l++) {
      cc_cuda_free (st->ctx, st->luma[s][l]);
      cc_cuda_free (st->ctx, st->smooth[s][l]);
      cc_cuda_free (st->ctx, st->census[s][l]);
    }
    cc_cuda_free (st->ctx, st->flow[s]);
    cc_cuda_free (st->ctx, st->cost[s]);
    cc_cuda_free (st->ctx, st->fflow[s]);
  }
  cc_cuda_free (st->ctx, st->textured);
  cc_cuda_free (st->ctx, st->matches);
}

extern "C" void
cc_cuda_match_destroy (cc_cuda_match *st)
{
  if (!st)
    return;
  if (st->stream)
    cudaStreamSynchronize ((cudaStream_t) st->stream);
  state_free (st);
  free (st);
}

extern "C" cc_status
cc_cuda_match_create (cc_context *ctx, const cc_match_layout *L, cc_cuda_match **out)
{
  *out = NULL;
  cc_cuda_match *st = (cc_cuda_match *) calloc (1, sizeof *st);
  if (!st)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "match: out of host memory");
  st->ctx = ctx;
  st->stream = ctx->stream;
  st->L = *L;
  size_t n = (size_t) L->gw * L->gh;
  cc_status rc = CC_SUCCESS;
#define MATCH_ALLOC(ptr, bytes) \
  if (rc == CC_SUCCESS) rc = cc_cuda_malloc (ctx, (bytes), (void **) &(ptr))
  for (int s = 0; s < 2; s++) {
    for (int l = 0; l < L->levels; l++) {
      size_t px = (size_t) L->width[l] * L->height[l];
      size_t pp = (size_t) (L->width[l] + 2 * CC_MATCH_PAD) * (L->height[l] + 2 * CC_MATCH_PAD);
      MATCH_ALLOC (st->luma[s][l], px * sizeof (uint16_t));
      MATCH_ALLOC (st->smooth[s][l], px * sizeof (uint16_t));
      MATCH_ALLOC (st->census[s][l], pp * sizeof (uint32_t));
    }
    MATCH_ALLOC (st->flow[s], 2 * n * sizeof (int));
    MATCH_ALLOC (st->cost[s], n * sizeof (int));
    MATCH_ALLOC (st->fflow[s], 2 * n * sizeof (float));
  }
  MATCH_ALLOC (st->textured, n);
  MATCH_ALLOC (st->matches, n * sizeof (cc_flow_match));
#undef MATCH_ALLOC
  if (rc == CC_SUCCESS) {
    // the coarsest level starts from flow 0 x (these contents): defined values
    for (int s = 0; s < 2 && rc == CC_SUCCESS; s++)
      rc = cc_cuda_memset_async (ctx->stream, st->flow[s], 0, 2 * n * sizeof (int));
    if (rc == CC_SUCCESS)
      rc = cc_cuda_memset_async (ctx->stream, st->matches, 0, n * sizeof (cc_flow_match));
    if (rc == CC_SUCCESS)
      rc = cc_cuda_synchronize (ctx);   // a first compute may run on any stream
  }
  if (rc != CC_SUCCESS) {
    state_free (st);
    free (st);
    return rc;
  }
  *out = st;
  return CC_SUCCESS;
}

static void
pyramid (cc_cuda_match *st, cudaStream_t stream, int slot, const cc_image *f)
{
  const cc_match_layout *L = &st->L;
  dim3 block (32, 8);
  dim3 grid (cc_div_up (L->width[0], 32), cc_div_up (L->height[0], 8));
  match_luma_kernel<<<grid, block, 0, stream>>> ((const uint8_t *) f->planes[0], f->pitch[0],
      L->width[0], L->height[0], f->format == CC_FORMAT_RGBX8, f->format == CC_FORMAT_BGRX8,
      st->luma[slot][0]);
  for (int l = 1; l < L->levels; l++) {
    dim3 g (cc_div_up (L->width[l], 32), cc_div_up (L->height[l], 8));
    match_down_kernel<<<g, block, 0, stream>>> (st->luma[slot][l - 1], L->width[l - 1],
        L->height[l - 1], st->luma[slot][l], L->width[l], L->height[l]);
  }
  for (int l = 0; l < L->levels; l++) {
    dim3 gs (cc_div_up (L->width[l], 32), cc_div_up (L->height[l], 8));
    match_smooth_kernel<<<gs, block, 0, stream>>> (st->luma[slot][l], L->width[l],
        L->height[l], st->smooth[slot][l]);
    dim3 g (cc_div_up (L->width[l] + 2 * CC_MATCH_PAD, 32),
        cc_div_up (L->height[l] + 2 * CC_MATCH_PAD, 8));
    match_census_kernel<<<g, block, 0, stream>>> (st->smooth[slot][l], L->width[l],
        L->height[l], st->census[slot][l]);
  }
}

extern "C" cc_status
cc_cuda_match_compute (cc_cuda_match *st, cc_stream stream_in, const cc_match_params *p,
    const cc_image *prev, const cc_image *next, bool reuse_prev)
{
  cudaStream_t stream = (cudaStream_t) stream_in;   // resolved by the dispatcher
  st->stream = stream_in;
  const cc_match_layout *L = &st->L;
  const int n = L->gw * L->gh;
  if (reuse_prev) {
    cc_match_swap_slots (st->luma, st->smooth, st->census);
  } else
    pyramid (st, stream, 0, prev);
  pyramid (st, stream, 1, next);
  CC_CUDA_LAUNCHED ("match_pyramid");
  const unsigned seed_blocks = cc_div_up (n, MATCH_THREADS);
  for (int l = L->levels - 1; l >= 0; l--) {
    cc_match_view v0 = cc_match_view_make (L, l, 0, st->census[0][l], st->census[1][l],
        st->flow[0], st->cost[0]);
    cc_match_view v1 = cc_match_view_make (L, l, 1, st->census[1][l], st->census[0][l],
        st->flow[1], st->cost[1]);
    match_init_kernel<<<dim3 (seed_blocks, 1, 2), MATCH_THREADS, 0, stream>>> (v0, v1,
        l == L->levels - 1 ? 0 : 2, n);
    dim3 step_grid (cc_div_up ((L->gw + 1) / 2, MATCH_THREADS), L->gh, 2);
    for (int it = 0; it < p->iterations; it++)
      for (int colour = 0; colour < 2; colour++)
        match_step_kernel<<<step_grid, MATCH_THREADS, 0, stream>>> (v0, v1, it, colour);
    if (l == 0)
      match_finish_kernel<<<dim3 (seed_blocks, 1, 2), MATCH_THREADS, 0, stream>>> (v0, v1,
          st->luma[0][0], st->luma[1][0], st->fflow[0], st->fflow[1], st->textured, n);
    CC_CUDA_LAUNCHED ("match_level");
  }
  match_fb_kernel<<<seed_blocks, MATCH_THREADS, 0, stream>>> (st->fflow[0], st->fflow[1],
      st->cost[0], st->textured, L->gw, L->gh, L->step, L->full_w, L->full_h,
      p->fb_threshold, p->max_displacement, st->matches);
  CC_CUDA_LAUNCHED ("match_fb_kernel");
  return CC_SUCCESS;
}

extern "C" const cc_flow_match *
cc_cuda_match_matches (const cc_cuda_match *st)
{
  return st->matches;
}

extern "C" cc_status
cc_cuda_match_download (cc_cuda_match *st, cc_stream stream_in, cc_flow_match *out, int count)
{
  cudaStream_t stream = (cudaStream_t) stream_in;
  CC_CUDA_TRY (cudaMemcpyAsync (out, st->matches, (size_t) count * sizeof *out,
          cudaMemcpyDeviceToHost, stream), "match: download");
  CC_CUDA_TRY (cudaStreamSynchronize (stream), "match: download");
  return CC_SUCCESS;
}
