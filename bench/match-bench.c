/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* match-bench: the sparse matcher (cc_match) timed and scored, one JSON object per line.
 *
 *   match-bench [--runs N] [--no-cpu] [--threads N] [PARAMS]
 *   match-bench --eval DIR [--backend cpu|cuda] [--threads N] [--compare] [PARAMS]
 *   match-bench --version
 *   PARAMS: --step N --levels N --iterations N --max-displacement PX --fb-threshold PX
 *
 * Timing (no --eval): synthetic clip frames (RGBX8) at 1024x436 and 1920x1080 on CUDA
 * (when a device exists) and 1024x436 on the CPU. kernel_ms: median of a cc_timer
 * (CUDA events on the context stream) around cc_match_compute; end_to_end_ms: median
 * of the wall clock around compute + cc_context_synchronize.
 *
 * --eval DIR: every folder under DIR (searched two deep) holding frame10.png,
 * frame11.png and flow10.flo (the Sintel layout of ../shared/media/optflow/sintel
 * and of cv-mkpairs' output) is matched and scored against the ground truth:
 * "valid" seeds are those whose pixel is neither occluded (occlusions.png, white)
 * nor invalid (invalid.png, white) nor unknown in the .flo; "accuracy" is the
 * fraction of confident (> 0) valid matches within 3 px (endpoint error) of the
 * truth, "acc1" within 1 px, "survival" the fraction of valid seeds that are
 * confident; valid40 / confident40 / correct40 (and ...100, ...200): the same
 * counts for valid seeds whose true motion is 40+ (100+, 200+) px, correct = within 3 px; ms is the
 * wall time of one compute. --compare also runs the other
 * backend (CUDA vs CPU) and prints how many matches differ (vector by more than
 * 0.01 px or confidence by more than 1e-5) and the largest differences. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include "cv_synth.h"
#include <cudacore/cc_epic.h>
#include <cudacore/cc_flow_io.h>
#include <cudacore/cc_timer.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_RUNS 1000

static int cpu_threads = 0;

/* Runs the matcher on a host pair on a backend; out: host copy of the matches
 * (capacity entries, malloc'd); *ms: wall time of the compute (with its download). */
static int
match_pair (cc_backend backend, const cc_match_params *p, const cc_image *a, const cc_image *b,
    cc_flow_match **out, int *count, double *ms)
{
  cc_context *ctx;
  if (cv_context_new (backend, CC_DEVICE_AUTO, cpu_threads, &ctx) != CC_SUCCESS)
    return cv_fail ("cc_context_create");
  int rc = 0;
  cc_match *m = NULL;
  cc_image da = *a, db = *b;
  bool dev = backend == CC_BACKEND_CUDA;
  if (dev && (cc_image_alloc (ctx, a->width, a->height, a->format, CC_LOCATION_DEVICE, &da)
          != CC_SUCCESS || cc_image_alloc (ctx, b->width, b->height, b->format,
              CC_LOCATION_DEVICE, &db) != CC_SUCCESS || cc_image_copy (ctx, NULL, a, &da)
          != CC_SUCCESS || cc_image_copy (ctx, NULL, b, &db) != CC_SUCCESS
          || cc_context_synchronize (ctx) != CC_SUCCESS))
    rc = cv_fail ("upload");
  if (!rc && cc_match_create (ctx, a->width, a->height, p, &m) != CC_SUCCESS)
    rc = cv_fail ("cc_match_create");
  if (!rc) {
    int n = cc_match_capacity (m);
    *out = malloc ((size_t) n * sizeof **out);
    double t0 = cc_now_ms ();
    if (!*out || cc_match_compute (m, NULL, &da, &db) != CC_SUCCESS
        || cc_match_download_sync (m, NULL, *out, n, count) != CC_SUCCESS)
      rc = cv_fail ("cc_match_compute");
    *ms = cc_now_ms () - t0;
  }
  cc_match_destroy (m);
  if (dev) {
    cc_image_free (ctx, &da);
    cc_image_free (ctx, &db);
  }
  cc_context_destroy (ctx);
  return rc;
}

static bool
file_exists (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0;
}

/* A white-is-set mask (NULL when the file is absent); GRAY8 host image. */
static bool
load_mask (const char *dir, const char *name, int w, int h, cc_image *out)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  if (!file_exists (path) || cv_png_load (path, CC_FORMAT_GRAY8, out) != CC_SUCCESS)
    return false;
  if (out->width != w || out->height != h) {
    cv_image_free (out);
    return false;
  }
  return true;
}

