/* SPDX-License-Identifier: GPL-3.0-or-later */
/* quadcut-eval: accuracy and CPU timing of cc_quadcut (Quad-Cut), one JSON object per
 * line.
 *
 *   quadcut-eval --cdnet DIR [--first 470] [--last 699] [--learn N] [--threads T]
 *                [--nodes leaves|pixels] [--save-masks OUTDIR] [PARAMS]
 *   quadcut-eval --synthetic WxH [--frames N] [--threads T] [--nodes ...] [PARAMS]
 *   quadcut-eval --align PLATE --frame FRAME [--max-shift N] [--aligned OUT.png]
 *   quadcut-eval --version
 *   --backend cpu|cuda (default cpu): frames are uploaded before each run (not in the
 *   stage times; on CUDA the front's stages are device time, see cc_quadcut_get_stage_ms).
 *
 * PARAMS: --sigma-l --shadow-depth --seed-threshold --bins --sigma-c --lambda
 *         --similarity --certain --max-level --temporal (cc_quadcut_params, same ranges).
 *
 * --cdnet: a CDnet 2014 category folder (input/in%06d.jpg, groundtruth/gt%06d.png).
 *   The plate is the per-pixel, per-channel median of the first N frames (default
 *   100), or with --learn-step S the first frame moved towards each of the next N - 1
 *   by at most S levels a channel (cc_quadcut_update_plate); with --update-step U
 *   the plate also moves by at most U after each frame where the alpha is 0; every
 *   frame from 1 to --last is then segmented in order (the temporal
 *   prior runs), and frames --first..--last are scored by CDnet's rules: ground truth
 *   255 is foreground, 0 and 50 (shadow) background, 85 (outside the ROI) and 170
 *   (unknown) not scored; precision, recall and F-measure over all scored pixels of
 *   those frames. The ground truth's 85 marks exactly the pixels outside ROI.bmp.
 *   --save-masks: OUTDIR/mask%06d.png and the debug view OUTDIR/leaves%06d.png
 *   (cc_quadcut_draw) of every scored frame.
 * --synthetic: the foreground clip of cv_synth (plate mode, noise 6) of that size;
 *   mismatches against its exact masks, and the median time split of the stages.
 *   Its cast shadow takes 45 % of the light: --shadow-depth 0.6 counts it as
 *   background (the default 0.15 does not).
 * --align: the global shift between a plate photo and a frame (PNG or JPEG, one
 *   size) by cv_align_shift (coarse to fine, the largest share of pixels that agree;
 *   --max-shift, default 64 px); --aligned writes the plate moved onto the frame, for
 *   quadcut's plate-location. The JSON gives the shift and the share of agreeing
 *   pixels before and after. */
#include "cv_align.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include "cv_cli.h"
#include "cv_timing.h"
#include <cudacore/cc_quadcut.h>
#include "cc_tuning.h"   /* cudacore/src: the stage times */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backend's images: host images as they are on the CPU; on CUDA, copies in
 * device images (allocated at the first use, one per role). */
static cc_context *g_ctx;
static bool g_cuda;

/* The device image of a role, of `host`'s size and format (allocated at the first use). */
static cc_image *
dev_image (const cc_image *host, cc_image *dev)
{
  if (!dev->planes[0] && cc_image_alloc (g_ctx, host->width, host->height, host->format,
      CC_LOCATION_DEVICE, dev) != CC_SUCCESS)
    return NULL;
  return dev;
}

static const cc_image *
up (const cc_image *host, cc_image *dev)
{
  if (!g_cuda)
    return host;
  cc_image *d = dev_image (host, dev);
  return d && cc_image_copy (g_ctx, NULL, host, d) == CC_SUCCESS ? d : NULL;
}

/* Runs get (mask, plate or the leaves drawn) into the backend's image, then to host. */
static cc_status
down (cc_image *host, cc_image *dev)
{
  if (!g_cuda)
    return CC_SUCCESS;
  return cc_image_copy (g_ctx, NULL, dev, host);
}

static cc_image *
where (cc_image *host, cc_image *dev)
{
  return g_cuda ? dev_image (host, dev) : host;
}

/* A run's images: the plate and the mask on the host, and the frame's, the plate's and
 * the mask's copies where the backend computes (CUDA only). */
