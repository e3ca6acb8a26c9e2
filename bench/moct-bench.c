/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moct-bench: timings of cc_moct_compute (multi-object chromatic tracking), one JSON
 * object per line.
 *
 *   moct-bench [--runs N] [--no-cpu] [--layout atomic|partials|all]
 *              [--ppt 4|8|16|all] [--format rgbx|nv12] [--acc wide|narrow] [--draw boxes|labels|all]
 *   moct-bench --version
 *
 * Sizes 1920x1080 and 3840x2160; 1, 8, 128 and 1024 objects. The frame: the objects
 * as palette-coloured discs and ellipses on a grid over a grey background (about a
 * quarter of the pixels classified); with 1 object, one ellipse over about half of
 * the frame (the contention case: every warp adds to the same object). On CUDA every
 * reduction layout x pixels-per-thread asked for; the CPU once per size (fewer runs).
 *  kernel_ms:     median over runs of a cc_timer around cc_moct_compute with results left
 *                 on the device (CUDA events on the context stream);
 *  end_to_end_ms: median of the wall clock around cc_moct_compute with host results
 *                 (download and host moments included).
 * build_ms: the wall clock of cc_moct_set_objects (table build + upload), once.
 * With --draw: draw_ms, the median cc_timer time of cc_moct_draw with those flags
 * (boxes: BOXES; labels: LABELS, the names "object-K"; all: every flag) into a copy
 * of the frame, after the last run. */
#include "cc_tuning.h"   /* cudacore/src: the CUDA reduction layouts it compares */
#include "cv_imageio.h"
#include "cv_synth.h"
#include "cv_cli.h"
#include "cv_timing.h"
#include <cudacore/cc_moct.h>
#include <cudacore/cc_timer.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 1000

/* The benchmark frame (RGBX8, host) and its object table. */
static int
make_scene (int w, int h, int n, cc_image *frame, cc_moct_object *o)
{
  cv_synth_shape *s = calloc (n, sizeof *s);
  if (n == 1) {
    s[0] = (cv_synth_shape) { w / 2.0, h / 2.0, w * 0.45, h * 0.38, 0.2, 0, 0, 0 };
  } else {
    int cols = (int) ceil (sqrt ((double) n * w / h)), rows = (n + cols - 1) / cols;
    double cw = (double) w / cols, ch = (double) h / rows;
    for (int i = 0; i < n; i++) {
      s[i].cx = (i % cols + 0.5) * cw;
      s[i].cy = (i / cols + 0.5) * ch;
      s[i].a = 0.4 * fmin (cw, ch) * (i % 2 ? 1.2 : 1.0);
      s[i].b = 0.4 * fmin (cw, ch) * (i % 2 ? 0.6 : 1.0);
      s[i].theta = 0.3 * i;
    }
  }
  for (int i = 0; i < n; i++) {
    uint8_t rgb[3];
    cv_synth_palette (i, rgb);
    s[i].r = rgb[0];
    s[i].g = rgb[1];
    s[i].b_ = rgb[2];
    snprintf (o[i].name, sizeof o[i].name, "object-%d", i);
    o[i].r = rgb[0];
    o[i].g = rgb[1];
    o[i].b = rgb[2];
    o[i].tolerance = 10.0f;
  }
  cc_status st = cv_synth_shapes (w, h, s, n, frame, NULL);
  free (s);
  return st == CC_SUCCESS ? 0 : cv_fail ("cv_synth_shapes");
}

