/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* All-pairs shortest paths: the CPU Dijkstra and the CPU Floyd-Warshall agree exactly
 * in structure (same reachability) and within float rounding in value; on a CUDA device
 * the tiled directed and undirected kernels equal CPU Dijkstra within 1e-5 relative,
 * on random graphs and on a mesh dual graph, at sizes around the tile edge. */
#include "cv_test.h"
#include <cudacore/cc_apsp.h>
#include "cc_tuning.h"   /* cudacore/src: the CPU methods compared */

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  int nodes, arcs;
  int32_t *from, *to;
  float *weight;
} test_graph;

static uint32_t
lcg (uint32_t *state)
{
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

static void
graph_add (test_graph *g, int cap, int u, int v, float w)
{
  ck_assert_int_lt (g->arcs, cap);
  g->from[g->arcs] = u;
  g->to[g->arcs] = v;
  g->weight[g->arcs] = w;
  g->arcs++;
}

static void
graph_alloc (test_graph *g, int nodes, int cap)
{
  g->nodes = nodes;
  g->arcs = 0;
  g->from = malloc (sizeof (int32_t) * (cap ? cap : 1));
  g->to = malloc (sizeof (int32_t) * (cap ? cap : 1));
  g->weight = malloc (sizeof (float) * (cap ? cap : 1));
}

static void
graph_free (test_graph *g)
{
  free (g->from);
  free (g->to);
  free (g->weight);
}

/* `degree` random arcs per node with weights in [0.05, 10); with `components` > 1 the
 * nodes split into that many groups no arc crosses (disconnected graph). Parallel arcs
 * and self-loops occur; zero weights only when asked (next hops need positive ones). */
static test_graph
random_graph (int nodes, int degree, int components, uint32_t seed, bool zero_weights)
{
  test_graph g;
  int cap = nodes * degree + 8;
  graph_alloc (&g, nodes, cap);
  int group = (nodes + components - 1) / components;
  for (int u = 0; u < nodes; u++)
    for (int e = 0; e < degree; e++) {
      int base = (u / group) * group;
      int size = base + group <= nodes ? group : nodes - base;
      int v = base + (int) (lcg (&seed) % (uint32_t) size);
      float w = 0.05f + (lcg (&seed) % 100000) * (10.0f / 100000.0f);
      if (zero_weights && lcg (&seed) % 97 == 0)
        w = 0.0f;
      graph_add (&g, cap, u, v, w);
    }
  return g;
}

/* The dual graph of a triangulated w x h grid on a wavy surface: faces are nodes,
 * arcs join faces sharing an edge, weighted by the centroid distance (as in meshseg). */
static test_graph
grid_dual_graph (int w, int h)
{
  test_graph g;
  int faces = 2 * w * h, cap = 3 * faces;
  graph_alloc (&g, faces, cap);
  float (*centroid)[3] = malloc (sizeof *centroid * faces);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int t = 0; t < 2; t++) {
        float cx = x + (t ? 0.66f : 0.33f), cy = y + (t ? 0.66f : 0.33f);
        float *c = centroid[2 * (y * w + x) + t];
        c[0] = cx;
        c[1] = cy;
        c[2] = 0.7f * sinf (cx * 0.6f) * cosf (cy * 0.45f);
      }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int lower = 2 * (y * w + x), upper = lower + 1;
      int nb[3] = { lower, x + 1 < w ? 2 * (y * w + x + 1) : -1,
        y + 1 < h ? 2 * ((y + 1) * w + x) : -1 };
      /* the upper triangle of a cell touches its lower one, the right cell's lower one
       * and the upper cell's lower one */
      for (int i = 0; i < 3; i++) {
        if (nb[i] < 0)
          continue;
        float *a = centroid[upper], *b = centroid[nb[i]];
        float d = sqrtf ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])
            + (a[2] - b[2]) * (a[2] - b[2]));
        graph_add (&g, cap, upper, nb[i], d);
      }
    }
  free (centroid);
  return g;
}

static cc_apsp_graph
view (const test_graph *g)
{
  return (cc_apsp_graph) { g->nodes, g->arcs, g->from, g->to, g->weight };
}

/* The whole matrix (and next hops when next_out) on a backend whose context runs the
 * CPU work on `threads` threads (0 = all cores). */
