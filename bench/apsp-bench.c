/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* apsp-bench: times the all-pairs shortest paths on the chosen backend and prints one
 * JSON object per (variant, size):
 *   {"algorithm":"apsp","variant":"directed","backend":"cuda","nodes":N,
 *    "padded_nodes":P,"kernel_ms":..,"total_ms":..,"memory_bytes":..,"max_rel_error":..}
 * kernel_ms is the CUDA-event time of the Floyd-Warshall rounds (CPU: the solve).
 * --check compares ROWS rows (default 4) with CPU Dijkstra (max_rel_error; -1 when
 * --check 0); the exit status is 1 when an error exceeds 1e-5 or a run fails.
 *
 * --largest adds the largest size whose matrix fits in the free device memory (at most
 * --cap nodes): an n^3 run, minutes at 100k+ nodes on an H100.
 *
 * --cpu-method (CPU backend) forces the CPU algorithm (cudacore's internal tuning,
 * cc_tuning.h); auto is what the library runs: Floyd-Warshall up to 256 nodes, else
 * repeated Dijkstra.
 *
 * Usage: apsp-bench [--backend cuda|cpu] [--variant directed|undirected|both]
 *                   [--sizes 5120,20480] [--largest [--cap N]] [--check ROWS]
 *                   [--cpu-method auto|dijkstra|floyd-warshall]
 *        apsp-bench --version */
#include "cv_cli.h"
#include <cudacore/cc_apsp.h>
#include "cc_tuning.h"   /* cudacore/src: the CPU algorithms it compares */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A connected, mesh-like graph: a ring plus two random chords per node (degree ~6
 * counting both directions), weights in [0.1, 1.1). Listed both ways so that the
 * directed and the undirected variants solve the same graph. */
static void
make_graph (int nodes, cc_apsp_graph *g, int32_t **from, int32_t **to, float **w)
{
  int arcs = nodes > 1 ? 6 * nodes : 0;
  *from = malloc (sizeof (int32_t) * (arcs ? arcs : 1));
  *to = malloc (sizeof (int32_t) * (arcs ? arcs : 1));
  *w = malloc (sizeof (float) * (arcs ? arcs : 1));
  uint32_t seed = 12345;
  int a = 0;
  for (int u = 0; u < nodes && arcs; u++)
    for (int e = 0; e < 3; e++) {
      seed = seed * 1664525u + 1013904223u;
      int v = e == 0 ? (u + 1) % nodes : (int) ((seed >> 8) % (uint32_t) nodes);
      seed = seed * 1664525u + 1013904223u;
      float weight = 0.1f + (float) ((seed >> 8) % 10000) * 1e-4f;
      (*from)[a] = u; (*to)[a] = v; (*w)[a++] = weight;
      (*from)[a] = v; (*to)[a] = u; (*w)[a++] = weight;
    }
  *g = (cc_apsp_graph) { nodes, a, *from, *to, *w };
}

static double
check_rows (cc_apsp *apsp, const cc_apsp_graph *g, cc_apsp_kind kind, int rows)
{
  if (rows <= 0)
    return -1.0;
  int n = g->nodes;
  if (rows > n)
    rows = n;
  int32_t *ids = malloc (sizeof (int32_t) * rows);
  for (int r = 0; r < rows; r++)
    ids[r] = (int32_t) (((int64_t) r * 7919 + 13) % n);
  float *got = malloc (sizeof (float) * (size_t) rows * n);
  float *want = malloc (sizeof (float) * (size_t) rows * n);
  double worst = 0.0;
  if (cc_apsp_get_rows (apsp, ids, rows, got, NULL) != CC_SUCCESS
      || cc_apsp_sources (g, kind, ids, rows, 0, want) != CC_SUCCESS) {
    fprintf (stderr, "apsp-bench: check failed: %s\n", cc_last_error ());
    worst = INFINITY;
  } else {
    for (size_t i = 0; i < (size_t) rows * n; i++) {
      if (isinf (got[i]) && isinf (want[i]))
        continue;
      double e = fabs ((double) got[i] - want[i]) / fmax (fabs ((double) want[i]), 1e-6);
      if (!(e <= worst))
        worst = isnan (e) ? INFINITY : e;
    }
  }
  free (ids); free (got); free (want);
  return worst;
}

