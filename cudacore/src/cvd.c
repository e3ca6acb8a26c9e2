/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CVD: the API and the CPU reference.
 *
 * CPU Voronoi: EXACT searches a bucket grid of the sites (cells of about one site
 * each) ring by ring around the pixel's cell until no farther ring can hold a site
 * as near; JFA / JFA_1PLUS / JFA_1PLUS_2 are the twins of the CUDA passes (same per-pixel
 * function, same ping-pong order), so the two backends label alike. Centroids: each
 * band of rows sums into its own 64-bit accumulators, the bands then add up in
 * order (integers: any thread count gives the same bits). */
#include "cvd_internal.h"
#include "cvd_hostdev.h"

#include <stdlib.h>
#include <string.h>

void
cc_cvd_params_default (cc_cvd_params *p)
{
  p->density = CC_CVD_DENSITY_UNIFORM;
  p->warm_start = 1;
}

void
cc_cvd_tuning_default (cc_cvd_tuning *t)
{
  t->voronoi = CC_CVD_VORONOI_JFA_1PLUS_2;
  t->centroid = CC_CVD_CENTROID_AUTO;
}

cc_status
cc_cvd_params_check (const cc_cvd_params *p)
{
  CC_CHECK_ARG (p != NULL, "cvd: params is NULL");
  CC_CHECK_ARG ((unsigned) p->density <= CC_CVD_DENSITY_GRADIENT,
      "cvd: unknown density %d", (int) p->density);
  CC_CHECK_ARG (p->warm_start == 0 || p->warm_start == 1,
      "cvd: warm_start %d is not 0 or 1", p->warm_start);
  return CC_SUCCESS;
}

struct cc_cvd {
  cc_module mod;               /* ctx, frame size (first: module.c) */
  cc_cvd_params params;
  cc_stream stream;            /* of the last submit call: the readbacks that take no
                                  stream, and a reallocation of the site arrays, wait
                                  for it */
  cc_cvd_tuning tuning;        /* cc_tuning.h: defaults unless a bench or test sets it */
  int n, cap;                  /* sites, and room for them */
  int labels_valid;            /* the labels belong to the current sites */
  int warm;                    /* CPU: the labels are those of sites that have moved by at
                                  most CC_CVD_WARM_MAX since (on CUDA the device knows) */
  int device_cold;             /* CUDA: the device's warm flag is cleared by the next
                                  Voronoi step, on its call's stream */
  /* CPU state */
  int bands;                   /* bands of rows summed in parallel */
  cc_cvd_site *sites;
  int32_t *labels, *labels_tmp;
  uint16_t *rho;
  cc_cvd_sums *sums;           /* bands x cap; band 0 holds the totals */
  cc_cvd_colour_acc *colour;   /* cap */
  cc_cvd_mean *means;          /* cap */
  int *grid_start, *grid_sites;   /* EXACT: bucket grid */
  int grid_cap;
  /* CUDA */
  cc_cuda_cvd *cuda;
};

static int
is_cuda (const cc_cvd *c)
{
  return c->mod.ctx->backend == CC_BACKEND_CUDA;
}

/* The stream a submit call runs on (its argument, or the context's stream), kept for the
 * readbacks that take none. */
static cc_stream
submit_stream (cc_cvd *c, cc_stream stream)
{
  return c->stream = cc_stream_resolve (c->mod.ctx, stream);
}

/* The sites moved by more than a warm start allows (new sites, advection, a new
 * method): the next Voronoi step runs its whole schedule. */
static void
forget_warm (cc_cvd *c)
{
  c->warm = 0;
  c->device_cold = 1;   /* set_params has no stream to clear the device's flag on */
}

static void
cvd_release (cc_module *mod)
{
  cc_cvd *c = (cc_cvd *) mod;
#if CC_HAVE_CUDA
  if (c->cuda)
    cc_cuda_cvd_destroy (c->cuda);
#endif
  free (c->sites); free (c->labels); free (c->labels_tmp); free (c->rho);
  free (c->sums); free (c->colour); free (c->means);
  free (c->grid_start); free (c->grid_sites);
}

/* The label and density images for the frame size (the per-site arrays grow with the
 * sites: reserve). Density starts UNIFORM. */
