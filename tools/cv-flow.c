/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-flow: optical flow between two PNG frames, and evaluation against ground truth.
 *
 *   cv-flow [options] FRAME1.png FRAME2.png [-o OUT.flo] [--truth GT.flo] [--vis OUT.png]
 *   cv-flow [options] --eval DIR     every DIR/NAME/{frame10,frame11}.png + flow10.flo
 *
 * Options: --method lk|blockmatch|epic  --backend auto|cpu|cuda  --repeat N (timing)
 *   LK:         --levels N  --iterations N  --window N  --min-eigen X  --sobel  --fb-check
 *   blockmatch: --block-size N  --search-radius N  --seed-radius N  --bm-levels N
 *               --metric ncc|ssd|sad  --no-subpixel  (the dense field is evaluated)
 *   epic:       --match-step N  --match-levels N  --match-iterations N  --max-motion X
 *               --fb-threshold X  --k N  --cell N  --sigma X  --flat-cost X  --edge-weight X
 *               --nw (Nadaraya-Watson instead of affine); the refinement (one level,
 *               docs/epicflow.md) is part of the method: --refine none turns it off
 *   refinement: --refine [variational|none]  --refine-levels N  --outer N  --inner N
 *               --omega X  --alpha X (smoothness)  --delta X (colour)  --gamma X (gradient)
 *   other:      --help  --version
 * Numbers must parse whole (--repeat: 1..64; the others as the core's parameter checks
 * allow). Prints EPE, angular error, % of pixels off by > 1/3/5 px, and time per pair.
 * --vis writes the flow in the Middlebury colours as an opaque RGB PNG. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include <cudacore/cc_blockmatch.h>
#include <cudacore/cc_epic.h>
#include <cudacore/cc_flow.h>
#include <cudacore/cc_refine.h>

#include <dirent.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPEAT 64

typedef struct {
  const char *method;
  cc_backend backend;
  cc_flow_lk_params lk;
  cc_blockmatch_params bm;
  bool refine;
  cc_refine_params rf;
  cc_epic_params epic;
  int repeat;
} options;

/* The estimator of one run: LK or block matching (dense), then the refinement. */
typedef struct {
  cc_flow_lk *lk;
  cc_blockmatch *bm;
  cc_epic *epic;
  cc_refine *rf;
  cc_image grid, dense, refined;   /* where the backend computes */
} estimator;

static int
estimator_create (const options *o, cc_context *ctx, int w, int h, estimator *e)
{
  memset (e, 0, sizeof *e);
  cc_location loc = cc_context_backend (ctx) == CC_BACKEND_CUDA
      ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  if (!strcmp (o->method, "lk")) {
    if (cc_flow_lk_create (ctx, w, h, &o->lk, &e->lk))
      return cv_fail ("lk create");
  } else if (!strcmp (o->method, "blockmatch")) {
    int gw, gh;
    if (cc_blockmatch_create (ctx, w, h, &o->bm, &e->bm))
      return cv_fail ("blockmatch create");
    cc_blockmatch_grid_size (e->bm, &gw, &gh);
    if (cc_image_alloc (ctx, gw, gh, CC_FORMAT_F32C2, loc, &e->grid))
      return cv_fail ("alloc");
  } else if (!strcmp (o->method, "epic")) {
    cc_epic_params ep = o->epic;
    ep.refine = o->refine;
    ep.refine_params = o->rf;
    if (cc_epic_create (ctx, w, h, &ep, &e->epic))
      return cv_fail ("epic create");
  } else {
    fprintf (stderr, "cv-flow: unknown method %s (lk, blockmatch, epic)\n", o->method);
    return 1;
  }
  if (cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &e->dense))
    return cv_fail ("alloc");
  if (o->refine && !e->epic && (cc_refine_create (ctx, w, h, &o->rf, &e->rf)
          || cc_image_alloc (ctx, w, h, CC_FORMAT_F32C2, loc, &e->refined)))
    return cv_fail ("refine create");
  return 0;
}

static void
estimator_destroy (cc_context *ctx, estimator *e)
{
  cc_flow_lk_destroy (e->lk);
  cc_blockmatch_destroy (e->bm);
  cc_epic_destroy (e->epic);
  cc_refine_destroy (e->rf);
  if (e->grid.planes[0])
    cc_image_free (ctx, &e->grid);
  cc_image_free (ctx, &e->dense);
  if (e->refined.planes[0])
    cc_image_free (ctx, &e->refined);
}

