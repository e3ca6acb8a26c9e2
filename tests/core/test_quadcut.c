/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Quad-Cut (CPU reference): the quadtree against brute force (coverage, the
 * grouping criterion, QuadN4 references, complete neighbour lists with border
 * lengths) on sizes that are not powers of two down to 1x1; the mask of synthetic
 * frames with exact truth (plate with a cast shadow, active illumination) recovered
 * away from the object's edge; the leaf cut against the pixel-level cut; the
 * temporal prior and reset; threads; compositing pixels; bad input. The truth comes
 * from cv_synth_fg_frame's mask and from the stratified data, never from the
 * quadtree under test. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_quadcut.h>
#include "cc_tuning.h"   /* cudacore/src: cc_quadcut_get_stratified */
#include "quadcut_hostdev.h"   /* cc_qc_pixel_rgb, cc_rgb_to_yuv: the YUV rules */

#include <math.h>
#include <stddef.h>
#include <string.h>

static cc_context *
cpu_context (int threads)
{
  cc_context *ctx = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  CC_ASSERT_OK (cc_context_set_threads (ctx, threads));
  return ctx;
}

/* A plate-mode quadcut of one synthetic frame t (noise 6) of w x h; mask: the truth
 * (w x h bytes, may be NULL). */
static cc_quadcut *
run_synthetic (cc_context *ctx, int w, int h, int t, const cc_quadcut_params *p,
    uint8_t *truth)
{
  cc_image plate, frame;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate));
  CC_ASSERT_OK (cv_synth_fg_frame (t, w, h, CV_SYNTH_FG_PLAIN, 6, &frame, truth));
  cc_quadcut *q = NULL;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, p, &q));
  CC_ASSERT_OK (cc_quadcut_set_plate (q, NULL, &plate));
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &frame, NULL));
  cv_image_free (&plate);
  cv_image_free (&frame);
  return q;
}

/* Does the square (x, y, side s) meet the grouping criterion, by brute force over
 * its pixels: the range of each of a, b, d within p->similarity; or (p->certain > 0)
 * every d below certain x sigma_l, or every pixel a seed (d^2 / (2 sigma_l^2) above
 * -ln seed_threshold, the module's float formula)? */
static int
square_similar (const float *ch[3], int w, int x, int y, int s, const cc_quadcut_params *p)
{
  const float inv_2sl2 = 1.0f / (2.0f * p->sigma_l * p->sigma_l);
  const float seed_cost = p->seed_threshold > 0.0f ? -logf (p->seed_threshold) : INFINITY;
  int all_bg = 1, all_seed = 1, ranges = 1;
  for (int c = 0; c < 3; c++) {
    float mn = INFINITY, mx = -INFINITY;
    for (int yy = y; yy < y + s; yy++)
      for (int xx = x; xx < x + s; xx++) {
        float v = ch[c][(size_t) yy * w + xx];
        mn = fminf (mn, v);
        mx = fmaxf (mx, v);
        if (c == 2) {
          all_bg &= v < p->certain * p->sigma_l;
          all_seed &= v * v * inv_2sl2 > seed_cost;
        }
      }
    if (mx - mn > p->similarity)
      ranges = 0;
  }
  return ranges || (p->certain > 0.0f && (all_bg || all_seed));
}

typedef struct {
  int id, len;
} nb_t;

static int
nb_cmp (const void *a, const void *b)
{
  return ((const nb_t *) a)->id - ((const nb_t *) b)->id;
}

/* Every structural property of the last run's quadtree, by brute force. */
static void
check_quadtree (cc_quadcut *q, int w, int h, const cc_quadcut_params *p, const char *what)
{
  size_t n = (size_t) w * h;
  float *L = malloc (n * sizeof (float)), *A = malloc (n * sizeof (float)),
      *B = malloc (n * sizeof (float)), *D = malloc (n * sizeof (float));
  int32_t *ids = malloc (n * sizeof (int32_t)), *owner = malloc (n * sizeof (int32_t));
  CC_ASSERT_OK (cc_quadcut_get_stratified (q, L, A, B, D, NULL, ids));
  cc_quadcut_graph g;
  CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
  ck_assert_int_eq (g.n_nodes, g.n_leaves);
  /* coverage: each pixel painted by exactly one leaf; the module's leaf ids agree */
  for (size_t i = 0; i < n; i++)
    owner[i] = -1;
  const float *ch[3] = { A, B, D };
  for (int k = 0; k < g.n_leaves; k++) {
    const cc_quadcut_leaf *l = &g.leaves[k];
    int s = 1 << l->level;
    ck_assert_msg (l->level >= 0 && l->level <= p->max_level && l->x % s == 0
        && l->y % s == 0 && l->x + s <= w && l->y + s <= h,
        "%s: leaf %d at %d,%d level %d misplaced", what, k, l->x, l->y, l->level);
    if (k > 0) {
      const cc_quadcut_leaf *o = &g.leaves[k - 1];
      ck_assert_msg (o->y < l->y || (o->y == l->y && o->x < l->x),
          "%s: leaves not in raster order at %d", what, k);
    }
    for (int y = l->y; y < l->y + s; y++)
      for (int x = l->x; x < l->x + s; x++) {
        ck_assert_msg (owner[(size_t) y * w + x] == -1, "%s: pixel %d,%d in two leaves",
            what, x, y);
        owner[(size_t) y * w + x] = k;
      }
    /* the criterion holds on the leaf, and fails on its parent when the parent lies
     * in the frame and its level is allowed */
    ck_assert_msg (square_similar (ch, w, l->x, l->y, s, p),
        "%s: leaf %d breaks the criterion", what, k);
    int ps = 2 * s, px = l->x / ps * ps, py = l->y / ps * ps;
    if (l->level + 1 <= p->max_level && px + ps <= w && py + ps <= h)
      ck_assert_msg (!square_similar (ch, w, px, py, ps, p),
          "%s: the parent of leaf %d (%d,%d level %d) meets the criterion", what, k, l->x,
          l->y, l->level);
  }
  for (size_t i = 0; i < n; i++) {
    ck_assert_msg (owner[i] >= 0, "%s: pixel %zu in no leaf", what, i);
    ck_assert_int_eq (owner[i], ids[i]);
  }
  /* QuadN4 references and neighbour lists against the owner map */
  nb_t *truth = malloc (4 * (size_t) (w + h + 4) * sizeof (nb_t));
  nb_t *got = malloc (4 * (size_t) (w + h + 4) * sizeof (nb_t));
  long long pairs = 0;
  for (int k = 0; k < g.n_leaves; k++) {
    const cc_quadcut_leaf *l = &g.leaves[k];
    int s = 1 << l->level, x0 = l->x, y0 = l->y, x1 = x0 + s - 1, y1 = y0 + s - 1;
    ck_assert_int_eq (l->north, y0 > 0 ? owner[(size_t) (y0 - 1) * w + x0] : -1);
    ck_assert_int_eq (l->east, x1 + 1 < w ? owner[(size_t) y1 * w + x1 + 1] : -1);
    ck_assert_int_eq (l->south, y1 + 1 < h ? owner[(size_t) (y1 + 1) * w + x1] : -1);
    ck_assert_int_eq (l->west, x0 > 0 ? owner[(size_t) y0 * w + x0 - 1] : -1);
    /* brute force: every pixel pair across the leaf's border */
    int nt = 0;
    for (int side = 0; side < 4; side++)
      for (int i = 0; i < s; i++) {
        int x = side == 0 || side == 2 ? x0 + i : (side == 1 ? x1 + 1 : x0 - 1);
        int y = side == 1 || side == 3 ? y0 + i : (side == 0 ? y0 - 1 : y1 + 1);
        if (x < 0 || y < 0 || x >= w || y >= h)
          continue;
        int o = owner[(size_t) y * w + x], j;
        for (j = 0; j < nt && truth[j].id != o; j++)
          ;
        if (j == nt)
          truth[nt++] = (nb_t) { o, 0 };
        truth[j].len++;
      }
    int ng = g.offsets[k + 1] - g.offsets[k];
    ck_assert_msg (ng == nt, "%s: leaf %d has %d neighbours, brute force %d", what, k, ng,
        nt);
    for (int j = 0; j < ng; j++)
      got[j] = (nb_t) { g.neighbours[g.offsets[k] + j], g.lengths[g.offsets[k] + j] };
    qsort (truth, nt, sizeof *truth, nb_cmp);
    qsort (got, ng, sizeof *got, nb_cmp);
    for (int j = 0; j < ng; j++)
      ck_assert_msg (got[j].id == truth[j].id && got[j].len == truth[j].len,
          "%s: leaf %d neighbour %d: %d (len %d), brute force %d (len %d)", what, k, j,
          got[j].id, got[j].len, truth[j].id, truth[j].len);
    pairs += ng;
  }
  ck_assert_int_eq (g.n_edges * 2, pairs);
  /* the compact graph as cut: t-links = the leaves' summed costs; n-links = each
   * leaf's neighbours of a higher index in list order, weight lambda x border x
   * -log max (1 - exp (-|dLab|^2 / (2 sigma_c^2)), 1e-6) (libm here: within 1e-12) */
  long long e = 0;
  const double inv_2sc2 = 1.0 / (2.0 * p->sigma_c * p->sigma_c);
  for (int k = 0; k < g.n_leaves; k++) {
    const cc_quadcut_leaf *l = &g.leaves[k];
    ck_assert (g.tlink_fg[k] == l->cost_fg && g.tlink_bg[k] == l->cost_bg);
    for (int j = g.offsets[k]; j < g.offsets[k + 1]; j++) {
      int t = g.neighbours[j];
      if (t < k)
        continue;
      const cc_quadcut_leaf *o = &g.leaves[t];
      double d0 = l->L - o->L, d1 = l->a - o->a, d2 = l->b - o->b;
      double bb = 1.0 - exp (-(d0 * d0 + d1 * d1 + d2 * d2) * inv_2sc2);
      double want = p->lambda * g.lengths[j] * -log (bb > 1e-6 ? bb : 1e-6);
      ck_assert_msg (e < g.n_edges && g.edge_a[e] == k && g.edge_b[e] == t,
          "%s: n-link %lld is %d-%d, expected %d-%d", what, e, g.edge_a[e], g.edge_b[e], k, t);
      ck_assert_msg (fabs (g.edge_w[e] - want) <= 1e-12 * (1.0 + want),
          "%s: n-link %lld weight %.17g, expected %.17g", what, e, g.edge_w[e], want);
      e++;
    }
  }
  ck_assert_int_eq (e, g.n_edges);
  free (truth);
  free (got);
  free (L);
  free (A);
  free (B);
  free (D);
  free (ids);
  free (owner);
}

START_TEST (test_quadtree_structure)
{
  static const int sizes[][2] = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 2, 2 }, { 37, 23 },
                                  { 64, 64 }, { 129, 67 }, { 160, 120 } };
  static const float sims[] = { 0.0f, 3.0f, 12.0f, 1000.0f };
  static const int levels[] = { 0, 2, 5, 12 };
  cc_context *ctx = cpu_context (2);
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int v = 0; v < 4; v++) {
      int w = sizes[si][0], h = sizes[si][1];
      cc_quadcut_params p;
      cc_quadcut_params_default (&p);
      p.similarity = sims[v];
      p.max_level = levels[(v + si) % 4];
      /* the texture-blind rule on half the cases (odd sizes with it off) */
      p.certain = (v + si) % 2 ? 2.0f : 0.0f;
      char what[80];
      snprintf (what, sizeof what, "%dx%d sim %g certain %g level %d", w, h, p.similarity,
          p.certain, p.max_level);
      cc_quadcut *q = run_synthetic (ctx, w, h, 3, &p, NULL);
      check_quadtree (q, w, h, &p, what);
      cc_quadcut_graph g;
      CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
      if (p.similarity == 0.0f && p.certain == 0.0f && w * h > 4)
        ck_assert_int_gt (g.n_leaves, w * h / 2);   /* noise: almost all 1x1 */
      if (p.similarity == 1000.0f && p.max_level >= 5 && w == 64)
        ck_assert_int_eq (g.n_leaves, 4);           /* four 32x32 leaves */
      cc_quadcut_destroy (q);
    }
  cc_context_destroy (ctx);
}
END_TEST

/* The boundary term's exp and log (IEEE operations only, for the same bits on both
 * backends) against libm: relative error below 1e-15 over the range they meet. */
