/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* All-pairs shortest paths: the API, argument checks, the graph in compressed rows,
 * and the CPU reference (repeated Dijkstra on all cores; plain Floyd-Warshall).
 * The CUDA tiled Floyd-Warshall is in kernels/apsp.cu. */
#include "apsp_internal.h"
#include "apsp_hostdev.h"
#include "cc_tuning.h"
#include "cudacore/cc_timer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
cc_apsp_params_default (cc_apsp_params *p)
{
  p->kind = CC_APSP_DIRECTED;
  p->next_hop = false;
}

void
cc_apsp_tuning_default (cc_apsp_tuning *t)
{
  t->cpu_method = CC_APSP_CPU_AUTO;
}

/* *out = *params (the defaults for NULL), checked. */
static cc_status
params_resolve (const cc_apsp_params *params, cc_apsp_params *out)
{
  if (params)
    *out = *params;
  else
    cc_apsp_params_default (out);
  CC_CHECK_ARG (out->kind == CC_APSP_DIRECTED || out->kind == CC_APSP_UNDIRECTED,
      "apsp: unknown kind %d", (int) out->kind);
  return CC_SUCCESS;
}


/* ------------------------------------------------------------ graph */

static cc_status
graph_check (const cc_apsp_graph *g)
{
  CC_CHECK_ARG (g != NULL, "apsp: graph is NULL");
  CC_CHECK_ARG (g->nodes >= 1 && g->nodes <= CC_APSP_MAX_NODES,
      "apsp: %d nodes out of range 1..%d", g->nodes, CC_APSP_MAX_NODES);
  CC_CHECK_ARG (g->arcs >= 0, "apsp: %d arcs", g->arcs);
  CC_CHECK_ARG (g->arcs == 0 || (g->arc_from && g->arc_to && g->arc_weight),
      "apsp: %d arcs but NULL arc arrays", g->arcs);
  for (int a = 0; a < g->arcs; a++) {
    CC_CHECK_ARG (g->arc_from[a] >= 0 && g->arc_from[a] < g->nodes
        && g->arc_to[a] >= 0 && g->arc_to[a] < g->nodes,
        "apsp: arc %d (%d -> %d) names a node outside 0..%d", a, g->arc_from[a],
        g->arc_to[a], g->nodes - 1);
    CC_CHECK_ARG (isfinite (g->arc_weight[a]) && g->arc_weight[a] >= 0.0f,
        "apsp: arc %d (%d -> %d) has weight %g (must be finite and >= 0)", a,
        g->arc_from[a], g->arc_to[a], g->arc_weight[a]);
  }
  return CC_SUCCESS;
}

typedef struct {
  int32_t from, to;
  float weight;
} arc_entry;

static int
arc_compare (const void *pa, const void *pb)
{
  const arc_entry *a = pa, *b = pb;
  if (a->from != b->from)
    return a->from < b->from ? -1 : 1;
  if (a->to != b->to)
    return a->to < b->to ? -1 : 1;
  return a->weight < b->weight ? -1 : (a->weight > b->weight);
}

void
cc_apsp_csr_free (cc_apsp_csr *csr)
{
  free (csr->row_start);
  free (csr->col);
  free (csr->weight);
  memset (csr, 0, sizeof *csr);
}

