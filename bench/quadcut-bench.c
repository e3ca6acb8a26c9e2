/* SPDX-License-Identifier: GPL-3.0-or-later */
/* quadcut-bench: end-to-end time of cc_quadcut (Quad-Cut) from a frame where the
 * backend computes (device memory on CUDA) to the composite written, with the split of
 * the stages; one JSON object per size.
 *
 *   quadcut-bench [--size WxH]... [--backend auto|cpu|cuda] [--threads T] [--frames N]
 *                 [--warmup N] [--cdnet DIR [--frame N]] [--certain X] [--max-level N]
 *   quadcut-bench --version
 *
 * Backend: auto (the default) is CUDA when a device is present, else the CPU (all
 * cores unless --threads). Sizes: 1920x1080 and 3840x2160 unless --size is given
 * (repeatable). Input, 8 frames cycled and their plate, all uploaded before the
 * timing:
 *   --cdnet DIR (a CDnet 2014 category folder, e.g. shared/media/segmentation/
 *     cdnet-highway): camera frames N..N+7 (--frame, default 600) and the plate = the
 *     per-pixel median of frames 1..100, each scaled to the size (bilinear: the
 *     320x240 highway becomes a smooth 1080p picture with real cars, shadows and
 *     trees); parameters at their defaults. The realistic input: the figures in
 *     docs/quadcut.md are taken with it.
 *   otherwise the synthetic foreground clip (cv_synth, a textured object over a
 *     textured plate, noise 6) at the size, shadow_depth 0.6 (the clip's shadow),
 *     the other parameters at their defaults.
 * --certain and --max-level override those parameters (cc_quadcut_params: the grouping
 * criterion's experiments, e.g. --certain 0 for the ranges alone). Each timed frame:
 * cc_quadcut_compute_sync, then cc_quadcut_composite over a solid colour into another image,
 * waited for (cc_context_synchronize). Medians over --frames (default 20) after
 * --warmup (default 3) frames:
 *   total (= end_to_end_ms)  the wall clock of run + composite + wait, and fps;
 *   ms             the stages of cc_quadcut_get_stage_ms (CUDA: stratify .. transfer by
 *                  CUDA events, including the histogram's round trip and the count
 *                  reads; graph = t-links and n-links built on the device, transfer =
 *                  the compact graph's one copy; maxflow = feeding libmaxflow and the
 *                  cut, on the host; output = labels up, scatter, feather) and
 *                  composite (wall clock of the composite and the wait);
 *   nodes_share    graph nodes (leaves) / pixels; edges: n-links. */
#include "cv_cli.h"
#include "cv_synth.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include <cudacore/cc_quadcut.h>
#include "cc_tuning.h"   /* cudacore/src: the stage times */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIP_FRAMES 8
#define MAX_SIZES 16
#define MAX_FRAMES 10000

static const char *stage_names[CC_QUADCUT_STAGES] = {
  "stratify", "histogram", "pyramid", "leaves", "neighbours", "transfer", "graph",
  "maxflow", "output"
};

#define PLATE_FRAMES 100

/* src (RGBX8) scaled to w x h into a new host image: bilinear, the pixel centres
 * aligned, 8-bit fixed-point weights. */
