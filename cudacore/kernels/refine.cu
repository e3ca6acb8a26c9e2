/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Variational refinement on CUDA: the twin of the CPU reference in src/refine.c.
//
// Memory layout (param-2016, 4.2-4.3): every per-pixel quantity the solver touches
// (data terms, start field, increment, linear-system coefficients) is stored in two
// arrays, red cells ((x + y) even) and black cells, each hw = ceil(W / 2) cells wide:
// cell (c, y, xs) is pixel x = 2 xs + ((y + c) & 1). A red sweep's threads index red
// cells directly (alternate indexing: no thread idles on a cell of the other colour),
// read and write contiguous red cells, and read black neighbours at (y, xs + ph - 1),
// (y, xs + ph), (y +- 1, xs) with ph = (y + c) & 1: neighbours are computed, not
// branched on.
//
// Per level: one kernel builds the start field and computes the data terms (warp of
// frame 2 and derivatives; stored in fp16, 16 B a cell); per outer iteration one kernel
// freezes the smoothness weights and assembles the coefficients (rf_weights_coef_kernel,
// the colours interleaved block by block: the inverse diagonals, a12 and the weights
// rounded to bf16 and packed, the right-hand side with the start field's smoothness term
// folded in), then the inner sweeps: H / 2 red-black sweeps per launch on register tiles
// (exact, halo-based temporal blocking, H the halo), the tile order reversed every other
// launch, a last shorter launch with a smaller halo where one exists. The sweeps run in
// packed fp16 (rf_sor_h2_kernel in refine_sor_h2.cu: two rows a half2 register, 8 warps
// x 8 rows, 64 x 64 px tiles; the increment in fp16 between launches, right-hand sides
// stored scaled in fp16 by the coefficient kernel) unless cc_refine_tuning.precision
// (cc_tuning.h) asks for fp32 or the weights exceed what fp16 holds (beyond 1000): then
// in fp32 (rf_sor_regs_kernel in refine_sor.cu: 8 warps x 6 rows, fp32 right-hand
// sides). The last level's finish writes the output. With every image on the device the
// whole run is captured once into a CUDA graph and replayed. docs/flow-refinement.md
// describes the kernels, their measured times and the variants measured slower, which
// are not built.
#include "cuda_common.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "refine_internal.h"
#include "refine_hostdev.h"
#include "refine_sweeps.cuh"

#include <stdlib.h>
#include <string.h>

struct cc_cuda_refine {
  cc_stream stream;   // the stream of the public call in progress (set by each entry point)
  cc_context *ctx;
  cc_refine_sizes sizes;
  int max_outer;
  float *i0[CC_REFINE_LEVELS_MAX], *i1[CC_REFINE_LEVELS_MAX];      // natural, packed
  float2 *init[CC_REFINE_LEVELS_MAX], *field[CC_REFINE_LEVELS_MAX]; // natural, packed
  uint8_t *staging[2];        // host frames' plane 0
  size_t staging_pitch;
  float2 *flow_staging;       // host flow_in / flow_out, packed level 0
  // red-black split arrays (2 * hw * h cells at level 0; colour c at c * hw * h)
  uint4 *data;                // fp16 data terms (ix, iy, iz, ixx, ixy, iyy, ixz, iyz)
  float *lw;                  // local smoothness weight per cell (fp32), set with the data terms
  float *ps0, *ps1;           // level 0's luma presmoothed (presmooth_sigma > 0), natural
  float2 *wuv, *duv;          // start field, increment
  float2 *duv_alt;            // second increment buffer (a launch reads one, writes the other)
  unsigned *duv16[2];         // fp16 increments between the fp16 sweep launches of an outer iteration
  uint2 *pk;                  // bf16 (1 / diag_u, 1 / diag_v), (a12, smooth weight)
  float2 *rhs;                // (rhs_u, rhs_v) for the fp32 sweeps
  unsigned *rhs16;            // fp16 (rhs_u, rhs_v) / scale for the fp16 sweeps
  cudaGraphExec_t graph;      // the last captured run (device images, no energies)
  struct rf_graph_key {
    const void *planes[4];
    size_t pitch[4];
    int format[4];
    cc_refine_params params;
    bool fp32;
  } graph_key;
  bool fp32;                  // cc_refine_tuning.precision FP32 (set by each run)
  bool track_energy;          // cc_refine_tuning.track_energy (set by each run)
  double *energies;           // levels * (max_outer + 1)
};

// Row equations of the half2 sweeps are divided by RF_H2_SCALE times
// max(1, max(alpha, delta + gamma) / 15) (rf_h2_scale): 256 at the defaults.
#define RF_H2_SCALE 256.0f

// ------------------------------------------------------------------ images

__global__ void
rf_luma_kernel (const uint8_t *src, size_t pitch, int w, int h, int rgbx, int bgrx, float *dst)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  dst[(size_t) y * w + x] = cc_refine_luma255 (src + (size_t) y * pitch, x, rgbx, bgrx);
}

