/* SPDX-License-Identifier: LGPL-2.1-or-later */
// CVD on CUDA: the twin of the CPU reference in src/cvd.c.
//
// Voronoi: JFA / 1+JFA / 1+JFA+2, one thread per pixel per pass, ping-pong label buffers
// (cc_cvd_jfa_pixel, shared with the CPU twin: same labels). Seeds: atomicMin of the
// id at each site's rounded pixel (lowest id wins, as the CPU's descending writes).
// Centroids (cc_cvd_centroid_method):
//  PRIVATIZED: a thread per pixel; a warp covers 32 consecutive pixels, whose runs
//              of one label (usually one or two) are summed by a segmented shuffle
//              reduction, and the run's head lane adds to the site's 64-bit sums.
//  MDRR:       a block per site sweeps the window of its four quadrants (side 2 Q,
//              Q = ceil (2 sqrt (w h / N)) px, around the rounded site) in 32 x 8
//              patches, reduces in the block and writes the sums; a per-pixel pass
//              then adds the pixels outside their site's window, so the sums are
//              exact whatever the cell shapes.
// Lloyd iterations are queued back to back with no host synchronisation: a device
// state holds the running displacement and a `converged` flag that makes every
// kernel of the remaining iterations return at once.
#include "cuda_common.cuh"
#include "cvd_internal.h"
#include "cvd_hostdev.h"

#include <stddef.h>
#include <stdlib.h>

#define CVD_THREADS 256

struct cvd_state {
  unsigned long long total;       // displacement of the running iteration
  unsigned long long last;        // of the last finished iteration
  int iterations, converged;
  unsigned maxd;                  // largest site move of the running iteration
  // ---- kept across calls (the resets clear the fields above only)
  int warm;                       // the labels are of sites moved by <= CC_CVD_WARM_MAX since
};
#define CVD_STATE_RESET offsetof (cvd_state, warm)

struct cc_cuda_cvd {
  cc_context *ctx;
  int w, h, cap;
  cc_cvd_site *sites;
  int32_t *labels, *labels_tmp;
  uint16_t *rho;
  cc_cvd_sums *sums;
  cc_cvd_colour_acc *colour;
  cc_cvd_mean *means;
  cvd_state *state;
};

// ------------------------------------------------------------------ kernels

__global__ void
cvd_density_kernel (cc_image f, int method, uint16_t *rho)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < f.width)
    rho[(size_t) y * f.width + x] = cc_cvd_density_at (&f, method, x, y);
}

// Warm start (cc_cvd_params.warm_start): on the device's flag, the fill and the
// passes before cc_cvd_jfa_warm_first return at once, and the sites re-seed their
// pixels over the last labels.
__device__ __forceinline__ bool
cvd_warm (const cvd_state *state, int warm_start)
{
  return warm_start && state->warm;
}

__global__ void
cvd_fill_kernel (int32_t *labels, size_t np, const cvd_state *state, int warm_start)
{
  if (state->converged || cvd_warm (state, warm_start))
    return;
  size_t p = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (p < np)
    labels[p] = CC_CVD_NONE;
}

// warm: the sites' pixels are cleared first, so the atomicMin that follows leaves the
// lowest id of the sites on each pixel, as from nothing
__global__ void
cvd_unseed_kernel (const cc_cvd_site *sites, int n, int w, int32_t *labels,
    const cvd_state *state, int warm_start)
{
  if (state->converged || !cvd_warm (state, warm_start))
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    labels[(size_t) cc_cvd_round_px (sites[i].y) * w + cc_cvd_round_px (sites[i].x)] =
        CC_CVD_NONE;
}

__global__ void
cvd_seed_kernel (const cc_cvd_site *sites, int n, int w, int32_t *labels, const cvd_state *state)
{
  if (state->converged)
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMin (&labels[(size_t) cc_cvd_round_px (sites[i].y) * w
        + cc_cvd_round_px (sites[i].x)], i);
}

