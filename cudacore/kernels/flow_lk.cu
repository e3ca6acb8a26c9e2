/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Dense pyramidal Lucas-Kanade on CUDA: the twin of the CPU reference in
// src/flow_lk.c (same function; see its header comment for the algorithm).
//
// Kernels (all on the context's stream, nothing allocated per call):
//  - lk_to_luma:    frame (GRAY8/RGBX8/BGRX8/NV12/I420 luma, any pitch) -> float level 0
//  - lk_blur_down:  5-tap binomial blur + even-pixel decimation (vertical then
//                   horizontal, as the CPU), one launch per level
//  - lk_iterate:    one fused warp-and-solve iteration of one level: a tile of
//                   outputs loads I, the field and the warped J on the tile + (r+1)
//                   halo into shared memory (avg, It), computes gradients and the
//                   five products on tile + r, separable window sums (horizontal,
//                   then vertical) and the 2x2 solve. The first iteration of a
//                   level reads the coarser field through a 2x bilinear upsampling
//                   (or zero at the coarsest level), so no upsampling kernel runs.
//                   The last level-0 iteration may write the caller's outputs
//                   (mask applied) directly.
//  - lk_fb_final:   forward-backward check and final write (fb_check only).
//
// Borders: every shared-memory slot holds the value of its *clamped* image
// position, and gradients / window sums index through clamped positions, which
// reproduces the CPU's replicated borders exactly.
#include "cuda_common.cuh"
#include "flow_lk_internal.h"
#include "flow_lk_hostdev.h"

#include <float.h>
#include <stdlib.h>

namespace {

constexpr int kThreads = 256;        // lk_iterate block (1D)
constexpr int kMaxOutPerThread = 2;  // tile outputs (tw * th) <= 512

enum FieldMode { FIELD_ZERO = 0, FIELD_READ = 1, FIELD_UPSAMPLE = 2 };

struct IterArgs {
  const float *I, *J;          // level images, packed (pitch = w)
  int w, h;
  const float2 *fin;           // READ: field at this level (packed, pitch w);
                               // UPSAMPLE: coarser field (packed, pitch cw)
  int cw, ch;
  int mode;                    // FieldMode
  float *fout;                 // output field (u, v pairs), row pitch in bytes
  size_t fout_pitch;
  float *conf;                 // nullable: smallest eigenvalue (0 where masked off)
  size_t conf_pitch;
  const uint8_t *mask;         // nullable (level 0 only)
  size_t mask_pitch;
  int zero_masked;             // final output: masked-off pixels get 0/0
  int r;                       // window radius
  float inv_n, min_eig_thr;
  float gs, gc;                // gradient smoothing and centre weights
  int tw, th;                  // tile of outputs
};

// cc_bilinear with read-only cached loads.
__device__ __forceinline__ float
bilinear_dev (const float *__restrict__ img, int w, int h, float x, float y)
{
  cc_bilinear_taps t = cc_bilinear_taps_at (x, y, w, h);
  const float *r0 = img + (size_t) t.y0 * w, *r1 = img + (size_t) t.y1 * w;
  return cc_bilinear_mix (&t, __ldg (r0 + t.x0), __ldg (r0 + t.x1), __ldg (r1 + t.x0),
      __ldg (r1 + t.x1));
}

// Field at (x, y) of the current level, per mode (the CPU's upsampling inlined).
__device__ __forceinline__ float2
load_field (const IterArgs &a, int x, int y)
{
  if (a.mode == FIELD_READ)
    return __ldg (a.fin + (size_t) y * a.w + x);
  if (a.mode == FIELD_ZERO)
    return make_float2 (0.0f, 0.0f);
  const int cw = a.cw;
  cc_bilinear_taps t = cc_upsample2_taps (x, y, cw, a.ch);
  float2 A = __ldg (a.fin + (size_t) t.y0 * cw + t.x0), B = __ldg (a.fin + (size_t) t.y0 * cw + t.x1);
  float2 C = __ldg (a.fin + (size_t) t.y1 * cw + t.x0), D = __ldg (a.fin + (size_t) t.y1 * cw + t.x1);
  float2 o;
  o.x = cc_upsample2 (&t, A.x, B.x, C.x, D.x);
  o.y = cc_upsample2 (&t, A.y, B.y, C.y, D.y);
  return o;
}

__global__ void
lk_to_luma (const uint8_t *__restrict__ src, size_t pitch, int fmt, int w, int h,
    float *__restrict__ dst)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  dst[(size_t) y * w + x] = cc_lk_luma01 (src + (size_t) y * pitch, x, fmt == CC_FORMAT_RGBX8,
      fmt == CC_FORMAT_BGRX8);
}