// 5-tap binomial blur sampled at even pixels; `channels` 1 or 2, times `scale`.
__global__ void
rf_blur_down_kernel (const float *src, int sw, int sh, float *dst, int dw, int dh,
    int channels, float scale)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh)
    return;
  const float k[5] = { 1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f };
  for (int c = 0; c < channels; c++) {
    float s = 0.0f;
    for (int i = -2; i <= 2; i++) {
      const float *row = src + (size_t) cc_clampi (2 * y + i, 0, sh - 1) * sw * channels;
      float r = 0.0f;
      for (int j = -2; j <= 2; j++)
        r += k[j + 2] * row[cc_clampi (2 * x + j, 0, sw - 1) * channels + c];
      s += k[i + 2] * r;
    }
    dst[((size_t) y * dw + x) * channels + c] = scale * s;
  }
}

// Gaussian taps of the presmoothing (cc_refine_presmooth_taps), passed by value.
struct rf_taps {
  float k[2 * CC_REFINE_PRESMOOTH_RADIUS + 1];
  int rad;
};

// Both frames' level 0 presmoothed into d0, d1 (blockIdx.z: the frame). A 32 x 8 block
// stages its tile and a halo of rad rows and columns (borders replicated) in shared
// memory, sums each staged row's taps for its 32 columns, then each pixel's rows: the
// operations of cc_refine_presmooth_at in its order (the CPU's), a tenth of its loads.
#define RF_PS_BX 32
#define RF_PS_BY 8
#define RF_PS_TW (RF_PS_BX + 2 * CC_REFINE_PRESMOOTH_RADIUS)
#define RF_PS_TH (RF_PS_BY + 2 * CC_REFINE_PRESMOOTH_RADIUS)
__global__ void __launch_bounds__ (RF_PS_BX * RF_PS_BY)
rf_presmooth_kernel (const float *i0, const float *i1, int w, int h, rf_taps t, float *d0,
    float *d1)
{
  __shared__ float tile[RF_PS_TH][RF_PS_TW];
  __shared__ float rows[RF_PS_TH][RF_PS_BX];
  const float *src = blockIdx.z ? i1 : i0;
  float *dst = blockIdx.z ? d1 : d0;
  const int rad = t.rad, th = RF_PS_BY + 2 * rad, tw = RF_PS_BX + 2 * rad;
  const int x0 = blockIdx.x * RF_PS_BX - rad, y0 = blockIdx.y * RF_PS_BY - rad;
  const int tid = threadIdx.y * RF_PS_BX + threadIdx.x;
  for (int k = tid; k < th * tw; k += RF_PS_BX * RF_PS_BY) {
    int ty = k / tw, tx = k - ty * tw;
    tile[ty][tx] = __ldg (src + (size_t) cc_clampi (y0 + ty, 0, h - 1) * w
        + cc_clampi (x0 + tx, 0, w - 1));
  }
  __syncthreads ();
  for (int ty = threadIdx.y; ty < th; ty += RF_PS_BY) {
    float r = 0.0f;
    for (int j = 0; j <= 2 * rad; j++)
      r += t.k[j] * tile[ty][threadIdx.x + j];
    rows[ty][threadIdx.x] = r;
  }
  __syncthreads ();
  int x = blockIdx.x * RF_PS_BX + threadIdx.x, y = blockIdx.y * RF_PS_BY + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float acc = 0.0f;
  for (int i = 0; i <= 2 * rad; i++)
    acc += t.k[i] * rows[threadIdx.y + i][threadIdx.x];
  dst[(size_t) y * w + x] = acc;
}

__global__ void
rf_copy_field_kernel (const float *src, size_t pitch, int w, int h, float2 *dst)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const float *row = (const float *) ((const char *) src + (size_t) y * pitch);
  dst[(size_t) y * w + x] = make_float2 (row[2 * x], row[2 * x + 1]);
}


// Start field of a level at pixel (x, y): its initial field plus twice the upsampled
// correction (refined - initial) of the coarser level; coarse == NULL at the coarsest level.
static __device__ __forceinline__ float2
rf_start_value (const float2 *init, int w, int x, int y, const float2 *coarse,
    const float2 *coarse_init, int cw, int ch)
{
  float2 f = init[(size_t) y * w + x];
  if (coarse) {
    cc_bilinear_taps t = cc_upsample2_taps (x, y, cw, ch);
    int id[4] = { t.y0 * cw + t.x0, t.y0 * cw + t.x1, t.y1 * cw + t.x0, t.y1 * cw + t.x1 };
    float2 c[4];
    for (int k = 0; k < 4; k++)
      c[k] = make_float2 (coarse[id[k]].x - coarse_init[id[k]].x,
          coarse[id[k]].y - coarse_init[id[k]].y);
    f.x += cc_upsample2 (&t, c[0].x, c[1].x, c[2].x, c[3].x);
    f.y += cc_upsample2 (&t, c[0].y, c[1].y, c[2].y, c[3].y);
  }
  return f;
}

// ------------------------------------------------------------------ solver

