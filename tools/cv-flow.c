/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-flow: optical flow between two PNG frames, and evaluation against ground truth.
 *
 *   cv-flow [options] FRAME1.png FRAME2.png [-o OUT.flo] [--truth GT.flo] [--vis OUT.png]
 *   cv-flow [options] --eval DIR     every DIR/NAME/{frame10,frame11}.png + flow10.flo
 *
 * The options are the elements' property names (cudaflowlk, cudablockmatch,
 * cudaflowepic and the refine-* they share), each tied to the methods it applies to
 * (opt_defs): one of another --method is refused; --help lists them all with their
 * defaults; older names (--levels for lk, --window, --min-eigen, --bm-levels,
 * --max-motion, --k, --nw, --outer, --inner, --omega, --alpha, --delta, --gamma) stay
 * accepted. Numbers must parse whole (--repeat: 1..64; the others as the core's
 * parameter checks allow). Prints EPE, angular error, % of pixels off by > 1/3/5 px,
 * and time per pair; one line on stderr names the method and the backend used.
 * --vis writes the flow in the Middlebury colours as an opaque RGB PNG. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_timing.h"
#include <cudacore/cc_blockmatch.h>
#include <cudacore/cc_epic.h>
#include <cudacore/cc_flow_io.h>
#include <cudacore/cc_flow_lk.h>
#include <cudacore/cc_flow_vis.h>
#include <cudacore/cc_refine.h>

