/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* flow-bench: timings of dense LK (cc_flow_lk_push: pyramid of the new frame + flow)
 * and of cc_flow_visualize (COLOR), one JSON object per line.
 *
 *   flow-bench [--fb-check | --no-fb-check] [--runs N] [--no-cpu] [--threads N]
 *   flow-bench --version
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
#include <cudacore/cc_flow.h>
#include <cudacore/cc_timer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUNS 1000

static int cpu_threads = 0;   /* --threads */

static int
fail (const char *what)
{
  fprintf (stderr, "flow-bench: %s: %s\n", what, cc_last_error ());
  return 1;
}

/* Stops a timer and reads its time (waits for the stop point). */
static cc_status
stop_timer (cc_timer *t, float *ms)
{
  cc_status st = cc_timer_stop (t, NULL);
  return st != CC_SUCCESS ? st : cc_timer_elapsed_ms (t, ms);
}

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
      return fail ("synthetic frame");
    if (cc_image_alloc (ctx, w, h, host.format, loc, &s->frames[i]) != CC_SUCCESS
        || cc_image_copy (ctx, NULL, &host, &s->frames[i]) != CC_SUCCESS)
      return fail ("upload");
    cv_image_free (&host);
  }
  if (cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &s->flow) != CC_SUCCESS
      || cc_image_alloc (ctx, w, h, CC_FORMAT_F32, loc, &s->conf) != CC_SUCCESS)
    return fail ("output alloc");
  if (cc_context_synchronize (ctx) != CC_SUCCESS)
    return fail ("synchronize");
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
    return fail ("cc_flow_lk_create");
  static double kt[MAX_RUNS], et[MAX_RUNS];
  int k = 0;
  for (int i = 0; i < warmup; i++)
    if (cc_flow_lk_push (lk, NULL, &s->frames[k++ & 1], NULL, &s->flow, &s->conf, NULL) != CC_SUCCESS)
      return fail ("cc_flow_lk_push");
  if (cc_context_synchronize (s->ctx) != CC_SUCCESS)
    return fail ("synchronize");
  for (int i = 0; i < runs; i++) {
    float ms;
    if (cc_timer_start (s->timer, NULL) != CC_SUCCESS)
      return fail ("timer start");
    if (cc_flow_lk_push (lk, NULL, &s->frames[k++ & 1], NULL, &s->flow, &s->conf, NULL) != CC_SUCCESS)
      return fail ("cc_flow_lk_push");
    if (stop_timer (s->timer, &ms) != CC_SUCCESS)
      return fail ("timer stop");
    kt[i] = ms;
  }
  for (int i = 0; i < runs; i++) {
    double t0 = cv_now_ms ();
    if (cc_flow_lk_push (lk, NULL, &s->frames[k++ & 1], NULL, &s->flow, &s->conf, NULL) != CC_SUCCESS
        || cc_context_synchronize (s->ctx) != CC_SUCCESS)
      return fail ("cc_flow_lk_push");
    et[i] = cv_now_ms () - t0;
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
    if (cc_flow_visualize (s->ctx, NULL, &s->flow, NULL, &vp, frame) != CC_SUCCESS)
      return fail ("cc_flow_visualize");
  if (cc_context_synchronize (s->ctx) != CC_SUCCESS)
    return fail ("synchronize");
  for (int i = 0; i < runs; i++) {
    float ms;
    if (cc_timer_start (s->timer, NULL) != CC_SUCCESS
        || cc_flow_visualize (s->ctx, NULL, &s->flow, NULL, &vp, frame) != CC_SUCCESS
        || stop_timer (s->timer, &ms) != CC_SUCCESS)
      return fail ("cc_flow_visualize");
    kt[i] = ms;
  }
  for (int i = 0; i < runs; i++) {
    double t0 = cv_now_ms ();
    if (cc_flow_visualize (s->ctx, NULL, &s->flow, NULL, &vp, frame) != CC_SUCCESS
        || cc_context_synchronize (s->ctx) != CC_SUCCESS)
      return fail ("cc_flow_visualize");
    et[i] = cv_now_ms () - t0;
  }
  printf ("{\"algorithm\":\"flow_vis\",\"mode\":\"color\",\"width\":%d,\"height\":%d,"
      "\"backend\":\"%s\",\"format\":\"%s\",\"runs\":%d,\"threads\":%d,\"kernel_ms\":%.4f,"
      "\"end_to_end_ms\":%.4f}\n", s->w, s->h, cc_backend_name (cc_context_backend (s->ctx)),
      cc_format_name (frame->format), runs, bench_threads (s->ctx), cv_median (kt, runs),
      cv_median (et, runs));
  fflush (stdout);
  return 0;
}

static int
bench_size (cc_backend backend, int w, int h, bool fb, int warmup, int runs)
{
  cc_context *ctx;
  if (cc_context_create (backend, -1, &ctx) != CC_SUCCESS)
    return fail ("cc_context_create");
  if (cc_context_set_threads (ctx, cpu_threads) != CC_SUCCESS) {
    cc_context_destroy (ctx);
    return fail ("--threads");
  }
  bench_set s;
  int rc = set_init (&s, ctx, w, h);
  if (!rc && cc_timer_create (ctx, &s.timer) != CC_SUCCESS)
    rc = fail ("cc_timer_create");
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

int
main (int argc, char **argv)
{
  bool fb = true, cpu = true;
  int runs = 50;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--fb-check"))
      fb = true;
    else if (!strcmp (argv[i], "--no-fb-check"))
      fb = false;
    else if (!strcmp (argv[i], "--no-cpu"))
      cpu = false;
    else if (!strcmp (argv[i], "--runs") && i + 1 < argc) {
      if (!cv_parse_int ("--runs", argv[++i], 1, MAX_RUNS, &runs))
        return 2;
    } else if (!strcmp (argv[i], "--threads") && i + 1 < argc) {
      if (!cv_parse_int ("--threads", argv[++i], 0, CC_CONTEXT_THREADS_MAX, &cpu_threads))
        return 2;
    } else if (!strcmp (argv[i], "--version")) {
      cv_print_version ();
      return 0;
    } else {
      fprintf (stderr, "usage: flow-bench [--fb-check | --no-fb-check] [--runs N] [--no-cpu]"
          " [--threads N]\n");
      return 2;
    }
  }
  static const int sizes[][2] = { { 640, 480 }, { 1920, 1080 }, { 3840, 2160 } };
  int rc = 0;
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
