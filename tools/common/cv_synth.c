/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_synth.h"
#include "cv_imageio.h"

#include <math.h>
#include <stdint.h>

static uint32_t
hash3 (int32_t x, int32_t y, uint32_t seed)
{
  uint32_t h = seed * 0x9E3779B1u ^ (uint32_t) x * 0x85EBCA77u ^ (uint32_t) y * 0xC2B2AE3Du;
  h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
  return h;
}

/* Smooth (C1) value noise on a lattice of `cell` pixels. */
static double
value_noise (double x, double y, double cell, uint32_t seed)
{
  double gx = x / cell, gy = y / cell;
  double fx0 = floor (gx), fy0 = floor (gy);
  int32_t ix = (int32_t) fx0, iy = (int32_t) fy0;
  double fx = gx - fx0, fy = gy - fy0;
  double sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
  double a = hash3 (ix, iy, seed) / 4294967296.0, b = hash3 (ix + 1, iy, seed) / 4294967296.0;
  double c = hash3 (ix, iy + 1, seed) / 4294967296.0, d = hash3 (ix + 1, iy + 1, seed) / 4294967296.0;
  return (a + sx * (b - a)) * (1 - sy) + (c + sx * (d - c)) * sy;
}

float
cv_synth_texture (double x, double y, unsigned seed)
{
  double v = 0.45 * value_noise (x, y, 7.0, seed) + 0.3 * value_noise (x, y, 3.0, seed + 17)
      + 0.25 * value_noise (x, y, 17.0, seed + 31);
  v += 0.08 * sin (0.31 * x + 0.17 * y + seed) + 0.06 * sin (0.11 * x - 0.29 * y + 2 * seed);
  return (float) fmin (1.0, fmax (0.0, v));
}

cc_status
cv_synth_translation (int width, int height, double dx, double dy, unsigned seed,
    cc_image *frame1, cc_image *frame2)
{
  cc_status st = cv_image_new (width, height, CC_FORMAT_GRAY8, frame1);
  if (st != CC_SUCCESS)
    return st;
  if ((st = cv_image_new (width, height, CC_FORMAT_GRAY8, frame2)) != CC_SUCCESS) {
    cv_image_free (frame1);
    return st;
  }
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      ((uint8_t *) frame1->planes[0])[y * frame1->pitch[0] + x] =
          (uint8_t) lrint (255.0 * cv_synth_texture (x, y, seed));
      ((uint8_t *) frame2->planes[0])[y * frame2->pitch[0] + x] =
          (uint8_t) lrint (255.0 * cv_synth_texture (x - dx, y - dy, seed));
    }
  return CC_SUCCESS;
}

/* Scene layout relative to the frame size. */
typedef struct {
  double bg_vx, bg_vy;             /* background drift */
  double sq_x0, sq_y0, sq_size;    /* square at t = 0 */
  double sq_vx, sq_vy;
  double disc_cx, disc_cy, disc_r; /* disc, fixed centre */
  double disc_omega;               /* radians per frame */
} scene;

static scene
scene_for (int w, int h)
{
  scene s = { 0.6, 0.3, 0.12 * w, 0.45 * h, 0.3 * h, 2.5, -1.25,
              0.72 * w, 0.35 * h, 0.22 * h, 1.5 * M_PI / 180.0 };
  return s;
}

cc_status
cv_synth_clip_frame (int t, int width, int height, cc_image *frame, cc_image *truth)
{
  cc_status st = cv_image_new (width, height, CC_FORMAT_RGBX8, frame);
  if (st != CC_SUCCESS)
    return st;
  if (truth && (st = cv_image_new (width, height, CC_FORMAT_F32C2, truth)) != CC_SUCCESS) {
    cv_image_free (frame);
    return st;
  }
  scene s = scene_for (width, height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      double tx, ty, u, v;   /* texture coordinates and motion of the front layer */
      unsigned seed;
      double sqx = s.sq_x0 + s.sq_vx * t, sqy = s.sq_y0 + s.sq_vy * t;
      double rx = x - s.disc_cx, ry = y - s.disc_cy;
      if (x >= sqx && x < sqx + s.sq_size && y >= sqy && y < sqy + s.sq_size) {
        tx = x - s.sq_vx * t; ty = y - s.sq_vy * t; u = s.sq_vx; v = s.sq_vy; seed = 7;
      } else if (rx * rx + ry * ry < s.disc_r * s.disc_r) {
        double a = -s.disc_omega * t;   /* rotate back to the disc's rest pose */
        tx = s.disc_cx + cos (a) * rx - sin (a) * ry;
        ty = s.disc_cy + sin (a) * rx + cos (a) * ry;
        double c = cos (s.disc_omega), sn = sin (s.disc_omega);
        u = c * rx - sn * ry - rx; v = sn * rx + c * ry - ry; seed = 3;
      } else {
        tx = x - s.bg_vx * t; ty = y - s.bg_vy * t; u = s.bg_vx; v = s.bg_vy; seed = 1;
      }
      float l = cv_synth_texture (tx, ty, seed);
      /* colour: same luma pattern, tinted per layer */
      uint8_t *px = (uint8_t *) frame->planes[0] + y * frame->pitch[0] + 4 * x;
      double tint[3][3] = { { 1.0, 0.85, 0.7 }, { 0.7, 0.9, 1.0 }, { 0.8, 1.0, 0.75 } };
      int layer = seed == 7 ? 0 : (seed == 3 ? 1 : 2);
      for (int k = 0; k < 3; k++)
        px[k] = (uint8_t) lrint (255.0 * fmin (1.0, l * tint[layer][k]));
      px[3] = 255;
      if (truth) {
        float *g = (float *) ((uint8_t *) truth->planes[0] + y * truth->pitch[0]) + 2 * x;
        g[0] = (float) u;
        g[1] = (float) v;
      }
    }
  return CC_SUCCESS;
}