static cc_status
scale_bilinear (const cc_image *src, int w, int h, cc_image *out)
{
  cc_status st = cv_image_new (w, h, CC_FORMAT_RGBX8, out);
  if (st != CC_SUCCESS)
    return st;
  const int sw = src->width, sh = src->height;
  for (int y = 0; y < h; y++) {
    double fy = ((double) y + 0.5) * sh / h - 0.5;
    int y0 = fy < 0 ? 0 : (int) fy, y1 = y0 + 1 < sh ? y0 + 1 : sh - 1;
    int wy = fy < 0 ? 0 : (int) ((fy - y0) * 256.0 + 0.5);
    const uint8_t *r0 = (const uint8_t *) src->planes[0] + (size_t) y0 * src->pitch[0];
    const uint8_t *r1 = (const uint8_t *) src->planes[0] + (size_t) y1 * src->pitch[0];
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    for (int x = 0; x < w; x++) {
      double fx = ((double) x + 0.5) * sw / w - 0.5;
      int x0 = fx < 0 ? 0 : (int) fx, x1 = x0 + 1 < sw ? x0 + 1 : sw - 1;
      int wx = fx < 0 ? 0 : (int) ((fx - x0) * 256.0 + 0.5);
      for (int c = 0; c < 4; c++) {
        int top = r0[4 * x0 + c] * (256 - wx) + r0[4 * x1 + c] * wx;
        int bot = r1[4 * x0 + c] * (256 - wx) + r1[4 * x1 + c] * wx;
        o[4 * x + c] = (uint8_t) ((top * (256 - wy) + bot * wy + 32768) >> 16);
      }
    }
  }
  return CC_SUCCESS;
}

/* A CDnet frame (in%06d.jpg of DIR/input) scaled to w x h. */
static cc_status
cdnet_frame (const char *dir, int t, int w, int h, cc_image *out)
{
  cc_image f;
  cc_status st = cv_cdnet_frame_load (dir, t, &f);
  if (st != CC_SUCCESS)
    return st;
  st = scale_bilinear (&f, w, h, out);
  cv_image_free (&f);
  return st;
}

/* The plate of a CDnet folder: the median of frames 1..PLATE_FRAMES, scaled. */
static cc_status
cdnet_plate (const char *dir, int w, int h, cc_image *out)
{
  cc_image *fr = calloc (PLATE_FRAMES, sizeof *fr), med;
  if (!fr)
    return CC_ERROR_OUT_OF_MEMORY;
  cc_status st = CC_SUCCESS;
  int got = 0;
  for (; got < PLATE_FRAMES && st == CC_SUCCESS; got++)
    st = cv_cdnet_frame_load (dir, got + 1, &fr[got]);
  if (st != CC_SUCCESS)
    got--;
  if (st == CC_SUCCESS)
    st = cv_median_frames (fr, PLATE_FRAMES, &med);
  for (int t = 0; t < got; t++)
    cv_image_free (&fr[t]);
  free (fr);
  if (st != CC_SUCCESS)
    return st;
  st = scale_bilinear (&med, w, h, out);
  cv_image_free (&med);
  return st;
}

/* A host image where the context computes: itself on the CPU, a device copy on CUDA. */
static cc_status
place (cc_context *ctx, const cc_image *host, cc_image *out)
{
  cc_location loc = cc_context_backend (ctx) == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE
      : CC_LOCATION_HOST;
  cc_status st = cc_image_alloc (ctx, host->width, host->height, host->format, loc, out);
  if (st == CC_SUCCESS)
    st = cc_image_copy (ctx, NULL, host, out);
  return st;
}

typedef struct {
  const char *cdnet;
  int frame;
  float certain;     /* < 0: the default */
  int max_level;     /* < 0: the default */
} bench_input;