typedef struct {
  cc_image plate, mask;
  cc_image dframe, dplate, dmask;
} eval_images;

static void
free_dev (cc_image *dev)
{
  if (g_cuda && dev->planes[0])
    cc_image_free (g_ctx, dev);
}

static void
eval_images_free (eval_images *im)
{
  cv_image_free (&im->mask);
  cv_image_free (&im->plate);
  free_dev (&im->dframe);
  free_dev (&im->dplate);
  free_dev (&im->dmask);
}

static const char *stage_names[CC_QUADCUT_STAGES] = {
  "stratify", "histogram", "pyramid", "leaves", "neighbours", "transfer", "graph", "maxflow",
  "output"
};

static void
print_stages (double ms[][CC_QUADCUT_STAGES], int runs)
{
  double *v = malloc ((size_t) runs * sizeof *v);
  printf (", \"ms\": {");
  double total = 0.0;
  for (int s = 0; s < CC_QUADCUT_STAGES; s++) {
    for (int r = 0; r < runs; r++)
      v[r] = ms[r][s];
    double median = cv_median (v, runs);
    printf ("%s\"%s\": %.3f", s ? ", " : "", stage_names[s], median);
    total += median;
  }
  printf ("}, \"total_ms\": %.3f", total);
  free (v);
}

