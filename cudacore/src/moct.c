/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MOCT: the API, the classification tables, and the CPU reference.
 *
 * The CPU reference is a plain loop: every pixel's table cell gives an object id,
 * whose 64-bit accumulators take the pixel. Then, per object, cc_moct_finalize
 * (shared with the CUDA backend) makes the record and the trajectory sample, and
 * make_result derives the moments on the host for both backends. */
#include "moct_internal.h"
#include "moct_hostdev.h"

#include <stdlib.h>
#include <string.h>

void
cc_moct_params_default (cc_moct_params *p)
{
  p->space = CC_MOCT_SPACE_RGB;
  p->hue_weight = 2.0f;
  p->history = 64;
  p->min_mass = 16;
  p->window = 0;
  p->size_ratio = 3.0f;
}

int
cc_moct_ratio_fixed (const cc_moct_params *p)
{
  return p->window > 0 && p->size_ratio > 0.0f
      ? (int) (p->size_ratio * CC_MOCT_REF_ONE + 0.5f) : 0;
}

void
cc_moct_tuning_default (cc_moct_tuning *t)
{
  t->layout = CC_MOCT_LAYOUT_ATOMIC;
  t->pixels_per_thread = 8;
  t->narrow_accumulators = 1;
}

cc_status
cc_moct_params_check (const cc_moct_params *p)
{
  CC_CHECK_ARG (p != NULL, "moct: params is NULL");
  CC_CHECK_ARG (p->space == CC_MOCT_SPACE_RGB || p->space == CC_MOCT_SPACE_HSV
      || p->space == CC_MOCT_SPACE_LAB, "moct: unknown colour space %d", (int) p->space);
  CC_CHECK_ARG (p->hue_weight >= 0.0f && p->hue_weight <= 100.0f,
      "moct: hue_weight %g out of range [0, 100]", p->hue_weight);
  CC_CHECK_ARG (p->history >= 2 && p->history <= CC_MOCT_HISTORY_MAX,
      "moct: history %d out of range 2..%d", p->history, CC_MOCT_HISTORY_MAX);
  CC_CHECK_ARG (p->min_mass >= 1, "moct: min_mass %d must be >= 1", p->min_mass);
  CC_CHECK_ARG (p->window >= 0 && p->window <= 4096, "moct: window %d out of range 0..4096",
      p->window);
  CC_CHECK_ARG (p->size_ratio == 0.0f || (p->size_ratio >= 1.0f && p->size_ratio <= 100.0f),
      "moct: size_ratio %g is not 0 or in [1, 100]", p->size_ratio);
  return CC_SUCCESS;
}

struct cc_moct {
  cc_module mod;               /* ctx, frame size (first: module.c) */
  cc_stream stream;            /* the stream of the last submit call (CUDA) */
  cc_moct_params params;
  cc_moct_tuning tuning;       /* cc_tuning.h: defaults unless a bench or test sets it */
  int n;
  cc_moct_object *objects;     /* CC_MOCT_MAX_OBJECTS */
  cc_moct_colour *colours;     /* CC_MOCT_MAX_OBJECTS */
  cc_moct_label *labels;       /* CC_MOCT_MAX_OBJECTS */
  uint16_t *lut_rgb, *lut_yuv; /* CC_MOCT_LUT_SIZE each */
  /* bin centres of the RGB and YUV tables in each space (index: cc_moct_space - 1),
   * computed the first time an object of that space appears */
  float (*cells_rgb[3])[3], (*cells_yuv[3])[3];
  /* scratch of the table build (CC_MOCT_LUT_SIZE each): one space's table and
   * distances, and the new RGB / YUV tables with their distances */
  float *best_d, *lut_dist[2];
  uint16_t *lut_tmp, *lut_new[2];
  long long frames;            /* runs since create / reset */
  /* CPU state */
  int cpu_bands;               /* bands of rows summed in parallel (the context's threads
                                  at create) */
  cc_moct_acc *acc;            /* cpu_bands x CC_MOCT_MAX_OBJECTS; band 0 holds the sums */
  cc_moct_record *records;
  cc_moct_track *tracks;
  cc_moct_sample *rings;       /* history per object */
  /* CUDA */
  cc_cuda_moct *cuda;
  cc_moct_record *host_records;   /* CUDA records downloaded for results */
};

/* ------------------------------------------------------------ colour spaces */

static void
yuv_to_rgb (double y, double u, double v, double rgb[3])
{
  /* the inverse of cc_rgb_to_yuv (BT.601 limited range) */
  double c = (y - 16.0) * 255.0 / 219.0, d = (u - 128.0) * 255.0 / 224.0,
      e = (v - 128.0) * 255.0 / 224.0;
  rgb[0] = c + 1.402 * e;
  rgb[1] = c - 0.344136 * d - 0.714136 * e;
  rgb[2] = c + 1.772 * d;
  for (int i = 0; i < 3; i++)
    rgb[i] = rgb[i] < 0.0 ? 0.0 : (rgb[i] > 255.0 ? 255.0 : rgb[i]);
}

