/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MOCT: exact masses, centroids, boxes and moments of drawn pixel sets (1 to 1024
 * objects, cut by the frame edge, absent), tolerance edges and ties, every colour
 * space, NV12 / I420 against RGB, tiny and odd sizes, table errors, trajectories,
 * velocity, drawing, and CUDA == CPU bit for bit (every layout) when a device exists.
 * The truth comes from the drawn pixel sets (cv_synth_shapes' owner map), never from
 * the tracker. */
#include "cv_test.h"
#include "cc_tuning.h"   /* cudacore/src: the CUDA reduction layouts */
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_moct.h>

#include <math.h>
#include <string.h>

/* Truth of one object from an owner map. */
typedef struct {
  long long n, sx, sy, sxx, syy, sxy;
  int x0, y0, x1, y1;
  double mu20, mu02, mu11;
} truth_t;

static void
truth_of (const int *owner, int w, int h, int k, truth_t *t)
{
  memset (t, 0, sizeof *t);
  t->x0 = t->y0 = 1 << 30;
  t->x1 = t->y1 = -1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (owner[y * w + x] == k) {
        t->n++;
        t->sx += x; t->sy += y;
        t->sxx += (long long) x * x; t->syy += (long long) y * y; t->sxy += (long long) x * y;
        t->x0 = x < t->x0 ? x : t->x0; t->x1 = x > t->x1 ? x : t->x1;
        t->y0 = y < t->y0 ? y : t->y0; t->y1 = y > t->y1 ? y : t->y1;
      }
  if (t->n == 0) {
    t->x0 = t->y0 = 0;
    return;
  }
  /* two-pass central moments: independent of the tracker's integer formula */
  double cx = (double) t->sx / t->n, cy = (double) t->sy / t->n;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (owner[y * w + x] == k) {
        t->mu20 += (x - cx) * (x - cx);
        t->mu02 += (y - cy) * (y - cy);
        t->mu11 += (x - cx) * (y - cy);
      }
  t->mu20 /= t->n; t->mu02 /= t->n; t->mu11 /= t->n;
}

static void
assert_truth (const cc_moct_result *r, const truth_t *t, int min_mass, const char *what)
{
  ck_assert_msg (r->mass == t->n, "%s object %d: mass %lld, truth %lld", what, r->id,
      (long long) r->mass, t->n);
  ck_assert_msg (r->sum_x == t->sx && r->sum_y == t->sy && r->sum_xx == t->sxx
      && r->sum_yy == t->syy && r->sum_xy == t->sxy, "%s object %d: sums differ", what, r->id);
  ck_assert_msg (r->x0 == t->x0 && r->y0 == t->y0 && r->x1 == t->x1 && r->y1 == t->y1,
      "%s object %d: box %d,%d-%d,%d, truth %d,%d-%d,%d", what, r->id, r->x0, r->y0, r->x1,
      r->y1, t->x0, t->y0, t->x1, t->y1);
  ck_assert_int_eq (r->present, t->n >= min_mass);
  if (t->n == 0) {
    ck_assert (r->cx == 0.0 && r->cy == 0.0 && r->mu20 == 0.0 && r->major_axis == 0.0);
    return;
  }
  ck_assert (r->cx == (double) t->sx / t->n && r->cy == (double) t->sy / t->n);
  double scale = 1e-9 * (1.0 + fabs (t->mu20) + fabs (t->mu02));
  ck_assert_msg (fabs (r->mu20 - t->mu20) <= scale && fabs (r->mu02 - t->mu02) <= scale
      && fabs (r->mu11 - t->mu11) <= scale, "%s object %d: moments %g %g %g, truth %g %g %g",
      what, r->id, r->mu20, r->mu02, r->mu11, t->mu20, t->mu02, t->mu11);
  /* axes: eigenvalues of the covariance */
  double ht = 0.5 * (t->mu20 + t->mu02), d = 0.5 * (t->mu20 - t->mu02);
  double root = sqrt (d * d + t->mu11 * t->mu11);
  ck_assert (fabs (r->major_axis - 2.0 * sqrt (ht + root)) < 1e-6);
  ck_assert (fabs (r->minor_axis - 2.0 * sqrt (fmax (ht - root, 0.0))) < 1e-6);
}

/* A table of n objects with palette colours, tolerance tol (names "obj<i>"). */
static cc_moct_object *
palette_objects_from (int first, int n, float tol)
{
  cc_moct_object *o = calloc (n ? n : 1, sizeof *o);
  for (int i = 0; i < n; i++) {
    uint8_t rgb[3];
    cv_synth_palette (first + i, rgb);
    snprintf (o[i].name, sizeof o[i].name, "obj%d", i);
    o[i].r = rgb[0];
    o[i].g = rgb[1];
    o[i].b = rgb[2];
    o[i].tolerance = tol;
  }
  return o;
}

static cc_moct_object *
palette_objects (int n, float tol)
{
  return palette_objects_from (0, n, tol);
}

/* n shapes on a grid of cells (cell px), alternately discs and turned ellipses, the
 * first row and column centred near the frame edge (cut). */
static cv_synth_shape *
grid_shapes (int n, int cols, int cell)
{
  cv_synth_shape *s = calloc (n, sizeof *s);
  for (int i = 0; i < n; i++) {
    int cx = i % cols, cy = i / cols;
    s[i].cx = cx * cell + (cx == 0 ? 1.0 : cell / 2.0 + 0.3 * (i % 3));
    s[i].cy = cy * cell + (cy == 0 ? 1.5 : cell / 2.0 - 0.25 * (i % 5));
    s[i].a = cell * (i % 2 ? 0.42 : 0.3);
    s[i].b = cell * (i % 2 ? 0.2 : 0.3);
    s[i].theta = i % 2 ? 0.3 + 0.1 * (i % 7) : 0.0;
    uint8_t rgb[3];
    cv_synth_palette (i, rgb);
    s[i].r = rgb[0];
    s[i].g = rgb[1];
    s[i].b_ = rgb[2];
  }
  return s;
}

/* One run of a host frame on a backend; results has n entries. */
static void
run_on (cc_backend backend, const cc_moct_params *p, const cc_moct_object *objs, int n,
    const cc_image *host_frame, cc_moct_result *results)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, host_frame->width, host_frame->height, p, &m));
  CC_ASSERT_OK (cc_moct_set_objects (m, objs, n));
  cc_image f;
  CC_ASSERT_OK (cv_test_to_backend (ctx, host_frame, &f));
  CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, results));
  cc_image_free (ctx, &f);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}

static void
check_scene (int n, int cols, int cell, cc_moct_space space, float tol)
{
  int w = cols * cell - cell / 3, h = ((n + cols - 1) / cols) * cell + cell / 2;
  cv_synth_shape *s = grid_shapes (n, cols, cell);
  int *owner = malloc (sizeof (int) * w * h);
  cc_image frame;
  CC_ASSERT_OK (cv_synth_shapes (w, h, s, n, &frame, owner));
  cc_moct_params p;
  cc_moct_params_default (&p);
  p.space = space;
  cc_moct_object *o = palette_objects (n, tol);
  cc_moct_result *r = calloc (n, sizeof *r);
  run_on (CC_BACKEND_CPU, &p, o, n, &frame, r);
  int ellipses = 0;
  for (int k = 0; k < n; k++) {
    truth_t t;
    truth_of (owner, w, h, k, &t);
    char what[64];
    snprintf (what, sizeof what, "%d objects, space %d", n, (int) space);
    assert_truth (&r[k], &t, p.min_mass, what);
    ck_assert_msg (t.n > 0, "object %d was not drawn", k);
    /* a well-inside ellipse: orientation and axes near the drawn ones */
    if (k % 2 && t.x0 > 0 && t.y0 > 0 && t.x1 < w - 1 && t.y1 < h - 1 && s[k].a >= 8) {
      ck_assert_msg (fabs (r[k].orientation - s[k].theta) < 0.05, "object %d: angle %g vs %g",
          k, r[k].orientation, s[k].theta);
      ck_assert (fabs (r[k].major_axis - s[k].a) < 0.08 * s[k].a);
      ck_assert (fabs (r[k].minor_axis - s[k].b) < 0.1 * s[k].b);
      ellipses++;
    }
  }
  if (n >= 8)
    ck_assert_msg (ellipses > 0, "%d objects: no ellipse checked", n);
  free (r);
  free (o);
  free (s);
  free (owner);
  cv_image_free (&frame);
}

START_TEST (test_exact_many)
{
  check_scene (1, 1, 60, CC_MOCT_SPACE_RGB, 10.0f);
  check_scene (8, 4, 40, CC_MOCT_SPACE_RGB, 10.0f);
  check_scene (128, 16, 24, CC_MOCT_SPACE_RGB, 10.0f);
  check_scene (1024, 32, 20, CC_MOCT_SPACE_RGB, 10.0f);
}
END_TEST

START_TEST (test_spaces)
{
  check_scene (8, 4, 40, CC_MOCT_SPACE_HSV, 30.0f);
  check_scene (8, 4, 40, CC_MOCT_SPACE_LAB, 15.0f);
  check_scene (128, 16, 24, CC_MOCT_SPACE_LAB, 6.0f);
}
END_TEST

