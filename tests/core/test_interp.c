/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EPIC interpolation (cc_interp): a piecewise-affine field sampled by matches comes
 * back exactly inside each region, an image edge stops interpolation across it
 * (and nothing does without edge costs), the geodesic keys are Dijkstra's, the
 * thread count changes no bit, bad input is refused or gives zero flow, and CUDA
 * gives the CPU's keys (same bits) and flow (within 1e-4 px) when a device exists. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_epic.h>
#include "interp_internal.h"
#include "interp_hostdev.h"

#include <math.h>
#include <string.h>

/* Two flat regions split at column `edge_x` (luma 40 left, 200 right). */
static cc_image
two_regions (int w, int h, int edge_x)
{
  cc_image f;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &f));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      ((uint8_t *) f.planes[0])[(size_t) y * f.pitch[0] + x] = x < edge_x ? 40 : 200;
  return f;
}

/* A textured GRAY8 frame. */
static cc_image
textured (int w, int h, unsigned seed)
{
  cc_image f;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &f));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      ((uint8_t *) f.planes[0])[(size_t) y * f.pitch[0] + x] =
          (uint8_t) lrintf (255.0f * cv_synth_texture (x, y, seed));
  return f;
}

static void
left_model (float x, float y, float *u, float *v)
{
  *u = 3.0f + 0.05f * x - 0.02f * y;
  *v = -2.0f + 0.01f * x + 0.03f * y;
}

static void
right_model (float x, float y, float *u, float *v)
{
  *u = -6.0f - 0.04f * x + 0.01f * y;
  *v = 4.0f + 0.02f * x - 0.05f * y;
}

/* The model of the region x lies in: left of edge_x, or right. */
static void
region_model (float x, float y, int edge_x, float *u, float *v)
{
  if (x < edge_x)
    left_model (x, y, u, v);
  else
    right_model (x, y, u, v);
}

/* Matches on a grid (step, offset), flow from the region's model. */
static int
grid_matches (int w, int h, int step, int edge_x, cc_flow_match *m, int max)
{
  int n = 0;
  for (int y = step / 2; y < h; y += step)
    for (int x = step / 2; x < w; x += step) {
      ck_assert_int_lt (n, max);
      m[n].x = (float) x;
      m[n].y = (float) y;
      region_model (x, y, edge_x, &m[n].u, &m[n].v);
      m[n].confidence = 1.0f;
      n++;
    }
  return n;
}

/* Runs the interpolation on a backend; flow to a new host image. keys (may be
 * NULL): the geodesic keys, w * h. */
static void
interp_on (cc_backend backend, int threads, const cc_interp_params *p, const cc_image *frame,
    const cc_flow_match *m, int n, cc_image *flow, uint64_t *keys)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  cc_interp *ip;
  CC_ASSERT_OK (cc_interp_create (ctx, frame->width, frame->height, p, &ip));
  cc_image df, dflow;
  CC_ASSERT_OK (cv_test_to_backend (ctx, frame, &df));
  cc_location loc = backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  CC_ASSERT_OK (cc_image_alloc (ctx, frame->width, frame->height, CC_FORMAT_F32C2, loc,
          &dflow));
  CC_ASSERT_OK (cc_image_fill (ctx, NULL, &dflow, 0xFF));   /* poison: every pixel is written */
  cc_image mimg = cc_image_view ((void *) m, (size_t) (n > 0 ? n : 1) * sizeof *m,
      n > 0 ? n : 1, 1, CC_FORMAT_GRAY8, CC_LOCATION_HOST);
  const cc_flow_match *dm = m;
  cc_image dmimg = mimg;
  if (backend == CC_BACKEND_CUDA && n > 0) {
    CC_ASSERT_OK (cc_image_alloc (ctx, (int) (n * sizeof *m), 1, CC_FORMAT_GRAY8,
            CC_LOCATION_DEVICE, &dmimg));
    mimg.width = (int) (n * sizeof *m);
    CC_ASSERT_OK (cc_image_copy (ctx, NULL, &mimg, &dmimg));
    dm = (const cc_flow_match *) dmimg.planes[0];
  }
  CC_ASSERT_OK (cc_interp_compute (ip, NULL, &df, dm, n, &dflow));
  CC_ASSERT_OK (cv_test_to_host (ctx, &dflow, flow));
  if (keys)
    CC_ASSERT_OK (cc_interp_debug (ip, NULL, keys));
  cv_test_assert_finite (flow, "interpolated flow");
  if (backend == CC_BACKEND_CUDA && n > 0)
    cc_image_free (ctx, &dmimg);
  cc_image_free (ctx, &df);
  cc_image_free (ctx, &dflow);
  cc_interp_destroy (ip);
  cc_context_destroy (ctx);
}