cc_status
cc_apsp_csr_build (const cc_apsp_graph *g, cc_apsp_kind kind, cc_apsp_csr *out)
{
  memset (out, 0, sizeof *out);
  CC_TRY (graph_check (g));
  size_t total = (size_t) g->arcs * (kind == CC_APSP_UNDIRECTED ? 2 : 1);
  arc_entry *e = malloc (sizeof *e * (total ? total : 1));
  out->row_start = calloc ((size_t) g->nodes + 1, sizeof (int32_t));
  if (!e || !out->row_start) {
    free (e);
    cc_apsp_csr_free (out);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "apsp: out of host memory for %zu arcs",
        total);
  }
  size_t m = 0;
  for (int a = 0; a < g->arcs; a++) {
    if (g->arc_from[a] == g->arc_to[a])
      continue;  /* a self-loop never shortens a path */
    e[m++] = (arc_entry) { g->arc_from[a], g->arc_to[a], g->arc_weight[a] };
    if (kind == CC_APSP_UNDIRECTED)
      e[m++] = (arc_entry) { g->arc_to[a], g->arc_from[a], g->arc_weight[a] };
  }
  qsort (e, m, sizeof *e, arc_compare);
  /* merge parallel arcs: the sort put the lightest first */
  size_t kept = 0;
  for (size_t a = 0; a < m; a++)
    if (kept == 0 || e[a].from != e[kept - 1].from || e[a].to != e[kept - 1].to)
      e[kept++] = e[a];
  out->nodes = g->nodes;
  out->arcs = (int) kept;
  out->col = malloc (sizeof (int32_t) * (kept ? kept : 1));
  out->weight = malloc (sizeof (float) * (kept ? kept : 1));
  if (!out->col || !out->weight) {
    free (e);
    cc_apsp_csr_free (out);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "apsp: out of host memory for %zu arcs",
        kept);
  }
  for (size_t a = 0; a < kept; a++) {
    out->row_start[e[a].from + 1]++;
    out->col[a] = e[a].to;
    out->weight[a] = e[a].weight;
  }
  for (int v = 0; v < g->nodes; v++)
    out->row_start[v + 1] += out->row_start[v];
  free (e);
  return CC_SUCCESS;
}

/* ------------------------------------------------------------ device layout */

int
cc_apsp_tiles (int nodes)
{
  return (nodes + CC_APSP_TILE - 1) / CC_APSP_TILE;
}

size_t
cc_apsp_matrix_bytes (int nodes, cc_apsp_kind kind)
{
  size_t t = (size_t) cc_apsp_tiles (nodes);
  size_t tile_bytes = sizeof (float) * CC_APSP_TILE * CC_APSP_TILE;
  return kind == CC_APSP_UNDIRECTED ? t * (t + 1) / 2 * tile_bytes : t * t * tile_bytes;
}

size_t
cc_apsp_table_bytes (int nodes, cc_apsp_kind kind)
{
  size_t t = (size_t) cc_apsp_tiles (nodes);
  return kind == CC_APSP_UNDIRECTED ? sizeof (int32_t) * (t * t + t * (t + 1) / 2) : 0;
}

int
cc_apsp_staging_rows (int nodes)
{
  /* about 32 MiB of rows per download round trip */
  size_t rows = ((size_t) 32 << 20) / ((size_t) nodes * sizeof (float));
  return rows < 1 ? 1 : (rows > (size_t) nodes ? nodes : (int) rows);
}

cc_status
cc_apsp_device_bytes (int nodes, const cc_apsp_params *params, size_t *bytes)
{
  CC_CHECK_ARG (bytes != NULL, "cc_apsp_device_bytes: bytes is NULL");
  CC_CHECK_ARG (nodes >= 1 && nodes <= CC_APSP_MAX_NODES,
      "cc_apsp_device_bytes: %d nodes out of range 1..%d", nodes, CC_APSP_MAX_NODES);
  cc_apsp_params p;
  CC_TRY (params_resolve (params, &p));
  size_t staging = (size_t) cc_apsp_staging_rows (nodes) * nodes
      * (sizeof (float) + (p.next_hop ? sizeof (int32_t) : 0));
  *bytes = cc_apsp_matrix_bytes (nodes, p.kind) + cc_apsp_table_bytes (nodes, p.kind)
      + staging + (p.next_hop ? sizeof (int32_t) * (size_t) nodes * nodes : 0);
  return CC_SUCCESS;
}

static uint64_t
morton2 (uint32_t r, uint32_t c)
{
  uint64_t code = 0;
  for (int b = 0; b < 32; b++)
    code |= ((uint64_t) ((r >> b) & 1) << (2 * b + 1)) | ((uint64_t) ((c >> b) & 1) << (2 * b));
  return code;
}

typedef struct {
  uint64_t code;
  int32_t tile;
} zorder_entry;

static int
zorder_compare (const void *pa, const void *pb)
{
  const zorder_entry *a = pa, *b = pb;
  return a->code < b->code ? -1 : (a->code > b->code);
}