// Data terms of pixel (x, y) of a level whose start field there is f, and its local
// smoothness weight (from the same neighbourhood of frame 1, as the CPU).
static __device__ __forceinline__ cc_refine_data
rf_data_at (const float *__restrict__ i0, const float *__restrict__ i1, int w, int h, int x,
    int y, float2 f, float kappa, float *local)
{
  float qx = x + f.x, qy = y + f.y;
  float n0[3][3], n1[3][3];
#pragma unroll
  for (int dy = -1; dy <= 1; dy++)
#pragma unroll
    for (int dx = -1; dx <= 1; dx++) {
      n0[dy + 1][dx + 1] = __ldg (i0 + cc_clampi (y + dy, 0, h - 1) * w + cc_clampi (x + dx, 0, w - 1));
      n1[dy + 1][dx + 1] = cc_bilinear (i1, w, h, qx + dx, qy + dy);
    }
  int valid = cc_inside (qx, qy, w, h);
  cc_refine_data d;
  cc_refine_data_terms (n0, n1, valid, &d);
  *local = cc_refine_local_weight (n0, kappa);
  return d;
}

// Start field of pixel (x, y) (rf_start_value) into `field` (natural layout) and its
// cell with the data terms (fp16) and the local smoothness weight, increment zeroed.
__global__ void
rf_start_data_kernel (const float *i0, const float *i1, const float2 *init, const float2 *coarse,
    const float2 *coarse_init, int cw, int ch, float2 *field, float kappa, rb_view v)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= v.w || y >= v.h)
    return;
  float2 f = rf_start_value (init, v.w, x, y, coarse, coarse_init, cw, ch);
  field[(size_t) y * v.w + x] = f;
  int i = rb_index (v, (x + y) & 1, y, x >> 1);
  float local;
  cc_refine_data d = rf_data_at (i0, i1, v.w, v.h, x, y, f, kappa, &local);
  if (v.lw)
    v.lw[i] = local;
  __half2 h[4] = { __floats2half2_rn (d.ix, d.iy), __floats2half2_rn (d.iz, d.ixx),
      __floats2half2_rn (d.ixy, d.iyy), __floats2half2_rn (d.ixz, d.iyz) };
  v.dh[i] = *(uint4 *) h;
  v.wuv[i] = f;
  v.duv[i] = make_float2 (0.0f, 0.0f);
}

// Cell of this thread (colour blockIdx.z, or `colour`); false when outside the level.
static __device__ __forceinline__ bool
rf_cell (const rb_view &v, int c, int *y, int *xs, int *x, int *ph)
{
  *xs = blockIdx.x * blockDim.x + threadIdx.x;
  *y = blockIdx.y * blockDim.y + threadIdx.y;
  if (*xs >= v.hw || *y >= v.h)
    return false;
  *ph = (*y + c) & 1;
  *x = 2 * *xs + *ph;
  return *x < v.w;
}

// As rf_cell with the colours interleaved block by block (blockIdx.x = 2 bx + c): both
// colours of a region are read close together in time (neighbours still in L2).
static __device__ __forceinline__ bool
rf_cell_il (const rb_view &v, int *c, int *y, int *xs, int *x, int *ph)
{
  *c = blockIdx.x & 1;
  *xs = (blockIdx.x >> 1) * blockDim.x + threadIdx.x;
  *y = blockIdx.y * blockDim.y + threadIdx.y;
  if (*xs >= v.hw || *y >= v.h)
    return false;
  *ph = (*y + *c) & 1;
  *x = 2 * *xs + *ph;
  return *x < v.w;
}

// |grad (w + dw)|^2 by forward differences at a cell.
static __device__ __forceinline__ float
rf_grad2 (const rb_view &v, int c, int y, int xs, int x, int ph)
{
  int i = rb_index (v, c, y, xs);
  float2 w0 = v.wuv[i], d0 = v.duv[i];
  float u = w0.x + d0.x, vv = w0.y + d0.y;
  float g = 0.0f;
  if (x + 1 < v.w) {
    int j = rb_index (v, 1 - c, y, xs + ph);
    float2 wj = v.wuv[j], dj = v.duv[j];
    float ux = wj.x + dj.x - u, vx = wj.y + dj.y - vv;
    g += ux * ux + vx * vx;
  }
  if (y + 1 < v.h) {
    int j = rb_index (v, 1 - c, y + 1, xs);
    float2 wj = v.wuv[j], dj = v.duv[j];
    float uy = wj.x + dj.x - u, vy = wj.y + dj.y - vv;
    g += uy * uy + vy * vy;
  }
  return g;
}

// The data terms of a cell (fp16 in memory).
static __device__ __forceinline__ cc_refine_data
rf_load_data (const rb_view &v, int i)
{
  uint4 q = __ldg (v.dh + i);
  float2 a = __half22float2 (*(__half2 *) &q.x), b = __half22float2 (*(__half2 *) &q.y);
  float2 c = __half22float2 (*(__half2 *) &q.z), e = __half22float2 (*(__half2 *) &q.w);
  cc_refine_data d = { a.x, a.y, b.x, b.y, c.x, c.y, e.x, e.y };
  return d;
}