static int
run_cdnet (const char *dir, int first, int last, int learn, int learn_step, int update_step,
    cc_context *ctx, const cc_quadcut_params *p, const char *save)
{
  char path[4096];
  cc_image f;
  if (cv_cdnet_frame_load (dir, 1, &f) != CC_SUCCESS)
    return cv_fail ("first frame");
  const int w = f.width, h = f.height;
  cv_image_free (&f);
  size_t n = (size_t) w * h;
  cc_quadcut *q;
  if (cc_quadcut_create (ctx, w, h, p, &q) != CC_SUCCESS)
    return cv_fail ("create");
  eval_images im;
  memset (&im, 0, sizeof im);
  if (learn_step > 0) {
    /* plate: the first frame, then cc_quadcut_update_plate (approximate median) */
    for (int t = 0; t < learn; t++) {
      if (cv_cdnet_frame_load (dir, t + 1, &f) != CC_SUCCESS)
        return cv_fail ("plate frame");
      const cc_image *fd = up (&f, &im.dframe);
      if (!fd || (t == 0 ? cc_quadcut_set_plate (q, NULL, fd) : cc_quadcut_update_plate (q, NULL, fd,
          learn_step, false)) != CC_SUCCESS)
        return cv_fail ("plate");
      cv_image_free (&f);
    }
    cv_image_new (w, h, CC_FORMAT_RGBX8, &im.plate);
    if (cc_quadcut_get_plate (q, NULL, where (&im.plate, &im.dplate)) != CC_SUCCESS
        || down (&im.plate, &im.dplate) != CC_SUCCESS)
      return cv_fail ("get plate");
  } else {
    /* plate: median of the first `learn` frames */
    cc_image *learnt = calloc ((size_t) learn, sizeof *learnt);
    for (int t = 0; t < learn; t++) {
      if (cv_cdnet_frame_load (dir, t + 1, &learnt[t]) != CC_SUCCESS)
        return cv_fail ("plate frame");
    }
    if (cv_median_frames (learnt, learn, &im.plate) != CC_SUCCESS)
      return cv_fail ("plate");
    for (int t = 0; t < learn; t++)
      cv_image_free (&learnt[t]);
    free (learnt);
  }
  const cc_image *pd = up (&im.plate, &im.dplate);
  if (!pd || cc_quadcut_set_plate (q, NULL, pd) != CC_SUCCESS)
    return cv_fail ("plate");
  cv_image_new (w, h, CC_FORMAT_GRAY8, &im.mask);
  long long tp = 0, fp = 0, fn = 0, tn = 0, leaves = 0;
  int scored = 0, runs = 0;
  double (*ms)[CC_QUADCUT_STAGES] = calloc ((size_t) last, sizeof *ms);
  for (int t = 1; t <= last; t++) {
    if (cv_cdnet_frame_load (dir, t, &f) != CC_SUCCESS)
      return cv_fail ("frame");
    const cc_image *fd = up (&f, &im.dframe);
    if (!fd || cc_quadcut_compute_sync (q, NULL, fd, NULL) != CC_SUCCESS)
      return cv_fail ("run");
    if (update_step > 0 && cc_quadcut_update_plate (q, NULL, fd, update_step, true) != CC_SUCCESS)
      return cv_fail ("plate update");
    cc_quadcut_graph g;
    cc_quadcut_get_graph (q, &g);
    cc_quadcut_get_stage_ms (q, ms[runs++]);
    if (t < first) {
      cv_image_free (&f);
      continue;
    }
    cc_image gt;
    snprintf (path, sizeof path, "%s/groundtruth/gt%06d.png", dir, t);
    if (cv_png_load (path, CC_FORMAT_GRAY8, &gt) != CC_SUCCESS)
      return cv_fail ("ground truth");
    if (cc_quadcut_get_mask (q, NULL, where (&im.mask, &im.dmask)) != CC_SUCCESS
        || down (&im.mask, &im.dmask) != CC_SUCCESS)
      return cv_fail ("mask");
    leaves += g.n_nodes;
    scored++;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        int v = ((uint8_t *) gt.planes[0])[y * gt.pitch[0] + x];
        int m = ((uint8_t *) im.mask.planes[0])[y * im.mask.pitch[0] + x] != 0;
        if (v == 255)
          m ? tp++ : fn++;
        else if (v == 0 || v == 50)
          m ? fp++ : tn++;
      }
    cv_image_free (&gt);
    if (save) {
      snprintf (path, sizeof path, "%s/mask%06d.png", save, t);
      if (cv_png_save (path, &im.mask) != CC_SUCCESS)
        return cv_fail ("save mask");
      if (p->nodes == CC_QUADCUT_NODES_LEAVES) {
        /* the debug view over the frame (fd: this frame, still on the backend) */
        if (cc_quadcut_draw (q, NULL, fd, (cc_image *) fd) != CC_SUCCESS
            || down (&f, &im.dframe) != CC_SUCCESS)
          return cv_fail ("leaves view");
        snprintf (path, sizeof path, "%s/leaves%06d.png", save, t);
        if (cv_png_save (path, &f) != CC_SUCCESS)
          return cv_fail ("save leaves view");
      }
    }
    cv_image_free (&f);
  }
  double pr = tp + fp ? (double) tp / (tp + fp) : 0.0, re = tp + fn ? (double) tp / (tp + fn)
      : 0.0, fm = pr + re > 0.0 ? 2.0 * pr * re / (pr + re) : 0.0;
  printf ("{\"clip\": \"%s\", \"frames\": [%d, %d], \"learn\": %d, \"learn_step\": %d, "
      "\"nodes\": \"%s\", "
      "\"precision\": %.4f, \"recall\": %.4f, \"f\": %.4f, \"tp\": %lld, \"fp\": %lld, "
      "\"fn\": %lld, \"tn\": %lld, \"nodes_share\": %.4f", dir, first, last, learn, learn_step,
      p->nodes == CC_QUADCUT_NODES_LEAVES ? "leaves" : "pixels", pr, re, fm, tp, fp, fn, tn,
      (double) leaves / scored / n);
  print_stages (ms, runs);
  printf ("}\n");
  free (ms);
  eval_images_free (&im);
  cc_quadcut_destroy (q);
  return 0;
}