cc_status
cc_apsp_zorder_tables (int tiles, int32_t **slot_of, int32_t **tile_of)
{
  size_t lower = (size_t) tiles * (tiles + 1) / 2;
  zorder_entry *e = malloc (sizeof *e * lower);
  *slot_of = malloc (sizeof (int32_t) * (size_t) tiles * tiles);
  *tile_of = malloc (sizeof (int32_t) * lower);
  if (!e || !*slot_of || !*tile_of) {
    free (e); free (*slot_of); free (*tile_of);
    *slot_of = *tile_of = NULL;
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "apsp: out of host memory for tile tables");
  }
  size_t k = 0;
  for (int r = 0; r < tiles; r++)
    for (int c = 0; c <= r; c++)
      e[k++] = (zorder_entry) { morton2 ((uint32_t) r, (uint32_t) c), r << 16 | c };
  qsort (e, lower, sizeof *e, zorder_compare);
  for (size_t i = 0; i < (size_t) tiles * tiles; i++)
    (*slot_of)[i] = -1;
  for (size_t s = 0; s < lower; s++) {
    int r = e[s].tile >> 16, c = e[s].tile & 0xFFFF;
    (*tile_of)[s] = e[s].tile;
    (*slot_of)[(size_t) r * tiles + c] = (int32_t) s;
  }
  free (e);
  return CC_SUCCESS;
}

/* ------------------------------------------------------------ CPU reference */

/* Dijkstra from src with an indexed binary heap; dist gets n floats.
 * heap and pos are n-entry scratch arrays (pos: -1 never queued, -2 settled). */
static void
dijkstra (const cc_apsp_csr *g, int src, float *dist, int32_t *heap, int32_t *pos)
{
  int n = g->nodes, size = 0;
  for (int v = 0; v < n; v++) {
    dist[v] = INFINITY;
    pos[v] = -1;
  }
  dist[src] = 0.0f;
  heap[size] = src;
  pos[src] = size++;
  while (size > 0) {
    int u = heap[0];
    pos[u] = -2;
    int last = heap[--size];
    if (size > 0) {
      /* sift the last entry down from the root */
      int i = 0;
      for (;;) {
        int child = 2 * i + 1;
        if (child >= size)
          break;
        if (child + 1 < size && dist[heap[child + 1]] < dist[heap[child]])
          child++;
        if (dist[heap[child]] >= dist[last])
          break;
        heap[i] = heap[child];
        pos[heap[i]] = i;
        i = child;
      }
      heap[i] = last;
      pos[last] = i;
    }
    for (int a = g->row_start[u]; a < g->row_start[u + 1]; a++) {
      int v = g->col[a];
      float candidate = dist[u] + g->weight[a];
      if (pos[v] == -2 || candidate >= dist[v])
        continue;
      dist[v] = candidate;
      int i = pos[v] >= 0 ? pos[v] : size++;
      /* sift up */
      while (i > 0 && dist[heap[(i - 1) / 2]] > candidate) {
        heap[i] = heap[(i - 1) / 2];
        pos[heap[i]] = i;
        i = (i - 1) / 2;
      }
      heap[i] = v;
      pos[v] = i;
    }
  }
}

/* One Dijkstra per source, the sources shared among `threads` threads (each with
 * its own heap); every row is computed the same way whatever the thread. */
static cc_status
dijkstra_rows (const cc_apsp_csr *g, const int32_t *sources, int count, int threads,
    float *out)
{
  int n = g->nodes, failed = 0;
  if (threads <= 0)
    threads = cc_context_cpu_threads (NULL);   /* all cores */
  if (threads > count)
    threads = count > 0 ? count : 1;
#pragma omp parallel num_threads(threads) reduction(|:failed)
  {
    int32_t *heap = malloc (sizeof (int32_t) * n), *pos = malloc (sizeof (int32_t) * n);
    failed = !heap || !pos;
    /* dynamic: a row's cost depends on how much of the graph its source reaches */
#pragma omp for schedule(dynamic, 4)
    for (int s = 0; s < count; s++)
      if (heap && pos)
        dijkstra (g, sources ? sources[s] : s, out + (size_t) s * n, heap, pos);
    free (heap);
    free (pos);
  }
  if (failed)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "apsp: out of host memory for Dijkstra heaps");
  return CC_SUCCESS;
}