static cc_status
cvd_alloc (cc_module *mod)
{
  cc_cvd *c = (cc_cvd *) mod;
  const int width = mod->width, height = mod->height;
  cc_cvd_tuning_default (&c->tuning);
  c->stream = cc_context_stream (mod->ctx);
  size_t np = (size_t) width * height;
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_create (mod->ctx, width, height, &c->cuda));
  c->bands = cc_context_cpu_threads (mod->ctx);
  c->bands = c->bands > height ? height : c->bands;
  c->bands = c->bands > 64 ? 64 : (c->bands < 1 ? 1 : c->bands);
  bool ok = (c->labels = malloc (np * sizeof *c->labels)) != NULL;
  ok &= (c->labels_tmp = malloc (np * sizeof *c->labels_tmp)) != NULL;
  ok &= (c->rho = malloc (np * sizeof *c->rho)) != NULL;
  if (!ok)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_cvd_create: out of host memory");
  for (size_t i = 0; i < np; i++)
    c->rho[i] = 256;
  return CC_SUCCESS;
}

/* A change of warm_start drops the labels' warmth; nothing is allocated anew. */
static cc_status
cvd_params_changing (cc_module *mod, const void *params, bool *realloc)
{
  cc_cvd *c = (cc_cvd *) mod;
  if (((const cc_cvd_params *) params)->warm_start != c->params.warm_start) {
    c->labels_valid = 0;
    forget_warm (c);
  }
  *realloc = false;
  return CC_SUCCESS;
}

CC_MODULE_CLASS (cvd_class, cc_cvd, cc_cvd_params, cc_cvd, cvd_params_changing, cvd_alloc,
    cvd_release);

cc_status
cc_cvd_create (cc_context *ctx, int width, int height, const cc_cvd_params *params,
    cc_cvd **out)
{
  cc_module *c = NULL;
  cc_status st = cc_module_create (&cvd_class, ctx, width, height, params,
      out ? &c : NULL);
  if (out)
    *out = (cc_cvd *) c;
  return st;
}

void
cc_cvd_destroy (cc_cvd *c)
{
  cc_module_destroy ((cc_module *) c);
}

cc_status
cc_cvd_set_params (cc_cvd *c, const cc_cvd_params *params)
{
  CC_CHECK_ARG (c != NULL, "cc_cvd_set_params: cvd is NULL");
  return cc_module_set_params (&c->mod, params);
}

void
cc_cvd_get_params (const cc_cvd *c, cc_cvd_params *params)
{
  *params = c->params;
}

cc_status
cc_cvd_set_tuning (cc_cvd *c, const cc_cvd_tuning *t)
{
  CC_CHECK_ARG (c != NULL && t != NULL, "cc_cvd_set_tuning: cvd or tuning is NULL");
  CC_CHECK_ARG ((unsigned) t->voronoi <= CC_CVD_VORONOI_JFA_1PLUS_2,
      "cvd: unknown voronoi method %d", (int) t->voronoi);
  CC_CHECK_ARG ((unsigned) t->centroid <= CC_CVD_CENTROID_MDRR,
      "cvd: unknown centroid method %d", (int) t->centroid);
  if (is_cuda (c) && t->voronoi == CC_CVD_VORONOI_EXACT)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED,
        "cc_cvd_set_tuning: the EXACT Voronoi method is CPU only");
  if (t->voronoi != c->tuning.voronoi) {
    c->labels_valid = 0;
    forget_warm (c);
  }
  c->tuning = *t;
  return CC_SUCCESS;
}

void
cc_cvd_get_tuning (const cc_cvd *c, cc_cvd_tuning *t)
{
  *t = c->tuning;
}

int
cc_cvd_site_count (const cc_cvd *c)
{
  return c ? c->n : 0;
}

/* Room for n sites (allocated when the count grows, never per frame; on CUDA after
 * the last call's stream is done with the old arrays). */
static cc_status
reserve (cc_cvd *c, int n)
{
  if (n <= c->cap)
    return CC_SUCCESS;
  if (is_cuda (c)) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_cvd_reserve (c->cuda, c->stream, n)));
    c->cap = n;
    return CC_SUCCESS;
  }
  cc_cvd_site *s = realloc (c->sites, (size_t) n * sizeof *s);
  if (s)
    c->sites = s;
  free (c->sums); free (c->colour); free (c->means); free (c->grid_sites);
  c->sums = calloc ((size_t) n * c->bands, sizeof *c->sums);
  c->colour = calloc (n, sizeof *c->colour);
  c->means = calloc (n, sizeof *c->means);
  c->grid_sites = malloc ((size_t) n * sizeof *c->grid_sites);
  if (!s || !c->sums || !c->colour || !c->means || !c->grid_sites) {
    free (c->sums); free (c->colour); free (c->means); free (c->grid_sites);
    c->sums = NULL; c->colour = NULL; c->means = NULL; c->grid_sites = NULL;
    c->cap = c->n = 0;
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cvd: no memory for %d sites", n);
  }
  c->cap = n;
  return CC_SUCCESS;
}

