/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Synthetic large-motion pairs (cv_pairs.h). */
#include "cv_pairs.h"
#include "cv_imageio.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAYERS 5
#define MAX_VERTICES 8

/* splitmix64: the generator's only randomness, from the seed. */
static uint64_t
next_u64 (uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double
uniform (uint64_t *s, double lo, double hi)
{
  return lo + (hi - lo) * (double) (next_u64 (s) >> 11) / 9007199254740992.0;
}

/* Affine map p = A q + t (layer coordinates q -> image p). */
typedef struct {
  double a, b, c, d, tx, ty;
} affine;

static void
affine_apply (const affine *m, double x, double y, double *ox, double *oy)
{
  *ox = m->a * x + m->b * y + m->tx;
  *oy = m->c * x + m->d * y + m->ty;
}

static affine
affine_inverse (const affine *m)
{
  double det = m->a * m->d - m->b * m->c;
  affine r = { m->d / det, -m->b / det, -m->c / det, m->a / det, 0, 0 };
  r.tx = -(r.a * m->tx + r.b * m->ty);
  r.ty = -(r.c * m->tx + r.d * m->ty);
  return r;
}

/* m2 after m1 */
static affine
affine_compose (const affine *m2, const affine *m1)
{
  affine r = { m2->a * m1->a + m2->b * m1->c, m2->a * m1->b + m2->b * m1->d,
               m2->c * m1->a + m2->d * m1->c, m2->c * m1->b + m2->d * m1->d, 0, 0 };
  r.tx = m2->a * m1->tx + m2->b * m1->ty + m2->tx;
  r.ty = m2->c * m1->tx + m2->d * m1->ty + m2->ty;
  return r;
}

/* Rotation by angle and scale about (cx, cy), then translation (dx, dy). */
static affine
affine_motion (double cx, double cy, double angle, double scale, double dx, double dy)
{
  double co = scale * cos (angle), si = scale * sin (angle);
  affine r = { co, -si, si, co, 0, 0 };
  r.tx = cx - (co * cx - si * cy) + dx;
  r.ty = cy - (si * cx + co * cy) + dy;
  return r;
}

typedef struct {
  int shape;                  /* 0 background (everywhere), 1 ellipse, 2 star polygon */
  double ea, eb;              /* ellipse semi-axes (layer coordinates) */
  int nv;
  double vx[MAX_VERTICES], vy[MAX_VERTICES];
  affine place[2];            /* layer -> image at frame 1 and 2 */
  affine inv[2];
  int texture;                /* index, -1: procedural */
  unsigned noise_seed;
  double tex_ox, tex_oy, tex_scale;
} layer;

static int
layer_holds (const layer *L, double x, double y)
{
  if (L->shape == 0)
    return 1;
  if (L->shape == 1)
    return (x * x) / (L->ea * L->ea) + (y * y) / (L->eb * L->eb) <= 1.0;
  int inside = 0;   /* crossing number */
  for (int i = 0, j = L->nv - 1; i < L->nv; j = i++)
    if ((L->vy[i] > y) != (L->vy[j] > y)
        && x < (L->vx[j] - L->vx[i]) * (y - L->vy[i]) / (L->vy[j] - L->vy[i]) + L->vx[i])
      inside = !inside;
  return inside;
}

/* Value noise: hashed lattice values, smoothstep-interpolated. */
static double
lattice (int x, int y, unsigned seed)
{
  uint64_t s = ((uint64_t) (uint32_t) x << 32 | (uint32_t) y) ^ ((uint64_t) seed * 0xD1B54A32D192ED03ull);
  return (double) (next_u64 (&s) >> 11) / 9007199254740992.0;
}

static double
value_noise (double x, double y, double period, unsigned seed)
{
  x /= period;
  y /= period;
  double fx = floor (x), fy = floor (y);
  int ix = (int) fx, iy = (int) fy;
  double tx = x - fx, ty = y - fy;
  tx = tx * tx * (3 - 2 * tx);
  ty = ty * ty * (3 - 2 * ty);
  double v00 = lattice (ix, iy, seed), v10 = lattice (ix + 1, iy, seed);
  double v01 = lattice (ix, iy + 1, seed), v11 = lattice (ix + 1, iy + 1, seed);
  return (v00 + tx * (v10 - v00)) * (1 - ty) + (v01 + tx * (v11 - v01)) * ty;
}

/* Procedural colour texture in [0, 255]: octaves of 48 .. 1.5 px. */
static void
procedural (double x, double y, unsigned seed, double rgb[3])
{
  static const double periods[] = { 48, 24, 12, 6, 3, 1.5 };
  static const double amps[] = { 0.25, 0.20, 0.18, 0.15, 0.12, 0.10 };
  for (int c = 0; c < 3; c++) {
    double v = 0;
    for (int o = 0; o < 6; o++)
      v += amps[o] * value_noise (x, y, periods[o], seed * 7 + c * 101 + o * 13);
    rgb[c] = 255.0 * fmin (1.0, fmax (0.0, 1.6 * (v - 0.5) + 0.5));
  }
}

/* Mirrored repeat of coordinate v into [0, n - 1]. */
static double
mirror (double v, int n)
{
  double period = 2.0 * (n - 1);
  if (period <= 0)
    return 0;
  v = fmod (v, period);
  if (v < 0)
    v += period;
  return v > n - 1 ? period - v : v;
}

static void
texture_sample (const layer *L, const cc_image *tex, double x, double y, double rgb[3])
{
  double u = x * L->tex_scale + L->tex_ox, v = y * L->tex_scale + L->tex_oy;
  if (!tex) {
    procedural (u, v, L->noise_seed, rgb);
    return;
  }
  u = mirror (u, tex->width);
  v = mirror (v, tex->height);
  int x0 = (int) u, y0 = (int) v;
  int x1 = x0 + 1 < tex->width ? x0 + 1 : x0, y1 = y0 + 1 < tex->height ? y0 + 1 : y0;
  double fx = u - x0, fy = v - y0;
  const uint8_t *r0 = (const uint8_t *) tex->planes[0] + (size_t) y0 * tex->pitch[0];
  const uint8_t *r1 = (const uint8_t *) tex->planes[0] + (size_t) y1 * tex->pitch[0];
  for (int c = 0; c < 3; c++) {
    double top = r0[4 * x0 + c] + fx * (r0[4 * x1 + c] - r0[4 * x0 + c]);
    double bot = r1[4 * x0 + c] + fx * (r1[4 * x1 + c] - r1[4 * x0 + c]);
    rgb[c] = top + fy * (bot - top);
  }
}

/* The front-most layer at image point (x, y) of frame t and its layer coordinates. */
static int
owner_at (const layer *layers, int n, int t, double x, double y, double *lx, double *ly)
{
  *lx = x;
  *ly = y;
  for (int k = n - 1; k >= 0; k--) {
    affine_apply (&layers[k].inv[t], x, y, lx, ly);
    if (layer_holds (&layers[k], *lx, *ly))
      return k;
  }
  affine_apply (&layers[0].inv[t], x, y, lx, ly);
  return 0;
}

static void
make_layers (const cv_pair_params *p, int ntex, layer *layers, int *count)
{
  uint64_t s = 0x5EEDull ^ ((uint64_t) p->seed * 0x9E3779B97F4A7C15ull);
  next_u64 (&s);
  const double w = p->width, h = p->height, side = w < h ? w : h, M = p->max_motion;
  int n = 1 + 2 + (int) (next_u64 (&s) % 3);   /* background + 2..4 */
  for (int k = 0; k < n; k++) {
    layer *L = &layers[k];
    memset (L, 0, sizeof *L);
    L->texture = ntex > 0 ? (int) (next_u64 (&s) % (uint64_t) ntex) : -1;
    L->noise_seed = (unsigned) (next_u64 (&s) & 0xFFFFFF);
    L->tex_scale = uniform (&s, 0.6, 1.4);
    L->tex_ox = uniform (&s, 0, 1000);
    L->tex_oy = uniform (&s, 0, 1000);
    double cx, cy, angle, scale, mr, ma;
    if (k == 0) {
      L->shape = 0;
      cx = w / 2;
      cy = h / 2;
      L->place[0] = affine_motion (0, 0, 0, 1, 0, 0);
      angle = uniform (&s, -2, 2) * M_PI / 180;
      scale = uniform (&s, 0.97, 1.03);
      mr = uniform (&s, 0, M / 3);
    } else {
      cx = uniform (&s, 0.1 * w, 0.9 * w);
      cy = uniform (&s, 0.1 * h, 0.9 * h);
      double size = uniform (&s, 0.12, 0.3) * side;
      if (next_u64 (&s) & 1) {
        L->shape = 1;
        L->ea = size;
        L->eb = size * uniform (&s, 0.5, 1.0);
      } else {
        L->shape = 2;
        L->nv = 3 + (int) (next_u64 (&s) % (MAX_VERTICES - 2));
        for (int v = 0; v < L->nv; v++) {
          double a = 2 * M_PI * (v + uniform (&s, -0.3, 0.3)) / L->nv;
          double r = size * uniform (&s, 0.5, 1.0);
          L->vx[v] = r * cos (a);
          L->vy[v] = r * sin (a);
        }
      }
      L->place[0] = affine_motion (0, 0, uniform (&s, 0, 2 * M_PI), 1, cx, cy);
      angle = uniform (&s, -10, 10) * M_PI / 180;
      scale = uniform (&s, 0.9, 1.1);
      mr = M * sqrt (uniform (&s, 0, 1));   /* uniform in the disc */
    }
    ma = uniform (&s, 0, 2 * M_PI);
    affine motion = affine_motion (cx, cy, angle, scale, mr * cos (ma), mr * sin (ma));
    L->place[1] = affine_compose (&motion, &L->place[0]);
    L->inv[0] = affine_inverse (&L->place[0]);
    L->inv[1] = affine_inverse (&L->place[1]);
  }
  *count = n;
}

static cc_status
render (const layer *layers, int n, const cc_image *textures, int t, cc_image *frame,
    int *owner)
{
  for (int y = 0; y < frame->height; y++) {
    uint8_t *row = (uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    for (int x = 0; x < frame->width; x++) {
      double lx, ly, rgb[3];
      int k = owner_at (layers, n, t, x, y, &lx, &ly);
      const layer *L = &layers[k];
      texture_sample (L, L->texture >= 0 ? &textures[L->texture] : NULL, lx, ly, rgb);
      for (int c = 0; c < 3; c++)
        row[4 * x + c] = (uint8_t) lrint (fmin (255.0, fmax (0.0, rgb[c])));
      row[4 * x + 3] = 255;
      owner[(size_t) y * frame->width + x] = k;
    }
  }
  return CC_SUCCESS;
}

/* The textures of a pair: RGBX8 images of 2x2 or more. */
static cc_status
check_textures (const cc_image *textures, int ntex, const char *fn)
{
  for (int i = 0; i < ntex; i++)
    if (textures[i].format != CC_FORMAT_RGBX8 || textures[i].width < 2
        || textures[i].height < 2)
      return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
          "%s: texture %d is not an RGBX8 image of 2x2 or more", fn, i);
  return CC_SUCCESS;
}

static void
outputs_free (cc_image *frame1, cc_image *frame2, cc_image *flow, cc_image *occlusion)
{
  cv_image_free (frame1);
  cv_image_free (frame2);
  cv_image_free (flow);
  cv_image_free (occlusion);
}

/* The four outputs of a pair, w x h: both frames RGBX8, flow F32C2, occlusion GRAY8;
 * none on failure. */
static cc_status
outputs_new (int w, int h, cc_image *frame1, cc_image *frame2, cc_image *flow,
    cc_image *occlusion)
{
  memset (frame1, 0, sizeof *frame1);
  memset (frame2, 0, sizeof *frame2);
  memset (flow, 0, sizeof *flow);
  memset (occlusion, 0, sizeof *occlusion);
  cc_status st = cv_image_new (w, h, CC_FORMAT_RGBX8, frame1);
  if (st == CC_SUCCESS)
    st = cv_image_new (w, h, CC_FORMAT_RGBX8, frame2);
  if (st == CC_SUCCESS)
    st = cv_image_new (w, h, CC_FORMAT_F32C2, flow);
  if (st == CC_SUCCESS)
    st = cv_image_new (w, h, CC_FORMAT_GRAY8, occlusion);
  if (st != CC_SUCCESS)
    outputs_free (frame1, frame2, flow, occlusion);
  return st;
}

cc_status
cv_pair_make (const cv_pair_params *p, const cc_image *textures, int ntex, cc_image *frame1,
    cc_image *frame2, cc_image *flow, cc_image *occlusion)
{
  if (!p || p->width < 16 || p->height < 16 || p->width > 8192 || p->height > 8192
      || !(p->max_motion >= 0.0f && p->max_motion <= 4096.0f) || ntex < 0
      || (ntex > 0 && !textures))
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
        "cv_pair_make: size 16..8192, max_motion 0..4096 and textures when n > 0");
  if (check_textures (textures, ntex, "cv_pair_make") != CC_SUCCESS)
    return CC_ERROR_INVALID_ARGUMENT;
  const int w = p->width, h = p->height;
  layer layers[MAX_LAYERS];
  int n;
  make_layers (p, ntex, layers, &n);
  cc_status st = outputs_new (w, h, frame1, frame2, flow, occlusion);
  if (st != CC_SUCCESS)
    return st;
  int *own1 = malloc (sizeof (int) * w * h), *own2 = malloc (sizeof (int) * w * h);
  if (!own1 || !own2)
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cv_pair_make: out of memory");
  if (st == CC_SUCCESS)
    st = render (layers, n, textures, 0, frame1, own1);
  if (st == CC_SUCCESS)
    st = render (layers, n, textures, 1, frame2, own2);
  for (int y = 0; st == CC_SUCCESS && y < h; y++) {
    float *f = (float *) ((char *) flow->planes[0] + (size_t) y * flow->pitch[0]);
    uint8_t *o = (uint8_t *) occlusion->planes[0] + (size_t) y * occlusion->pitch[0];
    for (int x = 0; x < w; x++) {
      const layer *L = &layers[own1[(size_t) y * w + x]];
      double lx, ly, x2, y2;
      affine_apply (&L->inv[0], x, y, &lx, &ly);
      affine_apply (&L->place[1], lx, ly, &x2, &y2);
      f[2 * x] = (float) (x2 - x);
      f[2 * x + 1] = (float) (y2 - y);
      int rx = (int) lrint (x2), ry = (int) lrint (y2);
      int gone = rx < 0 || ry < 0 || rx >= w || ry >= h
          || own2[(size_t) ry * w + rx] != own1[(size_t) y * w + x];
      o[x] = gone ? 255 : 0;
    }
  }
  free (own1);
  free (own2);
  if (st != CC_SUCCESS)
    outputs_free (frame1, frame2, flow, occlusion);
  return st;
}

