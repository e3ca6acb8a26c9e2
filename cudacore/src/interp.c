/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EPIC interpolation (Revaud et al., CVPR 2015): the API and the CPU reference.
 *
 * The algorithm (both backends compute the same fixed points, same bits):
 *  1. Cost map of frame 1: luma, 5x5 binomial blur (integers), central-difference
 *     gradient magnitude g in luma levels per pixel; cost = flat_cost + edge_weight g.
 *     A stand-in for the structured-forest edges (SED) of EpicFlow: texture costs
 *     too, so edge_weight is kept moderate.
 *  2. Seeds: matches with confidence > 0, their rounded pixel in the frame; one per
 *     2x2 block of pixels (the lowest match index wins). The node of a seed is its
 *     block index.
 *  3. Geodesic Voronoi: every pixel gets the key (distance, seed) of its nearest
 *     seed along 8-connected paths (step = mean cost of the two pixels x length),
 *     ties to the lower seed. The key of each pixel is the unique fixed point of
 *     key(p) = min over neighbours q of relax(key(q), step(p, q)) (float sums grow
 *     strictly along a path, so the fixed point is unique whatever the update
 *     order): the CPU reaches it by Dijkstra, CUDA by tiled parallel relaxation.
 *  4. Seed graph: two cells are adjacent where 4-neighbour pixels p, q carry their
 *     labels; the edge cost is the least d(p) + step(p, q) + d(q) over such pairs.
 *     Adjacency lists sorted by neighbour.
 *  5. Per seed: its k nearest seeds on that graph (Dijkstra, cc_interp_knn), a
 *     locally-weighted affine fit (or Nadaraya-Watson) with weights exp (-D / sigma).
 *  6. Per pixel: the model of its cell's seed at the pixel (piecewise affine, as
 *     EpicFlow's per-seed approximation). Pixels no seed reaches: zero flow.
 */
#include "interp_internal.h"
#include "interp_hostdev.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void
cc_interp_params_default (cc_interp_params *p)
{
  p->k = 32;
  p->sigma = 1.0f;
  p->affine = true;
  p->cell = 2;
  p->flat_cost = 0.02f;
  p->edge_weight = 0.02f;
  p->extrapolate = 0.0f;
  p->robust = 0.0f;
}

cc_status
cc_interp_params_check (const cc_interp_params *p)
{
  CC_CHECK_ARG (p != NULL, "interp: params is NULL");
  CC_CHECK_ARG (p->k >= 1 && p->k <= 128, "interp: k %d out of range 1..128", p->k);
  CC_CHECK_ARG (p->sigma >= 1e-3f && p->sigma <= 1e4f,
      "interp: sigma %g out of range [0.001, 10000]", p->sigma);
  CC_CHECK_ARG (p->cell >= CC_INTERP_MIN_CELL && p->cell <= 8,
      "interp: cell %d out of range %d..8", p->cell, CC_INTERP_MIN_CELL);
  CC_CHECK_ARG (p->flat_cost >= 1e-3f && p->flat_cost <= 100.0f,
      "interp: flat_cost %g out of range [0.001, 100]", p->flat_cost);
  CC_CHECK_ARG (p->edge_weight >= 0.0f && p->edge_weight <= 100.0f,
      "interp: edge_weight %g out of range [0, 100]", p->edge_weight);
  CC_CHECK_ARG (p->extrapolate >= 0.0f && p->extrapolate <= 1e4f,
      "interp: extrapolate %g out of range [0, 10000]", p->extrapolate);
  CC_CHECK_ARG (p->robust >= 0.0f && p->robust <= 1e4f,
      "interp: robust %g out of range [0, 10000]", p->robust);
  return CC_SUCCESS;
}

