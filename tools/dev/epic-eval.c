/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* epic-eval: accuracy of cc_epic's flow and how well its confidence ranks its errors
 * (a development program, not installed; docs/epicflow.md).
 *
 *   epic-eval [options] DIR...        every DIR/NAME/{frame10,frame11}.png + flow10.flo
 *   epic-eval [options] --pair A.png B.png   no ground truth: confidence shares only
 *   epic-eval [options] --sequence F1.png F2.png ...   a clip through the video mode:
 *                                    per pair the time and the confident share
 *
 * Per pair: EPE over all pixels with ground truth, then the sparsification curve of
 * the confidence: the mean EPE of the most confident 50 % and 90 % of those pixels
 * (a confidence that ranks errors well gives numbers well under the EPE of all), the
 * oracle's (pixels ranked by their true error) for scale, the share of pixels with
 * confidence > 0.5, and the time of one cc_epic_compute with the confidence.
 * Options: --backend cpu|cuda|auto (cpu), --threads N, --video (the pair through
 * cc_epic's video mode: frame10 twice, then frame11, the second call timed),
 * --no-refine, and --k / --cell / --inner / --outer / --iterations / --step /
 * --refine-levels / --alpha / --gamma / --delta / --omega / --kappa / --presmooth in place of
 * cc_epic_params_default's to compare settings. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cudacore/cc_epic.h"
#include "cudacore/cc_flow_io.h"
#include "cudacore/cc_timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double epe, top50, top90, oracle50, oracle90, confident, ms;
  int pixels;
} pair_result;

typedef struct {
  float conf, err;
} ranked;

static int
by_conf_desc (const void *a, const void *b)
{
  const ranked *x = a, *y = b;
  if (x->conf != y->conf)
    return x->conf > y->conf ? -1 : 1;
  return 0;
}

static int
by_err_asc (const void *a, const void *b)
{
  const ranked *x = a, *y = b;
  return x->err < y->err ? -1 : x->err > y->err;
}

static double
mean_first (const ranked *r, int n, double frac)
{
  int k = (int) (frac * n + 0.5);
  if (k < 1)
    k = 1;
  double s = 0;
  for (int i = 0; i < k; i++)
    s += r[i].err;
  return s / k;
}

static float
px2 (const cc_image *f, int x, int y, int c)
{
  return ((const float *) ((const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0]))[2 * x + c];
}

static float
px1 (const cc_image *f, int x, int y)
{
  return ((const float *) ((const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0]))[x];
}

typedef struct {
  cc_context *ctx;
  bool refine, video;
  cv_epic_overrides set;                               /* what the options change */
  cc_epic_preset preset;                               /* what the above change */
} options;

/* The preset's parameters (fast: cc_epic_params_default's), with the settings
 * the command line changed. */
static void
params_of (const options *o, cc_epic_params *p)
{
  cc_epic_params_preset (p, o->preset);
  p->refine = o->refine;
  cv_epic_overrides_apply (&o->set, p);
}

/* A running mean of pair results. */
typedef struct {
  pair_result sum;
  int n;
} mean_of;

static void
mean_add (mean_of *m, const pair_result *r)
{
  m->sum.epe += r->epe;
  m->sum.top50 += r->top50;
  m->sum.top90 += r->top90;
  m->sum.oracle50 += r->oracle50;
  m->sum.oracle90 += r->oracle90;
  m->sum.confident += r->confident;
  m->sum.ms += r->ms;
  m->n++;
}

static void print_row (const char *name, const pair_result *r);

static void
mean_print (const char *name, const mean_of *m)
{
  if (m->n == 0)
    return;
  pair_result r = m->sum;
  double k = 1.0 / m->n;
  r.epe *= k; r.top50 *= k; r.top90 *= k; r.oracle50 *= k; r.oracle90 *= k;
  r.confident *= k; r.ms *= k;
  print_row (name, &r);
}