/* NV12 of an RGBX8 frame (cc_image_alloc on the host; free with cc_image_free). */
static int
to_nv12 (cc_context *cpu, const cc_image *rgb, cc_image *out)
{
  if (cc_image_alloc (cpu, rgb->width, rgb->height, CC_FORMAT_NV12, CC_LOCATION_HOST, out)
      != CC_SUCCESS)
    return cv_fail ("nv12 alloc");
  for (int y = 0; y < rgb->height; y++)
    for (int x = 0; x < rgb->width; x++) {
      const uint8_t *p = (const uint8_t *) rgb->planes[0] + (size_t) y * rgb->pitch[0] + 4 * x;
      double fy = 16 + (65.481 * p[0] + 128.553 * p[1] + 24.966 * p[2]) / 255;
      ((uint8_t *) out->planes[0])[(size_t) y * out->pitch[0] + x] = (uint8_t) lround (fy);
      if ((x & 1) || (y & 1))
        continue;
      uint8_t *uv = (uint8_t *) out->planes[1] + (size_t) (y / 2) * out->pitch[1] + x;
      uv[0] = (uint8_t) lround (128 + (-37.797 * p[0] - 74.203 * p[1] + 112.0 * p[2]) / 255);
      uv[1] = (uint8_t) lround (128 + (112.0 * p[0] - 93.786 * p[1] - 18.214 * p[2]) / 255);
    }
  return 0;
}

static const char *
layout_name (cc_moct_layout l)
{
  return l == CC_MOCT_LAYOUT_ATOMIC ? "atomic" : "partials";
}

/* Median time of cc_moct_draw (flags) into a copy of frame; -1 without flags. */
static int
time_draw (cc_context *ctx, cc_timer *timer, cc_moct *m, const cc_image *frame,
    unsigned flags, int runs, double *median_ms)
{
  static double dt[MAX_RUNS];
  *median_ms = -1;
  if (!flags)
    return 0;
  cc_image copy;
  if (cc_image_alloc (ctx, frame->width, frame->height, frame->format, frame->location,
          &copy) != CC_SUCCESS || cc_image_copy (ctx, NULL, frame, &copy) != CC_SUCCESS)
    return cv_fail ("draw frame");
  for (int i = 0; i < runs; i++) {
    float ms;
    if (cc_timer_start (timer, NULL) != CC_SUCCESS || cc_moct_draw (m, NULL, &copy, flags) != CC_SUCCESS
        || cv_timer_stop_ms (timer, &ms) != CC_SUCCESS)
      return cv_fail ("timed cc_moct_draw");
    dt[i] = ms;
  }
  cc_image_free (ctx, &copy);
  *median_ms = cv_median (dt, runs);
  return 0;
}

/* --acc: cc_moct_tuning.narrow_accumulators (narrow, the default: 48-byte shared
 * accumulators; wide: 64-bit ones); the JSON's "acc" says which */
static int narrow_acc = 1;

static int
bench_one (cc_context *ctx, cc_timer *timer, const cc_image *frame, const cc_moct_object *o,
    int n, cc_moct_layout layout, int ppt, int warmup, int runs, unsigned draw)
{
  cc_moct_tuning t = { .layout = layout, .pixels_per_thread = ppt,
                       .narrow_accumulators = narrow_acc };
  cc_moct *m;
  if (cc_moct_create (ctx, frame->width, frame->height, NULL, &m) != CC_SUCCESS)
    return cv_fail ("cc_moct_create");
  if (cc_moct_set_tuning (m, &t) != CC_SUCCESS)
    return cv_fail ("cc_moct_set_tuning");
  double t0 = cc_now_ms ();
  if (cc_moct_set_objects (m, o, n) != CC_SUCCESS)
    return cv_fail ("cc_moct_set_objects");
  double build_ms = cc_now_ms () - t0;
  cc_moct_result *res = calloc (n, sizeof *res);
  static double kt[MAX_RUNS], et[MAX_RUNS];
  bool cuda = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  for (int i = 0; i < warmup; i++)
    if (cc_moct_compute (m, NULL, frame, res) != CC_SUCCESS)
      return cv_fail ("cc_moct_compute");
  for (int i = 0; i < runs; i++) {
    float ms;
    if (cc_timer_start (timer, NULL) != CC_SUCCESS
        || cc_moct_compute (m, NULL, frame, cuda ? NULL : res) != CC_SUCCESS
        || cv_timer_stop_ms (timer, &ms) != CC_SUCCESS)
      return cv_fail ("timed cc_moct_compute");
    kt[i] = ms;
  }
  for (int i = 0; i < runs; i++) {
    t0 = cc_now_ms ();
    if (cc_moct_compute (m, NULL, frame, res) != CC_SUCCESS)
      return cv_fail ("cc_moct_compute");
    et[i] = cc_now_ms () - t0;
  }
  int present = 0;
  for (int i = 0; i < n; i++)
    present += res[i].present;
  double draw_ms;
  if (time_draw (ctx, timer, m, frame, draw, runs, &draw_ms))
    return 1;
  char draw_json[48] = "";
  if (draw)
    snprintf (draw_json, sizeof draw_json, ",\"draw\":\"0x%x\",\"draw_ms\":%.4f", draw, draw_ms);
  printf ("{\"algorithm\":\"moct\",\"width\":%d,\"height\":%d,\"backend\":\"%s\","
      "\"format\":\"%s\",\"objects\":%d,\"present\":%d,\"layout\":\"%s\","
      "\"pixels_per_thread\":%d,\"runs\":%d,\"kernel_ms\":%.4f,\"end_to_end_ms\":%.4f,"
      "\"build_ms\":%.1f,\"acc\":\"%s\"%s}\n", frame->width, frame->height, cuda ? "cuda" : "cpu",
      cc_format_name (frame->format), n, present, cuda ? layout_name (layout) : "cpu",
      cuda ? ppt : 0, runs, cv_median (kt, runs), cv_median (et, runs), build_ms,
      !cuda ? "cpu" : narrow_acc ? "narrow" : "wide", draw_json);
  fflush (stdout);
  free (res);
  cc_moct_destroy (m);
  return 0;
}