static void
floyd_warshall (const cc_apsp_csr *g, float *d, int threads)
{
  size_t n = (size_t) g->nodes;
  for (size_t i = 0; i < n * n; i++)
    d[i] = INFINITY;
  for (size_t i = 0; i < n; i++) {
    d[i * n + i] = 0.0f;
    for (int a = g->row_start[i]; a < g->row_start[i + 1]; a++)
      d[i * n + g->col[a]] = g->weight[a];
  }
  /* round k reads row k and column k, which it does not change (d_kk = 0 with
   * weights >= 0): the rows i != k are independent and split among the threads */
  for (size_t k = 0; k < n; k++) {
    const float *row_k = d + k * n;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
      float d_ik = d[i * n + k];
      if (d_ik == INFINITY || i == k)
        continue;
      float *row_i = d + i * n;
      for (size_t j = 0; j < n; j++)
        row_i[j] = cc_apsp_relax (row_i[j], d_ik, row_k[j]);
    }
  }
}

/* The next-hop rule of cc_apsp.h on a full host matrix. */
static void
next_hops (const cc_apsp_csr *g, const float *d, int32_t *next, int threads)
{
  size_t n = (size_t) g->nodes;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      float d_ij = d[i * n + j], best_len;
      int32_t best = cc_apsp_next_hop_start ((int) i, (int) j, &best_len);
      if (cc_apsp_next_hop_searched ((int) i, (int) j, d_ij))
        for (int a = g->row_start[i]; a < g->row_start[i + 1]; a++)
          cc_apsp_next_hop_arc (d_ij, g->weight[a], d[(size_t) g->col[a] * n + j], g->col[a],
              &best_len, &best);
      next[i * n + j] = best;
    }
}

/* ------------------------------------------------------------ API */

struct cc_apsp {
  cc_context *ctx;
  int nodes;
  cc_apsp_params params;
  cc_apsp_tuning tuning;   /* cc_tuning.h: defaults unless a bench or test sets it */
  bool solved;
  /* CPU */
  float *dist;
  int32_t *next;
  /* CUDA */
  cc_cuda_apsp *cuda;
};

cc_status
cc_apsp_max_nodes (cc_context *ctx, const cc_apsp_params *params, size_t reserve_bytes,
    int *nodes)
{
  CC_CHECK_ARG (ctx != NULL && nodes != NULL, "cc_apsp_max_nodes: NULL argument");
  CC_CHECK_ARG (ctx->backend == CC_BACKEND_CUDA, "cc_apsp_max_nodes: needs a CUDA context");
  size_t free_bytes = 0, total_bytes = 0;
  CC_TRY (CC_CUDA_ONLY (cc_cuda_mem_info (ctx, &free_bytes, &total_bytes)));
  (void) total_bytes;
  size_t budget = free_bytes > reserve_bytes ? free_bytes - reserve_bytes : 0;
  int lo = 0, hi = CC_APSP_MAX_NODES / CC_APSP_TILE;   /* in tiles */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    size_t need;
    CC_TRY (cc_apsp_device_bytes (mid * CC_APSP_TILE, params, &need));
    if (need <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  *nodes = lo * CC_APSP_TILE;
  if (*nodes == 0)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
        "cc_apsp_max_nodes: only %zu bytes free on the device", free_bytes);
  return CC_SUCCESS;
}

cc_status
cc_apsp_create (cc_context *ctx, int nodes, const cc_apsp_params *params, cc_apsp **out)
{
  CC_CHECK_ARG (out != NULL, "cc_apsp_create: out is NULL");
  *out = NULL;
  CC_CHECK_ARG (ctx != NULL, "cc_apsp_create: ctx is NULL");
  CC_CHECK_ARG (nodes >= 1 && nodes <= CC_APSP_MAX_NODES,
      "cc_apsp_create: %d nodes out of range 1..%d", nodes, CC_APSP_MAX_NODES);
  cc_apsp_params p;
  CC_TRY (params_resolve (params, &p));
  cc_apsp *a = calloc (1, sizeof *a);
  if (!a)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_apsp_create: out of host memory");
  a->ctx = ctx;
  a->nodes = nodes;
  a->params = p;
  cc_apsp_tuning_default (&a->tuning);
  cc_status st = CC_SUCCESS;
  if (ctx->backend == CC_BACKEND_CUDA) {
    st = CC_CUDA_ONLY (cc_cuda_apsp_create (ctx, nodes, &p, &a->cuda));
  } else {
    size_t cells = (size_t) nodes * nodes;
    a->dist = malloc (sizeof (float) * cells);
    if (p.next_hop)
      a->next = malloc (sizeof (int32_t) * cells);
    if (!a->dist || (p.next_hop && !a->next))
      st = cc_set_error (CC_ERROR_OUT_OF_MEMORY,
          "cc_apsp_create: %d nodes need %zu bytes of host memory", nodes,
          cells * (sizeof (float) + (p.next_hop ? sizeof (int32_t) : 0)));
  }
  if (st != CC_SUCCESS) {
    cc_apsp_destroy (a);
    return st;
  }
  *out = a;
  return CC_SUCCESS;
}

