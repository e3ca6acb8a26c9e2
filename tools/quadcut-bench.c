/* quadcut-bench: end-to-end time of cc_quadcut (Quad-Cut) from a frame where the
 * backend computes (device memory on CUDA) to the composite written, with the split of
 * the stages; one JSON object per size.
 *
 *   quadcut-bench [--size WxH]... [--backend auto|cpu|cuda] [--threads T] [--frames N]
 *                 [--warmup N]
 *   quadcut-bench --version
 *
 * Backend: auto (the default) is CUDA when a device is present, else the CPU (all
 * cores unless --threads). Sizes: 1920x1080 and 3840x2160 unless --size is given
 * (repeatable). Frames: the
 * synthetic foreground clip (cv_synth, noise 6: 8 frames, cycled), its plate, all
 * uploaded before the timing; shadow_depth 0.6 (the clip's shadow), the other
 * parameters at their defaults. Each timed frame: cc_quadcut_run, then
 * cc_quadcut_composite over a solid colour into another image, waited for
 * (cc_context_synchronize). Medians over --frames (default 20) after --warmup
 * (default 3) frames:
 *   end_to_end_ms  the wall clock of run + composite + wait, and fps = 1000 / it;
 *   ms             the stages of cc_quadcut_graph.ms (CUDA: stratify .. neighbours by
 *                  CUDA events, including the histogram's round trip and the count
 *                  reads; transfer = the leaf graph's download; graph = the n-links
 *                  on the host; maxflow; scatter = labels up, scatter, feather) and
 *                  composite (wall clock of the composite and the wait);
 *   nodes_share    graph nodes (leaves) / pixels; edges: n-links. */
#include "cv_cli.h"
#include "cv_synth.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include <cudacore/cc_quadcut.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIP_FRAMES 8
#define MAX_SIZES 16
#define MAX_FRAMES 10000

static int
fail (const char *what)
{
  fprintf (stderr, "quadcut-bench: %s: %s\n", what, cc_last_error ());
  return 1;
}

static const char *stage_names[CC_QUADCUT_STAGES] = {
  "stratify", "histogram", "pyramid", "leaves", "neighbours", "transfer", "graph",
  "maxflow", "scatter"
};

/* A host image where the context computes: itself on the CPU, a device copy on CUDA. */
static cc_status
place (cc_context *ctx, const cc_image *host, cc_image *out)
{
  cc_location loc = cc_context_backend (ctx) == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE
      : CC_LOCATION_HOST;
  cc_status st = cc_image_alloc (ctx, host->width, host->height, host->format, loc, out);
  if (st == CC_SUCCESS)
    st = cc_image_copy (ctx, host, out);
  return st;
}

static int
bench_size (cc_context *ctx, int w, int h, int frames, int warmup)
{
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.shadow_depth = 0.6f;
  cc_image clip[CLIP_FRAMES], plate_host, plate, out;
  for (int t = 0; t < CLIP_FRAMES; t++) {
    cc_image host;
    if (cv_synth_fg_frame (3 * t, w, h, CV_SYNTH_FG_PLAIN, 6, &host, NULL) != CC_SUCCESS
        || place (ctx, &host, &clip[t]) != CC_SUCCESS)
      return fail ("frames");
    cv_image_free (&host);
  }
  if (cv_synth_fg_plate (w, h, &plate_host) != CC_SUCCESS
      || place (ctx, &plate_host, &plate) != CC_SUCCESS
      || place (ctx, &plate_host, &out) != CC_SUCCESS)
    return fail ("plate");
  cc_quadcut *q;
  if (cc_quadcut_create (ctx, w, h, &p, &q) != CC_SUCCESS
      || cc_quadcut_set_plate (q, &plate) != CC_SUCCESS
      || cc_context_synchronize (ctx) != CC_SUCCESS)
    return fail ("create");
  const cc_quadcut_background bg = { .kind = CC_QUADCUT_BG_COLOR, .r = 0, .g = 177, .b = 64 };
  double *e2e = calloc (frames, sizeof *e2e), *comp = calloc (frames, sizeof *comp);
  double *stage = calloc ((size_t) frames * CC_QUADCUT_STAGES, sizeof *stage);
  double nodes = 0.0, edges = 0.0;
  for (int i = 0; i < warmup + frames; i++) {
    const cc_image *f = &clip[i % CLIP_FRAMES];
    double t0 = cv_now_ms ();
    if (cc_quadcut_run (q, f, NULL) != CC_SUCCESS)
      return fail ("run");
    double t1 = cv_now_ms ();
    if (cc_quadcut_composite (q, f, &bg, &out) != CC_SUCCESS
        || cc_context_synchronize (ctx) != CC_SUCCESS)
      return fail ("composite");
    double t2 = cv_now_ms ();
    if (i < warmup)
      continue;
    int k = i - warmup;
    cc_quadcut_graph g;
    cc_quadcut_get_graph (q, &g);
    e2e[k] = t2 - t0;
    comp[k] = t2 - t1;
    for (int s = 0; s < CC_QUADCUT_STAGES; s++)
      stage[(size_t) s * frames + k] = g.ms[s];
    nodes += g.n_nodes;
    edges += (double) g.n_edges;
  }
  printf ("{\"bench\": \"quadcut\", \"size\": \"%dx%d\", \"backend\": \"%s\", \"threads\": %d, "
      "\"frames\": %d, \"nodes_share\": %.4f, \"edges\": %.0f, \"ms\": {", w, h,
      cc_backend_name (cc_context_backend (ctx)), cc_context_cpu_threads (ctx), frames,
      nodes / frames / ((double) w * h), edges / frames);
  double sum = 0.0;
  for (int s = 0; s < CC_QUADCUT_STAGES; s++) {
    double m = cv_median (stage + (size_t) s * frames, frames);
    sum += m;
    printf ("\"%s\": %.3f, ", stage_names[s], m);
  }
  double mc = cv_median (comp, frames), me = cv_median (e2e, frames);
  printf ("\"composite\": %.3f}, \"stages_sum_ms\": %.3f, \"end_to_end_ms\": %.3f, "
      "\"fps\": %.1f}\n", mc, sum + mc, me, 1000.0 / me);
  fflush (stdout);
  free (e2e);
  free (comp);
  free (stage);
  cc_quadcut_destroy (q);
  for (int t = 0; t < CLIP_FRAMES; t++)
    cc_image_free (ctx, &clip[t]);
  cc_image_free (ctx, &plate);
  cc_image_free (ctx, &out);
  cv_image_free (&plate_host);
  return 0;
}