static cc_status
check_count (const cc_cvd *c, int n, const char *fn)
{
  long long np = (long long) c->mod.width * c->mod.height;
  long long max = np < CC_CVD_MAX_SITES ? np : CC_CVD_MAX_SITES;
  CC_CHECK_ARG (n >= 1 && n <= max, "%s: %d sites out of range 1..%lld (%dx%d frame)", fn,
      n, max, c->mod.width, c->mod.height);
  return CC_SUCCESS;
}

static cc_status
store_sites (cc_cvd *c, cc_stream stream, const cc_cvd_site *sites, int n)
{
  CC_TRY (reserve (c, n));
  stream = submit_stream (c, stream);
  if (is_cuda (c))
    CC_TRY (CC_CUDA_ONLY (cc_cuda_cvd_set_sites (c->cuda, stream, sites, n)));
  else
    memcpy (c->sites, sites, (size_t) n * sizeof *sites);
  c->n = n;
  c->labels_valid = 0;
  forget_warm (c);
  return CC_SUCCESS;
}

static uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A uniform double in [0, 1) from the generator. */
static double
uniform01 (uint64_t *state)
{
  return (double) (splitmix64 (state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Claims pixel (px, py) when free, else the free pixel nearest to it in the first
 * square ring around it that has one; returns the pixel claimed. The caller
 * guarantees a free pixel. */
static uint64_t
claim_pixel (uint8_t *used, int w, int h, int px, int py)
{
  for (int r = 0;; r++) {
    int best = -1;
    long long bd = 0;
    for (int y = py - r; y <= py + r; y++) {
      if (y < 0 || y >= h)
        continue;
      int edge = y == py - r || y == py + r;
      for (int x = px - r; x <= px + r; x += edge ? 1 : 2 * r) {
        uint64_t q = (uint64_t) y * w + x;
        long long d = (long long) (x - px) * (x - px) + (long long) (y - py) * (y - py);
        if (x >= 0 && x < w && !(used[q / 8] & (1u << (q % 8))) && (best < 0 || d < bd)) {
          best = (int) q;
          bd = d;
        }
      }
    }
    if (best >= 0) {
      used[best / 8] |= (uint8_t) (1u << (best % 8));
      return (uint64_t) best;
    }
  }
}

/* Sites on a jittered hexagonal lattice: R rows of about n / R sites (the counts
 * differ by one at most, so exactly n), odd rows shifted by half a spacing, each site
 * moved by a uniform offset of up to a quarter of the spacing in x and y. A site
 * whose rounded pixel is taken moves to a free one nearby (n <= np / 4 here, so
 * there is room close by). */
static void
seed_lattice (cc_cvd_site *s, int n, int w, int h, uint8_t *used, uint64_t *state)
{
  /* a hexagon of area w h / n has rows sqrt(3) / 2 d apart, d = sqrt (2 w h / (sqrt(3) n)) */
  double d = sqrt (2.0 * w * h / (sqrt (3.0) * n));
  int rows = (int) floor (h / (d * sqrt (3.0) / 2.0) + 0.5);
  rows = rows < 1 ? 1 : rows > n ? n : rows > h ? h : rows;
  int k = 0;
  for (int r = 0; r < rows; r++) {
    int cnt = (int) ((long long) n * (r + 1) / rows - (long long) n * r / rows);
    double sy = (double) h / rows, sx = (double) w / cnt;
    double y = (r + 0.5) * sy - 0.5;
    for (int i = 0; i < cnt; i++, k++) {
      double x = (i + ((r & 1) ? 0.75 : 0.25)) * sx - 0.5;
      x += (uniform01 (state) - 0.5) * 0.5 * sx;
      double yy = y + (uniform01 (state) - 0.5) * 0.5 * sy;
      int fx = cc_clampi ((int) floor (x * CC_CVD_ONE + 0.5), 0, (w - 1) * CC_CVD_ONE);
      int fy = cc_clampi ((int) floor (yy * CC_CVD_ONE + 0.5), 0, (h - 1) * CC_CVD_ONE);
      int px = cc_cvd_round_px (fx), py = cc_cvd_round_px (fy);
      uint64_t q = claim_pixel (used, w, h, px, py);
      if ((int) (q % w) != px || (int) (q / w) != py) {
        fx = (int) (q % w) * CC_CVD_ONE;
        fy = (int) (q / w) * CC_CVD_ONE;
      }
      s[k].x = fx;
      s[k].y = fy;
    }
  }
}

cc_status
cc_cvd_seed (cc_cvd *c, cc_stream stream, int n, uint64_t seed)
{
  CC_CHECK_ARG (c != NULL, "cc_cvd_seed: cvd is NULL");
  CC_TRY (check_count (c, n, "cc_cvd_seed"));
  const uint64_t np = (uint64_t) c->mod.width * c->mod.height;
  cc_cvd_site *s = malloc ((size_t) n * sizeof *s);
  uint8_t *used = calloc ((size_t) (np + 7) / 8, 1);
  uint32_t *perm = NULL;
  if (s && used && (uint64_t) n * 2 > np)
    perm = malloc ((size_t) np * sizeof *perm);   /* np < 2 CC_CVD_MAX_SITES here */
  if (!s || !used || ((uint64_t) n * 2 > np && !perm)) {
    free (s); free (used); free (perm);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_cvd_seed: out of host memory");
  }
  uint64_t state = seed;
  if ((uint64_t) n * 4 <= np) {
    seed_lattice (s, n, c->mod.width, c->mod.height, used, &state);
  } else {
    /* dense: distinct random pixels (by rejection, or a partial shuffle when the
     * sites fill more than half the frame), each with a random offset that keeps it
     * rounding to its pixel: no two sites share a JFA seed pixel at the start */
    if (perm)
      for (uint64_t p = 0; p < np; p++)
        perm[p] = (uint32_t) p;
    for (int i = 0; i < n; i++) {
      uint64_t p;
      if (perm) {
        uint64_t j = i + splitmix64 (&state) % (np - i);
        p = perm[j];
        perm[j] = perm[i];
        perm[i] = (uint32_t) p;
      } else {
        do
          p = splitmix64 (&state) % np;
        while (used[p / 8] & (1u << (p % 8)));
        used[p / 8] |= (uint8_t) (1u << (p % 8));
      }
      uint64_t r = splitmix64 (&state);
      int ox = (int) (r & 255) - 128, oy = (int) ((r >> 8) & 255) - 128;
      s[i].x = cc_clampi ((int) (p % c->mod.width) * CC_CVD_ONE + ox, 0,
          (c->mod.width - 1) * CC_CVD_ONE);
      s[i].y = cc_clampi ((int) (p / c->mod.width) * CC_CVD_ONE + oy, 0,
          (c->mod.height - 1) * CC_CVD_ONE);
    }
  }
  free (used);
  free (perm);
  cc_status st = store_sites (c, stream, s, n);
  free (s);
  return st;
}

cc_status
cc_cvd_set_sites (cc_cvd *c, cc_stream stream, const cc_cvd_site *sites, int n)
{
  CC_CHECK_ARG (c != NULL && sites != NULL, "cc_cvd_set_sites: cvd or sites is NULL");
  CC_TRY (check_count (c, n, "cc_cvd_set_sites"));
  for (int i = 0; i < n; i++)
    CC_CHECK_ARG (sites[i].x >= 0 && sites[i].y >= 0
        && sites[i].x <= (c->mod.width - 1) * CC_CVD_ONE
        && sites[i].y <= (c->mod.height - 1) * CC_CVD_ONE,
        "cc_cvd_set_sites: site %d at (%d, %d)/256 is outside the %dx%d frame", i,
        sites[i].x, sites[i].y, c->mod.width, c->mod.height);
  return store_sites (c, stream, sites, n);
}

cc_status
cc_cvd_get_sites (cc_cvd *c, cc_cvd_site *sites)
{
  CC_CHECK_ARG (c != NULL && sites != NULL, "cc_cvd_get_sites: cvd or sites is NULL");
  if (c->n == 0)
    return CC_SUCCESS;
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_get_sites (c->cuda, c->stream, sites, c->n));
  memcpy (sites, c->sites, (size_t) c->n * sizeof *sites);
  return CC_SUCCESS;
}

static cc_status
check_frame (const cc_cvd *c, const cc_image *f, const char *what, bool gray_ok)
{
  CC_CHECK_ARG (f != NULL, "%s is NULL", what);
  CC_TRY (cc_image_check (f, what));
  CC_CHECK_ARG (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8
      || f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420
      || (gray_ok && f->format == CC_FORMAT_GRAY8),
      "%s: format %s is not supported here", what, cc_format_name (f->format));
  CC_CHECK_ARG (f->width == c->mod.width && f->height == c->mod.height,
      "%s: frame is %dx%d but cvd was created for %dx%d", what, f->width, f->height,
      c->mod.width, c->mod.height);
  CC_TRY (cc_image_check_location (c->mod.ctx, f, what));
  return CC_SUCCESS;
}

cc_status
cc_cvd_set_density (cc_cvd *c, cc_stream stream, const cc_image *f)
{
  CC_CHECK_ARG (c != NULL, "cc_cvd_set_density: cvd is NULL");
  CC_TRY (check_frame (c, f, "cc_cvd_set_density: frame", true));
  stream = submit_stream (c, stream);
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_set_density (c->cuda, stream, f, c->params.density));
  const int w = c->mod.width, h = c->mod.height, method = c->params.density;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (c->mod.ctx))
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      c->rho[(size_t) y * w + x] = cc_cvd_density_at (f, method, x, y);
  return CC_SUCCESS;
}