/* The moving-objects clip (media/objects): every frame against its pixel sets. */
START_TEST (test_clip)
{
  const int w = 320, h = 180, n = 8;
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, w, h, NULL, &m));
  cc_moct_object *o = palette_objects (n, 10.0f);
  CC_ASSERT_OK (cc_moct_set_objects (m, o, n));
  int *owner = malloc (sizeof (int) * w * h), cut = 0;
  double pcx[8], pcy[8];
  int pt[8];
  for (int k = 0; k < n; k++)
    pt[k] = -1;
  for (int t = 0; t < 24; t++) {
    cv_synth_shape s[8];
    cv_synth_objects_at (t, w, h, n, s);
    cc_image frame;
    CC_ASSERT_OK (cv_synth_shapes (w, h, s, n, &frame, owner));
    cc_moct_result r[8];
    CC_ASSERT_OK (cc_moct_compute (m, NULL, &frame, r));
    for (int k = 0; k < n; k++) {
      truth_t tr;
      truth_of (owner, w, h, k, &tr);
      assert_truth (&r[k], &tr, 16, "clip");
      cut += tr.n > 0 && (tr.x0 == 0 || tr.y0 == 0 || tr.x1 == w - 1 || tr.y1 == h - 1);
      ck_assert_int_eq (r[k].velocity_valid, r[k].present && pt[k] >= 0);
      if (r[k].velocity_valid)
        ck_assert (r[k].vx == (r[k].cx - pcx[k]) / (t - pt[k])
            && r[k].vy == (r[k].cy - pcy[k]) / (t - pt[k]));
      if (r[k].present) {
        pcx[k] = r[k].cx;
        pcy[k] = r[k].cy;
        pt[k] = t;
      }
    }
    cv_image_free (&frame);
  }
  ck_assert_msg (cut > 0, "no object reached the frame edge");
  free (owner);
  free (o);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

/* Absent objects, objects below min_mass, GRAY8 and wrong sizes. */
START_TEST (test_absent_and_errors)
{
  cv_synth_shape s[2] = { { 20, 20, 10, 10, 0, 250, 0, 0 }, { 50, 10, 1.5, 1.5, 0, 0, 250, 0 } };
  int owner[64 * 32];
  cc_image frame;
  CC_ASSERT_OK (cv_synth_shapes (64, 32, s, 2, &frame, owner));
  cc_moct_object o[3] = { { "red", 250, 0, 0, 10 }, { "green", 0, 250, 0, 10 },
                          { "blue", 0, 0, 250, 10 } };
  cc_moct_params p;
  cc_moct_params_default (&p);
  cc_moct_result r[3];
  run_on (CC_BACKEND_CPU, &p, o, 3, &frame, r);
  truth_t t;
  for (int k = 0; k < 3; k++) {
    truth_of (owner, 64, 32, k, &t);
    assert_truth (&r[k], &t, p.min_mass, "absent");
  }
  ck_assert (r[0].present && !r[1].present && r[1].mass == 9 && !r[2].present && r[2].mass == 0);
  ck_assert (r[2].x0 == 0 && r[2].y0 == 0 && r[2].x1 == -1 && r[2].y1 == -1);
  /* GRAY8 and size errors */
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, 64, 32, NULL, &m));
  cc_image gray;
  CC_ASSERT_OK (cv_image_new (64, 32, CC_FORMAT_GRAY8, &gray));
  ck_assert_int_eq (cc_moct_compute (m, NULL, &gray, r), CC_ERROR_NOT_SUPPORTED);
  cc_image small = frame;
  small.width = 63;
  ck_assert_int_eq (cc_moct_compute (m, NULL, &small, r), CC_ERROR_INVALID_ARGUMENT);
  p.history = 1;
  cc_moct *bad;
  ck_assert_int_eq (cc_moct_create (ctx, 64, 32, &p, &bad), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (strstr (cc_last_error (), "history") != NULL);
  p.history = 8;
  cc_moct_tuning tu;
  cc_moct_tuning_default (&tu);
  tu.narrow_accumulators = 2;
  ck_assert_int_eq (cc_moct_set_tuning (m, &tu), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (strstr (cc_last_error (), "narrow_accumulators") != NULL);
  cv_image_free (&gray);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
  cv_image_free (&frame);
}
END_TEST

/* Distance from a colour's bin centre to a target, in RGB. */
static double
bin_distance (const uint8_t c[3], const uint8_t t[3])
{
  double d = 0;
  for (int i = 0; i < 3; i++) {
    double centre = (c[i] >> 2) * 4 + 1.5;
    d += (centre - t[i]) * (centre - t[i]);
  }
  return sqrt (d);
}

START_TEST (test_tolerance_and_ties)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, 4, 1, NULL, &m));
  const uint8_t target[3] = { 200, 60, 60 };
  for (int dr = 5; dr <= 20; dr += 3) {
    uint8_t c[3] = { (uint8_t) (200 + dr), 60, 60 };
    double d = bin_distance (c, target);
    for (int inside = 0; inside < 2; inside++) {
      cc_moct_object o = { "t", 200, 60, 60, (float) (inside ? d + 0.01 : d - 0.01) };
      CC_ASSERT_OK (cc_moct_set_objects (m, &o, 1));
      ck_assert_int_eq (cc_moct_classify (m, false, c[0], c[1], c[2]), inside ? 0 : -1);
      /* and in a frame: the pixel counts exactly when inside */
      uint8_t px[16] = { c[0], c[1], c[2], 255, 128, 128, 128, 255, c[0], c[1], c[2], 255 };
      cc_image f = cc_image_view (px, 16, 4, 1, CC_FORMAT_RGBX8, CC_LOCATION_HOST);
      cc_moct_result r;
      CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, &r));
      ck_assert_int_eq (r.mass, inside ? 2 : 0);
      if (inside)
        ck_assert (r.x0 == 0 && r.x1 == 2 && r.sum_x == 2 && r.sum_xx == 4);
    }
  }
  /* a tie: bin centre (129.5, 129.5, 129.5) is 9.5^2 + 0.5 from both targets */
  cc_moct_object ab[2] = { { "a", 139, 130, 130, 20 }, { "b", 120, 129, 129, 20 } };
  CC_ASSERT_OK (cc_moct_set_objects (m, ab, 2));
  ck_assert_int_eq (cc_moct_classify (m, false, 129, 129, 129), 0);
  cc_moct_object ba[2] = { ab[1], ab[0] };
  CC_ASSERT_OK (cc_moct_set_objects (m, ba, 2));
  ck_assert_int_eq (cc_moct_classify (m, false, 129, 129, 129), 0);
  /* the whole RGB table against a brute-force nearest-within-tolerance search over
   * overlapping targets (bin centres, lowest id on ties) */
  cc_moct_object many[64];
  memset (many, 0, sizeof many);
  unsigned seed = 12345;
  for (int k = 0; k < 64; k++) {
    snprintf (many[k].name, sizeof many[k].name, "t%d", k);
    seed = seed * 1103515245u + 12345u;
    many[k].r = (uint8_t) (seed >> 8);
    many[k].g = (uint8_t) (seed >> 16);
    many[k].b = (uint8_t) (seed >> 24);
    many[k].tolerance = 5.0f + (float) ((seed >> 4) % 56);
  }
  CC_ASSERT_OK (cc_moct_set_objects (m, many, 64));
  int mismatches = 0, classified = 0;
  for (int c = 0; c < 1 << 18; c++) {
    uint8_t col[3] = { (uint8_t) ((c >> 12) << 2), (uint8_t) (((c >> 6) & 63) << 2),
                       (uint8_t) ((c & 63) << 2) };
    int best = -1;
    double best_d = 0;
    for (int k = 0; k < 64; k++) {
      const uint8_t t[3] = { many[k].r, many[k].g, many[k].b };
      double d = 0;
      for (int i = 0; i < 3; i++)
        d += ((col[i] >> 2) * 4 + 1.5 - t[i]) * ((col[i] >> 2) * 4 + 1.5 - t[i]);
      double tol = many[k].tolerance;
      if (d <= tol * tol && (best < 0 || d < best_d)) {
        best = k;
        best_d = d;
      }
    }
    classified += best >= 0;
    mismatches += cc_moct_classify (m, false, col[0], col[1], col[2]) != best;
  }
  ck_assert_msg (mismatches == 0, "%d of 262144 cells differ from brute force", mismatches);
  ck_assert (classified > 1000);
  CC_ASSERT_OK (cc_moct_set_objects (m, ba, 2));
  /* nearest wins over a lower id when both are within tolerance */
  ck_assert_int_eq (cc_moct_classify (m, false, 137, 130, 130), 1);   /* near "a" (id 1) */
  ck_assert_int_eq (cc_moct_classify (m, false, 121, 129, 129), 0);   /* near "b" (id 0) */
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

/* RGB -> NV12 / I420 with uniform 2x2 blocks (chroma of the block's colour). */
static void
to_yuv (cc_context *cpu, const cc_image *rgb, cc_format format, cc_image *out)
{
  CC_ASSERT_OK (cc_image_alloc (cpu, rgb->width, rgb->height, format, CC_LOCATION_HOST, out));
  for (int y = 0; y < rgb->height; y++)
    for (int x = 0; x < rgb->width; x++) {
      const uint8_t *p = (const uint8_t *) rgb->planes[0] + (size_t) y * rgb->pitch[0] + 4 * x;
      /* the standard BT.601 limited-range formula, as cc_rgb_to_yuv */
      double fy = 16 + (65.481 * p[0] + 128.553 * p[1] + 24.966 * p[2]) / 255;
      double fu = 128 + (-37.797 * p[0] - 74.203 * p[1] + 112.0 * p[2]) / 255;
      double fv = 128 + (112.0 * p[0] - 93.786 * p[1] - 18.214 * p[2]) / 255;
      ((uint8_t *) out->planes[0])[(size_t) y * out->pitch[0] + x] = (uint8_t) lround (fy);
      if ((x & 1) || (y & 1))
        continue;
      uint8_t *c1 = (uint8_t *) out->planes[1] + (size_t) (y / 2) * out->pitch[1];
      if (format == CC_FORMAT_NV12) {
        c1[x] = (uint8_t) lround (fu);
        c1[x + 1] = (uint8_t) lround (fv);
      } else {
        c1[x / 2] = (uint8_t) lround (fu);
        ((uint8_t *) out->planes[2])[(size_t) (y / 2) * out->pitch[2] + x / 2] = (uint8_t) lround (fv);
      }
    }
}

/* Shapes drawn at half resolution and doubled: every 2x2 block is one colour.
 * Colours: palette 1..n (saturated: black and white have no stable hue once YUV
 * quantisation tints them). */