static const float *
flow_at (const cc_image *f, int x, int y)
{
  return (const float *) ((const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0]) + 2 * x;
}

/* Matches sampled from a piecewise-affine field (two regions split by an image
 * edge) reproduce it: exact (1e-3 px) at every pixel, near the edge too, with the
 * edge cost high enough to stop the fit from mixing the two regions. */
START_TEST (test_piecewise_affine)
{
  const int w = 96, h = 64, edge = 50;
  cc_image frame = two_regions (w, h, edge);
  cc_flow_match m[1024];
  int n = grid_matches (w, h, 4, edge, m, 1024);
  cc_interp_params p;
  cc_interp_params_default (&p);
  p.edge_weight = 1.0f;
  cc_image flow;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &flow, NULL);
  double worst = 0.0, near = 0.0;
  int shown = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float u, v;
      region_model (x, y, edge, &u, &v);
      const float *f = flow_at (&flow, x, y);
      double e = fmax (fabs (f[0] - u), fabs (f[1] - v));
      if (x >= edge - 2 && x < edge + 2) {
        /* on the blurred edge: one of the two models (the cell may be across) */
        float uo, vo;
        if (x < edge)
          right_model (x, y, &uo, &vo);
        else
          left_model (x, y, &uo, &vo);
        e = fmin (e, fmax (fabs (f[0] - uo), fabs (f[1] - vo)));
        near = fmax (near, e);
      } else
        worst = fmax (worst, e);
      if (e > 1e-3 && !shown++)
        fprintf (stderr, "(%d, %d): (%g, %g) want (%g, %g)\n", x, y, f[0], f[1], u, v);
    }
  ck_assert_msg (worst < 1e-3, "piecewise-affine field off by %g px", worst);
  ck_assert_msg (near < 1e-3, "piecewise-affine field off by %g px on the edge", near);
  /* Nadaraya-Watson: piecewise constant per cell, within the model's change over a
   * few seeds */
  p.affine = false;
  cc_image nw;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &nw, NULL);
  const float *f = flow_at (&nw, 20, 30);
  float u, v;
  left_model (20, 30, &u, &v);
  ck_assert_msg (fabsf (f[0] - u) < 1.0f && fabsf (f[1] - v) < 1.0f,
      "NW (%g, %g) vs (%g, %g)", f[0], f[1], u, v);
  ck_assert_msg (fabsf (f[0] - u) > 1e-4f || fabsf (f[1] - v) > 1e-4f,
      "NW should not be exact on an affine field");
  cv_image_free (&nw);
  cv_image_free (&flow);
  cv_image_free (&frame);
}
END_TEST

/* Cells: matches every 2 px; with cell c the seeds (the labels of the geodesic
 * keys) are exactly the lowest-index match of each c x c block, and the affine
 * field comes back exact away from the edge for every cell size. */