cc_status
cc_cvd_set_density_map (cc_cvd *c, cc_stream stream, const uint16_t *rho)
{
  CC_CHECK_ARG (c != NULL && rho != NULL, "cc_cvd_set_density_map: cvd or rho is NULL");
  stream = submit_stream (c, stream);
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_set_density_map (c->cuda, stream, rho));
  size_t np = (size_t) c->mod.width * c->mod.height;
  for (size_t i = 0; i < np; i++)
    c->rho[i] = rho[i] ? rho[i] : 1;
  return CC_SUCCESS;
}

/* ---------------------------------------------------------------- Voronoi */

static cc_status
cpu_exact (cc_cvd *c)
{
  const int w = c->mod.width, h = c->mod.height, n = c->n;
  int G = (int) sqrt ((double) w * h / n);
  G = G < 1 ? 1 : G;
  const int gw = (w + G - 1) / G, gh = (h + G - 1) / G;
  if (gw * gh + 1 > c->grid_cap) {
    free (c->grid_start);
    c->grid_start = malloc ((size_t) (gw * gh + 1) * sizeof *c->grid_start);
    if (!c->grid_start) {
      c->grid_cap = 0;
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cvd: no memory for the site grid");
    }
    c->grid_cap = gw * gh + 1;
  }
  int *start = c->grid_start, *list = c->grid_sites;
  memset (start, 0, (size_t) (gw * gh + 1) * sizeof *start);
  for (int i = 0; i < n; i++) {
    int cx = (c->sites[i].x >> CC_CVD_FRAC_BITS) / G, cy = (c->sites[i].y >> CC_CVD_FRAC_BITS) / G;
    start[cy * gw + cx + 1]++;
  }
  for (int k = 0; k < gw * gh; k++)
    start[k + 1] += start[k];
  /* fill in id order, so each cell lists its sites by ascending id */
  for (int i = 0; i < n; i++) {
    int cx = (c->sites[i].x >> CC_CVD_FRAC_BITS) / G, cy = (c->sites[i].y >> CC_CVD_FRAC_BITS) / G;
    list[start[cy * gw + cx]++] = i;
  }
  for (int k = gw * gh; k > 0; k--)
    start[k] = start[k - 1];
  start[0] = 0;
  const cc_cvd_site *sites = c->sites;
#pragma omp parallel for schedule(dynamic, 4) num_threads(cc_context_cpu_threads (c->mod.ctx))
  for (int y = 0; y < h; y++) {
    const int cy = y / G;
    for (int x = 0; x < w; x++) {
      const int cx = x / G;
      int best = -1;
      long long bd = 0;
      for (int r = 0;; r++) {
        /* a site in ring r is more than (r - 1) G px away in x or y */
        if (best >= 0 && r > 0) {
          long long lb = (long long) (r - 1) * G * CC_CVD_ONE;
          if (lb * lb > bd)
            break;
        }
        if (cx - r < 0 && cy - r < 0 && cx + r >= gw && cy + r >= gh)
          break;
        for (int gy = cy - r; gy <= cy + r; gy++) {
          if (gy < 0 || gy >= gh)
            continue;
          int edge_row = gy == cy - r || gy == cy + r;
          for (int gx = cx - r; gx <= cx + r; gx += edge_row ? 1 : 2 * r) {
            if (gx >= 0 && gx < gw) {
              for (int k = start[gy * gw + gx]; k < start[gy * gw + gx + 1]; k++) {
                int i = list[k];
                long long d = cc_cvd_dist2 (x, y, sites[i]);
                if (best < 0 || d < bd || (d == bd && i < best)) {
                  best = i;
                  bd = d;
                }
              }
            }
            if (r == 0)
              break;
          }
        }
      }
      c->labels[(size_t) y * w + x] = best;
    }
  }
  return CC_SUCCESS;
}

