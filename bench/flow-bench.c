/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* flow-bench: timings of dense LK (cc_flow_lk_compute_video: pyramid of the new frame + flow)
 * and of cc_flow_vis_draw (COLOR), one JSON object per line.
 *
 *   flow-bench [--fb-check | --no-fb-check] [--runs N] [--no-cpu] [--threads N]
 *   flow-bench --epic [--size WxH] [--scene pair|ball] [--preset P] [--cell N] [--k N]
 *              [--inner N] [--outer N] [--robust PX] [--omega W] [--kappa K]
 *              [--presmooth S] [--delta D] [--runs N] [--no-cpu] [--threads N]
 *   flow-bench --version
 *
 * --epic: the EpicFlow method (cc_epic, default parameters) instead, on a generated
 * large-motion pair (cv_pair_make, motions up to 100 px, procedural textures) at
 * 1024x436 and 1920x1080 (or --size alone) on CUDA, 1024x436 on the CPU (3 runs at
 * most). Stage split (CUDA events, stand-alone cc_match / cc_interp / cc_refine handles
 * run in sequence): match_ms, interp_ms, refine_ms; kernel_ms: events around
 * cc_epic_compute with the confidence; video_ms: the same through
 * cc_epic_compute_video on alternating frames (each call reuses the last next frame);
 * end_to_end_ms: wall clock around cc_epic_compute + cc_context_synchronize.
 * --scene ball: both frames a white ball on black (the repeated frame of
 * tools/gpu/pipeline-fps.sh), the case where few seeds must reach the whole frame.
 *
 * Sizes 640x480, 1920x1080, 3840x2160 on CUDA (when a device exists); the CPU
 * backend at 640x480 only (fewer runs). LK: 5 levels, 3 iterations, 9x9 window.
 * Frames are synthetic clip frames (RGBX8), uploaded once; outputs (flow F32C2,
 * confidence F32) live where the backend computes.
 *  kernel_ms:     median over runs of a cc_timer (CUDA events) around one call
 *                 (CUDA: events on the context stream);
 *  end_to_end_ms: median of the wall clock around call + cc_context_synchronize.
 * Each size also gets an LK line with the forward-backward check on ("fb_check":true;
 * --fb-check, the default, asks for it; --no-fb-check leaves it out).
 * --threads N: CPU threads of the CPU runs (cc_context_set_threads; 0, the default,
 * = all cores); CPU lines print the count they ran on ("threads").
 * Exit status 1 when nothing ran (--no-cpu without a CUDA device). */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include "cv_synth.h"
#include "cv_pairs.h"
#include <cudacore/cc_epic.h>
#include <cudacore/cc_flow_lk.h>
#include <cudacore/cc_flow_vis.h>
#include <cudacore/cc_timer.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUNS 1000

static int cpu_threads = 0;   /* --threads */

typedef struct {
  cc_context *ctx;
  cc_timer *timer;
  cc_image frames[2];   /* where the backend computes */
  cc_image flow, conf;
  int w, h;
} bench_set;

static void
set_free (bench_set *s)
{
  for (int i = 0; i < 2; i++)
    cc_image_free (s->ctx, &s->frames[i]);
  cc_image_free (s->ctx, &s->flow);
  cc_image_free (s->ctx, &s->conf);
}

static int
set_init (bench_set *s, cc_context *ctx, int w, int h)
{
  memset (s, 0, sizeof *s);
  s->ctx = ctx;
  s->w = w;
  s->h = h;
  cc_location loc = cc_context_backend (ctx) == CC_BACKEND_CUDA
      ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  for (int i = 0; i < 2; i++) {
    cc_image host;
    if (cv_synth_clip_frame (3 + i, w, h, &host, NULL) != CC_SUCCESS)
      return cv_fail ("synthetic frame");
    if (cc_image_alloc (ctx, w, h, host.format, loc, &s->frames[i]) != CC_SUCCESS
        || cc_image_copy (ctx, NULL, &host, &s->frames[i]) != CC_SUCCESS)
      return cv_fail ("upload");
    cv_image_free (&host);
  }
  if (cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &s->flow) != CC_SUCCESS
      || cc_image_alloc (ctx, w, h, CC_FORMAT_F32, loc, &s->conf) != CC_SUCCESS)
    return cv_fail ("output alloc");
  if (cc_context_synchronize (ctx) != CC_SUCCESS)
    return cv_fail ("synchronize");
  return 0;
}