static double
srgb_linear (double c)
{
  c /= 255.0;
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
lab_f (double t)
{
  const double d = 6.0 / 29.0;
  return t > d * d * d ? cbrt (t) : t / (3.0 * d * d) + 4.0 / 29.0;
}

/* RGB (0..255, real) to the chosen space's coordinates; HSV as (h, s, v) in [0, 1]. */
static void
to_space (cc_moct_space space, const double rgb[3], float out[3])
{
  if (space == CC_MOCT_SPACE_RGB) {
    for (int i = 0; i < 3; i++)
      out[i] = (float) rgb[i];
  } else if (space == CC_MOCT_SPACE_HSV) {
    double r = rgb[0] / 255.0, g = rgb[1] / 255.0, b = rgb[2] / 255.0;
    double mx = fmax (r, fmax (g, b)), mn = fmin (r, fmin (g, b)), c = mx - mn, h = 0.0;
    if (c > 0.0) {
      if (mx == r)
        h = fmod ((g - b) / c + 6.0, 6.0);
      else if (mx == g)
        h = (b - r) / c + 2.0;
      else
        h = (r - g) / c + 4.0;
      h /= 6.0;
    }
    out[0] = (float) h;
    out[1] = (float) (mx > 0.0 ? c / mx : 0.0);
    out[2] = (float) mx;
  } else {
    double rl = srgb_linear (rgb[0]), gl = srgb_linear (rgb[1]), bl = srgb_linear (rgb[2]);
    double X = 0.4124564 * rl + 0.3575761 * gl + 0.1804375 * bl;
    double Y = 0.2126729 * rl + 0.7151522 * gl + 0.0721750 * bl;
    double Z = 0.0193339 * rl + 0.1191920 * gl + 0.9503041 * bl;
    double fx = lab_f (X / 0.95047), fy = lab_f (Y / 1.0), fz = lab_f (Z / 1.08883);
    out[0] = (float) (116.0 * fy - 16.0);
    out[1] = (float) (500.0 * (fx - fy));
    out[2] = (float) (200.0 * (fy - fz));
  }
}

/* Squared distance between two colours in the space's units (see cc_moct_space). */
static double
distance2 (cc_moct_space space, float hue_weight, const float a[3], const float b[3])
{
  if (space != CC_MOCT_SPACE_HSV) {
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
  }
  double dh = fabs ((double) a[0] - b[0]);
  dh = 2.0 * (dh < 1.0 - dh ? dh : 1.0 - dh) * hue_weight;
  double ds = (double) a[1] - b[1], dv = (double) a[2] - b[2];
  return 255.0 * 255.0 * (dh * dh + ds * ds + dv * dv);
}

double
cc_moct_colour_distance (cc_moct_space space, float hue_weight, const uint8_t a[3],
    const uint8_t b[3])
{
  if (space < CC_MOCT_SPACE_RGB || space > CC_MOCT_SPACE_LAB)
    return -1.0;
  double ra[3] = { a[0], a[1], a[2] }, rb[3] = { b[0], b[1], b[2] };
  float fa[3], fb[3];
  to_space (space, ra, fa);
  to_space (space, rb, fb);
  return sqrt (distance2 (space, hue_weight, fa, fb));
}

/* Bin centres of every table cell in `space`: computed once, when an object of that
 * space first appears. */
static cc_status
ensure_cells (cc_moct *m, cc_moct_space space)
{
  int k = (int) space - 1;
  if (m->cells_rgb[k])
    return CC_SUCCESS;
  m->cells_rgb[k] = malloc (CC_MOCT_LUT_SIZE * sizeof *m->cells_rgb[k]);
  m->cells_yuv[k] = malloc (CC_MOCT_LUT_SIZE * sizeof *m->cells_yuv[k]);
  if (!m->cells_rgb[k] || !m->cells_yuv[k]) {
    free (m->cells_rgb[k]);
    free (m->cells_yuv[k]);
    m->cells_rgb[k] = m->cells_yuv[k] = NULL;
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_moct_set_objects: out of host memory");
  }
  const int bins = 1 << CC_MOCT_LUT_BITS;
  const double step = 256.0 / bins, half = (step - 1.0) / 2.0;
  for (int i = 0; i < CC_MOCT_LUT_SIZE; i++) {
    double c[3] = { (i >> (2 * CC_MOCT_LUT_BITS)) * step + half,
                    ((i >> CC_MOCT_LUT_BITS) & (bins - 1)) * step + half,
                    (i & (bins - 1)) * step + half };
    to_space (space, c, m->cells_rgb[k][i]);
    double rgb[3];
    yuv_to_rgb (c[0], c[1], c[2], rgb);
    to_space (space, rgb, m->cells_yuv[k][i]);
  }
  return CC_SUCCESS;
}

/* Targets sorted along one coordinate whose difference alone bounds the distance
 * from below (RGB and Lab: the first, HSV: 255 x value), so that a cell only visits
 * the targets within the largest tolerance along it: the build is not cells x
 * objects. */
typedef struct {
  double key;
  int id;
} sorted_target;

static int
key_cmp (const void *a, const void *b)
{
  const sorted_target *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : x->id - y->id;
}

static double
key_of (cc_moct_space space, const float c[3])
{
  return space == CC_MOCT_SPACE_HSV ? 255.0 * c[2] : c[0];
}

/* Nearest target of one space within its tolerance, lowest id on a tie: lut[i] and
 * its squared distance best_d[i] (the n sorted targets are those of `space`). */
static void
build_lut (const cc_moct *m, cc_moct_space space, const float (*cells)[3],
    const float (*targets)[3], const double *tol2, const sorted_target *sorted,
    double max_tol, int n, uint16_t *lut, float *best_dist)
{
  /* a margin against rounding: pruning must never drop a target within tolerance */
  const double reach = max_tol * (1.0 + 1e-6) + 1e-6;
  for (int i = 0; i < CC_MOCT_LUT_SIZE; i++) {
    double v = key_of (space, cells[i]);
    int lo = 0, hi = n;   /* first sorted target with key >= v - reach */
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (sorted[mid].key < v - reach)
        lo = mid + 1;
      else
        hi = mid;
    }
    int best = CC_MOCT_NONE;
    double best_d = 0.0;
    for (int j = lo; j < n && sorted[j].key <= v + reach; j++) {
      int k = sorted[j].id;
      double d = distance2 (space, m->params.hue_weight, cells[i], targets[k]);
      if (d <= tol2[k] && (best == CC_MOCT_NONE || d < best_d || (d == best_d && k < best))) {
        best = k;
        best_d = d;
      }
    }
    lut[i] = (uint16_t) best;
    best_dist[i] = (float) best_d;
  }
}