static float *
solve_threads (cc_backend backend, int threads, const test_graph *g, cc_apsp_kind kind,
    cc_apsp_cpu_method method, int32_t **next_out)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  cc_apsp_params p;
  cc_apsp_params_default (&p);
  p.kind = kind;
  cc_apsp_tuning t;
  cc_apsp_tuning_default (&t);
  t.cpu_method = method;
  size_t n = (size_t) g->nodes;
  float *d = malloc (sizeof (float) * n * n);
  int32_t *next = next_out ? malloc (sizeof (int32_t) * n * n) : NULL;
  /* poison: every cell must be written */
  memset (d, 0xFF, sizeof (float) * n * n);
  cc_apsp_graph gv = view (g);
  cc_apsp_stats stats;
  CC_ASSERT_OK (cc_apsp_dense_tuned (ctx, NULL, &gv, &p, &t, d, next, &stats));
  ck_assert_msg (stats.memory_bytes > 0, "no memory reported");
  cc_context_destroy (ctx);
  if (next_out)
    *next_out = next;
  return d;
}

static float *
solve (cc_backend backend, const test_graph *g, cc_apsp_kind kind, cc_apsp_cpu_method method,
    int32_t **next_out)
{
  return solve_threads (backend, 0, g, kind, method, next_out);
}

/* |a - b| <= rel * max(|a|, |b|) (+ a tiny absolute slack for zeros); inf == inf. */
static void
assert_close (const float *a, const float *b, size_t count, int n, double rel,
    const char *what)
{
  for (size_t i = 0; i < count; i++) {
    if (isinf (a[i]) || isinf (b[i])) {
      ck_assert_msg (isinf (a[i]) && isinf (b[i]) && a[i] > 0 && b[i] > 0,
          "%s: (%zu, %zu) is %g vs %g", what, i / n, i % n, a[i], b[i]);
      continue;
    }
    double tol = rel * fmax (fabs (a[i]), fabs (b[i])) + 1e-6;
    ck_assert_msg (fabs ((double) a[i] - b[i]) <= tol, "%s: (%zu, %zu) is %.9g vs %.9g",
        what, i / n, i % n, a[i], b[i]);
  }
}

/* Following next hops from i reaches j over existing arcs and sums to d(i, j). */
static void
assert_paths (const test_graph *g, cc_apsp_kind kind, const float *d, const int32_t *next,
    const char *what)
{
  int n = g->nodes;
  /* lightest arc weight per pair, for the path sums */
  float *w = malloc (sizeof (float) * n * n);
  for (int i = 0; i < n * n; i++)
    w[i] = INFINITY;
  for (int a = 0; a < g->arcs; a++) {
    int u = g->from[a], v = g->to[a];
    w[u * n + v] = fminf (w[u * n + v], g->weight[a]);
    if (kind == CC_APSP_UNDIRECTED)
      w[v * n + u] = fminf (w[v * n + u], g->weight[a]);
  }
  int stride = n > 150 ? 7 : 1;
  for (int i = 0; i < n; i += stride)
    for (int j = 0; j < n; j++) {
      float dij = d[(size_t) i * n + j];
      if (i == j) {
        ck_assert_int_eq (next[(size_t) i * n + j], i);
        continue;
      }
      if (isinf (dij)) {
        ck_assert_msg (next[(size_t) i * n + j] == -1, "%s: next(%d,%d) = %d for an unreachable pair",
            what, i, j, next[(size_t) i * n + j]);
        continue;
      }
      double len = 0;
      int at = i, steps = 0;
      while (at != j) {
        int hop = next[(size_t) at * n + j];
        ck_assert_msg (hop >= 0 && hop < n && isfinite (w[at * n + hop]),
            "%s: path %d -> %d: bad hop %d at node %d", what, i, j, hop, at);
        len += w[at * n + hop];
        at = hop;
        ck_assert_msg (++steps <= n, "%s: path %d -> %d loops", what, i, j);
      }
      ck_assert_msg (fabs (len - dij) <= 1e-4 * fmax (1.0, dij),
          "%s: path %d -> %d sums to %g, distance %g", what, i, j, len, dij);
    }
  free (w);
}

static const int sizes[] = { 1, 2, 7, CC_APSP_TILE - 1, CC_APSP_TILE, CC_APSP_TILE + 1, 200 };