/* "threads" of a JSON line: the CPU threads of a CPU run, 0 on CUDA. */
static int
bench_threads (cc_context *ctx)
{
  return cc_context_backend (ctx) == CC_BACKEND_CPU ? cc_context_cpu_threads (ctx) : 0;
}

static int
bench_lk (bench_set *s, bool fb, int warmup, int runs)
{
  cc_flow_lk_params p;
  cc_flow_lk_params_default (&p);
  p.pyramid_levels = 5;
  p.iterations = 3;
  p.window_size = 9;
  p.fb_check = fb;
  cc_flow_lk *lk;
  if (cc_flow_lk_create (s->ctx, s->w, s->h, &p, &lk) != CC_SUCCESS)
    return cv_fail ("cc_flow_lk_create");
  static double kt[MAX_RUNS], et[MAX_RUNS];
  int k = 0;
  for (int i = 0; i < warmup; i++)
    if (cc_flow_lk_compute_video (lk, NULL, &s->frames[k++ & 1], NULL, &s->flow, &s->conf,
            NULL) != CC_SUCCESS)
      return cv_fail ("cc_flow_lk_compute_video");
  if (cc_context_synchronize (s->ctx) != CC_SUCCESS)
    return cv_fail ("synchronize");
  for (int i = 0; i < runs; i++) {
    float ms;
    if (cc_timer_start (s->timer, NULL) != CC_SUCCESS)
      return cv_fail ("timer start");
    if (cc_flow_lk_compute_video (lk, NULL, &s->frames[k++ & 1], NULL, &s->flow, &s->conf,
            NULL) != CC_SUCCESS)
      return cv_fail ("cc_flow_lk_compute_video");
    if (cv_timer_stop_ms (s->timer, &ms) != CC_SUCCESS)
      return cv_fail ("timer stop");
    kt[i] = ms;
  }
  for (int i = 0; i < runs; i++) {
    double t0 = cc_now_ms ();
    if (cc_flow_lk_compute_video (lk, NULL, &s->frames[k++ & 1], NULL, &s->flow, &s->conf,
            NULL) != CC_SUCCESS
        || cc_context_synchronize (s->ctx) != CC_SUCCESS)
      return cv_fail ("cc_flow_lk_compute_video");
    et[i] = cc_now_ms () - t0;
  }
  printf ("{\"algorithm\":\"flow_lk\",\"width\":%d,\"height\":%d,\"backend\":\"%s\","
      "\"levels\":%d,\"iterations\":%d,\"window\":%d,\"fb_check\":%s,\"confidence\":true,"
      "\"runs\":%d,\"threads\":%d,\"kernel_ms\":%.4f,\"end_to_end_ms\":%.4f}\n", s->w, s->h,
      cc_backend_name (cc_context_backend (s->ctx)), p.pyramid_levels, p.iterations,
      p.window_size, fb ? "true" : "false", runs, bench_threads (s->ctx), cv_median (kt, runs),
      cv_median (et, runs));
  fflush (stdout);
  cc_flow_lk_destroy (lk);
  return 0;
}