/* ------------------------------------------------------------ coloured objects */

int
cv_synth_shape_covers (const cv_synth_shape *s, int x, int y)
{
  double dx = x - s->cx, dy = y - s->cy;
  double c = cos (s->theta), sn = sin (s->theta);
  double u = (dx * c + dy * sn) / s->a, v = (-dx * sn + dy * c) / s->b;
  return u * u + v * v <= 1.0;
}

void
cv_synth_palette (int i, uint8_t rgb[3])
{
  /* levels 0..250 by 25, in an order that spreads the first ones apart; triples
   * sorted by their largest level rank, so the first 8 use levels 0 and 250 only */
  static const int level[11] = { 0, 250, 125, 50, 175, 25, 225, 100, 200, 75, 150 };
  int k = 0;
  for (int top = 0; top < 11; top++)
    for (int a = 0; a <= top; a++)
      for (int b = 0; b <= top; b++)
        for (int c = 0; c <= top; c++) {
          if (a != top && b != top && c != top)
            continue;
          int r = level[a], g = level[b], bl = level[c];
          double d = sqrt ((r - 128.0) * (r - 128.0) + (g - 128.0) * (g - 128.0)
              + (bl - 128.0) * (bl - 128.0));
          if (d < 45.0)
            continue;
          if (k++ == i) {
            rgb[0] = (uint8_t) r;
            rgb[1] = (uint8_t) g;
            rgb[2] = (uint8_t) bl;
            return;
          }
        }
  rgb[0] = rgb[1] = rgb[2] = 0;   /* past the palette */
}

cc_status
cv_synth_shapes (int width, int height, const cv_synth_shape *shapes, int n,
    cc_image *frame, int *owner)
{
  cc_status st = cv_image_new (width, height, CC_FORMAT_RGBX8, frame);
  if (st != CC_SUCCESS)
    return st;
  uint8_t *p = frame->planes[0];
  for (int i = 0; i < width * height; i++) {
    p[4 * i] = p[4 * i + 1] = p[4 * i + 2] = 128;
    p[4 * i + 3] = 255;
    if (owner)
      owner[i] = -1;
  }
  for (int k = 0; k < n; k++) {
    const cv_synth_shape *s = &shapes[k];
    double reach = fmax (s->a, s->b) + 1.0;
    int x0 = (int) fmax (0.0, floor (s->cx - reach)), x1 = (int) fmin (width - 1.0, ceil (s->cx + reach));
    int y0 = (int) fmax (0.0, floor (s->cy - reach)), y1 = (int) fmin (height - 1.0, ceil (s->cy + reach));
    for (int y = y0; y <= y1; y++)
      for (int x = x0; x <= x1; x++) {
        if (!cv_synth_shape_covers (s, x, y))
          continue;
        uint8_t *q = p + 4 * ((size_t) y * width + x);
        q[0] = s->r;
        q[1] = s->g;
        q[2] = s->b_;
        if (owner)
          owner[(size_t) y * width + x] = k;
      }
  }
  return CC_SUCCESS;
}

void
cv_synth_objects_at (int t, int width, int height, int n, cv_synth_shape *shapes)
{
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < n; k++) {
    cv_synth_shape *s = &shapes[k];
    double phase = 2.0 * pi * k / n, ft = t / 48.0;
    /* Lissajous paths over the frame, their extremes 5% past its edges (cut) */
    s->cx = width * (0.5 + 0.55 * sin (2.0 * pi * ft * (1 + k % 3) + phase));
    s->cy = height * (0.5 + 0.55 * sin (2.0 * pi * ft * (1 + k % 2) + 1.7 * phase));
    double size = fmin (width, height) * (0.05 + 0.01 * (k % 4));
    s->a = size * (k % 2 ? 1.8 : 1.0);
    s->b = size;
    s->theta = k % 2 ? 0.05 * t + phase : 0.0;
    uint8_t rgb[3];
    cv_synth_palette (k, rgb);
    s->r = rgb[0];
    s->g = rgb[1];
    s->b_ = rgb[2];
  }
}