START_TEST (test_exp_log)
{
  double worst_e = 0.0, worst_l = 0.0;
  for (int i = 0; i <= 200000; i++) {
    double x = i * 0.0035;   /* 0 .. 700 (0 from 708 on) */
    double a = cc_qc_exp_neg (x), b = exp (-x);
    double r = fabs (a - b) / b;
    worst_e = r > worst_e ? r : worst_e;
    double v = 1e-6 + i * ((1.0 - 1e-6) / 200000);
    double la = cc_qc_log (v), lb = log (v);
    double rl = lb != 0.0 ? fabs (la - lb) / fabs (lb) : fabs (la);
    worst_l = rl > worst_l ? rl : worst_l;
  }
  ck_assert (cc_qc_exp_neg (0.0) == 1.0 && cc_qc_exp_neg (800.0) == 0.0);
  ck_assert (cc_qc_log (1.0) == 0.0);
  printf ("cc_qc_exp_neg vs exp: %.3g relative; cc_qc_log vs log: %.3g\n", worst_e, worst_l);
  ck_assert_msg (worst_e < 1e-15 && worst_l < 1e-15, "exp %.3g, log %.3g", worst_e, worst_l);
}
END_TEST

/* Pixels whose 5x5 neighbourhood (Chebyshev distance <= 2) has one truth label. */
static int
far_from_edge (const uint8_t *truth, int w, int h, int x, int y)
{
  uint8_t v = truth[(size_t) y * w + x];
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
      int xx = x + dx, yy = y + dy;
      if (xx >= 0 && yy >= 0 && xx < w && yy < h && truth[(size_t) yy * w + xx] != v)
        return 0;
    }
  return 1;
}

/* Mismatches of the last run's mask against the truth, away from the edge (all
 * counted in *all). */
static long
mask_errors (cc_quadcut *q, const uint8_t *truth, int w, int h, long *all, uint8_t *out)
{
  cc_image m;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &m));
  CC_ASSERT_OK (cc_quadcut_get_mask (q, NULL, &m));
  long far = 0, any = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t v = ((uint8_t *) m.planes[0])[(size_t) y * m.pitch[0] + x];
      ck_assert (v == 0 || v == 255);
      if (out)
        out[(size_t) y * w + x] = v;
      if (v != truth[(size_t) y * w + x]) {
        any++;
        far += far_from_edge (truth, w, h, x, y);
      }
    }
  cv_image_free (&m);
  if (all)
    *all = any;
  return far;
}

START_TEST (test_plate_recovers_mask)
{
  const int w = 200, h = 150;
  cc_context *ctx = cpu_context (2);
  uint8_t *truth = malloc ((size_t) w * h), *leaf_mask = malloc ((size_t) w * h),
      *pixel_mask = malloc ((size_t) w * h);
  static const int frames[] = { 0, 17, 40 };   /* 40: the object leaves the frame */
  for (int fi = 0; fi < 3; fi++) {
    cc_quadcut_params p;
    cc_quadcut_params_default (&p);
    p.shadow_depth = 0.6f;   /* the synthetic shadow takes 45 % of the light */
    cc_quadcut *q = run_synthetic (ctx, w, h, frames[fi], &p, truth);
    long all = 0, far = mask_errors (q, truth, w, h, &all, leaf_mask);
    cc_quadcut_graph g;
    CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
    printf ("plate t=%d: %d leaves (%.1f %% of pixels), %lld n-links, %ld wrong pixels "
        "(%ld beyond 2 px of the edge)\n", frames[fi], g.n_leaves,
        100.0 * g.n_leaves / (w * h), g.n_edges, all, far);
    ck_assert_msg (far == 0, "t=%d: %ld pixels wrong beyond 2 px of the edge", frames[fi],
        far);
    ck_assert_int_lt (g.n_leaves, w * h / 2);
    cc_quadcut_destroy (q);
    /* the pixel-level reference with the same energy */
    p.nodes = CC_QUADCUT_NODES_PIXELS;
    q = run_synthetic (ctx, w, h, frames[fi], &p, truth);
    far = mask_errors (q, truth, w, h, &all, pixel_mask);
    ck_assert_msg (far == 0, "pixels t=%d: %ld wrong beyond 2 px of the edge", frames[fi],
        far);
    CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
    ck_assert_int_eq (g.n_leaves, 0);
    ck_assert_int_eq (g.n_nodes, w * h);
    long differ = 0;
    for (int i = 0; i < w * h; i++)
      differ += leaf_mask[i] != pixel_mask[i];
    printf ("plate t=%d: leaf and pixel cuts differ on %ld pixels (%.3f %%)\n", frames[fi],
        differ, 100.0 * differ / (w * h));
    ck_assert_msg (differ <= 0.02 * w * h, "t=%d: leaf and pixel cuts differ on %ld pixels",
        frames[fi], differ);
    cc_quadcut_destroy (q);
  }
  free (truth);
  free (leaf_mask);
  free (pixel_mask);
  cc_context_destroy (ctx);
}
END_TEST

/* The cast shadow is background only through the shadow rule: without it
 * (shadow_depth 0) the shadow's pixels come out foreground. */
START_TEST (test_shadow_rule)
{
  const int w = 200, h = 150;
  cc_context *ctx = cpu_context (2);
  uint8_t *truth = malloc ((size_t) w * h);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.shadow_depth = 0.0f;
  cc_quadcut *q = run_synthetic (ctx, w, h, 17, &p, truth);
  long far = mask_errors (q, truth, w, h, NULL, NULL);
  printf ("without the shadow rule: %ld pixels wrong\n", far);
  ck_assert_msg (far > 100, "without the shadow rule only %ld pixels are wrong", far);
  cc_quadcut_destroy (q);
  free (truth);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_active_illumination)
{
  const int w = 200, h = 150;
  cc_context *ctx = cpu_context (2);
  uint8_t *truth = malloc ((size_t) w * h);
  cc_image lit, unlit;
  CC_ASSERT_OK (cv_synth_fg_frame (9, w, h, CV_SYNTH_FG_LIT, 4, &lit, truth));
  CC_ASSERT_OK (cv_synth_fg_frame (9, w, h, CV_SYNTH_FG_UNLIT, 4, &unlit, NULL));
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.mode = CC_QUADCUT_MODE_ACTIVE;
  /* the luminance difference of a lit / unlit pair: L only, less noise than a plate's
   * Lab distance, and a smaller step (object L x 1.5 a channel: about 17) */
  p.sigma_l = 4.0f;
  p.seed_threshold = 1e-3f;
  cc_quadcut *q;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &q));
  /* the unlit frame is segmented (its colours make the model), the lit one lights */
  ck_assert_int_eq (cc_quadcut_compute_sync (q, NULL, &unlit, NULL), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &unlit, &lit));
  long all, far = mask_errors (q, truth, w, h, &all, NULL);
  printf ("active: %ld wrong pixels (%ld beyond 2 px of the edge)\n", all, far);
  ck_assert_msg (far == 0, "active: %ld pixels wrong beyond 2 px of the edge", far);
  cc_quadcut_destroy (q);
  cv_image_free (&lit);
  cv_image_free (&unlit);
  free (truth);
  cc_context_destroy (ctx);
}
END_TEST

/* The mean luminance: the leaves' area-weighted mean L is the pixels' mean L (up to
 * the float rounding of the leaf means); NODES_PIXELS sums the pixels themselves. The
 * alternation check on a known sequence of mean L, every verdict and state exact. */
START_TEST (test_mean_luminance_and_alternation)
{
  const int w = 200, h = 150;
  const size_t n = (size_t) w * h;
  cc_context *ctx = cpu_context (2);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  cc_quadcut *q = NULL;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &q));
  double l = -1.0;
  ck_assert_int_eq (cc_quadcut_mean_luminance (q, &l), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_mean_luminance (NULL, &l), CC_ERROR_INVALID_ARGUMENT);
  cc_quadcut_destroy (q);
  float *L = malloc (n * sizeof (float));
  for (int nodes = 0; nodes < 2; nodes++) {
    p.nodes = nodes ? CC_QUADCUT_NODES_PIXELS : CC_QUADCUT_NODES_LEAVES;
    q = run_synthetic (ctx, w, h, 3, &p, NULL);
    ck_assert_int_eq (cc_quadcut_mean_luminance (q, NULL), CC_ERROR_INVALID_ARGUMENT);
    CC_ASSERT_OK (cc_quadcut_mean_luminance (q, &l));
    CC_ASSERT_OK (cc_quadcut_get_stratified (q, L, NULL, NULL, NULL, NULL, NULL));
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
      sum += L[i];
    if (nodes)
      ck_assert_msg (l == sum / n, "pixels: mean L %.9f, the pixels' %.9f", l, sum / n);
    else
      ck_assert_msg (fabs (l - sum / n) < 1e-3, "leaves: mean L %.6f, the pixels' %.6f", l,
          sum / n);
    ck_assert (l > 1.0 && l < 100.0);
    cc_quadcut_destroy (q);
  }
  free (L);
  cc_context_destroy (ctx);

  /* 50 first; 51, 50 alternate; 50.01 the same light (its change forgotten); 51
   * alternates (nothing before to compare); 52 rises again: the same change */
  static const struct {
    double l;
    cc_quadcut_pair_check check;
    double dl;
  } seq[] = {
    { 50.0, CC_QUADCUT_PAIR_FIRST, 0.0 },
    { 51.0, CC_QUADCUT_PAIR_ALTERNATES, 1.0 },
    { 50.0, CC_QUADCUT_PAIR_ALTERNATES, -1.0 },
    { 50.01, CC_QUADCUT_PAIR_SAME_LIGHT, 0.0 },
    { 51.0, CC_QUADCUT_PAIR_ALTERNATES, 51.0 - 50.01 },
    { 52.0, CC_QUADCUT_PAIR_SAME_CHANGE, 1.0 },
    { 51.0, CC_QUADCUT_PAIR_ALTERNATES, -1.0 },
  };
  cc_quadcut_alternation a;
  cc_quadcut_alternation_init (&a);
  ck_assert (a.previous_l == -1.0 && a.previous_dl == 0.0);
  for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
    cc_quadcut_pair_check check;
    CC_ASSERT_OK (cc_quadcut_alternation_push (&a, seq[i].l, &check));
    ck_assert_msg (check == seq[i].check, "step %zu: check %d, not %d", i, (int) check,
        (int) seq[i].check);
    ck_assert (a.previous_l == seq[i].l && a.previous_dl == seq[i].dl);
  }
  cc_quadcut_pair_check check;
  ck_assert_int_eq (cc_quadcut_alternation_push (&a, -0.5, &check),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_alternation_push (&a, NAN, &check), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_alternation_push (NULL, 50.0, &check),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_alternation_push (&a, 50.0, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (a.previous_l == 51.0 && a.previous_dl == -1.0);   /* untouched */
}
END_TEST

/* What a frame is compared with: ACTIVE: the previous frame, or the frame itself
 * first; PLATE: the plate (NULL), learned one frame further; `learned` only on the
 * frame that completes it; relearn starts again from that frame. */
START_TEST (test_prepare)
{
  const int w = 33, h = 21;
  cc_context *ctx = cpu_context (2);
  cc_image plate, frame, got;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate));
  CC_ASSERT_OK (cv_synth_fg_frame (3, w, h, CV_SYNTH_FG_PLAIN, 20, &frame, NULL));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &got));
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.mode = CC_QUADCUT_MODE_ACTIVE;
  cc_quadcut *q;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &q));
  cc_quadcut_learning l;
  cc_quadcut_learning_init (&l, CC_QUADCUT_PLATE_NONE);
  const cc_image *other = NULL;
  bool learned = true;
  CC_ASSERT_OK (cc_quadcut_prepare (q, NULL, &l, &frame, NULL, true, 4, 2, &other, &learned));
  ck_assert (other == &frame && !learned);
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE && l.learned == 0);   /* untouched */
  CC_ASSERT_OK (cc_quadcut_prepare (q, NULL, &l, &frame, &plate, false, 4, 2, &other,
          &learned));
  ck_assert (other == &plate && !learned);
  ck_assert_int_eq (cc_quadcut_prepare (q, NULL, &l, &frame, NULL, false, 4, 2, NULL,
          &learned), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_prepare (NULL, NULL, &l, &frame, NULL, false, 4, 2, &other,
          &learned), CC_ERROR_INVALID_ARGUMENT);
  cc_quadcut_destroy (q);

  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, NULL, &q));   /* PLATE */
  CC_ASSERT_OK (cc_quadcut_prepare (q, NULL, &l, &plate, &frame, false, 4, 2, &other,
          &learned));
  ck_assert (other == NULL && !learned);
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNING && l.learned == 1);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &plate, "the first frame is the plate");
  CC_ASSERT_OK (cc_quadcut_prepare (q, NULL, &l, &frame, NULL, false, 4, 2, &other,
          &learned));
  ck_assert (other == NULL && learned);
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNED && l.learned == 2);
  CC_ASSERT_OK (cc_quadcut_prepare (q, NULL, &l, &frame, NULL, false, 4, 2, &other,
          &learned));
  ck_assert (!learned && l.source == CC_QUADCUT_PLATE_LEARNED && l.learned == 2);
  /* relearn: the frame is the new plate, one frame learned */
  CC_ASSERT_OK (cc_quadcut_prepare (q, NULL, &l, &frame, NULL, true, 4, 2, &other,
          &learned));
  ck_assert (other == NULL && !learned);
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNING && l.learned == 1);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &frame, "relearned: the frame is the plate");
  /* learn_plate's error: frames < 1 */
  ck_assert_int_eq (cc_quadcut_prepare (q, NULL, &l, &frame, NULL, false, 4, 0, &other,
          &learned), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (!learned && l.source == CC_QUADCUT_PLATE_LEARNING && l.learned == 1);
  cc_quadcut_destroy (q);
  cv_image_free (&plate);
  cv_image_free (&frame);
  cv_image_free (&got);
  cc_context_destroy (ctx);
}
END_TEST