/* ------------------------------------------------------------ driving pairs */

typedef struct {
  cv_driving_camera cam;
  double co, si;              /* cos, sin of the yaw */
  layer ground, wall;         /* textures only (tex_* and noise_seed) */
} driving_scene;

/* The ray of image point (x, y) of camera t (0, 1) in camera 1's coordinates hits the
 * ground (returns 0) or the wall (1) at P. */
static int
driving_hit (const driving_scene *S, int t, double x, double y, double P[3])
{
  const cv_driving_camera *c = &S->cam;
  double dx = (x - c->cx) / c->focal, dy = (y - c->cy) / c->focal, dz = 1.0;
  double ox = 0, oz = 0;
  if (t == 1) {               /* d = R d2, origin (0, 0, forward) */
    double rx = S->co * dx + S->si * dz, rz = -S->si * dx + S->co * dz;
    dx = rx;
    dz = rz;
    oz = c->forward;
  }
  double tw = (c->wall - oz) / dz;
  double tg = dy > 0 ? c->height / dy : INFINITY;
  double s = tg < tw ? tg : tw;
  P[0] = ox + s * dx;
  P[1] = s * dy;
  P[2] = oz + s * dz;
  if (tg < tw)
    P[1] = c->height;         /* exactly on the plane */
  else
    P[2] = c->wall;
  return tg < tw ? 0 : 1;
}