START_TEST (test_cpu_dijkstra_equals_floyd_warshall)
{
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < 2; kind++)
      for (int comps = 1; comps <= 3; comps += 2) {
        bool zeros = comps == 3;
        test_graph g = random_graph (sizes[s], 3, comps, 17 + (uint32_t) s, zeros);
        int32_t *next_dij, *next_fw;
        float *dij = solve (CC_BACKEND_CPU, &g, kind, CC_APSP_CPU_DIJKSTRA, &next_dij);
        float *fw = solve (CC_BACKEND_CPU, &g, kind, CC_APSP_CPU_FLOYD_WARSHALL, &next_fw);
        char what[96];
        snprintf (what, sizeof what, "CPU n=%d %s comps=%d", sizes[s],
            kind ? "undirected" : "directed", comps);
        assert_close (dij, fw, (size_t) g.nodes * g.nodes, g.nodes, 1e-5, what);
        if (!zeros) {
          assert_paths (&g, kind, dij, next_dij, what);
          assert_paths (&g, kind, fw, next_fw, what);
        }
        free (dij); free (fw); free (next_dij); free (next_fw);
        graph_free (&g);
      }
}
END_TEST

START_TEST (test_disconnected_and_trivial)
{
  /* 0 -> 1 -> 2, 3 isolated; directed: nothing goes back */
  test_graph g;
  graph_alloc (&g, 4, 4);
  graph_add (&g, 4, 0, 1, 1.5f);
  graph_add (&g, 4, 1, 2, 2.0f);
  graph_add (&g, 4, 0, 2, 5.0f);
  graph_add (&g, 4, 2, 2, 0.5f);   /* self-loop: ignored */
  for (int b = 0; b < cv_test_backend_count (); b++) {
    float *d = solve (cv_test_backend (b), &g, CC_APSP_DIRECTED, CC_APSP_CPU_AUTO, NULL);
    ck_assert_float_eq (d[0 * 4 + 2], 3.5f);
    ck_assert_float_eq (d[2 * 4 + 2], 0.0f);
    ck_assert (isinf (d[2 * 4 + 0]) && isinf (d[0 * 4 + 3]) && isinf (d[3 * 4 + 0]));
    ck_assert_float_eq (d[3 * 4 + 3], 0.0f);
    free (d);
    d = solve (cv_test_backend (b), &g, CC_APSP_UNDIRECTED, CC_APSP_CPU_AUTO, NULL);
    ck_assert_float_eq (d[2 * 4 + 0], 3.5f);
    ck_assert (isinf (d[1 * 4 + 3]) && isinf (d[3 * 4 + 1]));
    free (d);
  }
  graph_free (&g);
  /* a single node, no arcs */
  test_graph one;
  graph_alloc (&one, 1, 0);
  for (int b = 0; b < cv_test_backend_count (); b++) {
    float *d = solve (cv_test_backend (b), &one, CC_APSP_UNDIRECTED, CC_APSP_CPU_AUTO, NULL);
    ck_assert_float_eq (d[0], 0.0f);
    free (d);
  }
  graph_free (&one);
}
END_TEST

START_TEST (test_sources_match_rows)
{
  test_graph g = grid_dual_graph (12, 9);
  float *full = solve (CC_BACKEND_CPU, &g, CC_APSP_UNDIRECTED, CC_APSP_CPU_FLOYD_WARSHALL, NULL);
  int32_t src[3] = { 5, 0, 150 };
  float *rows = malloc (sizeof (float) * 3 * g.nodes);
  cc_apsp_graph gv = view (&g);
  CC_ASSERT_OK (cc_apsp_sources (&gv, CC_APSP_UNDIRECTED, src, 3, 2, rows));
  for (int s = 0; s < 3; s++)
    for (int j = 0; j < g.nodes; j++) {
      double a = rows[(size_t) s * g.nodes + j], b = full[(size_t) src[s] * g.nodes + j];
      ck_assert_msg (fabs (a - b) <= 1e-5 * fmax (a, b) + 1e-6, "row %d col %d: %g vs %g",
          src[s], j, a, b);
    }
  /* rows of a handle, in any order */
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_apsp *a;
  cc_apsp_params p;
  cc_apsp_params_default (&p);
  p.kind = CC_APSP_UNDIRECTED;
  CC_ASSERT_OK (cc_apsp_create (ctx, g.nodes, &p, &a));
  CC_ASSERT_OK (cc_apsp_compute_sync (a, NULL, &gv, NULL));
  CC_ASSERT_OK (cc_apsp_get_rows (a, src, 3, rows, NULL));
  ck_assert_float_eq_tol (rows[2 * g.nodes + 7], full[150 * g.nodes + 7], 1e-4);
  cc_apsp_destroy (a);
  cc_context_destroy (ctx);
  free (rows);
  free (full);
  graph_free (&g);
}
END_TEST

/* The CPU methods give the same bits on 1 and 4 threads (whole rows per thread;
 * 4 > the cores of a small machine): Dijkstra, Floyd-Warshall, next hops, and
 * cc_apsp_sources. */