struct cc_interp {
  cc_module mod;                 /* ctx, frame size (first: module.c) */
  cc_interp_params params;
  /* CPU */
  uint8_t *luma;
  int *blur_h, *blur;
  float *cost;
  uint64_t *keys;
  int *heap, *heap_pos;          /* pixel Dijkstra: indexed binary heap */
  int *owner;                    /* per cell: lowest match index, or INT_MAX */
  uint64_t *table_key;           /* seed-graph edges: (lo << 32 | hi) or NONE */
  float *table_cost;
  int table_size, table_bits;
  int *offsets, *cursor, *adj_node;
  float *adj_cost;
  float *model;                  /* CC_INTERP_MODEL per block */
  /* CUDA */
  cc_cuda_interp *cuda;
  cc_stream last_stream;         /* of the last run: waited for before its scratch is
                                    reused from another stream */
  const cc_flow_match *matches;  /* of the last run (cc_interp_confidence) */
  bool ran;
};

static void
cpu_free (cc_interp *ip)
{
  free (ip->luma);
  free (ip->blur_h);
  free (ip->blur);
  free (ip->cost);
  free (ip->keys);
  free (ip->heap);
  free (ip->heap_pos);
  free (ip->owner);
  free (ip->table_key);
  free (ip->table_cost);
  free (ip->offsets);
  free (ip->cursor);
  free (ip->adj_node);
  free (ip->adj_cost);
  free (ip->model);
}

static cc_status
cpu_alloc (cc_interp *ip)
{
  size_t n = (size_t) ip->mod.width * ip->mod.height;
  size_t nb = (size_t) cc_interp_blocks (ip->mod.width, ip->mod.height, CC_INTERP_MIN_CELL);
  size_t t = (size_t) ip->table_size;
  ip->luma = malloc (n);
  ip->blur_h = malloc (n * sizeof (int));
  ip->blur = malloc (n * sizeof (int));
  ip->cost = malloc (n * sizeof (float));
  ip->keys = malloc (n * sizeof (uint64_t));
  ip->heap = malloc (n * sizeof (int));
  ip->heap_pos = malloc (n * sizeof (int));
  ip->owner = malloc (nb * sizeof (int));
  ip->table_key = malloc (t * sizeof (uint64_t));
  ip->table_cost = malloc (t * sizeof (float));
  ip->offsets = malloc ((nb + 1) * sizeof (int));
  ip->cursor = malloc (nb * sizeof (int));
  ip->adj_node = malloc (t * sizeof (int));
  ip->adj_cost = malloc (t * sizeof (float));
  ip->model = malloc (nb * CC_INTERP_MODEL * sizeof (float));
  if (!ip->luma || !ip->blur_h || !ip->blur || !ip->cost || !ip->keys || !ip->heap
      || !ip->heap_pos || !ip->owner || !ip->table_key || !ip->table_cost || !ip->offsets
      || !ip->cursor || !ip->adj_node || !ip->adj_cost || !ip->model)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_interp_create: out of host memory "
        "for %dx%d", ip->mod.width, ip->mod.height);
  return CC_SUCCESS;
}

static cc_status
interp_alloc (cc_module *mod)
{
  cc_interp *ip = (cc_interp *) mod;
  ip->table_size = cc_interp_table_size (mod->width, mod->height);
  ip->table_bits = 0;
  while ((1 << ip->table_bits) < ip->table_size)
    ip->table_bits++;
  if (mod->ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_interp_create (mod->ctx, mod->width, mod->height,
            &ip->cuda));
  return cpu_alloc (ip);
}

static void
interp_release (cc_module *mod)
{
  cc_interp *ip = (cc_interp *) mod;
#if CC_HAVE_CUDA
  if (ip->cuda)
    cc_cuda_interp_destroy (ip->cuda);
#endif
  ip->cuda = NULL;
  cpu_free (ip);
}

/* Scratch is sized for the smallest cell at create: no params change needs more. */
CC_MODULE_CLASS (interp_class, cc_interp, cc_interp_params, cc_interp, NULL, interp_alloc,
    interp_release);

cc_status
cc_interp_create (cc_context *ctx, int width, int height, const cc_interp_params *params,
    cc_interp **out)
{
  cc_module *m = NULL;
  cc_status st = cc_module_create (&interp_class, ctx, width, height, params,
      out ? &m : NULL);
  if (out)
    *out = (cc_interp *) m;
  return st;
}

void
cc_interp_destroy (cc_interp *ip)
{
  cc_module_destroy ((cc_module *) ip);
}

