/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-moct: calibration and evaluation of the multi-object chromatic tracker
 * (cc_moct; docs/moctracker.md, "Calibration and billiard evaluation").
 *
 *   cv-moct calibrate FRAME.png BOXES.txt [--names a,b,...] [-o OBJECTS.txt]
 *   cv-moct track OBJECTS.txt VIDEO|DIR [--json] [--region x,y,w,h] [--backend cpu|cuda]
 *                    [--window PX] [--size-ratio R]
 *   cv-moct billiard CLIP_DIR [--json] [--region x,y,w,h|none] [--margin PX]
 *                    [--backend cpu|cuda] [--window PX] [--size-ratio R] [--offset on|off]
 *
 * calibrate: refuses boxes not inside the frame; one object per box (`x y w h class`
 *   a line; class 1 cue, 2 eight, 3 solid, 4 striped): colour = per-channel median
 *   of the pixels of the box's inscribed disc shrunk to 70% radius, leaving out those
 *   within CLOTH_EXCLUDE of the cloth (the median of the box's border pixels) and,
 *   for stripes, the white band; tolerance = the TOL_QUANTILE (75%) quantile of those
 *   pixels' RGB distances to that colour (the object's own spread, shading included),
 *   clamped to TOL_MIN..TOL_MAX (10..60) and kept under 0.8 x the colour's distance
 *   to the cloth (so the cloth never matches). Then the objects are checked on the
 *   same frame with the tracker's own table (comment lines: each object's share of
 *   its disc, the pixels it takes from other balls, its blob's offset to its box's
 *   centre: calibrate_offsets).
 * track: cc_moct over every frame of a video (GStreamer: uridecodebin, RGBA) or of a
 *   directory of PNG frames (sorted by name); outside --region the frame copy given
 *   to the core is painted a colour that no object matches. --window PX: the core's
 *   search window (cc_moct_params.window; 0, the default for track: the whole frame);
 *   --size-ratio R its look-alike gate (cc_moct_params.size_ratio, default 3). A
 *   pipeline error on the bus, or no frame for SOURCE_STALL_S s, ends the run (exit 1).
 * billiard: calibrate on frames/frame_first.png, track the clip (search window 16 px,
 *   each ball seeded at its first-frame box), compare the last frame with
 *   bounding_boxes/frame_last_bbox.txt; a ball's position is its blob's centroid
 *   moved by its calibrated offset at the ball's apparent size there (ball_position;
 *   --offset off: the centroid). */
#include "cv_cli.h"
#include "cv_gst.h"
#include "cv_imageio.h"
#include "cudacore/cc_moct_objects.h"
#include <cudacore/cc_moct.h>

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_BOXES 64
#define DISC_SHRINK 0.7       /* radius of the sampled disc / the inscribed one */
#define CLOTH_EXCLUDE 40.0    /* RGB distance under which a disc pixel is cloth */
#define TOL_QUANTILE 0.75
#define TOL_MIN 10.0
#define TOL_MAX 60.0
#define TOL_CLOTH 0.8         /* tolerance <= this x distance(colour, cloth) */
#define CLOTH_FILL 80.0       /* billiard region: RGB distance to the cloth's colour */
#define CLOTH_STEP 12.0       /* billiard region: RGB step between neighbouring pixels */
#define DEFAULT_TOLERANCE 30.0f
/* billiard: balls are about 17 px across and move up to about a radius a frame */
#define DEFAULT_BILLIARD_WINDOW 16
#define DEFAULT_MARGIN 16

static const char *usage =
    "usage: cv-moct calibrate FRAME.png BOXES.txt [--names a,b,...] [-o OBJECTS.txt]\n"
    "       cv-moct track OBJECTS.txt VIDEO|DIR [--json] [--region x,y,w,h]\n"
    "                     [--backend cpu|cuda] [--min-mass N] [--window PX] [--size-ratio R]\n"
    "                     [--draw LAST.png]\n"
    "       cv-moct billiard CLIP_DIR [--json] [--region x,y,w,h|none] [--margin PX]\n"
    "                     [--backend cpu|cuda] [--window PX (default 16)] [--size-ratio R]\n"
    "                     [--offset on|off (default on)]\n"
    "       cv-moct --help | --version\n";
static const char *help =
    "Calibration and evaluation of the multi-object colour tracker (moctracker's core).\n"
    "calibrate  one object per box of BOXES.txt (`x y w h class` a line) on FRAME.png:\n"
    "           its colour and tolerance from the box's disc, checked on the same frame;\n"
    "           the objects list on stdout or in -o, for moctracker's objects-file\n"
    "  --names a,b,...     the objects' names (default: from the classes)\n"
    "  -o OBJECTS.txt      write the list there\n"
    "track      the objects of OBJECTS.txt over every frame of VIDEO (uridecodebin) or of\n"
    "           DIR's PNG frames (by name); one line per frame and object\n"
    "  --json              JSON lines instead of text\n"
    "  --region x,y,w,h    only this part of the frame is searched\n"
    "  --backend cpu|cuda  the backend (default cpu)\n"
    "  --min-mass N        pixels an object needs to be present (default 16)\n"
    "  --window PX         search window around the last position (0, the default: the\n"
    "                      whole frame)\n"
    "  --size-ratio R      refuse a blob R times larger or smaller than the last one\n"
    "                      (0: off, or 1..100; default 3)\n"
    "  --draw LAST.png     the last frame with the boxes drawn\n"
    "billiard   calibrate on CLIP_DIR/frames/frame_first.png, track the clip, compare\n"
    "           the last frame with bounding_boxes/frame_last_bbox.txt (pixel errors)\n"
    "  --json, --backend, --window (default 16), --size-ratio: as for track\n"
    "  --region x,y,w,h|none  the searched part (default: the cloth, found from its\n"
    "                      colour; none: the whole frame)\n"
    "  --margin PX         the cloth region grown by PX (default 16)\n"
    "  --offset on|off     a ball's position: its blob's centroid moved by the offset\n"
    "                      calibrated on the first frame (on, the default), or the\n"
    "                      centroid\n"
    "  -h, --help          this text\n"
    "  --version           the program's version\n";

typedef struct box {
  int x, y, w, h, cls;
} box;

typedef struct region {
  int x, y, w, h;     /* w == 0: the whole frame */
} region;

/* ---------------------------------------------------------------- boxes */

/* Reads `x y w h class` lines; -1 (after a message) on a bad line or file. */
static int
read_boxes (const char *path, box *b, int max)
{
  FILE *f = fopen (path, "r");
  if (!f) {
    fprintf (stderr, "cv-moct: %s: %s\n", path, strerror (errno));
    return -1;
  }
  char line[256];
  int n = 0, lineno = 0;
  while (fgets (line, sizeof line, f)) {
    lineno++;
    char extra;
    box v;
    if (strspn (line, " \t\r\n") == strlen (line))
      continue;
    if (sscanf (line, "%d %d %d %d %d %c", &v.x, &v.y, &v.w, &v.h, &v.cls, &extra) != 5
        || v.w < 1 || v.h < 1 || v.cls < 1 || v.cls > 4) {
      fprintf (stderr, "cv-moct: %s:%d: not 'x y w h class' (w, h >= 1, class 1..4)\n",
          path, lineno);
      fclose (f);
      return -1;
    }
    if (n == max) {
      fprintf (stderr, "cv-moct: %s: more than %d boxes\n", path, max);
      fclose (f);
      return -1;
    }
    b[n++] = v;
  }
  fclose (f);
  if (n == 0)
    fprintf (stderr, "cv-moct: %s: no boxes\n", path);
  return n ? n : -1;
}

