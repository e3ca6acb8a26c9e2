/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-mkclip: writes the project's synthetic clip (media/) with ground truth.
 *
 *   cv-mkclip DIR [--frames N] [--size WxH] [--objects N | --foreground plain|active]
 *             (frames: 2..10000; W, H: 16..8192)
 *   cv-mkclip --version
 *
 * DIR/frame_%03d.png (RGB) and DIR/flow_%03d.flo (true flow from frame t to t+1).
 * With --objects N (1..16): the moving-objects clip instead (cv_synth_objects_at: N
 * discs and ellipses of palette colours on grey, for the moctracker), with
 * DIR/objects.csv: per frame and object the exact mass, centroid and inclusive
 * bounding box of the pixels it covers (from the drawn pixel sets).
 * With --foreground plain|active: the foreground clip instead (cv_synth_fg_frame: a
 * textured object moving over a textured plate, with sensor noise 6), DIR/plate.png
 * (the empty plate, no noise) and DIR/mask_%03d.png (exact: 255 object, 0 background,
 * the cast shadow included in the background). plain: every frame under the same
 * light, with the object's shadow; active: alternating illumination, even frames lit
 * (a light near the object), odd frames unlit. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_flow_io.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char help[] =
"usage: cv-mkclip DIR [--frames N] [--size WxH] [--objects N | --foreground plain|active]\n"
"Writes the project's synthetic clip with exact ground truth into DIR (created):\n"
"frame_NNN.png and flow_NNN.flo, the true flow from frame N to N+1.\n"
"  --frames N       frames to write (2..10000; default 24)\n"
"  --size WxH       frame size (16..8192 a side; default 640x360)\n"
"  --objects N      the moving-objects clip instead (1..16 discs and ellipses of\n"
"                   palette colours on grey, for moctracker), with objects.csv: per\n"
"                   frame and object the exact mass, centroid and box\n"
"  --foreground M   the foreground clip instead (plain: one light, with the object's\n"
"                   shadow; active: even frames lit, odd frames unlit), with\n"
"                   plate.png (the empty plate) and mask_NNN.png (exact masks)\n"
"  -h, --help       this text\n"
"  --version        the program's version\n";

/* The moving-objects clip and its truth table. */
static int
write_objects_clip (const char *dir, int frames, int w, int h, int n)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/objects.csv", dir);
  FILE *csv = fopen (path, "w");
  if (!csv) {
    fprintf (stderr, "cv-mkclip: cannot write %s: %s\n", path, strerror (errno));
    return 1;
  }
  fprintf (csv, "frame,object,r,g,b,mass,cx,cy,x0,y0,x1,y1\n");
  int *owner = malloc (sizeof (int) * w * h);
  for (int t = 0; t < frames && owner; t++) {
    cv_synth_shape s[16];
    cc_image frame;
    cv_synth_objects_at (t, w, h, n, s);
    if (cv_synth_shapes (w, h, s, n, &frame, owner) != CC_SUCCESS) {
      free (owner);
      fclose (csv);
      fprintf (stderr, "cv-mkclip: %s\n", cc_last_error ());
      return 1;
    }
    snprintf (path, sizeof path, "%s/frame_%03d.png", dir, t);
    cc_status st = cv_png_save (path, &frame);
    cv_image_free (&frame);
    if (st != CC_SUCCESS) {
      free (owner);
      fclose (csv);
      fprintf (stderr, "cv-mkclip: %s\n", cc_last_error ());
      return 1;
    }
    for (int k = 0; k < n; k++) {
      long long m = 0, sx = 0, sy = 0;
      int x0 = w, y0 = h, x1 = -1, y1 = -1;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          if (owner[y * w + x] == k) {
            m++; sx += x; sy += y;
            x0 = x < x0 ? x : x0; x1 = x > x1 ? x : x1;
            y0 = y < y0 ? y : y0; y1 = y > y1 ? y : y1;
          }
      if (m == 0)
        x0 = y0 = 0;
      fprintf (csv, "%d,%d,%d,%d,%d,%lld,%.6f,%.6f,%d,%d,%d,%d\n", t, k, s[k].r, s[k].g,
          s[k].b_, m, m ? (double) sx / m : 0.0, m ? (double) sy / m : 0.0, x0, y0, x1, y1);
    }
  }
  free (owner);
  fclose (csv);
  printf ("cv-mkclip: %d frames of %dx%d with %d objects in %s\n", frames, w, h, n, dir);
  return 0;
}