static void
cpu_jfa_pass (cc_cvd *c, int k)
{
  const int w = c->mod.width, h = c->mod.height, n = c->n;
  const int32_t *in = c->labels;
  int32_t *out = c->labels_tmp;
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (c->mod.ctx))
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[(size_t) y * w + x] = cc_cvd_jfa_pixel (in, c->sites, n, w, h, x, y, k);
  c->labels_tmp = c->labels;
  c->labels = out;
}

static void
cpu_jfa (cc_cvd *c, cc_cvd_voronoi_method method, int warm)
{
  const int w = c->mod.width, h = c->mod.height;
  size_t np = (size_t) w * h;
  /* warm: over the last labels, else from nothing */
  if (!warm)
    for (size_t i = 0; i < np; i++)
      c->labels[i] = CC_CVD_NONE;
  /* descending ids: the lowest id of a shared pixel writes last */
  for (int i = c->n - 1; i >= 0; i--)
    c->labels[(size_t) cc_cvd_round_px (c->sites[i].y) * w + cc_cvd_round_px (c->sites[i].x)] = i;
  int steps[CC_CVD_JFA_MAX_STEPS];
  int m = cc_cvd_jfa_steps (w, h, method, steps);
  for (int j = warm ? cc_cvd_jfa_warm_first (m) : 0; j < m; j++)
    cpu_jfa_pass (c, steps[j]);
}