START_TEST (test_cpu_threads_bit_exact)
{
  const int nodes[2] = { 601, 201 };
  const cc_apsp_cpu_method methods[2] = { CC_APSP_CPU_DIJKSTRA, CC_APSP_CPU_FLOYD_WARSHALL };
  for (int m = 0; m < 2; m++) {
    test_graph g = random_graph (nodes[m], 3, 2, 99, true);
    size_t nn = (size_t) g.nodes * g.nodes;
    int32_t *next1, *next4;
    float *d1 = solve_threads (CC_BACKEND_CPU, 1, &g, CC_APSP_DIRECTED, methods[m], &next1);
    float *d4 = solve_threads (CC_BACKEND_CPU, 4, &g, CC_APSP_DIRECTED, methods[m], &next4);
    ck_assert_msg (memcmp (d1, d4, nn * sizeof (float)) == 0, "method %d: distances differ", m);
    ck_assert_msg (memcmp (next1, next4, nn * sizeof (int32_t)) == 0,
        "method %d: next hops differ", m);
    free (d1); free (d4); free (next1); free (next4);
    graph_free (&g);
  }
  test_graph g = random_graph (301, 4, 1, 5, false);
  int32_t src[9] = { 0, 300, 17, 17, 150, 2, 99, 250, 3 };
  float *r1 = malloc (sizeof (float) * 9 * g.nodes), *r4 = malloc (sizeof (float) * 9 * g.nodes);
  cc_apsp_graph gv = view (&g);
  CC_ASSERT_OK (cc_apsp_sources (&gv, CC_APSP_UNDIRECTED, src, 9, 1, r1));
  CC_ASSERT_OK (cc_apsp_sources (&gv, CC_APSP_UNDIRECTED, src, 9, 4, r4));
  ck_assert_msg (memcmp (r1, r4, sizeof (float) * 9 * g.nodes) == 0, "sources differ");
  free (r1);
  free (r4);
  graph_free (&g);
}
END_TEST

START_TEST (test_invalid_arguments)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  int32_t from[1] = { 0 }, to[1] = { 3 };
  float w[1] = { 1.0f };
  cc_apsp_graph g = { 3, 1, from, to, w };
  float d[9];
  ck_assert_int_eq (cc_apsp_dense (ctx, NULL, &g, NULL, d, NULL, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "outside"));
  to[0] = 1;
  w[0] = -1.0f;
  ck_assert_int_eq (cc_apsp_dense (ctx, NULL, &g, NULL, d, NULL, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "weight"));
  w[0] = NAN;
  ck_assert_int_eq (cc_apsp_dense (ctx, NULL, &g, NULL, d, NULL, NULL), CC_ERROR_INVALID_ARGUMENT);
  w[0] = 1.0f;
  cc_apsp *a;
  ck_assert_int_eq (cc_apsp_create (ctx, 0, NULL, &a), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_apsp_create (ctx, 4, NULL, &a));
  ck_assert_int_eq (cc_apsp_compute_sync (a, NULL, &g, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_apsp_get_rows (a, NULL, 1, d, NULL), CC_ERROR_INVALID_ARGUMENT);
  cc_apsp_destroy (a);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_device_bytes_undirected_half)
{
  cc_apsp_params p;
  cc_apsp_params_default (&p);
  size_t directed, undirected;
  CC_ASSERT_OK (cc_apsp_device_bytes (20480, &p, &directed));
  p.kind = CC_APSP_UNDIRECTED;
  CC_ASSERT_OK (cc_apsp_device_bytes (20480, &p, &undirected));
  printf ("apsp 20480 nodes: directed %zu bytes, undirected %zu bytes (%.3f)\n", directed,
      undirected, (double) undirected / directed);
  ck_assert_msg (undirected <= 0.6 * directed, "undirected %zu > 0.6 x directed %zu",
      undirected, directed);
}
END_TEST

/* GPU directed and undirected equal CPU Dijkstra, with next hops that are valid paths.
 * After the sizes around the tile edge: a random graph of 600 nodes (10 tiles, not a
 * multiple of the tile) and a mesh dual graph of 1054 faces (17 tiles, an odd count).
 * CV_TEST_QUICK (compute-sanitizer): 330 nodes (6 tiles, not a multiple) and a dual
 * graph of 306 faces (5 tiles, odd): the same kernels and branches, with about 14x
 * fewer tile products per kind (sum of tiles^3: 5990 -> 418). */