cc_status
cc_interp_set_params (cc_interp *ip, const cc_interp_params *params)
{
  CC_CHECK_ARG (ip != NULL, "cc_interp_set_params: interp is NULL");
  return cc_module_set_params (&ip->mod, params);
}

/* ------------------------------------------------------------ CPU reference */

static void
cpu_cost (cc_interp *ip, const cc_image *f)
{
  const int w = ip->mod.width, h = ip->mod.height;
  const int rgbx = f->format == CC_FORMAT_RGBX8, bgrx = f->format == CC_FORMAT_BGRX8;
  const int threads = cc_context_cpu_threads (ip->mod.ctx);
  const float flat = ip->params.flat_cost, ew = ip->params.edge_weight;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; y++) {
    const uint8_t *row = (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
    for (int x = 0; x < w; x++)
      ip->luma[(size_t) y * w + x] = (uint8_t) cc_row_luma8 (row, x, rgbx, bgrx);
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; y++) {
    const uint8_t *l = ip->luma + (size_t) y * w;
    for (int x = 0; x < w; x++)
      ip->blur_h[(size_t) y * w + x] = cc_interp_binomial5 (l[cc_clampi (x - 2, 0, w - 1)],
          l[cc_clampi (x - 1, 0, w - 1)], l[x], l[cc_clampi (x + 1, 0, w - 1)],
          l[cc_clampi (x + 2, 0, w - 1)]);
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const int *b = ip->blur_h + x;
      ip->blur[(size_t) y * w + x] = cc_interp_binomial5 (
          b[(size_t) cc_clampi (y - 2, 0, h - 1) * w], b[(size_t) cc_clampi (y - 1, 0, h - 1) * w],
          b[(size_t) y * w], b[(size_t) cc_clampi (y + 1, 0, h - 1) * w],
          b[(size_t) cc_clampi (y + 2, 0, h - 1) * w]);
    }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const int *b = ip->blur;
      ip->cost[(size_t) y * w + x] = cc_interp_cost (
          b[(size_t) y * w + cc_clampi (x - 1, 0, w - 1)],
          b[(size_t) y * w + cc_clampi (x + 1, 0, w - 1)],
          b[(size_t) cc_clampi (y - 1, 0, h - 1) * w + x],
          b[(size_t) cc_clampi (y + 1, 0, h - 1) * w + x], flat, ew);
    }
}

/* Indexed binary min-heap of pixels keyed by ip->keys. */
static void
heap_up (cc_interp *ip, int i)
{
  int *heap = ip->heap, *pos = ip->heap_pos;
  int p = heap[i];
  uint64_t k = ip->keys[p];
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (ip->keys[heap[parent]] <= k)
      break;
    heap[i] = heap[parent];
    pos[heap[i]] = i;
    i = parent;
  }
  heap[i] = p;
  pos[p] = i;
}

static void
heap_down (cc_interp *ip, int i, int count)
{
  int *heap = ip->heap, *pos = ip->heap_pos;
  int p = heap[i];
  uint64_t k = ip->keys[p];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= count)
      break;
    if (c + 1 < count && ip->keys[heap[c + 1]] < ip->keys[heap[c]])
      c++;
    if (ip->keys[heap[c]] >= k)
      break;
    heap[i] = heap[c];
    pos[heap[i]] = i;
    i = c;
  }
  heap[i] = p;
  pos[p] = i;
}

static void
cpu_geodesic (cc_interp *ip)
{
  const int w = ip->mod.width, h = ip->mod.height;
  int count = 0;
  for (size_t p = 0; p < (size_t) w * h; p++) {
    ip->heap_pos[p] = -1;
    if (ip->keys[p] != CC_INTERP_KEY_NONE) {
      ip->heap[count] = (int) p;
      ip->heap_pos[p] = count;
      heap_up (ip, count);
      count++;
    }
  }
  for (unsigned pops = 1; count > 0; pops++) {
    if ((pops & 0xFFFF) == 0 && cc_cancel_requested (ip->mod.ctx))
      return;   /* cpu_run reports it */
    int p = ip->heap[0];
    ip->heap_pos[p] = -2;   /* settled */
    count--;
    if (count > 0) {
      ip->heap[0] = ip->heap[count];
      ip->heap_pos[ip->heap[0]] = 0;
      heap_down (ip, 0, count);
    }
    int px = p % w, py = p / w;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int qx = px + dx, qy = py + dy;
        if ((dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= w || qy >= h)
          continue;
        int q = qy * w + qx;
        if (ip->heap_pos[q] == -2)
          continue;
        uint64_t k = cc_interp_relax (ip->keys[p],
            cc_interp_step (ip->cost[p], ip->cost[q], dx != 0 && dy != 0));
        if (k >= ip->keys[q])
          continue;
        ip->keys[q] = k;
        if (ip->heap_pos[q] < 0) {
          ip->heap[count] = q;
          ip->heap_pos[q] = count;
          count++;
        }
        heap_up (ip, ip->heap_pos[q]);
      }
  }
}