// Output tile 32 x 8 (block 32 x 8): input region 67 x 19 around it.
constexpr int kBlurTW = 32, kBlurTH = 8;
constexpr int kBlurIW = 2 * kBlurTW + 3, kBlurIH = 2 * kBlurTH + 3;

__global__ void __launch_bounds__ (kBlurTW * kBlurTH)
lk_blur_down (const float *__restrict__ src, int sw, int sh, float *__restrict__ dst,
    int dw, int dh)
{
  __shared__ float s_in[kBlurIH][kBlurIW + 1];
  __shared__ float s_v[kBlurTH][kBlurIW + 1];
  const int x0 = blockIdx.x * kBlurTW, y0 = blockIdx.y * kBlurTH;
  const int bx = 2 * x0 - 2, by = 2 * y0 - 2;
  const int tid = threadIdx.y * kBlurTW + threadIdx.x;
  for (int i = tid; i < kBlurIH * kBlurIW; i += kBlurTW * kBlurTH) {
    int ly = i / kBlurIW, lx = i - ly * kBlurIW;
    int gx = cc_clampi (bx + lx, 0, sw - 1), gy = cc_clampi (by + ly, 0, sh - 1);
    s_in[ly][lx] = __ldg (src + (size_t) gy * sw + gx);
  }
  __syncthreads ();
  const float k0 = 1 / 16.f, k1 = 4 / 16.f, k2 = 6 / 16.f;
  for (int i = tid; i < kBlurTH * kBlurIW; i += kBlurTW * kBlurTH) {
    int ly = i / kBlurIW, lx = i - ly * kBlurIW;
    int r = 2 * ly;
    float s = 0.0f;
    s += k0 * s_in[r][lx];
    s += k1 * s_in[r + 1][lx];
    s += k2 * s_in[r + 2][lx];
    s += k1 * s_in[r + 3][lx];
    s += k0 * s_in[r + 4][lx];
    s_v[ly][lx] = s;
  }
  __syncthreads ();
  int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x < dw && y < dh) {
    const float *v = &s_v[threadIdx.y][2 * threadIdx.x];
    float s = 0.0f;
    s += k0 * v[0];
    s += k1 * v[1];
    s += k2 * v[2];
    s += k1 * v[3];
    s += k0 * v[4];
    dst[(size_t) y * dw + x] = s;
  }
}

// Shared-memory floats of lk_iterate for a tile and window radius.
__host__ __device__ __forceinline__ int
iter_region_a (int tw, int th, int r)
{
  int an = (tw + 2 * r + 2) * (th + 2 * r + 2);
  int hs = 5 * tw * (th + 2 * r);
  return 4 * an > hs ? 4 * an : hs;
}

static size_t
iter_smem_bytes (int tw, int th, int r)
{
  return sizeof (float) * ((size_t) iter_region_a (tw, th, r)
      + 5 * (size_t) (tw + 2 * r) * (th + 2 * r));
}