/* 0 when every box lies inside a width x height frame; else -1 after a message
 * naming the first that does not (a box outside calibrates nothing: refused). */
static int
check_boxes (const char *path, const box *b, int n, int width, int height)
{
  for (int i = 0; i < n; i++)
    if (b[i].x < 0 || b[i].y < 0 || b[i].x + b[i].w > width || b[i].y + b[i].h > height) {
      fprintf (stderr, "cv-moct: %s: box %d (%d %d %d %d) is not inside the %dx%d frame\n",
          path, i + 1, b[i].x, b[i].y, b[i].w, b[i].h, width, height);
      return -1;
    }
  return 0;
}

/* ---------------------------------------------------------------- colours */

/* The space calibrated objects are compared in (RGB: Lab spheres were measured
 * and tracked fewer balls, docs/moctracker.md), and the distance there. */
#define CALIB_SPACE CC_MOCT_SPACE_RGB
static double
cdist (const uint8_t *a, const uint8_t *b)
{
  return cc_moct_colour_distance (CALIB_SPACE, 2.0f, a, b);
}

static double
rgb_dist (const uint8_t *a, const uint8_t *b)
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

/* Per-channel median of n RGB triples (n >= 1; px is reordered per channel copy). */
static void
median_rgb (const uint8_t *px, int n, uint8_t out[3])
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

/* The calibration of one box (see the header comment). */
static void
calibrate_box (const cc_image *img, const box *b, uint8_t colour[3], float *tolerance,
    uint8_t cloth[3])
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
    median_rgb (px, n, cloth);
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
        if (pass == 0 && (rgb_dist (p, cloth) < CLOTH_EXCLUDE || (b->cls == 4 && whitish (p))))
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
  median_rgb (px, n, colour);
  double *d = malloc (n * sizeof *d);
  for (int i = 0; i < n; i++)
    d[i] = cdist (px + 3 * i, colour);
  qsort (d, n, sizeof *d, cmp_double);
  double t = d[(int) floor (TOL_QUANTILE * (n - 1))];
  t = fmin (fmax (t, TOL_MIN), TOL_MAX);
  t = fmin (t, TOL_CLOTH * cdist (colour, cloth));
  *tolerance = (float) fmax (t, 1.0);
  free (d);
  free (px);
}

static const char *class_names[5] = { "", "cue", "eight", "solid", "stripe" };

/* Objects for boxes[0..n): names from `names` (comma-separated, n of them) or by
 * class (cue, eight, solid1.., stripe1..). -1 on a bad name list. */
static int
calibrate (const cc_image *img, const box *b, int n, const char *names, cc_moct_object *o,
    uint8_t (*cloth)[3])
{
  int count[5] = { 0 };
  const char *p = names;
  for (int i = 0; i < n; i++) {
    memset (&o[i], 0, sizeof o[i]);
    if (names) {
      size_t len = strcspn (p, ",");
      if (len == 0 || len >= CC_MOCT_NAME_MAX || (p[len] == '\0' && i != n - 1)
          || (p[len] == ',' && i == n - 1)) {
        fprintf (stderr, "cv-moct: --names: wanted %d non-empty names of at most %d bytes\n",
            n, CC_MOCT_NAME_MAX - 1);
        return -1;
      }
      memcpy (o[i].name, p, len);
      p += len + 1;
    } else if (b[i].cls <= 2) {
      snprintf (o[i].name, sizeof o[i].name, "%s%s", class_names[b[i].cls],
          count[b[i].cls]++ ? "2" : "");
    } else {
      snprintf (o[i].name, sizeof o[i].name, "%s%d", class_names[b[i].cls],
          ++count[b[i].cls]);
    }
    uint8_t c[3], cl[3];
    calibrate_box (img, &b[i], c, &o[i].tolerance, cl);
    o[i].r = c[0];
    o[i].g = c[1];
    o[i].b = c[2];
    o[i].space = CALIB_SPACE;
    if (cloth)
      memcpy (cloth[i], cl, 3);
  }
  return 0;
}

static int
write_objects (FILE *f, const cc_moct_object *o, int n, const char *frame, const char *boxes)
{
  fprintf (f, "# cv-moct calibrate %s %s\n# name #rrggbb tolerance (RGB)\n", frame, boxes);
  for (int i = 0; i < n; i++)
    fprintf (f, "%s #%02x%02x%02x %.1f\n", o[i].name, o[i].r, o[i].g, o[i].b, o[i].tolerance);
  return ferror (f) ? -1 : 0;
}

/* The calibration checked on the frame it came from: each box's inscribed disc,
 * classified by the tracker's own table (cc_moct_classify): the share of its pixels
 * that go to its object, and the pixels of other balls' discs its object takes (its
 * look-alikes), as comment lines of the objects file. -1 when the table fails. */
static int calibrate_offsets (const cc_image *img, const box *b, int n,
    const cc_moct_object *o, double (*off)[3]);

static int
write_validation (FILE *f, const cc_image *img, const box *b, int n, const cc_moct_object *o)
{
  cc_context *ctx = NULL;
  cc_moct *m = NULL;
  if (cc_context_create (CC_BACKEND_CPU, 1, &ctx) != CC_SUCCESS
      || cc_moct_create (ctx, img->width, img->height, NULL, &m) != CC_SUCCESS
      || cc_moct_set_objects (m, o, n) != CC_SUCCESS) {
    int rc = cv_fail ("validation");
    cc_moct_destroy (m);
    cc_context_destroy (ctx);
    return -rc;
  }
  static int takes[MAX_BOXES][MAX_BOXES];   /* [object][box]: pixels */
  int disc[MAX_BOXES];
  memset (takes, 0, sizeof takes);
  for (int j = 0; j < n; j++) {
    double cx = b[j].x + (b[j].w - 1) / 2.0, cy = b[j].y + (b[j].h - 1) / 2.0;
    double r = fmin (b[j].w, b[j].h) / 2.0;
    disc[j] = 0;
    for (int y = b[j].y; y < b[j].y + b[j].h; y++)
      for (int x = b[j].x; x < b[j].x + b[j].w; x++) {
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r)
          continue;
        const uint8_t *p = (const uint8_t *) img->planes[0] + y * img->pitch[0] + 4 * x;
        int id = cc_moct_classify (m, false, p[0], p[1], p[2]);
        disc[j]++;
        if (id >= 0)
          takes[id][j]++;
      }
  }
  static double off[MAX_BOXES][3];
  if (calibrate_offsets (img, b, n, o, off)) {
    cc_moct_destroy (m);
    cc_context_destroy (ctx);
    return -1;
  }
  fprintf (f, "# validation on this frame (each box's inscribed disc as the table classifies "
      "it): own share; pixels taken from other balls; the offset from the centroid of the "
      "box's pixels it classifies to the box's centre\n");
  for (int i = 0; i < n; i++) {
    int other = 0, balls = 0;
    for (int j = 0; j < n; j++)
      if (j != i && takes[i][j]) {
        other += takes[i][j];
        balls++;
      }
    fprintf (f, "#   %s: %.0f%% of its %d px; takes %d px of %d other balls", o[i].name,
        disc[i] ? 100.0 * takes[i][i] / disc[i] : 0.0, disc[i], other, balls);
    for (int j = 0, k = 0; j < n; j++)
      if (j != i && takes[i][j])
        fprintf (f, "%s%s %d", k++ ? ", " : " (", o[j].name, takes[i][j]);
    fprintf (f, "%s; offset (%.2f, %.2f) px\n", balls ? ")" : "", off[i][0], off[i][1]);
  }
  cc_moct_destroy (m);
  cc_context_destroy (ctx);
  return ferror (f) ? -1 : 0;
}

