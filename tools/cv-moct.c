/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-moct: the objects of the multi-object chromatic tracker (cc_moct, the moctracker
 * element's core; docs/moctracker.md, "Calibration and billiard evaluation"):
 * calibrated from boxes on a frame, and tracked over a video or a folder of frames.
 *
 *   cv-moct calibrate FRAME.png BOXES.txt [--names a,b,...] [-o OBJECTS.txt]
 *   cv-moct track OBJECTS.txt VIDEO|DIR [--json] [--region x,y,w,h] [--backend cpu|cuda]
 *                    [--min-mass N] [--window PX] [--size-ratio R] [--draw LAST.png]
 *
 * calibrate: refuses boxes not inside the frame; one object per box (`x y w h class`
 *   a line; class 1 cue, 2 eight, 3 solid, 4 striped), its colour and tolerance from
 *   the box's pixels (tools/common/cv_moct_calib.h says how). Then the objects are
 *   checked on the same frame with the tracker's own table (comment lines: each
 *   object's share of its disc, the pixels it takes from other balls, its blob's
 *   offset to its box's centre: cv_moct_calibrate_offsets).
 * track: cc_moct over every frame of a video (GStreamer: uridecodebin, RGBA) or of a
 *   directory of PNG frames (sorted by name); outside --region the frame copy given
 *   to the core is painted a colour that no object matches. --window PX: the core's
 *   search window (cc_moct_params.window; 0, the default: the whole frame);
 *   --size-ratio R its look-alike gate (cc_moct_params.size_ratio, default 3). A
 *   pipeline error on the bus, or no frame for CV_MOCT_SOURCE_STALL_S s, ends the run
 *   (exit 1).
 * The billiard evaluation of the shared clips is tools/dev/moct-billiard. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_moct_calib.h"
#include "cv_moct_track.h"
#include <cudacore/cc_moct.h>

#include <gst/gst.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage =
    "usage: cv-moct calibrate FRAME.png BOXES.txt [--names a,b,...] [-o OBJECTS.txt]\n"
    "       cv-moct track OBJECTS.txt VIDEO|DIR [--json] [--region x,y,w,h]\n"
    "                     [--backend cpu|cuda] [--min-mass N] [--window PX] [--size-ratio R]\n"
    "                     [--draw LAST.png]\n"
    "       cv-moct --help | --version\n";
static const char *help =
    "The objects of the multi-object colour tracker (moctracker's core): calibrated from\n"
    "boxes on a frame, tracked over a video or a folder of frames.\n"
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
    "  -h, --help          this text\n"
    "  --version           the program's version\n";

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
static int
write_validation (FILE *f, const cc_image *img, const cv_moct_box *b, int n,
    const cc_moct_object *o)
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
  static int takes[CV_MOCT_MAX_BOXES][CV_MOCT_MAX_BOXES];   /* [object][box]: pixels */
  int disc[CV_MOCT_MAX_BOXES];
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
  static double off[CV_MOCT_MAX_BOXES][3];
  if (cv_moct_calibrate_offsets (img, b, n, o, off)) {
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

static void
print_result_json (const cc_moct_object *o, const cc_moct_result *r)
{
  printf ("{\"name\":\"%s\",\"present\":%s,\"mass\":%lld,\"cx\":%.6f,\"cy\":%.6f,"
      "\"x0\":%d,\"y0\":%d,\"x1\":%d,\"y1\":%d}", o->name, r->present ? "true" : "false",
      (long long) r->mass, r->cx, r->cy, r->x0, r->y0, r->x1, r->y1);
}

/* ---------------------------------------------------------------- options */

typedef struct options {
  const char *pos[2];
  int npos;
  const char *names, *output, *draw;
  bool json;
  cv_moct_region roi;
  int min_mass, window;
  double size_ratio;
  cc_backend backend;
} options;

/* Returns 0, or the exit status (2) after a message. */
static int
parse_options (int argc, char **argv, const char *mode, options *op)
{
  memset (op, 0, sizeof *op);
  op->min_mass = 16;
  op->backend = CC_BACKEND_CPU;
  cc_moct_params defaults;
  cc_moct_params_default (&defaults);
  op->size_ratio = defaults.size_ratio;
  bool calib = !strcmp (mode, "calibrate");
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
      ok = cv_moct_parse_region (v, &op->roi), i++;
    else if (!calib && !strcmp (a, "--backend") && v)
      ok = cv_parse_backend (a, v, false, &op->backend), i++;
    else if (!calib && !strcmp (a, "--window") && v)
      ok = cv_parse_int ("--window", v, 0, 4096, &op->window), i++;
    else if (!calib && !strcmp (a, "--size-ratio") && v)
      ok = cv_moct_parse_size_ratio (v, &op->size_ratio), i++;
    else if (!calib && !strcmp (a, "--draw") && v)
      op->draw = v, i++;
    else if (!calib && !strcmp (a, "--min-mass") && v)
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
  if (op->npos != 2) {
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
  static cv_moct_box b[CV_MOCT_MAX_BOXES];
  static cc_moct_object o[CV_MOCT_MAX_BOXES];
  int n = cv_moct_read_boxes (op->pos[1], b, CV_MOCT_MAX_BOXES);
  if (n < 0)
    return 1;
  cc_image img;
  if (cv_png_load (op->pos[0], CC_FORMAT_RGBX8, &img) != CC_SUCCESS)
    return cv_fail (op->pos[0]);
  if (cv_moct_check_boxes (op->pos[1], b, n, img.width, img.height)) {
    cv_image_free (&img);
    return 1;
  }
  if (cv_moct_calibrate (&img, b, n, op->names, o, NULL)) {
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
  int n = cv_moct_read_objects (op->pos[0], o, CC_MOCT_MAX_OBJECTS);
  if (n < 0)
    return 1;
  cv_moct_source src;
  if (cv_moct_source_open (&src, op->pos[1])) {
    cv_moct_source_close (&src);
    return 1;
  }
  cc_moct_result *res = calloc (n, sizeof *res);
  int64_t *frames_present = calloc (n, sizeof *frames_present);
  cv_moct_tracker t = { 0 };
  cc_image frame;
  int frames = 0, rc = 0, got;
  while ((got = cv_moct_source_next (&src, &frame)) > 0) {
    if (frames == 0 && cv_moct_tracker_init (&t, op->backend, frame.width, frame.height, o, n,
            CC_MOCT_SPACE_RGB, op->min_mass, op->window, op->size_ratio, &op->roi))
      rc = 1;
    if (!rc)
      rc = cv_moct_tracker_run (&t, &frame, res) ? 1 : 0;
    if (!rc && op->draw && cv_moct_tracker_draw (&t, &frame, op->draw))
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
  cv_moct_tracker_free (&t);
  cv_moct_source_close (&src);
  free (res);
  free (frames_present);
  return rc;
}

int
main (int argc, char **argv)
{
  if (cv_command_version_or_help (argc, argv, usage, help))
    return 0;
  if (argc < 2 || (strcmp (argv[1], "calibrate") && strcmp (argv[1], "track"))) {
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
  return cmd_track (&op);
}