static int
run (const options *o, const char *p1, const char *p2, const char *gt_path, pair_result *res)
{
  cc_image f1, f2, flow, conf;
  if (cv_png_load (p1, CC_FORMAT_RGBX8, &f1) || cv_png_load (p2, CC_FORMAT_RGBX8, &f2))
    return cv_fail ("load");
  const int w = f1.width, h = f1.height;
  bool dev = cc_context_backend (o->ctx) == CC_BACKEND_CUDA;
  cc_location loc = dev ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  cc_image d1, d2, dflow, dconf;
  if (cc_image_alloc (o->ctx, w, h, CC_FORMAT_RGBX8, loc, &d1)
      || cc_image_alloc (o->ctx, w, h, CC_FORMAT_RGBX8, loc, &d2)
      || cc_image_alloc (o->ctx, w, h, CC_FORMAT_F32C2, loc, &dflow)
      || cc_image_alloc (o->ctx, w, h, CC_FORMAT_F32, loc, &dconf)
      || cc_image_copy (o->ctx, NULL, &f1, &d1) || cc_image_copy (o->ctx, NULL, &f2, &d2))
    return cv_fail ("alloc/upload");
  cc_epic_params p;
  params_of (o, &p);
  cc_epic *e;
  if (cc_epic_create (o->ctx, w, h, &p, &e))
    return cv_fail ("epic create");
  if (o->video && cc_epic_compute_video (e, NULL, &d1, &d1, &dflow, &dconf))
    return cv_fail ("epic (video, first pair)");
  double t0 = cc_now_ms ();
  if ((o->video ? cc_epic_compute_video : cc_epic_compute) (e, NULL, &d1, &d2, &dflow, &dconf)
      || cc_context_synchronize (o->ctx))
    return cv_fail ("epic");
  res->ms = cc_now_ms () - t0;
  if (cv_image_new (w, h, CC_FORMAT_F32C2, &flow) || cv_image_new (w, h, CC_FORMAT_F32, &conf)
      || cc_image_copy (o->ctx, NULL, &dflow, &flow) || cc_image_copy (o->ctx, NULL, &dconf, &conf)
      || cc_context_synchronize (o->ctx))
    return cv_fail ("download");
  int n = 0, confident = 0;
  ranked *r = malloc ((size_t) w * h * sizeof *r);
  cc_image gt = { 0 };
  if (gt_path && cc_flo_read (gt_path, &gt))
    return cv_fail ("read ground truth");
  double sum = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float c = px1 (&conf, x, y);
      confident += c > 0.5f;
      if (!gt_path)
        continue;
      float gu = px2 (&gt, x, y, 0), gv = px2 (&gt, x, y, 1);
      if (!(fabsf (gu) < 1e9f && fabsf (gv) < 1e9f))
        continue;
      float du = px2 (&flow, x, y, 0) - gu, dv = px2 (&flow, x, y, 1) - gv;
      r[n].conf = c;
      r[n].err = sqrtf (du * du + dv * dv);
      sum += r[n].err;
      n++;
    }
  res->pixels = n;
  res->confident = (double) confident / ((double) w * h);
  if (n > 0) {
    res->epe = sum / n;
    qsort (r, n, sizeof *r, by_conf_desc);
    res->top50 = mean_first (r, n, 0.5);
    res->top90 = mean_first (r, n, 0.9);
    qsort (r, n, sizeof *r, by_err_asc);
    res->oracle50 = mean_first (r, n, 0.5);
    res->oracle90 = mean_first (r, n, 0.9);
  }
  free (r);
  if (gt_path)
    cc_flo_free (&gt);
  cc_epic_destroy (e);
  cc_image_free (o->ctx, &d1);
  cc_image_free (o->ctx, &d2);
  cc_image_free (o->ctx, &dflow);
  cc_image_free (o->ctx, &dconf);
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&flow);
  cv_image_free (&conf);
  return 0;
}

/* A clip's frames in order through cc_epic_compute_video (no ground truth): per pair
 * the time and the share of confident pixels, then their means. */
