/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Calibration of the tracker's objects from boxes, and the objects file
 * (cv_moct_calib.h). */
#define _GNU_SOURCE   /* program_invocation_short_name */
#include "cv_moct_calib.h"
#include "cv_cli.h"
#include "cudacore/cc_moct_objects.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISC_SHRINK 0.7       /* radius of the sampled disc / the inscribed one */
#define CLOTH_EXCLUDE 40.0    /* RGB distance under which a disc pixel is cloth */
#define TOL_QUANTILE 0.75
#define TOL_MIN 10.0
#define TOL_MAX 60.0
#define TOL_CLOTH 0.8         /* tolerance <= this x distance(colour, cloth) */
#define OFFSET_MIN_PX 8
#define PROG program_invocation_short_name
/* the space calibrated objects are compared in (cv_moct_colour_distance) */
#define CALIB_SPACE CC_MOCT_SPACE_RGB

const char *const cv_moct_class_names[5] = { "", "cue", "eight", "solid", "stripe" };

int
cv_moct_read_boxes (const char *path, cv_moct_box *b, int max)
{
  FILE *f = fopen (path, "r");
  if (!f) {
    fprintf (stderr, "%s: %s: %s\n", PROG, path, strerror (errno));
    return -1;
  }
  char line[256];
  int n = 0, lineno = 0;
  while (fgets (line, sizeof line, f)) {
    lineno++;
    char extra;
    cv_moct_box v;
    if (strspn (line, " \t\r\n") == strlen (line))
      continue;
    if (sscanf (line, "%d %d %d %d %d %c", &v.x, &v.y, &v.w, &v.h, &v.cls, &extra) != 5
        || v.w < 1 || v.h < 1 || v.cls < 1 || v.cls > 4) {
      fprintf (stderr, "%s: %s:%d: not 'x y w h class' (w, h >= 1, class 1..4)\n",
          PROG, path, lineno);
      fclose (f);
      return -1;
    }
    if (n == max) {
      fprintf (stderr, "%s: %s: more than %d boxes\n", PROG, path, max);
      fclose (f);
      return -1;
    }
    b[n++] = v;
  }
  fclose (f);
  if (n == 0)
    fprintf (stderr, "%s: %s: no boxes\n", PROG, path);
  return n ? n : -1;
}

int
cv_moct_check_boxes (const char *path, const cv_moct_box *b, int n, int width, int height)
{
  for (int i = 0; i < n; i++)
    if (b[i].x < 0 || b[i].y < 0 || b[i].x + b[i].w > width || b[i].y + b[i].h > height) {
      fprintf (stderr, "%s: %s: box %d (%d %d %d %d) is not inside the %dx%d frame\n",
          PROG, path, i + 1, b[i].x, b[i].y, b[i].w, b[i].h, width, height);
      return -1;
    }
  return 0;
}

double
cv_moct_colour_distance (const uint8_t *a, const uint8_t *b)
{
  return cc_moct_colour_distance (CALIB_SPACE, 2.0f, a, b);
}

double
cv_moct_rgb_distance (const uint8_t *a, const uint8_t *b)
{
  double dr = a[0] - b[0], dg = a[1] - b[1], db = a[2] - b[2];
  return sqrt (dr * dr + dg * dg + db * db);
}

static int
cmp_u8 (const void *a, const void *b)
{
  return *(const uint8_t *) a - *(const uint8_t *) b;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void
cv_moct_median_rgb (const uint8_t *px, int n, uint8_t out[3])
{
  uint8_t *c = malloc (n);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < n; i++)
      c[i] = px[3 * i + k];
    qsort (c, n, 1, cmp_u8);
    out[k] = c[n / 2];
  }
  free (c);
}

/* A stripe's white band: bright and unsaturated (max - min < 64, min > 120). A
 * stripe is calibrated on its coloured band, the colour it may share with a solid. */
static bool
whitish (const uint8_t *p)
{
  int mx = p[0] > p[1] ? p[0] : p[1], mn = p[0] < p[1] ? p[0] : p[1];
  mx = p[2] > mx ? p[2] : mx;
  mn = p[2] < mn ? p[2] : mn;
  return mx - mn < 64 && mn > 120;
}

