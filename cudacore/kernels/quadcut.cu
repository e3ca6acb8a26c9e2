/* SPDX-License-Identifier: GPL-3.0-or-later */
// Quad-Cut on CUDA: the twin of the CPU reference in src/quadcut_compute.c, stage by stage,
// with the per-pixel and per-leaf formulas of src/quadcut_hostdev.h (built without
// FMA contraction, so that every float is the CPU's bit for bit).
//
// Front stage times come from CUDA events (cc_quadcut_graph.ms).
//
//  front: stratify (one thread a pixel; seed histogram by global atomics, integer)
//         -> the bins^2 histogram to the host, its -log costs back (a few KB) ->
//         per-pixel costs -> the reduction pyramid (one launch a level) -> origin
//         flags of the leaves, exclusive scan (CUB) = the leaf list in raster order
//         -> leaf records and the leaf-id image -> per-leaf sums and QuadN4
//         references (a thread a leaf) -> neighbour counts, scan, lists -> owned
//         n-link counts, scan, t-links and n-link weights written compactly into one
//         buffer -> its one copy into pinned host memory.
//  host:  the compact graph fed to libmaxflow and cut.
//  back:  quadcut_output.cu (the mask, the alpha and the outputs drawn from them).
#include "quadcut_cuda.cuh"

#include <cub/device/device_scan.cuh>
#include <float.h>
#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------ kernels

__device__ __forceinline__ void
pixel_lab (const cc_image &f, const float *lin, int x, int y, float lab[3])
{
  int rgb[3];
  cc_qc_pixel_rgb (&f, x, y, rgb);
  cc_qc_lab (rgb[0], rgb[1], rgb[2], lin, lab);
}

// The plate: its Lab and its canonical R, G, B bytes.
__global__ void
qc_plate_kernel (cc_image f, const float *__restrict__ lin, float *lab, uint8_t *rgb)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  size_t i = (size_t) y * f.width + x;
  int c[3];
  cc_qc_pixel_rgb (&f, x, y, c);
  cc_qc_lab (c[0], c[1], c[2], lin, lab + 3 * i);
  rgb[4 * i] = (uint8_t) c[0];
  rgb[4 * i + 1] = (uint8_t) c[1];
  rgb[4 * i + 2] = (uint8_t) c[2];
  rgb[4 * i + 3] = 0;
}

__global__ void
qc_plate_step_kernel (cc_image f, const float *__restrict__ lin, int step,
    const uint8_t *__restrict__ alpha, uint8_t *rgb, float *lab)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  size_t i = (size_t) y * f.width + x;
  if (alpha && alpha[i] != 0)
    return;
  int c[3];
  cc_qc_pixel_rgb (&f, x, y, c);
  cc_qc_plate_step (rgb + 4 * i, c, step, lin, lab + 3 * i);
}

__global__ void
qc_get_plate_kernel (const uint8_t *__restrict__ rgb, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= out.width)
    return;
  size_t i = (size_t) y * out.width + x;
  uint8_t *o = (uint8_t *) out.planes[0] + (size_t) y * out.pitch[0] + 4 * x;
  int ri = out.format == CC_FORMAT_RGBX8 ? 0 : 2;
  o[ri] = rgb[4 * i];
  o[1] = rgb[4 * i + 1];
  o[2 - ri] = rgb[4 * i + 2];
  o[3] = 255;
}

__global__ void
qc_stratify_kernel (cc_image f, cc_image other, int active, const float *__restrict__ lin,
    const float *__restrict__ plate_lab, float shadow_depth, float inv_2sl2, float seed_cost,
    int bins, float *lab, float *dist, float *cost_bg, uint8_t *seed, int *hist)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  size_t i = (size_t) y * f.width + x;
  float c[3], r[3];
  pixel_lab (f, lin, x, y, c);
  if (active)
    pixel_lab (other, lin, x, y, r);
  else {
    r[0] = plate_lab[3 * i];
    r[1] = plate_lab[3 * i + 1];
    r[2] = plate_lab[3 * i + 2];
  }
  lab[3 * i] = c[0];
  lab[3 * i + 1] = c[1];
  lab[3 * i + 2] = c[2];
  uint8_t s;
  cc_qc_stratify_pixel (c, r, active, shadow_depth, inv_2sl2, seed_cost, &dist[i],
      &cost_bg[i], &s);
  seed[i] = s;
  if (s)
    atomicAdd (&hist[cc_qc_cell (c, bins)], 1);
}