__global__ void
cvd_jfa_kernel (const int32_t *__restrict__ in, int32_t *__restrict__ out,
    const cc_cvd_site *__restrict__ sites, int n, int w, int h, int k, const cvd_state *state,
    int cold_only)
{
  if (state->converged || (cold_only && state->warm))
    return;
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w)
    out[(size_t) y * w + x] = cc_cvd_jfa_pixel (in, sites, n, w, h, x, y, k);
}

__global__ void
cvd_clear_sums_kernel (cc_cvd_sums *sums, int n, const cvd_state *state)
{
  if (state->converged)
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sums[i].w = sums[i].x = sums[i].y = 0;
}

// Adds (w, x, y) of every run of one label in the warp to the label's sums; lanes
// with label < 0 hold nothing. Every lane of the warp must call it.
__device__ __forceinline__ void
warp_add_runs (cc_cvd_sums *sums, int label, unsigned long long vw, unsigned long long vx,
    unsigned long long vy)
{
  const unsigned full = 0xFFFFFFFFu;
  int lane = threadIdx.x & 31;
  int prev = __shfl_up_sync (full, label, 1);
  unsigned heads = __ballot_sync (full, lane == 0 || prev != label);
  int start = 31 - __clz ((int) (heads & (lane == 31 ? full : ((2u << lane) - 1))));
  for (int off = 1; off < 32; off <<= 1) {
    unsigned long long ow = __shfl_down_sync (full, vw, off);
    unsigned long long ox = __shfl_down_sync (full, vx, off);
    unsigned long long oy = __shfl_down_sync (full, vy, off);
    int os = __shfl_down_sync (full, start, off);
    if (lane + off < 32 && os == start) {
      vw += ow;
      vx += ox;
      vy += oy;
    }
  }
  if (start == lane && label >= 0) {
    atomicAdd ((unsigned long long *) &sums[label].w, vw);
    atomicAdd ((unsigned long long *) &sums[label].x, vx);
    atomicAdd ((unsigned long long *) &sums[label].y, vy);
  }
}

__global__ void
cvd_privatized_kernel (const int32_t *labels, const uint16_t *rho, int w, size_t np,
    cc_cvd_sums *sums, const cvd_state *state)
{
  if (state->converged)
    return;
  size_t p = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  int label = -1;
  unsigned long long vw = 0, vx = 0, vy = 0;
  if (p < np) {
    label = labels[p];
    unsigned long long r = rho[p];
    vw = r;
    vx = r * (unsigned long long) (p % w);
    vy = r * (unsigned long long) (p / w);
  }
  warp_add_runs (sums, label, vw, vx, vy);
}

__device__ __forceinline__ unsigned long long
warp_sum (unsigned long long v)
{
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync (0xFFFFFFFFu, v, off);
  return v;
}

__device__ __forceinline__ unsigned
warp_max (unsigned v)
{
  for (int off = 16; off > 0; off >>= 1)
    v = max (v, __shfl_down_sync (0xFFFFFFFFu, v, off));
  return v;
}