static int
eval_pair (const char *dir, const char *name, cc_backend backend, const cc_match_params *p,
    bool compare)
{
  char path[4096];
  cc_image a, b, gt, occ, inv;
  snprintf (path, sizeof path, "%s/frame10.png", dir);
  if (cv_png_load (path, CC_FORMAT_RGBX8, &a) != CC_SUCCESS)
    return cv_fail (path);
  snprintf (path, sizeof path, "%s/frame11.png", dir);
  if (cv_png_load (path, CC_FORMAT_RGBX8, &b) != CC_SUCCESS)
    return cv_fail (path);
  snprintf (path, sizeof path, "%s/flow10.flo", dir);
  if (cc_flo_read (path, &gt) != CC_SUCCESS)
    return cv_fail (path);
  int w = a.width, h = a.height;
  bool has_occ = load_mask (dir, "occlusions.png", w, h, &occ);
  bool has_inv = load_mask (dir, "invalid.png", w, h, &inv);
  cc_flow_match *m = NULL;
  int n = 0;
  double ms = 0;
  int rc = match_pair (backend, p, &a, &b, &m, &n, &ms);
  long valid = 0, confident = 0, within3 = 0, within1 = 0;
  long big_valid[4] = { 0 }, big_conf[4] = { 0 }, big_ok[4] = { 0 };   /* >= 40, 100, 200 px */
  for (int i = 0; !rc && i < n; i++) {
    int x = (int) m[i].x, y = (int) m[i].y;
    if ((has_occ && ((uint8_t *) occ.planes[0])[y * occ.pitch[0] + x] > 127)
        || (has_inv && ((uint8_t *) inv.planes[0])[y * inv.pitch[0] + x] > 127))
      continue;
    const float *g = (const float *) ((const char *) gt.planes[0] + y * gt.pitch[0]) + 2 * x;
    if (!(fabsf (g[0]) < 1e9f && fabsf (g[1]) < 1e9f))
      continue;
    valid++;
    float mag = hypotf (g[0], g[1]);
    int bucket = mag >= 200.0f ? 3 : mag >= 100.0f ? 2 : mag >= 40.0f ? 1 : 0;
    for (int k = 1; k <= bucket; k++)
      big_valid[k]++;
    if (!(m[i].confidence > 0.0f))
      continue;
    confident++;
    float e = hypotf (m[i].u - g[0], m[i].v - g[1]);
    within3 += e <= 3.0f;
    within1 += e <= 1.0f;
    for (int k = 1; k <= bucket; k++) {
      big_conf[k]++;
      big_ok[k] += e <= 3.0f;
    }
  }
  if (!rc)
    printf ("{\"pair\":\"%s\",\"width\":%d,\"height\":%d,\"backend\":\"%s\",\"threads\":%d,"
        "\"step\":%d,\"levels\":%d,\"iterations\":%d,\"max_displacement\":%g,"
        "\"fb_threshold\":%g,\"seeds\":%d,\"valid\":%ld,\"confident\":%ld,"
        "\"accuracy\":%.4f,\"acc1\":%.4f,\"survival\":%.4f,\"valid40\":%ld,\"confident40\":%ld,"
        "\"correct40\":%ld,\"valid100\":%ld,\"confident100\":%ld,\"correct100\":%ld,"
        "\"valid200\":%ld,\"confident200\":%ld,\"correct200\":%ld,"
        "\"ms\":%.1f}\n", name, w, h,
        cc_backend_name (backend), backend == CC_BACKEND_CPU ? (cpu_threads ? cpu_threads : 0)
        : 0, p->step, p->levels, p->iterations, p->max_displacement, p->fb_threshold, n, valid,
        confident, confident ? (double) within3 / confident : 0.0,
        confident ? (double) within1 / confident : 0.0, valid ? (double) confident / valid : 0.0,
        big_valid[1], big_conf[1], big_ok[1], big_valid[2], big_conf[2], big_ok[2], big_valid[3],
        big_conf[3], big_ok[3], ms);
  if (!rc && compare) {
    cc_backend other = backend == CC_BACKEND_CPU ? CC_BACKEND_CUDA : CC_BACKEND_CPU;
    cc_flow_match *o = NULL;
    int on = 0;
    double oms = 0;
    rc = match_pair (other, p, &a, &b, &o, &on, &oms);
    if (!rc) {
      long differ = 0;
      float dv = 0, dc = 0;
      for (int i = 0; i < n && i < on; i++) {
        float e = hypotf (m[i].u - o[i].u, m[i].v - o[i].v);
        float c = fabsf (m[i].confidence - o[i].confidence);
        differ += e > 0.01f || c > 1e-5f || m[i].x != o[i].x || m[i].y != o[i].y;
        dv = e > dv ? e : dv;
        dc = c > dc ? c : dc;
      }
      printf ("{\"pair\":\"%s\",\"compare\":\"%s-%s\",\"seeds\":%d,\"differ\":%ld,"
          "\"max_vector_diff\":%g,\"max_conf_diff\":%g,\"other_ms\":%.1f}\n", name,
          cc_backend_name (backend), cc_backend_name (other), n, differ, dv, dc, oms);
      if (on != n)
        rc = cv_fail ("the backends gave different match counts");
    }
    free (o);
  }
  fflush (stdout);
  free (m);
  cv_image_free (&a);
  cv_image_free (&b);
  cc_flo_free (&gt);
  if (has_occ)
    cv_image_free (&occ);
  if (has_inv)
    cv_image_free (&inv);
  return rc;
}