/* The foreground clip (quadcut): frames, exact masks and the plate. */
static int
write_foreground_clip (const char *dir, int frames, int w, int h, int active)
{
  char path[4096];
  cc_image img;
  uint8_t *mask = malloc ((size_t) w * h);
  cc_status st = mask ? cv_synth_fg_plate (w, h, &img) : CC_ERROR_OUT_OF_MEMORY;
  if (st == CC_SUCCESS) {
    snprintf (path, sizeof path, "%s/plate.png", dir);
    st = cv_png_save (path, &img);
    cv_image_free (&img);
  }
  for (int t = 0; t < frames && st == CC_SUCCESS; t++) {
    int light = !active ? CV_SYNTH_FG_PLAIN : (t % 2 ? CV_SYNTH_FG_UNLIT : CV_SYNTH_FG_LIT);
    st = cv_synth_fg_frame (t, w, h, light, 6, &img, mask);
    if (st != CC_SUCCESS)
      break;
    snprintf (path, sizeof path, "%s/frame_%03d.png", dir, t);
    st = cv_png_save (path, &img);
    cv_image_free (&img);
    if (st == CC_SUCCESS) {
      cc_image m = cc_image_view (mask, (size_t) w, w, h, CC_FORMAT_GRAY8, CC_LOCATION_HOST);
      snprintf (path, sizeof path, "%s/mask_%03d.png", dir, t);
      st = cv_png_save (path, &m);
    }
  }
  free (mask);
  if (st != CC_SUCCESS) {
    fprintf (stderr, "cv-mkclip: %s\n", cc_last_error ());
    return 1;
  }
  printf ("cv-mkclip: %d foreground frames (%s) of %dx%d in %s\n", frames,
      active ? "active" : "plain", w, h, dir);
  return 0;
}

int
main (int argc, char **argv)
{
  const char *dir = NULL;
  int frames = 24, w = 640, h = 360, objects = 0, foreground = -1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc) {
      if (!cv_parse_int ("--frames", argv[++i], 2, 10000, &frames))
        return 2;
    } else if (!strcmp (argv[i], "--objects") && i + 1 < argc) {
      if (!cv_parse_int ("--objects", argv[++i], 1, 16, &objects))
        return 2;
    } else if (!strcmp (argv[i], "--foreground") && i + 1 < argc) {
      i++;
      if (!strcmp (argv[i], "plain"))
        foreground = 0;
      else if (!strcmp (argv[i], "active"))
        foreground = 1;
      else {
        cv_option_error ("--foreground", argv[i], "one of plain, active");
        return 2;
      }
    } else if (!strcmp (argv[i], "--size") && i + 1 < argc) {
      char extra;
      if (sscanf (argv[++i], "%dx%d%c", &w, &h, &extra) != 2) {
        fprintf (stderr, "cv-mkclip: --size wants WxH, got %s\n", argv[i]);
        return 2;
      }
    } else if (cv_version_or_help (argv[i], help)) {
      return 0;
    } else if (argv[i][0] != '-' && !dir)
      dir = argv[i];
    else {
      fprintf (stderr, "usage: cv-mkclip DIR [--frames N] [--size WxH] [--objects N | "
          "--foreground plain|active]\n");
      return 2;
    }
  }
  if (!dir || frames < 2 || frames > 10000 || w < 16 || h < 16 || w > 8192 || h > 8192) {
    fprintf (stderr, "usage: cv-mkclip DIR [--frames 2..10000] [--size WxH, 16..8192]\n");
    return 2;
  }
  if (objects < 0 || objects > 16) {
    fprintf (stderr, "cv-mkclip: --objects must be in 1..16\n");
    return 2;
  }
  if (mkdir (dir, 0755) != 0 && errno != EEXIST) {
    fprintf (stderr, "cv-mkclip: cannot create %s: %s\n", dir, strerror (errno));
    return 1;
  }
  if (objects > 0 && foreground >= 0) {
    fprintf (stderr, "cv-mkclip: --objects and --foreground make different clips: one of "
        "them\n");
    return 2;
  }
  if (objects > 0)
    return write_objects_clip (dir, frames, w, h, objects);
  if (foreground >= 0)
    return write_foreground_clip (dir, frames, w, h, foreground);
  for (int t = 0; t < frames; t++) {
    cc_image frame, truth;
    char path[4096];
    if (cv_synth_clip_frame (t, w, h, &frame, &truth) != CC_SUCCESS) {
      fprintf (stderr, "cv-mkclip: %s\n", cc_last_error ());
      return 1;
    }
    snprintf (path, sizeof path, "%s/frame_%03d.png", dir, t);
    cc_status st = cv_png_save (path, &frame);
    if (st == CC_SUCCESS && t + 1 < frames) {
      snprintf (path, sizeof path, "%s/flow_%03d.flo", dir, t);
      st = cc_flo_write (path, &truth);
    }
    cv_image_free (&frame);
    cv_image_free (&truth);
    if (st != CC_SUCCESS) {
      fprintf (stderr, "cv-mkclip: %s\n", cc_last_error ());
      return 1;
    }
  }
  printf ("cv-mkclip: %d frames of %dx%d in %s\n", frames, w, h, dir);
  return 0;
}