static void
block_scene (int w, int h, int n, cc_image *frame, int *owner)
{
  int hw = (w + 1) / 2, hh = (h + 1) / 2;
  cv_synth_shape s[8];
  for (int k = 0; k < n; k++) {
    s[k] = (cv_synth_shape) { (k % 4) * hw / 4.0 + 5, (k / 4) * hh / 2.0 + 4, 7 + k % 3, 4 + k % 2,
                              0.4 * k, 0, 0, 0 };
    uint8_t rgb[3];
    cv_synth_palette (k + 1, rgb);
    s[k].r = rgb[0];
    s[k].g = rgb[1];
    s[k].b_ = rgb[2];
  }
  cc_image half;
  int *hown = malloc (sizeof (int) * hw * hh);
  CC_ASSERT_OK (cv_synth_shapes (hw, hh, s, n, &half, hown));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, frame));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      memcpy ((uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0] + 4 * x,
          (uint8_t *) half.planes[0] + (size_t) (y / 2) * half.pitch[0] + 4 * (x / 2), 4);
      owner[y * w + x] = hown[(y / 2) * hw + x / 2];
    }
  free (hown);
  cv_image_free (&half);
}

START_TEST (test_yuv_against_rgb)
{
  const int sizes[][2] = { { 96, 64 }, { 101, 77 } };
  cc_context *cpu;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  for (int sz = 0; sz < 2; sz++) {
    int w = sizes[sz][0], h = sizes[sz][1];
    int *owner = malloc (sizeof (int) * w * h);
    cc_image rgb;
    block_scene (w, h, 6, &rgb, owner);
    cc_moct_object *o = palette_objects_from (1, 6, 30.0f);
    for (int space = CC_MOCT_SPACE_RGB; space <= CC_MOCT_SPACE_LAB; space++) {
      cc_moct_params p;
      cc_moct_params_default (&p);
      p.space = (cc_moct_space) space;
      if (space == CC_MOCT_SPACE_LAB)
        for (int k = 0; k < 6; k++)
          o[k].tolerance = 12.0f;
      cc_moct_result rr[6], ry[6], ri[6];
      run_on (CC_BACKEND_CPU, &p, o, 6, &rgb, rr);
      cc_image nv12, i420;
      to_yuv (cpu, &rgb, CC_FORMAT_NV12, &nv12);
      to_yuv (cpu, &rgb, CC_FORMAT_I420, &i420);
      run_on (CC_BACKEND_CPU, &p, o, 6, &nv12, ry);
      run_on (CC_BACKEND_CPU, &p, o, 6, &i420, ri);
      for (int k = 0; k < 6; k++) {
        truth_t t;
        truth_of (owner, w, h, k, &t);
        assert_truth (&rr[k], &t, p.min_mass, "rgb");
        assert_truth (&ry[k], &t, p.min_mass, "nv12");
        assert_truth (&ri[k], &t, p.min_mass, "i420");
      }
      cc_image_free (cpu, &nv12);
      cc_image_free (cpu, &i420);
    }
    /* BGRX: the same frame with R and B swapped */
    cc_image bgr;
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_BGRX8, &bgr));
    for (int i = 0; i < w * h; i++) {
      uint8_t *s = (uint8_t *) rgb.planes[0] + 4 * i, *d = (uint8_t *) bgr.planes[0] + 4 * i;
      d[0] = s[2]; d[1] = s[1]; d[2] = s[0]; d[3] = s[3];
    }
    cc_moct_params p;
    cc_moct_params_default (&p);
    cc_moct_result rb[6];
    run_on (CC_BACKEND_CPU, &p, o, 6, &bgr, rb);
    for (int k = 0; k < 6; k++) {
      truth_t t;
      truth_of (owner, w, h, k, &t);
      assert_truth (&rb[k], &t, p.min_mass, "bgrx");
    }
    cv_image_free (&bgr);
    free (o);
    free (owner);
    cv_image_free (&rgb);
  }
  cc_context_destroy (cpu);
}
END_TEST

START_TEST (test_tiny_sizes)
{
  cc_moct_object o = { "dot", 250, 0, 250, 10 };
  cc_moct_params p;
  cc_moct_params_default (&p);
  p.min_mass = 1;
  uint8_t px[4] = { 250, 0, 250, 255 };
  cc_image f = cc_image_view (px, 4, 1, 1, CC_FORMAT_RGBX8, CC_LOCATION_HOST);
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_moct_result r;
    run_on (cv_test_backend (b), &p, &o, 1, &f, &r);
    ck_assert (r.present && r.mass == 1 && r.cx == 0.0 && r.cy == 0.0);
    ck_assert (r.x0 == 0 && r.y0 == 0 && r.x1 == 0 && r.y1 == 0);
    ck_assert (r.mu20 == 0.0 && r.major_axis == 0.0 && r.minor_axis == 0.0);
  }
  /* 1x1 NV12 and odd sizes with a shape cut by the right and bottom edges */
  cc_context *cpu;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  cc_image nv;
  to_yuv (cpu, &f, CC_FORMAT_NV12, &nv);
  cc_moct_result r;
  o.tolerance = 30;
  run_on (CC_BACKEND_CPU, &p, &o, 1, &nv, &r);
  ck_assert (r.mass == 1 && r.x1 == 0);
  cc_image_free (cpu, &nv);
  cc_context_destroy (cpu);
  const int sizes[][2] = { { 33, 17 }, { 1, 40 }, { 40, 1 }, { 7, 3 } };
  for (int i = 0; i < 4; i++) {
    int w = sizes[i][0], h = sizes[i][1];
    cv_synth_shape s = { w - 2.0, h - 1.5, 9, 5, 0.5, 250, 0, 250 };
    int *owner = malloc (sizeof (int) * w * h);
    cc_image frame;
    CC_ASSERT_OK (cv_synth_shapes (w, h, &s, 1, &frame, owner));
    truth_t t;
    truth_of (owner, w, h, 0, &t);
    for (int b = 0; b < cv_test_backend_count (); b++) {
      run_on (cv_test_backend (b), &p, &o, 1, &frame, &r);
      assert_truth (&r, &t, p.min_mass, "odd size");
    }
    free (owner);
    cv_image_free (&frame);
  }
}
END_TEST

START_TEST (test_set_objects_errors)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, 64, 32, NULL, &m));
  cc_moct_object good[2] = { { "red", 250, 0, 0, 10 }, { "green", 0, 250, 0, 10 } };
  CC_ASSERT_OK (cc_moct_set_objects (m, good, 2));
  cc_moct_object dup[3] = { good[0], { "blue", 0, 0, 250, 10 }, good[0] };
  ck_assert_int_eq (cc_moct_set_objects (m, dup, 3), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_msg (strstr (cc_last_error (), "0 and 2") && strstr (cc_last_error (), "red"),
      "message: %s", cc_last_error ());
  cc_moct_object empty[2] = { good[0], { "", 0, 0, 250, 10 } };
  ck_assert_int_eq (cc_moct_set_objects (m, empty, 2), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (strstr (cc_last_error (), "object 1") != NULL);
  cc_moct_object tol[2] = { good[0], { "blue", 0, 0, 250, 0 } };
  ck_assert_int_eq (cc_moct_set_objects (m, tol, 2), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (strstr (cc_last_error (), "object 1") && strstr (cc_last_error (), "blue"));
  cc_moct_object unterminated = good[0];
  memset (unterminated.name, 'x', CC_MOCT_NAME_MAX);
  ck_assert_int_eq (cc_moct_set_objects (m, &unterminated, 1), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_moct_set_objects (m, good, CC_MOCT_MAX_OBJECTS + 1),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_moct_set_objects (m, NULL, 2), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_moct_set_objects (m, good, -1), CC_ERROR_INVALID_ARGUMENT);
  /* the previous table is intact */
  ck_assert_int_eq (cc_moct_object_count (m), 2);
  ck_assert_int_eq (cc_moct_classify (m, false, 250, 0, 0), 0);
  ck_assert_int_eq (cc_moct_classify (m, false, 0, 250, 0), 1);
  ck_assert_int_eq (cc_moct_classify (m, false, 0, 0, 250), -1);
  /* an empty table finds nothing */
  CC_ASSERT_OK (cc_moct_set_objects (m, NULL, 0));
  ck_assert_int_eq (cc_moct_classify (m, false, 250, 0, 0), -1);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

/* A disc moving (3, -2) px / frame, absent at frame 3: velocity, trajectory, reset. */
START_TEST (test_trajectory_velocity)
{
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_context *ctx;
    CC_ASSERT_OK (cc_context_create (cv_test_backend (b), -1, &ctx));
    cc_moct_params p;
    cc_moct_params_default (&p);
    p.history = 4;
    cc_moct *m;
    CC_ASSERT_OK (cc_moct_create (ctx, 80, 60, &p, &m));
    cc_moct_object o = { "ball", 250, 250, 0, 10 };
    CC_ASSERT_OK (cc_moct_set_objects (m, &o, 1));
    double cx[7], cy[7];
    for (int t = 0; t < 7; t++) {
      cv_synth_shape s = { 20 + 3 * t, 40 - 2 * t, 6, 6, 0, 250, t == 3 ? 128 : 250, t == 3 ? 128 : 0 };
      cc_image host, f;
      CC_ASSERT_OK (cv_synth_shapes (80, 60, &s, 1, &host, NULL));
      CC_ASSERT_OK (cv_test_to_backend (ctx, &host, &f));
      cc_moct_result r;
      CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, &r));
      cx[t] = r.cx;
      cy[t] = r.cy;
      if (t == 0 || t == 3) {
        ck_assert (!r.velocity_valid && r.vx == 0.0);
      } else {
        int prev = t == 4 ? 2 : t - 1;
        ck_assert (r.velocity_valid);
        ck_assert (r.vx == (cx[t] - cx[prev]) / (t - prev) && r.vy == (cy[t] - cy[prev]) / (t - prev));
        ck_assert (fabs (r.vx - 3.0) < 1e-9 && fabs (r.vy + 2.0) < 1e-9);
      }
      cc_image_free (ctx, &f);
      cv_image_free (&host);
    }
    cc_moct_sample tr[8];
    int n;
    CC_ASSERT_OK (cc_moct_get_trajectory (m, 0, tr, 8, &n));
    ck_assert_int_eq (n, 4);
    for (int i = 0; i < 4; i++) {
      ck_assert_int_eq (tr[i].frame, 3 + i);
      ck_assert_int_eq (tr[i].present, i != 0);
      if (i)
        ck_assert (tr[i].cx == cx[3 + i] && tr[i].ix == 20 + 3 * (3 + i)
            && tr[i].iy == 40 - 2 * (3 + i));
    }
    CC_ASSERT_OK (cc_moct_get_trajectory (m, 0, tr, 2, &n));
    ck_assert (n == 2 && tr[0].frame == 5 && tr[1].frame == 6);
    ck_assert_int_eq (cc_moct_get_trajectory (m, 1, tr, 2, &n), CC_ERROR_INVALID_ARGUMENT);
    CC_ASSERT_OK (cc_moct_reset (m, NULL));
    CC_ASSERT_OK (cc_moct_get_trajectory (m, 0, tr, 8, &n));
    ck_assert_int_eq (n, 0);
    /* after a reset: frame 0 again, no velocity from before */
    cv_synth_shape s = { 30, 30, 6, 6, 0, 250, 250, 0 };
    cc_image host, f;
    CC_ASSERT_OK (cv_synth_shapes (80, 60, &s, 1, &host, NULL));
    CC_ASSERT_OK (cv_test_to_backend (ctx, &host, &f));
    cc_moct_result r;
    CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, &r));
    ck_assert (r.present && !r.velocity_valid);
    CC_ASSERT_OK (cc_moct_get_trajectory (m, 0, tr, 8, &n));
    ck_assert (n == 1 && tr[0].frame == 0 && tr[0].ix == 30 && tr[0].iy == 30);
    cc_image_free (ctx, &f);
    cv_image_free (&host);
    cc_moct_destroy (m);
    cc_context_destroy (ctx);
  }
}
END_TEST