// A coefficient rounded to bf16: the value the sweeps will see.
static __device__ __forceinline__ float
rf_bf16 (float x)
{
  return __bfloat162float (__float2bfloat16_rn (x));
}

// Two values already rounded to bf16, packed (low half first).
static __device__ __forceinline__ unsigned
rf_pack2 (float lo, float hi)
{
  return (__float_as_uint (lo) >> 16) | (__float_as_uint (hi) & 0xFFFF0000u);
}

// The coefficients of one cell: the smoothness weights of the cell and of its left and
// upper neighbours are computed here (the same formula), rounded to bf16 before they
// are summed into the diagonal and the right-hand side (the system stays consistent);
// the right-hand sides stay fp32.
static __device__ __forceinline__ void
rf_coef_cell (const rb_view &v, int c, int y, int xs, int x, int ph, float alpha, float delta,
    float gamma, float *s_, float *iu_, float *iv_, float *a12_, float *b1_, float *b2_)
{
  int i = rb_index (v, c, y, xs);
  float2 dw = v.duv[i], w0 = v.wuv[i];
  cc_refine_data d = rf_load_data (v, i);
  float s = rf_bf16 (cc_refine_smooth_weight (rf_grad2 (v, c, y, xs, x, ph), alpha,
        rb_lw (v, i)));
  float a11, a12, a22, b1, b2;
  cc_refine_data_system (&d, dw.x, dw.y, delta, gamma, &a11, &a12, &a22, &b1, &b2);
  float sum_w = 0.0f;
  int nb[4] = { -1, -1, -1, -1 };
  float wt[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
  if (x > 0) {
    nb[0] = rb_index (v, 1 - c, y, xs + ph - 1);
    wt[0] = rf_bf16 (cc_refine_smooth_weight (rf_grad2 (v, 1 - c, y, xs + ph - 1, x - 1,
            1 - ph), alpha, rb_lw (v, nb[0])));
  }
  if (x + 1 < v.w) { nb[1] = rb_index (v, 1 - c, y, xs + ph); wt[1] = s; }
  if (y > 0) {
    nb[2] = rb_index (v, 1 - c, y - 1, xs);
    wt[2] = rf_bf16 (cc_refine_smooth_weight (rf_grad2 (v, 1 - c, y - 1, xs, x, ph), alpha,
          rb_lw (v, nb[2])));
  }
  if (y + 1 < v.h) { nb[3] = rb_index (v, 1 - c, y + 1, xs); wt[3] = s; }
  for (int k = 0; k < 4; k++)
    if (nb[k] >= 0) {
      float2 q = v.wuv[nb[k]];
      sum_w += wt[k];
      b1 += wt[k] * (q.x - w0.x);
      b2 += wt[k] * (q.y - w0.y);
    }
  *iu_ = rf_bf16 (cc_refine_inverse_diag (a11 + sum_w));
  *iv_ = rf_bf16 (cc_refine_inverse_diag (a22 + sum_w));
  *a12_ = rf_bf16 (a12);
  *b1_ = b1;
  *b2_ = b2;
  *s_ = s;
}

// Smoothness weights and coefficients of the level, the colours interleaved block by
// block (rf_cell_il): packed bf16 coefficients for the sweeps, and the right-hand sides
// in fp32 (rhs) or, for the fp16 sweeps (h2), divided by h2_scale in fp16 (rhs16).
__global__ void
rf_weights_coef_kernel (rb_view v, float alpha, float delta, float gamma, int h2,
    float h2_scale)
{
  int c, y, xs, x, ph;
  if (!rf_cell_il (v, &c, &y, &xs, &x, &ph))
    return;
  int i = rb_index (v, c, y, xs);
  float s, iu, iv, a12, b1, b2;
  rf_coef_cell (v, c, y, xs, x, ph, alpha, delta, gamma, &s, &iu, &iv, &a12, &b1, &b2);
  v.pk[i] = make_uint2 (rf_pack2 (iu, iv), rf_pack2 (a12, s));
  if (h2) {
    __half2 q = __floats2half2_rn (b1 / h2_scale, b2 / h2_scale);
    v.rhs16[i] = *(unsigned *) &q;
  } else
    v.rhs[i] = make_float2 (b1, b2);
}

// Energy of the level at the current increment, summed into *out.
__global__ void
rf_energy_kernel (rb_view v, float alpha, float delta, float gamma, double *out)
{
  __shared__ double part[8];
  int c = blockIdx.z, y, xs, x, ph;
  double e = 0.0;
  if (rf_cell (v, c, &y, &xs, &x, &ph)) {
    int i = rb_index (v, c, y, xs);
    cc_refine_data d = rf_load_data (v, i);
    float2 dw = v.duv[i];
    e = cc_refine_data_energy (&d, dw.x, dw.y, delta, gamma)
        + cc_refine_smooth_energy (rf_grad2 (v, c, y, xs, x, ph), alpha, rb_lw (v, i));
  }
  for (int o = 16; o > 0; o >>= 1)
    e += __shfl_xor_sync (0xFFFFFFFFu, e, o);
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  if ((t & 31) == 0)
    part[t >> 5] = e;
  __syncthreads ();
  if (t == 0) {
    double s = 0.0;
    for (int k = 0; k < (int) (blockDim.x * blockDim.y) / 32; k++)
      s += part[k];
    atomicAdd (out, s);
  }
}

// field += increment, back to the natural layout; with dst (level 0), field + increment
// is written there (pitched rows) instead: rf_store_field_kernel fused in.
__global__ void
rf_finish_kernel (rb_view v, float2 *field, float *dst, size_t pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= v.w || y >= v.h)
    return;
  float2 d = v.duv[rb_index (v, (x + y) & 1, y, x >> 1)];
  float2 *f = field + (size_t) y * v.w + x;
  float2 r = *f;
  r.x += d.x;
  r.y += d.y;
  if (dst) {
    float *row = (float *) ((char *) dst + (size_t) y * pitch);
    row[2 * x] = r.x;
    row[2 * x + 1] = r.y;
  } else {
    *f = r;
  }
}