__global__ void __launch_bounds__ (kThreads)
lk_iterate (const IterArgs a)
{
  extern __shared__ float smem[];
  const int r = a.r, tw = a.tw, th = a.th, w = a.w, h = a.h;
  const int AW = tw + 2 * r + 2, AH = th + 2 * r + 2, AN = AW * AH;
  const int PW = tw + 2 * r, PH = th + 2 * r, PN = PW * PH;
  const int HN = tw * PH;
  float *s_avg = smem, *s_it = smem + AN, *s_u = smem + 2 * AN, *s_v = smem + 3 * AN;
  float *s_h = smem;   // horizontal sums alias the region above (phase 3 on)
  float *s_p = smem + iter_region_a (tw, th, r);
  const int x0 = blockIdx.x * tw, y0 = blockIdx.y * th;
  const int ax0 = x0 - r - 1, ay0 = y0 - r - 1;
  const int tid = threadIdx.x;

  // 1. warp J by the field; avg = (I + Jw) / 2, It = Jw - I (NaN when outside)
  for (int i = tid; i < AN; i += kThreads) {
    int ly = i / AW, lx = i - ly * AW;
    int gx = cc_clampi (ax0 + lx, 0, w - 1), gy = cc_clampi (ay0 + ly, 0, h - 1);
    float2 f = load_field (a, gx, gy);
    float px = gx + f.x, py = gy + f.y;
    float jw = bilinear_dev (a.J, w, h, px, py);
    float i0 = __ldg (a.I + (size_t) gy * w + gx);
    s_avg[i] = 0.5f * (i0 + jw);
    s_it[i] = cc_inside (px, py, w, h) ? jw - i0 : __int_as_float (0x7fffffff);
    s_u[i] = f.x;
    s_v[i] = f.y;
  }
  __syncthreads ();

  // 2. gradient of avg and the five products on tile + r (clamped positions)
  const float gs = a.gs, gc = a.gc;
  for (int i = tid; i < PN; i += kThreads) {
    int ly = i / PW, lx = i - ly * PW;
    int cx = cc_clampi (x0 - r + lx, 0, w - 1), cy = cc_clampi (y0 - r + ly, 0, h - 1);
    int ax = cx - ax0, ay = cy - ay0;
    int xm = cc_clampi (cx - 1, 0, w - 1) - ax0, xp = cc_clampi (cx + 1, 0, w - 1) - ax0;
    int ym = (cc_clampi (cy - 1, 0, h - 1) - ay0) * AW, yp = (cc_clampi (cy + 1, 0, h - 1) - ay0) * AW;
    int yc = ay * AW;
    float it = s_it[yc + ax];
    float prod[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    if (!isnan (it)) {
      float gx, gy;
      cc_lk_gradient (gs, gc, s_avg[ym + xm], s_avg[ym + ax], s_avg[ym + xp], s_avg[yc + xm],
          s_avg[yc + xp], s_avg[yp + xm], s_avg[yp + ax], s_avg[yp + xp], &gx, &gy);
      cc_lk_products (gx, gy, s_u[yc + ax], s_v[yc + ax], it, prod);
    }
#pragma unroll
    for (int k = 0; k < 5; k++)
      s_p[k * PN + i] = prod[k];
  }
  // the field at this thread's outputs, before phase 3 overwrites s_u / s_v
  float2 fo[kMaxOutPerThread];
#pragma unroll
  for (int k = 0; k < kMaxOutPerThread; k++) {
    int idx = tid + k * kThreads;
    fo[k] = make_float2 (0.0f, 0.0f);
    if (idx < tw * th) {
      int oy = idx / tw, ox = idx - oy * tw;
      int j = (oy + r + 1) * AW + ox + r + 1;
      fo[k] = make_float2 (s_u[j], s_v[j]);
    }
  }
  __syncthreads ();

  // 3. horizontal window sums: tw x PH per product
  const int n = 2 * r + 1;
  for (int i = tid; i < HN; i += kThreads) {
    int ly = i / tw, ox = i - ly * tw;
    const float *row = s_p + ly * PW + ox;
    float h0 = 0.0f, h1 = 0.0f, h2 = 0.0f, h3 = 0.0f, h4 = 0.0f;
#pragma unroll 3
    for (int d = 0; d < n; d++) {
      h0 += row[d];
      h1 += row[PN + d];
      h2 += row[2 * PN + d];
      h3 += row[3 * PN + d];
      h4 += row[4 * PN + d];
    }
    s_h[i] = h0;
    s_h[HN + i] = h1;
    s_h[2 * HN + i] = h2;
    s_h[3 * HN + i] = h3;
    s_h[4 * HN + i] = h4;
  }
  __syncthreads ();

  // 4. vertical sums, solve, write
#pragma unroll
  for (int k = 0; k < kMaxOutPerThread; k++) {
    int idx = tid + k * kThreads;
    if (idx >= tw * th)
      break;
    int oy = idx / tw, ox = idx - oy * tw;
    int x = x0 + ox, y = y0 + oy;
    if (x >= w || y >= h)
      continue;
    float2 o = fo[k];
    float c_out = 0.0f;
    bool off = a.mask && a.mask[(size_t) y * a.mask_pitch + x] == 0;
    if (off) {
      if (a.zero_masked)
        o = make_float2 (0.0f, 0.0f);
    } else {
      const float *col = s_h + oy * tw + ox;
      float S[5] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
#pragma unroll 3
      for (int d = 0; d < n; d++) {
        const float *c = col + d * tw;
        S[0] += c[0];
        S[1] += c[HN];
        S[2] += c[2 * HN];
        S[3] += c[3 * HN];
        S[4] += c[4 * HN];
      }
      c_out = cc_lk_solve_window (S, a.inv_n, a.min_eig_thr, &o.x, &o.y);
    }
    float *frow = (float *) ((char *) a.fout + (size_t) y * a.fout_pitch);
    frow[2 * x] = o.x;
    frow[2 * x + 1] = o.y;
    if (a.conf)
      ((float *) ((char *) a.conf + (size_t) y * a.conf_pitch))[x] = c_out;
  }
}

// Forward-backward check and final write (mask off: 0 / 0).
__global__ void
lk_fb_final (const float2 *__restrict__ fwd, const float2 *__restrict__ bwd, int w, int h,
    const uint8_t *__restrict__ mask, size_t mask_pitch, float threshold,
    float *__restrict__ fout, size_t fout_pitch, float *__restrict__ cout, size_t cout_pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  size_t i = (size_t) y * w + x;
  bool off = mask && mask[(size_t) y * mask_pitch + x] == 0;
  float *frow = (float *) ((char *) fout + (size_t) y * fout_pitch);
  float *crow = cout ? (float *) ((char *) cout + (size_t) y * cout_pitch) : NULL;
  if (off) {
    frow[2 * x] = 0.0f;
    frow[2 * x + 1] = 0.0f;
    if (crow)
      crow[x] = 0.0f;
    return;
  }
  float2 f = fwd[i];
  float u = f.x, v = f.y;
  frow[2 * x] = u;
  frow[2 * x + 1] = v;
  if (!crow)
    return;
  float qx = x + u, qy = y + v;
  float err;
  if (qx < 0 || qy < 0 || qx > w - 1 || qy > h - 1)
    err = FLT_MAX;
  else {
    int x0 = (int) qx, y0 = (int) qy;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    float fx = qx - x0, fy = qy - y0;
    float2 A = bwd[(size_t) y0 * w + x0], B = bwd[(size_t) y0 * w + x1];
    float2 C = bwd[(size_t) y1 * w + x0], D = bwd[(size_t) y1 * w + x1];
    float t = A.x + fx * (B.x - A.x), bo = C.x + fx * (D.x - C.x);
    float bu = t + fy * (bo - t);
    t = A.y + fx * (B.y - A.y);
    bo = C.y + fx * (D.y - C.y);
    float bv = t + fy * (bo - t);
    err = sqrtf ((u + bu) * (u + bu) + (v + bv) * (v + bv));
  }
  crow[x] = err <= threshold ? err : CC_FLOW_INVALID;
}

}  // namespace