static const uint8_t *
pix (const cc_image *f, int x, int y)
{
  return (const uint8_t *) f->planes[0] + (size_t) y * f->pitch[0] + 4 * x;
}

/* CPU drawing: box outline, centroid cross, mask tint and trajectory line pixels. */
START_TEST (test_draw_cpu)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, 100, 60, NULL, &m));
  cc_moct_object o = { "ball", 250, 0, 0, 10 };
  CC_ASSERT_OK (cc_moct_set_objects (m, &o, 1));
  cc_image f;
  for (int t = 0; t < 2; t++) {
    cv_synth_shape s = { 20 + 40 * t, 30, 8, 8, 0, 250, 0, 0 };
    CC_ASSERT_OK (cv_synth_shapes (100, 60, &s, 1, &f, NULL));
    cc_moct_result r;
    CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, &r));
    ck_assert (r.x0 == 12 + 40 * t && r.x1 == 28 + 40 * t && r.y0 == 22 && r.y1 == 38);
    if (t == 0)
      cv_image_free (&f);
  }
  CC_ASSERT_OK (cc_moct_draw (m, NULL, &f, CC_MOCT_DRAW_ALL));
  const uint8_t red[3] = { 250, 0, 0 }, tint[3] = { 250, 0, 0 };
  /* box corners and edges: object colour */
  ck_assert (!memcmp (pix (&f, 52, 22), red, 3) && !memcmp (pix (&f, 68, 38), red, 3));
  ck_assert (!memcmp (pix (&f, 60, 22), red, 3) && !memcmp (pix (&f, 52, 30), red, 3));
  /* centroid cross: white at the centre and +-4 */
  const uint8_t white[3] = { 255, 255, 255 };
  ck_assert (!memcmp (pix (&f, 60, 30), white, 3) && !memcmp (pix (&f, 64, 30), white, 3)
      && !memcmp (pix (&f, 60, 26), white, 3));
  ck_assert (memcmp (pix (&f, 65, 30), white, 3) != 0);
  /* mask: a classified pixel off the lines = blend of itself with its colour (itself) */
  ck_assert (!memcmp (pix (&f, 57, 33), tint, 3));
  /* trajectory: (20,30) -> (60,30), object colour over the grey background */
  ck_assert (!memcmp (pix (&f, 40, 30), red, 3));
  /* background elsewhere untouched */
  const uint8_t grey[3] = { 128, 128, 128 };
  ck_assert (!memcmp (pix (&f, 40, 31), grey, 3) && !memcmp (pix (&f, 5, 5), grey, 3));
  /* the mask of a pixel of another colour within tolerance: (p + c + 1) >> 1 */
  uint8_t *q = (uint8_t *) pix (&f, 90, 50);
  q[0] = 244; q[1] = 4; q[2] = 2;
  CC_ASSERT_OK (cc_moct_draw (m, NULL, &f, CC_MOCT_DRAW_MASK));
  ck_assert (q[0] == 247 && q[1] == 2 && q[2] == 1);
  ck_assert_int_eq (cc_moct_draw (m, NULL, &f, 0x100), CC_ERROR_INVALID_ARGUMENT);
  cv_image_free (&f);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

/* ---------------------------------------------------------------- labels */

/* The expected text of the labels below, written out by hand from the font's design
 * (not read from the table): "A1" and "Z" followed by two bytes outside printable
 * ASCII ("\xc3\xa9", an e acute in UTF-8), drawn as '?'. */
static const char *const art_a1[7] = {
  ".###....#..",
  "#...#..##..",
  "#...#...#..",
  "#####...#..",
  "#...#...#..",
  "#...#...#..",
  "#...#..###.",
};
static const char *const art_z_utf8[7] = {
  "#####..###...###.",
  "....#.#...#.#...#",
  "...#......#.....#",
  "..#......#.....#.",
  ".#......#.....#..",
  "#................",
  "#####...#.....#..",
};

#define LABEL_GUARD 8
#define GUARD_BYTE 0xA5

/* A host frame whose planes lie inside larger buffers: each row LABEL_GUARD bytes
 * wider than its pixels, a guard row before and after, all GUARD_BYTE; a write out
 * of the frame lands in a guard byte. */
typedef struct {
  uint8_t *buf[3];
  size_t size[3];
  int planes;
  cc_image img;
} guarded_frame;

static int
plane_row_bytes (cc_format format, int w, int p)
{
  if (format == CC_FORMAT_RGBX8 || format == CC_FORMAT_BGRX8)
    return 4 * w;
  if (p == 0)
    return w;
  return format == CC_FORMAT_NV12 ? 2 * ((w + 1) / 2) : (w + 1) / 2;
}

static void
guarded_alloc (cc_format format, int w, int h, guarded_frame *g)
{
  memset (g, 0, sizeof *g);
  g->planes = cc_format_planes (format);
  g->img.width = w;
  g->img.height = h;
  g->img.format = format;
  g->img.location = CC_LOCATION_HOST;
  for (int p = 0; p < g->planes; p++) {
    int rows = p == 0 ? h : (h + 1) / 2;
    g->img.pitch[p] = plane_row_bytes (format, w, p) + LABEL_GUARD;
    g->size[p] = g->img.pitch[p] * (rows + 2);
    g->buf[p] = malloc (g->size[p]);
    ck_assert (g->buf[p] != NULL);
    memset (g->buf[p], GUARD_BYTE, g->size[p]);
    g->img.planes[p] = g->buf[p] + g->img.pitch[p];
  }
}

static void
guarded_copy (const guarded_frame *src, guarded_frame *dst)
{
  guarded_alloc (src->img.format, src->img.width, src->img.height, dst);
  for (int p = 0; p < src->planes; p++)
    memcpy (dst->buf[p], src->buf[p], src->size[p]);
}

static void
guarded_free (guarded_frame *g)
{
  for (int p = 0; p < g->planes; p++)
    free (g->buf[p]);
}

/* The standard BT.601 limited-range formula (as to_yuv). */
static void
test_yuv (const uint8_t rgb[3], uint8_t yuv[3])
{
  yuv[0] = (uint8_t) lround (16 + (65.481 * rgb[0] + 128.553 * rgb[1] + 24.966 * rgb[2]) / 255);
  yuv[1] = (uint8_t) lround (128 + (-37.797 * rgb[0] - 74.203 * rgb[1] + 112.0 * rgb[2]) / 255);
  yuv[2] = (uint8_t) lround (128 + (112.0 * rgb[0] - 93.786 * rgb[1] - 18.214 * rgb[2]) / 255);
}

/* Writes colour rgb at (x, y) of a frame as the drawing documents it: R, G, B (the
 * fourth byte kept); on YUV frames Y, and U, V when (x, y) is the top-left pixel of
 * its 2x2 block. */
static void
test_put (cc_image *f, int x, int y, const uint8_t rgb[3])
{
  uint8_t *row = (uint8_t *) f->planes[0] + (size_t) y * f->pitch[0];
  if (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) {
    bool bgr = f->format == CC_FORMAT_BGRX8;
    row[4 * x] = rgb[bgr ? 2 : 0];
    row[4 * x + 1] = rgb[1];
    row[4 * x + 2] = rgb[bgr ? 0 : 2];
    return;
  }
  uint8_t yuv[3];
  test_yuv (rgb, yuv);
  row[x] = yuv[0];
  if ((x & 1) || (y & 1))
    return;
  uint8_t *c1 = (uint8_t *) f->planes[1] + (size_t) (y / 2) * f->pitch[1];
  if (f->format == CC_FORMAT_NV12) {
    c1[x] = yuv[1];
    c1[x + 1] = yuv[2];
  } else {
    c1[x / 2] = yuv[1];
    ((uint8_t *) f->planes[2] + (size_t) (y / 2) * f->pitch[2])[x / 2] = yuv[2];
  }
}