static cc_apsp_tuning tuning;   /* --cpu-method */

static int
run (cc_context *ctx, cc_apsp_kind kind, int nodes, int check)
{
  cc_apsp_params p;
  cc_apsp_params_default (&p);
  p.kind = kind;
  cc_apsp_graph g;
  int32_t *from, *to;
  float *w;
  make_graph (nodes, &g, &from, &to, &w);
  cc_apsp *apsp;
  cc_apsp_stats stats;
  cc_status st = cc_apsp_create (ctx, nodes, &p, &apsp);
  if (st == CC_SUCCESS) {
    st = cc_apsp_set_tuning (apsp, &tuning);
    if (st == CC_SUCCESS)
      st = cc_apsp_compute_sync (apsp, NULL, &g, &stats);
    if (st != CC_SUCCESS)
      cc_apsp_destroy (apsp);
  }
  if (st != CC_SUCCESS) {
    fprintf (stderr, "apsp-bench: %d nodes %s: %s: %s\n", nodes,
        kind == CC_APSP_UNDIRECTED ? "undirected" : "directed", cc_status_name (st),
        cc_last_error ());
    free (from); free (to); free (w);
    return 1;
  }
  double err = check_rows (apsp, &g, kind, check);
  printf ("{\"algorithm\":\"apsp\",\"variant\":\"%s\",\"backend\":\"%s\",\"nodes\":%d,"
      "\"padded_nodes\":%d,\"kernel_ms\":%.3f,\"total_ms\":%.3f,\"memory_bytes\":%zu,"
      "\"max_rel_error\":%.3g}\n", kind == CC_APSP_UNDIRECTED ? "undirected" : "directed",
      cc_backend_name (cc_context_backend (ctx)), nodes, stats.padded_nodes, stats.kernel_ms,
      stats.total_ms, stats.memory_bytes, err);
  fflush (stdout);
  cc_apsp_destroy (apsp);
  free (from); free (to); free (w);
  return err > 1e-5 ? 1 : 0;
}

static const char help[] =
"usage: apsp-bench [--backend cuda|cpu] [--variant directed|undirected|both]\n"
"                  [--sizes N,N,...] [--largest [--cap N]] [--check ROWS]\n"
"                  [--cpu-method auto|dijkstra|floyd-warshall]\n"
"Times all-pairs shortest paths (Floyd-Warshall rounds on CUDA; the CPU solve) on\n"
"generated graphs; one JSON line per variant and size: kernel_ms, total_ms,\n"
"memory_bytes and max_rel_error against CPU Dijkstra. Exit 1 when an error exceeds\n"
"1e-5 or a run fails.\n"
"  --backend cuda|cpu   the backend (default cuda)\n"
"  --variant V          directed, undirected or both (default both)\n"
"  --sizes N,N,...      node counts (default 5120,20480)\n"
"  --largest            add the largest size whose matrix fits in the free device\n"
"                       memory (an n^3 run: minutes at 100k+ nodes)\n"
"  --cap N              --largest: at most N nodes (default 4194304)\n"
"  --check ROWS         rows compared with CPU Dijkstra (0: none; default 4)\n"
"  --cpu-method M       the CPU algorithm: auto (what the library runs:\n"
"                       Floyd-Warshall up to 256 nodes, else repeated Dijkstra),\n"
"                       dijkstra or floyd-warshall (default auto)\n"
"  -h, --help           this text\n"
"  --version            the program's version\n";