START_TEST (test_cells)
{
  const int w = 96, h = 64, edge = 48;
  cc_image frame = two_regions (w, h, edge);
  cc_flow_match m[2048];
  int n = grid_matches (w, h, 2, edge, m, 2048);
  static const int cells[] = { 2, 4, 8 };
  for (unsigned ci = 0; ci < sizeof cells / sizeof cells[0]; ci++) {
    const int c = cells[ci], bw = (w + c - 1) / c, nb = bw * ((h + c - 1) / c);
    cc_interp_params p;
    cc_interp_params_default (&p);
    p.edge_weight = 1.0f;
    p.cell = c;
    cc_image flow;
    uint64_t *keys = malloc ((size_t) w * h * 8);
    interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &flow, keys);
    /* the seed of each block: its lowest match index */
    int *want = malloc ((size_t) nb * sizeof *want);
    for (int b = 0; b < nb; b++)
      want[b] = -1;
    for (int i = n - 1; i >= 0; i--)
      want[((int) m[i].y / c) * bw + (int) m[i].x / c] = i;
    int seeds = 0;
    for (int b = 0; b < nb; b++)
      if (want[b] >= 0) {
        seeds++;
        size_t px = (size_t) m[want[b]].y * w + (size_t) m[want[b]].x;
        ck_assert_msg ((keys[px] & 0xFFFFFFFFu) == (uint64_t) b && (keys[px] >> 32) == 0,
            "cell %d: block %d's seed pixel does not carry its own key", c, b);
      }
    int labelled = 0;
    for (int b = 0; b < nb; b++) {
      int found = 0;
      for (size_t q = 0; q < (size_t) w * h && !found; q++)
        found = (keys[q] & 0xFFFFFFFFu) == (uint64_t) b;
      labelled += found;
    }
    ck_assert_int_eq (labelled, seeds);
    ck_assert_int_eq (seeds, nb);   /* matches every 2 px reach every block */
    double worst = 0.0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        if (x >= edge - c - 2 && x < edge + c + 2)
          continue;   /* cells across the blurred edge */
        float u, v;
        region_model (x, y, edge, &u, &v);
        const float *f = flow_at (&flow, x, y);
        worst = fmax (worst, fmax (fabs (f[0] - u), fabs (f[1] - v)));
      }
    ck_assert_msg (worst < 1e-3, "cell %d: affine field off by %g px", c, worst);
    free (want);
    free (keys);
    cv_image_free (&flow);
  }
  cv_image_free (&frame);
}
END_TEST

/* The left region has matches only far from the edge (x < 12); the right region
 * everywhere. With edge costs, the left pixels next to the edge still take the left
 * flow; with edge_weight 0 (Euclidean-like geodesic), they take the right one. */
START_TEST (test_edges_stop_interpolation)
{
  const int w = 80, h = 40, edge = 40;
  cc_image frame = two_regions (w, h, edge);
  cc_flow_match m[512];
  int n = 0;
  for (int y = 2; y < h; y += 4)
    for (int x = 2; x < w; x += 4) {
      if (x >= 12 && x < edge)
        continue;
      m[n].x = (float) x;
      m[n].y = (float) y;
      m[n].u = x < edge ? 5.0f : -3.0f;
      m[n].v = x < edge ? 0.0f : 2.0f;
      m[n].confidence = 1.0f;
      n++;
    }
  cc_interp_params p;
  cc_interp_params_default (&p);
  p.affine = false;
  p.edge_weight = 1.0f;
  cc_image with, without;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &with, NULL);
  p.edge_weight = 0.0f;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &without, NULL);
  for (int y = 0; y < h; y++) {
    const float *a = flow_at (&with, 36, y), *b = flow_at (&without, 36, y);
    ck_assert_msg (fabsf (a[0] - 5.0f) < 1e-3f && fabsf (a[1]) < 1e-3f,
        "edge kept: (36, %d) = (%g, %g), want (5, 0)", y, a[0], a[1]);
    ck_assert_msg (fabsf (b[0] + 3.0f) < 0.1f && fabsf (b[1] - 2.0f) < 0.1f,
        "no edge: (36, %d) = (%g, %g), want about (-3, 2)", y, b[0], b[1]);
  }
  cv_image_free (&with);
  cv_image_free (&without);
  cv_image_free (&frame);
}
END_TEST

/* The CPU's keys are the exact fixed point key(p) = min over neighbours of
 * relax (key(q), step), seeds at distance 0, and every pixel is reached; thread
 * counts give the same bits. */