/* One estimate into `flow` (host). */
static int
estimator_run (estimator *e, cc_context *ctx, const cc_image *f1, const cc_image *f2,
    cc_image *flow)
{
  if (e->lk && cc_flow_lk_compute (e->lk, NULL, f1, f2, NULL, &e->dense, NULL))
    return cv_fail ("lk");
  if (e->bm && cc_blockmatch_compute (e->bm, NULL, f1, f2, &e->grid, NULL, &e->dense))
    return cv_fail ("blockmatch");
  if (e->epic && cc_epic_compute (e->epic, NULL, f1, f2, &e->dense, NULL))
    return cv_fail ("epic");
  if (e->rf && cc_refine_run (e->rf, NULL, f1, f2, &e->dense, &e->refined))
    return cv_fail ("refine");
  if (cc_image_copy (ctx, NULL, e->rf ? &e->refined : &e->dense, flow))
    return cv_fail ("download");
  return 0;
}

/* Computes host flow (F32C2, same size as the frames) for one pair; *ms gets the
 * median wall time of `repeat` runs (frames already where the backend computes,
 * result downloaded). */
static int
compute_flow (const options *o, cc_context *ctx, const cc_image *f1, const cc_image *f2,
    cc_image *flow, double *ms)
{
  estimator e;
  if (estimator_create (o, ctx, f1->width, f1->height, &e))
    return 1;
  bool dev = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  cc_image d1 = *f1, d2 = *f2;
  if (dev && (cc_image_alloc (ctx, f1->width, f1->height, f1->format, CC_LOCATION_DEVICE, &d1)
          || cc_image_alloc (ctx, f1->width, f1->height, f1->format, CC_LOCATION_DEVICE, &d2)
          || cc_image_copy (ctx, NULL, f1, &d1) || cc_image_copy (ctx, NULL, f2, &d2)))
    return cv_fail ("upload");
  double times[MAX_REPEAT];
  int n = o->repeat;   /* 1..MAX_REPEAT, checked by main */
  for (int i = 0; i < n; i++) {
    double t0 = cc_now_ms ();
    if (estimator_run (&e, ctx, &d1, &d2, flow))
      return 1;
    times[i] = cc_now_ms () - t0;
  }
  *ms = cv_median (times, n);
  if (dev) {
    cc_image_free (ctx, &d1);
    cc_image_free (ctx, &d2);
  }
  estimator_destroy (ctx, &e);
  return 0;
}

static void
print_metrics_header (void)
{
  printf ("%-14s %8s %8s %7s %7s %7s %9s\n", "sequence", "EPE", "AE(deg)", ">1px%",
      ">3px%", ">5px%", "time(ms)");
}

static void
print_metrics (const char *name, const cc_flow_metrics *m, double ms)
{
  printf ("%-14s %8.3f %8.2f %7.2f %7.2f %7.2f %9.2f\n", name, m->epe, m->angular_error,
      100 * m->over1, 100 * m->over3, 100 * m->over5, ms);
}