static int
name_cmp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Every pair folder under dir, depth <= 2, in name order. */
static int
eval_tree (const char *dir, const char *prefix, int depth, cc_backend backend,
    const cc_match_params *p, bool compare, int *pairs)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/flow10.flo", dir);
  if (file_exists (path)) {
    (*pairs)++;
    return eval_pair (dir, prefix[0] ? prefix : ".", backend, p, compare);
  }
  if (depth >= 2)
    return 0;
  DIR *d = opendir (dir);
  if (!d)
    return 0;
  char *names[1024];
  int n = 0;
  struct dirent *e;
  while ((e = readdir (d)) && n < 1024)
    if (e->d_name[0] != '.')
      names[n++] = strdup (e->d_name);
  closedir (d);
  qsort (names, n, sizeof *names, name_cmp);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char sub[4096], pre[4096];
    snprintf (sub, sizeof sub, "%s/%s", dir, names[i]);
    snprintf (pre, sizeof pre, "%s%s%s", prefix, prefix[0] ? "/" : "", names[i]);
    struct stat st;
    if (!rc && stat (sub, &st) == 0 && S_ISDIR (st.st_mode))
      rc = eval_tree (sub, pre, depth + 1, backend, p, compare, pairs);
    free (names[i]);
  }
  return rc;
}