START_TEST (test_gpu_matches_cpu_dijkstra)
{
  CV_SKIP_WITHOUT_GPU ("apsp: gpu matches cpu");
  const int quick = cv_test_quick ();
  const int big = quick ? 330 : 600, grid_w = quick ? 17 : 31, grid_h = quick ? 9 : 17;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] + 2; s++) {
    int n = s < sizeof sizes / sizeof sizes[0] ? sizes[s] : (s == sizeof sizes / sizeof sizes[0] ? big : 0);
    test_graph g = n ? random_graph (n, 3, s % 2 ? 3 : 1, 101 + (uint32_t) s, false)
        : grid_dual_graph (grid_w, grid_h);
    for (int kind = 0; kind < 2; kind++) {
      char what[96];
      snprintf (what, sizeof what, "GPU n=%d %s", g.nodes, kind ? "undirected" : "directed");
      float *cpu = solve (CC_BACKEND_CPU, &g, kind, CC_APSP_CPU_DIJKSTRA, NULL);
      int32_t *next;
      float *gpu = solve (CC_BACKEND_CUDA, &g, kind, CC_APSP_CPU_AUTO, &next);
      assert_close (gpu, cpu, (size_t) g.nodes * g.nodes, g.nodes, 1e-5, what);
      assert_paths (&g, kind, gpu, next, what);
      printf ("%s: GPU vs CPU Dijkstra equal within 1e-5, next hops valid\n", what);
      free (cpu); free (gpu); free (next);
    }
    graph_free (&g);
  }
}
END_TEST

START_TEST (test_gpu_rows_and_out_of_memory)
{
  CV_SKIP_WITHOUT_GPU ("apsp: gpu rows and out of memory");
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, -1, &ctx));
  cc_apsp_params p;
  cc_apsp_params_default (&p);
  p.kind = CC_APSP_UNDIRECTED;
  cc_apsp *a;
  /* 4M nodes: 32 TiB even undirected */
  ck_assert_int_eq (cc_apsp_create (ctx, CC_APSP_MAX_NODES, &p, &a), CC_ERROR_OUT_OF_MEMORY);
  printf ("apsp out of memory message: %s\n", cc_last_error ());
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "bytes"));
  int max_nodes;
  CC_ASSERT_OK (cc_apsp_max_nodes (ctx, &p, (size_t) 1 << 30, &max_nodes));
  printf ("apsp largest undirected size that fits: %d nodes\n", max_nodes);
  ck_assert_int_gt (max_nodes, 20480);
  /* selected rows, repeated and out of order (the last, then the middle one), against
   * the CPU: 800 faces (13 tiles); CV_TEST_QUICK 288 (5 tiles) */
  test_graph g = cv_test_quick () ? grid_dual_graph (12, 12) : grid_dual_graph (20, 20);
  cc_apsp_graph gv = view (&g);
  CC_ASSERT_OK (cc_apsp_create (ctx, g.nodes, &p, &a));
  CC_ASSERT_OK (cc_apsp_compute_sync (a, NULL, &gv, NULL));
  int32_t rows[4] = { g.nodes - 1, 3, 3, g.nodes / 2 };
  float *got = malloc (sizeof (float) * 4 * g.nodes);
  CC_ASSERT_OK (cc_apsp_get_rows (a, rows, 4, got, NULL));
  float *cpu = solve (CC_BACKEND_CPU, &g, CC_APSP_UNDIRECTED, CC_APSP_CPU_DIJKSTRA, NULL);
  for (int r = 0; r < 4; r++)
    assert_close (got + (size_t) r * g.nodes, cpu + (size_t) rows[r] * g.nodes, g.nodes,
        g.nodes, 1e-5, "rows");
  cc_apsp_destroy (a);
  cc_context_destroy (ctx);
  free (got);
  free (cpu);
  graph_free (&g);
}
END_TEST

static Suite *
apsp_suite (void)
{
  Suite *s = suite_create ("apsp");
  TCase *tc = tcase_create ("apsp");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_cpu_dijkstra_equals_floyd_warshall);
  tcase_add_test (tc, test_disconnected_and_trivial);
  tcase_add_test (tc, test_sources_match_rows);
  tcase_add_test (tc, test_cpu_threads_bit_exact);
  tcase_add_test (tc, test_invalid_arguments);
  tcase_add_test (tc, test_device_bytes_undirected_half);
  tcase_add_test (tc, test_gpu_matches_cpu_dijkstra);
  tcase_add_test (tc, test_gpu_rows_and_out_of_memory);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (apsp_suite ());
}