static int
bench_vis (bench_set *s, int warmup, int runs)
{
  cc_flow_vis_params vp;
  cc_flow_vis_params_default (&vp);
  vp.mode = CC_FLOW_VIS_COLOR;
  cc_image *frame = &s->frames[0];   /* drawn over: the LK runs are done */
  static double kt[MAX_RUNS], et[MAX_RUNS];
  for (int i = 0; i < warmup; i++)
    if (cc_flow_vis_draw (s->ctx, NULL, &s->flow, NULL, &vp, frame) != CC_SUCCESS)
      return cv_fail ("cc_flow_vis_draw");
  if (cc_context_synchronize (s->ctx) != CC_SUCCESS)
    return cv_fail ("synchronize");
  for (int i = 0; i < runs; i++) {
    float ms;
    if (cc_timer_start (s->timer, NULL) != CC_SUCCESS
        || cc_flow_vis_draw (s->ctx, NULL, &s->flow, NULL, &vp, frame) != CC_SUCCESS
        || cv_timer_stop_ms (s->timer, &ms) != CC_SUCCESS)
      return cv_fail ("cc_flow_vis_draw");
    kt[i] = ms;
  }
  for (int i = 0; i < runs; i++) {
    double t0 = cc_now_ms ();
    if (cc_flow_vis_draw (s->ctx, NULL, &s->flow, NULL, &vp, frame) != CC_SUCCESS
        || cc_context_synchronize (s->ctx) != CC_SUCCESS)
      return cv_fail ("cc_flow_vis_draw");
    et[i] = cc_now_ms () - t0;
  }
  printf ("{\"algorithm\":\"flow_vis\",\"mode\":\"color\",\"width\":%d,\"height\":%d,"
      "\"backend\":\"%s\",\"format\":\"%s\",\"runs\":%d,\"threads\":%d,\"kernel_ms\":%.4f,"
      "\"end_to_end_ms\":%.4f}\n", s->w, s->h, cc_backend_name (cc_context_backend (s->ctx)),
      cc_format_name (frame->format), runs, bench_threads (s->ctx), cv_median (kt, runs),
      cv_median (et, runs));
  fflush (stdout);
  return 0;
}

/* One timed call: returns its CUDA-event time. */
#define TIMED(timer, call, ms_out) \
  (cc_timer_start (timer, NULL) == CC_SUCCESS && (call) == CC_SUCCESS \
      && cv_timer_stop_ms ((timer), &(ms_out)) == CC_SUCCESS)

/* --cell / --k / --inner / --outer / --robust / --omega / --kappa / --presmooth /
 * --delta: settings instead of the preset's, to compare them in one run */
static cv_epic_overrides epic_set = CV_EPIC_OVERRIDES_NONE;
static int epic_w, epic_h;
/* --preset: the parameter set the options above change (cc_epic_params_preset) */
static cc_epic_preset epic_preset = CC_EPIC_PRESET_FAST;
/* --scene ball: both frames one ball on black instead of the generated pair */
static bool epic_ball;

/* The first frame of `videotestsrc pattern=ball` as near as it matters here: a white
 * disc of radius 20 px at the centre of a black frame, its rim anti-aliased. The
 * repeated frame of tools/gpu/pipeline-fps.sh: no texture but the ball, so the
 * interpolation's seeds sit on the ball alone. */
static void
draw_ball (cc_image *im)
{
  const float cx = im->width / 2.0f, cy = im->height / 2.0f, radius = 20.0f;
  for (int y = 0; y < im->height; y++) {
    uint8_t *row = (uint8_t *) im->planes[0] + (size_t) y * im->pitch[0];
    for (int x = 0; x < im->width; x++) {
      float d = hypotf (x + 0.5f - cx, y + 0.5f - cy);
      float a = d <= radius - 0.5f ? 1.0f : d >= radius + 0.5f ? 0.0f : radius + 0.5f - d;
      uint8_t v = (uint8_t) lrintf (255.0f * a);
      row[4 * x] = row[4 * x + 1] = row[4 * x + 2] = v;
      row[4 * x + 3] = 255;
    }
  }
}

