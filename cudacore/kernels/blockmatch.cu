/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Block matching on CUDA: the twin of the CPU reference in src/blockmatch.c.
//
// Per level one launch of match_kernel: one thread block per image block. The
// block's template, the search region of frame 2 (block + radius on each side,
// border replicated) and the per-pixel region offsets go to shared memory; each
// warp scores candidates (lanes split the block's pixels, integer sums reduced by
// shuffles), every candidate's cost key is kept in shared memory, and the block
// reduces them to the best (and the second best, for the confidence) on the GPU
// with the CPU's exact tie-break: no host round trip between levels.
#include "cuda_common.cuh"
#include "blockmatch_internal.h"
#include "blockmatch_hostdev.h"

#include <stdlib.h>

#define BM_THREADS 256
#define BM_WARPS (BM_THREADS / 32)

struct cc_cuda_bm {
  cc_stream stream;   // the stream of the public call in progress (set by each entry point)
  cc_context *ctx;
  cc_bm_layout L;
  uint8_t *pyr[2][CC_BLOCKMATCH_LEVELS_MAX];   // packed, pitch = level width
  uint8_t *staging[2];                         // host frames' plane 0
  size_t staging_pitch;
  int2 *vec[CC_BLOCKMATCH_LEVELS_MAX];
  float2 *fvec;                                // level 0, frame px
  float *conf;
  float2 *grid_out;                            // for host outputs
  float *conf_out;
  float2 *dense_out;
};

// ------------------------------------------------------------------ kernels

__global__ void
bm_luma_kernel (const uint8_t *src, size_t pitch, int w, int h, int rgbx, int bgrx,
    uint8_t *dst)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  dst[(size_t) y * w + x] = (uint8_t) cc_row_luma8 (src + (size_t) y * pitch, x, rgbx, bgrx);
}

__global__ void
bm_down_kernel (const uint8_t *s, int sw, int sh, uint8_t *d, int dw, int dh)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh)
    return;
  int x0 = 2 * x, y0 = 2 * y;
  int x1 = x0 + 1 < sw ? x0 + 1 : x0, y1 = y0 + 1 < sh ? y0 + 1 : y0;
  d[y * dw + x] = (uint8_t) ((s[y0 * sw + x0] + s[y0 * sw + x1] + s[y1 * sw + x0]
          + s[y1 * sw + x1] + 2) >> 2);
}

static __device__ __forceinline__ int
warp_sum (int v)
{
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync (0xFFFFFFFFu, v, o);
  return v;
}

static __device__ __forceinline__ unsigned long long
warp_min64 (unsigned long long v)
{
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long t = __shfl_xor_sync (0xFFFFFFFFu, v, o);
    v = t < v ? t : v;
  }
  return v;
}

// Block-wide minimum; every thread gets it. `scratch` holds BM_WARPS values.
static __device__ unsigned long long
block_min64 (unsigned long long v, unsigned long long *scratch)
{
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_min64 (v);
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads ();
  unsigned long long m = scratch[0];
  for (int i = 1; i < BM_WARPS; i++)
    m = scratch[i] < m ? scratch[i] : m;
  __syncthreads ();
  return m;
}

struct bm_level_args {
  const uint8_t *a, *b;       // frame 1 and 2 at this level
  int w, h, block, radius, metric, subpixel, finest;
  float flat_threshold;
  const int2 *parent;         // coarser level's vectors, or NULL
  int parent_gw, parent_gh;
  int2 *vec;                  // this level's vectors
  float2 *fvec;               // finest: frame-px vectors
  float *conf;                // finest: confidence
  int gw;
};

// Shared memory: region offsets (B*B uint16), template (B*B bytes), region
// ((B+2r)^2 bytes), candidate keys ((2r+1)^2 uint32).
static size_t
bm_smem_bytes (int block, int radius)
{
  size_t n = (size_t) block * block;
  size_t region = (size_t) (block + 2 * radius) * (block + 2 * radius);
  size_t side = 2 * radius + 1;
  size_t head = n + 2 * n + region;
  head = (head + 15) & ~(size_t) 15;
  return head + 4 * side * side;
}