/* Texture coordinates (layer units: metres) of a hit point. */
static void
driving_texcoord (int surface, const double P[3], double *u, double *v)
{
  *u = P[0];
  *v = surface == 0 ? P[2] : P[1];
}

static void
driving_project (const driving_scene *S, const double P[3], double *x2, double *y2, double *z2)
{
  const cv_driving_camera *c = &S->cam;
  double X = P[0], Y = P[1], Z = P[2] - c->forward;
  double X2 = S->co * X - S->si * Z, Z2 = S->si * X + S->co * Z;
  *x2 = c->cx + c->focal * X2 / Z2;
  *y2 = c->cy + c->focal * Y / Z2;
  *z2 = Z2;
}

static void
driving_render (const driving_scene *S, const cc_image *textures, int t, cc_image *frame)
{
  const layer *Ls[2] = { &S->ground, &S->wall };
  for (int y = 0; y < frame->height; y++) {
    uint8_t *row = (uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    for (int x = 0; x < frame->width; x++) {
      /* the pixel's footprint in texels along each image axis, from its centre ray and
       * its neighbours' (on the centre's surface) */
      double P[3], Q[3], u0, v0, u1, v1;
      int s0 = driving_hit (S, t, x, y, P);
      driving_texcoord (s0, P, &u0, &v0);
      double span[2];
      for (int axis = 0; axis < 2; axis++) {
        int s1 = driving_hit (S, t, x + (axis == 0), y + (axis == 1), Q);
        driving_texcoord (s0, Q, &u1, &v1);
        span[axis] = s1 == s0 ? hypot (u1 - u0, v1 - v0) * Ls[s0]->tex_scale : 32.0;
      }
      int nx = (int) fmin (32.0, fmax (2.0, ceil (span[0])));
      int ny = (int) fmin (32.0, fmax (2.0, ceil (span[1])));
      double acc[3] = { 0, 0, 0 };
      for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
          double sx = x - 0.5 + (i + 0.5) / nx, sy = y - 0.5 + (j + 0.5) / ny, u, v, rgb[3];
          int s = driving_hit (S, t, sx, sy, Q);
          driving_texcoord (s, Q, &u, &v);
          const layer *L = Ls[s];
          texture_sample (L, L->texture >= 0 ? &textures[L->texture] : NULL, u, v, rgb);
          for (int c = 0; c < 3; c++)
            acc[c] += rgb[c];
        }
      for (int c = 0; c < 3; c++)
        row[4 * x + c] = (uint8_t) lrint (fmin (255.0, fmax (0.0, acc[c] / (nx * ny))));
      row[4 * x + 3] = 255;
    }
  }
}