/* A grey frame (fourth byte 255) with the box [x0, x1] x [y0, y1] in rgb: YUV chroma
 * per 2x2 block from its top-left pixel. */
static void
label_scene (cc_format format, int w, int h, int x0, int y0, int x1, int y1,
    const uint8_t rgb[3], guarded_frame *g)
{
  static const uint8_t grey[3] = { 128, 128, 128 };
  guarded_alloc (format, w, h, g);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      bool in = x >= x0 && x <= x1 && y >= y0 && y <= y1;
      if (format == CC_FORMAT_RGBX8 || format == CC_FORMAT_BGRX8)
        ((uint8_t *) g->img.planes[0] + (size_t) y * g->img.pitch[0])[4 * x + 3] = 255;
      test_put (&g->img, x, y, in ? rgb : grey);
    }
}

/* Where the documented rule puts a label: left-aligned with the box, its top row 8 px
 * above it when that is inside the frame, else 2 px below the box. */
static void
label_origin (const cc_moct_result *r, int *ox, int *oy)
{
  *ox = r->x0;
  *oy = r->y0 - 8 >= 0 ? r->y0 - 8 : r->y1 + 2;
}

/* One object named `name` over the box; draws LABELS and compares every byte of the
 * buffers (guards included) with the input plus the art's pixels that fall inside
 * the frame. Returns the number of glyph pixels expected inside the frame. */
static int
check_label (cc_format format, int w, int h, int x0, int y0, int x1, int y1,
    const char *name, const char *const art[7])
{
  const uint8_t red[3] = { 250, 0, 0 };
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct_params p;
  cc_moct_params_default (&p);
  p.min_mass = 1;
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, w, h, &p, &m));
  cc_moct_object o = { "", 250, 0, 0, 10, CC_MOCT_SPACE_PARAMS };
  snprintf (o.name, sizeof o.name, "%s", name);
  CC_ASSERT_OK (cc_moct_set_objects (m, &o, 1));
  guarded_frame f, want;
  label_scene (format, w, h, x0, y0, x1, y1, red, &f);
  cc_moct_result r;
  CC_ASSERT_OK (cc_moct_compute (m, NULL, &f.img, &r));
  ck_assert_msg (r.present, "%s %dx%d: the object is not found", cc_format_name (format), w, h);
  if (format == CC_FORMAT_RGBX8 || format == CC_FORMAT_BGRX8)
    ck_assert (r.x0 == x0 && r.y0 == y0 && r.x1 == x1 && r.y1 == y1);
  guarded_copy (&f, &want);
  int ox, oy, glyph = 0, cols = (int) strlen (art[0]);
  label_origin (&r, &ox, &oy);
  for (int ty = 0; ty < 7; ty++)
    for (int tx = 0; tx < cols; tx++) {
      int x = ox + tx, y = oy + ty;
      if (art[ty][tx] == '#' && x >= 0 && y >= 0 && x < w && y < h) {
        test_put (&want.img, x, y, red);
        glyph++;
      }
    }
  CC_ASSERT_OK (cc_moct_draw (m, NULL, &f.img, CC_MOCT_DRAW_LABELS));
  for (int pl = 0; pl < f.planes; pl++)
    for (size_t k = 0; k < f.size[pl]; k++)
      ck_assert_msg (f.buf[pl][k] == want.buf[pl][k], "%s %dx%d label \"%s\": plane %d byte "
          "%zu (row %d, byte %d of the row) is %d, want %d", cc_format_name (format), w, h,
          name, pl, k, (int) (k / f.img.pitch[pl]) - 1, (int) (k % f.img.pitch[pl]),
          f.buf[pl][k], want.buf[pl][k]);
  guarded_free (&f);
  guarded_free (&want);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
  return glyph;
}

/* LABELS on the CPU, every format: exact glyph pixels, every other byte untouched,
 * the label above the box, below it at the top of the frame, clipped by the right and
 * bottom edges, and nothing written out of 1x1 and 2x2 frames. */
START_TEST (test_draw_labels_cpu)
{
  const cc_format formats[] = { CC_FORMAT_RGBX8, CC_FORMAT_BGRX8, CC_FORMAT_NV12, CC_FORMAT_I420 };
  for (int fi = 0; fi < 4; fi++) {
    cc_format f = formats[fi];
    /* above the box, whole: 11 x 7 px of "A1", 28 glyph pixels */
    ck_assert_int_eq (check_label (f, 64, 48, 20, 30, 35, 45, "A1", art_a1), 28);
    /* '?' for bytes outside printable ASCII */
    ck_assert_int_eq (check_label (f, 64, 48, 10, 20, 25, 29, "Z\xc3\xa9", art_z_utf8), 33);
    /* the box at the top: below it (y 6), cut by the right edge after 8 columns */
    int cut = check_label (f, 64, 48, 56, 0, 63, 3, "A1", art_a1);
    ck_assert (cut > 0 && cut < 28);
    /* odd frame, the label below a box at the top, cut by the bottom edge (rows 4..6
     * of 7) */
    cut = check_label (f, 13, 7, 2, 0, 5, 1, "A1", art_a1);
    ck_assert (cut > 0 && cut < 28);
    /* and by the bottom and right edges */
    cut = check_label (f, 13, 7, 8, 0, 11, 1, "Z\xc3\xa9", art_z_utf8);
    ck_assert (cut > 0 && cut < 33);
    /* tiny frames: the label falls outside, nothing is written */
    ck_assert_int_eq (check_label (f, 1, 1, 0, 0, 0, 0, "A1", art_a1), 0);
    ck_assert_int_eq (check_label (f, 2, 2, 0, 0, 1, 1, "A1", art_a1), 0);
  }
}
END_TEST

/* LABELS with the other drawings: a label covers a box edge of an object of higher
 * id (labels are drawn last), and where two labels overlap the higher id wins. */
START_TEST (test_draw_labels_order)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, 80, 40, NULL, &m));
  cc_moct_object o[3] = { { "A1A1A1", 250, 0, 0, 10, 0 }, { "A1", 0, 0, 250, 10, 0 },
                          { "gone", 0, 250, 0, 10, 0 } };
  CC_ASSERT_OK (cc_moct_set_objects (m, o, 3));
  /* boxes 15..25 x 20..30 (label rows 12..18, x 15..49) and 35..45 x 15..25 (label
   * rows 7..13, x 35..45; its top edge, row 15, runs under the first label) */
  cv_synth_shape s[2] = { { 20, 25, 5, 5, 0, 250, 0, 0 }, { 40, 20, 5, 5, 0, 0, 0, 250 } };
  cc_image f;
  CC_ASSERT_OK (cv_synth_shapes (80, 40, s, 2, &f, NULL));
  cc_moct_result r[3];
  CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, r));
  ck_assert (r[0].present && r[1].present && !r[2].present);
  ck_assert (r[0].x0 == 15 && r[0].y0 == 20 && r[1].x0 == 35 && r[1].y0 == 15 && r[1].x1 == 45);
  CC_ASSERT_OK (cc_moct_draw (m, NULL, &f, CC_MOCT_DRAW_BOXES | CC_MOCT_DRAW_LABELS));
  const uint8_t blue[3] = { 0, 0, 250 }, red[3] = { 250, 0, 0 };
  int blue_over_red = 0, red_over_edge = 0;
  for (int y = 0; y < 40; y++)
    for (int x = 0; x < 80; x++) {
      int u0 = x - 15, v0 = y - 12, u1 = x - 35, v1 = y - 7;
      /* "A1A1A1": "A1", a spacing column, "A1", ... */
      bool g0 = u0 >= 0 && u0 < 35 && v0 >= 0 && v0 < 7 && u0 % 12 < 11
          && art_a1[v0][u0 % 12] == '#';
      bool g1 = u1 >= 0 && u1 < 11 && v1 >= 0 && v1 < 7 && art_a1[v1][u1] == '#';
      bool edge1 = y == 15 && x >= 35 && x <= 45;
      if (g1) {
        ck_assert_msg (!memcmp (pix (&f, x, y), blue, 3), "(%d, %d)", x, y);
        blue_over_red += g0;
      } else if (g0) {
        ck_assert_msg (!memcmp (pix (&f, x, y), red, 3), "(%d, %d)", x, y);
        red_over_edge += edge1;
      } else if (edge1) {
        ck_assert_msg (!memcmp (pix (&f, x, y), blue, 3), "(%d, %d)", x, y);
      }
    }
  ck_assert (blue_over_red > 0 && red_over_edge > 0);
  cv_image_free (&f);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

/* CUDA labels == CPU labels, byte for byte, every format: the frames of
 * test_draw_labels_cpu (edges, tiny sizes) and overlapping labels of many objects. */