static int
run_sequence (const options *o, char **paths, int n)
{
  cc_image host[2], dev[2], dflow, dconf, conf;
  if (cv_png_load (paths[0], CC_FORMAT_RGBX8, &host[0]))
    return cv_fail ("load");
  const int w = host[0].width, h = host[0].height;
  cc_location loc = cc_context_backend (o->ctx) == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE
      : CC_LOCATION_HOST;
  cc_epic_params p;
  params_of (o, &p);
  cc_epic *e;
  if (cc_image_alloc (o->ctx, w, h, CC_FORMAT_RGBX8, loc, &dev[0])
      || cc_image_alloc (o->ctx, w, h, CC_FORMAT_RGBX8, loc, &dev[1])
      || cc_image_alloc (o->ctx, w, h, CC_FORMAT_F32C2, loc, &dflow)
      || cc_image_alloc (o->ctx, w, h, CC_FORMAT_F32, loc, &dconf)
      || cv_image_new (w, h, CC_FORMAT_F32, &conf)
      || cc_image_copy (o->ctx, NULL, &host[0], &dev[0]) || cc_epic_create (o->ctx, w, h, &p, &e))
    return cv_fail ("alloc");
  double tsum = 0, csum = 0;
  for (int i = 1; i < n; i++) {
    int cur = i & 1, prv = cur ^ 1;
    if (cv_png_load (paths[i], CC_FORMAT_RGBX8, &host[cur]) || host[cur].width != w
        || host[cur].height != h || cc_image_copy (o->ctx, NULL, &host[cur], &dev[cur]))
      return cv_fail ("load (frames must share a size)");
    cc_context_synchronize (o->ctx);
    double t0 = cc_now_ms ();
    if (cc_epic_compute_video (e, NULL, &dev[prv], &dev[cur], &dflow, &dconf)
        || cc_context_synchronize (o->ctx))
      return cv_fail ("epic");
    double ms = cc_now_ms () - t0;
    if (cc_image_copy (o->ctx, NULL, &dconf, &conf) || cc_context_synchronize (o->ctx))
      return cv_fail ("download");
    long confident = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        confident += px1 (&conf, x, y) > 0.5f;
    double share = (double) confident / ((double) w * h);
    printf ("%-22d %8s %8s %8s %8s %8s %7.3f %9.1f\n", i, "-", "-", "-", "-", "-", share, ms);
    tsum += ms;
    csum += share;
    cv_image_free (&host[prv]);
  }
  if (n > 1)
    printf ("%-22s %8s %8s %8s %8s %8s %7.3f %9.1f\n", "mean", "-", "-", "-", "-", "-",
        csum / (n - 1), tsum / (n - 1));
  cv_image_free (&host[(n - 1) & 1]);
  cc_epic_destroy (e);
  cc_image_free (o->ctx, &dev[0]);
  cc_image_free (o->ctx, &dev[1]);
  cc_image_free (o->ctx, &dflow);
  cc_image_free (o->ctx, &dconf);
  cv_image_free (&conf);
  return 0;
}

static void
print_row (const char *name, const pair_result *r)
{
  printf ("%-22s %8.3f %8.3f %8.3f %8.3f %8.3f %7.3f %9.1f\n", name, r->epe, r->top50, r->top90,
      r->oracle50, r->oracle90, r->confident, r->ms);
}

static int
eval_dir (const options *o, const char *dir, mean_of *all)
{
  char *names[256];
  int nn = cv_list_pairs (dir, names, 256);
  if (nn < 0)
    return 1;
  mean_of here = { 0 };
  int rc = 0;
  for (int i = 0; i < nn; i++) {
    char p1[4096], p2[4096], gt[4096], label[64];
    snprintf (p1, sizeof p1, "%s/%s/frame10.png", dir, names[i]);
    snprintf (p2, sizeof p2, "%s/%s/frame11.png", dir, names[i]);
    snprintf (gt, sizeof gt, "%s/%s/flow10.flo", dir, names[i]);
    pair_result r = { 0 };
    if (run (o, p1, p2, gt, &r) == 0) {
      snprintf (label, sizeof label, "%.22s", names[i]);
      print_row (label, &r);
      mean_add (&here, &r);
      mean_add (all, &r);
    } else
      rc = 1;
    free (names[i]);
  }
  mean_print ("  mean", &here);
  return rc;
}

static void
usage (FILE *out)
{
  fprintf (out,
      "usage: epic-eval [options] DIR...           DIR/NAME/{frame10,frame11}.png + flow10.flo\n"
      "       epic-eval [options] --pair A.png B.png\n"
      "       epic-eval [options] --sequence F1.png F2.png ...  (a clip, video mode)\n"
      "Accuracy of cudacore's EpicFlow (cc_epic, default parameters) and the ranking of\n"
      "its confidence: per pair the EPE of all pixels with ground truth, of the 50 %% and\n"
      "90 %% most confident, the same for the oracle (pixels ranked by true error), the\n"
      "share of pixels with confidence > 0.5 and the time of one computation (ms).\n"
      "  --backend cpu|cuda|auto  where it computes (default cpu)\n"
      "  --threads N              CPU threads (default: all cores)\n"
      "  --video                  through cc_epic_compute_video (frame10 first, then the pair)\n"
      "  --no-refine              without the variational refinement\n"
      "  --preset P               fast (the default), balanced or accurate: the parameter\n"
      "                           set the options below change\n"
      "  --k N, --cell N          the interpolation's neighbours and seed cell\n"
      "  --inner N, --outer N     the refinement's inner and outer iterations\n"
      "  --iterations N, --step N the matcher's rounds per level and seed spacing\n"
      "  --refine-levels N        the refinement's pyramid levels (coarse to fine)\n"
      "  --alpha A, --gamma G, --delta D  its smoothness, gradient and colour weights\n"
      "  --omega W                its SOR relaxation factor, (0, 2)\n"
      "  --kappa K                its local smoothness exp(-K |grad I|) (0: constant)\n"
      "  --presmooth SIGMA        its presmoothing of level 0's luma (0: none)\n"
      "                           (each absent: the preset's)\n"
      "  --robust PX              the interpolation's robust mean scale (0: off; absent:\n"
      "                           cc_epic_params_default's)\n"
      "  -h, --help               this text\n");
}