/* The pair check of a computed frame: its mean L (cc_quadcut_mean_luminance's, exact)
 * against the state's, every verdict, and the warning's exact text. */
START_TEST (test_check_pair)
{
  cc_context *ctx = cpu_context (2);
  cc_quadcut_alternation a;
  cc_quadcut_alternation_init (&a);
  cc_quadcut_pair pair;
  cc_quadcut *q = NULL;
  CC_ASSERT_OK (cc_quadcut_create (ctx, 64, 48, NULL, &q));
  ck_assert_int_eq (cc_quadcut_check_pair (q, &a, 1, &pair), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (a.previous_l == -1.0 && a.previous_dl == 0.0);   /* no compute: untouched */
  cc_quadcut_destroy (q);
  q = run_synthetic (ctx, 64, 48, 3, NULL, NULL);
  ck_assert_int_eq (cc_quadcut_check_pair (NULL, &a, 1, &pair), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_check_pair (q, NULL, 1, &pair), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_check_pair (q, &a, 1, NULL), CC_ERROR_INVALID_ARGUMENT);
  double l;
  CC_ASSERT_OK (cc_quadcut_mean_luminance (q, &l));
  ck_assert (l > 1.0 && l < 100.0);
  /* the first frame */
  CC_ASSERT_OK (cc_quadcut_check_pair (q, &a, 0, &pair));
  ck_assert (pair.check == CC_QUADCUT_PAIR_FIRST && !pair.warn);
  ck_assert (pair.mean_l == l && pair.previous_l == -1.0);
  ck_assert_str_eq (pair.text, "");
  ck_assert_str_eq (pair.detail, "");
  ck_assert (a.previous_l == l && a.previous_dl == 0.0);
  /* the same frame again: the same light */
  CC_ASSERT_OK (cc_quadcut_check_pair (q, &a, 5, &pair));
  ck_assert (pair.check == CC_QUADCUT_PAIR_SAME_LIGHT && pair.warn);
  ck_assert (pair.mean_l == l && pair.previous_l == l);
  ck_assert_str_eq (pair.text,
      "active illumination: frames 4 and 5 have the same mean luminance");
  char detail[CC_QUADCUT_PAIR_TEXT];
  snprintf (detail, sizeof detail, "mean L %.3f and %.3f: the frames do not alternate lit "
      "and unlit, the foreground will be missed", l, l);
  ck_assert_str_eq (pair.detail, detail);
  ck_assert (a.previous_l == l && a.previous_dl == 0.0);
  /* after a darker frame: alternates */
  a.previous_l = l - 1.0;
  CC_ASSERT_OK (cc_quadcut_check_pair (q, &a, 6, &pair));
  ck_assert (pair.check == CC_QUADCUT_PAIR_ALTERNATES && !pair.warn);
  ck_assert (pair.previous_l == l - 1.0 && pair.mean_l == l);
  ck_assert_str_eq (pair.text, "");
  ck_assert (a.previous_l == l && a.previous_dl == l - (l - 1.0));
  /* rising twice: the same change */
  a.previous_l = l - 1.0;
  a.previous_dl = 0.5;
  CC_ASSERT_OK (cc_quadcut_check_pair (q, &a, 9, &pair));
  ck_assert (pair.check == CC_QUADCUT_PAIR_SAME_CHANGE && pair.warn);
  ck_assert_str_eq (pair.text, "active illumination: frames 7 to 9 do not alternate lit "
      "and unlit");
  snprintf (detail, sizeof detail, "mean L rises twice in a row (by 0.500, then %.3f): the "
      "foreground will be missed", l - (l - 1.0));
  ck_assert_str_eq (pair.detail, detail);
  cc_quadcut_destroy (q);
  cc_context_destroy (ctx);
}
END_TEST

/* The temporal prior: a second run of the same frame pays for nothing more (the mask
 * stays) but its flow differs; after reset the first run's flow comes back. */
START_TEST (test_temporal_and_reset)
{
  const int w = 120, h = 90;
  cc_context *ctx = cpu_context (2);
  cc_image plate, frame, other;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate));
  CC_ASSERT_OK (cv_synth_fg_frame (4, w, h, CV_SYNTH_FG_PLAIN, 6, &frame, NULL));
  CC_ASSERT_OK (cv_synth_fg_frame (20, w, h, CV_SYNTH_FG_PLAIN, 6, &other, NULL));
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.temporal = 2.0f;
  cc_quadcut *q;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &q));
  CC_ASSERT_OK (cc_quadcut_set_plate (q, NULL, &plate));
  cc_quadcut_graph g;
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &frame, NULL));
  CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
  double first = g.flow;
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &other, NULL));
  CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
  ck_assert (g.flow != first);
  CC_ASSERT_OK (cc_quadcut_reset (q));
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &frame, NULL));
  CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
  ck_assert (g.flow == first);
  cc_quadcut_destroy (q);
  cv_image_free (&plate);
  cv_image_free (&frame);
  cv_image_free (&other);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_threads_same_bits)
{
  const int w = 173, h = 101;
  cc_quadcut *q[2];
  cc_context *ctx[2] = { cpu_context (1), cpu_context (3) };
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  for (int k = 0; k < 2; k++)
    q[k] = run_synthetic (ctx[k], w, h, 11, &p, NULL);
  cc_quadcut_graph g[2];
  for (int k = 0; k < 2; k++)
    CC_ASSERT_OK (cc_quadcut_get_graph (q[k], &g[k]));
  ck_assert_int_eq (g[0].n_leaves, g[1].n_leaves);
  ck_assert (memcmp (g[0].leaves, g[1].leaves, g[0].n_leaves * sizeof *g[0].leaves) == 0);
  ck_assert (memcmp (g[0].labels, g[1].labels, g[0].n_nodes) == 0);
  ck_assert (g[0].flow == g[1].flow && g[0].n_seeds == g[1].n_seeds);
  cc_image a[2];
  for (int k = 0; k < 2; k++) {
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &a[k]));
    CC_ASSERT_OK (cc_quadcut_get_alpha (q[k], NULL, &a[k]));
  }
  cv_test_assert_same_bits (&a[0], &a[1], "alpha 1 vs 3 threads");
  for (int k = 0; k < 2; k++) {
    cv_image_free (&a[k]);
    cc_quadcut_destroy (q[k]);
    cc_context_destroy (ctx[k]);
  }
}
END_TEST

static uint8_t
px (const cc_image *img, int x, int y, int c)
{
  return ((const uint8_t *) img->planes[0])[(size_t) y * img->pitch[0] + 4 * x + c];
}

/* The pair warning's text and detail for each verdict, exact. */
START_TEST (test_pair_warning)
{
  cc_quadcut_alternation before = { 50.0, 1.0 };
  char text[160], detail[160];
  strcpy (text, "untouched");
  ck_assert (!cc_quadcut_pair_warning (&before, 49.0, CC_QUADCUT_PAIR_ALTERNATES, 7, text,
          sizeof text, detail, sizeof detail));
  ck_assert (!cc_quadcut_pair_warning (&before, 49.0, CC_QUADCUT_PAIR_FIRST, 7, text,
          sizeof text, detail, sizeof detail));
  ck_assert_str_eq (text, "untouched");
  ck_assert (cc_quadcut_pair_warning (&before, 50.01, CC_QUADCUT_PAIR_SAME_LIGHT, 7, text,
          sizeof text, detail, sizeof detail));
  ck_assert_str_eq (text, "active illumination: frames 6 and 7 have the same mean luminance");
  ck_assert_str_eq (detail, "mean L 50.000 and 50.010: the frames do not alternate lit and "
      "unlit, the foreground will be missed");
  ck_assert (cc_quadcut_pair_warning (&before, 52.5, CC_QUADCUT_PAIR_SAME_CHANGE, 9, text,
          sizeof text, detail, sizeof detail));
  ck_assert_str_eq (text, "active illumination: frames 7 to 9 do not alternate lit and unlit");
  ck_assert_str_eq (detail, "mean L rises twice in a row (by 1.000, then 2.500): the "
      "foreground will be missed");
  before.previous_dl = -1.0;
  ck_assert (cc_quadcut_pair_warning (&before, 49.0, CC_QUADCUT_PAIR_SAME_CHANGE, 2, text,
          sizeof text, detail, sizeof detail));
  ck_assert_str_eq (text, "active illumination: frames 0 to 2 do not alternate lit and unlit");
  ck_assert_str_eq (detail, "mean L falls twice in a row (by -1.000, then -1.000): the "
      "foreground will be missed");
  /* cut to the buffer's size */
  char small[12];
  ck_assert (cc_quadcut_pair_warning (&before, 50.0, CC_QUADCUT_PAIR_SAME_LIGHT, 3, small,
          sizeof small, detail, sizeof detail));
  ck_assert_str_eq (small, "active illu");
}
END_TEST

/* Learning a plate frame by frame: the plate is the first frame, then moves towards
 * the next ones by the step; the source turns LEARNED after `frames` frames, and a
 * restart drops only an incomplete plate. The host copy of the plate is the plate. */
START_TEST (test_learn_plate)
{
  const int w = 33, h = 21;
  cc_context *ctx = cpu_context (2);
  cc_image plate, frame, got;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate));
  CC_ASSERT_OK (cv_synth_fg_frame (3, w, h, CV_SYNTH_FG_PLAIN, 20, &frame, NULL));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &got));
  cc_quadcut *q;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, NULL, &q));
  cc_image host;
  ck_assert_int_eq (cc_quadcut_get_plate_host (q, NULL, &host), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null (host.planes[0]);
  cc_quadcut_learning l;
  cc_quadcut_learning_init (&l, CC_QUADCUT_PLATE_NONE);
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE && l.learned == 0);
  ck_assert (!cc_quadcut_learning_done (&l));
  ck_assert_int_eq (cc_quadcut_learn_plate (q, NULL, &l, &plate, 4, 0),
      CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_learn_plate (q, NULL, &l, &plate, 4, 3));
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNING && l.learned == 1);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &plate, "the first frame is the plate");
  CC_ASSERT_OK (cc_quadcut_learn_plate (q, NULL, &l, &frame, 4, 3));
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNING && l.learned == 2);
  ck_assert (!cc_quadcut_learning_done (&l));
  /* the plate moved by at most 4 levels a channel towards the frame */
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++) {
        int a = px (&plate, x, y, c), f = px (&frame, x, y, c);
        int d = f - a < -4 ? -4 : (f - a > 4 ? 4 : f - a);
        ck_assert_int_eq (px (&got, x, y, c), a + d);
      }
  /* a restart drops the incomplete plate */
  ck_assert_int_eq (cc_quadcut_learning_restart (&l), 2);
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE && l.learned == 0);
  for (int i = 1; i <= 3; i++) {
    CC_ASSERT_OK (cc_quadcut_learn_plate (q, NULL, &l, &frame, 4, 3));
    ck_assert_int_eq (l.learned, i);
  }
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNED && cc_quadcut_learning_done (&l));
  /* learned: further frames leave the plate */
  CC_ASSERT_OK (cc_quadcut_learn_plate (q, NULL, &l, &plate, 4, 3));
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNED && l.learned == 3);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  for (int y = 0; y < h; y++)   /* learned from the frame alone */
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        ck_assert_int_eq (px (&got, x, y, c), px (&frame, x, y, c));
  ck_assert_int_eq (cc_quadcut_learning_restart (&l), 0);
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNED && l.learned == 0);
  cc_quadcut_learning_init (&l, CC_QUADCUT_PLATE_IMAGE);
  ck_assert (cc_quadcut_learning_done (&l));
  ck_assert_int_eq (cc_quadcut_learning_restart (&l), 0);
  ck_assert (l.source == CC_QUADCUT_PLATE_IMAGE);
  /* the host copy: the plate with X = 255 */
  CC_ASSERT_OK (cc_quadcut_get_plate_host (q, NULL, &host));
  ck_assert (host.location == CC_LOCATION_HOST && host.format == CC_FORMAT_RGBX8);
  ck_assert (host.width == w && host.height == h);
  cv_test_assert_same_bits (&host, &got, "host copy");
  cc_image_free (NULL, &host);
  cc_quadcut_destroy (q);
  cv_image_free (&plate);
  cv_image_free (&frame);
  cv_image_free (&got);
  cc_context_destroy (ctx);
}
END_TEST