__global__ void
qc_cost_kernel (size_t npx, const float *__restrict__ lab, const float *__restrict__ hist_cost,
    int bins, const uint8_t *__restrict__ prev_mask, float tp, float *cost_fg, float *cost_bg)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npx)
    return;
  float cf = hist_cost[cc_qc_cell (lab + 3 * i, bins)];
  cost_fg[i] = cf + (prev_mask[i] ? 0.0f : tp);
  cost_bg[i] += prev_mask[i] ? tp : 0.0f;
}

__global__ void
qc_reduce_kernel (int k, int nw, int nh, int cw, const float *__restrict__ lab,
    const float *__restrict__ dist, const cc_qc_range *__restrict__ child,
    const uint8_t *__restrict__ child_group, cc_qc_criterion crit, cc_qc_range *out,
    uint8_t *group)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= nw || j >= nh)
    return;
  size_t ni = (size_t) j * nw + i;
  cc_qc_range r;
  group[ni] = (uint8_t) cc_qc_reduce (k, i, j, cw, lab, dist, child, child_group, &crit,
      &r);
  out[ni] = r;
}

__global__ void
qc_origin_kernel (cc_qc_pyramid py, int w, int h, int *flags)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  flags[(size_t) y * w + x] = cc_qc_leaf_at_origin (&py, x, y) >= 0;
}

__global__ void
qc_leaves_kernel (cc_qc_pyramid py, int w, int h, const int *__restrict__ prefix,
    cc_quadcut_leaf *leaves, int32_t *leaf_id)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  int k = cc_qc_leaf_level (&py, x, y), ox = x >> k << k, oy = y >> k << k;
  int id = prefix[(size_t) oy * w + ox];
  leaf_id[(size_t) y * w + x] = id;
  if (ox == x && oy == y) {
    leaves[id].x = x;
    leaves[id].y = y;
    leaves[id].level = k;
  }
}

__global__ void
qc_leaf_data_kernel (int n, const float *__restrict__ lab, const float *__restrict__ cost_fg,
    const float *__restrict__ cost_bg, const int32_t *__restrict__ leaf_id, int w, int h,
    cc_quadcut_leaf *leaves)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  cc_quadcut_leaf l = leaves[i];
  cc_qc_leaf_sums (&l, lab, cost_fg, cost_bg, w);
  cc_qc_quadn4 (&l, leaf_id, w, h);
  leaves[i] = l;
}

__global__ void
qc_count_kernel (int n, const cc_quadcut_leaf *__restrict__ leaves, int *counts)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    counts[i] = cc_qc_navigate (leaves, i, NULL, NULL);
}

__global__ void
qc_fill_kernel (int n, const cc_quadcut_leaf *__restrict__ leaves,
    const int *__restrict__ offsets, int *nbr, int *len)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    cc_qc_navigate (leaves, i, nbr + offsets[i], len + offsets[i]);
}

// The leaf graph: n-links each leaf owns (neighbours of a higher index), then the
// t-links and the n-links written compactly from the scanned counts.
__global__ void
qc_up_count_kernel (int n, const int *__restrict__ offsets, const int *__restrict__ nbr,
    int *counts)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    counts[i] = cc_qc_up_count (offsets, nbr, i);
}

__global__ void
qc_graph_kernel (int n, const cc_quadcut_leaf *__restrict__ leaves,
    const int *__restrict__ offsets, const int *__restrict__ nbr, const int *__restrict__ len,
    const int *__restrict__ eoff, double lambda, double inv_2sc2, double *fg, double *bg,
    int *ea, int *eb, double *ew)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  fg[i] = leaves[i].cost_fg;
  bg[i] = leaves[i].cost_bg;
  cc_qc_leaf_edges (leaves, offsets, nbr, len, i, lambda, inv_2sc2, eoff[i], ea, eb, ew);
}
// ------------------------------------------------------------------ host side