#include <stddef.h>
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
  if (e->rf && cc_refine_compute (e->rf, NULL, f1, f2, &e->dense, &e->refined))
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
    if (cc_context_create (CC_BACKEND_CPU, -1, &cpu)
        || cc_flow_vis_draw (cpu, NULL, &flow, NULL, &vp, &vis) || cv_png_save (vis_png, &vis))
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
run_eval (const options *o, cc_context *ctx, const char *dir)
{
  char *names[256];
  int count = cv_list_pairs (dir, names, 256);
  if (count < 0)
    return 1;
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

/* ------------------------------------------------------------ options
 * The names are the elements' property names (cudaflowlk, cudablockmatch, cudaflowepic,
 * the refine-* they share), each option tied to the methods it applies to: one given
 * with another --method is refused. Older names stay accepted as aliases. */

enum { M_LK = 1, M_BM = 2, M_EPIC = 4, M_ALL = 7 };

typedef enum {
  T_INT,        /* int field, a number */
  T_FLOAT,      /* float field, a number */
  T_BOOL,       /* bool field, true|false */
  T_SET_BOOL,   /* no value: bool field = value */
  T_SET_INT,    /* no value: int/enum field = value */
  T_GRADIENT,   /* scharr|sobel */
  T_METRIC,     /* ncc|ssd|sad */
} opt_type;

typedef struct {
  const char *name, *alias;   /* alias: an older name, or NULL */
  int methods;
  opt_type type;
  size_t offset;              /* into options */
  int value;                  /* T_SET_*: the value set */
  const char *arg, *help;
} opt_def;

#define F(field) offsetof (options, field)
static const opt_def opt_defs[] = {
  /* cudaflowlk */
  { "--pyramid-levels", "--levels", M_LK, T_INT, F (lk.pyramid_levels), 0, "N",
    "pyramid levels: more follow larger motions, each costs a quarter of the one above" },
  { "--iterations", NULL, M_LK, T_INT, F (lk.iterations), 0, "N",
    "warp-and-solve iterations per level: more converge further, time in proportion" },
  { "--window-size", "--window", M_LK, T_INT, F (lk.window_size), 0, "N",
    "side of the odd integration window: larger is smoother and more robust, slower" },
  { "--min-eigen-threshold", "--min-eigen", M_LK, T_FLOAT, F (lk.min_eigen_threshold), 0,
    "X", "pixels with less texture than this keep the coarser level's vector" },
  { "--gradient", NULL, M_LK, T_GRADIENT, F (lk.gradient), 0, "scharr|sobel",
    "spatial derivative filter" },
  { "--sobel", NULL, M_LK, T_SET_INT, F (lk.gradient), CC_GRADIENT_SOBEL, NULL,
    "the same as --gradient sobel" },
  { "--fb-check", NULL, M_LK, T_SET_BOOL, F (lk.fb_check), 1, NULL,
    "also compute the backward flow and mark vectors that disagree (twice the work)" },
  { "--fb-threshold", NULL, M_LK, T_FLOAT, F (lk.fb_threshold), 0, "X",
    "with --fb-check: forward-backward error (px) above which a vector is invalid" },
  /* cudablockmatch */
  { "--block-size", NULL, M_BM, T_INT, F (bm.block_size), 0, "N",
    "side of the square blocks (px): larger is more robust, coarser" },
  { "--search-radius", NULL, M_BM, T_INT, F (bm.search_radius), 0, "N",
    "largest motion searched (px at full resolution): larger costs more" },
  { "--seed-radius", NULL, M_BM, T_INT, F (bm.seed_radius), 0, "N",
    "search radius around the coarser level's vector at finer levels" },
  { "--levels", "--bm-levels", M_BM, T_INT, F (bm.levels), 0, "N",
    "pyramid levels of the multi-scale search" },
  { "--metric", NULL, M_BM, T_METRIC, F (bm.metric), 0, "ncc|ssd|sad",
    "block similarity (ncc copes with brightness changes)" },
  { "--subpixel", NULL, M_BM, T_BOOL, F (bm.subpixel), 0, "true|false",
    "parabola fit around the best match" },
  { "--no-subpixel", NULL, M_BM, T_SET_BOOL, F (bm.subpixel), 0, NULL,
    "the same as --subpixel false" },
  { "--flat-threshold", NULL, M_BM, T_FLOAT, F (bm.flat_threshold), 0, "X",
    "blocks whose luma standard deviation (0-255) is below this get confidence 0" },
  /* cudaflowepic */
  { "--match-step", NULL, M_EPIC, T_INT, F (epic.match.step), 0, "N",
    "spacing of the matches (px): smaller gives more matches, slower" },
  { "--match-levels", NULL, M_EPIC, T_INT, F (epic.match.levels), 0, "N",
    "pyramid levels of the coarse-to-fine matcher" },
  { "--match-iterations", NULL, M_EPIC, T_INT, F (epic.match.iterations), 0, "N",
    "propagation and random-search rounds per level" },
  { "--max-displacement", "--max-motion", M_EPIC, T_FLOAT, F (epic.match.max_displacement),
    0, "X", "largest motion searched per axis (px at full resolution)" },
  { "--fb-threshold", NULL, M_EPIC, T_FLOAT, F (epic.match.fb_threshold), 0, "X",
    "a match whose backward match misses it by more (px) is dropped" },
  { "--neighbours", "--k", M_EPIC, T_INT, F (epic.interp.k), 0, "N",
    "matches each seed's motion is interpolated from: more are smoother and slower" },
  { "--cell", NULL, M_EPIC, T_INT, F (epic.interp.cell), 0, "N",
    "pixels a side of the blocks holding one seed: larger is faster and smoother" },
  { "--sigma", NULL, M_EPIC, T_FLOAT, F (epic.interp.sigma), 0, "X",
    "how far (in edge-weighted distance) a match's influence reaches: larger is smoother" },
  { "--affine", NULL, M_EPIC, T_BOOL, F (epic.interp.affine), 0, "true|false",
    "true: a local affine fit (follows rotation and zoom, can overshoot where matches are "
    "sparse); false: a weighted mean (Nadaraya-Watson)" },
  { "--nw", NULL, M_EPIC, T_SET_BOOL, F (epic.interp.affine), 0, NULL,
    "the same as --affine false" },
  { "--flat-cost", NULL, M_EPIC, T_FLOAT, F (epic.interp.flat_cost), 0, "X",
    "distance cost of a pixel of a flat region: larger keeps matches more local" },
  { "--edge-weight", NULL, M_EPIC, T_FLOAT, F (epic.interp.edge_weight), 0, "X",
    "extra cost per luma level of edge: larger stops motion more at image edges" },
  { "--extrapolate", NULL, M_EPIC, T_FLOAT, F (epic.interp.extrapolate), 0, "PX",
    "weighted mean only: where the flow leaves the frame, it follows the neighbours' "
    "linear trend beyond PX pixels from the seed (forward camera motion); 0: off" },
  { "--robust", NULL, M_EPIC, T_FLOAT, F (epic.interp.robust), 0, "PX",
    "weighted mean only: neighbours whose motion is PX pixels or more from the mean "
    "weigh less (Gaussian reweighting: the dominant motion, not a blend across motion "
    "boundaries); 0: the plain weighted mean" },
  /* the refinement (refine-* of every flow element) */
  { "--refine-levels", NULL, M_ALL, T_INT, F (rf.levels), 0, "N",
    "pyramid levels refined: more correct larger errors of the input field" },
  { "--refine-outer-iterations", "--outer", M_ALL, T_INT, F (rf.outer_iterations), 0, "N",
    "re-linearisations per level: time in proportion" },
  { "--refine-inner-iterations", "--inner", M_ALL, T_INT, F (rf.inner_iterations), 0, "N",
    "solver sweeps per outer iteration: time in proportion" },
  { "--refine-omega", "--omega", M_ALL, T_FLOAT, F (rf.omega), 0, "X",
    "over-relaxation of the solver (1..1.9: fewer sweeps needed)" },
  { "--refine-smoothness", "--alpha", M_ALL, T_FLOAT, F (rf.smoothness_weight), 0, "X",
    "pull between neighbouring vectors: larger is smoother" },
  { "--refine-color-weight", "--delta", M_ALL, T_FLOAT, F (rf.color_weight), 0, "X",
    "weight of brightness constancy: lower it under changing light" },
  { "--refine-gradient-weight", "--gamma", M_ALL, T_FLOAT, F (rf.gradient_weight), 0, "X",
    "weight of gradient constancy (robust to lighting changes)" },
  { "--refine-smoothness-kappa", "--kappa", M_ALL, T_FLOAT, F (rf.smoothness_kappa), 0, "X",
    "local smoothness exp(-X |grad I|), luma 0..1: weaker smoothing across image "
    "edges (0: constant)" },
  { "--refine-presmooth", "--presmooth", M_ALL, T_FLOAT, F (rf.presmooth_sigma), 0, "SIGMA",
    "Gaussian blur (px) of both frames at full resolution before the refinement's "
    "data terms: less noise in the derivatives (0: none)" },
};
#undef F

static const char *
method_name (int m)
{
  return m == M_LK ? "lk" : m == M_BM ? "blockmatch" : "epic";
}

static int
method_bit (const char *name)
{
  return !strcmp (name, "lk") ? M_LK : !strcmp (name, "blockmatch") ? M_BM
      : !strcmp (name, "epic") ? M_EPIC : 0;
}

/* The definition of option `a` for `method`; NULL when `a` names none for it (*other:
 * the methods it names one for, for the refusal). */
static const opt_def *
find_opt (const char *a, int method, int *other)
{
  *other = 0;
  for (size_t i = 0; i < sizeof opt_defs / sizeof opt_defs[0]; i++) {
    const opt_def *d = &opt_defs[i];
    if (strcmp (a, d->name) && (!d->alias || strcmp (a, d->alias)))
      continue;
    if (d->methods & method)
      return d;
    *other |= d->methods;
  }
  return NULL;
}

/* "lk, blockmatch" for a methods mask. */
static void
methods_text (int methods, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int m = M_LK; m <= M_EPIC; m <<= 1)
    if (methods & m)
      snprintf (buf + strlen (buf), size - strlen (buf), "%s%s", buf[0] ? ", " : "",
          method_name (m));
}