START_TEST (test_gpu_labels_match_cpu)
{
  CV_SKIP_WITHOUT_GPU ("moct labels GPU == CPU");
  const cc_format formats[] = { CC_FORMAT_RGBX8, CC_FORMAT_BGRX8, CC_FORMAT_NV12, CC_FORMAT_I420 };
  const struct { int w, h, x0, y0, x1, y1; } cases[] = {
    { 64, 48, 20, 30, 35, 45 }, { 64, 48, 56, 0, 63, 3 }, { 13, 7, 8, 0, 11, 1 },
    { 1, 1, 0, 0, 0, 0 }, { 2, 2, 0, 0, 1, 1 }, { 641, 359, 600, 2, 640, 20 },
  };
  const uint8_t red[3] = { 250, 0, 0 };
  cc_context *ctx[2];
  for (int b = 0; b < 2; b++)
    CC_ASSERT_OK (cc_context_create (b ? CC_BACKEND_CUDA : CC_BACKEND_CPU, -1, &ctx[b]));
  long glyph_bytes = 0;
  for (int fi = 0; fi < 4; fi++)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      cc_format format = formats[fi];
      int w = cases[c].w, h = cases[c].h;
      cc_moct_params p;
      cc_moct_params_default (&p);
      p.min_mass = 1;
      /* one object with a long name (63 bytes, past the right edge), then three
       * whose labels overlap it */
      cc_moct_object o[4];
      memset (o, 0, sizeof o);
      memset (o[0].name, 'W', CC_MOCT_NAME_MAX - 1);
      snprintf (o[1].name, sizeof o[1].name, "ab\x7f");
      snprintf (o[2].name, sizeof o[2].name, "~|@");
      snprintf (o[3].name, sizeof o[3].name, "xyz");
      static const uint8_t colours[4][3] = { { 250, 0, 0 }, { 0, 200, 0 }, { 0, 0, 250 },
                                             { 230, 230, 0 } };
      for (int i = 0; i < 4; i++) {
        o[i].r = colours[i][0];
        o[i].g = colours[i][1];
        o[i].b = colours[i][2];
        o[i].tolerance = 30;
      }
      guarded_frame g;
      label_scene (format, w, h, cases[c].x0, cases[c].y0, cases[c].x1, cases[c].y1, red, &g);
      /* objects 1..3: 3x3 boxes 5 px apart to the right, 1 px down (clipped) */
      for (int i = 1; i < 4; i++) {
        uint8_t rgb[3] = { o[i].r, o[i].g, o[i].b };
        for (int y = cases[c].y0 + i; y < cases[c].y0 + i + 3 && y < h; y++)
          for (int x = cases[c].x0 + 5 * i; x < cases[c].x0 + 5 * i + 3 && x < w; x++)
            test_put (&g.img, x, y, rgb);
      }
      cc_moct *m[2];
      cc_image out[2];
      for (int b = 0; b < 2; b++) {
        CC_ASSERT_OK (cc_moct_create (ctx[b], w, h, &p, &m[b]));
        CC_ASSERT_OK (cc_moct_set_objects (m[b], o, 4));
        cc_image dev;
        CC_ASSERT_OK (cv_test_to_backend (ctx[b], &g.img, &dev));
        CC_ASSERT_OK (cc_moct_compute (m[b], NULL, &dev, NULL));
        CC_ASSERT_OK (cc_moct_draw (m[b], NULL, &dev, CC_MOCT_DRAW_ALL));
        CC_ASSERT_OK (cv_test_to_host (ctx[b], &dev, &out[b]));
        cc_image_free (ctx[b], &dev);
      }
      for (int pl = 0; pl < g.planes; pl++) {
        int rows = pl == 0 ? h : (h + 1) / 2, bytes = plane_row_bytes (format, w, pl);
        for (int y = 0; y < rows; y++) {
          const uint8_t *a = (const uint8_t *) out[0].planes[pl] + (size_t) y * out[0].pitch[pl];
          const uint8_t *d = (const uint8_t *) out[1].planes[pl] + (size_t) y * out[1].pitch[pl];
          const uint8_t *in = (const uint8_t *) g.img.planes[pl] + (size_t) y * g.img.pitch[pl];
          ck_assert_msg (!memcmp (a, d, bytes), "%s %dx%d: plane %d row %d differs",
              cc_format_name (format), w, h, pl, y);
          for (int k = 0; k < bytes; k++)
            glyph_bytes += a[k] != in[k];
        }
      }
      for (int b = 0; b < 2; b++) {
        cv_image_free (&out[b]);
        cc_moct_destroy (m[b]);
      }
      guarded_free (&g);
    }
  ck_assert (glyph_bytes > 0);
  printf ("moct labels: CUDA == CPU on %d frames (%ld bytes drawn)\n",
      4 * (int) (sizeof cases / sizeof cases[0]), glyph_bytes);
  for (int b = 0; b < 2; b++)
    cc_context_destroy (ctx[b]);
}
END_TEST

/* ---------------------------------------------------------------- CUDA */

static int
results_equal (const cc_moct_result *a, const cc_moct_result *b, int n)
{
  for (int i = 0; i < n; i++) {
    /* field by field: padding bytes are not compared */
    const cc_moct_result *x = &a[i], *y = &b[i];
    if (x->id != y->id || x->present != y->present || x->velocity_valid != y->velocity_valid
        || x->mass != y->mass || x->sum_x != y->sum_x || x->sum_y != y->sum_y
        || x->sum_xx != y->sum_xx || x->sum_yy != y->sum_yy || x->sum_xy != y->sum_xy
        || x->cx != y->cx || x->cy != y->cy || x->x0 != y->x0 || x->y0 != y->y0
        || x->x1 != y->x1 || x->y1 != y->y1 || x->mu20 != y->mu20 || x->mu02 != y->mu02
        || x->mu11 != y->mu11 || x->orientation != y->orientation
        || x->major_axis != y->major_axis || x->minor_axis != y->minor_axis
        || x->vx != y->vx || x->vy != y->vy || x->lost != y->lost)
      return i;
  }
  return -1;
}

/* frames: host RGBX8 clip; runs both backends over all frames, comparing results,
 * trajectories and drawings in `format`. */
static void
compare_backends (const cc_image *frames, int nframes, const cc_moct_object *o, int n,
    const cc_moct_params *p, const cc_moct_tuning *tuning, cc_format format)
{
  cc_context *ctx[2];
  cc_moct *m[2];
  cc_context *cpu;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  for (int b = 0; b < 2; b++) {
    CC_ASSERT_OK (cc_context_create (b ? CC_BACKEND_CUDA : CC_BACKEND_CPU, -1, &ctx[b]));
    CC_ASSERT_OK (cc_moct_create (ctx[b], frames[0].width, frames[0].height, p, &m[b]));
    CC_ASSERT_OK (cc_moct_set_tuning (m[b], tuning));
    CC_ASSERT_OK (cc_moct_set_objects (m[b], o, n));
  }
  cc_moct_result *r[2] = { calloc (n, sizeof (cc_moct_result)), calloc (n, sizeof (cc_moct_result)) };
  for (int t = 0; t < nframes; t++) {
    cc_image host = frames[t], conv;
    bool yuv = format == CC_FORMAT_NV12 || format == CC_FORMAT_I420;
    if (yuv) {
      to_yuv (cpu, &frames[t], format, &conv);
      host = conv;
    } else if (format == CC_FORMAT_BGRX8) {
      host.format = CC_FORMAT_BGRX8;   /* same bytes read as B G R */
    }
    cc_image dev[2], drawn[2];
    for (int b = 0; b < 2; b++) {
      CC_ASSERT_OK (cv_test_to_backend (ctx[b], &host, &dev[b]));
      CC_ASSERT_OK (cc_moct_compute (m[b], NULL, &dev[b], t % 3 == 2 ? NULL : r[b]));
    }
    if (t % 3 != 2) {
      int bad = results_equal (r[0], r[1], n);
      ck_assert_msg (bad < 0, "frame %d layout %d K %d format %s: object %d differs (mass %lld"
          " vs %lld)", t, (int) tuning->layout, tuning->pixels_per_thread, cc_format_name (format), bad,
          bad < 0 ? 0LL : (long long) r[0][bad].mass, bad < 0 ? 0LL : (long long) r[1][bad].mass);
    }
    if (t == nframes - 1) {
      for (int b = 0; b < 2; b++) {
        CC_ASSERT_OK (cc_moct_draw (m[b], NULL, &dev[b], CC_MOCT_DRAW_ALL));
        CC_ASSERT_OK (cc_image_alloc (cpu, host.width, host.height, format, CC_LOCATION_HOST,
                &drawn[b]));
        CC_ASSERT_OK (cc_image_copy (ctx[b], NULL, &dev[b], &drawn[b]));
      }
      for (int pl = 0; pl < cc_format_planes (format); pl++) {
        int pw = pl == 0 ? host.width : (host.width + 1) / 2, ph = pl == 0 ? host.height : (host.height + 1) / 2;
        size_t row = (size_t) pw * (pl == 0 ? (yuv ? 1 : 4) : (format == CC_FORMAT_NV12 ? 2 : 1));
        for (int y = 0; y < ph; y++)
          ck_assert_msg (!memcmp ((uint8_t *) drawn[0].planes[pl] + y * drawn[0].pitch[pl],
                  (uint8_t *) drawn[1].planes[pl] + y * drawn[1].pitch[pl], row),
              "drawing differs: plane %d row %d (%s)", pl, y, cc_format_name (format));
      }
      for (int b = 0; b < 2; b++)
        cc_image_free (cpu, &drawn[b]);
      for (int k = 0; k < n; k += n > 8 ? 37 : 1) {
        cc_moct_sample tr[2][64];
        int cnt[2];
        for (int b = 0; b < 2; b++)
          CC_ASSERT_OK (cc_moct_get_trajectory (m[b], k, tr[b], 64, &cnt[b]));
        ck_assert_int_eq (cnt[0], cnt[1]);
        ck_assert (!memcmp (tr[0], tr[1], cnt[0] * sizeof (cc_moct_sample)));
      }
    }
    for (int b = 0; b < 2; b++)
      cc_image_free (ctx[b], &dev[b]);
    if (yuv)
      cc_image_free (cpu, &conv);
  }
  for (int b = 0; b < 2; b++) {
    free (r[b]);
    cc_moct_destroy (m[b]);
    cc_context_destroy (ctx[b]);
  }
  cc_context_destroy (cpu);
}