static int
run_pair (const options *o, cc_context *ctx, const char *p1, const char *p2,
    const char *gt_path, const char *out_flo, const char *vis_png, const char *name,
    cc_flow_metrics *metrics_out, double *ms_out)
{
  cc_image f1, f2, flow;
  if (cv_png_load (p1, CC_FORMAT_RGBX8, &f1) || cv_png_load (p2, CC_FORMAT_RGBX8, &f2))
    return cv_fail ("load");
  if (f1.width != f2.width || f1.height != f2.height) {
    fprintf (stderr, "cv-flow: %s is %dx%d but %s is %dx%d\n", p1, f1.width, f1.height, p2,
        f2.width, f2.height);
    return 1;
  }
  if (cv_image_new (f1.width, f1.height, CC_FORMAT_F32C2, &flow))
    return cv_fail ("alloc");
  double ms = 0;
  if (compute_flow (o, ctx, &f1, &f2, &flow, &ms))
    return 1;
  if (out_flo && cc_flo_write (out_flo, &flow))
    return cv_fail ("write");
  if (vis_png) {
    cc_flow_vis_params vp;
    cc_flow_vis_params_default (&vp);
    cc_context *cpu;
    cc_image vis;
    cv_image_new (f1.width, f1.height, CC_FORMAT_RGBX8, &vis);
    if (cc_context_create (CC_BACKEND_CPU, -1, &cpu) || cc_flow_visualize (cpu, NULL, &flow, NULL, &vp, &vis)
        || cv_png_save (vis_png, &vis))
      return cv_fail ("visualize");
    cc_context_destroy (cpu);
    cv_image_free (&vis);
  }
  int rc = 0;
  if (gt_path) {
    cc_image gt;
    cc_flow_metrics m;
    if (cc_flo_read (gt_path, &gt) || cc_flow_compare (&flow, &gt, 0, &m))
      rc = cv_fail ("evaluate");
    else {
      if (!metrics_out)
        print_metrics_header ();
      print_metrics (name, &m, ms);
      if (metrics_out)
        *metrics_out = m;
    }
    cc_flo_free (&gt);
  } else {
    printf ("flow %dx%d in %.2f ms (%s)\n", f1.width, f1.height, ms,
        cc_backend_name (cc_context_backend (ctx)));
  }
  if (ms_out)
    *ms_out = ms;
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&flow);
  return rc;
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static int
run_eval (const options *o, cc_context *ctx, const char *dir)
{
  DIR *d = opendir (dir);
  if (!d) {
    fprintf (stderr, "cv-flow: cannot open %s\n", dir);
    return 1;
  }
  char *names[256];
  int count = 0;
  struct dirent *e;
  while ((e = readdir (d)) && count < 256) {
    char probe[4096];
    snprintf (probe, sizeof probe, "%s/%s/flow10.flo", dir, e->d_name);
    FILE *f = fopen (probe, "rb");
    if (f) {
      fclose (f);
      names[count++] = strdup (e->d_name);
    }
  }
  closedir (d);
  qsort (names, count, sizeof names[0], cmp_str);
  if (count == 0) {
    fprintf (stderr, "cv-flow: no NAME/flow10.flo under %s\n", dir);
    return 1;
  }
  printf ("method %s%s, backend %s\n", o->method, o->refine ? " + variational refinement" : "",
      cc_backend_name (cc_context_backend (ctx)));
  print_metrics_header ();
  cc_flow_metrics sum = { 0 };
  double ms_sum = 0;
  int rc = 0;
  for (int i = 0; i < count; i++) {
    char p1[4096], p2[4096], gt[4096];
    snprintf (p1, sizeof p1, "%s/%s/frame10.png", dir, names[i]);
    snprintf (p2, sizeof p2, "%s/%s/frame11.png", dir, names[i]);
    snprintf (gt, sizeof gt, "%s/%s/flow10.flo", dir, names[i]);
    cc_flow_metrics m;
    double ms;
    rc |= run_pair (o, ctx, p1, p2, gt, NULL, NULL, names[i], &m, &ms);
    sum.epe += m.epe; sum.angular_error += m.angular_error;
    sum.over1 += m.over1; sum.over3 += m.over3; sum.over5 += m.over5;
    ms_sum += ms;
    free (names[i]);
  }
  sum.epe /= count; sum.angular_error /= count;
  sum.over1 /= count; sum.over3 /= count; sum.over5 /= count;
  print_metrics ("mean", &sum, ms_sum / count);
  return rc;
}

static void
usage (FILE *out)
{
  fprintf (out,
      "usage: cv-flow [options] FRAME1.png FRAME2.png [-o OUT.flo] [--truth GT.flo] [--vis OUT.png]\n"
      "       cv-flow [options] --eval DIR   (DIR/NAME/{frame10,frame11}.png + flow10.flo)\n"
      "  --method lk|blockmatch|epic  --backend auto|cpu|cuda  --repeat N (timing runs, 1..%d)\n"
      "  LK:         --levels N  --iterations N  --window N  --min-eigen X  --sobel  --fb-check\n"
      "  blockmatch: --block-size N  --search-radius N  --seed-radius N  --bm-levels N\n"
      "              --metric ncc|ssd|sad  --no-subpixel\n"
      "  epic:       --match-step N  --match-levels N  --match-iterations N  --max-motion X\n"
      "              --fb-threshold X  --k N  --cell N  --sigma X  --flat-cost X  --edge-weight X  --nw\n"
      "  refinement: --refine [variational|none]  --refine-levels N  --outer N  --inner N\n"
      "              --omega X  --alpha X  --delta X  --gamma X\n"
      "  --help, --version\n", MAX_REPEAT);
}

int
main (int argc, char **argv)
{
  options o;
  memset (&o, 0, sizeof o);
  o.method = "lk";
  o.backend = CC_BACKEND_AUTO;
  o.repeat = 1;
  cc_flow_lk_params_default (&o.lk);
  cc_blockmatch_params_default (&o.bm);
  cc_refine_params_default (&o.rf);
  cc_epic_params_default (&o.epic);
  /* epic: its refinement (on unless --refine none) starts from the method's own
   * parameters, whatever the order of the options */
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--method") && !strcmp (argv[i + 1], "epic")) {
      o.rf = o.epic.refine_params;
      o.refine = true;
    }
  const char *in[2] = { NULL, NULL }, *out = NULL, *truth = NULL, *vis = NULL, *eval = NULL;
  int nin = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