__global__ void __launch_bounds__ (BM_THREADS)
bm_match_kernel (bm_level_args g)
{
  extern __shared__ __align__ (16) unsigned char smem[];
  __shared__ unsigned long long red[BM_WARPS];
  __shared__ int sums[BM_WARPS][2];
  __shared__ int best_sums[4];
  const int B = g.block, r = g.radius, side = 2 * r + 1, C = side * side;
  const int bx = blockIdx.x, by = blockIdx.y;
  const int x0 = bx * B, y0 = by * B;
  const int bw = min (B, g.w - x0), bh = min (B, g.h - y0), n = bw * bh;
  const int RW = bw + 2 * r, RH = bh + 2 * r;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  uint16_t *ofs = (uint16_t *) smem;      // first: 2-byte aligned for any B
  uint8_t *tpl = smem + 2 * B * B;
  uint8_t *reg = smem + 3 * B * B;
  size_t head = ((size_t) 3 * B * B + (size_t) (B + 2 * r) * (B + 2 * r) + 15) & ~(size_t) 15;
  uint32_t *keys = (uint32_t *) (smem + head);

  int sx = 0, sy = 0;
  if (g.parent) {
    int pbx = min (bx / 2, g.parent_gw - 1), pby = min (by / 2, g.parent_gh - 1);
    int2 pv = g.parent[pby * g.parent_gw + pbx];
    sx = 2 * pv.x;
    sy = 2 * pv.y;
  }
  // template, its region offsets and its sums (the block's normalisation)
  int sa = 0, saa = 0;
  for (int p = tid; p < n; p += BM_THREADS) {
    int j = p / bw, i = p - j * bw;
    int av = g.a[(size_t) (y0 + j) * g.w + x0 + i];
    tpl[p] = (uint8_t) av;
    ofs[p] = (uint16_t) (j * RW + i);
    sa += av;
    saa += av * av;
  }
  for (int p = tid; p < RW * RH; p += BM_THREADS) {
    int ry = p / RW, rx = p - ry * RW;
    int gx = min (max (x0 + sx - r + rx, 0), g.w - 1);
    int gy = min (max (y0 + sy - r + ry, 0), g.h - 1);
    reg[p] = g.b[(size_t) gy * g.w + gx];
  }
  sa = warp_sum (sa);
  saa = warp_sum (saa);
  if (lane == 0) {
    sums[warp][0] = sa;
    sums[warp][1] = saa;
  }
  __syncthreads ();
  long long Sa = 0, Saa = 0;
  for (int i = 0; i < BM_WARPS; i++) {
    Sa += sums[i][0];
    Saa += sums[i][1];
  }
  const size_t gi = (size_t) by * g.gw + bx;
  if (cc_bm_flat (n, Sa, Saa, g.flat_threshold)) {   // uniform over the block
    if (tid == 0) {
      g.vec[gi] = make_int2 (sx, sy);
      if (g.finest) {
        g.fvec[gi] = make_float2 ((float) sx, (float) sy);
        g.conf[gi] = 0.0f;
      }
    }
    return;
  }
  // score every candidate: one warp per candidate, lanes over the pixels
  for (int c = warp; c < C; c += BM_WARPS) {
    int dy = c / side, dx = c - dy * side;   // region offset of the candidate
    int shift = dy * RW + dx;
    int sab = 0, sb = 0, sbb = 0, sad = 0;
    for (int p = lane; p < n; p += 32) {
      int av = tpl[p], bv = reg[ofs[p] + shift];
      sab += av * bv;
      sb += bv;
      sbb += bv * bv;
      sad += abs (av - bv);
    }
    sab = warp_sum (sab);
    sb = warp_sum (sb);
    sbb = warp_sum (sbb);
    sad = warp_sum (sad);
    if (lane == 0) {
      cc_bm_sums s = { sab, sb, sbb, sad };
      keys[c] = cc_bm_key (cc_bm_cost (g.metric, n, Sa, Saa, &s));
    }
  }
  __syncthreads ();
  unsigned long long mine = ~0ull;
  for (int c = tid; c < C; c += BM_THREADS) {
    int dy = c / side - r, dx = c - (c / side) * side - r;
    unsigned long long k = cc_bm_pack (keys[c], dx, dy, c);
    mine = k < mine ? k : mine;
  }
  unsigned long long best = block_min64 (mine, red);
  const int bc = (int) (best & 0xFFFF);
  const int bdx = bc % side - r, bdy = bc / side - r;
  if (!g.finest) {
    if (tid == 0)
      g.vec[gi] = make_int2 (sx + bdx, sy + bdy);
    return;
  }
  // second best at >= 2 px from the best (key only; 0xFFFFFFFF: none)
  unsigned long long second = 0xFFFFFFFFull;
  for (int c = tid; c < C; c += BM_THREADS) {
    int ddx = c % side - r - bdx, ddy = c / side - r - bdy;
    if (ddx > 1 || ddx < -1 || ddy > 1 || ddy < -1)
      second = keys[c] < second ? keys[c] : second;
  }
  second = block_min64 (second, red);
  // NCC at the best match (the confidence's peak), by warp 0
  if (warp == 0) {
    int shift = (bdy + r) * RW + bdx + r;
    int sab = 0, sb = 0, sbb = 0;
    for (int p = lane; p < n; p += 32) {
      int av = tpl[p], bv = reg[ofs[p] + shift];
      sab += av * bv;
      sb += bv;
      sbb += bv * bv;
    }
    sab = warp_sum (sab);
    sb = warp_sum (sb);
    sbb = warp_sum (sbb);
    if (lane == 0) {
      best_sums[0] = sab;
      best_sums[1] = sb;
      best_sums[2] = sbb;
    }
  }
  __syncthreads ();
  if (tid != 0)
    return;
  float best_cost = cc_bm_key_value ((uint32_t) (best >> 32));
  float ox = 0.0f, oy = 0.0f;
  if (g.subpixel)
    cc_bm_subpixel (keys, side, r, bc, bdx, bdy, best_cost, &ox, &oy);
  double ncc = cc_bm_ncc (n, Sa, Saa, best_sums[0], best_sums[1], best_sums[2]);
  int has_second = second != 0xFFFFFFFFull;
  int vx = sx + bdx, vy = sy + bdy;
  g.vec[gi] = make_int2 (vx, vy);
  g.fvec[gi] = make_float2 ((float) vx + ox, (float) vy + oy);
  g.conf[gi] = cc_bm_confidence (ncc, best_cost,
      has_second ? cc_bm_key_value ((uint32_t) second) : 0.0f, has_second);
}