/* ---------------------------------------------------------------- ball position */

/* A ball's colour blob is not centred on the ball: a shaded sphere's lit side (a
 * white ball) or its shaded side (a dark one) is what matches its colour, so the
 * blob's centroid lies off the ball's centre, towards the light or away from it. The
 * offset is measured where the ball's true box is known: the first frame's box,
 * `box centre - centroid of the box's pixels that the tracker's table gives to the
 * object` (cc_moct_classify), in px at the ball's size there (off[i][2]). Fewer than
 * OFFSET_MIN_PX classified pixels: no offset. -1 when the table fails. */
#define OFFSET_MIN_PX 8
static int
calibrate_offsets (const cc_image *img, const box *b, int n, const cc_moct_object *o,
    double (*off)[3])
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

/* The balls' apparent size over the table. The balls are one size and the table a
 * plane: in perspective, 1 / depth is affine in image coordinates, and so is the
 * apparent diameter, s(x, y) = a x + b y + c, fitted (least squares) to the
 * first-frame boxes' centres and sizes ((w + h) / 2). With fewer than 3 boxes or a
 * degenerate fit (centres on a line) the model is flat (ok false): an offset is then
 * used at its calibrated size. */
typedef struct size_model {
  double a, b, c;
  bool ok;
} size_model;

static size_model
fit_sizes (const box *bx, int n)
{
  size_model s = { 0, 0, 0, false };
  double m[3][4] = { { 0 } };
  for (int i = 0; i < n; i++) {
    double v[3] = { bx[i].x + (bx[i].w - 1) / 2.0, bx[i].y + (bx[i].h - 1) / 2.0, 1 };
    double size = (bx[i].w + bx[i].h) / 2.0;
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++)
        m[r][c] += v[r] * v[c];
      m[r][3] += v[r] * size;
    }
  }
  if (n < 3)
    return s;
  /* Gauss-Jordan with partial pivoting; a pivot under 1e-9 of the matrix's scale
   * (centres on a line) leaves the model flat */
  double scale = fmax (fmax (m[0][0], m[1][1]), m[2][2]);
  for (int c = 0; c < 3; c++) {
    int piv = c;
    for (int r = c + 1; r < 3; r++)
      if (fabs (m[r][c]) > fabs (m[piv][c]))
        piv = r;
    if (fabs (m[piv][c]) < 1e-9 * scale)
      return s;
    for (int k = 0; k < 4; k++) {
      double t = m[c][k];
      m[c][k] = m[piv][k];
      m[piv][k] = t;
    }
    for (int r = 0; r < 3; r++)
      if (r != c) {
        double f = m[r][c] / m[c][c];
        for (int k = c; k < 4; k++)
          m[r][k] -= f * m[c][k];
      }
  }
  s.a = m[0][3] / m[0][0];
  s.b = m[1][3] / m[1][1];
  s.c = m[2][3] / m[2][2];
  s.ok = true;
  return s;
}

/* The ball's position from its blob's centroid (cx, cy): the centroid moved by the
 * calibrated offset off (dx, dy at size off[2]), scaled to the ball's apparent size
 * at (cx, cy) by the size model (the ratio held to 0.5..2; 1 when the model is flat
 * or not positive there). */
static void
ball_position (const size_model *s, const double off[3], double cx, double cy, double *x,
    double *y)
{
  double ratio = 1;
  if (s->ok && off[2] > 0) {
    double size = s->a * cx + s->b * cy + s->c;
    if (size > 0)
      ratio = fmin (fmax (size / off[2], 0.5), 2.0);
  }
  *x = cx + ratio * off[0];
  *y = cy + ratio * off[1];
}

/* ---------------------------------------------------------------- objects file */

/* The objects file, parsed by cudacore's parser (cudacore/cc_moct_objects.h: `name
 * #rrggbb [tolerance [space]]` a line; files over CC_MOCT_OBJECTS_FILE_MAX or not
 * regular are refused). Objects without a tolerance get DEFAULT_TOLERANCE; without a
 * space, the tracker's (RGB). Returns the count, or -1. */
static int
read_objects (const char *path, cc_moct_object *o, int max)
{
  cc_moct_object *e = NULL;
  int n = 0;
  if (cc_moct_objects_read (path, &e, &n) != CC_SUCCESS) {
    fprintf (stderr, "cv-moct: %s\n", cc_last_error ());
    return -1;
  }
  if (n == 0 || n > max)
    fprintf (stderr, "cv-moct: %s: %s\n", path, n ? "too many objects" : "no objects");
  for (int i = 0; i < n && i < max; i++) {
    o[i] = e[i];
    if (o[i].tolerance <= 0)
      o[i].tolerance = DEFAULT_TOLERANCE;
  }
  free (e);
  return n > 0 && n <= max ? n : -1;
}

/* ---------------------------------------------------------------- frames */

/* A video through GStreamer, or a directory of PNG frames. */
typedef struct source {
  GstElement *pipeline, *sink;
  char **files;
  int nfiles, next;
} source;

static int
is_png (const struct dirent *e)
{
  size_t n = strlen (e->d_name);
  return n > 4 && !strcasecmp (e->d_name + n - 4, ".png");
}

static int
source_open (source *s, const char *path)
{
  memset (s, 0, sizeof *s);
  struct stat st;
  if (stat (path, &st)) {
    fprintf (stderr, "cv-moct: %s: %s\n", path, strerror (errno));
    return -1;
  }
  if (S_ISDIR (st.st_mode)) {
    struct dirent **list;
    int n = scandir (path, &list, is_png, alphasort);
    if (n <= 0) {
      fprintf (stderr, "cv-moct: %s: no PNG frames\n", path);
      return -1;
    }
    s->files = calloc (n, sizeof *s->files);
    for (int i = 0; i < n; i++) {
      size_t len = strlen (path) + strlen (list[i]->d_name) + 2;
      s->files[i] = malloc (len);
      snprintf (s->files[i], len, "%s/%s", path, list[i]->d_name);
      free (list[i]);
    }
    free (list);
    s->nfiles = n;
    return 0;
  }
  GError *err = NULL;
  gchar *uri = gst_filename_to_uri (path, &err);
  gchar *desc = uri ? g_strdup_printf ("uridecodebin uri=\"%s\" ! videoconvert ! "
      "video/x-raw,format=RGBA ! appsink name=sink sync=false", uri) : NULL;
  if (desc)
    s->pipeline = gst_parse_launch (desc, &err);
  g_free (uri);
  g_free (desc);
  if (!s->pipeline) {
    fprintf (stderr, "cv-moct: %s: %s\n", path, err ? err->message : "no pipeline");
    g_clear_error (&err);
    return -1;
  }
  s->sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "sink");
  if (gst_element_set_state (s->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "cv-moct: %s: the pipeline does not start\n", path);
    return -1;
  }
  return 0;
}