static bool
apply_opt (const opt_def *d, const char *typed, const char *v, options *o)
{
  char *field = (char *) o + d->offset;
  switch (d->type) {
    case T_INT: return cv_parse_int (typed, v, INT_MIN, INT_MAX, (int *) field);
    case T_FLOAT: return cv_parse_float (typed, v, -INFINITY, INFINITY, (float *) field);
    case T_BOOL:
      if (strcmp (v, "true") && strcmp (v, "false"))
        return cv_option_error (typed, v, "true or false");
      *(bool *) field = !strcmp (v, "true");
      return true;
    case T_SET_BOOL: *(bool *) field = d->value != 0; return true;
    case T_SET_INT: *(int *) field = d->value; return true;
    case T_GRADIENT:
      if (!strcmp (v, "scharr")) *(int *) field = CC_GRADIENT_SCHARR;
      else if (!strcmp (v, "sobel")) *(int *) field = CC_GRADIENT_SOBEL;
      else return cv_option_error (typed, v, "one of scharr, sobel");
      return true;
    case T_METRIC:
      if (!strcmp (v, "ncc")) *(int *) field = CC_BLOCKMATCH_NCC;
      else if (!strcmp (v, "ssd")) *(int *) field = CC_BLOCKMATCH_SSD;
      else if (!strcmp (v, "sad")) *(int *) field = CC_BLOCKMATCH_SAD;
      else return cv_option_error (typed, v, "one of ncc, ssd, sad");
      return true;
  }
  return false;
}