static int
run_synthetic (int w, int h, int frames, cc_context *ctx, const cc_quadcut_params *p)
{
  eval_images im;
  memset (&im, 0, sizeof im);
  if (cv_synth_fg_plate (w, h, &im.plate) != CC_SUCCESS)
    return cv_fail ("plate");
  cc_quadcut *q;
  if (cc_quadcut_create (ctx, w, h, p, &q) != CC_SUCCESS)
    return cv_fail ("create");
  const cc_image *pd = up (&im.plate, &im.dplate);
  if (!pd || cc_quadcut_set_plate (q, NULL, pd) != CC_SUCCESS)
    return cv_fail ("plate");
  uint8_t *truth = malloc ((size_t) w * h);
  cv_image_new (w, h, CC_FORMAT_GRAY8, &im.mask);
  double (*ms)[CC_QUADCUT_STAGES] = calloc ((size_t) frames, sizeof *ms);
  long long wrong = 0, nodes = 0;
  for (int t = 0; t < frames; t++) {
    cc_image f;
    if (cv_synth_fg_frame (t, w, h, CV_SYNTH_FG_PLAIN, 6, &f, truth) != CC_SUCCESS)
      return cv_fail ("frame");
    const cc_image *fd = up (&f, &im.dframe);
    if (!fd || cc_quadcut_compute_sync (q, NULL, fd, NULL) != CC_SUCCESS)
      return cv_fail ("run");
    cc_quadcut_graph g;
    cc_quadcut_get_graph (q, &g);
    cc_quadcut_get_stage_ms (q, ms[t]);
    nodes += g.n_nodes;
    if (cc_quadcut_get_mask (q, NULL, where (&im.mask, &im.dmask)) != CC_SUCCESS
        || down (&im.mask, &im.dmask) != CC_SUCCESS)
      return cv_fail ("mask");
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        wrong += ((uint8_t *) im.mask.planes[0])[y * im.mask.pitch[0] + x] != truth[y * w + x];
    cv_image_free (&f);
  }
  printf ("{\"synthetic\": \"%dx%d\", \"backend\": \"%s\", \"frames\": %d, \"threads\": %d, "
      "\"nodes\": \"%s\", "
      "\"wrong_share\": %.6f, \"nodes_share\": %.4f", w, h, g_cuda ? "cuda" : "cpu", frames,
      cc_context_cpu_threads (ctx), p->nodes == CC_QUADCUT_NODES_LEAVES ? "leaves" : "pixels",
      (double) wrong / frames / ((double) w * h), (double) nodes / frames / ((double) w * h));
  print_stages (ms, frames);
  printf ("}\n");
  free (ms);
  free (truth);
  eval_images_free (&im);
  cc_quadcut_destroy (q);
  return 0;
}

static int
run_align (const char *plate_path, const char *frame_path, int max_shift, const char *out)
{
  cc_image plate, frame, moved;
  if (cv_image_load (plate_path, &plate) != CC_SUCCESS)
    return cv_fail ("plate");
  if (cv_image_load (frame_path, &frame) != CC_SUCCESS)
    return cv_fail ("frame");
  int dx, dy;
  double agree, agree0;
  if (cv_align_shift (&plate, &frame, max_shift, &dx, &dy, &agree, &agree0) != CC_SUCCESS)
    return cv_fail ("align");
  if (out && (cv_shift_image (&plate, dx, dy, &moved) != CC_SUCCESS
          || cv_png_save (out, &moved) != CC_SUCCESS))
    return cv_fail ("aligned plate");
  if (out)
    cv_image_free (&moved);
  printf ("{\"align\": \"%s\", \"frame\": \"%s\", \"dx\": %d, \"dy\": %d, "
      "\"agree\": %.4f, \"agree_unaligned\": %.4f}\n", plate_path, frame_path, dx, dy, agree,
      agree0);
  cv_image_free (&plate);
  cv_image_free (&frame);
  return 0;
}