static int
bench_epic (cc_backend backend, int w, int h, int warmup, int runs)
{
  cc_context *ctx;
  if (cv_context_new (backend, CC_DEVICE_AUTO, cpu_threads, &ctx) != CC_SUCCESS)
    return cv_fail ("cc_context_create");
  int rc = 0;
  cc_location loc = backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  cv_pair_params gp = { w, h, 100.0f, 1 };
  cc_image host[2], truth, occ, frames[2], flow, conf, tmp;
  cc_epic_params p;
  cc_epic_params_preset (&p, epic_preset);
  cv_epic_overrides_apply (&epic_set, &p);
  cc_epic *epic = NULL;
  cc_match *match = NULL;
  cc_interp *interp = NULL;
  cc_refine *refine = NULL;
  cc_timer *timer = NULL;
  if (cv_pair_make (&gp, NULL, 0, &host[0], &host[1], &truth, &occ) != CC_SUCCESS)
    return cv_fail ("generated pair");
  if (epic_ball) {
    draw_ball (&host[0]);
    draw_ball (&host[1]);
  }
  for (int i = 0; i < 2 && !rc; i++)
    if (cc_image_alloc (ctx, w, h, host[i].format, loc, &frames[i]) != CC_SUCCESS
        || cc_image_copy (ctx, NULL, &host[i], &frames[i]) != CC_SUCCESS)
      rc = cv_fail ("upload");
  if (!rc && (cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &flow) != CC_SUCCESS
          || cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &tmp) != CC_SUCCESS
          || cc_image_alloc (ctx, w, h, CC_FORMAT_F32, loc, &conf) != CC_SUCCESS))
    rc = cv_fail ("output alloc");
  if (!rc && (cc_epic_create (ctx, w, h, &p, &epic) != CC_SUCCESS
          || cc_match_create (ctx, w, h, &p.match, &match) != CC_SUCCESS
          || cc_interp_create (ctx, w, h, &p.interp, &interp) != CC_SUCCESS
          || cc_refine_create (ctx, w, h, &p.refine_params, &refine) != CC_SUCCESS
          || cc_timer_create (ctx, &timer) != CC_SUCCESS))
    rc = cv_fail ("create");
  static double mt[MAX_RUNS], it[MAX_RUNS], rt[MAX_RUNS], kt[MAX_RUNS], et[MAX_RUNS],
      vt[MAX_RUNS];
  for (int i = 0; i < warmup && !rc; i++)
    if (cc_epic_compute (epic, NULL, &frames[0], &frames[1], &flow, &conf) != CC_SUCCESS
        || cc_context_synchronize (ctx) != CC_SUCCESS)
      rc = cv_fail ("cc_epic_compute");
  for (int i = 0; i < runs && !rc; i++) {
    float m, n, r, k;
    if (!TIMED (timer, cc_match_compute (match, NULL, &frames[0], &frames[1]), m)
        || !TIMED (timer, cc_interp_compute (interp, NULL, &frames[0], cc_match_matches (match),
                cc_match_capacity (match), &tmp), n)
        || !TIMED (timer, cc_refine_compute (refine, NULL, &frames[0], &frames[1], &tmp, &tmp), r)
        || !TIMED (timer, cc_epic_compute (epic, NULL, &frames[0], &frames[1], &flow, &conf), k))
      rc = cv_fail ("timed stages");
    mt[i] = m;
    it[i] = n;
    rt[i] = r;
    kt[i] = k;
  }
  /* video mode: the pair's frames alternate, so each call's prev is the last call's
   * next (cc_epic_compute_video reuses its pyramid); the first call is not timed */
  for (int i = 0; i <= runs && !rc; i++) {
    float v;
    const cc_image *a = &frames[i & 1], *b = &frames[(i + 1) & 1];
    if (!TIMED (timer, cc_epic_compute_video (epic, NULL, a, b, &flow, &conf), v))
      rc = cv_fail ("cc_epic_compute_video");
    if (i > 0)
      vt[i - 1] = v;
  }
  if (!rc && cc_epic_reset (epic) != CC_SUCCESS)
    rc = cv_fail ("cc_epic_reset");
  for (int i = 0; i < runs && !rc; i++) {
    double t0 = cc_now_ms ();
    if (cc_epic_compute (epic, NULL, &frames[0], &frames[1], &flow, &conf) != CC_SUCCESS
        || cc_context_synchronize (ctx) != CC_SUCCESS)
      rc = cv_fail ("cc_epic_compute");
    et[i] = cc_now_ms () - t0;
  }
  if (!rc) {
    printf ("{\"algorithm\":\"epic\",\"width\":%d,\"height\":%d,\"backend\":\"%s\","
        "\"scene\":\"%s\",\"preset\":\"%s\",\"refine_levels\":%d,\"outer\":%d,"
        "\"match_step\":%d,\"cell\":%d,\"k\":%d,\"inner\":%d,\"omega\":%g,\"kappa\":%g,\"presmooth\":%g,"
        "\"color_weight\":%g,\"robust\":%g,\"refine\":true,\"confidence\":true,\"runs\":%d,"
        "\"threads\":%d,\"match_ms\":%.4f,\"interp_ms\":%.4f,\"refine_ms\":%.4f,"
        "\"kernel_ms\":%.4f,\"video_ms\":%.4f,\"end_to_end_ms\":%.4f}\n", w, h,
        cc_backend_name (backend), epic_ball ? "ball" : "pair", cc_epic_preset_name (epic_preset),
        p.refine_params.levels, p.refine_params.outer_iterations,
        p.match.step, p.interp.cell, p.interp.k, p.refine_params.inner_iterations,
        p.refine_params.omega, p.refine_params.smoothness_kappa, p.refine_params.presmooth_sigma,
        p.refine_params.color_weight, p.interp.robust, runs, bench_threads (ctx), cv_median (mt, runs),
        cv_median (it, runs), cv_median (rt, runs), cv_median (kt, runs), cv_median (vt, runs),
        cv_median (et, runs));
    fflush (stdout);
  }
  cc_timer_destroy (timer);
  cc_refine_destroy (refine);
  cc_interp_destroy (interp);
  cc_match_destroy (match);
  cc_epic_destroy (epic);
  cc_image_free (ctx, &frames[0]);
  cc_image_free (ctx, &frames[1]);
  cc_image_free (ctx, &flow);
  cc_image_free (ctx, &tmp);
  cc_image_free (ctx, &conf);
  for (int i = 0; i < 2; i++)
    cv_image_free (&host[i]);
  cv_image_free (&truth);
  cv_image_free (&occ);
  cc_context_destroy (ctx);
  return rc;
}