struct cc_cuda_lk {
  cc_stream stream;   // the stream of the public call in progress (set by each entry point)
  cc_context *ctx;
  cc_lk_pyramid_sizes sizes;
  float *pyr[2][CC_FLOW_LK_LEVELS_MAX];   // packed, pitch = level width
  float2 *field[3];                       // level-0 sized: ping, pong, backward
  float *conf;                            // level-0 confidence (packed)
  uint8_t *staging;                       // host frame upload (luma plane)
  size_t staging_pitch;
  int smem_optin;                         // device limit for one block
  size_t smem_attr;                       // lk_iterate's dynamic limit set so far
  bool have_backward;
};

extern "C" void
cc_cuda_lk_destroy (cc_cuda_lk *st)
{
  if (!st)
    return;
  for (int s = 0; s < 2; s++)
    for (int l = 0; l < CC_FLOW_LK_LEVELS_MAX; l++)
      cc_cuda_free (st->ctx, st->pyr[s][l]);
  for (int i = 0; i < 3; i++)
    cc_cuda_free (st->ctx, st->field[i]);
  cc_cuda_free (st->ctx, st->conf);
  cc_cuda_free (st->ctx, st->staging);
  free (st);
}

extern "C" cc_status
cc_cuda_lk_create (cc_context *ctx, const cc_lk_pyramid_sizes *sizes, bool need_backward,
    cc_cuda_lk **out)
{
  *out = NULL;
  cc_cuda_lk *st = (cc_cuda_lk *) calloc (1, sizeof *st);
  if (!st)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "flow-lk (CUDA): out of host memory");
  st->ctx = ctx;
  st->stream = ctx->stream;   // until a call names its own
  st->sizes = *sizes;
  st->have_backward = need_backward;
  const size_t w = sizes->width[0], h = sizes->height[0], n = w * h;
  cc_status s = CC_SUCCESS;
  for (int k = 0; k < 2 && s == CC_SUCCESS; k++)
    for (int l = 0; l < sizes->levels && s == CC_SUCCESS; l++)
      s = cc_cuda_malloc (ctx, sizeof (float) * sizes->width[l] * sizes->height[l],
          (void **) &st->pyr[k][l]);
  for (int i = 0; i < (need_backward ? 3 : 2) && s == CC_SUCCESS; i++)
    s = cc_cuda_malloc (ctx, sizeof (float2) * n, (void **) &st->field[i]);
  if (s == CC_SUCCESS)
    s = cc_cuda_malloc (ctx, sizeof (float) * n, (void **) &st->conf);
  if (s == CC_SUCCESS)
    s = cc_cuda_malloc_pitch (ctx, 4 * w, h, (void **) &st->staging, &st->staging_pitch);
  if (s == CC_SUCCESS) {
    cudaError_t e = cudaDeviceGetAttribute (&st->smem_optin,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device);
    if (e != cudaSuccess) {
      cudaGetLastError ();
      s = cc_set_error (CC_ERROR_CUDA, "flow-lk (CUDA): cudaDeviceGetAttribute: %s",
          cudaGetErrorString (e));
    }
  }
  st->smem_attr = 48 * 1024;
  if (s != CC_SUCCESS) {
    cc_cuda_lk_destroy (st);
    return s;
  }
  *out = st;
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_lk_build_pyramid (cc_cuda_lk *st, cc_stream cs, int slot, const cc_image *frame)
{
  st->stream = cs;
  cudaStream_t stream = cs;
  const int w = st->sizes.width[0], h = st->sizes.height[0];
  const uint8_t *src = (const uint8_t *) frame->planes[0];
  size_t pitch = frame->pitch[0];
  if (frame->location == CC_LOCATION_HOST) {
    // only the luma plane (or the packed RGB plane) is read
    size_t row = (size_t) w * cc_format_plane_bpp (frame->format, 0);
    CC_TRY (cc_cuda_copy_2d (st->stream, st->staging, st->staging_pitch, CC_LOCATION_DEVICE,
            frame->planes[0], frame->pitch[0], CC_LOCATION_HOST, row, h));
    src = st->staging;
    pitch = st->staging_pitch;
  }
  dim3 b (32, 8);
  lk_to_luma<<<dim3 (cc_div_up (w, b.x), cc_div_up (h, b.y)), b, 0, stream>>> (src, pitch,
      (int) frame->format, w, h, st->pyr[slot][0]);
  CC_CUDA_LAUNCHED ("lk_to_luma");
  for (int l = 1; l < st->sizes.levels; l++) {
    int sw = st->sizes.width[l - 1], sh = st->sizes.height[l - 1];
    int dw = st->sizes.width[l], dh = st->sizes.height[l];
    lk_blur_down<<<dim3 (cc_div_up (dw, kBlurTW), cc_div_up (dh, kBlurTH)),
        dim3 (kBlurTW, kBlurTH), 0, stream>>> (st->pyr[slot][l - 1], sw, sh,
        st->pyr[slot][l], dw, dh);
    CC_CUDA_LAUNCHED ("lk_blur_down");
  }
  return CC_SUCCESS;
}