static void
usage (void)
{
  fprintf (stderr, "usage: apsp-bench [--backend cuda|cpu] [--variant directed|undirected|both]\n"
      "                  [--sizes N,N,...] [--largest [--cap N]] [--check ROWS]\n"
      "                  [--cpu-method auto|dijkstra|floyd-warshall]\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  cc_backend backend = CC_BACKEND_CUDA;
  const char *sizes = "5120,20480", *variant = "both";
  int largest = 0, check = 4, cap = CC_APSP_MAX_NODES;
  cc_apsp_tuning_default (&tuning);
  for (int i = 1; i < argc; i++) {
    if (cv_version_or_help (argv[i], help))
      return 0;
    else if (!strcmp (argv[i], "--backend") && i + 1 < argc) {
      i++;
      if (!strcmp (argv[i], "cpu"))
        backend = CC_BACKEND_CPU;
      else if (!strcmp (argv[i], "cuda"))
        backend = CC_BACKEND_CUDA;
      else {
        fprintf (stderr, "apsp-bench: --backend: '%s' is not cuda or cpu\n", argv[i]);
        return 2;
      }
    } else if (!strcmp (argv[i], "--variant") && i + 1 < argc)
      variant = argv[++i];
    else if (!strcmp (argv[i], "--sizes") && i + 1 < argc)
      sizes = argv[++i];
    else if (!strcmp (argv[i], "--largest"))
      largest = 1;
    else if (!strcmp (argv[i], "--cap") && i + 1 < argc) {
      if (!cv_parse_int ("--cap", argv[++i], 1, CC_APSP_MAX_NODES, &cap))
        return 2;
    } else if (!strcmp (argv[i], "--check") && i + 1 < argc) {
      if (!cv_parse_int ("--check", argv[++i], 0, CC_APSP_MAX_NODES, &check))
        return 2;
    } else if (!strcmp (argv[i], "--cpu-method") && i + 1 < argc) {
      i++;
      if (!strcmp (argv[i], "auto"))
        tuning.cpu_method = CC_APSP_CPU_AUTO;
      else if (!strcmp (argv[i], "dijkstra"))
        tuning.cpu_method = CC_APSP_CPU_DIJKSTRA;
      else if (!strcmp (argv[i], "floyd-warshall"))
        tuning.cpu_method = CC_APSP_CPU_FLOYD_WARSHALL;
      else {
        fprintf (stderr, "apsp-bench: --cpu-method: '%s' is not auto, dijkstra or "
            "floyd-warshall\n", argv[i]);
        return 2;
      }
    } else
      usage ();
  }
  if (strcmp (variant, "both") && strcmp (variant, "directed") && strcmp (variant, "undirected")) {
    fprintf (stderr, "apsp-bench: --variant: '%s' is not directed, undirected or both\n",
        variant);
    return 2;
  }
  int size_list[64], nsizes = 0;
  char list[1024];
  snprintf (list, sizeof list, "%s", sizes);
  for (char *tok = strtok (list, ","); tok && nsizes < 64; tok = strtok (NULL, ","))
    if (!cv_parse_int ("--sizes", tok, 1, CC_APSP_MAX_NODES, &size_list[nsizes++]))
      return 2;
  cc_context *ctx;
  if (cc_context_create (backend, CC_DEVICE_AUTO, &ctx) != CC_SUCCESS) {
    fprintf (stderr, "apsp-bench: %s\n", cc_last_error ());
    return 1;
  }
  int failures = 0;
  for (int v = 0; v < 2; v++) {
    cc_apsp_kind kind = v ? CC_APSP_UNDIRECTED : CC_APSP_DIRECTED;
    if (strcmp (variant, "both") && strcmp (variant, v ? "undirected" : "directed"))
      continue;
    for (int s = 0; s < nsizes; s++)
      failures += run (ctx, kind, size_list[s], check);
    if (largest) {
      cc_apsp_params p;
      cc_apsp_params_default (&p);
      p.kind = kind;
      int nodes;
      /* leave 1 GiB for the graph upload and the runtime */
      if (cc_apsp_max_nodes (ctx, &p, (size_t) 1 << 30, &nodes) != CC_SUCCESS) {
        fprintf (stderr, "apsp-bench: %s\n", cc_last_error ());
        failures++;
      } else {
        size_t bytes = 0;
        cc_apsp_device_bytes (nodes, &p, &bytes);
        printf ("{\"algorithm\":\"apsp\",\"variant\":\"%s\",\"largest_fit_nodes\":%d,"
            "\"largest_fit_bytes\":%zu,\"run_nodes\":%d}\n",
            kind == CC_APSP_UNDIRECTED ? "undirected" : "directed", nodes, bytes,
            nodes < cap ? nodes : cap);
        fflush (stdout);
        failures += run (ctx, kind, nodes < cap ? nodes : cap, check ? 2 : 0);
      }
    }
  }
  cc_context_destroy (ctx);
  return failures ? 1 : 0;
}