__global__ void
bm_output_kernel (const float2 *fvec, const float *conf, int gw, int gh, float sx, float sy,
    float *flow, size_t flow_pitch, float *cout, size_t conf_pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= gw || y >= gh)
    return;
  float2 v = fvec[y * gw + x];
  float *row = (float *) ((char *) flow + (size_t) y * flow_pitch);
  row[2 * x] = v.x * sx;
  row[2 * x + 1] = v.y * sy;
  if (cout)
    ((float *) ((char *) cout + (size_t) y * conf_pitch))[x] = conf[y * gw + x];
}

__global__ void
bm_dense_kernel (const float2 *fvec, const float *conf, int gw, int gh, int block, int w,
    int h, float *dense, size_t pitch)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float u, v;
  cc_bm_dense_at ((const float *) fvec, conf, gw, gh, block, x, y, &u, &v);
  float *row = (float *) ((char *) dense + (size_t) y * pitch);
  row[2 * x] = u;
  row[2 * x + 1] = v;
}

// ------------------------------------------------------------------ host side

extern "C" void
cc_cuda_bm_destroy (cc_cuda_bm *s)
{
  if (!s)
    return;
  for (int l = 0; l < CC_BLOCKMATCH_LEVELS_MAX; l++) {
    cudaFree (s->pyr[0][l]);
    cudaFree (s->pyr[1][l]);
    cudaFree (s->vec[l]);
  }
  cudaFree (s->staging[0]);
  cudaFree (s->staging[1]);
  cudaFree (s->fvec);
  cudaFree (s->conf);
  cudaFree (s->grid_out);
  cudaFree (s->conf_out);
  cudaFree (s->dense_out);
  free (s);
}