START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("moct GPU == CPU");
  /* the moving clip (8 objects, a large one covering much of the frame) */
  const int nf = 6, w = 317, h = 181;
  cc_image frames[6];
  for (int t = 0; t < nf; t++) {
    cv_synth_shape s[9];
    cv_synth_objects_at (t * 5, w, h, 8, s + 1);
    /* a large object first (palette colour 8), the small ones over it */
    uint8_t rgb[3];
    cv_synth_palette (8, rgb);
    s[0] = (cv_synth_shape) { w / 2.0, h / 2.0, w * 0.45, h * 0.4, 0.02 * t, rgb[0], rgb[1], rgb[2] };
    CC_ASSERT_OK (cv_synth_shapes (w, h, s, 9, &frames[t], NULL));
  }
  cc_moct_object *o = palette_objects (9, 30.0f);
  const cc_format formats[] = { CC_FORMAT_RGBX8, CC_FORMAT_BGRX8, CC_FORMAT_NV12, CC_FORMAT_I420 };
  /* layouts x {64-bit, narrow} shared accumulators */
  for (int layout = 0; layout < 4; layout++)
    for (int K = 4; K <= 16; K *= 2)
      for (int f = 0; f < 4; f++) {
        cc_moct_params p;
        cc_moct_params_default (&p);
        cc_moct_tuning t = { .layout = (cc_moct_layout) (layout & 1),
                             .narrow_accumulators = layout >> 1, .pixels_per_thread = K };
        p.history = 4;
        compare_backends (frames, nf, o, 9, &p, &t, formats[f]);
        /* search windows (9 px: smaller than the large object, so its windowed sums
         * differ from the global ones) */
        p.window = 9;
        compare_backends (frames, nf, o, 9, &p, &t, formats[f]);
      }
  free (o);
  for (int t = 0; t < nf; t++)
    cv_image_free (&frames[t]);
  /* 1024 objects */
  cv_synth_shape *s = grid_shapes (1024, 32, 20);
  cc_image big[2];
  for (int t = 0; t < 2; t++) {
    for (int k = 0; k < 1024; k++)
      s[k].cx += t;
    CC_ASSERT_OK (cv_synth_shapes (640, 640, s, 1024, &big[t], NULL));
  }
  o = palette_objects (1024, 10.0f);
  for (int layout = 0; layout < 4; layout++) {
    cc_moct_params p;
    cc_moct_params_default (&p);
    cc_moct_tuning t;
    cc_moct_tuning_default (&t);
    t.layout = (cc_moct_layout) (layout & 1);
    t.narrow_accumulators = layout >> 1;
    compare_backends (big, 2, o, 1024, &p, &t, CC_FORMAT_RGBX8);
  }
  free (o);
  free (s);
  cv_image_free (&big[0]);
  cv_image_free (&big[1]);
}
END_TEST

/* Search windows: a distractor of the same colour far away leaves a seeded object's
 * statistics exact; the object is followed as it moves; after frames without it the
 * window grows until it finds it again; a reset goes back to the whole frame. */
static void
draw_disc_rgbx (cc_image *f, double cx, double cy, double r, const uint8_t rgb[3])
{
  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < f->width; x++)
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) {
        uint8_t *p = (uint8_t *) f->planes[0] + y * f->pitch[0] + 4 * x;
        p[0] = rgb[0]; p[1] = rgb[1]; p[2] = rgb[2];
      }
}

static void
disc_truth (int w, int h, double cx, double cy, double r, long long *mass, double *mx, double *my,
    int box[4])
{
  long long n = 0, sx = 0, sy = 0;
  box[0] = box[1] = 1 << 30;
  box[2] = box[3] = -1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) {
        n++; sx += x; sy += y;
        if (x < box[0]) box[0] = x;
        if (y < box[1]) box[1] = y;
        if (x > box[2]) box[2] = x;
        if (y > box[3]) box[3] = y;
      }
  *mass = n;
  *mx = n ? (double) sx / n : 0;
  *my = n ? (double) sy / n : 0;
}

START_TEST (test_search_window)
{
  const int w = 160, h = 120;
  const uint8_t red[3] = { 220, 30, 30 }, grey[3] = { 128, 128, 128 };
  cc_moct_object o;
  memset (&o, 0, sizeof o);
  snprintf (o.name, sizeof o.name, "ball");
  o.r = red[0]; o.g = red[1]; o.b = red[2];
  o.tolerance = 30;
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct_params p;
  cc_moct_params_default (&p);
  p.window = 12;
  p.min_mass = 4;
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, w, h, &p, &m));
  CC_ASSERT_OK (cc_moct_set_objects (m, &o, 1));
  ck_assert_int_eq (cc_moct_seed (m, NULL, 1, 0, 0), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_moct_seed (m, NULL, 0, 32, 40));
  cc_image f;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &f));
  /* frames 0..5: the ball moves 4 px right a frame; a distractor disc stays at
   * (130, 90); frames 6..8: no ball; frame 9: the ball again 14 px further on */
  double bx = 30.0, by = 41.0;
  for (int t = 0; t < 10; t++) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        uint8_t *q = (uint8_t *) f.planes[0] + y * f.pitch[0] + 4 * x;
        q[0] = grey[0]; q[1] = grey[1]; q[2] = grey[2]; q[3] = 255;
      }
    draw_disc_rgbx (&f, 130, 90, 6, red);
    bool ball = t < 6 || t == 9;
    if (t == 9)
      bx += 14;
    if (ball)
      draw_disc_rgbx (&f, bx, by, 5, red);
    cc_moct_result r;
    CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, &r));
    if (ball) {
      long long mass;
      double mx, my;
      int box[4];
      disc_truth (w, h, bx, by, 5, &mass, &mx, &my, box);
      ck_assert_msg (r.present && r.mass == mass, "frame %d: mass %lld, want %lld", t,
          (long long) r.mass, mass);
      ck_assert_int_eq (r.x0, box[0]);
      ck_assert_int_eq (r.y0, box[1]);
      ck_assert_int_eq (r.x1, box[2]);
      ck_assert_int_eq (r.y1, box[3]);
      ck_assert (fabs (r.cx - mx) < 1e-12 && fabs (r.cy - my) < 1e-12);
    } else {
      /* the window grows from +-12 by 12 a side a frame: not yet to the distractor */
      ck_assert_msg (!r.present && r.mass == 0, "frame %d: mass %lld without the ball", t,
          (long long) r.mass);
    }
    bx += t < 6 ? 4 : 0;
  }
  /* a reset searches the whole frame again: the distractor counts */
  CC_ASSERT_OK (cc_moct_reset (m, NULL));
  cc_moct_result r;
  CC_ASSERT_OK (cc_moct_compute (m, NULL, &f, &r));
  long long dmass, bmass;
  double mx, my;
  int box[4];
  disc_truth (w, h, 130, 90, 6, &dmass, &mx, &my, box);
  disc_truth (w, h, bx, by, 5, &bmass, &mx, &my, box);
  ck_assert_int_eq (r.mass, dmass + bmass);
  /* without a window (the default) the distractor always counts */
  cc_moct_params q;
  cc_moct_params_default (&q);
  ck_assert_int_eq (q.window, 0);
  p.window = 4097;
  ck_assert_int_eq (cc_moct_params_check (&p), CC_ERROR_INVALID_ARGUMENT);
  cv_image_free (&f);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

/* The size gate (params.size_ratio, default 3, with a window): a ball followed for 4
 * frames vanishes; a look-alike of its colour 9 times its mass enters its window
 * (lost: absent, `lost` set), then a 2x2 fleck (lost the other way), then nothing
 * (absent, not lost); the ball reappears and is re-acquired with its exact
 * statistics. Without the gate the look-alike is followed. A reset drops the
 * reference: the look-alike alone is then accepted. The same frames on CUDA give
 * the same results field by field (when a device is present). */
static void
gate_frame (cc_image *f, int t, double *bx, bool *ball)
{
  const uint8_t red[3] = { 220, 30, 30 };
  for (int y = 0; y < f->height; y++)
    for (int x = 0; x < f->width; x++) {
      uint8_t *q = (uint8_t *) f->planes[0] + y * f->pitch[0] + 4 * x;
      q[0] = q[1] = q[2] = 128; q[3] = 255;
    }
  *ball = t < 4 || t == 7;
  *bx = t < 4 ? 30.0 + 4 * t : 56.0;
  if (*ball)
    draw_disc_rgbx (f, *bx, 41, 5, red);
  if (t == 4)
    draw_disc_rgbx (f, 52, 45, 15, red);
  if (t == 5)
    for (int y = 41; y < 43; y++)
      for (int x = 50; x < 52; x++)
        memcpy ((uint8_t *) f->planes[0] + y * f->pitch[0] + 4 * x, red, 3);
}

static void
run_gate (cc_backend backend, float ratio, cc_moct_result out[9])
{
  const int w = 160, h = 120;
  cc_moct_object o;
  memset (&o, 0, sizeof o);
  snprintf (o.name, sizeof o.name, "ball");
  o.r = 220; o.g = 30; o.b = 30;
  o.tolerance = 30;
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (backend, -1, &ctx));
  cc_moct_params p;
  cc_moct_params_default (&p);
  p.window = 12;
  p.min_mass = 4;
  p.size_ratio = ratio;
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, w, h, &p, &m));
  CC_ASSERT_OK (cc_moct_set_objects (m, &o, 1));
  CC_ASSERT_OK (cc_moct_seed (m, NULL, 0, 30, 41));
  cc_image f;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &f));
  for (int t = 0; t < 9; t++) {
    double bx;
    bool ball;
    if (t == 8)
      CC_ASSERT_OK (cc_moct_reset (m, NULL));
    gate_frame (&f, t == 8 ? 4 : t, &bx, &ball);   /* 8: the look-alike alone */
    cc_image dev;
    CC_ASSERT_OK (cv_test_to_backend (ctx, &f, &dev));
    CC_ASSERT_OK (cc_moct_compute (m, NULL, &dev, &out[t]));
    cc_image_free (ctx, &dev);
  }
  cv_image_free (&f);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}