void
cc_apsp_destroy (cc_apsp *a)
{
  if (!a)
    return;
#if CC_HAVE_CUDA
  if (a->cuda)
    cc_cuda_apsp_destroy (a->cuda);
#endif
  free (a->dist);
  free (a->next);
  free (a);
}

static cc_status
cpu_solve (cc_apsp *a, const cc_apsp_csr *csr)
{
  cc_apsp_cpu_method method = a->tuning.cpu_method;
  if (method == CC_APSP_CPU_AUTO)
    method = a->nodes <= 256 ? CC_APSP_CPU_FLOYD_WARSHALL : CC_APSP_CPU_DIJKSTRA;
  int threads = cc_context_cpu_threads (a->ctx);
  if (method == CC_APSP_CPU_FLOYD_WARSHALL)
    floyd_warshall (csr, a->dist, threads);
  else
    CC_TRY (dijkstra_rows (csr, NULL, a->nodes, threads, a->dist));
  if (a->params.next_hop)
    next_hops (csr, a->dist, a->next, threads);
  return CC_SUCCESS;
}

cc_status
cc_apsp_set_tuning (cc_apsp *a, const cc_apsp_tuning *t)
{
  CC_CHECK_ARG (a != NULL && t != NULL, "cc_apsp_set_tuning: apsp or tuning is NULL");
  CC_CHECK_ARG (t->cpu_method >= CC_APSP_CPU_AUTO && t->cpu_method <= CC_APSP_CPU_FLOYD_WARSHALL,
      "apsp: unknown cpu_method %d", (int) t->cpu_method);
  a->tuning = *t;
  return CC_SUCCESS;
}

cc_status
cc_apsp_compute_sync (cc_apsp *a, cc_stream stream, const cc_apsp_graph *graph,
    cc_apsp_stats *stats)
{
  CC_CHECK_ARG (a != NULL, "cc_apsp_compute_sync: apsp is NULL");
  stream = cc_stream_resolve (a->ctx, stream);
  CC_CHECK_ARG (graph != NULL, "cc_apsp_compute_sync: graph is NULL");
  CC_CHECK_ARG (graph->nodes == a->nodes,
      "cc_apsp_compute_sync: graph has %d nodes but the handle was created for %d", graph->nodes,
      a->nodes);
  double t0 = cc_now_ms ();
  cc_apsp_csr csr;
  CC_TRY (cc_apsp_csr_build (graph, a->params.kind, &csr));
  double kernel_ms = 0;
  cc_status st;
  size_t memory = 0;
  if (a->ctx->backend == CC_BACKEND_CUDA) {
    st = CC_CUDA_ONLY (cc_cuda_apsp_compute (a->cuda, stream, &csr, &kernel_ms));
    cc_apsp_device_bytes (a->nodes, &a->params, &memory);
  } else {
    double t1 = cc_now_ms ();
    st = cpu_solve (a, &csr);
    kernel_ms = cc_now_ms () - t1;
    memory = (size_t) a->nodes * a->nodes
        * (sizeof (float) + (a->params.next_hop ? sizeof (int32_t) : 0));
  }
  cc_apsp_csr_free (&csr);
  a->solved = st == CC_SUCCESS;
  if (stats && st == CC_SUCCESS) {
    stats->kernel_ms = kernel_ms;
    stats->total_ms = cc_now_ms () - t0;
    stats->memory_bytes = memory;
    stats->padded_nodes = a->ctx->backend == CC_BACKEND_CUDA
        ? cc_apsp_tiles (a->nodes) * CC_APSP_TILE : a->nodes;
  }
  return st;
}

