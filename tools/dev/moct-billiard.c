/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moct-billiard: the billiard evaluation of the multi-object chromatic tracker
 * (cc_moct; docs/moctracker.md, "Calibration and billiard evaluation") on one clip of
 * ../shared/media/tracking (tools/dev/moct-eval.sh runs it on every clip).
 *
 *   moct-billiard CLIP_DIR [--json] [--region x,y,w,h|none] [--margin PX]
 *                 [--backend cpu|cuda] [--window PX] [--size-ratio R] [--offset on|off]
 *
 * Calibrates on frames/frame_first.png and its boxes (as cv-moct calibrate:
 * tools/common/cv_moct_calib.h), tracks the clip's video (search window 16 px, each
 * ball seeded at its first-frame box), compares the last frame with
 * bounding_boxes/frame_last_bbox.txt; a ball's position is its blob's centroid moved
 * by its calibrated offset at the ball's apparent size there (ball_position;
 * --offset off: the centroid). The searched region is by default the table's cloth
 * (clip_region). */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_moct_calib.h"
#include "cv_moct_track.h"
#include <cudacore/cc_moct.h>

#include <gst/gst.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CLOTH_FILL 80.0       /* region: RGB distance to the cloth's colour */
#define CLOTH_STEP 12.0       /* region: RGB step between neighbouring pixels */
/* balls are about 17 px across and move up to about a radius a frame */
#define DEFAULT_WINDOW 16
#define DEFAULT_MARGIN 16

static const char *usage =
    "usage: moct-billiard CLIP_DIR [--json] [--region x,y,w,h|none] [--margin PX]\n"
    "                     [--backend cpu|cuda] [--window PX (default 16)] [--size-ratio R]\n"
    "                     [--offset on|off (default on)]\n"
    "       moct-billiard --help | --version\n";
static const char *help =
    "The billiard evaluation of the multi-object colour tracker (moctracker's core):\n"
    "calibrate on CLIP_DIR/frames/frame_first.png, track the clip, compare the last frame\n"
    "with bounding_boxes/frame_last_bbox.txt (pixel errors)\n"
    "  --json              one JSON document instead of text\n"
    "  --region x,y,w,h|none  the searched part (default: the cloth, found from its\n"
    "                      colour; none: the whole frame)\n"
    "  --margin PX         the cloth region grown by PX (default 16)\n"
    "  --backend cpu|cuda  the backend (default cpu)\n"
    "  --window PX         search window around the last position (default 16; 0: the\n"
    "                      whole frame)\n"
    "  --size-ratio R      refuse a blob R times larger or smaller than the last one\n"
    "                      (0: off, or 1..100; default 3)\n"
    "  --offset on|off     a ball's position: its blob's centroid moved by the offset\n"
    "                      calibrated on the first frame (on, the default), or the\n"
    "                      centroid\n"
    "  -h, --help          this text\n"
    "  --version           the program's version\n";

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
fit_sizes (const cv_moct_box *bx, int n)
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

typedef struct options {
  const char *clip;
  bool json;
  cv_moct_region roi;
  bool have_roi;
  int margin, window;
  bool offset;          /* positions corrected by the calibrated offsets */
  double size_ratio;
  cc_backend backend;
} options;

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
  cv_moct_box fb[CV_MOCT_MAX_BOXES], lb[CV_MOCT_MAX_BOXES];
  cc_moct_object o[CV_MOCT_MAX_BOXES], lo[CV_MOCT_MAX_BOXES];
  double off[CV_MOCT_MAX_BOXES][3];   /* blob offsets (cv_moct_calibrate_offsets) */
  size_model sizes;           /* apparent ball size over the table (fit_sizes) */
  ball_eval ev[CV_MOCT_MAX_BOXES];
  cc_moct_result res[CV_MOCT_MAX_BOXES];
  int n, nl, frames;
  cc_image first, last;
  cv_moct_region roi;
  double first_mad, last_mad;
} clip;