START_TEST (test_size_gate)
{
  cc_moct_result r[9], off[9];
  run_gate (CC_BACKEND_CPU, 3.0f, r);
  cc_image f;
  CC_ASSERT_OK (cv_image_new (160, 120, CC_FORMAT_RGBX8, &f));
  for (int t = 0; t < 8; t++) {
    double bx;
    bool ball;
    gate_frame (&f, t, &bx, &ball);
    if (ball) {
      long long mass;
      double mx, my;
      int box[4];
      disc_truth (160, 120, bx, 41, 5, &mass, &mx, &my, box);
      ck_assert_msg (r[t].present && !r[t].lost && r[t].mass == mass,
          "frame %d: present %d lost %d mass %lld, want %lld", t, r[t].present, r[t].lost,
          (long long) r[t].mass, mass);
      ck_assert (r[t].x0 == box[0] && r[t].y0 == box[1] && r[t].x1 == box[2] && r[t].y1 == box[3]);
      ck_assert (fabs (r[t].cx - mx) < 1e-12 && fabs (r[t].cy - my) < 1e-12);
    } else if (t == 6) {
      ck_assert_msg (!r[t].present && !r[t].lost && r[t].mass == 0, "frame 6: mass %lld",
          (long long) r[t].mass);
    } else {
      /* the look-alike (t 4: 9x the ball's mass within the window) and the fleck
       * (t 5: 4 px, under a third of it) are refused */
      ck_assert_msg (!r[t].present && r[t].lost && r[t].mass >= 4,
          "frame %d: present %d lost %d mass %lld", t, r[t].present, r[t].lost,
          (long long) r[t].mass);
    }
  }
  ck_assert (r[4].mass > 3 * r[3].mass && r[5].mass == 4);
  /* re-acquired 4 frames after the last accepted one: velocity over those frames */
  ck_assert (r[7].velocity_valid && fabs (r[7].vx - (r[7].cx - r[3].cx) / 4.0) < 1e-12);
  /* after a reset there is no reference (and no window): the whole look-alike is
   * taken */
  long long big;
  double mx, my;
  int box[4];
  disc_truth (160, 120, 52, 45, 15, &big, &mx, &my, box);
  ck_assert_msg (r[8].present && !r[8].lost && r[8].mass == big,
      "after reset: present %d lost %d mass %lld", r[8].present, r[8].lost,
      (long long) r[8].mass);
  /* without the gate the window follows the look-alike */
  run_gate (CC_BACKEND_CPU, 0.0f, off);
  ck_assert (off[4].present && !off[4].lost && off[4].mass == r[4].mass);
  /* out of range */
  cc_moct_params p;
  cc_moct_params_default (&p);
  ck_assert (p.size_ratio == 3.0f);
  p.size_ratio = 0.5f;
  ck_assert_int_eq (cc_moct_params_check (&p), CC_ERROR_INVALID_ARGUMENT);
  p.size_ratio = 101.0f;
  ck_assert_int_eq (cc_moct_params_check (&p), CC_ERROR_INVALID_ARGUMENT);
  cv_image_free (&f);
  CV_SKIP_WITHOUT_GPU ("moct size gate GPU == CPU");
  cc_moct_result g[9];
  run_gate (CC_BACKEND_CUDA, 3.0f, g);
  for (int t = 0; t < 9; t++)
    ck_assert_msg (results_equal (&r[t], &g[t], 1) < 0, "frame %d: CUDA differs", t);
}
END_TEST

/* The CPU sums bands of rows on several threads: 1 and 4 threads (and a band per
 * row) give the same results, field by field. */
START_TEST (test_cpu_threads_same_results)
{
  const int w = 203, h = 3;   /* fewer rows than threads: bands capped by rows */
  const int sizes[][2] = { { 641, 479 }, { w, h } };
  for (int sz = 0; sz < 2; sz++) {
    int W = sizes[sz][0], H = sizes[sz][1];
    cc_moct_object *o = palette_objects (128, 10.0f);
    cc_image frame;
    CC_ASSERT_OK (cv_image_new (W, H, CC_FORMAT_RGBX8, &frame));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        uint8_t *p = (uint8_t *) frame.planes[0] + y * frame.pitch[0] + 4 * x;
        int k = ((x / 7) * 31 + (y / 5) * 17) % 160;   /* some pixels of no object */
        uint8_t rgb[3] = { 128, 128, 128 };
        if (k < 128)
          cv_synth_palette (k, rgb);
        p[0] = rgb[0]; p[1] = rgb[1]; p[2] = rgb[2]; p[3] = 255;
      }
    cc_moct_result r[2][128];
    for (int t = 0; t < 2; t++) {
      cc_context *ctx;
      CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
      CC_ASSERT_OK (cc_context_set_threads (ctx, t ? 4 : 1));
      cc_moct *m;
      CC_ASSERT_OK (cc_moct_create (ctx, W, H, NULL, &m));
      CC_ASSERT_OK (cc_moct_set_objects (m, o, 128));
      CC_ASSERT_OK (cc_moct_compute (m, NULL, &frame, r[t]));
      cc_moct_destroy (m);
      cc_context_destroy (ctx);
    }
    int present = 0;
    for (int k = 0; k < 128; k++) {
      ck_assert_msg (r[0][k].mass == r[1][k].mass && r[0][k].sum_x == r[1][k].sum_x
          && r[0][k].sum_y == r[1][k].sum_y && r[0][k].sum_xx == r[1][k].sum_xx
          && r[0][k].sum_yy == r[1][k].sum_yy && r[0][k].sum_xy == r[1][k].sum_xy
          && r[0][k].x0 == r[1][k].x0 && r[0][k].y0 == r[1][k].y0 && r[0][k].x1 == r[1][k].x1
          && r[0][k].y1 == r[1][k].y1 && r[0][k].cx == r[1][k].cx && r[0][k].cy == r[1][k].cy,
          "%dx%d object %d differs between 1 and 4 threads", W, H, k);
      present += r[0][k].mass > 0;
    }
    ck_assert_int_gt (present, sz == 0 ? 100 : 10);
    cv_image_free (&frame);
    free (o);
  }
}
END_TEST

/* Objects of different colour spaces in one table: a colour only one of them takes
 * goes to it exactly as a tracker of that object's space alone would classify it. */
START_TEST (test_per_object_space)
{
  cc_context *ctx;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  cc_moct_params p;
  cc_moct_params_default (&p);   /* RGB */
  cc_moct_object mixed[3];
  memset (mixed, 0, sizeof mixed);
  const struct { const char *name; uint8_t r, g, b; float tol; cc_moct_space sp; } def[3] = {
    { "rgb", 200, 40, 40, 40.0f, CC_MOCT_SPACE_PARAMS },
    { "hsv", 40, 200, 60, 40.0f, CC_MOCT_SPACE_HSV },
    { "lab", 50, 60, 210, 20.0f, CC_MOCT_SPACE_LAB },
  };
  cc_moct *alone[3];
  for (int k = 0; k < 3; k++) {
    snprintf (mixed[k].name, sizeof mixed[k].name, "%s", def[k].name);
    mixed[k].r = def[k].r;
    mixed[k].g = def[k].g;
    mixed[k].b = def[k].b;
    mixed[k].tolerance = def[k].tol;
    mixed[k].space = def[k].sp;
    cc_moct_params q = p;
    q.space = def[k].sp == CC_MOCT_SPACE_PARAMS ? p.space : def[k].sp;
    cc_moct_object one = mixed[k];
    one.space = CC_MOCT_SPACE_PARAMS;
    CC_ASSERT_OK (cc_moct_create (ctx, 8, 8, &q, &alone[k]));
    CC_ASSERT_OK (cc_moct_set_objects (alone[k], &one, 1));
  }
  cc_moct *m;
  CC_ASSERT_OK (cc_moct_create (ctx, 8, 8, &p, &m));
  CC_ASSERT_OK (cc_moct_set_objects (m, mixed, 3));
  int taken[3] = { 0 };
  for (int yuv = 0; yuv < 2; yuv++)
    for (int a = 0; a < 256; a += 3)
      for (int b = 0; b < 256; b += 3)
        for (int c = 0; c < 256; c += 3) {
          int hits = 0, only = -1;
          for (int k = 0; k < 3; k++)
            if (cc_moct_classify (alone[k], yuv, a, b, c) == 0) {
              hits++;
              only = k;
            }
          int got = cc_moct_classify (m, yuv, a, b, c);
          if (hits == 0)
            ck_assert_msg (got == -1, "(%d,%d,%d) yuv %d: %d, want none", a, b, c, yuv, got);
          else if (hits == 1)
            ck_assert_msg (got == only, "(%d,%d,%d) yuv %d: %d, want %d", a, b, c, yuv, got, only);
          else
            ck_assert (got >= 0);
          if (got >= 0)
            taken[got]++;
        }
  for (int k = 0; k < 3; k++)
    ck_assert_msg (taken[k] > 0, "object %s took no colour", def[k].name);
  /* an unknown space is refused, naming the object */
  mixed[1].space = (cc_moct_space) 9;
  ck_assert_int_eq (cc_moct_set_objects (m, mixed, 3), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "object 1 (\"hsv\"): unknown colour space 9"));
  ck_assert_int_eq (cc_moct_classify (m, false, 200, 40, 40), 0);   /* the old table */
  for (int k = 0; k < 3; k++)
    cc_moct_destroy (alone[k]);
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
}
END_TEST

static Suite *
moct_suite (void)
{
  Suite *s = suite_create ("moct");
  TCase *tc = tcase_create ("moct");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_exact_many);
  tcase_add_test (tc, test_spaces);
  tcase_add_test (tc, test_clip);
  tcase_add_test (tc, test_absent_and_errors);
  tcase_add_test (tc, test_tolerance_and_ties);
  tcase_add_test (tc, test_per_object_space);
  tcase_add_test (tc, test_cpu_threads_same_results);
  tcase_add_test (tc, test_search_window);
  tcase_add_test (tc, test_size_gate);
  tcase_add_test (tc, test_yuv_against_rgb);
  tcase_add_test (tc, test_tiny_sizes);
  tcase_add_test (tc, test_set_objects_errors);
  tcase_add_test (tc, test_trajectory_velocity);
  tcase_add_test (tc, test_draw_cpu);
  tcase_add_test (tc, test_draw_labels_cpu);
  tcase_add_test (tc, test_draw_labels_order);
  tcase_add_test (tc, test_gpu_labels_match_cpu);
  tcase_add_test (tc, test_gpu_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (moct_suite ());
}