extern "C" cc_status
cc_cuda_bm_create (cc_context *ctx, const cc_bm_layout *L, cc_cuda_bm **out)
{
  *out = NULL;
  cc_cuda_bm *s = (cc_cuda_bm *) calloc (1, sizeof *s);
  if (!s)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "blockmatch: out of host memory");
  s->ctx = ctx;
  s->stream = ctx->stream;   // until a call names its own
  s->L = *L;
  cc_status st = CC_SUCCESS;
#define BM_ALLOC(ptr, bytes) \
  if (st == CC_SUCCESS) st = cc_cuda_malloc (ctx, (bytes), (void **) &(ptr))
  for (int l = 0; l < L->levels; l++) {
    size_t n = (size_t) L->width[l] * L->height[l];
    BM_ALLOC (s->pyr[0][l], n);
    BM_ALLOC (s->pyr[1][l], n);
    BM_ALLOC (s->vec[l], sizeof (int2) * L->grid_w[l] * L->grid_h[l]);
  }
  size_t g = (size_t) L->grid_w[0] * L->grid_h[0];
  s->staging_pitch = (size_t) L->width[0] * 4;
  BM_ALLOC (s->staging[0], s->staging_pitch * L->height[0]);
  BM_ALLOC (s->staging[1], s->staging_pitch * L->height[0]);
  BM_ALLOC (s->fvec, sizeof (float2) * g);
  BM_ALLOC (s->conf, sizeof (float) * g);
  BM_ALLOC (s->grid_out, sizeof (float2) * g);
  BM_ALLOC (s->conf_out, sizeof (float) * g);
  BM_ALLOC (s->dense_out, sizeof (float2) * L->width[0] * L->height[0]);
#undef BM_ALLOC
  if (st != CC_SUCCESS) {
    cc_cuda_bm_destroy (s);
    return st;
  }
  *out = s;
  return CC_SUCCESS;
}

static cc_status
bm_luma (cc_cuda_bm *s, int slot, const cc_image *f)
{
  const uint8_t *src = (const uint8_t *) f->planes[0];
  size_t pitch = f->pitch[0];
  int bpp = (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) ? 4 : 1;
  int w = s->L.width[0], h = s->L.height[0];
  if (f->location == CC_LOCATION_HOST) {
    CC_TRY (cc_cuda_copy_2d (s->stream, s->staging[slot], s->staging_pitch, CC_LOCATION_DEVICE,
            src, pitch, CC_LOCATION_HOST, (size_t) w * bpp, h));
    src = s->staging[slot];
    pitch = s->staging_pitch;
  }
  dim3 block (32, 8), grid (cc_div_up (w, 32), cc_div_up (h, 8));
  bm_luma_kernel<<<grid, block, 0, s->stream>>> (src, pitch, w, h,
      f->format == CC_FORMAT_RGBX8, f->format == CC_FORMAT_BGRX8, s->pyr[slot][0]);
  CC_CUDA_LAUNCHED ("bm_luma_kernel");
  for (int l = 1; l < s->L.levels; l++) {
    dim3 g2 (cc_div_up (s->L.width[l], 32), cc_div_up (s->L.height[l], 8));
    bm_down_kernel<<<g2, block, 0, s->stream>>> (s->pyr[slot][l - 1],
        s->L.width[l - 1], s->L.height[l - 1], s->pyr[slot][l], s->L.width[l], s->L.height[l]);
    CC_CUDA_LAUNCHED ("bm_down_kernel");
  }
  return CC_SUCCESS;
}