// ------------------------------------------------------------------ host side

extern "C" void
cc_cuda_refine_destroy (cc_cuda_refine *s)
{
  if (!s)
    return;
  for (int l = 0; l < CC_REFINE_LEVELS_MAX; l++) {
    cudaFree (s->i0[l]);
    cudaFree (s->i1[l]);
    cudaFree (s->init[l]);
    cudaFree (s->field[l]);
  }
  cudaFree (s->staging[0]);
  cudaFree (s->staging[1]);
  cudaFree (s->flow_staging);
  cudaFree (s->data);
  cudaFree (s->lw);
  cudaFree (s->ps0);
  cudaFree (s->ps1);
  cudaFree (s->wuv);
  cudaFree (s->duv);
  cudaFree (s->duv_alt);
  cudaFree (s->duv16[0]);
  cudaFree (s->duv16[1]);
  cudaFree (s->pk);
  cudaFree (s->rhs);
  cudaFree (s->rhs16);
  cudaFree (s->energies);
  if (s->graph)
    cudaGraphExecDestroy (s->graph);
  free (s);
}

extern "C" cc_status
cc_cuda_refine_create (cc_context *ctx, const cc_refine_sizes *sizes, int max_outer,
    cc_cuda_refine **out)
{
  *out = NULL;
  cc_cuda_refine *s = (cc_cuda_refine *) calloc (1, sizeof *s);
  if (!s)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "refine: out of host memory");
  s->ctx = ctx;
  s->stream = ctx->stream;   // until a call names its own
  s->sizes = *sizes;
  s->max_outer = max_outer;
  cc_status st = CC_SUCCESS;
#define RF_ALLOC(ptr, bytes) \
  if (st == CC_SUCCESS) st = cc_cuda_malloc (ctx, (bytes), (void **) &(ptr))
  for (int l = 0; l < sizes->levels; l++) {
    size_t n = (size_t) sizes->width[l] * sizes->height[l];
    RF_ALLOC (s->i0[l], n * sizeof (float));
    RF_ALLOC (s->i1[l], n * sizeof (float));
    RF_ALLOC (s->init[l], n * sizeof (float2));
    RF_ALLOC (s->field[l], n * sizeof (float2));
  }
  int w = sizes->width[0], h = sizes->height[0];
  size_t cells = (size_t) 2 * ((w + 1) / 2) * h;
  s->staging_pitch = (size_t) w * 4;
  RF_ALLOC (s->staging[0], s->staging_pitch * h);
  RF_ALLOC (s->staging[1], s->staging_pitch * h);
  RF_ALLOC (s->flow_staging, (size_t) w * h * sizeof (float2));
  RF_ALLOC (s->data, cells * sizeof (uint4));
  RF_ALLOC (s->lw, cells * sizeof (float));
  RF_ALLOC (s->ps0, (size_t) w * h * sizeof (float));
  RF_ALLOC (s->ps1, (size_t) w * h * sizeof (float));
  RF_ALLOC (s->wuv, cells * sizeof (float2));
  RF_ALLOC (s->duv, cells * sizeof (float2));
  RF_ALLOC (s->duv_alt, cells * sizeof (float2));
  RF_ALLOC (s->duv16[0], cells * sizeof (unsigned));
  RF_ALLOC (s->duv16[1], cells * sizeof (unsigned));
  RF_ALLOC (s->pk, cells * sizeof (uint2));
  RF_ALLOC (s->rhs, cells * sizeof (float2));
  RF_ALLOC (s->rhs16, cells * sizeof (unsigned));
  RF_ALLOC (s->energies, (size_t) CC_REFINE_LEVELS_MAX * (max_outer + 1) * sizeof (double));
#undef RF_ALLOC
  if (st != CC_SUCCESS) {
    cc_cuda_refine_destroy (s);
    return st;
  }
  *out = s;
  return CC_SUCCESS;
}