/* The next decoded sample of the pipeline: 1, 0 at the end of the stream, -1 after a
 * message when the pipeline posts an error or gives nothing for SOURCE_STALL_S
 * seconds (cv_gst_pull: the bus is read every 100 ms). */
#define SOURCE_STALL_S 30
static int
source_pull (source *s, GstSample **out)
{
  return cv_gst_pull (s->pipeline, s->sink, "cv-moct: decoding", SOURCE_STALL_S, out);
}

/* The next frame as a new RGBX8 host image: 1, 0 at the end, -1 on an error. */
static int
source_next (source *s, cc_image *out)
{
  if (s->files) {
    if (s->next == s->nfiles)
      return 0;
    const char *f = s->files[s->next++];
    if (cv_png_load (f, CC_FORMAT_RGBX8, out) != CC_SUCCESS) {
      fprintf (stderr, "cv-moct: %s: %s\n", f, cc_last_error ());
      return -1;
    }
    return 1;
  }
  GstSample *sample = NULL;
  int rc = source_pull (s, &sample);
  if (rc <= 0)
    return rc;
  GstVideoInfo info;
  GstVideoFrame vf;
  rc = -1;
  if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      && gst_video_frame_map (&vf, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
    int w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
    if (cv_image_new (w, h, CC_FORMAT_RGBX8, out) == CC_SUCCESS) {
      const uint8_t *src = GST_VIDEO_FRAME_PLANE_DATA (&vf, 0);
      int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0);
      for (int y = 0; y < h; y++)
        memcpy ((uint8_t *) out->planes[0] + y * out->pitch[0], src + (size_t) y * stride,
            4 * (size_t) w);
      rc = 1;
    }
    gst_video_frame_unmap (&vf);
  }
  if (rc < 0)
    fprintf (stderr, "cv-moct: a decoded frame could not be read\n");
  gst_sample_unref (sample);
  return rc;
}

static void
source_close (source *s)
{
  if (s->pipeline) {
    gst_element_set_state (s->pipeline, GST_STATE_NULL);
    gst_object_unref (s->sink);
    gst_object_unref (s->pipeline);
  }
  for (int i = 0; i < s->nfiles; i++)
    free (s->files[i]);
  free (s->files);
}

/* ---------------------------------------------------------------- tracking */

typedef struct tracker {
  cc_context *ctx;
  cc_moct *m;
  cc_image dev;           /* the frame where the backend computes */
  region roi;
  uint8_t outside[3];     /* the colour painted outside roi */
  int n, width, height;
} tracker;

/* A colour whose table cell holds no object (the first of a coarse grid): the
 * outside of the region is painted with it, so it adds to no object. */
static int
find_unmatched (const cc_moct *m, uint8_t out[3])
{
  for (int r = 0; r < 256; r += 36)
    for (int g = 0; g < 256; g += 36)
      for (int b = 0; b < 256; b += 36)
        if (cc_moct_classify (m, false, r, g, b) < 0) {
          out[0] = r;
          out[1] = g;
          out[2] = b;
          return 0;
        }
  return -1;
}

static int
tracker_init (tracker *t, cc_backend backend, int width, int height, const cc_moct_object *o,
    int n, cc_moct_space space, int min_mass, int window, double size_ratio, const region *roi)
{
  memset (t, 0, sizeof *t);
  t->n = n;
  t->width = width;
  t->height = height;
  t->roi = *roi;
  if (roi->w && (roi->x < 0 || roi->y < 0 || roi->x + roi->w > width
          || roi->y + roi->h > height)) {
    fprintf (stderr, "cv-moct: --region %d,%d,%d,%d is not inside the %dx%d frame\n",
        roi->x, roi->y, roi->w, roi->h, width, height);
    return -1;
  }
  cc_moct_params p;
  cc_moct_params_default (&p);
  p.space = space;
  p.min_mass = min_mass;
  p.window = window;
  p.size_ratio = (float) size_ratio;
  if (cc_context_create (backend, 0, &t->ctx) != CC_SUCCESS)
    return cv_fail ("cc_context_create");
  static bool said_backend;   /* once a run: a clip per tracker in calibrate */
  if (!said_backend)
    cv_report_backend (t->ctx, backend, "tracking");
  said_backend = true;
  if (cc_moct_create (t->ctx, width, height, &p, &t->m) != CC_SUCCESS)
    return cv_fail ("cc_moct_create");
  if (cc_moct_set_objects (t->m, o, n) != CC_SUCCESS)
    return cv_fail ("objects");
  if (roi->w && find_unmatched (t->m, t->outside)) {
    fprintf (stderr, "cv-moct: --region: every colour matches an object\n");
    return -1;
  }
  if (backend == CC_BACKEND_CUDA
      && cc_image_alloc (t->ctx, width, height, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE, &t->dev)
          != CC_SUCCESS)
    return cv_fail ("device frame");
  return 0;
}

/* Tracks one host RGBX8 frame (painted outside the region in place). */
static int
tracker_run (tracker *t, cc_image *frame, cc_moct_result *res)
{
  if (frame->width != t->width || frame->height != t->height) {
    fprintf (stderr, "cv-moct: a %dx%d frame in a %dx%d sequence\n", frame->width,
        frame->height, t->width, t->height);
    return -1;
  }
  if (t->roi.w)
    for (int y = 0; y < frame->height; y++) {
      uint8_t *row = (uint8_t *) frame->planes[0] + y * frame->pitch[0];
      bool in_y = y >= t->roi.y && y < t->roi.y + t->roi.h;
      for (int x = 0; x < frame->width; x++)
        if (!in_y || x < t->roi.x || x >= t->roi.x + t->roi.w)
          memcpy (row + 4 * x, t->outside, 3);
    }
  const cc_image *in = frame;
  if (t->dev.planes[0]) {
    if (cc_image_copy (t->ctx, NULL, frame, &t->dev) != CC_SUCCESS)
      return cv_fail ("upload");
    in = &t->dev;
  }
  if (cc_moct_compute (t->m, NULL, in, res) != CC_SUCCESS)
    return cv_fail ("cc_moct_compute");
  return 0;
}

/* Draws the last run's state (cc_moct_draw, everything) over frame into a PNG. */
static int
tracker_draw (tracker *t, cc_image *frame, const char *path)
{
  cc_image *target = t->dev.planes[0] ? &t->dev : frame;
  if (cc_moct_draw (t->m, NULL, target, CC_MOCT_DRAW_ALL) != CC_SUCCESS
      || (target != frame && cc_image_copy (t->ctx, NULL, target, frame) != CC_SUCCESS))
    return cv_fail ("cc_moct_draw");
  if (cv_png_save (path, frame) != CC_SUCCESS)
    return cv_fail (path);
  return 0;
}

static void
tracker_free (tracker *t)
{
  if (t->dev.planes[0])
    cc_image_free (t->ctx, &t->dev);
  if (t->m)
    cc_moct_destroy (t->m);
  if (t->ctx)
    cc_context_destroy (t->ctx);
}

static void
print_result_json (const cc_moct_object *o, const cc_moct_result *r)
{
  printf ("{\"name\":\"%s\",\"present\":%s,\"mass\":%lld,\"cx\":%.6f,\"cy\":%.6f,"
      "\"x0\":%d,\"y0\":%d,\"x1\":%d,\"y1\":%d}", o->name, r->present ? "true" : "false",
      (long long) r->mass, r->cx, r->cy, r->x0, r->y0, r->x1, r->y1);
}