START_TEST (test_geodesic_fixed_point)
{
  const int w = 70, h = 45;
  cc_image frame = textured (w, h, 7);
  cc_flow_match m[256];
  int n = 0;
  for (int i = 0; i < 40; i++) {
    m[n].x = (float) ((i * 37) % w);
    m[n].y = (float) ((i * 23 + 5) % h);
    m[n].u = (float) (i % 5);
    m[n].v = (float) (i % 3) - 1.0f;
    m[n].confidence = 1.0f;
    n++;
  }
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_interp *ip;
  cc_interp_params p;
  cc_interp_params_default (&p);
  CC_ASSERT_OK (cc_interp_create (ctx, w, h, &p, &ip));
  cc_image flow;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_F32C2, &flow));
  CC_ASSERT_OK (cc_interp_compute (ip, NULL, &frame, m, n, &flow));
  float *cost = malloc ((size_t) w * h * sizeof (float));
  uint64_t *keys = malloc ((size_t) w * h * sizeof (uint64_t));
  CC_ASSERT_OK (cc_interp_debug (ip, cost, keys));
  int seeds = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint64_t k = keys[y * w + x];
      ck_assert (k != CC_INTERP_KEY_NONE);
      if (cc_interp_key_dist (k) == 0.0f) {
        seeds++;
        continue;
      }
      uint64_t best = CC_INTERP_KEY_NONE;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int qx = x + dx, qy = y + dy;
          if ((dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= w || qy >= h)
            continue;
          uint64_t c = cc_interp_relax (keys[qy * w + qx], cc_interp_step (cost[y * w + x],
                  cost[qy * w + qx], dx != 0 && dy != 0));
          if (c < best)
            best = c;
        }
      ck_assert_msg (best == k, "pixel (%d, %d) is not at the fixed point", x, y);
    }
  ck_assert_int_eq (seeds, n);   /* 40 distinct pixels in distinct 2x2 blocks */
  cc_image one;
  interp_on (CC_BACKEND_CPU, 1, &p, &frame, m, n, &one, NULL);
  cv_test_assert_same_bits (&one, &flow, "1 thread vs all");
  cv_image_free (&one);
  free (cost);
  free (keys);
  cv_image_free (&flow);
  cc_interp_destroy (ip);
  cc_context_destroy (ctx);
  cv_image_free (&frame);
}
END_TEST

/* No match, only rejected or invalid ones, a 1x1 frame: zero flow or the one match's
 * flow, no crash; bad arguments: INVALID_ARGUMENT. */
/* robust: outlier matches (every 7th, u + 40) among a constant field on a flat frame
 * pull the plain weighted mean by px; the robust mean (robust 5) stays on the field,
 * in the outliers' own cells too. */
START_TEST (test_robust_mean)
{
  const int w = 96, h = 64;
  cc_image frame = two_regions (w, h, w);   /* flat: no edges */
  cc_flow_match m[512];
  int n = 0;
  for (int y = 2; y < h; y += 4)
    for (int x = 2; x < w; x += 4) {
      m[n].x = (float) x;
      m[n].y = (float) y;
      m[n].u = 5.0f + (n % 7 == 3 ? 40.0f : 0.0f);
      m[n].v = -2.0f;
      m[n].confidence = 1.0f;
      n++;
    }
  cc_interp_params p;
  cc_interp_params_default (&p);
  p.affine = false;
  p.sigma = 10.0f;
  cc_image plain, robust;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &plain, NULL);
  p.robust = 5.0f;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &robust, NULL);
  double worst_plain = 0.0, worst_robust = 0.0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const float *a = flow_at (&plain, x, y), *b = flow_at (&robust, x, y);
      worst_plain = fmax (worst_plain, hypot (a[0] - 5.0f, a[1] + 2.0f));
      worst_robust = fmax (worst_robust, hypot (b[0] - 5.0f, b[1] + 2.0f));
    }
  fprintf (stderr, "robust: worst error of the plain mean %.3f px, of the robust mean %.3f px\n",
      worst_plain, worst_robust);
  ck_assert_msg (worst_plain > 2.0, "plain mean: outliers pull only %g px", worst_plain);
  ck_assert_msg (worst_robust < 0.1, "robust mean: %g px off the field", worst_robust);
  cv_image_free (&plain);
  cv_image_free (&robust);
  cv_image_free (&frame);
}
END_TEST

/* extrapolate: an expanding field v = 0.25 y matched in the top rows only (as the
 * ground under a forward-moving camera, whose bottom rows leave the frame). The
 * weighted mean stops at the last matched rows; with the trend, the bottom rows
 * continue the field, while the matched rows (their targets in the frame) are the
 * mean's to the bit. */