static dim3
grid_for (int w, int h, int z)
{
  return dim3 (cc_div_up (w, 32), cc_div_up (h, 8), z);
}

static cc_status
rf_luma (cc_cuda_refine *s, int slot, const cc_image *f)
{
  const uint8_t *src = (const uint8_t *) f->planes[0];
  size_t pitch = f->pitch[0];
  int bpp = (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) ? 4 : 1;
  int w = s->sizes.width[0], h = s->sizes.height[0];
  if (f->location == CC_LOCATION_HOST) {
    CC_TRY (cc_cuda_copy_2d (s->stream, s->staging[slot], s->staging_pitch, CC_LOCATION_DEVICE,
            src, pitch, CC_LOCATION_HOST, (size_t) w * bpp, h));
    src = s->staging[slot];
    pitch = s->staging_pitch;
  }
  float *dst = slot == 0 ? s->i0[0] : s->i1[0];
  rf_luma_kernel<<<grid_for (w, h, 1), dim3 (32, 8), 0, s->stream>>> (src, pitch,
      w, h, f->format == CC_FORMAT_RGBX8, f->format == CC_FORMAT_BGRX8, dst);
  CC_CUDA_LAUNCHED ("rf_luma_kernel");
  return CC_SUCCESS;
}

static rb_view
rf_view (cc_cuda_refine *s, int level)
{
  rb_view v;
  v.w = s->sizes.width[level];
  v.h = s->sizes.height[level];
  v.hw = (v.w + 1) / 2;
  v.wuv = s->wuv;
  v.duv = s->duv;
  v.pk = s->pk;
  v.rhs = s->rhs;
  v.rhs16 = s->rhs16;
  v.dh = s->data;
  v.lw = s->lw;
  return v;
}

// Register-tile halo of a level, px (H / 2 sweeps a launch): 8 at levels of >= 250k px,
// 12 under (short launches: fewer of them); at >= 1M px 12 for the fp16 tiles (1.86 vs
// 1.91 ms at 1080p) and 8 for the fp32 ones (two blocks an SM overlap loads and sweeps).
static int
rf_level_halo (const rb_view &v, bool fp16)
{
  long n = (long) v.w * v.h;
  return n >= 1000000 ? (fp16 ? 12 : 8) : n >= 250000 ? 8 : 12;
}

// The halo of a launch of `short_sweeps` sweeps, fewer than the level's halo makes (0: a
// full launch): such a last launch only needs 2 px a sweep, less halo and less traffic,
// where the fp32 kernel is compiled for that halo (4, 8, 10, 12).
static int
rf_launch_halo (int halo, int short_sweeps)
{
  int k = 2 * short_sweeps;
  return short_sweeps > 0 && (k == 4 || k == 8 || k == 10 || k == 12) ? k : halo;
}

// The fp16 kernel is compiled for halos 4, 8 and 12 (8 warps x 8 rows, 64 x 64 px).
static bool
rf_h2_halo (int halo)
{
  return halo == 4 || halo == 8 || halo == 12;
}

// The half2 sweeps' scale: the smoothness weights s <= alpha / (2 eps) = 500 alpha and
// the data terms (<= ~250 (delta + gamma)) divided by it stay under ~30 for any weights.
// Beyond weights of 1000 (the API allows 1e4) the fp32 sweeps run instead.
static float
rf_h2_scale (const cc_refine_params *p)
{
  float m = fmaxf (p->smoothness_weight, p->color_weight + p->gradient_weight);
  return RF_H2_SCALE * fmaxf (1.0f, m / 15.0f);
}

static bool
rf_h2_params_ok (const cc_refine_params *p)
{
  return p->smoothness_weight <= 1000.0f && p->color_weight + p->gradient_weight <= 1000.0f;
}