int
main (int argc, char **argv)
{
  static const char help[] =
    "usage: moct-bench [--runs N] [--no-cpu] [--layout atomic|partials|all]\n"
    "                  [--ppt 4|8|16|all] [--format rgbx|nv12] [--acc wide|narrow]\n"
    "                  [--draw boxes|labels|all]\n"
    "Times multi-object chromatic tracking (cc_moct_compute) at 1920x1080 and 3840x2160\n"
    "with 1, 8, 128 and 1024 objects; one JSON line per case: kernel_ms (results on the\n"
    "device, CUDA events, median), end_to_end_ms (host results, wall clock, median) and\n"
    "build_ms (the object table, once). On CUDA each reduction layout and pixels per\n"
    "thread asked for; the CPU once per size, with fewer runs.\n"
    "  --runs N            timed runs, the median kept (1..%d; default 50)\n"
    "  --no-cpu            CUDA only\n"
    "  --layout L          CUDA reduction: atomic, partials or all (default all)\n"
    "  --ppt P             CUDA pixels per thread: 4, 8, 16 or all (default all)\n"
    "  --format F          frame format: rgbx or nv12 (default rgbx)\n"
    "  --acc A             accumulators: wide or narrow (default wide)\n"
    "  --draw D            also time drawing into the frame (draw_ms): boxes, labels or\n"
    "                      all (default none)\n"
    "  -h, --help          this text\n"
    "  --version           the program's version\n";
  bool cpu = true, nv12 = false;
  int runs = 50, layouts = 3, ppts = 7;   /* bit sets: layout 0/1, ppt 4/8/16 */
  unsigned draw = 0;
  for (int i = 1; i < argc; i++) {
    int exit_status;
    if (cv_bench_option (argc, argv, &i, help, MAX_RUNS, &cpu, &runs, &exit_status)) {
      if (exit_status >= 0)
        return exit_status;
    } else if (!strcmp (argv[i], "--layout") && i + 1 < argc) {
      const char *v = argv[++i];
      layouts = !strcmp (v, "atomic") ? 1 : !strcmp (v, "partials") ? 2 : !strcmp (v, "all") ? 3 : 0;
    } else if (!strcmp (argv[i], "--ppt") && i + 1 < argc) {
      const char *v = argv[++i];
      ppts = !strcmp (v, "4") ? 1 : !strcmp (v, "8") ? 2 : !strcmp (v, "16") ? 4
          : !strcmp (v, "all") ? 7 : 0;
    } else if (!strcmp (argv[i], "--format") && i + 1 < argc) {
      const char *v = argv[++i];
      nv12 = !strcmp (v, "nv12");
      if (!nv12 && strcmp (v, "rgbx"))
        layouts = 0;
    } else if (!strcmp (argv[i], "--acc") && i + 1 < argc) {
      const char *v = argv[++i];
      narrow_acc = !strcmp (v, "narrow");
      if (!narrow_acc && strcmp (v, "wide"))
        layouts = 0;
    } else if (!strcmp (argv[i], "--draw") && i + 1 < argc) {
      const char *v = argv[++i];
      draw = !strcmp (v, "boxes") ? CC_MOCT_DRAW_BOXES : !strcmp (v, "labels")
          ? CC_MOCT_DRAW_LABELS : !strcmp (v, "all") ? CC_MOCT_DRAW_ALL : 0;
      if (!draw)
        layouts = 0;
    } else
      layouts = 0;
    if (!layouts || !ppts) {
      fprintf (stderr, "usage: moct-bench [--runs N] [--no-cpu] [--layout atomic|partials|all]"
          " [--ppt 4|8|16|all] [--format rgbx|nv12] [--acc wide|narrow]"
          " [--draw boxes|labels|all]\n");
      return 2;
    }
  }
  static const int sizes[][2] = { { 1920, 1080 }, { 3840, 2160 } };
  static const int counts[] = { 1, 8, 128, 1024 };
  bool have_cuda = cc_cuda_device_count () > 0;
  if (!have_cuda)
    fprintf (stderr, "moct-bench: no CUDA device, CPU only\n");
  cc_context *cpu_ctx;
  if (cc_context_create (CC_BACKEND_CPU, -1, &cpu_ctx) != CC_SUCCESS)
    return cv_fail ("cc_context_create");
  static cc_moct_object objects[CC_MOCT_MAX_OBJECTS];
  int rc = 0;
  for (int b = have_cuda ? 0 : 1; b < (cpu ? 2 : 1) && !rc; b++) {
    cc_context *ctx = cpu_ctx;
    if (b == 0 && cc_context_create (CC_BACKEND_CUDA, -1, &ctx) != CC_SUCCESS)
      return cv_fail ("cc_context_create");
    cc_timer *timer;
    if (cc_timer_create (ctx, &timer) != CC_SUCCESS)
      return cv_fail ("cc_timer_create");
    cc_location loc = b == 0 ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
    for (int si = 0; si < 2 && !rc; si++)
      for (int ci = 0; ci < 4 && !rc; ci++) {
        int w = sizes[si][0], h = sizes[si][1], n = counts[ci];
        cc_image host, frame, conv;
        if ((rc = make_scene (w, h, n, &host, objects)))
          break;
        const cc_image *src = &host;
        if (nv12) {
          if ((rc = to_nv12 (cpu_ctx, &host, &conv)))
            break;
          src = &conv;
        }
        if (cc_image_alloc (ctx, w, h, src->format, loc, &frame) != CC_SUCCESS
            || cc_image_copy (ctx, NULL, src, &frame) != CC_SUCCESS
            || cc_context_synchronize (ctx) != CC_SUCCESS)
          return cv_fail ("upload");
        if (b == 0) {
          for (int l = 0; l < 2 && !rc; l++)
            for (int k = 0; k < 3 && !rc; k++)
              if ((layouts & (1 << l)) && (ppts & (1 << k)))
                rc = bench_one (ctx, timer, &frame, objects, n, (cc_moct_layout) l, 4 << k, 5,
                    runs, draw);
        } else {
          rc = bench_one (ctx, timer, &frame, objects, n, CC_MOCT_LAYOUT_ATOMIC, 8, 1,
              runs < 3 ? runs : 3, draw);
        }
        cc_image_free (ctx, &frame);
        if (nv12)
          cc_image_free (cpu_ctx, &conv);
        cv_image_free (&host);
      }
    cc_timer_destroy (timer);
    if (ctx != cpu_ctx)
      cc_context_destroy (ctx);
  }
  cc_context_destroy (cpu_ctx);
  return rc;
}