static cc_status
run_voronoi (cc_cvd *c, cc_stream stream)
{
  if (is_cuda (c)) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_cvd_voronoi (c->cuda, stream, c->n, c->tuning.voronoi,
                c->params.warm_start, c->device_cold)));
    c->device_cold = 0;
  } else if (c->tuning.voronoi == CC_CVD_VORONOI_EXACT)
    CC_TRY (cpu_exact (c));
  else
    cpu_jfa (c, c->tuning.voronoi, c->warm && c->params.warm_start);
  c->labels_valid = 1;
  return CC_SUCCESS;
}

static cc_status
check_sites (const cc_cvd *c, const char *fn)
{
  CC_CHECK_ARG (c != NULL, "%s: cvd is NULL", fn);
  CC_CHECK_ARG (c->n > 0, "%s: no sites (seed or set them first)", fn);
  return CC_SUCCESS;
}

cc_status
cc_cvd_voronoi (cc_cvd *c, cc_stream stream)
{
  CC_TRY (check_sites (c, "cc_cvd_voronoi"));
  return run_voronoi (c, submit_stream (c, stream));
}

cc_status
cc_cvd_get_labels (cc_cvd *c, int32_t *labels)
{
  CC_CHECK_ARG (c != NULL && labels != NULL, "cc_cvd_get_labels: cvd or labels is NULL");
  CC_CHECK_ARG (c->labels_valid, "cc_cvd_get_labels: no labels for the current sites");
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_get_labels (c->cuda, c->stream, labels));
  memcpy (labels, c->labels, (size_t) c->mod.width * c->mod.height * sizeof *labels);
  return CC_SUCCESS;
}

/* ---------------------------------------------------------------- centroids */