// MDRR: block i sweeps site i's window [px - Q, px + Q] x [py - Q, py + Q].
__global__ void
cvd_mdrr_kernel (const int32_t *labels, const uint16_t *rho, const cc_cvd_site *sites, int w,
    int h, int Q, cc_cvd_sums *sums, const cvd_state *state)
{
  if (state->converged)
    return;
  __shared__ unsigned long long part[3][CVD_THREADS / 32];
  int i = blockIdx.x;
  int px = cc_cvd_round_px (sites[i].x), py = cc_cvd_round_px (sites[i].y);
  int x0 = max (px - Q, 0), x1 = min (px + Q, w - 1);
  int y0 = max (py - Q, 0), y1 = min (py + Q, h - 1);
  int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  unsigned long long vw = 0, vx = 0, vy = 0;
  for (int y = y0 + ty; y <= y1; y += CVD_THREADS / 32)
    for (int x = x0 + tx; x <= x1; x += 32) {
      size_t p = (size_t) y * w + x;
      if (labels[p] == i) {
        unsigned long long r = rho[p];
        vw += r;
        vx += r * (unsigned long long) x;
        vy += r * (unsigned long long) y;
      }
    }
  vw = warp_sum (vw);
  vx = warp_sum (vx);
  vy = warp_sum (vy);
  if (tx == 0) {
    part[0][ty] = vw;
    part[1][ty] = vx;
    part[2][ty] = vy;
  }
  __syncthreads ();
  if (threadIdx.x == 0) {
    cc_cvd_sums s = { 0, 0, 0 };
    for (int k = 0; k < CVD_THREADS / 32; k++) {
      s.w += part[0][k];
      s.x += part[1][k];
      s.y += part[2][k];
    }
    sums[i] = s;
  }
}

// MDRR: the pixels outside their own site's window.
__global__ void
cvd_mdrr_outside_kernel (const int32_t *labels, const uint16_t *rho, const cc_cvd_site *sites,
    int w, size_t np, int Q, cc_cvd_sums *sums, const cvd_state *state)
{
  if (state->converged)
    return;
  size_t p = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  int label = -1;
  unsigned long long vw = 0, vx = 0, vy = 0;
  if (p < np) {
    int l = labels[p], x = (int) (p % w), y = (int) (p / w);
    int dx = x - cc_cvd_round_px (sites[l].x), dy = y - cc_cvd_round_px (sites[l].y);
    if (dx < -Q || dx > Q || dy < -Q || dy > Q) {
      label = l;
      unsigned long long r = rho[p];
      vw = r;
      vx = r * (unsigned long long) x;
      vy = r * (unsigned long long) y;
    }
  }
  warp_add_runs (sums, label, vw, vx, vy);
}

__global__ void
cvd_update_kernel (cc_cvd_site *sites, const cc_cvd_sums *sums, int n, cvd_state *state)
{
  if (state->converged)
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long d = 0;
  if (i < n)
    d = cc_cvd_update_site (&sites[i], &sums[i]);
  const unsigned m = warp_max ((unsigned) d);
  d = warp_sum (d);
  if ((threadIdx.x & 31) == 0 && d) {
    atomicAdd (&state->total, d);
    atomicMax (&state->maxd, m);
  }
}

__global__ void
cvd_finish_kernel (cvd_state *state, unsigned long long limit)
{
  if (state->converged)
    return;
  state->iterations++;
  state->last = state->total;
  state->total = 0;
  state->warm = state->maxd <= CC_CVD_WARM_MAX;
  state->maxd = 0;
  if (limit > 0 && state->last <= limit)
    state->converged = 1;
}

// Advection: each cell's count and sums of its pixels' quantised flow (two's
// complement in the unsigned sums), run-aggregated as the centroids.
__global__ void
cvd_flow_sums_kernel (const int32_t *labels, cc_image flow, int w, size_t np, cc_cvd_sums *sums)
{
  size_t p = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  int label = -1;
  unsigned long long vw = 0, vx = 0, vy = 0;
  long long qu, qv;
  if (p < np && cc_cvd_flow_px (&flow, (int) (p % w), (int) (p / w), &qu, &qv)) {
    label = labels[p];
    vw = 1;
    vx = (unsigned long long) qu;
    vy = (unsigned long long) qv;
  }
  warp_add_runs (sums, label, vw, vx, vy);
}

__global__ void
cvd_advect_kernel (cc_cvd_site *sites, const cc_cvd_sums *sums, int n, int w, int h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    cc_cvd_move_site (&sites[i], &sums[i], w, h);
}