START_TEST (test_extrapolate)
{
  const int w = 64, h = 64, last = 36;
  cc_image frame = textured (w, h, 5);
  cc_flow_match m[512];
  int n = 0;
  for (int y = 2; y <= last; y += 4)
    for (int x = 2; x < w; x += 4)
      m[n++] = (cc_flow_match) { (float) x, (float) y, 0.0f, 0.25f * (float) y, 1.0f };
  cc_interp_params p;
  cc_interp_params_default (&p);
  p.affine = false;
  cc_image mean, trend;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &mean, NULL);
  p.extrapolate = 2.0f;
  interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &trend, NULL);
  double err_mean = 0.0, err_trend = 0.0;
  int same = 0, inside = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const float *a = flow_at (&mean, x, y), *b = flow_at (&trend, x, y);
      if (y <= last) {
        inside++;
        same += a[0] == b[0] && a[1] == b[1];
      }
      if (y == h - 1) {
        err_mean += fabs (a[1] - 0.25 * y) / w;
        err_trend += fabs (b[1] - 0.25 * y) / w;
      }
    }
  fprintf (stderr, "extrapolate: bottom row |error| mean %.3f px, with the trend %.3f px; "
      "%d of %d matched pixels unchanged\n", err_mean, err_trend, same, inside);
  ck_assert_msg (err_mean > 4.0, "the mean should stop at the last rows (%g)", err_mean);
  ck_assert_msg (err_trend < 0.5 * err_mean, "trend %g vs mean %g", err_trend, err_mean);
  ck_assert_int_eq (same, inside);
  cv_image_free (&mean);
  cv_image_free (&trend);
  cv_image_free (&frame);
}
END_TEST