static void
format_default (char *buf, size_t size, const opt_def *d, const options *o)
{
  const char *field = (const char *) o + d->offset;
  const int i = *(const int *) field;
  switch (d->type) {
    case T_INT: snprintf (buf, size, "%d", i); break;
    case T_FLOAT: snprintf (buf, size, "%g", *(const float *) field); break;
    case T_BOOL: snprintf (buf, size, "%s", *(const bool *) field ? "true" : "false"); break;
    case T_GRADIENT: snprintf (buf, size, "%s", i == CC_GRADIENT_SOBEL ? "sobel" : "scharr");
      break;
    case T_METRIC: snprintf (buf, size, "%s", i == CC_BLOCKMATCH_SSD ? "ssd"
        : i == CC_BLOCKMATCH_SAD ? "sad" : "ncc"); break;
    default: buf[0] = '\0'; break;
  }
}

/* "  LEFT  TEXT" with TEXT wrapped under itself at 79 columns (\001: a space that does
 * not break). */
static void
print_wrapped (FILE *out, const char *left, const char *text)
{
  const int indent = 31, width = 79;
  fprintf (out, "  %-28s ", left);
  int col = indent;
  if ((int) strlen (left) > 28) {
    fprintf (out, "\n%*s", indent, "");
  }
  while (*text) {
    int word = (int) strcspn (text, " ");
    if (col > indent && col + 1 + word > width) {
      fprintf (out, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc (' ', out);
      col++;
    }
    for (int c = 0; c < word; c++)
      fputc (text[c] == '\001' ? ' ' : text[c], out);   /* \001: a space kept whole */
    col += word;
    text += word;
    while (*text == ' ')
      text++;
  }
  fputc ('\n', out);
}

static void
usage (FILE *out, const options *defaults, const options *epic_defaults)
{
  fprintf (out,
      "usage: cv-flow [options] FRAME1.png FRAME2.png [-o OUT.flo] [--truth GT.flo]\n"
      "               [--vis OUT.png]\n"
      "       cv-flow [options] --eval DIR\n"
      "Optical flow between two PNG frames (written as .flo with -o, drawn with\n"
      "--vis), or evaluated against ground truth: --truth for one pair, --eval DIR for\n"
      "every DIR/NAME/{frame10,frame11}.png + flow10.flo. Prints the time per pair\n"
      "(median of --repeat runs) and, with ground truth, EPE, angular error and the\n"
      "share of pixels off by more than 1, 3 and 5 px; stderr names the backend used.\n"
      "Option names are the elements' property names (cudaflowlk, cudablockmatch,\n"
      "cudaflowepic); an option of another method than --method is refused.\n\n"
      "  --method lk|blockmatch|epic  estimator (default lk)\n"
      "  --backend auto|cpu|cuda      where it runs (default auto: CUDA when a device\n"
      "                               exists, else the CPU)\n"
      "  --cpu-threads N              CPU backend threads (default 0: all cores)\n"
      "  --repeat N                   timing runs per pair, 1..%d (default 1)\n"
      "  -o OUT.flo                   write the flow (Middlebury .flo)\n"
      "  --truth GT.flo               compare with a ground-truth field\n"
      "  --vis OUT.png                draw the flow in the Middlebury colours (opaque\n"
      "                               RGB PNG)\n"
      "  --eval DIR                   evaluate every pair under DIR\n"
      "  --refine [variational|none]  variational refinement of the field (bare:\n"
      "                               variational; true/false accepted); default none,\n"
      "                               epic: variational\n"
      "  --help, --version\n", MAX_REPEAT);
  const char *heads[] = { "lk (cudaflowlk)", "blockmatch (cudablockmatch; the dense field "
      "is evaluated)", "epic (cudaflowepic)", "the refinement (any method, with --refine)" };
  const int groups[] = { M_LK, M_BM, M_EPIC, M_ALL };
  for (int g = 0; g < 4; g++) {
    fprintf (out, "\n%s:\n", heads[g]);
    for (size_t i = 0; i < sizeof opt_defs / sizeof opt_defs[0]; i++) {
      const opt_def *d = &opt_defs[i];
      if (d->methods != groups[g])
        continue;
      char line[512], left[64];
      snprintf (left, sizeof left, "%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
      int n = snprintf (line, sizeof line, "%s", d->help);
      if (d->type != T_SET_BOOL && d->type != T_SET_INT) {
        char def[64], epic_def[64] = "";
        format_default (def, sizeof def, d, defaults);
        if (d->methods == M_ALL)
          format_default (epic_def, sizeof epic_def, d, epic_defaults);
        n += snprintf (line + n, sizeof line - n, " (default %s%s%s)", def,
            epic_def[0] && strcmp (def, epic_def) ? "; epic " : "",
            epic_def[0] && strcmp (def, epic_def) ? epic_def : "");
      }
      if (d->alias)
        snprintf (line + n, sizeof line - n, " [also\001%s]", d->alias);   /* kept whole */
      print_wrapped (out, left, line);
    }
  }
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
  const options defaults = o;   /* for --help, whatever options come before it */
  options epic_defaults = o;     /* the refinement's defaults under epic */
  epic_defaults.rf = o.epic.refine_params;
  /* the method first, whatever the order of the options: each option is checked
   * against it, and epic's refinement (on unless --refine none) starts from the
   * method's own parameters */
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--method"))
      o.method = argv[++i];
  int method = method_bit (o.method);
  if (method == M_EPIC) {
    o.rf = o.epic.refine_params;
    o.refine = true;
  }
  const char *in[2] = { NULL, NULL }, *out = NULL, *truth = NULL, *vis = NULL, *eval = NULL;
  const char *refine_opt = NULL;   /* the first refine-* option given */
  int threads = 0, nin = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
#define OPT(name) (!strcmp (a, name) && v && ++i)
    const opt_def *d;
    int other;
    if (!strcmp (a, "--help")) {
      usage (stdout, &defaults, &epic_defaults);
      return 0;
    } else if (!strcmp (a, "--version")) {
      cv_print_version ();
      return 0;
    }
    else if (OPT ("--method")) {
      if (!method_bit (v))
        ok = cv_option_error ("--method", v, "one of lk, blockmatch, epic");
    } else if (OPT ("--backend"))
      ok = cv_parse_backend ("--backend", v, true, &o.backend);
    else if (OPT ("--repeat")) ok = cv_parse_int ("--repeat", v, 1, MAX_REPEAT, &o.repeat);
    else if (OPT ("--cpu-threads"))
      ok = cv_parse_int ("--cpu-threads", v, 0, CC_CONTEXT_THREADS_MAX, &threads);
    else if (!strcmp (a, "--refine")) {
      o.refine = true;
      if (v && (!strcmp (v, "variational") || !strcmp (v, "none") || !strcmp (v, "true")
              || !strcmp (v, "false"))) {
        o.refine = !strcmp (v, "variational") || !strcmp (v, "true");
        i++;
      }
    }
    else if (OPT ("-o")) out = v;
    else if (OPT ("--truth")) truth = v;
    else if (OPT ("--vis")) vis = v;
    else if (OPT ("--eval")) eval = v;
    else if ((d = find_opt (a, method ? method : M_ALL, &other))) {
      bool takes_value = d->type != T_SET_BOOL && d->type != T_SET_INT;
      if (takes_value && !v) {
        fprintf (stderr, "cv-flow: %s needs a value (%s)\n", a, d->arg);
        return 2;
      }
      ok = apply_opt (d, a, takes_value ? argv[++i] : NULL, &o);
      if (d->methods == M_ALL && !refine_opt)
        refine_opt = a;
    } else if (other) {
      char m[64];
      methods_text (other, m, sizeof m);
      fprintf (stderr, "cv-flow: %s applies to --method %s, not %s\n", a, m, o.method);
      return 2;
    }
    else if (a[0] != '-' && nin < 2) in[nin++] = a;
    else {
      fprintf (stderr, "cv-flow: unknown or incomplete argument %s (cv-flow --help lists "
          "the options)\n", a);
      return 2;
    }
    if (!ok)
      return 2;
#undef OPT
  }
  if (refine_opt && !o.refine) {
    fprintf (stderr, "cv-flow: %s applies to the refinement, which is off (--refine "
        "variational turns it on)\n", refine_opt);
    return 2;
  }
  if (cc_flow_lk_params_check (&o.lk) != CC_SUCCESS
      || cc_blockmatch_params_check (&o.bm) != CC_SUCCESS
      || cc_refine_params_check (&o.rf) != CC_SUCCESS
      || cc_epic_params_check (&o.epic) != CC_SUCCESS)
    return cv_fail ("parameters");
  cc_context *ctx;
  if (cv_context_new (o.backend, CC_DEVICE_AUTO, threads, &ctx) != CC_SUCCESS)
    return cv_fail ("context");
  /* the backend used, on stderr (stdout keeps the results) */
  char what[64];
  snprintf (what, sizeof what, "method %s", o.method);
  cv_report_backend (ctx, o.backend, what);
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