cc_status
cc_apsp_get_rows (cc_apsp *a, const int32_t *rows, int count, float *dist, int32_t *next)
{
  CC_CHECK_ARG (a != NULL, "cc_apsp_get_rows: apsp is NULL");
  CC_CHECK_ARG (a->solved, "cc_apsp_get_rows: nothing solved yet");
  CC_CHECK_ARG (count >= 0 && count <= a->nodes,
      "cc_apsp_get_rows: count %d out of range 0..%d", count, a->nodes);
  CC_CHECK_ARG (next == NULL || a->params.next_hop,
      "cc_apsp_get_rows: next hops asked for, but the handle was created without next_hop");
  if (rows)
    for (int r = 0; r < count; r++)
      CC_CHECK_ARG (rows[r] >= 0 && rows[r] < a->nodes,
          "cc_apsp_get_rows: row %d (entry %d) out of range 0..%d", rows[r], r, a->nodes - 1);
  if (count == 0 || (!dist && !next))
    return CC_SUCCESS;
  if (a->ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_apsp_get_rows (a->cuda, rows, count, dist, next));
  size_t n = (size_t) a->nodes;
  for (int r = 0; r < count; r++) {
    size_t src = (size_t) (rows ? rows[r] : r);
    if (dist)
      memcpy (dist + r * n, a->dist + src * n, sizeof (float) * n);
    if (next)
      memcpy (next + r * n, a->next + src * n, sizeof (int32_t) * n);
  }
  return CC_SUCCESS;
}

cc_status
cc_apsp_dense_tuned (cc_context *ctx, cc_stream stream, const cc_apsp_graph *graph,
    const cc_apsp_params *params, const cc_apsp_tuning *tuning, float *dist, int32_t *next,
    cc_apsp_stats *stats)
{
  CC_CHECK_ARG (graph != NULL, "cc_apsp_dense: graph is NULL");
  CC_CHECK_ARG (dist != NULL, "cc_apsp_dense: dist is NULL");
  cc_apsp_params p;
  CC_TRY (params_resolve (params, &p));
  p.next_hop = next != NULL;
  cc_apsp *a;
  CC_TRY (cc_apsp_create (ctx, graph->nodes, &p, &a));
  cc_status st = tuning ? cc_apsp_set_tuning (a, tuning) : CC_SUCCESS;
  if (st == CC_SUCCESS)
    st = cc_apsp_compute_sync (a, stream, graph, stats);
  if (st == CC_SUCCESS)
    st = cc_apsp_get_rows (a, NULL, graph->nodes, dist, next);
  cc_apsp_destroy (a);
  return st;
}

cc_status
cc_apsp_dense (cc_context *ctx, cc_stream stream, const cc_apsp_graph *graph,
    const cc_apsp_params *params, float *dist, int32_t *next, cc_apsp_stats *stats)
{
  return cc_apsp_dense_tuned (ctx, stream, graph, params, NULL, dist, next, stats);
}

cc_status
cc_apsp_sources (const cc_apsp_graph *graph, cc_apsp_kind kind, const int32_t *sources,
    int count, int threads, float *dist)
{
  CC_CHECK_ARG (graph != NULL && dist != NULL && (sources != NULL || count == 0),
      "cc_apsp_sources: NULL argument");
  CC_CHECK_ARG (kind == CC_APSP_DIRECTED || kind == CC_APSP_UNDIRECTED,
      "cc_apsp_sources: unknown kind %d", (int) kind);
  CC_CHECK_ARG (count >= 0, "cc_apsp_sources: count %d", count);
  CC_CHECK_ARG (threads >= 0, "cc_apsp_sources: threads %d", threads);
  cc_apsp_csr csr;
  CC_TRY (cc_apsp_csr_build (graph, kind, &csr));
  cc_status st = CC_SUCCESS;
  for (int s = 0; s < count && st == CC_SUCCESS; s++)
    if (sources[s] < 0 || sources[s] >= graph->nodes)
      st = cc_set_error (CC_ERROR_INVALID_ARGUMENT,
          "cc_apsp_sources: source %d (entry %d) out of range 0..%d", sources[s], s,
          graph->nodes - 1);
  if (st == CC_SUCCESS && count > 0)
    st = dijkstra_rows (&csr, sources, count, threads, dist);
  cc_apsp_csr_free (&csr);
  return st;
}