int
main (int argc, char **argv)
{
  options o = { .refine = true, .set = CV_EPIC_OVERRIDES_NONE, .preset = CC_EPIC_PRESET_FAST };
  cc_backend backend = CC_BACKEND_CPU;
  int threads = 0, first = argc, seq_first = 0;
  const char *pa = NULL, *pb = NULL;
  for (int i = 1; i < argc && first == argc && !seq_first; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true, takes = v != NULL;
    if (cv_is_help (a)) {
      usage (stdout);
      return 0;
    } else if (!strcmp (a, "--video"))
      o.video = true, takes = false;
    else if (!strcmp (a, "--no-refine"))
      o.refine = false, takes = false;
    else if (!strcmp (a, "--pair") && i + 2 < argc) {
      pa = argv[++i];
      pb = argv[++i];
      takes = false;
    } else if (!strcmp (a, "--sequence") && i + 2 < argc)
      seq_first = i + 1, takes = false;
    else if (!v || a[0] != '-') {
      if (a[0] == '-') {
        fprintf (stderr, "epic-eval: %s needs a value\n", a);
        usage (stderr);
        return 2;
      }
      first = i;
      takes = false;
    } else if (!strcmp (a, "--backend"))
      ok = cv_parse_backend (a, v, true, &backend);
    else if (!strcmp (a, "--threads"))
      ok = cv_parse_int (a, v, 0, 1024, &threads);
    else if (!strcmp (a, "--preset"))
      ok = cv_parse_epic_preset (a, v, &o.preset);
    else if (!strcmp (a, "--k"))
      ok = cv_parse_int (a, v, 0, 128, &o.set.k);
    else if (!strcmp (a, "--cell"))
      ok = cv_parse_int (a, v, 0, 8, &o.set.cell);
    else if (!strcmp (a, "--inner"))
      ok = cv_parse_int (a, v, 0, 500, &o.set.inner);
    else if (!strcmp (a, "--outer"))
      ok = cv_parse_int (a, v, 0, 50, &o.set.outer);
    else if (!strcmp (a, "--iterations"))
      ok = cv_parse_int (a, v, 0, 32, &o.set.iterations);
    else if (!strcmp (a, "--step"))
      ok = cv_parse_int (a, v, 0, 32, &o.set.step);
    else if (!strcmp (a, "--refine-levels"))
      ok = cv_parse_int (a, v, 0, 6, &o.set.levels);
    else if (!strcmp (a, "--alpha"))
      ok = cv_parse_float (a, v, 0.0, 1e4, &o.set.alpha);
    else if (!strcmp (a, "--gamma"))
      ok = cv_parse_float (a, v, 0.0, 1e4, &o.set.gamma);
    else if (!strcmp (a, "--delta"))
      ok = cv_parse_float (a, v, 0.0, 1e4, &o.set.delta);
    else if (!strcmp (a, "--omega"))
      ok = cv_parse_float (a, v, 0.01, 1.99, &o.set.omega);
    else if (!strcmp (a, "--kappa"))
      ok = cv_parse_float (a, v, 0.0, 100.0, &o.set.kappa);
    else if (!strcmp (a, "--presmooth"))
      ok = cv_parse_float (a, v, 0.0, 3.0, &o.set.presmooth);
    else if (!strcmp (a, "--robust"))
      ok = cv_parse_float (a, v, 0.0, 1e4, &o.set.robust);
    else {
      fprintf (stderr, "epic-eval: unknown option %s\n", a);
      usage (stderr);
      return 2;
    }
    if (!ok)
      return 2;
    if (takes)
      i++;
  }
  if (!pa && !seq_first && first >= argc) {
    usage (stderr);
    return 2;
  }
  if (cv_context_new (backend, -1, threads, &o.ctx))
    return cv_fail ("context");
  cv_report_backend (o.ctx, backend, "EpicFlow");
  printf ("%-22s %8s %8s %8s %8s %8s %7s %9s\n", "pair", "EPE", "top50", "top90", "orc50",
      "orc90", "conf>.5", "ms");
  int rc = 0;
  if (seq_first)
    rc = run_sequence (&o, argv + seq_first, argc - seq_first);
  else if (pa) {
    pair_result r = { 0 };
    rc = run (&o, pa, pb, NULL, &r);
    if (!rc)
      print_row ("pair", &r);
  } else {
    mean_of all = { 0 };
    for (int i = first; i < argc; i++)
      rc |= eval_dir (&o, argv[i], &all);
    mean_print ("ALL (mean of pairs)", &all);
  }
  cc_context_destroy (o.ctx);
  return rc;
}