static int
bench_size (cc_backend backend, int w, int h, bool fb, int warmup, int runs)
{
  cc_context *ctx;
  if (cv_context_new (backend, CC_DEVICE_AUTO, cpu_threads, &ctx) != CC_SUCCESS)
    return cv_fail ("cc_context_create");
  bench_set s;
  int rc = set_init (&s, ctx, w, h);
  if (!rc && cc_timer_create (ctx, &s.timer) != CC_SUCCESS)
    rc = cv_fail ("cc_timer_create");
  if (!rc)
    rc = bench_lk (&s, false, warmup, runs);
  if (!rc && fb)
    rc = bench_lk (&s, true, warmup, runs);
  if (!rc)
    rc = bench_vis (&s, warmup, runs);
  cc_timer_destroy (s.timer);
  set_free (&s);
  cc_context_destroy (ctx);
  return rc;
}

static const char help[] =
"usage: flow-bench [--fb-check | --no-fb-check] [--runs N] [--no-cpu] [--threads N]\n"
"       flow-bench --epic [--size WxH] [--scene S] [--preset P] [--cell N] [--k N] [--inner N]\n"
"                  [--outer N] [--robust PX] [--omega W] [--kappa K] [--presmooth S]\n"
"                  [--delta D] [--runs N] [--no-cpu] [--threads N]\n"
"Times dense Lucas-Kanade flow (5 levels, 3 iterations, 9x9 window) and its colour\n"
"drawing on the synthetic clip: 640x480, 1920x1080, 3840x2160 on CUDA when a device\n"
"exists, 640x480 on the CPU; one JSON line each: kernel_ms (CUDA events, median) and\n"
"end_to_end_ms (wall clock with the synchronisation, median).\n"
"  --fb-check      add an LK line with the forward-backward check (the default)\n"
"  --no-fb-check   leave that line out\n"
"  --epic          EpicFlow instead, on a generated large-motion pair at 1024x436 and\n"
"                  1920x1080 (CUDA) and 1024x436 (CPU, 3 runs at most), with the\n"
"                  stages' split (match_ms, interp_ms, refine_ms)\n"
"  --size WxH      --epic: that size alone (CUDA; the CPU line stays 1024x436)\n"
"  --scene S       --epic: pair (the default) or ball: both frames a white ball on black,\n"
"                  the repeated frame of tools/gpu/pipeline-fps.sh (few seeds, far apart)\n"
"  --cell N        --epic: the interpolation's cell size (2..8; default the library's)\n"
"  --k N           --epic: the neighbours each pixel's interpolation uses (1..128;\n"
"                  default the library's)\n"
"  --inner N       --epic: refinement inner iterations (1..1000; default the library's)\n"
"  --outer N       --epic: refinement outer iterations (1..50; default the library's)\n"
"  --robust PX     --epic: the interpolation's robust mean scale (0: off; default the\n"
"                  library's)\n"
"  --omega W       --epic: the refinement's SOR factor (0.01..1.99)\n"
"  --kappa K       --epic: its local smoothness exp(-K |grad I|) (0..100; 0 constant)\n"
"  --presmooth S   --epic: its presmoothing of the full-resolution luma (0..3 px)\n"
"  --delta D       --epic: its colour (brightness constancy) weight (0..1000)\n"
"  --preset P      --epic: fast (the default), balanced or accurate (cc_epic_params_preset),\n"
"                  which the options above then change (absent: the preset's)\n"
"  --runs N        timed runs, the median kept (1..%d; default 50; the CPU fewer)\n"
"  --no-cpu        CUDA only\n"
"  --threads N     CPU threads (0..256; 0, the default: all cores)\n"
"  -h, --help      this text\n"
"  --version       the program's version\n";