static int
bench_size (cc_context *ctx, int w, int h, int frames, int warmup, const bench_input *in)
{
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  if (!in->cdnet)
    p.shadow_depth = 0.6f;
  if (in->certain >= 0.0f)
    p.certain = in->certain;
  if (in->max_level >= 0)
    p.max_level = in->max_level;
  cc_image clip[CLIP_FRAMES], plate_host, plate, out;
  for (int t = 0; t < CLIP_FRAMES; t++) {
    cc_image host;
    cc_status st = in->cdnet ? cdnet_frame (in->cdnet, in->frame + t, w, h, &host)
        : cv_synth_fg_frame (3 * t, w, h, CV_SYNTH_FG_PLAIN, 6, &host, NULL);
    if (st != CC_SUCCESS || place (ctx, &host, &clip[t]) != CC_SUCCESS)
      return cv_fail ("frames");
    cv_image_free (&host);
  }
  if ((in->cdnet ? cdnet_plate (in->cdnet, w, h, &plate_host)
      : cv_synth_fg_plate (w, h, &plate_host)) != CC_SUCCESS
      || place (ctx, &plate_host, &plate) != CC_SUCCESS
      || place (ctx, &plate_host, &out) != CC_SUCCESS)
    return cv_fail ("plate");
  cc_quadcut *q;
  if (cc_quadcut_create (ctx, w, h, &p, &q) != CC_SUCCESS
      || cc_quadcut_set_plate (q, NULL, &plate) != CC_SUCCESS
      || cc_context_synchronize (ctx) != CC_SUCCESS)
    return cv_fail ("create");
  const cc_background bg = { .kind = CC_BACKGROUND_COLOR, .r = 0, .g = 177, .b = 64 };
  double *e2e = calloc (frames, sizeof *e2e), *comp = calloc (frames, sizeof *comp);
  double *stage = calloc ((size_t) frames * CC_QUADCUT_STAGES, sizeof *stage);
  double nodes = 0.0, edges = 0.0;
  for (int i = 0; i < warmup + frames; i++) {
    const cc_image *f = &clip[i % CLIP_FRAMES];
    double t0 = cc_now_ms ();
    if (cc_quadcut_compute_sync (q, NULL, f, NULL) != CC_SUCCESS)
      return cv_fail ("run");
    double t1 = cc_now_ms ();
    if (cc_quadcut_composite (q, NULL, f, &bg, &out) != CC_SUCCESS
        || cc_context_synchronize (ctx) != CC_SUCCESS)
      return cv_fail ("composite");
    double t2 = cc_now_ms ();
    if (i < warmup)
      continue;
    int k = i - warmup;
    cc_quadcut_graph g;
    cc_quadcut_get_graph (q, &g);
    double ms[CC_QUADCUT_STAGES];
    cc_quadcut_get_stage_ms (q, ms);
    e2e[k] = t2 - t0;
    comp[k] = t2 - t1;
    for (int s = 0; s < CC_QUADCUT_STAGES; s++)
      stage[(size_t) s * frames + k] = ms[s];
    nodes += g.n_nodes;
    edges += (double) g.n_edges;
  }
  char input[64];
  if (in->cdnet)
    snprintf (input, sizeof input, "cdnet %d..%d scaled", in->frame, in->frame + CLIP_FRAMES - 1);
  else
    snprintf (input, sizeof input, "synthetic");
  printf ("{\"bench\": \"quadcut\", \"size\": \"%dx%d\", \"input\": \"%s\", "
      "\"backend\": \"%s\", \"threads\": %d, \"certain\": %g, \"max_level\": %d, "
      "\"frames\": %d, \"nodes_share\": %.4f, \"edges\": %.0f, \"ms\": {", w, h, input,
      cc_backend_name (cc_context_backend (ctx)), cc_context_cpu_threads (ctx), p.certain,
      p.max_level, frames, nodes / frames / ((double) w * h), edges / frames);
  double sum = 0.0;
  for (int s = 0; s < CC_QUADCUT_STAGES; s++) {
    double m = cv_median (stage + (size_t) s * frames, frames);
    sum += m;
    printf ("\"%s\": %.3f, ", stage_names[s], m);
  }
  double mc = cv_median (comp, frames), me = cv_median (e2e, frames);
  printf ("\"composite\": %.3f, \"total\": %.3f}, \"stages_sum_ms\": %.3f, "
      "\"end_to_end_ms\": %.3f, \"fps\": %.1f}\n", mc, me, sum + mc, me, 1000.0 / me);
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
help (void)
{
  cc_quadcut_params d;
  cc_quadcut_params_default (&d);
  printf ("usage: quadcut-bench [--size WxH]... [--backend auto|cpu|cuda] [--threads T]\n"
      "                     [--frames N] [--warmup N] [--cdnet DIR [--frame N]] [--certain X]\n"
      "                     [--max-level N]\n"
      "End-to-end time of Quad-Cut segmentation (cc_quadcut) and a composite, frames on\n"
      "the backend, with the split of its stages; one JSON line per size (medians).\n"
      "  --size WxH           a size to time (up to %d times; default 1920x1080 and\n"
      "                       3840x2160)\n"
      "  --backend B          auto, cpu or cuda (default auto: CUDA when a device exists)\n"
      "  --threads T          CPU threads (0: all cores, the default)\n"
      "  --frames N           timed frames (default 20)\n"
      "  --warmup N           frames before the timing (0..1000; default 3)\n"
      "  --cdnet DIR          a CDnet 2014 category folder as input (camera frames scaled\n"
      "                       to the size, the plate their median of frames 1..100);\n"
      "                       default: the project's synthetic foreground clip\n"
      "  --frame N            --cdnet: the first of the 8 frames cycled (default 600)\n"
      "  --certain X          the grouping of sure nodes (0..100, 0: off; default %g)\n"
      "  --max-level N        largest leaf side 2^N px (0..%d; default %d)\n"
      "  -h, --help           this text\n"
      "  --version            the program's version\n",
      MAX_SIZES, d.certain, CC_QUADCUT_MAX_LEVEL, d.max_level);
  return 0;
}

static int
usage (void)
{
  fprintf (stderr, "usage: quadcut-bench [--size WxH]... [--backend auto|cpu|cuda] [--threads T] "
      "[--frames N] [--warmup N] [--cdnet DIR [--frame N]] [--certain X] [--max-level N]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  int sizes[MAX_SIZES][2], n_sizes = 0, threads = 0, frames = 20, warmup = 3;
  cc_backend backend = CC_BACKEND_AUTO;
  bench_input in = { .cdnet = NULL, .frame = 600, .certain = -1.0f, .max_level = -1 };
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = cv_option_value (argc, argv, &i, help, usage);
    bool ok = true;
    if (!strcmp (o, "--size")) {
      if (n_sizes == MAX_SIZES)
        ok = cv_option_error (o, v, "a size WxH (16 sizes at most)");
      else if ((ok = cv_parse_size (o, v, 16384, &sizes[n_sizes][0], &sizes[n_sizes][1])))
        n_sizes++;
    } else if (!strcmp (o, "--frames"))
      ok = cv_parse_int (o, v, 1, MAX_FRAMES, &frames);
    else if (!strcmp (o, "--warmup"))
      ok = cv_parse_int (o, v, 0, 1000, &warmup);
    else if (!strcmp (o, "--cdnet"))
      in.cdnet = v;
    else if (!strcmp (o, "--frame"))
      ok = cv_parse_int (o, v, 1, 100000, &in.frame);
    else if (!strcmp (o, "--certain"))
      ok = cv_parse_float (o, v, 0, 100, &in.certain);
    else if (!strcmp (o, "--max-level"))
      ok = cv_parse_int (o, v, 0, CC_QUADCUT_MAX_LEVEL, &in.max_level);
    else if (!strcmp (o, "--threads"))
      ok = cv_parse_int (o, v, 0, 1024, &threads);
    else if (!strcmp (o, "--backend"))
      ok = cv_parse_backend (o, v, true, &backend);
    else
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
  if (cv_context_new (backend, backend == CC_BACKEND_CUDA ? 0 : -1, threads, &ctx)
      != CC_SUCCESS)
    return cv_fail ("context");
  int rc = 0;
  for (int s = 0; s < n_sizes && rc == 0; s++)
    rc = bench_size (ctx, sizes[s][0], sizes[s][1], frames, warmup, &in);
  cc_context_destroy (ctx);
  return rc;
}
