/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* blockmatch-refine-bench: timings of block matching and the variational refinement, one JSON
 * object per line:
 *
 *   {"algorithm":"blockmatch","width":1920,"height":1080,"backend":"cuda",
 *    "kernel_ms":..,"end_to_end_ms":.., ...parameters}
 *
 *   blockmatch-refine-bench [--backend cuda|cpu] [--size WxH]... [--repeat N] [--algorithm NAME]
 *       [--levels N] [--outer N] [--inner N]   (refinement parameters; defaults otherwise)
 *       [--precision auto|fp32]   (the CUDA sweeps: fp16 where the weights allow (auto, the
 *                                  default) or always fp32; cc_refine_tuning.precision)
 *       [--threads N]   (CPU threads, cc_context_set_threads; 0, the default, = all cores)
 *   blockmatch-refine-bench --version
 *
 * kernel_ms: frames and outputs already on the device, the stream's time between
 * two events around the call (cc_timer), median of N runs after warm-up.
 * end_to_end_ms: host frames in, host outputs back (upload, kernels, download,
 * wait), wall clock, median. "threads": the CPU threads of a CPU run (0 on CUDA). Sizes default to 640x480, 1920x1080 and 3840x2160;
 * block matching at 16x16 blocks, radius 16, 4 levels; refinement 5 x 30. The
 * frames are the synthetic clip (cv_synth), the refinement starts from its truth
 * plus a perturbation. (A program apart from LK's flow-bench, which its own branch
 * adds, so that the two merge without conflict; tools/gpu/suite.sh runs every
 * *-bench.) */
#include "cc_tuning.h"   /* cudacore/src: the refinement's sweep precision */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include "cv_synth.h"
#include <cudacore/cc_blockmatch.h>
#include <cudacore/cc_refine.h>
#include <cudacore/cc_timer.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPEAT 200
#define TRY(expr) \
  do { cc_status st_ = (expr); if (st_ != CC_SUCCESS) return st_; } while (0)

/* Refinement parameters other than the defaults (--levels, --outer, --inner; 0: default). */
static int refine_levels, refine_outer, refine_inner;
static cc_refine_precision refine_precision = CC_REFINE_PRECISION_AUTO;

/* One algorithm run: frames/flows where `dev` says. */
typedef struct {
  cc_blockmatch *bm;
  cc_refine *rf;
  cc_image grid, dense;       /* blockmatch outputs */
  cc_image init, out;         /* refine field in / out */
} bench_job;

static cc_status
job_run (bench_job *j, const cc_image *a, const cc_image *b)
{
  if (j->bm)
    return cc_blockmatch_compute (j->bm, NULL, a, b, &j->grid, NULL, &j->dense);
  return cc_refine_compute (j->rf, NULL, a, b, &j->init, &j->out);
}

static cc_status
job_alloc (bench_job *j, cc_context *ctx, cc_location loc, int w, int h,
    const cc_image *host_init)
{
  if (j->bm) {
    int gw, gh;
    cc_blockmatch_grid_size (j->bm, &gw, &gh);
    TRY (cc_image_alloc (ctx, gw, gh, CC_FORMAT_F32C2, loc, &j->grid));
    return cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &j->dense);
  }
  TRY (cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &j->init));
  TRY (cc_image_copy (ctx, NULL, host_init, &j->init));
  return cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &j->out);
}

static void
job_free_images (bench_job *j, cc_context *ctx)
{
  cc_image *all[] = { &j->grid, &j->dense, &j->init, &j->out };
  for (int i = 0; i < 4; i++)
    if (all[i]->planes[0]) {
      cc_image_free (ctx, all[i]);
      memset (all[i], 0, sizeof *all[i]);
    }
}