namespace {

struct FinalTarget {
  float *flow;           // NULL: the internal ping-pong buffer
  size_t flow_pitch;
  float *conf;           // NULL: none
  size_t conf_pitch;
  bool zero_masked;
};

// Coarse-to-fine field from pyramid `from` to `to`, ping-ponging buf_a / buf_b.
// The last level-0 iteration writes per `fin`; *result is the internal buffer it
// wrote (when fin->flow is NULL).
static cc_status
run_field (cc_cuda_lk *st, const cc_flow_lk_params *p, int tw, int th, size_t smem,
    float *const *from, float *const *to, float2 *buf_a, float2 *buf_b,
    const cc_image *mask, const FinalTarget *fin, float2 **result)
{
  cudaStream_t stream = st->stream;
  const cc_lk_pyramid_sizes *s = &st->sizes;
  const int top = s->levels - 1;
  const int r = p->window_size / 2;
  IterArgs a = {};
  a.r = r;
  a.inv_n = 1.0f / (float) (p->window_size * p->window_size);
  a.min_eig_thr = p->min_eigen_threshold;
  cc_lk_gradient_weights (p->gradient, &a.gs, &a.gc);
  a.tw = tw;
  a.th = th;
  float2 *cur = buf_a, *next = buf_b;
  for (int l = top; l >= 0; l--) {
    const int w = s->width[l], h = s->height[l];
    a.I = from[l];
    a.J = to[l];
    a.w = w;
    a.h = h;
    for (int it = 0; it < p->iterations; it++) {
      const bool last = l == 0 && it == p->iterations - 1;
      if (it > 0) {
        a.mode = FIELD_READ;
        a.fin = cur;
      } else if (l == top) {
        a.mode = FIELD_ZERO;
        a.fin = cur;   // unused
      } else {
        a.mode = FIELD_UPSAMPLE;
        a.fin = cur;
        a.cw = s->width[l + 1];
        a.ch = s->height[l + 1];
      }
      a.fout = (float *) next;
      a.fout_pitch = sizeof (float2) * w;
      a.conf = NULL;
      a.conf_pitch = 0;
      a.zero_masked = 0;
      a.mask = NULL;
      a.mask_pitch = 0;
      if (l == 0 && mask) {
        a.mask = (const uint8_t *) mask->planes[0];
        a.mask_pitch = mask->pitch[0];
      }
      if (last && fin) {
        if (fin->flow) {
          a.fout = fin->flow;
          a.fout_pitch = fin->flow_pitch;
        }
        a.conf = fin->conf;
        a.conf_pitch = fin->conf_pitch;
        a.zero_masked = fin->zero_masked;
      }
      lk_iterate<<<dim3 (cc_div_up (w, tw), cc_div_up (h, th)), kThreads, smem, stream>>> (a);
      CC_CUDA_LAUNCHED ("lk_iterate");
      float2 *t = cur;
      cur = next;
      next = t;
    }
  }
  *result = cur;
  return CC_SUCCESS;
}

}  // namespace