/* ------------------------------------------------------------------ API */

/* The object tables, the colour tables and their build scratch, the per-object
 * records and, per backend, the accumulators and histories. */
static cc_status
moct_alloc (cc_module *mod)
{
  cc_moct *m = (cc_moct *) mod;
  const size_t N = CC_MOCT_MAX_OBJECTS;
  bool ok = (m->objects = calloc (N, sizeof *m->objects)) != NULL;
  ok &= (m->colours = calloc (N, sizeof *m->colours)) != NULL;
  ok &= (m->labels = calloc (N, sizeof *m->labels)) != NULL;
  ok &= (m->lut_rgb = malloc (CC_MOCT_LUT_SIZE * sizeof (uint16_t))) != NULL;
  ok &= (m->lut_yuv = malloc (CC_MOCT_LUT_SIZE * sizeof (uint16_t))) != NULL;
  ok &= (m->best_d = malloc (CC_MOCT_LUT_SIZE * sizeof *m->best_d)) != NULL;
  ok &= (m->lut_tmp = malloc (CC_MOCT_LUT_SIZE * sizeof *m->lut_tmp)) != NULL;
  for (int t = 0; t < 2; t++) {
    ok &= (m->lut_dist[t] = malloc (CC_MOCT_LUT_SIZE * sizeof (float))) != NULL;
    ok &= (m->lut_new[t] = malloc (CC_MOCT_LUT_SIZE * sizeof (uint16_t))) != NULL;
  }
  ok &= (m->records = calloc (N, sizeof *m->records)) != NULL;
  if (mod->ctx->backend == CC_BACKEND_CUDA) {
    ok &= (m->host_records = calloc (N, sizeof *m->host_records)) != NULL;
  } else {
    /* one set of accumulators per band of rows, a band per CPU thread (at most one
     * per row) */
    m->cpu_bands = cc_context_cpu_threads (mod->ctx);
    if (m->cpu_bands > mod->height)
      m->cpu_bands = mod->height;
    if (m->cpu_bands > 256)   /* 16 MB of accumulators at most */
      m->cpu_bands = 256;
    if (m->cpu_bands < 1)
      m->cpu_bands = 1;
    ok &= (m->acc = calloc (N * m->cpu_bands, sizeof *m->acc)) != NULL;
    ok &= (m->tracks = calloc (N, sizeof *m->tracks)) != NULL;
    ok &= (m->rings = calloc (N * m->params.history, sizeof *m->rings)) != NULL;
  }
  if (!ok)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_moct_create: out of host memory");
  if (mod->ctx->backend == CC_BACKEND_CUDA)
    CC_TRY (CC_CUDA_ONLY (cc_cuda_moct_create (mod->ctx, mod->width, mod->height,
            m->params.history, &m->cuda)));
  memset (m->lut_rgb, 0xFF, CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  memset (m->lut_yuv, 0xFF, CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  return CC_SUCCESS;
}

static void
moct_release (cc_module *mod)
{
  cc_moct *m = (cc_moct *) mod;
#if CC_HAVE_CUDA
  if (m->cuda)
    cc_cuda_moct_destroy (m->cuda);
#endif
  free (m->objects); free (m->colours); free (m->labels); free (m->lut_rgb); free (m->lut_yuv);
  for (int k = 0; k < 3; k++) {
    free (m->cells_rgb[k]);
    free (m->cells_yuv[k]);
  }
  free (m->best_d); free (m->lut_tmp);
  for (int t = 0; t < 2; t++) {
    free (m->lut_dist[t]);
    free (m->lut_new[t]);
  }
  free (m->acc); free (m->records);
  free (m->tracks); free (m->rings); free (m->host_records);
}

/* The params are fixed at create (there is no cc_moct_set_params). */
CC_MODULE_CLASS (moct_class, cc_moct, cc_moct_params, cc_moct, NULL, moct_alloc,
    moct_release);

cc_status
cc_moct_create (cc_context *ctx, int width, int height, const cc_moct_params *params,
    cc_moct **out)
{
  cc_module *mod = NULL;
  CC_TRY (cc_module_create (&moct_class, ctx, width, height, params, out ? &mod : NULL));
  cc_moct *m = (cc_moct *) mod;
  m->stream = ctx->stream;
  cc_moct_tuning_default (&m->tuning);
  *out = m;
  return CC_SUCCESS;
}

void
cc_moct_destroy (cc_moct *m)
{
  cc_module_destroy ((cc_module *) m);
}

cc_status
cc_moct_set_tuning (cc_moct *m, const cc_moct_tuning *t)
{
  CC_CHECK_ARG (m != NULL && t != NULL, "cc_moct_set_tuning: moct or tuning is NULL");
  CC_CHECK_ARG (t->layout == CC_MOCT_LAYOUT_ATOMIC || t->layout == CC_MOCT_LAYOUT_PARTIALS,
      "moct: unknown layout %d", (int) t->layout);
  CC_CHECK_ARG (t->pixels_per_thread == 4 || t->pixels_per_thread == 8
      || t->pixels_per_thread == 16, "moct: pixels_per_thread %d must be 4, 8 or 16",
      t->pixels_per_thread);
  CC_CHECK_ARG (t->narrow_accumulators == 0 || t->narrow_accumulators == 1,
      "moct: narrow_accumulators %d is not 0 or 1", t->narrow_accumulators);
  m->tuning = *t;
  return CC_SUCCESS;
}

void
cc_moct_get_params (const cc_moct *m, cc_moct_params *params)
{
  *params = m->params;
}

int
cc_moct_object_count (const cc_moct *m)
{
  return m ? m->n : 0;
}

static int
name_cmp (const void *a, const void *b)
{
  const cc_moct_object *x = *(const cc_moct_object *const *) a;
  const cc_moct_object *y = *(const cc_moct_object *const *) b;
  return strcmp (x->name, y->name);
}

static cc_status
check_objects (const cc_moct_object *o, int n)
{
  CC_CHECK_ARG (n >= 0 && n <= CC_MOCT_MAX_OBJECTS,
      "cc_moct_set_objects: %d objects, out of range 0..%d", n, CC_MOCT_MAX_OBJECTS);
  CC_CHECK_ARG (o != NULL || n == 0, "cc_moct_set_objects: objects is NULL");
  for (int i = 0; i < n; i++) {
    size_t len = strnlen (o[i].name, CC_MOCT_NAME_MAX);
    CC_CHECK_ARG (len > 0, "cc_moct_set_objects: object %d has an empty name", i);
    CC_CHECK_ARG (len < CC_MOCT_NAME_MAX,
        "cc_moct_set_objects: object %d: name is not NUL-terminated within %d bytes", i,
        CC_MOCT_NAME_MAX);
    CC_CHECK_ARG (o[i].tolerance > 0.0f, "cc_moct_set_objects: object %d (\"%s\"): "
        "tolerance %g must be > 0", i, o[i].name, o[i].tolerance);
    CC_CHECK_ARG (o[i].space >= CC_MOCT_SPACE_PARAMS && o[i].space <= CC_MOCT_SPACE_LAB,
        "cc_moct_set_objects: object %d (\"%s\"): unknown colour space %d", i, o[i].name,
        (int) o[i].space);
  }
  /* names unique: sort indices by name (n log n even at 1024 objects) */
  if (n > 1) {
    const cc_moct_object **sorted = malloc (n * sizeof *sorted);
    if (!sorted)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_moct_set_objects: out of host memory");
    for (int i = 0; i < n; i++)
      sorted[i] = &o[i];
    qsort (sorted, n, sizeof *sorted, name_cmp);
    for (int i = 1; i < n; i++)
      if (!strcmp (sorted[i - 1]->name, sorted[i]->name)) {
        int a = (int) (sorted[i - 1] - o), b = (int) (sorted[i] - o);
        free (sorted);
        return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cc_moct_set_objects: objects %d "
            "and %d have the same name \"%s\"", a < b ? a : b, a < b ? b : a, o[a].name);
      }
    free (sorted);
  }
  return CC_SUCCESS;
}

cc_status
cc_moct_set_objects (cc_moct *m, const cc_moct_object *objects, int n)
{
  CC_CHECK_ARG (m != NULL, "cc_moct_set_objects: m is NULL");
  CC_TRY (check_objects (objects, n));
  float (*targets)[3] = malloc ((n ? n : 1) * sizeof *targets);
  double *tol2 = malloc ((n ? n : 1) * sizeof *tol2);
  sorted_target *sorted = malloc ((n ? n : 1) * sizeof *sorted);
  if (!targets || !tol2 || !sorted) {
    free (targets);
    free (tol2);
    free (sorted);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_moct_set_objects: out of host memory");
  }
  /* each object in its own space; one pruned build per space in use, then the
   * nearest over the spaces (each distance in its object's space) */
  cc_moct_space spaces[CC_MOCT_MAX_OBJECTS];
  for (int i = 0; i < n; i++) {
    spaces[i] = objects[i].space == CC_MOCT_SPACE_PARAMS ? m->params.space : objects[i].space;
    double rgb[3] = { objects[i].r, objects[i].g, objects[i].b };
    to_space (spaces[i], rgb, targets[i]);
    tol2[i] = (double) objects[i].tolerance * objects[i].tolerance;
  }
  memset (m->lut_new[0], 0xFF, CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  memset (m->lut_new[1], 0xFF, CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  cc_status st = CC_SUCCESS;
  for (cc_moct_space sp = CC_MOCT_SPACE_RGB; sp <= CC_MOCT_SPACE_LAB && st == CC_SUCCESS;
       sp++) {
    int count = 0;
    double max_tol = 0.0;
    for (int i = 0; i < n; i++)
      if (spaces[i] == sp) {
        sorted[count].key = key_of (sp, targets[i]);
        sorted[count++].id = i;
        max_tol = fmax (max_tol, objects[i].tolerance);
      }
    if (count == 0 || (st = ensure_cells (m, sp)) != CC_SUCCESS)
      continue;
    qsort (sorted, count, sizeof *sorted, key_cmp);
    for (int table = 0; table < 2; table++) {
      uint16_t *lut = m->lut_new[table];
      build_lut (m, sp, (const float (*)[3]) (table ? m->cells_yuv : m->cells_rgb)[sp - 1],
          (const float (*)[3]) targets, tol2, sorted, max_tol, count, m->lut_tmp, m->best_d);
      /* the first space in use fills the table; later ones take a cell when nearer.
       * One space alone: exactly its own build. */
      for (int i = 0; i < CC_MOCT_LUT_SIZE; i++) {
        uint16_t id = m->lut_tmp[i];
        if (id == CC_MOCT_NONE)
          continue;
        if (lut[i] == CC_MOCT_NONE) {
          lut[i] = id;
          m->lut_dist[table][i] = m->best_d[i];
        } else if (m->best_d[i] < m->lut_dist[table][i]
            || (m->best_d[i] == m->lut_dist[table][i] && id < lut[i])) {
          lut[i] = id;
          m->lut_dist[table][i] = m->best_d[i];
        }
      }
    }
  }
  /* the last call's stream may still read the tables: wait before replacing them */
  if (st == CC_SUCCESS && m->mod.ctx->backend == CC_BACKEND_CUDA)
    st = CC_CUDA_ONLY (cc_cuda_stream_synchronize (m->stream));
  if (st != CC_SUCCESS) {   /* the previous tables stay */
    free (targets);
    free (tol2);
    free (sorted);
    return st;
  }
  memcpy (m->lut_rgb, m->lut_new[0], CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  memcpy (m->lut_yuv, m->lut_new[1], CC_MOCT_LUT_SIZE * sizeof (uint16_t));
  free (targets);
  free (tol2);
  free (sorted);
  if (n > 0)   /* an empty table may come as NULL: memcpy's pointers must be valid */
    memcpy (m->objects, objects, n * sizeof *objects);
  for (int i = 0; i < n; i++) {
    cc_moct_colour *c = &m->colours[i];
    c->r = objects[i].r;
    c->g = objects[i].g;
    c->b = objects[i].b;
    cc_rgb_to_yuv (c->r, c->g, c->b, &c->y, &c->u, &c->v);
    memcpy (m->labels[i].text, objects[i].name, CC_MOCT_NAME_MAX);
    m->labels[i].len = (int) strlen (objects[i].name);
  }
  m->n = n;
  if (m->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_moct_set_objects (m->cuda, m->lut_rgb, m->lut_yuv,
            m->colours, m->labels, n));
  return CC_SUCCESS;
}

int
cc_moct_classify (const cc_moct *m, bool yuv, uint8_t c0, uint8_t c1, uint8_t c2)
{
  int id = (yuv ? m->lut_yuv : m->lut_rgb)[cc_moct_lut_index (c0, c1, c2)];
  return id < m->n ? id : -1;
}

static cc_status
check_frame (const cc_moct *m, const cc_image *f, const char *what)
{
  CC_CHECK_ARG (f != NULL, "%s is NULL", what);
  CC_TRY (cc_image_check (f, what));
  if (f->format == CC_FORMAT_GRAY8)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s: GRAY8 has no colour to track", what);
  CC_CHECK_ARG (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8
      || f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420,
      "%s: format %s is not a video frame format", what, cc_format_name (f->format));
  CC_CHECK_ARG (f->width == m->mod.width && f->height == m->mod.height,
      "%s: frame is %dx%d but moct was created for %dx%d", what, f->width, f->height,
      m->mod.width, m->mod.height);
  CC_TRY (cc_image_check_location (m->mod.ctx, f, what));
  return CC_SUCCESS;
}

static bool
is_yuv (const cc_image *f)
{
  return f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
}

/* The host result of one record (both backends). */
static void
make_result (int id, const cc_moct_record *rec, cc_moct_result *r)
{
  const cc_moct_acc *a = &rec->acc;
  memset (r, 0, sizeof *r);
  r->id = id;
  r->x1 = r->y1 = -1;
  if (a->n == 0)
    return;
  long long n = (long long) a->n;
  r->present = rec->present;
  r->velocity_valid = rec->velocity_valid;
  r->lost = rec->lost;
  r->mass = n;
  r->sum_x = (int64_t) a->sx;
  r->sum_y = (int64_t) a->sy;
  r->sum_xx = (int64_t) a->sxx;
  r->sum_yy = (int64_t) a->syy;
  r->sum_xy = (int64_t) a->sxy;
  r->cx = (double) a->sx / (double) n;
  r->cy = (double) a->sy / (double) n;
  r->x0 = a->minx;
  r->y0 = a->miny;
  r->x1 = a->maxx;
  r->y1 = a->maxy;
  /* n^2 mu = n sum x^2 - (sum x)^2, exact in 128-bit integers */
  __int128 nn = n;
  double n2 = (double) n * (double) n;
  r->mu20 = (double) (nn * (__int128) a->sxx - (__int128) a->sx * a->sx) / n2;
  r->mu02 = (double) (nn * (__int128) a->syy - (__int128) a->sy * a->sy) / n2;
  r->mu11 = (double) (nn * (__int128) a->sxy - (__int128) a->sx * a->sy) / n2;
  r->orientation = 0.5 * atan2 (2.0 * r->mu11, r->mu20 - r->mu02);
  double half_trace = 0.5 * (r->mu20 + r->mu02), d = 0.5 * (r->mu20 - r->mu02);
  double root = sqrt (d * d + r->mu11 * r->mu11);
  double l1 = half_trace + root, l2 = half_trace - root;
  r->major_axis = 2.0 * sqrt (l1 > 0.0 ? l1 : 0.0);
  r->minor_axis = 2.0 * sqrt (l2 > 0.0 ? l2 : 0.0);
  r->vx = rec->vx;
  r->vy = rec->vy;
}

static void
cpu_run (cc_moct *m, const cc_image *f)
{
  const uint16_t *lut = is_yuv (f) ? m->lut_yuv : m->lut_rgb;
  const int n = m->n, bands = m->cpu_bands, window = m->params.window > 0;
  /* each band of rows sums into its own accumulators; the bands then add up in
   * order. Integer sums, minima and maxima: any split gives the same result. */
#pragma omp parallel for schedule(static, 1) num_threads(bands)
  for (int b = 0; b < bands; b++) {
    cc_moct_acc *acc = &m->acc[(size_t) b * CC_MOCT_MAX_OBJECTS];
    for (int i = 0; i < n; i++)
      cc_moct_acc_clear (&acc[i]);
    int y0 = (int) ((long long) m->mod.height * b / bands);
    int y1 = (int) ((long long) m->mod.height * (b + 1) / bands);
    for (int y = y0; y < y1; y++)
      for (int x = 0; x < m->mod.width; x++) {
        int id = lut[cc_moct_pixel_cell (f, x, y)];
        if (id >= n || (window && !cc_moct_in_window (&m->tracks[id], x, y)))
          continue;
        cc_moct_acc *a = &acc[id];
        a->n++;
        a->sx += (unsigned) x;
        a->sy += (unsigned) y;
        a->sxx += (unsigned long long) x * x;
        a->syy += (unsigned long long) y * y;
        a->sxy += (unsigned long long) x * y;
        if (x < a->minx) a->minx = x;
        if (x > a->maxx) a->maxx = x;
        if (y < a->miny) a->miny = y;
        if (y > a->maxy) a->maxy = y;
      }
  }
  for (int b = 1; b < bands; b++)
    for (int i = 0; i < n; i++) {
      cc_moct_acc *a = &m->acc[i];
      const cc_moct_acc *o = &m->acc[(size_t) b * CC_MOCT_MAX_OBJECTS + i];
      a->n += o->n;
      a->sx += o->sx;
      a->sy += o->sy;
      a->sxx += o->sxx;
      a->syy += o->syy;
      a->sxy += o->sxy;
      if (o->minx < a->minx) a->minx = o->minx;
      if (o->maxx > a->maxx) a->maxx = o->maxx;
      if (o->miny < a->miny) a->miny = o->miny;
      if (o->maxy > a->maxy) a->maxy = o->maxy;
    }
  int T = m->params.history;
  for (int i = 0; i < m->n; i++)
    cc_moct_finalize (&m->acc[i], m->frames, m->params.min_mass, m->params.window,
        cc_moct_ratio_fixed (&m->params), m->mod.width, m->mod.height, &m->tracks[i],
        &m->records[i], &m->rings[(size_t) i * T + m->frames % T]);
}

cc_status
cc_moct_compute (cc_moct *m, cc_stream stream, const cc_image *frame,
    cc_moct_result *results)
{
  CC_CHECK_ARG (m != NULL, "cc_moct_compute: m is NULL");
  stream = m->stream = cc_stream_resolve (m->mod.ctx, stream);
  CC_TRY (check_frame (m, frame, "cc_moct_compute: frame"));
  const cc_moct_record *recs = m->records;
  if (m->mod.ctx->backend == CC_BACKEND_CUDA) {
    CC_TRY (CC_CUDA_ONLY (cc_cuda_moct_compute (m->cuda, stream, &m->params, &m->tuning, frame,
                m->frames, results ? m->host_records : NULL)));
    recs = m->host_records;
  } else {
    cpu_run (m, frame);
  }
  m->frames++;
  if (results)
    for (int i = 0; i < m->n; i++)
      make_result (i, &recs[i], &results[i]);
  return CC_SUCCESS;
}

cc_status
cc_moct_get_trajectory (cc_moct *m, int object, cc_moct_sample *out, int max, int *n)
{
  CC_CHECK_ARG (m != NULL && out != NULL && n != NULL,
      "cc_moct_get_trajectory: m, out or n is NULL");
  *n = 0;
  CC_CHECK_ARG (object >= 0 && object < m->n,
      "cc_moct_get_trajectory: object %d out of range 0..%d", object, m->n - 1);
  CC_CHECK_ARG (max >= 0, "cc_moct_get_trajectory: max %d < 0", max);
  const int T = m->params.history;
  const cc_moct_sample *ring;
  cc_moct_sample *tmp = NULL;
  if (m->mod.ctx->backend == CC_BACKEND_CUDA) {
    tmp = malloc (T * sizeof *tmp);
    if (!tmp)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_moct_get_trajectory: out of memory");
    cc_status st = CC_CUDA_ONLY (cc_cuda_moct_get_ring (m->cuda, object, tmp));
    if (st != CC_SUCCESS) {
      free (tmp);
      return st;
    }
    ring = tmp;
  } else {
    ring = m->rings + (size_t) object * T;
  }
  long long count = m->frames < T ? m->frames : T;
  if (count > max)
    count = max;
  /* the last `count` samples, oldest first */
  for (long long k = 0; k < count; k++)
    out[k] = ring[(m->frames - count + k) % T];
  *n = (int) count;
  free (tmp);
  return CC_SUCCESS;
}

cc_status
cc_moct_reset (cc_moct *m, cc_stream stream)
{
  CC_CHECK_ARG (m != NULL, "cc_moct_reset: m is NULL");
  stream = m->stream = cc_stream_resolve (m->mod.ctx, stream);
  m->frames = 0;
  if (m->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_moct_reset (m->cuda, stream));
  memset (m->tracks, 0, CC_MOCT_MAX_OBJECTS * sizeof *m->tracks);
  memset (m->rings, 0, (size_t) CC_MOCT_MAX_OBJECTS * m->params.history * sizeof *m->rings);
  memset (m->records, 0, CC_MOCT_MAX_OBJECTS * sizeof *m->records);
  return CC_SUCCESS;
}

cc_status
cc_moct_seed (cc_moct *m, cc_stream stream, int object, int x, int y)
{
  CC_CHECK_ARG (m != NULL, "cc_moct_seed: m is NULL");
  stream = m->stream = cc_stream_resolve (m->mod.ctx, stream);
  CC_CHECK_ARG (object >= 0 && object < m->n, "cc_moct_seed: object %d out of range 0..%d",
      object, m->n - 1);
  CC_CHECK_ARG (m->params.window > 0, "cc_moct_seed: the tracker has no search window "
      "(params.window is 0)");
  cc_moct_track t = { 0 };
  cc_moct_set_window (&t, x < 0 ? 0 : x, y < 0 ? 0 : y, m->params.window, m->mod.width, m->mod.height);
  if (m->mod.ctx->backend == CC_BACKEND_CUDA) {
    const int w[5] = { t.win, t.wx0, t.wy0, t.wx1, t.wy1 };
    return CC_CUDA_ONLY (cc_cuda_moct_seed (m->cuda, stream, object, w));
  }
  cc_moct_track *dst = &m->tracks[object];
  dst->win = t.win;
  dst->wx0 = t.wx0;
  dst->wy0 = t.wy0;
  dst->wx1 = t.wx1;
  dst->wy1 = t.wy1;
  return CC_SUCCESS;
}

/* LABELS of one object: its glyph pixels, clipped to the frame. */
static void
draw_label (const cc_moct *m, cc_image *frame, int id)
{
  int ox, oy;
  if (!cc_moct_label_origin (m->frames, &m->records[id], &ox, &oy))
    return;
  const cc_moct_label *l = &m->labels[id];
  int w = cc_text_width (l->len);
  for (int ty = oy < 0 ? -oy : 0; ty < CC_TEXT_HEIGHT && oy + ty < m->mod.height; ty++)
    for (int tx = ox < 0 ? -ox : 0; tx < w && ox + tx < m->mod.width; tx++)
      if (cc_text_pixel (l->text, l->len, tx, ty))
        cc_moct_put (frame, ox + tx, oy + ty, &m->colours[id]);
}

static const cc_moct_colour moct_white = { 255, 255, 255, 235, 128, 128, { 0, 0 } };

cc_status
cc_moct_draw (cc_moct *m, cc_stream stream, cc_image *frame, unsigned flags)
{
  CC_CHECK_ARG (m != NULL, "cc_moct_draw: m is NULL");
  stream = m->stream = cc_stream_resolve (m->mod.ctx, stream);
  CC_TRY (check_frame (m, frame, "cc_moct_draw: frame"));
  CC_CHECK_ARG ((flags & ~CC_MOCT_DRAW_ALL) == 0, "cc_moct_draw: unknown flags 0x%x", flags);
  if (m->mod.ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_moct_draw (m->cuda, stream, frame, flags, m->frames, &moct_white));
  if (flags & CC_MOCT_DRAW_MASK) {
    if (is_yuv (frame)) {
      for (int by = 0; by < (m->mod.height + 1) / 2; by++)
        for (int bx = 0; bx < (m->mod.width + 1) / 2; bx++)
          cc_moct_mask_block (frame, bx, by, m->lut_yuv, m->colours, m->n);
    } else {
      for (int y = 0; y < m->mod.height; y++)
        for (int x = 0; x < m->mod.width; x++)
          cc_moct_mask_pixel (frame, x, y, m->lut_rgb, m->colours, m->n);
    }
  }
  /* lines in key order (layer, id): a later line covers an earlier one */
  const int T = m->params.history, P = cc_moct_primitive_count (T);
  for (int layer = 0; layer < 3; layer++)
    for (int id = 0; id < m->n; id++)
      for (int k = 0; k < P; k++) {
        int x0, y0, x1, y1, l;
        if (!cc_moct_primitive (k, T, m->frames, m->rings + (size_t) id * T, &m->records[id],
                flags, &x0, &y0, &x1, &y1, &l) || l != layer)
          continue;
        const cc_moct_colour *c = l == 2 ? &moct_white : &m->colours[id];
        int np = cc_moct_line_points (x0, y0, x1, y1);
        for (int i = 0; i < np; i++) {
          int x, y;
          cc_moct_line_point (x0, y0, x1, y1, i, &x, &y);
          if (x >= 0 && y >= 0 && x < m->mod.width && y < m->mod.height)
            cc_moct_put (frame, x, y, c);
        }
      }
  if (flags & CC_MOCT_DRAW_LABELS)
    for (int id = 0; id < m->n; id++)
      draw_label (m, frame, id);
  return CC_SUCCESS;
}