static void
cpu_centroids (cc_cvd *c)
{
  const int w = c->mod.width, h = c->mod.height, n = c->n, bands = c->bands;
#pragma omp parallel for schedule(static, 1) num_threads(bands)
  for (int b = 0; b < bands; b++) {
    cc_cvd_sums *acc = c->sums + (size_t) b * c->cap;
    memset (acc, 0, (size_t) n * sizeof *acc);
    int y0 = (int) ((long long) h * b / bands), y1 = (int) ((long long) h * (b + 1) / bands);
    for (int y = y0; y < y1; y++)
      for (int x = 0; x < w; x++) {
        size_t p = (size_t) y * w + x;
        cc_cvd_sums *a = &acc[c->labels[p]];
        uint64_t r = c->rho[p];
        a->w += r;
        a->x += r * (uint64_t) x;
        a->y += r * (uint64_t) y;
      }
  }
  for (int b = 1; b < bands; b++)
    for (int i = 0; i < n; i++) {
      const cc_cvd_sums *o = c->sums + (size_t) b * c->cap + i;
      c->sums[i].w += o->w;
      c->sums[i].x += o->x;
      c->sums[i].y += o->y;
    }
}

cc_status
cc_cvd_centroid_sums (cc_cvd *c, cc_stream stream, cc_cvd_sums *sums)
{
  CC_TRY (check_sites (c, "cc_cvd_centroid_sums"));
  CC_CHECK_ARG (sums != NULL, "cc_cvd_centroid_sums: sums is NULL");
  stream = submit_stream (c, stream);
  if (!c->labels_valid)
    CC_TRY (run_voronoi (c, stream));
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_centroid_sums (c->cuda, stream, c->n, c->tuning.centroid,
        sums));
  cpu_centroids (c);
  memcpy (sums, c->sums, (size_t) c->n * sizeof *sums);
  return CC_SUCCESS;
}

cc_status
cc_cvd_compute (cc_cvd *c, cc_stream stream, int iterations, double threshold,
    cc_cvd_stats *stats)
{
  CC_TRY (check_sites (c, "cc_cvd_compute"));
  CC_CHECK_ARG (iterations >= 1 && iterations <= 1000,
      "cc_cvd_compute: iterations %d out of range 1..1000", iterations);
  CC_CHECK_ARG (threshold >= 0.0 && threshold <= 1e6,
      "cc_cvd_compute: threshold %g out of range [0, 1e6]", threshold);
  /* the stopping total, in integers, computed once for both backends */
  unsigned long long limit = (unsigned long long) (threshold * CC_CVD_ONE * c->n);
  stream = submit_stream (c, stream);
  if (is_cuda (c)) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_cvd_iterate (c->cuda, stream, c->n, &c->params, &c->tuning,
                iterations, threshold > 0.0 ? limit : 0, c->device_cold, stats)));
    c->device_cold = 0;
    c->labels_valid = 0;
  } else {
    cc_cvd_stats st = { 0, 0, 0, 0.0, 0 };
    for (int it = 0; it < iterations; it++) {
      CC_TRY (run_voronoi (c, stream));
      cpu_centroids (c);
      unsigned long long total = 0;
      unsigned maxd = 0;
      for (int i = 0; i < c->n; i++) {
        unsigned d = cc_cvd_update_site (&c->sites[i], &c->sums[i]);
        total += d;
        maxd = d > maxd ? d : maxd;
      }
      c->warm = maxd <= CC_CVD_WARM_MAX;
      st.iterations++;
      st.displacement = total;
      c->labels_valid = total == 0;
      if (threshold > 0.0 && total <= limit) {
        st.converged = 1;
        break;
      }
    }
    st.warm = c->warm && c->params.warm_start;
    if (stats)
      *stats = st;
  }
  if (stats)
    stats->mean_displacement = (double) stats->displacement / CC_CVD_ONE / c->n;
  return CC_SUCCESS;
}

cc_status
cc_cvd_move_sites (cc_cvd *c, cc_stream stream, const cc_image *flow)
{
  CC_TRY (check_sites (c, "cc_cvd_move_sites"));
  CC_CHECK_ARG (flow != NULL, "cc_cvd_move_sites: flow is NULL");
  CC_TRY (cc_image_check (flow, "cc_cvd_move_sites: flow"));
  CC_CHECK_ARG (flow->format == CC_FORMAT_F32C2, "cc_cvd_move_sites: flow is %s, not F32C2",
      cc_format_name (flow->format));
  CC_CHECK_ARG (flow->width == c->mod.width && flow->height == c->mod.height,
      "cc_cvd_move_sites: flow is %dx%d but cvd was created for %dx%d", flow->width,
      flow->height, c->mod.width, c->mod.height);
  CC_TRY (cc_image_check_location (c->mod.ctx, flow, "cc_cvd_move_sites: flow"));
  stream = submit_stream (c, stream);
  /* the cells of the current sites: each moves by its pixels' mean flow */
  if (!c->labels_valid)
    CC_TRY (run_voronoi (c, stream));
  c->labels_valid = 0;
  forget_warm (c);
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_advect (c->cuda, stream, c->n, flow));
  const int w = c->mod.width, h = c->mod.height, n = c->n;
  memset (c->sums, 0, (size_t) n * sizeof *c->sums);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      long long qu, qv;
      if (!cc_cvd_flow_px (flow, x, y, &qu, &qv))
        continue;
      cc_cvd_sums *a = &c->sums[c->labels[(size_t) y * w + x]];
      a->w++;
      a->x += (uint64_t) qu;
      a->y += (uint64_t) qv;
    }
  for (int i = 0; i < n; i++)
    cc_cvd_move_site (&c->sites[i], &c->sums[i], w, h);
  return CC_SUCCESS;
}