static void
driving_scene_make (const cv_pair_params *p, int ntex, driving_scene *S)
{
  /* the state is a hash of the seed: a state of seed * constant would make the draws
   * of consecutive seeds correlated */
  uint64_t s = (uint64_t) p->seed ^ 0xD81F0000ull;
  s = next_u64 (&s);
  memset (S, 0, sizeof *S);
  cv_driving_camera *c = &S->cam;
  c->focal = p->width * uniform (&s, 0.55, 0.75);
  c->cx = 0.5 * p->width;
  c->cy = p->height * uniform (&s, 0.35, 0.5);
  c->height = uniform (&s, 1.2, 1.8);
  /* forward: a share of the distance to the nearest ground point seen (the bottom
   * row's), so that no point seen passes behind camera 2 and the bottom rows move
   * 18 % to 67 % further from the horizon */
  double nearest = c->focal * c->height / (p->height - 1 - c->cy);
  c->forward = nearest * uniform (&s, 0.15, 0.4);
  c->yaw = uniform (&s, -1.5, 1.5) * M_PI / 180;
  c->wall = uniform (&s, 25, 60);
  S->co = cos (c->yaw);
  S->si = sin (c->yaw);
  layer *Ls[2] = { &S->ground, &S->wall };
  for (int k = 0; k < 2; k++) {
    layer *L = Ls[k];
    L->texture = ntex > 0 ? (int) (next_u64 (&s) % (uint64_t) ntex) : -1;
    L->noise_seed = (unsigned) (next_u64 (&s) & 0xFFFFFF);
    double texel = k == 0 ? uniform (&s, 0.015, 0.03)
        : c->wall / c->focal * uniform (&s, 0.7, 1.4);
    L->tex_scale = 1.0 / texel;
    L->tex_ox = uniform (&s, 0, 1000);
    L->tex_oy = uniform (&s, 0, 1000);
  }
}