// One level: start field and data terms, outer iterations, finish (at level 0 into
// dst, pitched rows, when dst != NULL).
static cc_status
rf_level (cc_cuda_refine *s, const cc_refine_params *p, int level, double *energy,
    float *dst, size_t dst_pitch)
{
  cudaStream_t stream = s->stream;
  const cc_refine_sizes *z = &s->sizes;
  rb_view v = rf_view (s, level);
  if (!(p->smoothness_kappa > 0.0f))
    v.lw = NULL;   // a constant weight of 1: no local weights written or read
  dim3 block (32, 8), natural = grid_for (v.w, v.h, 1), both = grid_for (v.hw, v.h, 2);
  // the coefficient kernel: both colours in blockIdx.x (rf_cell_il)
  dim3 coef_grid (2 * cc_div_up (v.hw, 32), cc_div_up (v.h, 8), 1);
  bool top = level == z->levels - 1;
  // level 0 with presmoothing: the presmoothed luma (rf_enqueue)
  bool ps = level == 0 && p->presmooth_sigma > 0.0f;
  rf_start_data_kernel<<<natural, block, 0, stream>>> (ps ? s->ps0 : s->i0[level],
      ps ? s->ps1 : s->i1[level], s->init[level], top ? NULL : s->field[level + 1],
      top ? NULL : s->init[level + 1], top ? 0 : z->width[level + 1],
      top ? 0 : z->height[level + 1], s->field[level], p->smoothness_kappa, v);
  CC_CUDA_LAUNCHED ("rf_start_data_kernel");
  if (energy) {
    rf_energy_kernel<<<both, block, 0, stream>>> (v, p->smoothness_weight, p->color_weight,
        p->gradient_weight, energy++);
    CC_CUDA_LAUNCHED ("rf_energy_kernel");
  }
  // fp16 sweeps unless fp32 is asked for, the weights need fp32 (rf_h2_params_ok), or
  // the level's halo or that of its shorter last launch has no fp16 kernel (a 10 px last
  // launch: inner iterations 6k + 5 at a 12 px halo); the coefficient kernel then stores
  // the right-hand sides scaled, in fp16 (rhs16), for them
  const bool fp16 = !s->fp32;
  const int halo = rf_level_halo (v, fp16), per = halo / 2;
  const bool h2 = fp16 && rf_h2_halo (halo)
      && rf_h2_halo (rf_launch_halo (halo, p->inner_iterations % per)) && rf_h2_params_ok (p);
  const float h2_scale = rf_h2_scale (p);
  for (int outer = 0; outer < p->outer_iterations; outer++) {
    rf_weights_coef_kernel<<<coef_grid, block, 0, stream>>> (v, p->smoothness_weight,
        p->color_weight, p->gradient_weight, h2, h2_scale);
    CC_CUDA_LAUNCHED ("rf_weights_coef_kernel");
    int launch = 0;
    for (int left = p->inner_iterations; left > 0; left -= per, launch++) {
      float2 *other = v.duv == s->duv ? s->duv_alt : s->duv;
      int k = rf_launch_halo (halo, left < per ? left : 0);
      // every other launch takes the tiles in reverse order
      int flip = !(launch & 1);
      if (h2) {
        // fp32 increment into the first launch, fp16 between launches, fp32 out of the last
        bool in16 = launch > 0, out16 = left > per;
        CC_TRY (rf_sor_h2 (k, v, in16 ? (const void *) s->duv16[(launch - 1) & 1]
                : (const void *) v.duv, out16 ? (void *) s->duv16[launch & 1] : (void *) other,
                in16, out16, left < per ? left : per, p->omega, stream, flip, h2_scale));
        if (!out16)
          v.duv = other;
        continue;
      }
      CC_TRY (rf_sor_regs (k, v, other, left < per ? left : per, p->omega, stream, flip));
      v.duv = other;
    }
    if (energy) {
      rf_energy_kernel<<<both, block, 0, stream>>> (v, p->smoothness_weight, p->color_weight,
          p->gradient_weight, energy++);
      CC_CUDA_LAUNCHED ("rf_energy_kernel");
    }
  }
  rf_finish_kernel<<<natural, block, 0, stream>>> (v, s->field[level], dst, dst_pitch);
  CC_CUDA_LAUNCHED ("rf_finish_kernel");
  return CC_SUCCESS;
}