__global__ void
cvd_colour_kernel (cc_image f, const int32_t *labels, cc_cvd_colour_acc *acc, int yuv)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  unsigned c[3];
  int chroma;
  cc_cvd_pixel_colour (&f, x, y, c, &chroma);
  cc_cvd_colour_acc *a = &acc[labels[(size_t) y * f.width + x]];
  atomicAdd (&a->n, 1ull);
  atomicAdd (&a->c[0], (unsigned long long) c[0]);
  if (!yuv || chroma) {
    if (chroma)
      atomicAdd (&a->nc, 1ull);
    atomicAdd (&a->c[1], (unsigned long long) c[1]);
    atomicAdd (&a->c[2], (unsigned long long) c[2]);
  }
}

__global__ void
cvd_means_kernel (const cc_cvd_colour_acc *acc, int n, int bgr, int yuv, long long radius2,
    cc_cvd_mean *means)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    cc_cvd_cell_mean (&acc[i], bgr, yuv, radius2, &means[i]);
}

__global__ void
cvd_render_kernel (cc_image f, const int32_t *labels, const cc_cvd_site *sites,
    const cc_cvd_mean *means, int style, int bw, cc_cvd_mean ink, cc_cvd_mean paper)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  cc_cvd_mean colours[2] = { ink, paper };
  cc_cvd_draw_pixel (&f, labels, sites, means, style, bw, colours, x, y);
}

// ------------------------------------------------------------------ host side

// A contiguous copy on the stream; waits when the host is involved (as
// cc_cuda_copy_2d, without its pitch limits).
static cc_status
copy_1d (cc_stream st, void *dst, cc_location dst_loc, const void *src, cc_location src_loc,
    size_t bytes)
{
  CC_CUDA_TRY (cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDefault, st), "cvd: copy");
  if (dst_loc == CC_LOCATION_HOST || src_loc == CC_LOCATION_HOST)
    CC_CUDA_TRY (cudaStreamSynchronize (st), "cvd: copy wait");
  return CC_SUCCESS;
}

static dim3
row_grid (int w, int h)
{
  return dim3 (cc_div_up (w, CVD_THREADS), h);
}

void
cc_cuda_cvd_destroy (cc_cuda_cvd *s)
{
  if (!s)
    return;
  cc_cuda_free (s->ctx, s->sites);
  cc_cuda_free (s->ctx, s->labels);
  cc_cuda_free (s->ctx, s->labels_tmp);
  cc_cuda_free (s->ctx, s->rho);
  cc_cuda_free (s->ctx, s->sums);
  cc_cuda_free (s->ctx, s->colour);
  cc_cuda_free (s->ctx, s->means);
  cc_cuda_free (s->ctx, s->state);
  free (s);
}