extern "C" cc_status
cc_cuda_lk_flow (cc_cuda_lk *st, cc_stream cs, int slot_prev, int slot_next,
    const cc_flow_lk_params *p, const cc_image *mask, cc_image *flow,
    cc_image *confidence)
{
  st->stream = cs;
  cudaStream_t stream = cs;
  const int w = st->sizes.width[0], h = st->sizes.height[0];
  const int r = p->window_size / 2;
  if (p->fb_check && !st->have_backward)
    return cc_set_error (CC_ERROR_INTERNAL, "flow-lk (CUDA): no backward buffer allocated");

  // tile: the largest of 32x16, 32x8, 16x8 whose shared memory fits the device
  static const int tiles[3][2] = { { 32, 16 }, { 32, 8 }, { 16, 8 } };
  int tw = 0, th = 0;
  size_t smem = 0;
  for (int i = 0; i < 3; i++) {
    size_t need = iter_smem_bytes (tiles[i][0], tiles[i][1], r);
    if (need <= (size_t) st->smem_optin) {
      tw = tiles[i][0];
      th = tiles[i][1];
      smem = need;
      break;
    }
  }
  if (!tw)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED,
        "flow-lk (CUDA): window %d needs %zu bytes of shared memory per block, the device "
        "allows %d", p->window_size, iter_smem_bytes (16, 8, r), st->smem_optin);
  if (smem > st->smem_attr) {
    CC_CUDA_TRY (cudaFuncSetAttribute (lk_iterate, cudaFuncAttributeMaxDynamicSharedMemorySize,
            (int) smem), "cudaFuncSetAttribute (lk_iterate)");
    st->smem_attr = smem;
  }

  const bool flow_dev = flow->location == CC_LOCATION_DEVICE;
  const bool conf_dev = confidence && confidence->location == CC_LOCATION_DEVICE;
  float2 *result = NULL;
  if (!p->fb_check) {
    FinalTarget fin = {};
    fin.zero_masked = true;
    if (flow_dev) {
      fin.flow = (float *) flow->planes[0];
      fin.flow_pitch = flow->pitch[0];
    }
    if (confidence) {
      fin.conf = conf_dev ? (float *) confidence->planes[0] : st->conf;
      fin.conf_pitch = conf_dev ? confidence->pitch[0] : sizeof (float) * w;
    }
    CC_TRY (run_field (st, p, tw, th, smem, st->pyr[slot_prev], st->pyr[slot_next],
            st->field[0], st->field[1], mask, &fin, &result));
  } else {
    float2 *fwd = NULL, *bwd = NULL;
    CC_TRY (run_field (st, p, tw, th, smem, st->pyr[slot_prev], st->pyr[slot_next],
            st->field[0], st->field[1], mask, NULL, &fwd));
    float2 *other = fwd == st->field[0] ? st->field[1] : st->field[0];
    CC_TRY (run_field (st, p, tw, th, smem, st->pyr[slot_next], st->pyr[slot_prev],
            st->field[2], other, mask, NULL, &bwd));
    float2 *spare = bwd == other ? st->field[2] : other;
    float *fo = flow_dev ? (float *) flow->planes[0] : (float *) spare;
    size_t fo_pitch = flow_dev ? flow->pitch[0] : sizeof (float2) * w;
    float *co = NULL;
    size_t co_pitch = 0;
    if (confidence) {
      co = conf_dev ? (float *) confidence->planes[0] : st->conf;
      co_pitch = conf_dev ? confidence->pitch[0] : sizeof (float) * w;
    }
    dim3 b (32, 8);
    lk_fb_final<<<dim3 (cc_div_up (w, b.x), cc_div_up (h, b.y)), b, 0, stream>>> (fwd, bwd,
        w, h, mask ? (const uint8_t *) mask->planes[0] : NULL, mask ? mask->pitch[0] : 0,
        p->fb_threshold, fo, fo_pitch, co, co_pitch);
    CC_CUDA_LAUNCHED ("lk_fb_final");
    result = spare;
  }
  // host outputs: copy back (cc_cuda_copy_2d waits for a host destination)
  if (!flow_dev)
    CC_TRY (cc_cuda_copy_2d (cs, flow->planes[0], flow->pitch[0], CC_LOCATION_HOST, result,
            sizeof (float2) * w, CC_LOCATION_DEVICE, sizeof (float2) * w, h));
  if (confidence && !conf_dev)
    CC_TRY (cc_cuda_copy_2d (cs, confidence->planes[0], confidence->pitch[0],
            CC_LOCATION_HOST, st->conf, sizeof (float) * w, CC_LOCATION_DEVICE,
            sizeof (float) * w, h));
  return CC_SUCCESS;
}