static int
bench_size (cc_backend backend, const cc_match_params *p, int w, int h, int warmup, int runs)
{
  cc_context *ctx;
  if (cv_context_new (backend, CC_DEVICE_AUTO, cpu_threads, &ctx) != CC_SUCCESS)
    return cv_fail ("cc_context_create");
  cc_location loc = backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  cc_image frames[2] = { { { 0 } } };
  cc_match *m = NULL;
  cc_timer *timer = NULL;
  int rc = 0;
  for (int i = 0; i < 2 && !rc; i++) {
    cc_image host;
    if (cv_synth_clip_frame (3 + 4 * i, w, h, &host, NULL) != CC_SUCCESS)
      rc = cv_fail ("synthetic frame");
    else {
      if (cc_image_alloc (ctx, w, h, host.format, loc, &frames[i]) != CC_SUCCESS
          || cc_image_copy (ctx, NULL, &host, &frames[i]) != CC_SUCCESS)
        rc = cv_fail ("upload");
      cv_image_free (&host);
    }
  }
  if (!rc && (cc_match_create (ctx, w, h, p, &m) != CC_SUCCESS
          || cc_timer_create (ctx, &timer) != CC_SUCCESS))
    rc = cv_fail ("create");
  static double kt[MAX_RUNS], et[MAX_RUNS];
  for (int i = 0; i < warmup && !rc; i++)
    if (cc_match_compute (m, NULL, &frames[0], &frames[1]) != CC_SUCCESS)
      rc = cv_fail ("cc_match_compute");
  if (!rc && cc_context_synchronize (ctx) != CC_SUCCESS)
    rc = cv_fail ("synchronize");
  for (int i = 0; i < runs && !rc; i++) {
    float ms;
    if (cc_timer_start (timer, NULL) != CC_SUCCESS
        || cc_match_compute (m, NULL, &frames[0], &frames[1]) != CC_SUCCESS
        || cv_timer_stop_ms (timer, &ms) != CC_SUCCESS)
      rc = cv_fail ("cc_match_compute");
    kt[i] = ms;
  }
  for (int i = 0; i < runs && !rc; i++) {
    double t0 = cc_now_ms ();
    if (cc_match_compute (m, NULL, &frames[0], &frames[1]) != CC_SUCCESS
        || cc_context_synchronize (ctx) != CC_SUCCESS)
      rc = cv_fail ("cc_match_compute");
    et[i] = cc_now_ms () - t0;
  }
  if (!rc)
    printf ("{\"algorithm\":\"match\",\"width\":%d,\"height\":%d,\"backend\":\"%s\","
        "\"step\":%d,\"levels\":%d,\"iterations\":%d,\"seeds\":%d,\"runs\":%d,\"threads\":%d,"
        "\"kernel_ms\":%.4f,\"end_to_end_ms\":%.4f}\n", w, h, cc_backend_name (backend),
        p->step, p->levels, p->iterations, cc_match_capacity (m), runs,
        backend == CC_BACKEND_CPU ? cc_context_cpu_threads (ctx) : 0, cv_median (kt, runs),
        cv_median (et, runs));
  fflush (stdout);
  cc_timer_destroy (timer);
  cc_match_destroy (m);
  for (int i = 0; i < 2; i++)
    cc_image_free (ctx, &frames[i]);
  cc_context_destroy (ctx);
  return rc;
}

static const char help[] =
"usage: match-bench [--runs N] [--no-cpu] [--threads N] [PARAMS]\n"
"       match-bench --eval DIR [--backend cpu|cuda] [--threads N] [--compare] [PARAMS]\n"
"The sparse matcher (cc_match) timed on the synthetic clip (1024x436 and 1920x1080\n"
"on CUDA, 1024x436 on the CPU: kernel_ms and end_to_end_ms, medians), or scored on\n"
"pairs with ground truth; one JSON line per case or pair.\n"
"  --runs N                timed runs, the median kept (1..%d; default 20)\n"
"  --no-cpu                timing: CUDA only\n"
"  --threads N             CPU threads (0: all cores, the default)\n"
"  --eval DIR              score every pair folder under DIR (two deep: frame10.png,\n"
"                          frame11.png, flow10.flo; the Sintel layout, cv-mkpairs'):\n"
"                          accuracy (confident valid matches within 3 px), acc1,\n"
"                          survival, and the same for motions of 40, 100, 200+ px\n"
"  --backend cpu|cuda      --eval: the backend (default cpu)\n"
"  --compare               --eval: also run the other backend, count the matches\n"
"                          that differ\n"
"PARAMS, the matcher's parameters:\n"
"  --step N                seed spacing in pixels (2..32; default 3)\n"
"  --levels N              pyramid levels (1..8; default 5)\n"
"  --iterations N          propagation iterations a level (1..32; default 4)\n"
"  --max-displacement PX   the largest motion searched (8..1024; default 400)\n"
"  --fb-threshold PX       forward-backward agreement for a confident match\n"
"                          (0.01..1024; default 3)\n"
"  -h, --help              this text\n"
"  --version               the program's version\n";