int
main (int argc, char **argv)
{
  bool fb = true, cpu = true, epic = false;
  int runs = 50;
  for (int i = 1; i < argc; i++) {
    int exit_status;
    if (cv_bench_option (argc, argv, &i, help, MAX_RUNS, &cpu, &runs, &exit_status)) {
      if (exit_status >= 0)
        return exit_status;
    } else if (!strcmp (argv[i], "--fb-check"))
      fb = true;
    else if (!strcmp (argv[i], "--no-fb-check"))
      fb = false;
    else if (!strcmp (argv[i], "--epic"))
      epic = true;
    else if (!strcmp (argv[i], "--cell") && i + 1 < argc) {
      if (!cv_parse_int ("--cell", argv[++i], 2, 8, &epic_set.cell))
        return 2;
    } else if (!strcmp (argv[i], "--k") && i + 1 < argc) {
      if (!cv_parse_int ("--k", argv[++i], 1, 128, &epic_set.k))
        return 2;
    } else if (!strcmp (argv[i], "--size") && i + 1 < argc) {
      if (sscanf (argv[++i], "%dx%d", &epic_w, &epic_h) != 2 || epic_w < 16 || epic_h < 16
          || epic_w > 8192 || epic_h > 8192) {
        fprintf (stderr, "flow-bench: --size %s: want WxH, 16..8192 each\n", argv[i]);
        return 2;
      }
    } else if (!strcmp (argv[i], "--preset") && i + 1 < argc) {
      if (!cv_parse_epic_preset ("--preset", argv[++i], &epic_preset))
        return 2;
    } else if (!strcmp (argv[i], "--scene") && i + 1 < argc) {
      i++;
      if (!strcmp (argv[i], "ball") || !strcmp (argv[i], "pair"))
        epic_ball = !strcmp (argv[i], "ball");
      else {
        fprintf (stderr, "flow-bench: --scene %s: want pair or ball\n", argv[i]);
        return 2;
      }
    } else if (!strcmp (argv[i], "--inner") && i + 1 < argc) {
      if (!cv_parse_int ("--inner", argv[++i], 1, 1000, &epic_set.inner))
        return 2;
    } else if (!strcmp (argv[i], "--outer") && i + 1 < argc) {
      if (!cv_parse_int ("--outer", argv[++i], 1, 50, &epic_set.outer))
        return 2;
    } else if (!strcmp (argv[i], "--robust") && i + 1 < argc) {
      if (!cv_parse_float ("--robust", argv[++i], 0.0, 1e4, &epic_set.robust))
        return 2;
    } else if (!strcmp (argv[i], "--omega") && i + 1 < argc) {
      if (!cv_parse_float ("--omega", argv[++i], 0.01, 1.99, &epic_set.omega))
        return 2;
    } else if (!strcmp (argv[i], "--kappa") && i + 1 < argc) {
      if (!cv_parse_float ("--kappa", argv[++i], 0.0, 100.0, &epic_set.kappa))
        return 2;
    } else if (!strcmp (argv[i], "--presmooth") && i + 1 < argc) {
      if (!cv_parse_float ("--presmooth", argv[++i], 0.0, 3.0, &epic_set.presmooth))
        return 2;
    } else if (!strcmp (argv[i], "--delta") && i + 1 < argc) {
      if (!cv_parse_float ("--delta", argv[++i], 0.0, 1000.0, &epic_set.delta))
        return 2;
    } else if (!strcmp (argv[i], "--threads") && i + 1 < argc) {
      if (!cv_parse_int ("--threads", argv[++i], 0, CC_CONTEXT_THREADS_MAX, &cpu_threads))
        return 2;
    } else {
      fprintf (stderr, "usage: flow-bench [--fb-check | --no-fb-check | --epic [--size WxH] "
          "[--preset P] [--scene S] [--cell N] [--k N] [--inner N] [--outer N] [--robust PX] "
          "[--omega W] [--kappa K] [--presmooth S] [--delta D]] [--runs N] [--no-cpu] "
          "[--threads N]\n");
      return 2;
    }
  }
  static const int sizes[][2] = { { 640, 480 }, { 1920, 1080 }, { 3840, 2160 } };
  int rc = 0;
  if (epic) {
    if (cc_cuda_device_count () > 0 && epic_w > 0)
      rc = bench_epic (CC_BACKEND_CUDA, epic_w, epic_h, 3, runs);
    else if (cc_cuda_device_count () > 0) {
      rc = bench_epic (CC_BACKEND_CUDA, 1024, 436, 3, runs);
      if (!rc)
        rc = bench_epic (CC_BACKEND_CUDA, 1920, 1080, 3, runs);
    } else if (!cpu) {
      fprintf (stderr, "flow-bench: no CUDA device and --no-cpu: nothing to run\n");
      return 1;
    }
    if (cpu && !rc)
      rc = bench_epic (CC_BACKEND_CPU, 1024, 436, 1, runs < 3 ? runs : 3);
    return rc;
  }
  if (cc_cuda_device_count () > 0) {
    for (int i = 0; i < 3 && !rc; i++)
      rc = bench_size (CC_BACKEND_CUDA, sizes[i][0], sizes[i][1], fb, 5, runs);
  } else if (cpu) {
    fprintf (stderr, "flow-bench: no CUDA device, CPU only\n");
  } else {
    fprintf (stderr, "flow-bench: no CUDA device and --no-cpu: nothing to run\n");
    return 1;
  }
  if (cpu && !rc)
    rc = bench_size (CC_BACKEND_CPU, 640, 480, fb, 1, runs < 3 ? runs : 3);
  return rc;
}