/* ---------------------------------------------------------------- options */

static bool
parse_region (const char *s, region *out)
{
  char extra;
  if (!strcmp (s, "none")) {
    out->w = out->h = 0;
    return true;
  }
  if (sscanf (s, "%d,%d,%d,%d%c", &out->x, &out->y, &out->w, &out->h, &extra) != 4
      || out->x < 0 || out->y < 0 || out->w < 1 || out->h < 1)
    return cv_option_error ("--region", s, "x,y,w,h (x, y >= 0; w, h >= 1) or none");
  return true;
}

typedef struct options {
  const char *pos[2];
  int npos;
  const char *names, *output, *draw;
  bool json;
  region roi;
  bool have_roi;
  int margin, min_mass, window;
  bool offset;          /* billiard: positions corrected by the calibrated offsets */
  double size_ratio;
  cc_backend backend;
} options;

/* Returns 0, or the exit status (2) after a message. */
static int
parse_options (int argc, char **argv, const char *mode, options *op)
{
  memset (op, 0, sizeof *op);
  op->margin = DEFAULT_MARGIN;
  op->offset = true;
  op->min_mass = 16;
  op->window = !strcmp (mode, "billiard") ? DEFAULT_BILLIARD_WINDOW : 0;
  op->backend = CC_BACKEND_CPU;
  cc_moct_params defaults;
  cc_moct_params_default (&defaults);
  op->size_ratio = defaults.size_ratio;
  bool calib = !strcmp (mode, "calibrate"), bill = !strcmp (mode, "billiard");
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (calib && !strcmp (a, "--names") && v)
      op->names = v, i++;
    else if (calib && !strcmp (a, "-o") && v)
      op->output = v, i++;
    else if (!calib && !strcmp (a, "--json"))
      op->json = true;
    else if (!calib && !strcmp (a, "--region") && v)
      ok = parse_region (v, &op->roi), op->have_roi = true, i++;
    else if (!calib && !strcmp (a, "--backend") && v)
      ok = cv_parse_backend (a, v, false, &op->backend), i++;
    else if (!calib && !strcmp (a, "--window") && v)
      ok = cv_parse_int ("--window", v, 0, 4096, &op->window), i++;
    else if (!calib && !strcmp (a, "--size-ratio") && v) {
      char *end;
      op->size_ratio = strtod (v, &end);
      if (*end || end == v || !(op->size_ratio == 0 || (op->size_ratio >= 1
                  && op->size_ratio <= 100)))
        ok = cv_option_error ("--size-ratio", v, "0 (off) or a number in 1..100");
      i++;
    } else if (bill && !strcmp (a, "--offset") && v) {
      if (!strcmp (v, "on") || !strcmp (v, "off"))
        op->offset = !strcmp (v, "on");
      else
        ok = cv_option_error ("--offset", v, "on or off");
      i++;
    } else if (bill && !strcmp (a, "--margin") && v)
      ok = cv_parse_int ("--margin", v, 0, 4096, &op->margin), i++;
    else if (!calib && !bill && !strcmp (a, "--draw") && v)
      op->draw = v, i++;
    else if (!calib && !bill && !strcmp (a, "--min-mass") && v)
      ok = cv_parse_int ("--min-mass", v, 1, 1 << 30, &op->min_mass), i++;
    else if (a[0] == '-' && a[1]) {
      fprintf (stderr, "cv-moct %s: unknown option or missing value: %s\n%s", mode, a, usage);
      return 2;
    } else if (op->npos < 2)
      op->pos[op->npos++] = a;
    else {
      fprintf (stderr, "cv-moct %s: too many arguments\n%s", mode, usage);
      return 2;
    }
    if (!ok)
      return 2;
  }
  if (op->npos != (bill ? 1 : 2)) {
    fprintf (stderr, "%s", usage);
    return 2;
  }
  if (op->backend == CC_BACKEND_CUDA && cc_cuda_device_count () <= 0) {
    fprintf (stderr, "cv-moct: --backend cuda: %s\n", cc_cuda_unavailable_reason ());
    return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------- modes */

static int
cmd_calibrate (const options *op)
{
  static box b[MAX_BOXES];
  static cc_moct_object o[MAX_BOXES];
  int n = read_boxes (op->pos[1], b, MAX_BOXES);
  if (n < 0)
    return 1;
  cc_image img;
  if (cv_png_load (op->pos[0], CC_FORMAT_RGBX8, &img) != CC_SUCCESS)
    return cv_fail (op->pos[0]);
  if (check_boxes (op->pos[1], b, n, img.width, img.height)) {
    cv_image_free (&img);
    return 1;
  }
  if (calibrate (&img, b, n, op->names, o, NULL)) {
    cv_image_free (&img);
    return 2;
  }
  FILE *f = op->output ? fopen (op->output, "w") : stdout;
  int rc = 0;
  if (!f || write_objects (f, o, n, op->pos[0], op->pos[1])
      || write_validation (f, &img, b, n, o) || (op->output && fclose (f))) {
    fprintf (stderr, "cv-moct: %s: %s\n", op->output ? op->output : "stdout", strerror (errno));
    rc = 1;
  }
  cv_image_free (&img);
  return rc;
}

static int
cmd_track (const options *op)
{
  static cc_moct_object o[CC_MOCT_MAX_OBJECTS];
  int n = read_objects (op->pos[0], o, CC_MOCT_MAX_OBJECTS);
  if (n < 0)
    return 1;
  source src;
  if (source_open (&src, op->pos[1])) {
    source_close (&src);
    return 1;
  }
  cc_moct_result *res = calloc (n, sizeof *res);
  int64_t *frames_present = calloc (n, sizeof *frames_present);
  tracker t = { 0 };
  cc_image frame;
  int frames = 0, rc = 0, got;
  while ((got = source_next (&src, &frame)) > 0) {
    if (frames == 0 && tracker_init (&t, op->backend, frame.width, frame.height, o, n,
            CC_MOCT_SPACE_RGB, op->min_mass, op->window, op->size_ratio, &op->roi))
      rc = 1;
    if (!rc)
      rc = tracker_run (&t, &frame, res) ? 1 : 0;
    if (!rc && op->draw && tracker_draw (&t, &frame, op->draw))
      rc = 1;
    cv_image_free (&frame);
    if (rc)
      break;
    if (op->json) {
      printf ("{\"frame\":%d,\"objects\":[", frames);
      for (int i = 0; i < n; i++) {
        printf (i ? "," : "");
        print_result_json (&o[i], &res[i]);
      }
      printf ("]}\n");
    }
    for (int i = 0; i < n; i++)
      frames_present[i] += res[i].present;
    frames++;
  }
  if (got < 0)
    rc = 1;
  else if (!rc && frames == 0) {
    fprintf (stderr, "cv-moct: %s: no frames\n", op->pos[1]);
    rc = 1;
  }
  if (!rc && !op->json) {
    printf ("%d frames of %dx%d; %d objects (last frame's centroid and box)\n", frames,
        t.width, t.height, n);
    for (int i = 0; i < n; i++)
      printf ("%-16s present in %lld frames; last: %s mass %lld centroid (%.2f, %.2f) "
          "box %d,%d..%d,%d\n", o[i].name, (long long) frames_present[i],
          res[i].present ? "present" : "absent", (long long) res[i].mass, res[i].cx, res[i].cy,
          res[i].x0, res[i].y0, res[i].x1, res[i].y1);
  }
  tracker_free (&t);
  source_close (&src);
  free (res);
  free (frames_present);
  return rc;
}

/* ---- billiard */

typedef struct ball_eval {
  const char *status;   /* tracked, lost, pocketed */
  int box;              /* the matched last-frame box, -1 */
  int nearest_cls;      /* present: the class of the nearest last-frame box of any
                           class (another class: it ended on another ball), else 0 */
  double iou, err;
  double nearest_iou, nearest_err;   /* present: against that nearest box (whatever
                           its class: the ball followed when the labels disagree) */
  double x, y;          /* present: the ball's position (ball_position, or the
                           centroid with --offset off) */
  bool unique;          /* no other ball shares its colour */
  char shares[256];     /* the balls whose colour this one's shares */
} ball_eval;

/* One clip: its boxes and PNGs, the calibrated objects of both, the video. */
typedef struct clip {
  const char *base;
  char video[1024];
  box fb[MAX_BOXES], lb[MAX_BOXES];
  cc_moct_object o[MAX_BOXES], lo[MAX_BOXES];
  double off[MAX_BOXES][3];   /* calibrated blob offsets (calibrate_offsets) */
  size_model sizes;           /* apparent ball size over the table (fit_sizes) */
  ball_eval ev[MAX_BOXES];
  cc_moct_result res[MAX_BOXES];
  int n, nl, frames;
  cc_image first, last;
  region roi;
  double first_mad, last_mad;
} clip;

/* IoU of an inclusive result box and an x y w h box. */
static double
iou (const cc_moct_result *r, const box *b)
{
  int ix0 = r->x0 > b->x ? r->x0 : b->x, iy0 = r->y0 > b->y ? r->y0 : b->y;
  int ix1 = r->x1 < b->x + b->w - 1 ? r->x1 : b->x + b->w - 1;
  int iy1 = r->y1 < b->y + b->h - 1 ? r->y1 : b->y + b->h - 1;
  double inter = ix0 <= ix1 && iy0 <= iy1 ? (double) (ix1 - ix0 + 1) * (iy1 - iy0 + 1) : 0;
  double ar = (double) (r->x1 - r->x0 + 1) * (r->y1 - r->y0 + 1), ab = (double) b->w * b->h;
  return inter / (ar + ab - inter);
}

/* Mean |a - b| over the R, G, B bytes of two RGBX8 images of one size; -1 otherwise. */
static double
mean_abs_diff (const cc_image *a, const cc_image *b)
{
  if (a->width != b->width || a->height != b->height)
    return -1;
  double s = 0;
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      for (int k = 0; k < 3; k++)
        s += abs (((const uint8_t *) a->planes[0])[y * a->pitch[0] + 4 * x + k]
            - ((const uint8_t *) b->planes[0])[y * b->pitch[0] + 4 * x + k]);
  return s / (3.0 * a->width * a->height);
}

/* Reads the clip's boxes and PNGs, finds its .mp4 and calibrates both frames. */
static int
clip_load (clip *c, const char *dir)
{
  char path[4][1024];
  c->base = strrchr (dir, '/') && strrchr (dir, '/')[1] ? strrchr (dir, '/') + 1 : dir;
  snprintf (path[0], sizeof path[0], "%s/frames/frame_first.png", dir);
  snprintf (path[1], sizeof path[1], "%s/bounding_boxes/frame_first_bbox.txt", dir);
  snprintf (path[2], sizeof path[2], "%s/bounding_boxes/frame_last_bbox.txt", dir);
  snprintf (path[3], sizeof path[3], "%s/frames/frame_last.png", dir);
  c->n = read_boxes (path[1], c->fb, MAX_BOXES);
  c->nl = read_boxes (path[2], c->lb, MAX_BOXES);
  if (c->n < 0 || c->nl < 0)
    return 1;
  DIR *d = opendir (dir);
  for (struct dirent *e; d && (e = readdir (d));) {
    size_t len = strlen (e->d_name);
    if (len > 4 && !strcasecmp (e->d_name + len - 4, ".mp4"))
      snprintf (c->video, sizeof c->video, "%s/%s", dir, e->d_name);
  }
  if (d)
    closedir (d);
  if (!c->video[0]) {
    fprintf (stderr, "cv-moct: %s: no .mp4 video\n", dir);
    return 1;
  }
  if (cv_png_load (path[0], CC_FORMAT_RGBX8, &c->first) != CC_SUCCESS)
    return cv_fail (path[0]);
  if (cv_png_load (path[3], CC_FORMAT_RGBX8, &c->last) != CC_SUCCESS)
    return cv_fail (path[3]);
  if (check_boxes (path[1], c->fb, c->n, c->first.width, c->first.height)
      || check_boxes (path[2], c->lb, c->nl, c->last.width, c->last.height))
    return 1;
  calibrate (&c->first, c->fb, c->n, NULL, c->o, NULL);
  if (calibrate_offsets (&c->first, c->fb, c->n, c->o, c->off))
    return 1;
  /* offsets are scaled by the size model's ratio between the two positions */
  c->sizes = fit_sizes (c->fb, c->n);
  for (int i = 0; c->sizes.ok && i < c->n; i++) {
    double s0 = c->sizes.a * (c->fb[i].x + (c->fb[i].w - 1) / 2.0)
        + c->sizes.b * (c->fb[i].y + (c->fb[i].h - 1) / 2.0) + c->sizes.c;
    if (s0 > 0)
      c->off[i][2] = s0;
  }
  /* the last frame's balls, calibrated the same way: which colours are still there */
  calibrate (&c->last, c->lb, c->nl, NULL, c->lo, NULL);
  return 0;
}

/* Which balls share a colour: two calibrated colours closer than the sum of their
 * tolerances (a pixel may go to either), and the cue with every stripe (the white
 * band). A ball that shares nothing is `unique`. */
static void
clip_shares (clip *c)
{
  for (int i = 0; i < c->n; i++) {
    ball_eval *e = &c->ev[i];
    e->box = -1;
    e->shares[0] = '\0';
    for (int j = 0; j < c->n; j++) {
      const cc_moct_object *a = &c->o[i], *b = &c->o[j];
      uint8_t ca[3] = { a->r, a->g, a->b }, cb[3] = { b->r, b->g, b->b };
      bool shared = cdist (ca, cb) <= a->tolerance + b->tolerance
          || (c->fb[i].cls == 1 && c->fb[j].cls == 4) || (c->fb[i].cls == 4 && c->fb[j].cls == 1);
      if (j != i && shared) {
        size_t len = strlen (e->shares);
        snprintf (e->shares + len, sizeof e->shares - len, "%s%s", len ? "," : "", b->name);
      }
    }
    e->unique = !e->shares[0];
  }
}

/* The default region: the table's cloth in the first frame, grown by the margin. The
 * cloth is grown from each box's border pixels (the cloth around the balls) over
 * 4-neighbours that differ by at most CLOTH_STEP (RGB) from the pixel they are
 * reached from and lie within CLOTH_FILL of the cloth's colour (the median of the
 * boxes' cloth colours): the fill follows the cloth's light falloff and stops at the
 * rails, pockets and whatever lies off the table; the balls and the cushions are
 * inside its bounding box. The first-frame boxes are always inside the region. */
static region
clip_region (const clip *c, int margin)
{
  const int w = c->first.width, h = c->first.height;
  int x0 = w, y0 = h, x1 = 0, y1 = 0;
  for (int i = 0; i < c->n; i++) {
    const box *b = &c->fb[i];
    x0 = b->x < x0 ? b->x : x0;
    y0 = b->y < y0 ? b->y : y0;
    x1 = b->x + b->w - 1 > x1 ? b->x + b->w - 1 : x1;
    y1 = b->y + b->h - 1 > y1 ? b->y + b->h - 1 : y1;
  }
  uint8_t (*cl)[3] = malloc ((c->n ? c->n : 1) * sizeof *cl), cloth[3];
  uint8_t *seen = calloc ((size_t) w * h, 1);
  int *stack = malloc ((size_t) w * h * sizeof *stack);
  if (cl && seen && stack && c->n > 0) {
    for (int i = 0; i < c->n; i++) {
      uint8_t col[3];
      float tol;
      calibrate_box (&c->first, &c->fb[i], col, &tol, cl[i]);
    }
    median_rgb (&cl[0][0], c->n, cloth);
    const uint8_t *px = c->first.planes[0];
    const int pitch = c->first.pitch[0];
    int top = 0;
    for (int i = 0; i < c->n; i++) {
      const box *b = &c->fb[i];
      for (int y = b->y; y < b->y + b->h; y++)
        for (int x = b->x; x < b->x + b->w; x++) {
          if (y != b->y && y != b->y + b->h - 1 && x != b->x && x != b->x + b->w - 1)
            continue;
          if (rgb_dist (px + y * pitch + 4 * x, cloth) > CLOTH_FILL || seen[y * w + x])
            continue;
          seen[y * w + x] = 1;
          stack[top++] = y * w + x;
        }
    }
    while (top > 0) {
      int k = stack[--top], x = k % w, y = k / w;
      const uint8_t *p = px + y * pitch + 4 * x;
      x0 = x < x0 ? x : x0;
      y0 = y < y0 ? y : y0;
      x1 = x > x1 ? x : x1;
      y1 = y > y1 ? y : y1;
      const int nx[4] = { x - 1, x + 1, x, x }, ny[4] = { y, y, y - 1, y + 1 };
      for (int j = 0; j < 4; j++) {
        if (nx[j] < 0 || ny[j] < 0 || nx[j] >= w || ny[j] >= h || seen[ny[j] * w + nx[j]])
          continue;
        const uint8_t *q = px + ny[j] * pitch + 4 * nx[j];
        if (rgb_dist (q, p) > CLOTH_STEP || rgb_dist (q, cloth) > CLOTH_FILL)
          continue;
        seen[ny[j] * w + nx[j]] = 1;
        stack[top++] = ny[j] * w + nx[j];
      }
    }
  }
  free (cl);
  free (seen);
  free (stack);
  x0 = x0 - margin > 0 ? x0 - margin : 0;
  y0 = y0 - margin > 0 ? y0 - margin : 0;
  x1 = x1 + margin < w - 1 ? x1 + margin : w - 1;
  y1 = y1 + margin < h - 1 ? y1 + margin : h - 1;
  return (region) { x0, y0, x1 - x0 + 1, y1 - y0 + 1 };
}

/* Tracks the whole video (each ball seeded at its first-frame box with a window);
 * c->res gets the last frame's results. */
static int
clip_track (clip *c, const options *op)
{
  source src;
  if (source_open (&src, c->video)) {
    source_close (&src);
    return 1;
  }
  tracker t = { 0 };
  cc_image frame, keep = { 0 };
  int rc = 0, got;
  c->frames = 0;
  c->first_mad = c->last_mad = -1;
  while ((got = source_next (&src, &frame)) > 0) {
    if (c->frames == 0) {
      c->first_mad = mean_abs_diff (&frame, &c->first);
      if (tracker_init (&t, op->backend, frame.width, frame.height, c->o, c->n,
              CC_MOCT_SPACE_RGB, 16, op->window, op->size_ratio, &c->roi))
        rc = 1;
      for (int i = 0; !rc && op->window > 0 && i < c->n; i++)
        if (cc_moct_seed (t.m, NULL, i, c->fb[i].x + c->fb[i].w / 2,
                c->fb[i].y + c->fb[i].h / 2) != CC_SUCCESS)
          rc = cv_fail ("cc_moct_seed");
    }
    if (keep.planes[0])
      cv_image_free (&keep);
    keep = frame;
    /* the core gets a copy: the last frame is compared before it is painted */
    cc_image copy;
    if (!rc && cv_image_new (frame.width, frame.height, CC_FORMAT_RGBX8, &copy) == CC_SUCCESS) {
      memcpy (copy.planes[0], frame.planes[0], copy.pitch[0] * copy.height);
      rc = tracker_run (&t, &copy, c->res) ? 1 : 0;
      cv_image_free (&copy);
    }
    if (rc)
      break;
    c->frames++;
  }
  if (got < 0)
    rc = 1;
  if (!rc && c->frames == 0) {
    fprintf (stderr, "cv-moct: %s: no frames decoded\n", c->video);
    rc = 1;
  }
  if (!rc)
    c->last_mad = mean_abs_diff (&keep, &c->last);
  if (keep.planes[0])
    cv_image_free (&keep);
  tracker_free (&t);
  source_close (&src);
  return rc;
}

/* Each ball's status against the last frame's boxes: a present ball matches the
 * nearest box of its class (tracked when its IoU is > 0, else lost); an absent one
 * is lost while a box of its class has its colour, else pocketed. */
static void
clip_evaluate (clip *c, bool offset)
{
  for (int i = 0; i < c->n; i++) {
    ball_eval *e = &c->ev[i];
    const cc_moct_result *r = &c->res[i];
    const cc_moct_object *o = &c->o[i];
    e->nearest_cls = 0;
    e->nearest_iou = e->nearest_err = 0;
    e->x = r->cx;
    e->y = r->cy;
    if (r->present && offset)
      ball_position (&c->sizes, c->off[i], r->cx, r->cy, &e->x, &e->y);
    if (r->present) {
      double best = INFINITY, any = INFINITY;
      for (int j = 0; j < c->nl; j++) {
        const box *b = &c->lb[j];
        double dd = hypot (e->x - (b->x + (b->w - 1) / 2.0), e->y - (b->y + (b->h - 1) / 2.0));
        if (b->cls == c->fb[i].cls && dd < best) {
          best = dd;
          e->box = j;
        }
        if (dd < any) {
          any = dd;
          e->nearest_cls = b->cls;
          e->nearest_err = dd;
          e->nearest_iou = iou (r, b);
        }
      }
      if (e->box >= 0) {
        e->err = best;
        e->iou = iou (r, &c->lb[e->box]);
      }
      e->status = e->box >= 0 && e->iou > 0 ? "tracked" : "lost";
    } else {
      uint8_t col[3] = { o->r, o->g, o->b };
      bool there = false;
      for (int j = 0; j < c->nl; j++) {
        uint8_t lc[3] = { c->lo[j].r, c->lo[j].g, c->lo[j].b };
        there |= c->lb[j].cls == c->fb[i].cls && cdist (col, lc) <= o->tolerance;
      }
      e->status = there ? "lost" : "pocketed";
    }
  }
}

/* Counts over the balls of one class (0: the unique-colour cue, eight and solids,
 * the headline figures), as JSON or text. */
typedef struct tally {
  int balls, tracked, lost, pocketed;
  int on_other;   /* present and nearest to a last-frame box of another class */
  double sum_iou, sum_err, max_err, min_iou;
} tally;

static tally
clip_tally (const clip *c, int cls)
{
  tally t = { 0, 0, 0, 0, 0, 0, 0, 0, 1 };
  for (int i = 0; i < c->n; i++) {
    const ball_eval *e = &c->ev[i];
    if (cls ? c->fb[i].cls != cls : !(c->fb[i].cls <= 2 || (c->fb[i].cls == 3 && e->unique)))
      continue;
    t.balls++;
    t.on_other += e->nearest_cls && e->nearest_cls != c->fb[i].cls;
    if (!strcmp (e->status, "tracked")) {
      t.tracked++;
      t.sum_iou += e->iou;
      t.sum_err += e->err;
      t.max_err = fmax (t.max_err, e->err);
      t.min_iou = fmin (t.min_iou, e->iou);
    } else if (!strcmp (e->status, "lost"))
      t.lost++;
    else
      t.pocketed++;
  }
  if (!t.tracked)
    t.min_iou = 0;
  return t;
}

static void
clip_print_json (const clip *c)
{
  tally u = clip_tally (c, 0);
  printf ("{\"clip\":\"%s\",\"frames\":%d,\"width\":%d,\"height\":%d,"
      "\"region\":[%d,%d,%d,%d],\"first_frame_mad\":%.3f,\"last_frame_mad\":%.3f,"
      "\"evaluated\":%d,\"tracked\":%d,\"lost\":%d,\"pocketed\":%d,\"mean_iou\":%.4f,"
      "\"min_iou\":%.4f,\"mean_centroid_error\":%.4f,\"max_centroid_error\":%.4f,\"classes\":{",
      c->base, c->frames, c->first.width, c->first.height, c->roi.x, c->roi.y, c->roi.w,
      c->roi.h, c->first_mad, c->last_mad, u.balls, u.tracked, u.lost, u.pocketed,
      u.tracked ? u.sum_iou / u.tracked : 0, u.min_iou, u.tracked ? u.sum_err / u.tracked : 0,
      u.max_err);
  for (int k = 1; k <= 4; k++) {
    tally t = clip_tally (c, k);
    printf ("%s\"%s\":{\"balls\":%d,\"tracked\":%d,\"lost\":%d,\"pocketed\":%d,"
        "\"on_other_class\":%d,\"mean_iou\":%.4f,\"mean_centroid_error\":%.4f,"
        "\"max_centroid_error\":%.4f}",
        k > 1 ? "," : "", class_names[k], t.balls, t.tracked, t.lost, t.pocketed, t.on_other,
        t.tracked ? t.sum_iou / t.tracked : 0, t.tracked ? t.sum_err / t.tracked : 0, t.max_err);
  }
  printf ("},\"balls\":[");
  for (int i = 0; i < c->n; i++) {
    const cc_moct_result *r = &c->res[i];
    const ball_eval *e = &c->ev[i];
    const cc_moct_object *o = &c->o[i];
    printf ("%s{\"name\":\"%s\",\"class\":%d,\"colour\":\"#%02x%02x%02x\",\"tolerance\":%.1f,"
        "\"offset_dx\":%.3f,\"offset_dy\":%.3f,"
        "\"unique\":%s,\"shares\":\"%s\",\"status\":\"%s\",\"present\":%s,\"lost_gate\":%s,"
        "\"cx\":%.3f,\"cy\":%.3f,\"blob_cx\":%.3f,\"blob_cy\":%.3f,"
        "\"x0\":%d,\"y0\":%d,\"x1\":%d,\"y1\":%d,\"box\":%d,"
        "\"nearest_class\":%d,\"nearest_iou\":%.4f,\"nearest_centroid_error\":%.4f,"
        "\"iou\":%.4f,\"centroid_error\":%.4f}", i ? "," : "",
        o->name, c->fb[i].cls, o->r, o->g, o->b, o->tolerance, c->off[i][0], c->off[i][1],
        e->unique ? "true" : "false", e->shares, e->status,
        r->present ? "true" : "false", r->lost ? "true" : "false", e->x, e->y, r->cx, r->cy,
        r->x0, r->y0, r->x1, r->y1, e->box, e->nearest_cls, e->nearest_iou, e->nearest_err,
        e->iou, e->err);
  }
  printf ("]}\n");
}

static void
clip_print_text (const clip *c)
{
  printf ("%s: %d frames of %dx%d decoded; first / last frame vs the PNGs: mean |diff| "
      "%.2f / %.2f; region %d,%d,%d,%d\n", c->base, c->frames, c->first.width, c->first.height,
      c->first_mad, c->last_mad, c->roi.x, c->roi.y, c->roi.w, c->roi.h);
  printf ("%-8s %-5s %-8s %5s  %-8s %6s %9s  %s\n", "ball", "class", "colour", "tol",
      "status", "IoU", "centroid", "shares colour with");
  for (int i = 0; i < c->n; i++) {
    const cc_moct_object *o = &c->o[i];
    const ball_eval *e = &c->ev[i];
    printf ("%-8s %-5d #%02x%02x%02x %5.1f  %-8s %6.3f %9.2f  %s", o->name, c->fb[i].cls,
        o->r, o->g, o->b, o->tolerance, e->status, e->iou, e->err, e->shares);
    if (e->nearest_cls && e->nearest_cls != c->fb[i].cls)
      printf ("  (nearest box: class %d, IoU %.3f, %.2f px)", e->nearest_cls, e->nearest_iou,
          e->nearest_err);
    printf ("\n");
  }
  tally u = clip_tally (c, 0);
  printf ("unique colours (cue, eight, unique solids) %d: tracked %d (mean IoU %.3f, min "
      "%.3f; centroid error mean %.2f, max %.2f px), lost %d, pocketed %d\n", u.balls,
      u.tracked, u.tracked ? u.sum_iou / u.tracked : 0, u.min_iou,
      u.tracked ? u.sum_err / u.tracked : 0, u.max_err, u.lost, u.pocketed);
}

static int
cmd_billiard (const options *op)
{
  static clip c;
  memset (&c, 0, sizeof c);
  int rc = clip_load (&c, op->pos[0]);
  if (!rc) {
    clip_shares (&c);
    c.roi = op->have_roi ? op->roi : clip_region (&c, op->margin);
    rc = clip_track (&c, op);
  }
  if (!rc) {
    clip_evaluate (&c, op->offset);
    if (op->json)
      clip_print_json (&c);
    else
      clip_print_text (&c);
  }
  if (c.first.planes[0])
    cv_image_free (&c.first);
  if (c.last.planes[0])
    cv_image_free (&c.last);
  return rc;
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && !strcmp (argv[1], "--version")) {
    cv_print_version ();
    return 0;
  }
  for (int i = 1; i < argc; i++)
    if (cv_is_help (argv[i])) {
      printf ("%s%s", usage, help);
      return 0;
    }
  if (argc < 2 || (strcmp (argv[1], "calibrate") && strcmp (argv[1], "track")
          && strcmp (argv[1], "billiard"))) {
    fprintf (stderr, "%s", usage);
    return 2;
  }
  options op;
  int rc = parse_options (argc, argv, argv[1], &op);
  if (rc)
    return rc;
  if (!strcmp (argv[1], "calibrate"))
    return cmd_calibrate (&op);
  gst_init (NULL, NULL);
  return !strcmp (argv[1], "track") ? cmd_track (&op) : cmd_billiard (&op);
}