/* Alpha is the box filter of the mask; the composite is the 8-bit blend, over a
 * colour, an image and the blurred frame (brute-force box means), in place too. */
START_TEST (test_alpha_and_composite)
{
  const int w = 90, h = 70, r = 2, br = 3;
  cc_context *ctx = cpu_context (2);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.feather = r;
  cc_quadcut *q = run_synthetic (ctx, w, h, 2, &p, NULL);
  cc_image mask, alpha, frame, back, out;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &mask));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &alpha));
  CC_ASSERT_OK (cc_quadcut_get_mask (q, NULL, &mask));
  CC_ASSERT_OK (cc_quadcut_get_alpha (q, NULL, &alpha));
  const uint8_t *m = mask.planes[0], *al = alpha.planes[0];
  int partial = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      unsigned s = 0, n = (2 * r + 1) * (2 * r + 1);
      for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
          int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
          int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
          s += m[(size_t) yy * mask.pitch[0] + xx];
        }
      uint8_t a = al[(size_t) y * alpha.pitch[0] + x];
      ck_assert_int_eq (a, (s + n / 2) / n);
      partial += a > 0 && a < 255;
    }
  ck_assert_int_gt (partial, 0);
  CC_ASSERT_OK (cv_synth_fg_frame (2, w, h, CV_SYNTH_FG_PLAIN, 6, &frame, NULL));
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &back));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &out));
  for (int kind = 0; kind < 3; kind++) {
    cc_background bg = { .kind = (cc_background_kind) kind, .image = &back,
                                 .r = 10, .g = 200, .b = 30, .blur_radius = br };
    CC_ASSERT_OK (cc_quadcut_composite (q, NULL, &frame, &bg, &out));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        unsigned a = al[(size_t) y * alpha.pitch[0] + x];
        for (int c = 0; c < 3; c++) {
          unsigned b;
          if (kind == CC_BACKGROUND_IMAGE)
            b = px (&back, x, y, c);
          else if (kind == CC_BACKGROUND_COLOR)
            b = c == 0 ? 10 : (c == 1 ? 200 : 30);
          else {
            unsigned s = 0, n = (2 * br + 1) * (2 * br + 1);
            for (int dy = -br; dy <= br; dy++)
              for (int dx = -br; dx <= br; dx++) {
                int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
                int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
                s += px (&frame, xx, yy, c);
              }
            b = (s + n / 2) / n;
          }
          unsigned want = (a * px (&frame, x, y, c) + (255 - a) * b + 127) / 255;
          ck_assert_msg (px (&out, x, y, c) == want, "kind %d at %d,%d c%d: %d, want %u",
              kind, x, y, c, px (&out, x, y, c), want);
        }
        ck_assert_int_eq (px (&out, x, y, 3), px (&frame, x, y, 3));
      }
  }
  /* in place, blurred background: the same pixels as into another image */
  cc_background bg = { .kind = CC_BACKGROUND_BLUR, .blur_radius = br };
  CC_ASSERT_OK (cc_quadcut_composite (q, NULL, &frame, &bg, &out));
  CC_ASSERT_OK (cc_quadcut_composite (q, NULL, &frame, &bg, &frame));
  cv_test_assert_same_bits (&out, &frame, "in-place composite");
  bg.blur_radius = 0;
  ck_assert_int_eq (cc_quadcut_composite (q, NULL, &frame, &bg, &out), CC_ERROR_INVALID_ARGUMENT);
  /* set_alpha: X = alpha, the colours untouched; formats without an alpha byte refused */
  CC_ASSERT_OK (cc_image_copy (ctx, NULL, &frame, &out));
  CC_ASSERT_OK (cc_quadcut_set_alpha (q, NULL, &out));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      for (int c = 0; c < 3; c++)
        ck_assert_int_eq (px (&out, x, y, c), px (&frame, x, y, c));
      ck_assert_int_eq (px (&out, x, y, 3), al[(size_t) y * alpha.pitch[0] + x]);
    }
  cc_image nv12;
  CC_ASSERT_OK (cc_image_alloc (NULL, w, h, CC_FORMAT_NV12, CC_LOCATION_HOST, &nv12));
  ck_assert_int_eq (cc_quadcut_set_alpha (q, NULL, &nv12), CC_ERROR_NOT_SUPPORTED);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "no alpha byte"));
  cc_image_free (NULL, &nv12);
  cv_image_free (&mask);
  cv_image_free (&alpha);
  cv_image_free (&frame);
  cv_image_free (&back);
  cv_image_free (&out);
  cc_quadcut_destroy (q);
  cc_context_destroy (ctx);
}
END_TEST

/* The parameter table: every tunable field once, in the struct's order, with the
 * ranges cc_quadcut_params_check enforces (the bounds pass, the next value out is
 * refused with a message naming the field), and the defaults inside them. */
static void
set_param (cc_quadcut_params *p, const cc_param_info *t, double v)
{
  char *field = (char *) p + t->offset;
  if (t->kind == CC_PARAM_INT)
    *(int *) field = (int) v;
  else
    *(float *) field = (float) v;
}

static double
get_param (const cc_quadcut_params *p, const cc_param_info *t)
{
  const char *field = (const char *) p + t->offset;
  return t->kind == CC_PARAM_INT ? *(const int *) field : *(const float *) field;
}

START_TEST (test_param_table)
{
  static const struct {
    const char *name, *field;
    size_t offset;
    cc_param_kind kind;
    double min, max;
  } expect[CC_QUADCUT_N_PARAMS] = {
    { "sigma-l", "sigma_l", offsetof (cc_quadcut_params, sigma_l), CC_PARAM_FLOAT,
      0.1, 100.0 },
    { "shadow-depth", "shadow_depth", offsetof (cc_quadcut_params, shadow_depth),
      CC_PARAM_FLOAT, 0.0, 1.0 },
    { "seed-threshold", "seed_threshold", offsetof (cc_quadcut_params, seed_threshold),
      CC_PARAM_FLOAT, 0.0, 1.0 },
    { "bins", "bins", offsetof (cc_quadcut_params, bins), CC_PARAM_INT, 2, 256 },
    { "sigma-c", "sigma_c", offsetof (cc_quadcut_params, sigma_c), CC_PARAM_FLOAT,
      0.1, 100.0 },
    { "lambda", "lambda", offsetof (cc_quadcut_params, lambda), CC_PARAM_FLOAT,
      0.0, 1000.0 },
    { "similarity", "similarity", offsetof (cc_quadcut_params, similarity),
      CC_PARAM_FLOAT, 0.0, 1000.0 },
    { "certain", "certain", offsetof (cc_quadcut_params, certain), CC_PARAM_FLOAT,
      0.0, 100.0 },
    { "max-level", "max_level", offsetof (cc_quadcut_params, max_level),
      CC_PARAM_INT, 0, CC_QUADCUT_MAX_LEVEL },
    { "temporal", "temporal", offsetof (cc_quadcut_params, temporal),
      CC_PARAM_FLOAT, 0.0, 100.0 },
    { "feather", "feather", offsetof (cc_quadcut_params, feather), CC_PARAM_INT,
      0, 64 },
  };
  const cc_param_info *table = cc_quadcut_param_table ();
  ck_assert_ptr_nonnull (table);
  cc_quadcut_params def;
  cc_quadcut_params_default (&def);
  CC_ASSERT_OK (cc_quadcut_params_check (&def));
  for (int i = 0; i < CC_QUADCUT_N_PARAMS; i++) {
    const cc_param_info *t = &table[i];
    ck_assert_str_eq (t->name, expect[i].name);
    ck_assert_str_eq (t->field, expect[i].field);
    ck_assert_uint_eq (t->offset, expect[i].offset);
    ck_assert_int_eq (t->kind, expect[i].kind);
    ck_assert (t->min == expect[i].min && t->max == expect[i].max);
    ck_assert (t->nick[0] != '\0' && t->blurb[0] != '\0');
    /* the default inside the range */
    const double d = get_param (&def, t);
    ck_assert_msg (d >= (t->kind == CC_PARAM_INT ? t->min : (float) t->min)
        && d <= (t->kind == CC_PARAM_INT ? t->max : (float) t->max),
        "%s default %g", t->name, d);
    /* the bounds pass; the next representable value beyond each is refused */
    double lo = t->min, hi = t->max, below, above;
    if (t->kind == CC_PARAM_INT) {
      below = lo - 1;
      above = hi + 1;
    } else {
      lo = (float) lo;
      hi = (float) hi;
      below = nextafterf ((float) lo, -INFINITY);
      above = nextafterf ((float) hi, INFINITY);
    }
    const double pass[2] = { lo, hi }, fail[2] = { below, above };
    for (int k = 0; k < 2; k++) {
      cc_quadcut_params p = def;
      set_param (&p, t, pass[k]);
      ck_assert_msg (cc_quadcut_params_check (&p) == CC_SUCCESS, "%s = %g refused", t->name,
          pass[k]);
      p = def;
      set_param (&p, t, fail[k]);
      ck_assert_msg (cc_quadcut_params_check (&p) == CC_ERROR_INVALID_ARGUMENT,
          "%s = %.9g accepted", t->name, fail[k]);
      ck_assert_msg (strstr (cc_last_error (), t->field) != NULL, "%s", cc_last_error ());
    }
  }
  /* the message keeps its form */
  cc_quadcut_params p = def;
  p.sigma_l = 0.05f;
  ck_assert_int_eq (cc_quadcut_params_check (&p), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq (cc_last_error (), "quadcut: sigma_l 0.05 out of range [0.1, 100]");
  p = def;
  p.bins = 257;
  ck_assert_int_eq (cc_quadcut_params_check (&p), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq (cc_last_error (), "quadcut: bins 257 out of range 2..256");
}
END_TEST

START_TEST (test_errors)
{
  cc_context *ctx = cpu_context (1);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  CC_ASSERT_OK (cc_quadcut_params_check (&p));
  cc_quadcut *q = NULL;
  p.bins = 1;
  ck_assert_int_eq (cc_quadcut_create (ctx, 16, 16, &p, &q), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (strstr (cc_last_error (), "bins") != NULL);
  ck_assert (q == NULL);
  cc_quadcut_params_default (&p);
  p.max_level = CC_QUADCUT_MAX_LEVEL + 1;
  ck_assert_int_eq (cc_quadcut_params_check (&p), CC_ERROR_INVALID_ARGUMENT);
  cc_quadcut_params_default (&p);
  ck_assert_int_eq (cc_quadcut_create (ctx, 0, 16, &p, &q), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_create (ctx, 16, 12, &p, &q));
  cc_image f, g8, small;
  CC_ASSERT_OK (cv_synth_fg_frame (0, 16, 12, CV_SYNTH_FG_PLAIN, 0, &f, NULL));
  CC_ASSERT_OK (cv_image_new (16, 12, CC_FORMAT_GRAY8, &g8));
  CC_ASSERT_OK (cv_synth_fg_frame (0, 15, 12, CV_SYNTH_FG_PLAIN, 0, &small, NULL));
  /* nothing run yet; no plate */
  ck_assert_int_eq (cc_quadcut_get_mask (q, NULL, &g8), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_compute_sync (q, NULL, &f, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert (strstr (cc_last_error (), "plate") != NULL);
  ck_assert_int_eq (cc_quadcut_set_plate (q, NULL, &g8), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_set_plate (q, NULL, &small), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_set_plate (q, NULL, &f));
  ck_assert_int_eq (cc_quadcut_compute_sync (q, NULL, &small, NULL), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_compute_sync (q, NULL, &f, &f), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &f, NULL));
  /* the frame is its own plate: nothing is foreground */
  CC_ASSERT_OK (cc_quadcut_get_mask (q, NULL, &g8));
  for (int y = 0; y < 12; y++)
    for (int x = 0; x < 16; x++)
      ck_assert_int_eq (((uint8_t *) g8.planes[0])[y * g8.pitch[0] + x], 0);
  ck_assert_int_eq (cc_quadcut_get_alpha (q, NULL, &small), CC_ERROR_INVALID_ARGUMENT);
  p.nodes = CC_QUADCUT_NODES_PIXELS;
  ck_assert_int_eq (cc_quadcut_set_params (q, &p), CC_ERROR_INVALID_ARGUMENT);
  p.nodes = CC_QUADCUT_NODES_LEAVES;
  p.similarity = 50.0f;
  CC_ASSERT_OK (cc_quadcut_set_params (q, &p));
  cc_quadcut_destroy (q);
  cv_image_free (&f);
  cv_image_free (&g8);
  cv_image_free (&small);
  cc_context_destroy (ctx);
  /* the pixel-level reference is CPU only: a clear NOT_SUPPORTED on CUDA */
  const char *no_gpu = cv_test_gpu_missing ();
  if (no_gpu) {
    CV_SKIP_PART ("quadcut pixel nodes on CUDA", no_gpu);
    return;
  }
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, 0, &ctx));
  p.nodes = CC_QUADCUT_NODES_PIXELS;
  ck_assert_int_eq (cc_quadcut_create (ctx, 16, 16, &p, &q), CC_ERROR_NOT_SUPPORTED);
  cc_context_destroy (ctx);
}
END_TEST

/* CDnet highway (skipped without the shared media): plate from the median of frames
 * 1..100, frames 400..699 run in order by the leaf cut and by the pixel-level cut;
 * on 470..699 (CDnet rules: 255 foreground, 0 and 50 background, 85 and 170 not
 * scored) the leaf cut's F-measure is at least 0.85 and the two cuts disagree on at
 * most 2 % of the pixels of every frame. */
START_TEST (test_cdnet_highway)
{
  const char *media = cv_test_shared_media_with ("quadcut CDnet highway", "segmentation/cdnet-highway");
  if (!media)
    CV_SKIP ("quadcut CDnet highway", CV_SKIP_NO_MEDIA);
  char dir[4096], path[4096];
  snprintf (dir, sizeof dir, "%s/segmentation/cdnet-highway", media);
  enum { LEARN = 100 };
  cc_image learn[LEARN], plate;
  for (int t = 0; t < LEARN; t++)
    CC_ASSERT_OK (cv_cdnet_frame_load (dir, t + 1, &learn[t]));
  CC_ASSERT_OK (cv_median_frames (learn, LEARN, &plate));
  for (int t = 0; t < LEARN; t++)
    cv_image_free (&learn[t]);
  const int w = plate.width, h = plate.height;
  cc_context *ctx = cpu_context (2);
  cc_quadcut *q[2];
  for (int k = 0; k < 2; k++) {
    cc_quadcut_params p;
    cc_quadcut_params_default (&p);
    p.nodes = k ? CC_QUADCUT_NODES_PIXELS : CC_QUADCUT_NODES_LEAVES;
    CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &q[k]));
    CC_ASSERT_OK (cc_quadcut_set_plate (q[k], NULL, &plate));
  }
  cc_image m[2];
  for (int k = 0; k < 2; k++)
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &m[k]));
  long long tp = 0, fp = 0, fn = 0;
  long worst = 0;
  for (int t = 400; t <= 699; t++) {
    cc_image f;
    CC_ASSERT_OK (cv_cdnet_frame_load (dir, t, &f));
    for (int k = 0; k < 2; k++) {
      CC_ASSERT_OK (cc_quadcut_compute_sync (q[k], NULL, &f, NULL));
      CC_ASSERT_OK (cc_quadcut_get_mask (q[k], NULL, &m[k]));
    }
    cv_image_free (&f);
    if (t < 470)
      continue;
    cc_image gt;
    snprintf (path, sizeof path, "%s/segmentation/cdnet-highway/groundtruth/gt%06d.png",
        media, t);
    CC_ASSERT_OK (cv_png_load (path, CC_FORMAT_GRAY8, &gt));
    long differ = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        int v = ((uint8_t *) gt.planes[0])[y * gt.pitch[0] + x];
        int a = ((uint8_t *) m[0].planes[0])[y * m[0].pitch[0] + x] != 0;
        int b = ((uint8_t *) m[1].planes[0])[y * m[1].pitch[0] + x] != 0;
        differ += a != b;
        if (v == 255)
          a ? tp++ : fn++;
        else if ((v == 0 || v == 50) && a)
          fp++;
      }
    worst = differ > worst ? differ : worst;
    ck_assert_msg (differ <= 0.02 * w * h, "frame %d: leaf and pixel cuts differ on %ld "
        "pixels", t, differ);
    cv_image_free (&gt);
  }
  double pr = (double) tp / (tp + fp), re = (double) tp / (tp + fn), fm = 2 * pr * re / (pr + re);
  printf ("CDnet highway 470..699: precision %.3f recall %.3f F %.3f; leaf vs pixel cut: "
      "at most %.2f %% of a frame\n", pr, re, fm, 100.0 * worst / (w * h));
  ck_assert_msg (fm >= 0.85, "F %.3f below 0.85", fm);
  for (int k = 0; k < 2; k++) {
    cv_image_free (&m[k]);
    cc_quadcut_destroy (q[k]);
  }
  cv_image_free (&plate);
  cc_context_destroy (ctx);
}
END_TEST