START_TEST (test_bad_input)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_interp_params p;
  cc_interp_params_default (&p);
  cc_interp *ip;
  const int w = 24, h = 16;
  CC_ASSERT_OK (cc_interp_create (ctx, w, h, &p, &ip));
  cc_image frame = textured (w, h, 3), flow;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_F32C2, &flow));
  cc_flow_match bad[4] = {
    { 3, 3, 5, 5, 0.0f },                 /* rejected */
    { -4, 3, 5, 5, 1.0f },                /* outside */
    { 3, 3, NAN, 5, 1.0f },               /* not finite */
    { 3, 40, 5, 5, 1.0f },                /* outside */
  };
  for (int n = 0; n <= 4; n++) {
    CC_ASSERT_OK (cc_image_fill (ctx, NULL, &flow, 0xFF));
    CC_ASSERT_OK (cc_interp_compute (ip, NULL, &frame, n ? bad : NULL, n, &flow));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        ck_assert (flow_at (&flow, x, y)[0] == 0.0f && flow_at (&flow, x, y)[1] == 0.0f);
  }
  /* errors */
  ck_assert_int_eq (cc_interp_compute (ip, NULL, &frame, NULL, 3, &flow),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_interp_compute (ip, NULL, &frame, bad, -1, &flow),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_interp_compute (ip, NULL, &flow, bad, 1, &flow), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_interp_compute (ip, NULL, &frame, bad, 1, &frame),
      CC_ERROR_INVALID_ARGUMENT);
  cc_image small;
  CC_ASSERT_OK (cv_image_new (w - 1, h, CC_FORMAT_F32C2, &small));
  ck_assert_int_eq (cc_interp_compute (ip, NULL, &frame, bad, 1, &small),
      CC_ERROR_INVALID_ARGUMENT);
  cv_image_free (&small);
  cc_interp_params q = p;
  q.k = 0;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.k = 129;
  ck_assert_int_eq (cc_interp_set_params (ip, &q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.cell = 1;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q.cell = 9;
  ck_assert_int_eq (cc_interp_set_params (ip, &q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.sigma = 0.0f;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.flat_cost = 0.0f;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.extrapolate = -1.0f;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q.extrapolate = NAN;
  ck_assert_int_eq (cc_interp_set_params (ip, &q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.robust = -1.0f;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  q.robust = NAN;
  ck_assert_int_eq (cc_interp_set_params (ip, &q), CC_ERROR_INVALID_ARGUMENT);
  q = p;
  q.edge_weight = NAN;
  ck_assert_int_eq (cc_interp_params_check (&q), CC_ERROR_INVALID_ARGUMENT);
  cc_interp *none;
  ck_assert_int_eq (cc_interp_create (ctx, 0, 4, &p, &none), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null (none);
  cc_interp_destroy (ip);
  cv_image_free (&flow);
  cv_image_free (&frame);

  /* 1x1: one match gives its flow (Nadaraya-Watson of one) */
  CC_ASSERT_OK (cc_interp_create (ctx, 1, 1, &p, &ip));
  cc_image one = textured (1, 1, 1);
  CC_ASSERT_OK (cv_image_new (1, 1, CC_FORMAT_F32C2, &flow));
  cc_flow_match single = { 0, 0, 2.5f, -1.5f, 0.5f };
  CC_ASSERT_OK (cc_interp_compute (ip, NULL, &one, &single, 1, &flow));
  ck_assert_float_eq (flow_at (&flow, 0, 0)[0], 2.5f);
  ck_assert_float_eq (flow_at (&flow, 0, 0)[1], -1.5f);
  cc_interp_destroy (ip);
  cv_image_free (&flow);
  cv_image_free (&one);
  cc_context_destroy (ctx);
}
END_TEST

/* CUDA == CPU: the same geodesic keys (bits) and flow within 1e-4 px, on a textured
 * frame with a smooth field plus a few outliers, RGBX8 input. */
START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("interp: CUDA vs CPU");
  const int w = 203, h = 117;
  cc_image gray = textured (w, h, 11), frame;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &frame));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t g = ((uint8_t *) gray.planes[0])[(size_t) y * gray.pitch[0] + x];
      uint8_t *px = (uint8_t *) frame.planes[0] + (size_t) y * frame.pitch[0] + 4 * x;
      px[0] = g;
      px[1] = (uint8_t) (255 - g);
      px[2] = (uint8_t) (g / 2);
      px[3] = 255;
    }
  cc_flow_match *m = malloc (4096 * sizeof *m);
  int n = 0;
  for (int y = 1; y < h; y += 3)
    for (int x = 2; x < w; x += 3) {
      m[n].x = (float) x + 0.25f * (float) ((x * 7 + y) % 3 - 1);
      m[n].y = (float) y;
      m[n].u = 10.0f * sinf (x * 0.03f) + (n % 97 == 0 ? 40.0f : 0.0f);
      m[n].v = 5.0f * cosf (y * 0.05f);
      m[n].confidence = n % 11 == 0 ? 0.0f : 1.0f;
      n++;
    }
  cc_interp_params p;
  cc_interp_params_default (&p);
  /* runs 4 and 5: the weighted mean with the trend past the frame (extrapolate); 6
   * and 7: the robust mean (robust 5), 7 with the trend too */
  for (int run = 0; run < 8; run++) {
    const int affine = run < 4 && (run & 1);
    p.affine = affine;
    p.cell = run % 4 < 2 ? 2 : 5;
    p.extrapolate = run == 4 || run == 5 || run == 7 ? 4.0f : 0.0f;
    p.robust = run >= 6 ? 5.0f : 0.0f;
    cc_image fc, fg;
    uint64_t *kc = malloc ((size_t) w * h * 8), *kg = malloc ((size_t) w * h * 8);
    interp_on (CC_BACKEND_CPU, 0, &p, &frame, m, n, &fc, kc);
    interp_on (CC_BACKEND_CUDA, 0, &p, &frame, m, n, &fg, kg);
    ck_assert_msg (memcmp (kc, kg, (size_t) w * h * 8) == 0, "geodesic keys differ");
    double worst = 0.0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int c = 0; c < 2; c++)
          worst = fmax (worst, fabs (flow_at (&fc, x, y)[c] - flow_at (&fg, x, y)[c]));
    ck_assert_msg (worst < 1e-4, "affine %d, cell %d: CUDA vs CPU differ by %g px", affine,
        p.cell, worst);
    free (kc);
    free (kg);
    cv_image_free (&fc);
    cv_image_free (&fg);
  }
  free (m);
  cv_image_free (&gray);
  cv_image_free (&frame);
}
END_TEST

static Suite *
interp_suite (void)
{
  Suite *s = suite_create ("interp");
  TCase *tc = tcase_create ("interp");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_piecewise_affine);
  tcase_add_test (tc, test_cells);
  tcase_add_test (tc, test_edges_stop_interpolation);
  tcase_add_test (tc, test_geodesic_fixed_point);
  tcase_add_test (tc, test_extrapolate);
  tcase_add_test (tc, test_robust_mean);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_gpu_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (interp_suite ());
}