cc_status
cv_pair_make_driving (const cv_pair_params *p, const cc_image *textures, int ntex,
    cc_image *frame1, cc_image *frame2, cc_image *flow, cc_image *occlusion,
    cv_driving_camera *camera)
{
  if (!p || p->width < 16 || p->height < 16 || p->width > 8192 || p->height > 8192
      || ntex < 0 || (ntex > 0 && !textures))
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
        "cv_pair_make_driving: size 16..8192 and textures when n > 0");
  if (check_textures (textures, ntex, "cv_pair_make_driving") != CC_SUCCESS)
    return CC_ERROR_INVALID_ARGUMENT;
  const int w = p->width, h = p->height;
  driving_scene S;
  driving_scene_make (p, ntex, &S);
  if (camera)
    *camera = S.cam;
  cc_status st = outputs_new (w, h, frame1, frame2, flow, occlusion);
  if (st != CC_SUCCESS)
    return st;
  driving_render (&S, textures, 0, frame1);
  driving_render (&S, textures, 1, frame2);
  for (int y = 0; y < h; y++) {
    float *f = (float *) ((char *) flow->planes[0] + (size_t) y * flow->pitch[0]);
    uint8_t *o = (uint8_t *) occlusion->planes[0] + (size_t) y * occlusion->pitch[0];
    for (int x = 0; x < w; x++) {
      double P[3], x2, y2, z2;
      driving_hit (&S, 0, x, y, P);
      driving_project (&S, P, &x2, &y2, &z2);
      f[2 * x] = (float) (x2 - x);
      f[2 * x + 1] = (float) (y2 - y);
      int inside = z2 > 0 && x2 >= -0.5 && y2 >= -0.5 && x2 < w - 0.5 && y2 < h - 0.5;
      o[x] = inside ? 0 : 255;
    }
  }
  return CC_SUCCESS;
}
