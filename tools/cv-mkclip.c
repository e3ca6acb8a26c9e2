/* cv-mkclip: writes the project's synthetic clip (media/) with ground truth.
 *
 *   cv-mkclip DIR [--frames N] [--size WxH]     (N: 2..10000; W, H: 16..8192)
 *   cv-mkclip --version
 *
 * DIR/frame_%03d.png (RGB) and DIR/flow_%03d.flo (true flow from frame t to t+1). */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_flow.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
main (int argc, char **argv)
{
  const char *dir = NULL;
  int frames = 24, w = 640, h = 360;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc) {
      if (!cv_parse_int ("--frames", argv[++i], 2, 10000, &frames))
        return 2;
    } else if (!strcmp (argv[i], "--size") && i + 1 < argc) {
      char extra;
      if (sscanf (argv[++i], "%dx%d%c", &w, &h, &extra) != 2) {
        fprintf (stderr, "cv-mkclip: --size wants WxH, got %s\n", argv[i]);
        return 2;
      }
    } else if (!strcmp (argv[i], "--version")) {
      cv_print_version ();
      return 0;
    } else if (argv[i][0] != '-' && !dir)
      dir = argv[i];
    else {
      fprintf (stderr, "usage: cv-mkclip DIR [--frames N] [--size WxH]\n");
      return 2;
    }
  }
  if (!dir || frames < 2 || frames > 10000 || w < 16 || h < 16 || w > 8192 || h > 8192) {
    fprintf (stderr, "usage: cv-mkclip DIR [--frames 2..10000] [--size WxH, 16..8192]\n");
    return 2;
  }
  if (mkdir (dir, 0755) != 0 && errno != EEXIST) {
    fprintf (stderr, "cv-mkclip: cannot create %s: %s\n", dir, strerror (errno));
    return 1;
  }
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