static int
bench_one (cc_context *ctx, const char *algorithm, int w, int h, int repeat)
{
  cc_image a, b, truth;
  if (cv_synth_clip_frame (4, w, h, &a, &truth) || cv_synth_clip_frame (5, w, h, &b, NULL))
    return cv_fail ("synthetic frames");
  /* refinement start: truth plus a smooth 0.5 px perturbation */
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float *f = (float *) truth.planes[0] + 2 * ((size_t) y * w + x);
      f[0] += 0.5f * sinf (0.05f * x) * cosf (0.07f * y);
      f[1] += 0.5f * cosf (0.04f * x) * sinf (0.06f * y);
    }
  bench_job j;
  memset (&j, 0, sizeof j);
  cc_blockmatch_params bp;
  cc_refine_params rp;
  cc_blockmatch_params_default (&bp);
  cc_refine_params_default (&rp);
  if (refine_levels > 0)
    rp.levels = refine_levels;
  if (refine_outer > 0)
    rp.outer_iterations = refine_outer;
  if (refine_inner > 0)
    rp.inner_iterations = refine_inner;
  cc_refine_tuning rt = { .precision = refine_precision };
  bool is_bm = !strcmp (algorithm, "blockmatch");
  if (is_bm ? cc_blockmatch_create (ctx, w, h, &bp, &j.bm)
      : cc_refine_create (ctx, w, h, &rp, &j.rf) || cc_refine_set_tuning (j.rf, &rt))
    return cv_fail ("create");
  bool cuda = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  cc_location dev = cuda ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  double kernel[MAX_REPEAT], e2e[MAX_REPEAT];

  /* kernel time: everything where the backend computes */
  cc_image da = a, db = b;
  if (cuda && (cc_image_alloc (ctx, w, h, a.format, dev, &da) || cc_image_copy (ctx, NULL, &a, &da)
          || cc_image_alloc (ctx, w, h, b.format, dev, &db) || cc_image_copy (ctx, NULL, &b, &db)))
    return cv_fail ("upload");
  if (job_alloc (&j, ctx, dev, w, h, &truth))
    return cv_fail ("alloc");
  cc_timer *timer;
  if (cc_timer_create (ctx, &timer))
    return cv_fail ("timer");
  for (int i = 0; i < 3; i++)   /* warm-up */
    if (job_run (&j, &da, &db))
      return cv_fail (algorithm);
  for (int i = 0; i < repeat; i++) {
    float ms;
    if (cc_timer_start (timer, NULL) || job_run (&j, &da, &db)
        || cv_timer_stop_ms (timer, &ms))
      return cv_fail (algorithm);
    kernel[i] = ms;
  }
  job_free_images (&j, ctx);
  if (cuda) {
    cc_image_free (ctx, &da);
    cc_image_free (ctx, &db);
  }
  /* end to end: host frames in, host results out (the call waits) */
  if (job_alloc (&j, ctx, CC_LOCATION_HOST, w, h, &truth))
    return cv_fail ("alloc");
  if (job_run (&j, &a, &b))
    return cv_fail (algorithm);
  for (int i = 0; i < repeat; i++) {
    double t0 = cc_now_ms ();
    if (job_run (&j, &a, &b))
      return cv_fail (algorithm);
    e2e[i] = cc_now_ms () - t0;
  }
  job_free_images (&j, ctx);
  printf ("{\"algorithm\":\"%s\",\"width\":%d,\"height\":%d,\"backend\":\"%s\","
      "\"threads\":%d,\"kernel_ms\":%.4f,\"end_to_end_ms\":%.4f,", algorithm, w, h,
      cc_backend_name (cc_context_backend (ctx)),
      cc_context_backend (ctx) == CC_BACKEND_CPU ? cc_context_cpu_threads (ctx) : 0,
      cv_median (kernel, repeat), cv_median (e2e, repeat));
  if (is_bm)
    printf ("\"block_size\":%d,\"search_radius\":%d,\"levels\":%d,\"metric\":\"ncc\"}\n",
        bp.block_size, bp.search_radius, bp.levels);
  else
    printf ("\"levels\":%d,\"outer_iterations\":%d,\"inner_iterations\":%d,"
        "\"precision\":\"%s\"}\n", rp.levels, rp.outer_iterations, rp.inner_iterations,
        rt.precision == CC_REFINE_PRECISION_FP32 ? "fp32" : "auto");
  fflush (stdout);
  cc_timer_destroy (timer);
  cc_blockmatch_destroy (j.bm);
  cc_refine_destroy (j.rf);
  cv_image_free (&a);
  cv_image_free (&b);
  cv_image_free (&truth);
  return 0;
}