static int
usage (void)
{
  fprintf (stderr, "usage: quadcut-bench [--size WxH]... [--backend auto|cpu|cuda] [--threads T] "
      "[--frames N] [--warmup N]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  int sizes[MAX_SIZES][2], n_sizes = 0, threads = 0, frames = 20, warmup = 3;
  cc_backend backend = CC_BACKEND_AUTO;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp (o, "--version")) {
      cv_print_version ();
      return 0;
    }
    if (!v)
      return usage ();
    i++;
    bool ok = true;
    if (!strcmp (o, "--size")) {
      int w, h;
      if (n_sizes == MAX_SIZES || sscanf (v, "%dx%d", &w, &h) != 2 || w < 1 || h < 1
          || w > 16384 || h > 16384)
        ok = cv_option_error (o, v, "a size WxH in 1..16384 (16 sizes at most)");
      else {
        sizes[n_sizes][0] = w;
        sizes[n_sizes++][1] = h;
      }
    } else if (!strcmp (o, "--frames"))
      ok = cv_parse_int (o, v, 1, MAX_FRAMES, &frames);
    else if (!strcmp (o, "--warmup"))
      ok = cv_parse_int (o, v, 0, 1000, &warmup);
    else if (!strcmp (o, "--threads"))
      ok = cv_parse_int (o, v, 0, 1024, &threads);
    else if (!strcmp (o, "--backend")) {
      if (!strcmp (v, "auto"))
        backend = CC_BACKEND_AUTO;
      else if (!strcmp (v, "cpu"))
        backend = CC_BACKEND_CPU;
      else if (!strcmp (v, "cuda"))
        backend = CC_BACKEND_CUDA;
      else
        ok = cv_option_error (o, v, "one of auto, cpu, cuda");
    } else
      return usage ();
    if (!ok)
      return 2;
  }
  if (n_sizes == 0) {
    sizes[0][0] = 1920, sizes[0][1] = 1080;
    sizes[1][0] = 3840, sizes[1][1] = 2160;
    n_sizes = 2;
  }
  if (backend == CC_BACKEND_AUTO)
    backend = cc_cuda_device_count () > 0 ? CC_BACKEND_CUDA : CC_BACKEND_CPU;
  cc_context *ctx;
  if (cc_context_create (backend, backend == CC_BACKEND_CUDA ? 0 : -1, &ctx) != CC_SUCCESS
      || cc_context_set_threads (ctx, threads) != CC_SUCCESS)
    return fail ("context");
  int rc = 0;
  for (int s = 0; s < n_sizes && rc == 0; s++)
    rc = bench_size (ctx, sizes[s][0], sizes[s][1], frames, warmup);
  cc_context_destroy (ctx);
  return rc;
}