/* --help: the defaults printed are cc_quadcut_params_default's */
static int
help (void)
{
  cc_quadcut_params d;
  cc_quadcut_params_default (&d);
  printf ("usage: quadcut-eval --cdnet DIR [--first N] [--last N] [--learn N] [--learn-step S]\n"
      "                    [--update-step U] [--save-masks DIR] [OPTIONS] [PARAMS]\n"
      "       quadcut-eval --synthetic WxH [--frames N] [OPTIONS] [PARAMS]\n"
      "       quadcut-eval --align PLATE --frame FRAME [--max-shift N] [--aligned OUT.png]\n"
      "       OPTIONS: [--threads T] [--backend cpu|cuda] [--nodes leaves|pixels]\n"
      "       PARAMS: [--sigma-l X] [--shadow-depth X] [--seed-threshold X] [--bins N]\n"
      "               [--sigma-c X] [--lambda X] [--similarity X] [--certain X]\n"
      "               [--max-level N] [--temporal X]\n"
      "Accuracy and CPU timing of Quad-Cut foreground segmentation (cc_quadcut), one JSON\n"
      "line per run; or the global shift between a plate photo and a frame.\n"
      "  --cdnet DIR          a CDnet 2014 category folder (input/, groundtruth/): the plate\n"
      "                       learned from the first frames, frames 1..--last segmented in\n"
      "                       order, --first..--last scored by CDnet's rules (precision,\n"
      "                       recall, F-measure)\n"
      "  --first N            the first scored frame (default 470)\n"
      "  --last N             the last (default 699)\n"
      "  --learn N            frames the plate is learned from (per-pixel median; default 100)\n"
      "  --learn-step S       learn the plate by moving the first frame towards each of the\n"
      "                       next N - 1 by at most S levels (0..255; 0, the default: median)\n"
      "  --update-step U      after each frame, move the plate by at most U where the alpha\n"
      "                       is 0 (0..255; default 0: off)\n"
      "  --save-masks DIR     the masks and leaf views of the scored frames, as PNG\n"
      "  --synthetic WxH      the project's foreground clip of that size instead: mismatches\n"
      "                       against its exact masks and the stages' median times\n"
      "  --frames N           --synthetic: frames (1..100000; default 20)\n"
      "  --threads T          CPU threads (0: all cores, the default)\n"
      "  --backend cpu|cuda   the backend (default cpu)\n"
      "  --nodes leaves|pixels  graph nodes: quadtree leaves (Quad-Cut, the default) or\n"
      "                       one per pixel (the reference)\n"
      "  --align PLATE        the shift that best lays the plate photo PLATE on a frame\n"
      "  --frame FRAME        --align: the frame (PNG or JPEG, PLATE's size)\n"
      "  --max-shift N        --align: the largest shift searched, px (0..4096; default 64)\n"
      "  --aligned OUT.png    --align: the plate moved onto the frame, for quadcut's\n"
      "                       plate-location\n"
      "PARAMS (the element's properties of the same names):\n"
      "  --sigma-l X          background distance std, Lab units; raise for noisy or\n"
      "                       changing light (0.1..100; default %g)\n"
      "  --shadow-depth X     darkest shadow kept as background, share of the plate's\n"
      "                       lightness (0..1; default %g)\n"
      "  --seed-threshold X   foreground seed where the background probability is below X\n"
      "                       (0..1; default %g)\n"
      "  --bins N             colour histogram bins per axis (2..256; default %d)\n"
      "  --sigma-c X          boundary colour std, Lab units (0.1..100; default %g)\n"
      "  --lambda X           boundary weight: raise for smoother cuts (0..1000; default %g)\n"
      "  --similarity X       largest colour range inside a leaf (0..1000; default %g)\n"
      "  --certain X          group surely background / foreground nodes whatever their\n"
      "                       texture (0..100, 0: off; default %g)\n"
      "  --max-level N        largest leaf side 2^N px (0..%d; default %d)\n"
      "  --temporal X         temporal prior per pixel (0..100; default %g)\n"
      "  -h, --help           this text\n"
      "  --version            the program's version\n",
      d.sigma_l, d.shadow_depth, d.seed_threshold, d.bins, d.sigma_c, d.lambda,
      d.similarity, d.certain, CC_QUADCUT_MAX_LEVEL, d.max_level, d.temporal);
  return 0;
}