static const char help[] =
"usage: blockmatch-refine-bench [--backend cuda|cpu] [--size WxH]... [--repeat N]\n"
"         [--algorithm blockmatch|refine] [--levels N] [--outer N] [--inner N]\n"
"         [--precision auto|fp32] [--threads N]\n"
"Times block matching (16x16 blocks, radius 16, 4 levels) and the variational\n"
"refinement on the synthetic clip; one JSON line per algorithm and size: kernel_ms\n"
"(frames on the device, median after warm-up) and end_to_end_ms (host in and out).\n"
"  --backend cuda|cpu        the backend (default cuda)\n"
"  --size WxH                a size to time (16..8192 a side; up to 8 times; default\n"
"                            640x480, 1920x1080 and 3840x2160)\n"
"  --repeat N                timed runs, the median kept (default 20)\n"
"  --algorithm NAME          blockmatch or refine only (default both)\n"
"  --levels N                refinement pyramid levels (1..16; default the library's)\n"
"  --outer N                 refinement outer iterations (1..10000; default 5)\n"
"  --inner N                 refinement inner iterations (1..10000; default 30)\n"
"  --precision auto|fp32     CUDA sweeps: fp16 where the weights allow (auto, the\n"
"                            default) or always fp32\n"
"  --threads N               CPU threads (0..256; 0, the default: all cores)\n"
"  -h, --help                this text\n"
"  --version                 the program's version\n";

int
main (int argc, char **argv)
{
  cc_backend backend = CC_BACKEND_CUDA;
  int sizes[8][2], nsizes = 0, repeat = 20, threads = 0;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (cv_version_or_help (argv[i], help))
      return 0;
    else if (!strcmp (argv[i], "--backend") && v) {
      if (!strcmp (v, "cpu") || !strcmp (v, "cuda"))
        backend = !strcmp (v, "cpu") ? CC_BACKEND_CPU : CC_BACKEND_CUDA;
      else
        ok = cv_option_error ("--backend", v, "one of cuda, cpu");
      i++;
    } else if (!strcmp (argv[i], "--size") && v && nsizes < 8) {
      char extra;
      if (sscanf (v, "%dx%d%c", &sizes[nsizes][0], &sizes[nsizes][1], &extra) != 2
          || sizes[nsizes][0] < 16 || sizes[nsizes][1] < 16 || sizes[nsizes][0] > 8192
          || sizes[nsizes][1] > 8192)
        ok = cv_option_error ("--size", v, "a size WxH, 16..8192 each");
      nsizes++;
      i++;
    } else if (!strcmp (argv[i], "--repeat") && v) {
      ok = cv_parse_int ("--repeat", v, 1, MAX_REPEAT, &repeat);
      i++;
    } else if (!strcmp (argv[i], "--algorithm") && v) {
      only = v;
      if (strcmp (v, "blockmatch") && strcmp (v, "refine"))
        ok = cv_option_error ("--algorithm", v, "one of blockmatch, refine");
      i++;
    } else if (!strcmp (argv[i], "--levels") && v) {
      ok = cv_parse_int ("--levels", v, 1, 16, &refine_levels);
      i++;
    } else if (!strcmp (argv[i], "--outer") && v) {
      ok = cv_parse_int ("--outer", v, 1, 10000, &refine_outer);
      i++;
    } else if (!strcmp (argv[i], "--inner") && v) {
      ok = cv_parse_int ("--inner", v, 1, 10000, &refine_inner);
      i++;
    } else if (!strcmp (argv[i], "--precision") && v
        && (!strcmp (v, "auto") || !strcmp (v, "fp32"))) {
      refine_precision = !strcmp (v, "fp32") ? CC_REFINE_PRECISION_FP32
          : CC_REFINE_PRECISION_AUTO;
      i++;
    } else if (!strcmp (argv[i], "--threads") && v) {
      ok = cv_parse_int ("--threads", v, 0, CC_CONTEXT_THREADS_MAX, &threads);
      i++;
    } else {
      fprintf (stderr, "usage: blockmatch-refine-bench [--backend cuda|cpu] [--size WxH]... [--repeat N]"
          " [--algorithm blockmatch|refine] [--levels N] [--outer N] [--inner N]"
          " [--precision auto|fp32] [--threads N]\n");
      return 2;
    }
    if (!ok)
      return 2;
  }
  if (nsizes == 0) {
    const int def[3][2] = { { 640, 480 }, { 1920, 1080 }, { 3840, 2160 } };
    memcpy (sizes, def, sizeof def);
    nsizes = 3;
  }
  cc_context *ctx;
  if (cv_context_new (backend, CC_DEVICE_AUTO, threads, &ctx))
    return cv_fail ("context");
  const char *algorithms[] = { "blockmatch", "refine" };
  int rc = 0;
  for (int s = 0; s < nsizes && !rc; s++)
    for (int k = 0; k < 2 && !rc; k++)
      if (!only || !strcmp (only, algorithms[k]))
        rc = bench_one (ctx, algorithms[k], sizes[s][0], sizes[s][1], repeat);
  cc_context_destroy (ctx);
  return rc;
}