extern "C" cc_status
cc_cuda_bm_compute (cc_cuda_bm *s, cc_stream cs, const cc_blockmatch_params *p, const cc_image *prev,
    const cc_image *next, cc_image *grid_flow, cc_image *grid_conf, cc_image *dense)
{
  s->stream = cs;
  const cc_bm_layout *L = &s->L;
  cudaStream_t stream = s->stream;
  CC_TRY (bm_luma (s, 0, prev));
  CC_TRY (bm_luma (s, 1, next));
  for (int l = L->levels - 1; l >= 0; l--) {
    bm_level_args a;
    a.a = s->pyr[0][l];
    a.b = s->pyr[1][l];
    a.w = L->width[l];
    a.h = L->height[l];
    a.block = L->block;
    a.radius = L->radius[l];
    a.metric = (int) p->metric;
    a.subpixel = p->subpixel;
    a.finest = l == 0;
    a.flat_threshold = p->flat_threshold;
    a.parent = l + 1 < L->levels ? s->vec[l + 1] : NULL;
    a.parent_gw = l + 1 < L->levels ? L->grid_w[l + 1] : 0;
    a.parent_gh = l + 1 < L->levels ? L->grid_h[l + 1] : 0;
    a.vec = s->vec[l];
    a.fvec = s->fvec;
    a.conf = s->conf;
    a.gw = L->grid_w[l];
    size_t smem = bm_smem_bytes (a.block, a.radius);
    dim3 grid (L->grid_w[l], L->grid_h[l]);
    bm_match_kernel<<<grid, BM_THREADS, smem, stream>>> (a);
    CC_CUDA_LAUNCHED ("bm_match_kernel");
  }
  int gw = L->grid_w[0], gh = L->grid_h[0], w = L->width[0], h = L->height[0];
  dim3 block (32, 8);
  bool host_flow = grid_flow->location == CC_LOCATION_HOST;
  bool host_conf = grid_conf && grid_conf->location == CC_LOCATION_HOST;
  float *flow_dst = host_flow ? (float *) s->grid_out : (float *) grid_flow->planes[0];
  size_t flow_pitch = host_flow ? sizeof (float2) * gw : grid_flow->pitch[0];
  float *conf_dst = !grid_conf ? NULL : host_conf ? s->conf_out : (float *) grid_conf->planes[0];
  size_t conf_pitch = host_conf || !grid_conf ? sizeof (float) * gw : grid_conf->pitch[0];
  bm_output_kernel<<<dim3 (cc_div_up (gw, 32), cc_div_up (gh, 8)), block, 0, stream>>> (
      s->fvec, s->conf, gw, gh, (float) gw / w, (float) gh / h, flow_dst, flow_pitch,
      conf_dst, conf_pitch);
  CC_CUDA_LAUNCHED ("bm_output_kernel");
  bool host_dense = dense && dense->location == CC_LOCATION_HOST;
  if (dense) {
    float *dst = host_dense ? (float *) s->dense_out : (float *) dense->planes[0];
    size_t pitch = host_dense ? sizeof (float2) * w : dense->pitch[0];
    bm_dense_kernel<<<dim3 (cc_div_up (w, 32), cc_div_up (h, 8)), block, 0, stream>>> (
        s->fvec, s->conf, gw, gh, L->block, w, h, dst, pitch);
    CC_CUDA_LAUNCHED ("bm_dense_kernel");
  }
  if (host_flow)
    CC_TRY (cc_cuda_copy_2d (s->stream, grid_flow->planes[0], grid_flow->pitch[0],
            CC_LOCATION_HOST, s->grid_out, sizeof (float2) * gw, CC_LOCATION_DEVICE,
            sizeof (float2) * gw, gh));
  if (host_conf)
    CC_TRY (cc_cuda_copy_2d (s->stream, grid_conf->planes[0], grid_conf->pitch[0],
            CC_LOCATION_HOST, s->conf_out, sizeof (float) * gw, CC_LOCATION_DEVICE,
            sizeof (float) * gw, gh));
  if (host_dense)
    CC_TRY (cc_cuda_copy_2d (s->stream, dense->planes[0], dense->pitch[0], CC_LOCATION_HOST,
            s->dense_out, sizeof (float2) * w, CC_LOCATION_DEVICE, sizeof (float2) * w, h));
  return CC_SUCCESS;
}