/* cc_quadcut_update_plate: each channel moves by the frame's difference clamped to
 * +-step, only where the alpha is 0 with background_only; the plate's Lab follows
 * (a run equals one on a fresh quadcut given the updated plate); bad calls. */
START_TEST (test_update_plate)
{
  const int w = 71, h = 53;
  cc_context *ctx = cpu_context (2);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.feather = 2;
  cc_image plate, frame, got, alpha;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate));
  CC_ASSERT_OK (cv_synth_fg_frame (3, w, h, CV_SYNTH_FG_PLAIN, 20, &frame, NULL));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &got));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &alpha));
  cc_quadcut *q;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &q));
  ck_assert_int_eq (cc_quadcut_update_plate (q, NULL, &frame, 3, false), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_get_plate (q, NULL, &got), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_set_plate (q, NULL, &plate));
  ck_assert_int_eq (cc_quadcut_update_plate (q, NULL, &frame, 3, true), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_update_plate (q, NULL, &frame, 0, false), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (cc_quadcut_update_plate (q, NULL, &frame, 256, false), CC_ERROR_INVALID_ARGUMENT);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &plate, "plate as set");
  /* unconditional step of 3, the frame read as BGRX */
  frame.format = CC_FORMAT_BGRX8;
  CC_ASSERT_OK (cc_quadcut_update_plate (q, NULL, &frame, 3, false));
  frame.format = CC_FORMAT_RGBX8;
  uint8_t *want = malloc ((size_t) 4 * w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++) {
        if (c == 3) {
          want[4 * (y * w + x) + c] = 255;
          continue;
        }
        int a = px (&plate, x, y, c), f = px (&frame, x, y, 2 - c);
        int d = f - a < -3 ? -3 : (f - a > 3 ? 3 : f - a);
        want[4 * (y * w + x) + c] = (uint8_t) (a + d);
      }
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  int moved = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++) {
        ck_assert_int_eq (px (&got, x, y, c), want[4 * (y * w + x) + c]);
        moved += px (&got, x, y, c) != px (&plate, x, y, c);
      }
  ck_assert_int_gt (moved, w * h);
  /* background only: pixels under a non-zero alpha keep their plate */
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &frame, NULL));
  CC_ASSERT_OK (cc_quadcut_get_alpha (q, NULL, &alpha));
  cc_image before;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &before));
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &before));
  CC_ASSERT_OK (cc_quadcut_update_plate (q, NULL, &frame, 1, true));
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  int kept = 0, stepped = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int a = ((uint8_t *) alpha.planes[0])[y * alpha.pitch[0] + x];
      for (int c = 0; c < 3; c++) {
        int b = px (&before, x, y, c), f = px (&frame, x, y, c);
        int wv = a ? b : b + (f > b) - (f < b);
        ck_assert_int_eq (px (&got, x, y, c), wv);
        kept += a && f != b;
        stepped += !a && f != b;
      }
    }
  ck_assert (kept > 0 && stepped > 0);
  /* the updated plate's Lab: the same run as a fresh quadcut set to that plate */
  cc_quadcut *fresh;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &fresh));
  CC_ASSERT_OK (cc_quadcut_set_plate (fresh, NULL, &got));
  CC_ASSERT_OK (cc_quadcut_reset (q));
  CC_ASSERT_OK (cc_quadcut_compute_sync (q, NULL, &frame, NULL));
  CC_ASSERT_OK (cc_quadcut_compute_sync (fresh, NULL, &frame, NULL));
  float *d[2];
  cc_quadcut *both[2] = { q, fresh };
  for (int k = 0; k < 2; k++) {
    d[k] = malloc ((size_t) w * h * sizeof (float));
    CC_ASSERT_OK (cc_quadcut_get_stratified (both[k], NULL, NULL, NULL, d[k], NULL, NULL));
  }
  ck_assert (memcmp (d[0], d[1], (size_t) w * h * sizeof (float)) == 0);
  free (d[0]);
  free (d[1]);
  free (want);
  cc_quadcut_destroy (fresh);
  cc_quadcut_destroy (q);
  cv_image_free (&plate);
  cv_image_free (&frame);
  cv_image_free (&got);
  cv_image_free (&before);
  cv_image_free (&alpha);
  cc_context_destroy (ctx);
}
END_TEST

/* The debug view: leaf top / left edges in the level colours, seeds halfway to red,
 * the rest the frame; from the leaf list and the seeds, BGRX8 and in place too. */
START_TEST (test_draw_leaves)
{
  static const uint8_t colours[8][3] = { { 40, 40, 40 }, { 0, 90, 255 }, { 0, 200, 255 },
                                         { 0, 220, 90 }, { 250, 220, 0 }, { 255, 120, 0 },
                                         { 255, 0, 160 }, { 255, 255, 255 } };
  const int w = 130, h = 77;
  cc_context *ctx = cpu_context (2);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.max_level = 7;
  p.similarity = 30.0f;   /* large leaves: every level drawn */
  cc_quadcut *q = run_synthetic (ctx, w, h, 5, &p, NULL);
  cc_image frame, out;
  CC_ASSERT_OK (cv_synth_fg_frame (5, w, h, CV_SYNTH_FG_PLAIN, 6, &frame, NULL));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &out));
  uint8_t *seed = malloc ((size_t) w * h);
  CC_ASSERT_OK (cc_quadcut_get_stratified (q, NULL, NULL, NULL, NULL, seed, NULL));
  cc_quadcut_graph g;
  CC_ASSERT_OK (cc_quadcut_get_graph (q, &g));
  for (int pass = 0; pass < 3; pass++) {
    /* RGBX into out, BGRX into out, BGRX in place */
    cc_format fmt = pass ? CC_FORMAT_BGRX8 : CC_FORMAT_RGBX8;
    frame.format = out.format = fmt;
    cc_image src;
    CC_ASSERT_OK (cv_synth_fg_frame (5, w, h, CV_SYNTH_FG_PLAIN, 6, &src, NULL));
    src.format = fmt;
    cc_image *dst = pass == 2 ? &frame : &out;
    CC_ASSERT_OK (cc_quadcut_draw (q, NULL, &frame, dst));
    int ri = pass ? 2 : 0, levels_seen = 0, seeds_seen = 0;
    for (int k = 0; k < g.n_leaves; k++) {
      const cc_quadcut_leaf *l = &g.leaves[k];
      int s = 1 << l->level;
      levels_seen |= 1 << l->level;
      for (int y = l->y; y < l->y + s; y++)
        for (int x = l->x; x < l->x + s; x++) {
          uint8_t want[3];
          const uint8_t *f = (const uint8_t *) src.planes[0] + (size_t) y * src.pitch[0] + 4 * x;
          if (x == l->x || y == l->y) {
            want[ri] = colours[l->level][0];
            want[1] = colours[l->level][1];
            want[2 - ri] = colours[l->level][2];
          } else if (seed[(size_t) y * w + x]) {
            want[ri] = (f[ri] + 256) >> 1;
            want[1] = (f[1] + 1) >> 1;
            want[2 - ri] = (f[2 - ri] + 1) >> 1;
            seeds_seen++;
          } else {
            memcpy (want, f, 3);
          }
          const uint8_t *o = (const uint8_t *) dst->planes[0] + (size_t) y * dst->pitch[0] + 4 * x;
          ck_assert_msg (memcmp (o, want, 3) == 0 && o[3] == f[3],
              "pass %d at %d,%d: %d %d %d, want %d %d %d", pass, x, y, o[0], o[1], o[2],
              want[0], want[1], want[2]);
        }
    }
    ck_assert_int_gt (seeds_seen, 0);
    ck_assert_int_ge (__builtin_popcount (levels_seen), 5);
    cv_image_free (&src);
  }
  ck_assert_int_eq (cc_quadcut_draw (q, NULL, &frame, NULL), CC_ERROR_INVALID_ARGUMENT);
  free (seed);
  cv_image_free (&frame);
  cv_image_free (&out);
  cc_quadcut_destroy (q);
  cc_context_destroy (ctx);
}
END_TEST