static int
usage (void)
{
  fprintf (stderr, "usage: match-bench [--runs N] [--no-cpu] [--threads N] [PARAMS]\n"
      "       match-bench --eval DIR [--backend cpu|cuda] [--threads N] [--compare] [PARAMS]\n"
      "PARAMS: --step N --levels N --iterations N --max-displacement PX --fb-threshold PX\n");
  return 2;
}

int
main (int argc, char **argv)
{
  cc_match_params p;
  cc_match_params_default (&p);
  bool cpu = true, compare = false;
  int runs = 20;
  const char *eval = NULL;
  cc_backend backend = CC_BACKEND_CPU;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    int exit_status;
    if (cv_bench_option (argc, argv, &i, help, MAX_RUNS, &cpu, &runs, &exit_status)) {
      if (exit_status >= 0)
        return exit_status;
    } else if (!strcmp (a, "--compare"))
      compare = true;
    else if (!v)
      return usage ();
    else if (!strcmp (a, "--threads"))
      ok = cv_parse_int (a, argv[++i], 0, 4096, &cpu_threads);
    else if (!strcmp (a, "--eval"))
      eval = argv[++i];
    else if (!strcmp (a, "--backend"))
      ok = cv_parse_backend (a, v, false, &backend), i++;
    else if (!strcmp (a, "--step"))
      ok = cv_parse_int (a, argv[++i], 2, 32, &p.step);
    else if (!strcmp (a, "--levels"))
      ok = cv_parse_int (a, argv[++i], 1, 8, &p.levels);
    else if (!strcmp (a, "--iterations"))
      ok = cv_parse_int (a, argv[++i], 1, 32, &p.iterations);
    else if (!strcmp (a, "--max-displacement"))
      ok = cv_parse_float (a, argv[++i], 8, 1024, &p.max_displacement);
    else if (!strcmp (a, "--fb-threshold"))
      ok = cv_parse_float (a, argv[++i], 0.01, 1024, &p.fb_threshold);
    else
      return usage ();
    if (!ok)
      return 2;
  }
  if (eval) {
    int pairs = 0;
    int rc = eval_tree (eval, "", 0, backend, &p, compare, &pairs);
    if (!rc && pairs == 0) {
      fprintf (stderr, "match-bench: no pair (frame10.png, frame11.png, flow10.flo) under %s\n",
          eval);
      return 1;
    }
    return rc;
  }
  int rc = 0;
  if (cc_cuda_device_count () > 0) {
    rc = bench_size (CC_BACKEND_CUDA, &p, 1024, 436, 3, runs);
    if (!rc)
      rc = bench_size (CC_BACKEND_CUDA, &p, 1920, 1080, 3, runs);
  } else if (cpu) {
    fprintf (stderr, "match-bench: no CUDA device, CPU only\n");
  } else {
    fprintf (stderr, "match-bench: no CUDA device and --no-cpu: nothing to run\n");
    return 1;
  }
  if (cpu && !rc)
    rc = bench_size (CC_BACKEND_CPU, &p, 1024, 436, 1, runs < 3 ? runs : 3);
  return rc;
}