static void
table_insert (cc_interp *ip, int a, int b, float c)
{
  uint64_t key = cc_interp_edge_key (a, b);
  uint32_t mask = (uint32_t) ip->table_size - 1, s = cc_interp_table_slot (key, ip->table_bits);
  for (int probe = 0; probe < ip->table_size; probe++, s = (s + 1) & mask) {
    if (ip->table_key[s] == CC_INTERP_KEY_NONE) {
      ip->table_key[s] = key;
      ip->table_cost[s] = c;
      return;
    }
    if (ip->table_key[s] == key) {
      if (c < ip->table_cost[s])
        ip->table_cost[s] = c;
      return;
    }
  }
}

/* Seed graph: the edge table, then CSR lists sorted by neighbour. */
static void
cpu_graph (cc_interp *ip)
{
  const int w = ip->mod.width, h = ip->mod.height, nb = cc_interp_blocks (w, h, ip->params.cell);
  for (int s = 0; s < ip->table_size; s++)
    ip->table_key[s] = CC_INTERP_KEY_NONE;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      size_t p = (size_t) y * w + x;
      uint64_t kp = ip->keys[p];
      if (kp == CC_INTERP_KEY_NONE)
        continue;
      for (int dir = 0; dir < 2; dir++) {
        long long q = cc_interp_edge_neighbour (x, y, w, h, dir);
        if (q < 0 || !cc_interp_edge_joins (kp, ip->keys[q]))
          continue;
        uint64_t kq = ip->keys[q];
        table_insert (ip, cc_interp_key_label (kp), cc_interp_key_label (kq),
            cc_interp_edge_cost (kp, kq, ip->cost[p], ip->cost[q]));
      }
    }
  memset (ip->cursor, 0, (size_t) nb * sizeof (int));
  for (int s = 0; s < ip->table_size; s++)
    if (ip->table_key[s] != CC_INTERP_KEY_NONE) {
      ip->cursor[ip->table_key[s] >> 32]++;
      ip->cursor[ip->table_key[s] & 0xFFFFFFFFu]++;
    }
  ip->offsets[0] = 0;
  for (int b = 0; b < nb; b++) {
    ip->offsets[b + 1] = ip->offsets[b] + ip->cursor[b];
    ip->cursor[b] = 0;
  }
  for (int s = 0; s < ip->table_size; s++)
    if (ip->table_key[s] != CC_INTERP_KEY_NONE) {
      int a = (int) (ip->table_key[s] >> 32), b = (int) (ip->table_key[s] & 0xFFFFFFFFu);
      int ea = ip->offsets[a] + ip->cursor[a]++, eb = ip->offsets[b] + ip->cursor[b]++;
      ip->adj_node[ea] = b;
      ip->adj_cost[ea] = ip->table_cost[s];
      ip->adj_node[eb] = a;
      ip->adj_cost[eb] = ip->table_cost[s];
    }
#pragma omp parallel for schedule(dynamic, 256) num_threads(cc_context_cpu_threads (ip->mod.ctx))
  for (int b = 0; b < nb; b++)
    cc_interp_sort_adjacency (ip->adj_node + ip->offsets[b], ip->adj_cost + ip->offsets[b],
        ip->offsets[b + 1] - ip->offsets[b]);
}