/* ---- NV12 / I420 */

/* A host YUV copy of an RGBX8 host frame: Y per pixel, U, V of each 2x2 block's
 * top-left pixel (cc_rgb_to_yuv). Free with cc_image_free (NULL, ...). */
static cc_image
to_yuv (const cc_image *rgb, cc_format fmt)
{
  cc_image o;
  CC_ASSERT_OK (cc_image_alloc (NULL, rgb->width, rgb->height, fmt, CC_LOCATION_HOST, &o));
  for (int y = 0; y < rgb->height; y++)
    for (int x = 0; x < rgb->width; x++) {
      const uint8_t *p = (const uint8_t *) rgb->planes[0] + (size_t) y * rgb->pitch[0] + 4 * x;
      uint8_t Y, U, V, *u, *v;
      cc_rgb_to_yuv (p[0], p[1], p[2], &Y, &U, &V);
      *cc_qc_luma (&o, x, y) = Y;
      if (x % 2 == 0 && y % 2 == 0) {
        cc_qc_chroma (&o, x / 2, y / 2, &u, &v);
        *u = U;
        *v = V;
      }
    }
  return o;
}

/* The RGBX8 frame quadcut sees in a YUV frame (cc_qc_pixel_rgb). */
static void
yuv_to_rgb_image (const cc_image *yuv, cc_image *out)
{
  CC_ASSERT_OK (cv_image_new (yuv->width, yuv->height, CC_FORMAT_RGBX8, out));
  for (int y = 0; y < yuv->height; y++)
    for (int x = 0; x < yuv->width; x++) {
      int c[3];
      cc_qc_pixel_rgb (yuv, x, y, c);
      uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0] + 4 * x;
      o[0] = (uint8_t) c[0];
      o[1] = (uint8_t) c[1];
      o[2] = (uint8_t) c[2];
      o[3] = 255;
    }
}

/* Brute-force box mean of radius r at (x, y) of one byte channel of a plane. */
static unsigned
box_mean (const uint8_t *plane, size_t pitch, int bpp, int c, int w, int h, int x, int y,
    int r)
{
  unsigned s = 0, n = (2 * r + 1) * (2 * r + 1);
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++) {
      int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
      int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
      s += plane[(size_t) yy * pitch + (size_t) xx * bpp + c];
    }
  return (s + n / 2) / n;
}

/* NV12 and I420 frames and plates: the run equals the RGB run of the frame the
 * conversion gives (leaves, labels, flow, mask); the composite over a colour, an
 * image and the blurred frame (luma radius r, chroma (r + 1) / 2; chroma alpha the
 * rounded block mean) and the debug view, pixel by pixel; odd sizes. */
START_TEST (test_yuv_frames)
{
  const int w = 91, h = 67, br = 3;
  cc_context *ctx = cpu_context (2);
  cc_image plate_rgb, frame_rgb, back_rgb;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate_rgb));
  CC_ASSERT_OK (cv_synth_fg_frame (6, w, h, CV_SYNTH_FG_PLAIN, 6, &frame_rgb, NULL));
  CC_ASSERT_OK (cv_synth_fg_frame (30, w, h, CV_SYNTH_FG_PLAIN, 6, &back_rgb, NULL));
  static const cc_format fmts[] = { CC_FORMAT_NV12, CC_FORMAT_I420 };
  for (int fi = 0; fi < 2; fi++) {
    cc_image plate = to_yuv (&plate_rgb, fmts[fi]), frame = to_yuv (&frame_rgb, fmts[fi]);
    cc_image back = to_yuv (&back_rgb, fmts[fi]), out, pr, fr;
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, fmts[fi], CC_LOCATION_HOST, &out));
    yuv_to_rgb_image (&plate, &pr);
    yuv_to_rgb_image (&frame, &fr);
    cc_quadcut_params p;
    cc_quadcut_params_default (&p);
    p.feather = 2;
    cc_quadcut *qy, *qr;
    CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &qy));
    CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &qr));
    CC_ASSERT_OK (cc_quadcut_set_plate (qy, NULL, &plate));
    CC_ASSERT_OK (cc_quadcut_set_plate (qr, NULL, &pr));
    CC_ASSERT_OK (cc_quadcut_compute_sync (qy, NULL, &frame, NULL));
    CC_ASSERT_OK (cc_quadcut_compute_sync (qr, NULL, &fr, NULL));
    cc_quadcut_graph g[2];
    CC_ASSERT_OK (cc_quadcut_get_graph (qy, &g[0]));
    CC_ASSERT_OK (cc_quadcut_get_graph (qr, &g[1]));
    ck_assert_int_eq (g[0].n_leaves, g[1].n_leaves);
    ck_assert (memcmp (g[0].leaves, g[1].leaves, g[0].n_leaves * sizeof *g[0].leaves) == 0);
    ck_assert (memcmp (g[0].labels, g[1].labels, g[0].n_nodes) == 0 && g[0].flow == g[1].flow);
    cc_image alpha;
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &alpha));
    CC_ASSERT_OK (cc_quadcut_get_alpha (qy, NULL, &alpha));
    const uint8_t *al = alpha.planes[0];
    int partial = 0;
    for (int i = 0; i < w * h; i++)
      partial += al[(i / w) * alpha.pitch[0] + i % w] % 255 != 0;
    ck_assert_int_gt (partial, 0);
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    for (int kind = 0; kind < 3; kind++) {
      cc_background bg = { .kind = (cc_background_kind) kind, .image = &back,
                                   .r = 10, .g = 200, .b = 30, .blur_radius = br };
      CC_ASSERT_OK (cc_quadcut_composite (qy, NULL, &frame, &bg, &out));
      uint8_t cy, cu, cv;
      cc_rgb_to_yuv (10, 200, 30, &cy, &cu, &cv);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
          unsigned a = al[y * alpha.pitch[0] + x], b;
          if (kind == CC_BACKGROUND_IMAGE)
            b = *cc_qc_luma (&back, x, y);
          else if (kind == CC_BACKGROUND_COLOR)
            b = cy;
          else
            b = box_mean (frame.planes[0], frame.pitch[0], 1, 0, w, h, x, y, br);
          unsigned want = (a * *cc_qc_luma (&frame, x, y) + (255 - a) * b + 127) / 255;
          ck_assert_msg (*cc_qc_luma (&out, x, y) == want, "fmt %d kind %d luma %d,%d", fi,
              kind, x, y);
        }
      for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++) {
          unsigned s2 = 0, n = 0;
          for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++)
              if (2 * x + dx < w && 2 * y + dy < h) {
                s2 += al[(2 * y + dy) * alpha.pitch[0] + 2 * x + dx];
                n++;
              }
          unsigned a = (s2 + n / 2) / n;
          for (int c = 0; c < 2; c++) {
            uint8_t *fu, *fv, *ou, *ov, *bu, *bv;
            cc_qc_chroma (&frame, x, y, &fu, &fv);
            cc_qc_chroma (&out, x, y, &ou, &ov);
            cc_qc_chroma (&back, x, y, &bu, &bv);
            unsigned b;
            if (kind == CC_BACKGROUND_IMAGE)
              b = c ? *bv : *bu;
            else if (kind == CC_BACKGROUND_COLOR)
              b = c ? cv : cu;
            else if (fmts[fi] == CC_FORMAT_NV12)
              b = box_mean (frame.planes[1], frame.pitch[1], 2, c, cw, ch, x, y, (br + 1) / 2);
            else
              b = box_mean (frame.planes[1 + c], frame.pitch[1 + c], 1, 0, cw, ch, x, y,
                  (br + 1) / 2);
            unsigned want = (a * (c ? *fv : *fu) + (255 - a) * b + 127) / 255;
            ck_assert_msg ((c ? *ov : *ou) == want, "fmt %d kind %d chroma %d,%d c%d: %d, "
                "want %u", fi, kind, x, y, c, c ? *ov : *ou, want);
          }
        }
    }
    /* the debug view */
    uint8_t *seed = malloc ((size_t) w * h);
    int32_t *ids = malloc ((size_t) w * h * sizeof (int32_t));
    CC_ASSERT_OK (cc_quadcut_get_stratified (qy, NULL, NULL, NULL, NULL, seed, ids));
    CC_ASSERT_OK (cc_quadcut_draw (qy, NULL, &frame, &out));
    uint8_t ry, ru, rv;
    cc_rgb_to_yuv (255, 0, 0, &ry, &ru, &rv);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const cc_quadcut_leaf *l = &g[0].leaves[ids[y * w + x]];
        uint8_t c[3], ky, ku, kv, want = *cc_qc_luma (&frame, x, y);
        cc_qc_level_colour (l->level, c);
        cc_rgb_to_yuv (c[0], c[1], c[2], &ky, &ku, &kv);
        if (x == l->x || y == l->y)
          want = ky;
        else if (seed[y * w + x])
          want = (want + ry + 1) >> 1;
        ck_assert_int_eq (*cc_qc_luma (&out, x, y), want);
        if (x % 2 || y % 2)
          continue;
        uint8_t *fu, *fv, *ou, *ov, wu, wv;
        cc_qc_chroma (&frame, x / 2, y / 2, &fu, &fv);
        cc_qc_chroma (&out, x / 2, y / 2, &ou, &ov);
        wu = *fu;
        wv = *fv;
        if (x == l->x || y == l->y) {
          wu = ku;
          wv = kv;
        } else if (seed[y * w + x]) {
          wu = (wu + ru + 1) >> 1;
          wv = (wv + rv + 1) >> 1;
        }
        ck_assert (*ou == wu && *ov == wv);
      }
    free (seed);
    free (ids);
    cv_image_free (&alpha);
    cv_image_free (&pr);
    cv_image_free (&fr);
    cc_image_free (NULL, &plate);
    cc_image_free (NULL, &frame);
    cc_image_free (NULL, &back);
    cc_image_free (NULL, &out);
    cc_quadcut_destroy (qy);
    cc_quadcut_destroy (qr);
  }
  cv_image_free (&plate_rgb);
  cv_image_free (&frame_rgb);
  cv_image_free (&back_rgb);
  cc_context_destroy (ctx);
}
END_TEST

/* Everything of two runs (the second with the temporal prior and an updated plate)
 * on CUDA equals the CPU bit for bit: stratified data, leaf ids, the leaf graph
 * (records, costs, QuadN4, neighbour lists), labels, flow, the plate, mask, alpha,
 * the three composites and the debug view; plate mode on several sizes (BGRX8, NV12,
 * I420 too) and active mode. */