/* ---- Foreground clip (quadcut) ---------------------------------------------- */

/* Object geometry of frame t: a disc of radius r at (cx, cy) over a body rectangle. */
typedef struct {
  double cx, cy, r;
} fg_object;

static fg_object
fg_object_at (int t, int width, int height)
{
  const double pi = 3.14159265358979323846;
  fg_object o;
  o.r = 0.14 * fmin (width, height);
  o.cx = width * (0.5 + 0.42 * sin (2.0 * pi * t / 96.0));
  o.cy = height * (0.42 + 0.12 * sin (2.0 * pi * t / 64.0 + 0.5));
  return o;
}

static int
fg_covers (const fg_object *o, double x, double y)
{
  double dx = x - o->cx, dy = y - o->cy;
  if (dx * dx + dy * dy <= o->r * o->r)
    return 1;
  return fabs (dx) <= 0.6 * o->r && dy >= 0.5 * o->r && dy <= 1.8 * o->r;
}

static void
fg_plate_rgb (int x, int y, double rgb[3])
{
  double t1 = cv_synth_texture (x, y, 11), t2 = cv_synth_texture (x, y, 23);
  rgb[0] = 70.0 + 70.0 * t1;
  rgb[1] = 100.0 + 40.0 * t1 + 40.0 * t2;
  rgb[2] = 70.0 + 50.0 * t2;
}

/* Triangular noise in [-amp, amp] from a hash of the pixel, frame and channel. */
static double
fg_noise (int x, int y, int t, int c, int amp)
{
  if (amp <= 0)
    return 0.0;
  uint32_t h = (uint32_t) x * 73856093u ^ (uint32_t) y * 19349663u ^ (uint32_t) t * 83492791u
      ^ (uint32_t) c * 2654435761u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  double u1 = (h & 0xFFFF) / 65535.0, u2 = (h >> 16) / 65535.0;
  return amp * (u1 + u2 - 1.0);
}

cc_status
cv_synth_fg_plate (int width, int height, cc_image *plate)
{
  cc_status st = cv_image_new (width, height, CC_FORMAT_RGBX8, plate);
  if (st != CC_SUCCESS)
    return st;
  for (int y = 0; y < height; y++) {
    uint8_t *row = (uint8_t *) plate->planes[0] + (size_t) y * plate->pitch[0];
    for (int x = 0; x < width; x++) {
      double rgb[3];
      fg_plate_rgb (x, y, rgb);
      for (int c = 0; c < 3; c++)
        row[4 * x + c] = (uint8_t) lrint (rgb[c]);
      row[4 * x + 3] = 255;
    }
  }
  return CC_SUCCESS;
}

cc_status
cv_synth_fg_frame (int t, int width, int height, int illumination, int noise,
    cc_image *frame, uint8_t *mask)
{
  cc_status st = cv_image_new (width, height, CC_FORMAT_RGBX8, frame);
  if (st != CC_SUCCESS)
    return st;
  fg_object o = fg_object_at (t, width, height);
  /* the shadow: the object's shape moved down-right, on the plate only */
  fg_object sh = { o.cx + 0.45 * o.r, o.cy + 0.3 * o.r, o.r };
  for (int y = 0; y < height; y++) {
    uint8_t *row = (uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    for (int x = 0; x < width; x++) {
      double rgb[3];
      int in = fg_covers (&o, x, y);
      if (in) {
        double tx = cv_synth_texture (x - o.cx, y - o.cy, 37);
        rgb[0] = 120.0 + 60.0 * tx;
        rgb[1] = 55.0 + 35.0 * tx;
        rgb[2] = 30.0 + 20.0 * tx;
        if (illumination == CV_SYNTH_FG_LIT)
          for (int c = 0; c < 3; c++)
            rgb[c] *= 1.5;
      } else {
        fg_plate_rgb (x, y, rgb);
        if (illumination == CV_SYNTH_FG_PLAIN && fg_covers (&sh, x, y))
          for (int c = 0; c < 3; c++)
            rgb[c] *= 0.55;
      }
      for (int c = 0; c < 3; c++)
        row[4 * x + c] = (uint8_t) lrint (fmin (255.0, fmax (0.0,
            rgb[c] + fg_noise (x, y, t, c + 3 * illumination, noise))));
      row[4 * x + 3] = 255;
      if (mask)
        mask[(size_t) y * width + x] = in ? 255 : 0;
    }
  }
  return CC_SUCCESS;
}