void
cc_cuda_quadcut_destroy (cc_cuda_quadcut *s)
{
  if (!s)
    return;
  cc_context *ctx = s->ctx;
  cc_cuda_free (ctx, s->lin);
  cc_cuda_free (ctx, s->plate_lab);
  cc_cuda_free (ctx, s->plate_rgb);
  cc_cuda_free (ctx, s->lab);
  cc_cuda_free (ctx, s->dist);
  cc_cuda_free (ctx, s->cost_fg);
  cc_cuda_free (ctx, s->cost_bg);
  cc_cuda_free (ctx, s->seed);
  cc_cuda_free (ctx, s->hist);
  cc_cuda_free (ctx, s->hist_cost);
  cc_cuda_free (ctx, s->mask);
  cc_cuda_free (ctx, s->prev_mask);
  cc_cuda_free (ctx, s->alpha);
  for (int k = 0; k < CC_QUADCUT_MAX_LEVEL + 2; k++)
    cc_cuda_free (ctx, s->group[k]);
  cc_cuda_free (ctx, s->range[0]);
  cc_cuda_free (ctx, s->range[1]);
  cc_cuda_free (ctx, s->flags);
  cc_cuda_free (ctx, s->prefix);
  cc_cuda_free (ctx, s->leaf_id);
  cc_cuda_free (ctx, s->leaves);
  cc_cuda_free (ctx, s->counts);
  cc_cuda_free (ctx, s->offsets);
  cc_cuda_free (ctx, s->eoff);
  cc_cuda_free (ctx, s->gbuf);
  if (s->hbuf)
    cudaFreeHost (s->hbuf);
  cc_cuda_free (ctx, s->nbr);
  cc_cuda_free (ctx, s->len);
  cc_cuda_free (ctx, s->labels);
  cc_cuda_free (ctx, s->box_tmp);
  cc_cuda_free (ctx, s->blurred);
  cc_cuda_free (ctx, s->scan_tmp);
  for (int k = 0; k < QC_EVENTS; k++)
    if (s->ev[k])
      cudaEventDestroy (s->ev[k]);
  free (s->host_hist);
  free (s->host_cost);
  free (s);
}

#define QC_ALLOC(ptr, bytes) CC_TRY (cc_cuda_malloc (ctx, (bytes), (void **) &(ptr)))