static void
cpu_fit (cc_interp *ip, const cc_flow_match *matches)
{
  const int nb = cc_interp_blocks (ip->mod.width, ip->mod.height, ip->params.cell);
  const int k = ip->params.k, affine = cc_interp_fit_mode (&ip->params);
  const float sigma = ip->params.sigma, robust = cc_interp_robust (&ip->params);
#pragma omp parallel for schedule(dynamic, 64) num_threads(cc_context_cpu_threads (ip->mod.ctx))
  for (int b = 0; b < nb; b++) {
    if (ip->owner[b] == INT_MAX || cc_cancel_requested (ip->mod.ctx))
      continue;
    int nodes[128], cand_node[CC_INTERP_CANDIDATES];
    float dists[128], cand_dist[CC_INTERP_CANDIDATES];
    int count = cc_interp_knn (ip->offsets, ip->adj_node, ip->adj_cost, b, k, nodes, dists,
        cand_node, cand_dist);
    cc_interp_fit (matches, ip->owner, nodes, dists, count, sigma, affine, robust,
        ip->model + CC_INTERP_MODEL * (size_t) b);
  }
}

static cc_status
cpu_run (cc_interp *ip, const cc_image *frame, const cc_flow_match *matches, int n,
    cc_image *flow)
{
  const int w = ip->mod.width, h = ip->mod.height, cell = ip->params.cell;
  const int bw = (w + cell - 1) / cell, nb = cc_interp_blocks (w, h, cell);
  cpu_cost (ip, frame);
  for (int b = 0; b < nb; b++)
    ip->owner[b] = INT_MAX;
  for (int i = 0; i < n; i++) {
    int px, py;
    if (!cc_interp_match_pixel (&matches[i], w, h, &px, &py))
      continue;
    int b = (py / cell) * bw + px / cell;
    if (i < ip->owner[b])
      ip->owner[b] = i;
  }
  for (size_t p = 0; p < (size_t) w * h; p++)
    ip->keys[p] = CC_INTERP_KEY_NONE;
  for (int b = 0; b < nb; b++)
    if (ip->owner[b] != INT_MAX) {
      int px = 0, py = 0;
      cc_interp_match_pixel (&matches[ip->owner[b]], w, h, &px, &py);
      ip->keys[(size_t) py * w + px] = cc_interp_key (0.0f, b);
    }
  cpu_geodesic (ip);
  if (cc_cancel_requested (ip->mod.ctx))
    return cc_cancelled_error ("cc_interp_compute");
  cpu_graph (ip);
  cpu_fit (ip, matches);
  if (cc_cancel_requested (ip->mod.ctx))
    return cc_cancelled_error ("cc_interp_compute");
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (ip->mod.ctx))
  for (int y = 0; y < h; y++) {
    float *out = (float *) ((uint8_t *) flow->planes[0] + (size_t) y * flow->pitch[0]);
    for (int x = 0; x < w; x++) {
      uint64_t k = ip->keys[(size_t) y * w + x];
      if (k == CC_INTERP_KEY_NONE) {
        out[2 * x] = 0.0f;
        out[2 * x + 1] = 0.0f;
        continue;
      }
      int b = cc_interp_key_label (k);
      const cc_flow_match *s = &matches[ip->owner[b]];
      cc_interp_apply (ip->model + CC_INTERP_MODEL * (size_t) b, s->x, s->y, x, y, w, h,
          cc_interp_reach (&ip->params), &out[2 * x], &out[2 * x + 1]);
    }
  }
  return CC_SUCCESS;
}

/* The stream a CUDA call runs on (NULL: the context's); the last call's stream is
 * waited for first when it differs, since its scratch is reused. */
static cc_status
cuda_stream (cc_interp *ip, cc_stream *stream)
{
  *stream = cc_stream_resolve (ip->mod.ctx, *stream);
  if (ip->last_stream && ip->last_stream != *stream)
    CC_TRY (CC_CUDA_ONLY (cc_cuda_stream_synchronize (ip->last_stream)));
  ip->last_stream = *stream;
  return CC_SUCCESS;
}