/* ---------------------------------------------------------------- rendering */

/* A plain colour in the frame's channel order. */
static cc_cvd_mean
plain_colour (const cc_image *f, uint8_t r, uint8_t g, uint8_t b)
{
  cc_cvd_mean m;
  memset (&m, 0, sizeof m);
  if (f->format == CC_FORMAT_RGBX8) {
    m.c[0] = r; m.c[1] = g; m.c[2] = b;
  } else if (f->format == CC_FORMAT_BGRX8) {
    m.c[0] = b; m.c[1] = g; m.c[2] = r;
  } else {
    cc_rgb_to_yuv (r, g, b, &m.c[0], &m.c[1], &m.c[2]);
  }
  return m;
}

cc_status
cc_cvd_draw (cc_cvd *c, cc_stream stream, cc_image *f,
    const cc_cvd_draw_params *rp)
{
  CC_TRY (check_sites (c, "cc_cvd_draw"));
  CC_CHECK_ARG (rp != NULL, "cc_cvd_draw: render params is NULL");
  CC_CHECK_ARG ((unsigned) rp->style <= CC_CVD_STYLE_OUTLINE, "cc_cvd_draw: unknown style %d",
      (int) rp->style);
  CC_CHECK_ARG (rp->border_width >= 0 && rp->border_width <= CC_CVD_BORDER_MAX,
      "cc_cvd_draw: border width %d out of range 0..%d", rp->border_width,
      CC_CVD_BORDER_MAX);
  CC_TRY (check_frame (c, f, "cc_cvd_draw: frame", false));
  stream = submit_stream (c, stream);
  if (!c->labels_valid)
    CC_TRY (run_voronoi (c, stream));
  int bw = rp->border_width;
  if (rp->style == CC_CVD_STYLE_OUTLINE && bw < 1)
    bw = 1;
  if (rp->style == CC_CVD_STYLE_STIPPLE)
    bw = 0;
  /* R = 0.5 sqrt (w h / N) px, in 1/256 px, on the host for both backends */
  long long R = (long long) (0.5 * CC_CVD_ONE
      * sqrt ((double) c->mod.width * c->mod.height / c->n));
  cc_cvd_mean colours[2] = { plain_colour (f, rp->r, rp->g, rp->b),
                             plain_colour (f, 255, 255, 255) };
  if (is_cuda (c))
    return CC_CUDA_ONLY (cc_cuda_cvd_render (c->cuda, stream, c->n, f, rp->style, bw, R * R,
        colours));
  const int w = c->mod.width, h = c->mod.height, n = c->n;
  const int yuv = f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
  if (rp->style != CC_CVD_STYLE_OUTLINE) {
    memset (c->colour, 0, (size_t) n * sizeof *c->colour);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        unsigned col[3];
        int chroma;
        cc_cvd_pixel_colour (f, x, y, col, &chroma);
        cc_cvd_colour_acc *a = &c->colour[c->labels[(size_t) y * w + x]];
        a->n++;
        a->c[0] += col[0];
        if (yuv) {
          a->nc += chroma;
          a->c[1] += col[1];
          a->c[2] += col[2];
        } else {
          a->c[1] += col[1];
          a->c[2] += col[2];
        }
      }
    for (int i = 0; i < n; i++)
      cc_cvd_cell_mean (&c->colour[i], f->format == CC_FORMAT_BGRX8, yuv, R * R, &c->means[i]);
  }
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (c->mod.ctx))
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      cc_cvd_draw_pixel (f, c->labels, c->sites, c->means, rp->style, bw, colours, x, y);
  return CC_SUCCESS;
}