static cc_status
create_buffers (cc_cuda_quadcut *s, const float *lin)
{
  cc_context *ctx = s->ctx;
  size_t n = s->npx;
  QC_ALLOC (s->lin, 256 * sizeof (float));
  QC_ALLOC (s->plate_lab, 3 * n * sizeof (float));
  QC_ALLOC (s->plate_rgb, 4 * n);
  QC_ALLOC (s->lab, 3 * n * sizeof (float));
  QC_ALLOC (s->dist, n * sizeof (float));
  QC_ALLOC (s->cost_fg, n * sizeof (float));
  QC_ALLOC (s->cost_bg, n * sizeof (float));
  QC_ALLOC (s->seed, n);
  QC_ALLOC (s->hist, 256 * 256 * sizeof (int));
  QC_ALLOC (s->hist_cost, 256 * 256 * sizeof (float));
  QC_ALLOC (s->mask, n);
  QC_ALLOC (s->prev_mask, n);
  QC_ALLOC (s->alpha, n);
  for (int k = 1; k <= CC_QUADCUT_MAX_LEVEL; k++) {
    size_t nk = (size_t) (s->w >> k) * (s->h >> k);
    if (nk == 0)
      break;
    QC_ALLOC (s->group[k], nk);
  }
  size_t n1 = (size_t) (s->w >> 1) * (s->h >> 1), n2 = (size_t) (s->w >> 2) * (s->h >> 2);
  QC_ALLOC (s->range[0], (n1 ? n1 : 1) * sizeof (cc_qc_range));
  QC_ALLOC (s->range[1], (n2 ? n2 : 1) * sizeof (cc_qc_range));
  QC_ALLOC (s->flags, (n + 1) * sizeof (int));
  QC_ALLOC (s->prefix, (n + 1) * sizeof (int));
  QC_ALLOC (s->leaf_id, n * sizeof (int32_t));
  QC_ALLOC (s->box_tmp, 3 * n * sizeof (uint32_t));
  QC_ALLOC (s->blurred, 4 * n);
  // scan scratch for the largest scan (npx + 1 items; the leaf scans are shorter)
  CC_CUDA_TRY (cub::DeviceScan::ExclusiveSum (NULL, s->scan_bytes, s->flags, s->prefix,
      (int) (n + 1)), "quadcut: scan size");
  QC_ALLOC (s->scan_tmp, s->scan_bytes);
  CC_CUDA_TRY (cudaMemcpy (s->lin, lin, 256 * sizeof (float), cudaMemcpyHostToDevice),
      "quadcut: upload");
  cudaStream_t st = s->ctx->stream;
  CC_TRY (cc_cuda_memset_async (st, s->prev_mask, 0, n));
  CC_TRY (cc_cuda_memset_async (st, s->mask, 0, n));
  CC_TRY (cc_cuda_memset_async (st, s->alpha, 0, n));
  // waited for here: a call on another stream must find them done
  CC_CUDA_TRY (cudaStreamSynchronize (st), "quadcut: create");
  for (int k = 0; k < QC_EVENTS; k++)
    CC_CUDA_TRY (cudaEventCreate (&s->ev[k]), "quadcut: event");
  s->host_hist = (int *) malloc (256 * 256 * sizeof (int));
  s->host_cost = (float *) malloc (256 * 256 * sizeof (float));
  if (!s->host_hist || !s->host_cost)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_create (cc_context *ctx, int width, int height, const float *lin,
    cc_cuda_quadcut **out)
{
  *out = NULL;
  if ((size_t) width * height + 1 > 0x7FFFFFFF)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "quadcut: %dx%d is too large", width,
        height);
  cc_cuda_quadcut *s = (cc_cuda_quadcut *) calloc (1, sizeof *s);
  if (!s)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory");
  s->ctx = ctx;
  s->w = width;
  s->h = height;
  s->npx = (size_t) width * height;
  cc_status st = create_buffers (s, lin);
  if (st != CC_SUCCESS) {
    cc_cuda_quadcut_destroy (s);
    return st;
  }
  *out = s;
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_set_plate (cc_cuda_quadcut *s, cudaStream_t st, const cc_image *plate)
{
  qc_plate_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (
      *plate, s->lin, s->plate_lab, s->plate_rgb);
  CC_CUDA_LAUNCHED ("qc_plate_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_update_plate (cc_cuda_quadcut *s, cudaStream_t st, const cc_image *frame,
    int step, int background_only)
{
  qc_plate_step_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (
      *frame, s->lin, step, background_only ? s->alpha : NULL, s->plate_rgb, s->plate_lab);
  CC_CUDA_LAUNCHED ("qc_plate_step_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_get_plate (cc_cuda_quadcut *s, cudaStream_t st, cc_image *dst)
{
  qc_get_plate_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (
      s->plate_rgb, *dst);
  CC_CUDA_LAUNCHED ("qc_get_plate_kernel");
  return CC_SUCCESS;
}

static cc_status
run_scan (cc_cuda_quadcut *s, cudaStream_t st, const int *in, int *out, int items)
{
  size_t bytes = 0;
  CC_CUDA_TRY (cub::DeviceScan::ExclusiveSum (NULL, bytes, in, out, items), "quadcut: scan");
  if (bytes > s->scan_bytes) {
    cc_cuda_free (s->ctx, s->scan_tmp);
    s->scan_tmp = NULL;
    CC_TRY (cc_cuda_malloc (s->ctx, bytes, &s->scan_tmp));
    s->scan_bytes = bytes;
  }
  CC_CUDA_TRY (cub::DeviceScan::ExclusiveSum (s->scan_tmp, bytes, in, out, items,
      st), "quadcut: scan");
  return CC_SUCCESS;
}

// Reads one int of device memory (waits for the stream).
static cc_status
read_int (cc_cuda_quadcut *s, cudaStream_t st, const int *src, int *v)
{
  CC_CUDA_TRY (cudaMemcpyAsync (v, src, sizeof (int), cudaMemcpyDeviceToHost,
      st), "quadcut: download");
  CC_CUDA_TRY (cudaStreamSynchronize (st), "quadcut: synchronize");
  return CC_SUCCESS;
}

static cc_status
grow_leaves (cc_cuda_quadcut *s, int n)
{
  if (n <= s->leaf_cap)
    return CC_SUCCESS;
  cc_context *ctx = s->ctx;
  int cap = (int) cc_qc_capacity (n, 64);
  cc_cuda_free (ctx, s->leaves);
  cc_cuda_free (ctx, s->counts);
  cc_cuda_free (ctx, s->offsets);
  cc_cuda_free (ctx, s->eoff);
  s->leaves = NULL;
  s->counts = s->offsets = s->eoff = NULL;
  s->leaf_cap = 0;
  QC_ALLOC (s->leaves, (size_t) cap * sizeof (cc_quadcut_leaf));
  QC_ALLOC (s->counts, ((size_t) cap + 1) * sizeof (int));
  QC_ALLOC (s->offsets, ((size_t) cap + 1) * sizeof (int));
  QC_ALLOC (s->eoff, ((size_t) cap + 1) * sizeof (int));
  s->leaf_cap = cap;
  return CC_SUCCESS;
}

static cc_status
grow_nbr (cc_cuda_quadcut *s, long long n)
{
  if (n <= s->nbr_cap)
    return CC_SUCCESS;
  cc_context *ctx = s->ctx;
  long long cap = cc_qc_capacity (n, 256);
  cc_cuda_free (ctx, s->nbr);
  cc_cuda_free (ctx, s->len);
  s->nbr = s->len = NULL;
  s->nbr_cap = 0;
  QC_ALLOC (s->nbr, (size_t) cap * sizeof (int));
  QC_ALLOC (s->len, (size_t) cap * sizeof (int));
  s->nbr_cap = cap;
  return CC_SUCCESS;
}

// Room for a compact graph of `bytes` on the device and in pinned host memory
// (grown with 25 % headroom, never shrunk: no allocation a frame once grown).
static cc_status
grow_graph_buffers (cc_cuda_quadcut *s, size_t bytes)
{
  if (bytes <= s->gbuf_cap)
    return CC_SUCCESS;
  size_t cap = (size_t) cc_qc_capacity ((long long) bytes, 4096);
  cc_cuda_free (s->ctx, s->gbuf);
  s->gbuf = NULL;
  if (s->hbuf)
    cudaFreeHost (s->hbuf);
  s->hbuf = NULL;
  s->gbuf_cap = 0;
  CC_TRY (cc_cuda_malloc (s->ctx, cap, &s->gbuf));
  CC_CUDA_TRY (cudaMallocHost (&s->hbuf, cap), "quadcut: pinned host memory for the graph");
  s->gbuf_cap = cap;
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_front (cc_cuda_quadcut *s, cudaStream_t st, const cc_quadcut_params *p,
    const cc_image *frame, const cc_image *other, int have_prev, int levels,
    long long *n_neighbours, long long *n_seeds, cc_qc_host_graph *g, double ms[7])
{
  const int w = s->w, h = s->h, bins = p->bins, nb = bins * bins;
  const int active = p->mode == CC_QUADCUT_MODE_ACTIVE;
  const float inv_2sl2 = 1.0f / (2.0f * p->sigma_l * p->sigma_l);
  const float seed_cost = p->seed_threshold > 0.0f ? -logf (p->seed_threshold) : FLT_MAX;
  // stratify + seed histogram
  CC_CUDA_TRY (cudaEventRecord (s->ev[0], st), "quadcut: event");
  CC_TRY (cc_cuda_memset_async (st, s->hist, 0, (size_t) nb * sizeof (int)));
  qc_stratify_kernel<<<rows_grid (w, h), QC_THREADS, 0, st>>> (*frame,
      active ? *other : *frame, active, s->lin, s->plate_lab, p->shadow_depth, inv_2sl2,
      seed_cost, bins, s->lab, s->dist, s->cost_bg, s->seed, s->hist);
  CC_CUDA_LAUNCHED ("qc_stratify_kernel");
  CC_CUDA_TRY (cudaEventRecord (s->ev[1], st), "quadcut: event");
  // the histogram's costs on the host (the same function as the CPU backend's)
  CC_CUDA_TRY (cudaMemcpyAsync (s->host_hist, s->hist, (size_t) nb * sizeof (int),
      cudaMemcpyDeviceToHost, st), "quadcut: histogram download");
  CC_CUDA_TRY (cudaStreamSynchronize (st), "quadcut: synchronize");
  *n_seeds = cc_qc_hist_costs (s->host_hist, nb, s->host_cost);
  CC_CUDA_TRY (cudaMemcpyAsync (s->hist_cost, s->host_cost, (size_t) nb * sizeof (float),
      cudaMemcpyHostToDevice, st), "quadcut: costs upload");
  qc_cost_kernel<<<flat_blocks (s->npx), QC_THREADS, 0, st>>> (s->npx, s->lab, s->hist_cost,
      bins, s->prev_mask, have_prev ? p->temporal : 0.0f, s->cost_fg, s->cost_bg);
  CC_CUDA_LAUNCHED ("qc_cost_kernel");
  CC_CUDA_TRY (cudaEventRecord (s->ev[2], st), "quadcut: event");
  // pyramid
  const cc_qc_criterion crit = cc_qc_criterion_of (p);
  s->levels = levels;
  for (int k = 1; k <= levels; k++) {
    int nw = w >> k, nh = h >> k;
    qc_reduce_kernel<<<rows_grid (nw, nh), QC_THREADS, 0, st>>> (k, nw, nh, w >> (k - 1),
        s->lab, s->dist, s->range[k & 1], k > 1 ? s->group[k - 1] : NULL, crit,
        s->range[(k - 1) & 1], s->group[k]);
    CC_CUDA_LAUNCHED ("qc_reduce_kernel");
  }
  CC_CUDA_TRY (cudaEventRecord (s->ev[3], st), "quadcut: event");
  cc_qc_pyramid py;
  memset (&py, 0, sizeof py);
  py.levels = levels;
  for (int k = 0; k <= CC_QUADCUT_MAX_LEVEL; k++) {
    py.lw[k] = w >> k;
    py.lh[k] = h >> k;
    py.group[k] = s->group[k];
  }
  // leaf list: origin flags, scan, records and leaf ids
  CC_TRY (cc_cuda_memset_async (st, s->flags + s->npx, 0, sizeof (int)));
  qc_origin_kernel<<<rows_grid (w, h), QC_THREADS, 0, st>>> (py, w, h, s->flags);
  CC_CUDA_LAUNCHED ("qc_origin_kernel");
  CC_TRY (run_scan (s, st, s->flags, s->prefix, (int) s->npx + 1));
  int n;
  CC_TRY (read_int (s, st, s->prefix + s->npx, &n));
  CC_TRY (grow_leaves (s, n));
  qc_leaves_kernel<<<rows_grid (w, h), QC_THREADS, 0, st>>> (py, w, h, s->prefix, s->leaves,
      s->leaf_id);
  CC_CUDA_LAUNCHED ("qc_leaves_kernel");
  qc_leaf_data_kernel<<<flat_blocks (n), QC_THREADS, 0, st>>> (n, s->lab, s->cost_fg,
      s->cost_bg, s->leaf_id, w, h, s->leaves);
  CC_CUDA_LAUNCHED ("qc_leaf_data_kernel");
  CC_CUDA_TRY (cudaEventRecord (s->ev[4], st), "quadcut: event");
  // neighbour lists: counts, scan, fill
  CC_TRY (cc_cuda_memset_async (st, s->counts + n, 0, sizeof (int)));
  qc_count_kernel<<<flat_blocks (n), QC_THREADS, 0, st>>> (n, s->leaves, s->counts);
  CC_CUDA_LAUNCHED ("qc_count_kernel");
  CC_TRY (run_scan (s, st, s->counts, s->offsets, n + 1));
  int total;
  CC_TRY (read_int (s, st, s->offsets + n, &total));
  CC_TRY (grow_nbr (s, total));
  qc_fill_kernel<<<flat_blocks (n), QC_THREADS, 0, st>>> (n, s->leaves, s->offsets, s->nbr,
      s->len);
  CC_CUDA_LAUNCHED ("qc_fill_kernel");
  CC_CUDA_TRY (cudaEventRecord (s->ev[5], st), "quadcut: event");
  // the leaf graph: owned n-link counts, scan, t-links and n-links compacted into one
  // buffer [fg n][bg n][w m] doubles, [a m][b m] ints (m = total / 2: each pair is in
  // both lists)
  const long long m = total / 2;
  const size_t bytes = (size_t) n * 16 + (size_t) m * 16;
  CC_TRY (grow_graph_buffers (s, bytes));
  double *dfg = (double *) s->gbuf, *dbg = dfg + n, *dw = dbg + n;
  int *da = (int *) (dw + m), *db = da + m;
  CC_TRY (cc_cuda_memset_async (st, s->counts + n, 0, sizeof (int)));
  qc_up_count_kernel<<<flat_blocks (n), QC_THREADS, 0, st>>> (n, s->offsets, s->nbr,
      s->counts);
  CC_CUDA_LAUNCHED ("qc_up_count_kernel");
  CC_TRY (run_scan (s, st, s->counts, s->eoff, n + 1));
  const double inv_2sc2 = 1.0 / (2.0 * p->sigma_c * p->sigma_c), lambda = p->lambda;
  qc_graph_kernel<<<flat_blocks (n), QC_THREADS, 0, st>>> (n, s->leaves, s->offsets, s->nbr,
      s->len, s->eoff, lambda, inv_2sc2, dfg, dbg, da, db, dw);
  CC_CUDA_LAUNCHED ("qc_graph_kernel");
  CC_CUDA_TRY (cudaEventRecord (s->ev[6], st), "quadcut: event");
  // the one copy to the host
  CC_CUDA_TRY (cudaMemcpyAsync (s->hbuf, s->gbuf, bytes, cudaMemcpyDeviceToHost, st),
      "quadcut: graph download");
  CC_CUDA_TRY (cudaEventRecord (s->ev[7], st), "quadcut: event");
  CC_CUDA_TRY (cudaEventSynchronize (s->ev[7]), "quadcut: synchronize");
  for (int k = 0; k < QC_EVENTS - 1; k++) {
    float e = 0.0f;
    CC_CUDA_TRY (cudaEventElapsedTime (&e, s->ev[k], s->ev[k + 1]), "quadcut: event time");
    ms[k] = e;
  }
  s->n_leaves = n;
  s->n_nbr = total;
  *n_neighbours = total;
  const double *hfg = (const double *) s->hbuf, *hbg = hfg + n, *hw = hbg + n;
  const int *ha = (const int *) (hw + m);
  g->n = n;
  g->m = m;
  g->fg = hfg;
  g->bg = hbg;
  g->w = hw;
  g->a = ha;
  g->b = ha + m;
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_download_graph (cc_cuda_quadcut *s, cudaStream_t st, cc_quadcut_leaf *leaves,
    int *offsets, int *neighbours, int *lengths)
{
  CC_CUDA_TRY (cudaMemcpyAsync (leaves, s->leaves, (size_t) s->n_leaves * sizeof *leaves,
      cudaMemcpyDeviceToHost, st), "quadcut: leaves download");
  CC_CUDA_TRY (cudaMemcpyAsync (offsets, s->offsets, ((size_t) s->n_leaves + 1) * sizeof (int),
      cudaMemcpyDeviceToHost, st), "quadcut: offsets download");
  if (s->n_nbr > 0) {
    CC_CUDA_TRY (cudaMemcpyAsync (neighbours, s->nbr, (size_t) s->n_nbr * sizeof (int),
        cudaMemcpyDeviceToHost, st), "quadcut: neighbours download");
    CC_CUDA_TRY (cudaMemcpyAsync (lengths, s->len, (size_t) s->n_nbr * sizeof (int),
        cudaMemcpyDeviceToHost, st), "quadcut: lengths download");
  }
  CC_CUDA_TRY (cudaStreamSynchronize (st), "quadcut: synchronize");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_download (cc_cuda_quadcut *s, cudaStream_t st, float *L, float *a, float *b,
    float *d, uint8_t *seed, int32_t *leaf_id, uint8_t *mask, uint8_t *alpha)
{
  size_t n = s->npx;
  CC_CUDA_TRY (cudaStreamSynchronize (st), "quadcut: synchronize");
  if (L || a || b) {
    float *lab = (float *) malloc (3 * n * sizeof (float));
    if (!lab)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of host memory");
    cudaError_t e = cudaMemcpy (lab, s->lab, 3 * n * sizeof (float), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
      for (size_t i = 0; i < n; i++) {
        if (L)
          L[i] = lab[3 * i];
        if (a)
          a[i] = lab[3 * i + 1];
        if (b)
          b[i] = lab[3 * i + 2];
      }
    free (lab);
    CC_CUDA_TRY (e, "quadcut: Lab download");
  }
  if (d)
    CC_CUDA_TRY (cudaMemcpy (d, s->dist, n * sizeof (float), cudaMemcpyDeviceToHost),
        "quadcut: download");
  if (seed)
    CC_CUDA_TRY (cudaMemcpy (seed, s->seed, n, cudaMemcpyDeviceToHost), "quadcut: download");
  if (leaf_id)
    CC_CUDA_TRY (cudaMemcpy (leaf_id, s->leaf_id, n * sizeof (int32_t),
        cudaMemcpyDeviceToHost), "quadcut: download");
  if (mask)
    CC_CUDA_TRY (cudaMemcpy (mask, s->mask, n, cudaMemcpyDeviceToHost), "quadcut: download");
  if (alpha)
    CC_CUDA_TRY (cudaMemcpy (alpha, s->alpha, n, cudaMemcpyDeviceToHost), "quadcut: download");
  return CC_SUCCESS;
}