#define OPT(name) (!strcmp (a, name) && v && ++i)
#define INT(name, field) (OPT (name) && ((ok = cv_parse_int (name, v, INT_MIN, INT_MAX, &(field))), 1))
#define FLOAT(name, field) (OPT (name) && ((ok = cv_parse_float (name, v, -INFINITY, INFINITY, &(field))), 1))
    if (!strcmp (a, "--help")) {
      usage (stdout);
      return 0;
    } else if (!strcmp (a, "--version")) {
      cv_print_version ();
      return 0;
    }
    else if (OPT ("--method")) {
      o.method = v;
      if (strcmp (v, "lk") && strcmp (v, "blockmatch") && strcmp (v, "epic"))
        ok = cv_option_error ("--method", v, "one of lk, blockmatch, epic");
    } else if (OPT ("--backend"))
      ok = cv_parse_backend ("--backend", v, true, &o.backend);
    else if (INT ("--levels", o.lk.pyramid_levels)) ;
    else if (INT ("--iterations", o.lk.iterations)) ;
    else if (INT ("--window", o.lk.window_size)) ;
    else if (FLOAT ("--min-eigen", o.lk.min_eigen_threshold)) ;
    else if (OPT ("--repeat")) ok = cv_parse_int ("--repeat", v, 1, MAX_REPEAT, &o.repeat);
    else if (INT ("--block-size", o.bm.block_size)) ;
    else if (INT ("--search-radius", o.bm.search_radius)) ;
    else if (INT ("--seed-radius", o.bm.seed_radius)) ;
    else if (INT ("--bm-levels", o.bm.levels)) ;
    else if (OPT ("--metric")) {
      if (!strcmp (v, "ssd")) o.bm.metric = CC_MATCH_SSD;
      else if (!strcmp (v, "sad")) o.bm.metric = CC_MATCH_SAD;
      else if (!strcmp (v, "ncc")) o.bm.metric = CC_MATCH_NCC;
      else ok = cv_option_error ("--metric", v, "one of ncc, ssd, sad");
    }
    else if (INT ("--refine-levels", o.rf.levels)) ;
    else if (INT ("--outer", o.rf.outer_iterations)) ;
    else if (INT ("--inner", o.rf.inner_iterations)) ;
    else if (FLOAT ("--omega", o.rf.omega)) ;
    else if (FLOAT ("--alpha", o.rf.smoothness_weight)) ;
    else if (FLOAT ("--delta", o.rf.color_weight)) ;
    else if (FLOAT ("--gamma", o.rf.gradient_weight)) ;
    else if (!strcmp (a, "--refine")) {
      o.refine = true;
      if (v && (!strcmp (v, "variational") || !strcmp (v, "none"))) {
        o.refine = !strcmp (v, "variational");
        i++;
      }
    }
    else if (INT ("--match-step", o.epic.match.step)) ;
    else if (INT ("--match-levels", o.epic.match.levels)) ;
    else if (INT ("--match-iterations", o.epic.match.iterations)) ;
    else if (FLOAT ("--max-motion", o.epic.match.max_displacement)) ;
    else if (FLOAT ("--fb-threshold", o.epic.match.fb_threshold)) ;
    else if (INT ("--k", o.epic.interp.k)) ;
    else if (INT ("--cell", o.epic.interp.cell)) ;
    else if (FLOAT ("--sigma", o.epic.interp.sigma)) ;
    else if (FLOAT ("--flat-cost", o.epic.interp.flat_cost)) ;
    else if (FLOAT ("--edge-weight", o.epic.interp.edge_weight)) ;
    else if (!strcmp (a, "--nw")) o.epic.interp.affine = false;
    else if (!strcmp (a, "--no-subpixel")) o.bm.subpixel = false;
    else if (OPT ("-o")) out = v;
    else if (OPT ("--truth")) truth = v;
    else if (OPT ("--vis")) vis = v;
    else if (OPT ("--eval")) eval = v;
    else if (!strcmp (a, "--sobel")) o.lk.gradient = CC_GRADIENT_SOBEL;
    else if (!strcmp (a, "--fb-check")) o.lk.fb_check = true;
    else if (a[0] != '-' && nin < 2) in[nin++] = a;
    else {
      fprintf (stderr, "cv-flow: unknown or incomplete argument %s\n", a);
      usage (stderr);
      return 2;
    }
    if (!ok)
      return 2;
#undef FLOAT
#undef INT
#undef OPT
  }
  if (cc_flow_lk_params_check (&o.lk) != CC_SUCCESS
      || cc_blockmatch_params_check (&o.bm) != CC_SUCCESS
      || cc_refine_params_check (&o.rf) != CC_SUCCESS
      || cc_epic_params_check (&o.epic) != CC_SUCCESS)
    return cv_fail ("parameters");
  cc_context *ctx;
  if (cc_context_create (o.backend, CC_DEVICE_AUTO, &ctx) != CC_SUCCESS)
    return cv_fail ("context");
  int rc;
  if (eval)
    rc = run_eval (&o, ctx, eval);
  else if (nin == 2)
    rc = run_pair (&o, ctx, in[0], in[1], truth, out, vis, "pair", NULL, NULL);
  else {
    fprintf (stderr, "cv-flow: two frames or --eval DIR needed\n");
    rc = 2;
  }
  cc_context_destroy (ctx);
  return rc;
}