/* IoU of an inclusive result box and an x y w h box. */
static double
iou (const cc_moct_result *r, const cv_moct_box *b)
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
  c->n = cv_moct_read_boxes (path[1], c->fb, CV_MOCT_MAX_BOXES);
  c->nl = cv_moct_read_boxes (path[2], c->lb, CV_MOCT_MAX_BOXES);
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
    fprintf (stderr, "moct-billiard: %s: no .mp4 video\n", dir);
    return 1;
  }
  if (cv_png_load (path[0], CC_FORMAT_RGBX8, &c->first) != CC_SUCCESS)
    return cv_fail (path[0]);
  if (cv_png_load (path[3], CC_FORMAT_RGBX8, &c->last) != CC_SUCCESS)
    return cv_fail (path[3]);
  if (cv_moct_check_boxes (path[1], c->fb, c->n, c->first.width, c->first.height)
      || cv_moct_check_boxes (path[2], c->lb, c->nl, c->last.width, c->last.height))
    return 1;
  cv_moct_calibrate (&c->first, c->fb, c->n, NULL, c->o, NULL);
  if (cv_moct_calibrate_offsets (&c->first, c->fb, c->n, c->o, c->off))
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
  cv_moct_calibrate (&c->last, c->lb, c->nl, NULL, c->lo, NULL);
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
      bool shared = cv_moct_colour_distance (ca, cb) <= a->tolerance + b->tolerance
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
static cv_moct_region
clip_region (const clip *c, int margin)
{
  const int w = c->first.width, h = c->first.height;
  int x0 = w, y0 = h, x1 = 0, y1 = 0;
  for (int i = 0; i < c->n; i++) {
    const cv_moct_box *b = &c->fb[i];
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
      cv_moct_calibrate_box (&c->first, &c->fb[i], col, &tol, cl[i]);
    }
    cv_moct_median_rgb (&cl[0][0], c->n, cloth);
    const uint8_t *px = c->first.planes[0];
    const int pitch = c->first.pitch[0];
    int top = 0;
    for (int i = 0; i < c->n; i++) {
      const cv_moct_box *b = &c->fb[i];
      for (int y = b->y; y < b->y + b->h; y++)
        for (int x = b->x; x < b->x + b->w; x++) {
          if (y != b->y && y != b->y + b->h - 1 && x != b->x && x != b->x + b->w - 1)
            continue;
          if (cv_moct_rgb_distance (px + y * pitch + 4 * x, cloth) > CLOTH_FILL || seen[y * w + x])
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
        if (cv_moct_rgb_distance (q, p) > CLOTH_STEP
            || cv_moct_rgb_distance (q, cloth) > CLOTH_FILL)
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
  return (cv_moct_region) { x0, y0, x1 - x0 + 1, y1 - y0 + 1 };
}

/* Tracks the whole video (each ball seeded at its first-frame box with a window);
 * c->res gets the last frame's results. */
static int
clip_track (clip *c, const options *op)
{
  cv_moct_source src;
  if (cv_moct_source_open (&src, c->video)) {
    cv_moct_source_close (&src);
    return 1;
  }
  cv_moct_tracker t = { 0 };
  cc_image frame, keep = { 0 };
  int rc = 0, got;
  c->frames = 0;
  c->first_mad = c->last_mad = -1;
  while ((got = cv_moct_source_next (&src, &frame)) > 0) {
    if (c->frames == 0) {
      c->first_mad = mean_abs_diff (&frame, &c->first);
      if (cv_moct_tracker_init (&t, op->backend, frame.width, frame.height, c->o, c->n,
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
      rc = cv_moct_tracker_run (&t, &copy, c->res) ? 1 : 0;
      cv_image_free (&copy);
    }
    if (rc)
      break;
    c->frames++;
  }
  if (got < 0)
    rc = 1;
  if (!rc && c->frames == 0) {
    fprintf (stderr, "moct-billiard: %s: no frames decoded\n", c->video);
    rc = 1;
  }
  if (!rc)
    c->last_mad = mean_abs_diff (&keep, &c->last);
  if (keep.planes[0])
    cv_image_free (&keep);
  cv_moct_tracker_free (&t);
  cv_moct_source_close (&src);
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
        const cv_moct_box *b = &c->lb[j];
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
        there |= c->lb[j].cls == c->fb[i].cls && cv_moct_colour_distance (col, lc) <= o->tolerance;
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
        k > 1 ? "," : "", cv_moct_class_names[k], t.balls, t.tracked, t.lost, t.pocketed,
        t.on_other, t.tracked ? t.sum_iou / t.tracked : 0, t.tracked ? t.sum_err / t.tracked : 0, t.max_err);
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
  int rc = clip_load (&c, op->clip);
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

/* Returns 0, or the exit status after a message (2: a usage error). */
static int
parse_options (int argc, char **argv, options *op)
{
  memset (op, 0, sizeof *op);
  op->margin = DEFAULT_MARGIN;
  op->offset = true;
  op->window = DEFAULT_WINDOW;
  op->backend = CC_BACKEND_CPU;
  cc_moct_params defaults;
  cc_moct_params_default (&defaults);
  op->size_ratio = defaults.size_ratio;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp (a, "--json"))
      op->json = true;
    else if (!strcmp (a, "--region") && v)
      ok = cv_moct_parse_region (v, &op->roi), op->have_roi = true, i++;
    else if (!strcmp (a, "--backend") && v)
      ok = cv_parse_backend (a, v, false, &op->backend), i++;
    else if (!strcmp (a, "--window") && v)
      ok = cv_parse_int ("--window", v, 0, 4096, &op->window), i++;
    else if (!strcmp (a, "--size-ratio") && v)
      ok = cv_moct_parse_size_ratio (v, &op->size_ratio), i++;
    else if (!strcmp (a, "--offset") && v) {
      if (!strcmp (v, "on") || !strcmp (v, "off"))
        op->offset = !strcmp (v, "on");
      else
        ok = cv_option_error ("--offset", v, "on or off");
      i++;
    } else if (!strcmp (a, "--margin") && v)
      ok = cv_parse_int ("--margin", v, 0, 4096, &op->margin), i++;
    else if (a[0] == '-' && a[1]) {
      fprintf (stderr, "moct-billiard: unknown option or missing value: %s\n%s", a, usage);
      return 2;
    } else if (!op->clip)
      op->clip = a;
    else {
      fprintf (stderr, "moct-billiard: too many arguments\n%s", usage);
      return 2;
    }
    if (!ok)
      return 2;
  }
  if (!op->clip) {
    fprintf (stderr, "%s", usage);
    return 2;
  }
  if (op->backend == CC_BACKEND_CUDA && cc_cuda_device_count () <= 0) {
    fprintf (stderr, "moct-billiard: --backend cuda: %s\n", cc_cuda_unavailable_reason ());
    return 1;
  }
  return 0;
}

int
main (int argc, char **argv)
{
  if (cv_command_version_or_help (argc, argv, usage, help))
    return 0;
  options op;
  int rc = parse_options (argc, argv, &op);
  if (rc)
    return rc;
  gst_init (NULL, NULL);
  return cmd_billiard (&op);
}