static cc_status
rf_enqueue (cc_cuda_refine *s, const cc_refine_params *p, const cc_image *prev,
    const cc_image *next, const cc_image *flow_in, cc_image *flow_out)
{
  cudaStream_t stream = s->stream;
  const cc_refine_sizes *z = &s->sizes;
  int w = z->width[0], h = z->height[0];
  dim3 block (32, 8);
  CC_TRY (rf_luma (s, 0, prev));
  CC_TRY (rf_luma (s, 1, next));
  const float *fin = (const float *) flow_in->planes[0];
  size_t fin_pitch = flow_in->pitch[0];
  if (flow_in->location == CC_LOCATION_HOST) {
    CC_TRY (cc_cuda_copy_2d (s->stream, s->flow_staging, sizeof (float2) * w, CC_LOCATION_DEVICE,
            fin, fin_pitch, CC_LOCATION_HOST, sizeof (float2) * w, h));
    fin = (const float *) s->flow_staging;
    fin_pitch = sizeof (float2) * w;
  }
  rf_copy_field_kernel<<<grid_for (w, h, 1), block, 0, stream>>> (fin, fin_pitch, w, h,
      s->init[0]);
  CC_CUDA_LAUNCHED ("rf_copy_field_kernel");
  for (int l = 1; l < z->levels; l++) {
    dim3 g = grid_for (z->width[l], z->height[l], 1);
    int pw = z->width[l - 1], ph = z->height[l - 1];
    rf_blur_down_kernel<<<g, block, 0, stream>>> (s->i0[l - 1], pw, ph, s->i0[l],
        z->width[l], z->height[l], 1, 1.0f);
    rf_blur_down_kernel<<<g, block, 0, stream>>> (s->i1[l - 1], pw, ph, s->i1[l],
        z->width[l], z->height[l], 1, 1.0f);
    rf_blur_down_kernel<<<g, block, 0, stream>>> ((const float *) s->init[l - 1], pw, ph,
        (float *) s->init[l], z->width[l], z->height[l], 2, 0.5f);
    CC_CUDA_LAUNCHED ("rf_blur_down_kernel");
  }
  if (p->presmooth_sigma > 0.0f) {
    // after the pyramid, which is built from the unsmoothed luma (as the CPU)
    rf_taps t;
    t.rad = cc_refine_presmooth_taps (p->presmooth_sigma, t.k);
    dim3 pg (cc_div_up (w, RF_PS_BX), cc_div_up (h, RF_PS_BY), 2);
    rf_presmooth_kernel<<<pg, dim3 (RF_PS_BX, RF_PS_BY), 0, stream>>> (s->i0[0], s->i1[0], w,
        h, t, s->ps0, s->ps1);
    CC_CUDA_LAUNCHED ("rf_presmooth_kernel");
  }
  double *energy = NULL;
  if (s->track_energy) {
    CC_TRY (cc_cuda_memset_async (s->stream, s->energies, 0,
            (size_t) z->levels * (p->outer_iterations + 1) * sizeof (double)));
    energy = s->energies;
  }
  bool host_out = flow_out->location == CC_LOCATION_HOST;
  float *dst = host_out ? (float *) s->flow_staging : (float *) flow_out->planes[0];
  size_t dst_pitch = host_out ? sizeof (float2) * w : flow_out->pitch[0];
  for (int l = z->levels - 1; l >= 0; l--) {
    CC_TRY (rf_level (s, p, l, energy, l == 0 ? dst : NULL, dst_pitch));
    if (energy)
      energy += p->outer_iterations + 1;
  }
  if (host_out)
    CC_TRY (cc_cuda_copy_2d (s->stream, flow_out->planes[0], flow_out->pitch[0], CC_LOCATION_HOST,
            s->flow_staging, sizeof (float2) * w, CC_LOCATION_DEVICE, sizeof (float2) * w, h));
  return CC_SUCCESS;
}

// With every image on the device and no energy tracking, a run is captured once into
// a CUDA graph (some 150 launches at 3 levels x 5 x 30) and replayed while the images
// and parameters stay the same: the coarse levels' kernels are short, and launch
// gaps would otherwise be a large share of them.
extern "C" cc_status
cc_cuda_refine_compute (cc_cuda_refine *s, cc_stream cs, const cc_refine_params *p,
    const cc_refine_tuning *t, const cc_image *prev, const cc_image *next,
    const cc_image *flow_in, cc_image *flow_out)
{
  s->stream = cs;
  s->fp32 = t->precision == CC_REFINE_PRECISION_FP32;
  s->track_energy = t->track_energy;
  const cc_image *im[4] = { prev, next, flow_in, flow_out };
  bool device = true;
  for (int i = 0; i < 4; i++)
    device = device && im[i]->location == CC_LOCATION_DEVICE;
  if (!device || s->track_energy)
    return rf_enqueue (s, p, prev, next, flow_in, flow_out);
  cc_cuda_refine::rf_graph_key key;
  memset (&key, 0, sizeof key);
  for (int i = 0; i < 4; i++) {
    key.planes[i] = im[i]->planes[0];
    key.pitch[i] = im[i]->pitch[0];
    key.format[i] = (int) im[i]->format;
  }
  key.params = *p;
  key.fp32 = s->fp32;
  cudaStream_t stream = s->stream;
  if (!s->graph || memcmp (&key, &s->graph_key, sizeof key)) {
    if (s->graph) {
      cudaGraphExecDestroy (s->graph);
      s->graph = NULL;
    }
    CC_CUDA_TRY (cudaStreamBeginCapture (stream, cudaStreamCaptureModeThreadLocal),
        "refine: graph capture");
    cc_status st = rf_enqueue (s, p, prev, next, flow_in, flow_out);
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture (stream, &g);
    if (st != CC_SUCCESS) {
      if (g)
        cudaGraphDestroy (g);
      return st;
    }
    if (e != cudaSuccess)
      return cc_set_error (CC_ERROR_CUDA, "refine: graph capture: %s", cudaGetErrorString (e));
    e = cudaGraphInstantiate (&s->graph, g, 0);
    cudaGraphDestroy (g);
    if (e != cudaSuccess) {
      s->graph = NULL;
      return cc_set_error (CC_ERROR_CUDA, "refine: graph instantiate: %s", cudaGetErrorString (e));
    }
    s->graph_key = key;
  }
  CC_CUDA_TRY (cudaGraphLaunch (s->graph, stream), "refine: graph launch");
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_refine_energies (cc_cuda_refine *s, double *out, int count)
{
  CC_CUDA_TRY (cudaMemcpyAsync (out, s->energies, (size_t) count * sizeof (double),
          cudaMemcpyDeviceToHost, s->stream), "refine energies");
  CC_CUDA_TRY (cudaStreamSynchronize (s->stream), "refine energies");
  return CC_SUCCESS;
}