static void
compare_backends (int w, int h, int active, cc_format format)
{
  cc_context *cpu = cpu_context (2), *gpu;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, 0, &gpu));
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.feather = 2;
  if (active) {
    p.mode = CC_QUADCUT_MODE_ACTIVE;
    p.sigma_l = 4.0f;
    p.seed_threshold = 1e-3f;
  }
  cc_image host[4], dev[4];   /* plate / other, frame 0, frame 1, background */
  if (active)
    CC_ASSERT_OK (cv_synth_fg_frame (7, w, h, CV_SYNTH_FG_LIT, 4, &host[0], NULL));
  else
    CC_ASSERT_OK (cv_synth_fg_plate (w, h, &host[0]));
  CC_ASSERT_OK (cv_synth_fg_frame (7, w, h, active ? CV_SYNTH_FG_UNLIT : CV_SYNTH_FG_PLAIN,
      6, &host[1], NULL));
  CC_ASSERT_OK (cv_synth_fg_frame (9, w, h, active ? CV_SYNTH_FG_UNLIT : CV_SYNTH_FG_PLAIN,
      6, &host[2], NULL));
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &host[3]));
  const int yuv = format == CC_FORMAT_NV12 || format == CC_FORMAT_I420;
  for (int k = 0; k < 4; k++) {
    if (yuv) {
      cc_image y = to_yuv (&host[k], format);
      cv_image_free (&host[k]);
      host[k] = y;
    } else {
      host[k].format = format;   /* the same bytes read as BGRX: other colours */
    }
    CC_ASSERT_OK (cv_test_to_backend (gpu, &host[k], &dev[k]));
  }
  cc_quadcut *qc, *qg;
  CC_ASSERT_OK (cc_quadcut_create (cpu, w, h, &p, &qc));
  CC_ASSERT_OK (cc_quadcut_create (gpu, w, h, &p, &qg));
  if (!active) {
    CC_ASSERT_OK (cc_quadcut_set_plate (qc, NULL, &host[0]));
    CC_ASSERT_OK (cc_quadcut_set_plate (qg, NULL, &dev[0]));
  }
  size_t n = (size_t) w * h;
  for (int run = 1; run <= 2; run++) {
    if (!active && run == 2) {
      /* the plate updated where the first run's alpha is 0 */
      CC_ASSERT_OK (cc_quadcut_update_plate (qc, NULL, &host[2], 2, true));
      CC_ASSERT_OK (cc_quadcut_update_plate (qg, NULL, &dev[2], 2, true));
      cc_image pc, pg, pgh;
      CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &pc));
      CC_ASSERT_OK (cc_image_alloc (gpu, w, h, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE, &pg));
      CC_ASSERT_OK (cc_quadcut_get_plate (qc, NULL, &pc));
      CC_ASSERT_OK (cc_quadcut_get_plate (qg, NULL, &pg));
      CC_ASSERT_OK (cv_test_to_host (gpu, &pg, &pgh));
      cv_test_assert_same_bits (&pc, &pgh, "updated plate");
      cv_image_free (&pc);
      cv_image_free (&pgh);
      cc_image_free (gpu, &pg);
    }
    CC_ASSERT_OK (cc_quadcut_compute_sync (qc, NULL, &host[run], active ? &host[0] : NULL));
    CC_ASSERT_OK (cc_quadcut_compute_sync (qg, NULL, &dev[run], active ? &dev[0] : NULL));
    float *f[2][4];
    uint8_t *seed[2];
    int32_t *ids[2];
    cc_quadcut *q[2] = { qc, qg };
    for (int b = 0; b < 2; b++) {
      for (int c = 0; c < 4; c++)
        f[b][c] = malloc (n * sizeof (float));
      seed[b] = malloc (n);
      ids[b] = malloc (n * sizeof (int32_t));
      CC_ASSERT_OK (cc_quadcut_get_stratified (q[b], f[b][0], f[b][1], f[b][2], f[b][3],
          seed[b], ids[b]));
    }
    for (int c = 0; c < 4; c++)
      ck_assert_msg (memcmp (f[0][c], f[1][c], n * sizeof (float)) == 0,
          "%dx%d run %d: stratified channel %d differs", w, h, run, c);
    ck_assert (memcmp (seed[0], seed[1], n) == 0);
    ck_assert (memcmp (ids[0], ids[1], n * sizeof (int32_t)) == 0);
    cc_quadcut_graph g[2];
    CC_ASSERT_OK (cc_quadcut_get_graph (qc, &g[0]));
    CC_ASSERT_OK (cc_quadcut_get_graph (qg, &g[1]));
    ck_assert_int_eq (g[0].n_leaves, g[1].n_leaves);
    ck_assert_msg (memcmp (g[0].leaves, g[1].leaves, g[0].n_leaves * sizeof *g[0].leaves)
        == 0, "%dx%d run %d: leaf records differ", w, h, run);
    ck_assert (memcmp (g[0].offsets, g[1].offsets, (g[0].n_leaves + 1) * sizeof (int)) == 0);
    int m = g[0].offsets[g[0].n_leaves];
    ck_assert (memcmp (g[0].neighbours, g[1].neighbours, m * sizeof (int)) == 0);
    ck_assert (memcmp (g[0].lengths, g[1].lengths, m * sizeof (int)) == 0);
    /* the compact graph built on the device (t-links, n-links and their weights: the
     * same formulas, exp and log in IEEE operations) against the CPU's, bit for bit */
    ck_assert_int_eq (g[0].n_edges, g[1].n_edges);
    ck_assert_msg (memcmp (g[0].tlink_fg, g[1].tlink_fg, g[0].n_nodes * sizeof (double)) == 0
        && memcmp (g[0].tlink_bg, g[1].tlink_bg, g[0].n_nodes * sizeof (double)) == 0,
        "%dx%d run %d: t-links differ", w, h, run);
    ck_assert_msg (memcmp (g[0].edge_a, g[1].edge_a, g[0].n_edges * sizeof (int)) == 0
        && memcmp (g[0].edge_b, g[1].edge_b, g[0].n_edges * sizeof (int)) == 0,
        "%dx%d run %d: n-link ends differ", w, h, run);
    ck_assert_msg (memcmp (g[0].edge_w, g[1].edge_w, g[0].n_edges * sizeof (double)) == 0,
        "%dx%d run %d: n-link weights differ", w, h, run);
    ck_assert (memcmp (g[0].labels, g[1].labels, g[0].n_nodes) == 0);
    ck_assert (g[0].flow == g[1].flow && g[0].n_seeds == g[1].n_seeds);
    double mean_l[2];
    CC_ASSERT_OK (cc_quadcut_mean_luminance (qc, &mean_l[0]));
    CC_ASSERT_OK (cc_quadcut_mean_luminance (qg, &mean_l[1]));
    ck_assert_msg (mean_l[0] == mean_l[1], "%dx%d run %d: mean L %.9f (CPU) %.9f (CUDA)",
        w, h, run, mean_l[0], mean_l[1]);
    printf ("quadcut CUDA == CPU %dx%d %s run %d: %d leaves (%.2f %% of pixels), %lld "
        "n-links, flow %.6f: same bits\n", w, h, cc_format_name (format), run, g[0].n_leaves,
        100.0 * g[0].n_leaves / ((double) w * h), g[0].n_edges, g[0].flow);
    for (int b = 0; b < 2; b++) {
      for (int c = 0; c < 4; c++)
        free (f[b][c]);
      free (seed[b]);
      free (ids[b]);
    }
  }
  /* mask, alpha, composites */
  for (int a = 0; a < 2; a++) {
    cc_image hc, dg, hg;
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &hc));
    CC_ASSERT_OK (cc_image_alloc (gpu, w, h, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE, &dg));
    CC_ASSERT_OK (a ? cc_quadcut_get_alpha (qc, NULL, &hc) : cc_quadcut_get_mask (qc, NULL, &hc));
    CC_ASSERT_OK (a ? cc_quadcut_get_alpha (qg, NULL, &dg) : cc_quadcut_get_mask (qg, NULL, &dg));
    CC_ASSERT_OK (cv_test_to_host (gpu, &dg, &hg));
    cv_test_assert_same_bits (&hc, &hg, a ? "alpha" : "mask");
    cv_image_free (&hc);
    cv_image_free (&hg);
    cc_image_free (gpu, &dg);
  }
  for (int kind = 0; kind < 3; kind++) {
    cc_background bh = { .kind = (cc_background_kind) kind, .image = &host[3],
                                 .r = 10, .g = 200, .b = 30, .blur_radius = 5 };
    cc_background bd = bh;
    bd.image = &dev[3];
    cc_image oc, og, ogh;
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, format, CC_LOCATION_HOST, &oc));
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, format, CC_LOCATION_HOST, &ogh));
    CC_ASSERT_OK (cc_image_alloc (gpu, w, h, format, CC_LOCATION_DEVICE, &og));
    CC_ASSERT_OK (cc_quadcut_composite (qc, NULL, &host[2], &bh, &oc));
    CC_ASSERT_OK (cc_quadcut_composite (qg, NULL, &dev[2], &bd, &og));
    CC_ASSERT_OK (cc_image_copy (gpu, NULL, &og, &ogh));
    cv_test_assert_same_bits (&oc, &ogh, "composite");
    cc_image_free (NULL, &oc);
    cc_image_free (NULL, &ogh);
    cc_image_free (gpu, &og);
  }
  {
    cc_image oc, og, ogh;
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, format, CC_LOCATION_HOST, &oc));
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, format, CC_LOCATION_HOST, &ogh));
    CC_ASSERT_OK (cc_image_alloc (gpu, w, h, format, CC_LOCATION_DEVICE, &og));
    CC_ASSERT_OK (cc_quadcut_draw (qc, NULL, &host[2], &oc));
    CC_ASSERT_OK (cc_quadcut_draw (qg, NULL, &dev[2], &og));
    CC_ASSERT_OK (cc_image_copy (gpu, NULL, &og, &ogh));
    cv_test_assert_same_bits (&oc, &ogh, "leaves drawn");
    CC_ASSERT_OK (cc_quadcut_render (qc, NULL, CC_QUADCUT_OUTPUT_MASK, NULL, &oc));
    CC_ASSERT_OK (cc_quadcut_render (qg, NULL, CC_QUADCUT_OUTPUT_MASK, NULL, &og));
    CC_ASSERT_OK (cc_image_copy (gpu, NULL, &og, &ogh));
    cv_test_assert_same_bits (&oc, &ogh, "matte");
    if (!yuv) {
      CC_ASSERT_OK (cc_quadcut_set_alpha (qc, NULL, &oc));
      CC_ASSERT_OK (cc_quadcut_set_alpha (qg, NULL, &og));
      CC_ASSERT_OK (cc_image_copy (gpu, NULL, &og, &ogh));
      cv_test_assert_same_bits (&oc, &ogh, "alpha channel");
    }
    cc_image_free (NULL, &oc);
    cc_image_free (NULL, &ogh);
    cc_image_free (gpu, &og);
  }
  if (!active) {
    /* a host plate through cc_quadcut_start_plate: uploaded, the same plate */
    cc_image rgbx, kept = { 0 }, pc, pg, pgh;
    if (yuv)
      yuv_to_rgb_image (&host[3], &rgbx);
    else {
      CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &rgbx));
      for (int y = 0; y < h; y++)
        memcpy ((uint8_t *) rgbx.planes[0] + (size_t) y * rgbx.pitch[0],
            (const uint8_t *) host[3].planes[0] + (size_t) y * host[3].pitch[0], 4 * (size_t) w);
    }
    cc_quadcut_learning lc, lg;
    CC_ASSERT_OK (cc_quadcut_start_plate (qc, NULL, &lc, &rgbx, &kept, false));
    CC_ASSERT_OK (cc_quadcut_start_plate (qg, NULL, &lg, &rgbx, &kept, false));
    ck_assert (lc.source == CC_QUADCUT_PLATE_IMAGE && lg.source == CC_QUADCUT_PLATE_IMAGE);
    CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &pc));
    CC_ASSERT_OK (cc_image_alloc (gpu, w, h, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE, &pg));
    CC_ASSERT_OK (cc_quadcut_get_plate (qc, NULL, &pc));
    CC_ASSERT_OK (cc_quadcut_get_plate (qg, NULL, &pg));
    CC_ASSERT_OK (cv_test_to_host (gpu, &pg, &pgh));
    cv_test_assert_same_bits (&pc, &pgh, "plate from the host");
    cv_image_free (&pc);
    cv_image_free (&pgh);
    cv_image_free (&rgbx);
    cc_image_free (gpu, &pg);
  }
  cc_quadcut_destroy (qc);
  cc_quadcut_destroy (qg);
  for (int k = 0; k < 4; k++) {
    if (yuv)
      cc_image_free (NULL, &host[k]);
    else
      cv_image_free (&host[k]);
    cc_image_free (gpu, &dev[k]);
  }
  cc_context_destroy (cpu);
  cc_context_destroy (gpu);
}

/* The plate across handles: a learned plate kept on the host comes back into a new
 * handle of its size (LEARNED, the same bytes), not into one of another size (learned
 * again); a picture wins over a kept plate (IMAGE, or NONE with relearn, the picture
 * set either way); an incomplete plate is not kept; bad pictures are refused. */