void
cv_moct_calibrate_box (const cc_image *img, const cv_moct_box *b, uint8_t colour[3],
    float *tolerance, uint8_t cloth[3])
{
  int x0 = b->x, y0 = b->y, x1 = b->x + b->w - 1, y1 = b->y + b->h - 1;
  uint8_t *px = malloc (3 * (size_t) (2 * (b->w + b->h) + b->w * b->h));
  int n = 0;
  /* the cloth: the box's border pixels inside the frame */
  for (int y = y0; y <= y1; y++)
    for (int x = x0; x <= x1; x++) {
      if ((y != y0 && y != y1 && x != x0 && x != x1) || x < 0 || y < 0
          || x >= img->width || y >= img->height)
        continue;
      memcpy (px + 3 * n++, (const uint8_t *) img->planes[0] + y * img->pitch[0] + 4 * x, 3);
    }
  if (n)
    cv_moct_median_rgb (px, n, cloth);
  else
    cloth[0] = cloth[1] = cloth[2] = 0;
  /* the disc, without cloth pixels (all of it when that leaves too few) */
  double cx = b->x + (b->w - 1) / 2.0, cy = b->y + (b->h - 1) / 2.0;
  double r = DISC_SHRINK * fmin (b->w, b->h) / 2.0;
  int all = 0;
  for (int pass = 0; pass < 2; pass++) {
    n = all = 0;
    for (int y = y0; y <= y1; y++)
      for (int x = x0; x <= x1; x++) {
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r || x < 0 || y < 0
            || x >= img->width || y >= img->height)
          continue;
        const uint8_t *p = (const uint8_t *) img->planes[0] + y * img->pitch[0] + 4 * x;
        all++;
        if (pass == 0 && (cv_moct_rgb_distance (p, cloth) < CLOTH_EXCLUDE
                || (b->cls == 4 && whitish (p))))
          continue;
        memcpy (px + 3 * n++, p, 3);
      }
    if (n >= 8 || all == 0)
      break;
  }
  if (n == 0) {   /* a box outside the frame: keep a colour, the smallest tolerance */
    colour[0] = colour[1] = colour[2] = 0;
    *tolerance = TOL_MIN;
    free (px);
    return;
  }
  cv_moct_median_rgb (px, n, colour);
  double *d = malloc (n * sizeof *d);
  for (int i = 0; i < n; i++)
    d[i] = cv_moct_colour_distance (px + 3 * i, colour);
  qsort (d, n, sizeof *d, cmp_double);
  double t = d[(int) floor (TOL_QUANTILE * (n - 1))];
  t = fmin (fmax (t, TOL_MIN), TOL_MAX);
  t = fmin (t, TOL_CLOTH * cv_moct_colour_distance (colour, cloth));
  *tolerance = (float) fmax (t, 1.0);
  free (d);
  free (px);
}

int
cv_moct_calibrate (const cc_image *img, const cv_moct_box *b, int n, const char *names,
    cc_moct_object *o, uint8_t (*cloth)[3])
{
  int count[5] = { 0 };
  const char *p = names;
  for (int i = 0; i < n; i++) {
    memset (&o[i], 0, sizeof o[i]);
    if (names) {
      size_t len = strcspn (p, ",");
      if (len == 0 || len >= CC_MOCT_NAME_MAX || (p[len] == '\0' && i != n - 1)
          || (p[len] == ',' && i == n - 1)) {
        fprintf (stderr, "%s: --names: wanted %d non-empty names of at most %d bytes\n",
            PROG, n, CC_MOCT_NAME_MAX - 1);
        return -1;
      }
      memcpy (o[i].name, p, len);
      p += len + 1;
    } else if (b[i].cls <= 2) {
      snprintf (o[i].name, sizeof o[i].name, "%s%s", cv_moct_class_names[b[i].cls],
          count[b[i].cls]++ ? "2" : "");
    } else {
      snprintf (o[i].name, sizeof o[i].name, "%s%d", cv_moct_class_names[b[i].cls],
          ++count[b[i].cls]);
    }
    uint8_t c[3], cl[3];
    cv_moct_calibrate_box (img, &b[i], c, &o[i].tolerance, cl);
    o[i].r = c[0];
    o[i].g = c[1];
    o[i].b = c[2];
    o[i].space = CALIB_SPACE;
    if (cloth)
      memcpy (cloth[i], cl, 3);
  }
  return 0;
}

int
cv_moct_calibrate_offsets (const cc_image *img, const cv_moct_box *b, int n,
    const cc_moct_object *o, double (*off)[3])
{
  cc_context *ctx = NULL;
  cc_moct *m = NULL;
  int rc = 0;
  if (cc_context_create (CC_BACKEND_CPU, 1, &ctx) != CC_SUCCESS
      || cc_moct_create (ctx, img->width, img->height, NULL, &m) != CC_SUCCESS
      || cc_moct_set_objects (m, o, n) != CC_SUCCESS)
    rc = -cv_fail ("offsets");
  for (int i = 0; i < n; i++) {
    off[i][0] = off[i][1] = 0;
    off[i][2] = (b[i].w + b[i].h) / 2.0;
    double sx = 0, sy = 0;
    int k = 0;
    for (int y = b[i].y; !rc && y < b[i].y + b[i].h; y++)
      for (int x = b[i].x; x < b[i].x + b[i].w; x++) {
        const uint8_t *p = (const uint8_t *) img->planes[0] + y * img->pitch[0] + 4 * x;
        if (cc_moct_classify (m, false, p[0], p[1], p[2]) == i) {
          sx += x;
          sy += y;
          k++;
        }
      }
    if (k >= OFFSET_MIN_PX) {
      off[i][0] = b[i].x + (b[i].w - 1) / 2.0 - sx / k;
      off[i][1] = b[i].y + (b[i].h - 1) / 2.0 - sy / k;
    }
  }
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
  return rc;
}

int
cv_moct_read_objects (const char *path, cc_moct_object *o, int max)
{
  cc_moct_object *e = NULL;
  int n = 0;
  if (cc_moct_objects_read (path, &e, &n) != CC_SUCCESS) {
    fprintf (stderr, "%s: %s\n", PROG, cc_last_error ());
    return -1;
  }
  if (n == 0 || n > max)
    fprintf (stderr, "%s: %s: %s\n", PROG, path, n ? "too many objects" : "no objects");
  for (int i = 0; i < n && i < max; i++) {
    o[i] = e[i];
    if (o[i].tolerance <= 0)
      o[i].tolerance = CV_MOCT_DEFAULT_TOLERANCE;
  }
  free (e);
  return n > 0 && n <= max ? n : -1;
}