cc_status
cc_interp_compute (cc_interp *ip, cc_stream stream, const cc_image *frame,
    const cc_flow_match *matches, int n, cc_image *flow)
{
  CC_CHECK_ARG (ip != NULL, "cc_interp_compute: interp is NULL");
  CC_CHECK_ARG (frame != NULL && flow != NULL, "cc_interp_compute: frame or flow is NULL");
  CC_TRY (cc_module_check_frame (&ip->mod, frame, "interp: frame", "the interpolation",
      false));
  CC_TRY (cc_image_check (flow, "interp: flow"));
  CC_CHECK_ARG (flow->format == CC_FORMAT_F32C2, "interp: flow must be F32C2 (is %s)",
      cc_format_name (flow->format));
  CC_CHECK_ARG (flow->width == ip->mod.width && flow->height == ip->mod.height,
      "interp: flow %dx%d must be %dx%d as created", flow->width, flow->height,
      ip->mod.width, ip->mod.height);
  CC_TRY (cc_image_check_location (ip->mod.ctx, flow, "interp: flow"));
  CC_CHECK_ARG (n >= 0, "interp: match count %d is negative", n);
  CC_CHECK_ARG (n == 0 || matches != NULL, "interp: %d matches but the array is NULL", n);
  /* the keys and models cc_interp_confidence reads: valid once a run went through */
  ip->ran = false;
  ip->matches = matches;
  cc_status st;
  if (ip->mod.ctx->backend == CC_BACKEND_CUDA) {
    CC_TRY (cuda_stream (ip, &stream));
    st = CC_CUDA_ONLY (cc_cuda_interp_compute (ip->cuda, stream, &ip->params, frame, matches, n,
            flow));
  } else
    st = cpu_run (ip, frame, matches, n, flow);
  ip->ran = st == CC_SUCCESS;
  return st;
}

cc_status
cc_interp_confidence (cc_interp *ip, cc_stream stream, cc_image *confidence)
{
  CC_CHECK_ARG (ip != NULL, "cc_interp_confidence: interp is NULL");
  CC_CHECK_ARG (confidence != NULL, "cc_interp_confidence: confidence is NULL");
  CC_TRY (cc_image_check (confidence, "interp: confidence"));
  CC_CHECK_ARG (confidence->format == CC_FORMAT_F32,
      "interp: confidence must be F32 (is %s)", cc_format_name (confidence->format));
  CC_CHECK_ARG (confidence->width == ip->mod.width && confidence->height == ip->mod.height,
      "interp: confidence %dx%d must be %dx%d as created", confidence->width,
      confidence->height, ip->mod.width, ip->mod.height);
  CC_TRY (cc_image_check_location (ip->mod.ctx, confidence, "interp: confidence"));
  CC_CHECK_ARG (ip->ran, "cc_interp_confidence: no cc_interp_compute before");
  if (ip->mod.ctx->backend == CC_BACKEND_CUDA) {
    CC_TRY (cuda_stream (ip, &stream));
    return CC_CUDA_ONLY (cc_cuda_interp_confidence (ip->cuda, stream, ip->matches,
            confidence));
  }
  const int w = ip->mod.width, h = ip->mod.height;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (ip->mod.ctx))
  for (int y = 0; y < h; y++) {
    float *out = (float *) ((uint8_t *) confidence->planes[0] + (size_t) y * confidence->pitch[0]);
    for (int x = 0; x < w; x++) {
      uint64_t k = ip->keys[(size_t) y * w + x];
      if (k == CC_INTERP_KEY_NONE) {
        out[x] = 0.0f;
        continue;
      }
      int b = cc_interp_key_label (k);
      const cc_flow_match *s = &ip->matches[ip->owner[b]];
      out[x] = cc_interp_pixel_confidence (ip->model + CC_INTERP_MODEL * (size_t) b, s->x,
          s->y, x, y);
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_interp_debug (cc_interp *ip, float *cost, uint64_t *keys)
{
  CC_CHECK_ARG (ip != NULL, "cc_interp_debug: interp is NULL");
  if (ip->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_interp_debug (ip->cuda, cost, keys));
  size_t n = (size_t) ip->mod.width * ip->mod.height;
  if (cost)
    memcpy (cost, ip->cost, n * sizeof (float));
  if (keys)
    memcpy (keys, ip->keys, n * sizeof (uint64_t));
  return CC_SUCCESS;
}