START_TEST (test_plate_across_handles)
{
  const int w = 33, h = 21;
  cc_context *ctx = cpu_context (2);
  cc_image frame, picture, got, want, kept = { 0 };
  CC_ASSERT_OK (cv_synth_fg_frame (3, w, h, CV_SYNTH_FG_PLAIN, 20, &frame, NULL));
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &picture));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &got));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &want));
  cc_quadcut *q, *q2;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, NULL, &q));
  cc_quadcut_learning l;
  CC_ASSERT_OK (cc_quadcut_start_plate (q, NULL, &l, NULL, &kept, false));
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE && l.learned == 0);
  CC_ASSERT_OK (cc_quadcut_learn_plate (q, NULL, &l, &frame, 4, 2));
  /* LEARNING: nothing kept */
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  ck_assert_ptr_null (kept.planes[0]);
  CC_ASSERT_OK (cc_quadcut_learn_plate (q, NULL, &l, &picture, 4, 2));
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNED);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &want));
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  ck_assert (kept.location == CC_LOCATION_HOST && kept.format == CC_FORMAT_RGBX8);
  ck_assert (kept.width == w && kept.height == h);
  cv_test_assert_same_bits (&kept, &want, "kept plate");
  /* kept again: the old copy replaced (no leak), the same bytes */
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  cv_test_assert_same_bits (&kept, &want, "kept plate again");
  cc_quadcut_destroy (q);
  /* the same size: the kept plate, LEARNED */
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, NULL, &q));
  CC_ASSERT_OK (cc_quadcut_start_plate (q, NULL, &l, NULL, &kept, false));
  ck_assert (l.source == CC_QUADCUT_PLATE_LEARNED && l.learned == 0);
  ck_assert_ptr_null (kept.planes[0]);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &want, "plate taken back");
  /* another size: learned again, the kept plate freed */
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  CC_ASSERT_OK (cc_quadcut_create (ctx, w + 1, h, NULL, &q2));
  CC_ASSERT_OK (cc_quadcut_start_plate (q2, NULL, &l, NULL, &kept, false));
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE);
  ck_assert_ptr_null (kept.planes[0]);
  cc_image wide;
  CC_ASSERT_OK (cv_image_new (w + 1, h, CC_FORMAT_RGBX8, &wide));
  ck_assert_int_eq (cc_quadcut_get_plate (q2, NULL, &wide), CC_ERROR_INVALID_ARGUMENT);
  /* a picture of another size: refused, NONE, the kept plate freed all the same */
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  ck_assert_ptr_null (kept.planes[0]);   /* NONE: nothing to keep */
  cc_quadcut_learning_init (&l, CC_QUADCUT_PLATE_LEARNED);
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  ck_assert_int_eq (cc_quadcut_start_plate (q2, NULL, &l, &picture, &kept, false),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE);
  ck_assert_ptr_null (kept.planes[0]);
  /* a picture wins over a kept plate: IMAGE; with relearn NONE, the picture set */
  cc_quadcut_learning_init (&l, CC_QUADCUT_PLATE_LEARNED);
  CC_ASSERT_OK (cc_quadcut_keep_plate (q, NULL, &l, &kept));
  ck_assert_ptr_nonnull (kept.planes[0]);
  CC_ASSERT_OK (cc_quadcut_start_plate (q, NULL, &l, &picture, &kept, false));
  ck_assert (l.source == CC_QUADCUT_PLATE_IMAGE && l.learned == 0);
  ck_assert_ptr_null (kept.planes[0]);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &picture, "the picture is the plate");
  CC_ASSERT_OK (cc_quadcut_start_plate (q, NULL, &l, &frame, &kept, true));
  ck_assert (l.source == CC_QUADCUT_PLATE_NONE);
  CC_ASSERT_OK (cc_quadcut_get_plate (q, NULL, &got));
  cv_test_assert_same_bits (&got, &frame, "relearn: the picture set");
  /* not host RGBX8: refused */
  picture.format = CC_FORMAT_BGRX8;
  ck_assert_int_eq (cc_quadcut_start_plate (q, NULL, &l, &picture, &kept, false),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "host RGBX8"));
  picture.format = CC_FORMAT_RGBX8;
  cc_quadcut_destroy (q);
  cc_quadcut_destroy (q2);
  cv_image_free (&wide);
  cv_image_free (&frame);
  cv_image_free (&picture);
  cv_image_free (&got);
  cv_image_free (&want);
  cc_context_destroy (ctx);
}
END_TEST

/* cc_quadcut_render: MASK is the composite of an all-white frame over black (RGBX8 /
 * BGRX8: R = G = B = alpha, X 255; NV12 / I420: Y = (a 235 + (255 - a) 16 + 127) / 255,
 * chroma 128), whatever the frame held; the other outputs are their own calls, in
 * place; unknown outputs, and any before a compute, are refused. */
START_TEST (test_render)
{
  const int w = 45, h = 31;
  cc_context *ctx = cpu_context (2);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.feather = 2;
  cc_quadcut *q = run_synthetic (ctx, w, h, 2, &p, NULL);
  cc_image alpha, rgb, white_rgb;
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_GRAY8, &alpha));
  CC_ASSERT_OK (cc_quadcut_get_alpha (q, NULL, &alpha));
  const uint8_t *al = alpha.planes[0];
  CC_ASSERT_OK (cv_synth_fg_frame (2, w, h, CV_SYNTH_FG_PLAIN, 6, &rgb, NULL));
  CC_ASSERT_OK (cv_image_new (w, h, CC_FORMAT_RGBX8, &white_rgb));
  memset (white_rgb.planes[0], 255, white_rgb.pitch[0] * h);
  static const cc_format fmts[] = { CC_FORMAT_RGBX8, CC_FORMAT_BGRX8, CC_FORMAT_NV12,
                                    CC_FORMAT_I420 };
  const cc_background black = { .kind = CC_BACKGROUND_COLOR };
  const cc_background colour = { .kind = CC_BACKGROUND_COLOR, .r = 10, .g = 200,
                                         .b = 30 };
  for (int fi = 0; fi < 4; fi++) {
    const int yuv = fmts[fi] == CC_FORMAT_NV12 || fmts[fi] == CC_FORMAT_I420;
    cc_image frame, white, out, want;
    if (yuv) {
      frame = to_yuv (&rgb, fmts[fi]);
      white = to_yuv (&white_rgb, fmts[fi]);
    } else {
      CC_ASSERT_OK (cc_image_alloc (NULL, w, h, CC_FORMAT_RGBX8, CC_LOCATION_HOST, &frame));
      CC_ASSERT_OK (cc_image_alloc (NULL, w, h, CC_FORMAT_RGBX8, CC_LOCATION_HOST, &white));
      CC_ASSERT_OK (cc_image_copy (NULL, NULL, &rgb, &frame));
      CC_ASSERT_OK (cc_image_copy (NULL, NULL, &white_rgb, &white));
      frame.format = white.format = fmts[fi];   /* the same bytes read as BGRX */
    }
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, fmts[fi], CC_LOCATION_HOST, &out));
    CC_ASSERT_OK (cc_image_alloc (NULL, w, h, fmts[fi], CC_LOCATION_HOST, &want));
    /* MASK */
    CC_ASSERT_OK (cc_quadcut_composite (q, NULL, &white, &black, &want));
    CC_ASSERT_OK (cc_image_copy (NULL, NULL, &frame, &out));
    CC_ASSERT_OK (cc_quadcut_render (q, NULL, CC_QUADCUT_OUTPUT_MASK, NULL, &out));
    cv_test_assert_same_bits (&out, &want, "matte = white over black");
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const unsigned a = al[(size_t) y * alpha.pitch[0] + x];
        if (!yuv) {
          for (int c = 0; c < 3; c++)
            ck_assert_int_eq (px (&out, x, y, c), a);
          ck_assert_int_eq (px (&out, x, y, 3), 255);
          continue;
        }
        ck_assert_int_eq (*cc_qc_luma (&out, x, y), (a * 235 + (255 - a) * 16 + 127) / 255);
        if (x % 2 == 0 && y % 2 == 0) {
          uint8_t *u, *v;
          cc_qc_chroma (&out, x / 2, y / 2, &u, &v);
          ck_assert (*u == 128 && *v == 128);
        }
      }
    /* the other outputs: their own calls, in place */
    for (int o = 0; o < 4; o++) {
      if (o == CC_QUADCUT_OUTPUT_MASK)
        continue;
      CC_ASSERT_OK (cc_image_copy (NULL, NULL, &frame, &out));
      CC_ASSERT_OK (cc_image_copy (NULL, NULL, &frame, &want));
      cc_status st = cc_quadcut_render (q, NULL, (cc_quadcut_output) o, &colour, &out);
      if (o == CC_QUADCUT_OUTPUT_COMPOSITE)
        CC_ASSERT_OK (cc_quadcut_composite (q, NULL, &frame, &colour, &want));
      else if (o == CC_QUADCUT_OUTPUT_DEBUG)
        CC_ASSERT_OK (cc_quadcut_draw (q, NULL, &frame, &want));
      else if (yuv) {
        ck_assert_int_eq (st, CC_ERROR_NOT_SUPPORTED);
        continue;
      } else
        CC_ASSERT_OK (cc_quadcut_set_alpha (q, NULL, &want));
      CC_ASSERT_OK (st);
      cv_test_assert_same_bits (&out, &want, "render = its call");
    }
    ck_assert_int_eq (cc_quadcut_render (q, NULL, (cc_quadcut_output) 4, &colour, &out),
        CC_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull (strstr (cc_last_error (), "unknown output 4"));
    cc_image_free (NULL, &frame);
    cc_image_free (NULL, &white);
    cc_image_free (NULL, &out);
    cc_image_free (NULL, &want);
  }
  cc_quadcut *fresh;
  CC_ASSERT_OK (cc_quadcut_create (ctx, w, h, &p, &fresh));
  ck_assert_int_eq (cc_quadcut_render (fresh, NULL, CC_QUADCUT_OUTPUT_MASK, NULL, &rgb),
      CC_ERROR_INVALID_ARGUMENT);
  cc_quadcut_destroy (fresh);
  cc_quadcut_destroy (q);
  cv_image_free (&alpha);
  cv_image_free (&rgb);
  cv_image_free (&white_rgb);
  cc_context_destroy (ctx);
}
END_TEST

START_TEST (test_gpu_matches_cpu)
{
  CV_SKIP_WITHOUT_GPU ("quadcut CUDA == CPU");
  compare_backends (1, 1, 0, CC_FORMAT_RGBX8);
  compare_backends (37, 23, 0, CC_FORMAT_RGBX8);
  compare_backends (200, 150, 0, CC_FORMAT_BGRX8);
  compare_backends (640, 360, 0, CC_FORMAT_RGBX8);
  compare_backends (200, 150, 1, CC_FORMAT_RGBX8);
  compare_backends (91, 67, 0, CC_FORMAT_NV12);
  compare_backends (640, 360, 0, CC_FORMAT_I420);
  compare_backends (91, 67, 1, CC_FORMAT_I420);
  compare_backends (1920, 1080, 0, CC_FORMAT_RGBX8);
}
END_TEST

static Suite *
quadcut_suite (void)
{
  Suite *s = suite_create ("quadcut");
  TCase *tc = tcase_create ("quadcut");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_exp_log);
  tcase_add_test (tc, test_quadtree_structure);
  tcase_add_test (tc, test_plate_recovers_mask);
  tcase_add_test (tc, test_shadow_rule);
  tcase_add_test (tc, test_active_illumination);
  tcase_add_test (tc, test_mean_luminance_and_alternation);
  tcase_add_test (tc, test_pair_warning);
  tcase_add_test (tc, test_learn_plate);
  tcase_add_test (tc, test_prepare);
  tcase_add_test (tc, test_check_pair);
  tcase_add_test (tc, test_temporal_and_reset);
  tcase_add_test (tc, test_threads_same_bits);
  tcase_add_test (tc, test_alpha_and_composite);
  tcase_add_test (tc, test_draw_leaves);
  tcase_add_test (tc, test_update_plate);
  tcase_add_test (tc, test_yuv_frames);
  tcase_add_test (tc, test_plate_across_handles);
  tcase_add_test (tc, test_render);
  tcase_add_test (tc, test_param_table);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_cdnet_highway);
  tcase_add_test (tc, test_gpu_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (quadcut_suite ());
}