cc_status
cc_cuda_cvd_create (cc_context *ctx, int width, int height, cc_cuda_cvd **out)
{
  cc_cuda_cvd *s = (cc_cuda_cvd *) calloc (1, sizeof *s);
  if (!s)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_cvd_create: out of host memory");
  s->ctx = ctx;
  s->w = width;
  s->h = height;
  size_t np = (size_t) width * height;
  cc_status st = cc_cuda_malloc (ctx, np * sizeof (int32_t), (void **) &s->labels);
  if (st == CC_SUCCESS)
    st = cc_cuda_malloc (ctx, np * sizeof (int32_t), (void **) &s->labels_tmp);
  if (st == CC_SUCCESS)
    st = cc_cuda_malloc (ctx, np * sizeof (uint16_t), (void **) &s->rho);
  if (st == CC_SUCCESS)
    st = cc_cuda_malloc (ctx, sizeof (cvd_state), (void **) &s->state);
  // waited for here: a call on another stream must find it done
  if (st == CC_SUCCESS && (cudaMemsetAsync (s->state, 0, sizeof (cvd_state), ctx->stream)
      != cudaSuccess || cudaStreamSynchronize (ctx->stream) != cudaSuccess))
    st = cc_set_error (CC_ERROR_CUDA, "cc_cvd_create: state reset failed");
  if (st != CC_SUCCESS) {
    cc_cuda_cvd_destroy (s);
    return st;
  }
  // uniform density: 256 in every pixel (0x0100 little-endian: bytes 0x00 0x01)
  uint16_t *tmp = (uint16_t *) malloc (np * sizeof (uint16_t));
  if (!tmp) {
    cc_cuda_cvd_destroy (s);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_cvd_create: out of host memory");
  }
  for (size_t i = 0; i < np; i++)
    tmp[i] = 256;
  st = cc_cuda_cvd_set_density_map (s, ctx->stream, tmp);   // the upload waits
  free (tmp);
  if (st != CC_SUCCESS) {
    cc_cuda_cvd_destroy (s);
    return st;
  }
  *out = s;
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_reserve (cc_cuda_cvd *s, cc_stream stream, int n)
{
  if (n <= s->cap)
    return CC_SUCCESS;
  CC_TRY (cc_cuda_stream_synchronize (stream));
  cc_cuda_free (s->ctx, s->sites);
  cc_cuda_free (s->ctx, s->sums);
  cc_cuda_free (s->ctx, s->colour);
  cc_cuda_free (s->ctx, s->means);
  s->sites = NULL; s->sums = NULL; s->colour = NULL; s->means = NULL;
  s->cap = 0;
  CC_TRY (cc_cuda_malloc (s->ctx, (size_t) n * sizeof (cc_cvd_site), (void **) &s->sites));
  CC_TRY (cc_cuda_malloc (s->ctx, (size_t) n * sizeof (cc_cvd_sums), (void **) &s->sums));
  CC_TRY (cc_cuda_malloc (s->ctx, (size_t) n * sizeof (cc_cvd_colour_acc), (void **) &s->colour));
  CC_TRY (cc_cuda_malloc (s->ctx, (size_t) n * sizeof (cc_cvd_mean), (void **) &s->means));
  s->cap = n;
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_set_sites (cc_cuda_cvd *s, cc_stream stream, const cc_cvd_site *sites, int n)
{
  return copy_1d (stream, s->sites, CC_LOCATION_DEVICE, sites, CC_LOCATION_HOST,
      (size_t) n * sizeof (cc_cvd_site));
}

cc_status
cc_cuda_cvd_get_sites (cc_cuda_cvd *s, cc_stream stream, cc_cvd_site *sites, int n)
{
  return copy_1d (stream, sites, CC_LOCATION_HOST, s->sites, CC_LOCATION_DEVICE,
      (size_t) n * sizeof (cc_cvd_site));
}

cc_status
cc_cuda_cvd_set_density (cc_cuda_cvd *s, cc_stream stream, const cc_image *f,
    cc_cvd_density d)
{
  cvd_density_kernel<<<row_grid (s->w, s->h), CVD_THREADS, 0, stream>>> (*f,
      (int) d, s->rho);
  CC_CUDA_LAUNCHED ("cvd_density_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_set_density_map (cc_cuda_cvd *s, cc_stream stream, const uint16_t *rho)
{
  size_t np = (size_t) s->w * s->h;
  uint16_t *tmp = (uint16_t *) malloc (np * sizeof *tmp);
  if (!tmp)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_cvd_set_density_map: out of host memory");
  for (size_t i = 0; i < np; i++)
    tmp[i] = rho[i] ? rho[i] : 1;
  // the copy from the host waits for the stream: tmp may go
  cc_status st = copy_1d (stream, s->rho, CC_LOCATION_DEVICE, tmp, CC_LOCATION_HOST,
      np * sizeof *tmp);
  free (tmp);
  return st;
}

static cc_status
voronoi (cc_cuda_cvd *s, cudaStream_t st, int n, cc_cvd_voronoi_method method, int warm_start)
{
  size_t np = (size_t) s->w * s->h;
  cvd_fill_kernel<<<cc_div_up ((unsigned) np, CVD_THREADS), CVD_THREADS, 0, st>>> (s->labels,
      np, s->state, warm_start);
  cvd_unseed_kernel<<<cc_div_up (n, CVD_THREADS), CVD_THREADS, 0, st>>> (s->sites, n, s->w,
      s->labels, s->state, warm_start);
  cvd_seed_kernel<<<cc_div_up (n, CVD_THREADS), CVD_THREADS, 0, st>>> (s->sites, n, s->w,
      s->labels, s->state);
  CC_CUDA_LAUNCHED ("cvd_seed_kernel");
  // the passes of the method, as the CPU twin
  int steps[CC_CVD_JFA_MAX_STEPS];
  int m = cc_cvd_jfa_steps (s->w, s->h, (int) method, steps);
  // an even first warm pass: the warm passes use the buffers of the full schedule
  int first = cc_cvd_jfa_warm_first (m);
  for (int j = 0; j < m; j++) {
    cvd_jfa_kernel<<<row_grid (s->w, s->h), CVD_THREADS, 0, st>>> (s->labels, s->labels_tmp,
        s->sites, n, s->w, s->h, steps[j], s->state, warm_start && j < first);
    int32_t *t = s->labels;
    s->labels = s->labels_tmp;
    s->labels_tmp = t;
  }
  CC_CUDA_LAUNCHED ("cvd_jfa_kernel");
  return CC_SUCCESS;
}

// The per-call part of the device state cleared; cold: the warm flag too.
static cc_status
reset_state (cc_cuda_cvd *s, cudaStream_t st, int cold)
{
  CC_CUDA_TRY (cudaMemsetAsync (s->state, 0, cold ? sizeof (cvd_state) : CVD_STATE_RESET, st),
      "cvd: state reset");
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_voronoi (cc_cuda_cvd *s, cc_stream stream, int n, cc_cvd_voronoi_method method,
    int warm_start, int cold)
{
  CC_TRY (reset_state (s, stream, cold));
  return voronoi (s, stream, n, method, warm_start);
}

cc_status
cc_cuda_cvd_get_labels (cc_cuda_cvd *s, cc_stream stream, int32_t *labels)
{
  return copy_1d (stream, labels, CC_LOCATION_HOST, s->labels, CC_LOCATION_DEVICE,
      (size_t) s->w * s->h * sizeof (int32_t));
}

static cc_status
centroids (cc_cuda_cvd *s, cudaStream_t st, int n, cc_cvd_centroid_method m)
{
  size_t np = (size_t) s->w * s->h;
  unsigned blocks = cc_div_up ((unsigned) np, CVD_THREADS);
  if (m == CC_CVD_CENTROID_MDRR) {
    int Q = (int) ceil (2.0 * sqrt ((double) np / n));
    cvd_mdrr_kernel<<<n, CVD_THREADS, 0, st>>> (s->labels, s->rho, s->sites, s->w, s->h, Q,
        s->sums, s->state);
    CC_CUDA_LAUNCHED ("cvd_mdrr_kernel");
    cvd_mdrr_outside_kernel<<<blocks, CVD_THREADS, 0, st>>> (s->labels, s->rho, s->sites, s->w,
        np, Q, s->sums, s->state);
    CC_CUDA_LAUNCHED ("cvd_mdrr_outside_kernel");
    return CC_SUCCESS;
  }
  cvd_clear_sums_kernel<<<cc_div_up (n, CVD_THREADS), CVD_THREADS, 0, st>>> (s->sums, n, s->state);
  cvd_privatized_kernel<<<blocks, CVD_THREADS, 0, st>>> (s->labels, s->rho, s->w, np, s->sums,
      s->state);
  CC_CUDA_LAUNCHED ("cvd_privatized_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_centroid_sums (cc_cuda_cvd *s, cc_stream stream, int n, cc_cvd_centroid_method m,
    cc_cvd_sums *sums)
{
  CC_TRY (reset_state (s, stream, 0));
  CC_TRY (centroids (s, stream, n, m));
  return copy_1d (stream, sums, CC_LOCATION_HOST, s->sums, CC_LOCATION_DEVICE,
      (size_t) n * sizeof (cc_cvd_sums));
}

cc_status
cc_cuda_cvd_iterate (cc_cuda_cvd *s, cc_stream stream, int n, const cc_cvd_params *p,
    const cc_cvd_tuning *t, int iterations, unsigned long long threshold, int cold,
    cc_cvd_stats *stats)
{
  cudaStream_t st = stream;
  CC_TRY (reset_state (s, st, cold));
  for (int it = 0; it < iterations; it++) {
    CC_TRY (voronoi (s, st, n, t->voronoi, p->warm_start));
    CC_TRY (centroids (s, st, n, t->centroid));
    cvd_update_kernel<<<cc_div_up (n, CVD_THREADS), CVD_THREADS, 0, st>>> (s->sites, s->sums, n,
        s->state);
    cvd_finish_kernel<<<1, 1, 0, st>>> (s->state, threshold);
    CC_CUDA_LAUNCHED ("cvd_finish_kernel");
  }
  if (!stats)
    return CC_SUCCESS;
  cvd_state h;
  CC_TRY (copy_1d (st, &h, CC_LOCATION_HOST, s->state, CC_LOCATION_DEVICE, sizeof h));
  stats->iterations = h.iterations;
  stats->converged = h.converged;
  stats->displacement = h.last;
  stats->warm = p->warm_start && h.warm;
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_advect (cc_cuda_cvd *s, cc_stream stream, int n, const cc_image *flow)
{
  cudaStream_t st = stream;
  size_t np = (size_t) s->w * s->h;
  CC_CUDA_TRY (cudaMemsetAsync (s->sums, 0, (size_t) n * sizeof (cc_cvd_sums), st),
      "cvd: flow sums reset");
  cvd_flow_sums_kernel<<<cc_div_up ((unsigned) np, CVD_THREADS), CVD_THREADS, 0, st>>> (
      s->labels, *flow, s->w, np, s->sums);
  CC_CUDA_LAUNCHED ("cvd_flow_sums_kernel");
  cvd_advect_kernel<<<cc_div_up (n, CVD_THREADS), CVD_THREADS, 0, st>>> (s->sites, s->sums, n,
      s->w, s->h);
  CC_CUDA_LAUNCHED ("cvd_advect_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_cvd_render (cc_cuda_cvd *s, cc_stream stream, int n, cc_image *f, int style, int bw,
    long long radius2, const cc_cvd_mean colours[2])
{
  cudaStream_t st = stream;
  int yuv = f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
  if (style != CC_CVD_STYLE_OUTLINE) {
    CC_CUDA_TRY (cudaMemsetAsync (s->colour, 0, (size_t) n * sizeof (cc_cvd_colour_acc), st),
        "cvd: colour reset");
    cvd_colour_kernel<<<row_grid (s->w, s->h), CVD_THREADS, 0, st>>> (*f, s->labels, s->colour,
        yuv);
    CC_CUDA_LAUNCHED ("cvd_colour_kernel");
    cvd_means_kernel<<<cc_div_up (n, CVD_THREADS), CVD_THREADS, 0, st>>> (s->colour, n,
        f->format == CC_FORMAT_BGRX8, yuv, radius2, s->means);
    CC_CUDA_LAUNCHED ("cvd_means_kernel");
  }
  cvd_render_kernel<<<row_grid (s->w, s->h), CVD_THREADS, 0, st>>> (*f, s->labels, s->sites,
      s->means, style, bw, colours[0], colours[1]);
  CC_CUDA_LAUNCHED ("cvd_render_kernel");
  return CC_SUCCESS;
}