static int
usage (void)
{
  fprintf (stderr, "usage: quadcut-eval --cdnet DIR [--first N] [--last N] [--learn N] "
      "[--learn-step S] [--update-step U] [--save-masks DIR] | --synthetic WxH [--frames N]; [--threads T] "
      "[--backend cpu|cuda] [--nodes leaves|pixels] [--sigma-l X] [--shadow-depth X] [--seed-threshold X] "
      "[--bins N] [--sigma-c X] [--lambda X] [--similarity X] [--certain X] [--max-level N] "
      "[--temporal X] | --align PLATE --frame FRAME [--max-shift N] [--aligned OUT.png]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  const char *cdnet = NULL, *save = NULL, *align = NULL, *align_frame = NULL, *aligned = NULL;
  int max_shift = 64;
  int sw = 0, sh = 0, frames = 20, first = 470, last = 699, learn = 100, threads = 0;
  int learn_step = 0, update_step = 0;
  cc_backend backend = CC_BACKEND_CPU;
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = cv_option_value (argc, argv, &i, help, usage);
    bool ok = true;
    if (!strcmp (o, "--cdnet"))
      cdnet = v;
    else if (!strcmp (o, "--align"))
      align = v;
    else if (!strcmp (o, "--frame"))
      align_frame = v;
    else if (!strcmp (o, "--aligned"))
      aligned = v;
    else if (!strcmp (o, "--max-shift"))
      ok = cv_parse_int (o, v, 0, 4096, &max_shift);
    else if (!strcmp (o, "--save-masks"))
      save = v;
    else if (!strcmp (o, "--synthetic"))
      ok = cv_parse_size (o, v, 16384, &sw, &sh);
    else if (!strcmp (o, "--frames"))
      ok = cv_parse_int (o, v, 1, 100000, &frames);
    else if (!strcmp (o, "--first"))
      ok = cv_parse_int (o, v, 1, 100000, &first);
    else if (!strcmp (o, "--last"))
      ok = cv_parse_int (o, v, 1, 100000, &last);
    else if (!strcmp (o, "--learn"))
      ok = cv_parse_int (o, v, 1, 10000, &learn);
    else if (!strcmp (o, "--learn-step"))
      ok = cv_parse_int (o, v, 0, 255, &learn_step);
    else if (!strcmp (o, "--update-step"))
      ok = cv_parse_int (o, v, 0, 255, &update_step);
    else if (!strcmp (o, "--threads"))
      ok = cv_parse_int (o, v, 0, 1024, &threads);
    else if (!strcmp (o, "--backend"))
      ok = cv_parse_backend (o, v, false, &backend);
    else if (!strcmp (o, "--nodes")) {
      if (!strcmp (v, "leaves"))
        p.nodes = CC_QUADCUT_NODES_LEAVES;
      else if (!strcmp (v, "pixels"))
        p.nodes = CC_QUADCUT_NODES_PIXELS;
      else
        ok = cv_option_error (o, v, "one of leaves, pixels");
    } else if (!strcmp (o, "--sigma-l"))
      ok = cv_parse_float (o, v, 0.1, 100, &p.sigma_l);
    else if (!strcmp (o, "--shadow-depth"))
      ok = cv_parse_float (o, v, 0, 1, &p.shadow_depth);
    else if (!strcmp (o, "--seed-threshold"))
      ok = cv_parse_float (o, v, 0, 1, &p.seed_threshold);
    else if (!strcmp (o, "--bins"))
      ok = cv_parse_int (o, v, 2, 256, &p.bins);
    else if (!strcmp (o, "--sigma-c"))
      ok = cv_parse_float (o, v, 0.1, 100, &p.sigma_c);
    else if (!strcmp (o, "--lambda"))
      ok = cv_parse_float (o, v, 0, 1000, &p.lambda);
    else if (!strcmp (o, "--certain"))
      ok = cv_parse_float (o, v, 0, 100, &p.certain);
    else if (!strcmp (o, "--similarity"))
      ok = cv_parse_float (o, v, 0, 1000, &p.similarity);
    else if (!strcmp (o, "--max-level"))
      ok = cv_parse_int (o, v, 0, CC_QUADCUT_MAX_LEVEL, &p.max_level);
    else if (!strcmp (o, "--temporal"))
      ok = cv_parse_float (o, v, 0, 100, &p.temporal);
    else
      return usage ();
    if (!ok)
      return 2;
  }
  if (align || align_frame)
    return align && align_frame ? run_align (align, align_frame, max_shift, aligned) : usage ();
  if (!cdnet == !sw || first > last)
    return usage ();
  cc_context *ctx;
  if (cv_context_new (backend, backend == CC_BACKEND_CUDA ? 0 : -1, threads, &ctx)
      != CC_SUCCESS)
    return cv_fail ("context");
  cv_report_backend (ctx, backend, "quadcut");
  g_ctx = ctx;
  g_cuda = backend == CC_BACKEND_CUDA;
  int rc = cdnet ? run_cdnet (cdnet, first, last, learn, learn_step, update_step, ctx, &p,
      save)
      : run_synthetic (sw, sh, frames, ctx, &p);
  cc_context_destroy (ctx);
  return rc;
}
