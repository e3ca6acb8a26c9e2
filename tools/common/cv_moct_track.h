/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The multi-object chromatic tracker (cc_moct) over the frames of a video or of a
 * folder of PNGs, for cv-moct track and tools/dev/moct-billiard: the frame source
 * (GStreamer: uridecodebin, RGBA), the tracker with its searched region, and the
 * options both parse. Built with GStreamer (tools/meson.build: cvmoct); messages on
 * stderr start with the program's name. */
#ifndef CV_MOCT_TRACK_H
#define CV_MOCT_TRACK_H

#include <cudacore/cc_moct.h>
#include <gst/gst.h>
#include <stdbool.h>

/* A part of the frame: w == 0 is the whole frame. */
typedef struct cv_moct_region {
  int x, y, w, h;
} cv_moct_region;

/* --region: "x,y,w,h" (x, y >= 0; w, h >= 1) or "none" (the whole frame); false after
 * a message otherwise. */
bool cv_moct_parse_region (const char *s, cv_moct_region *out);
/* --size-ratio: 0 (off) or a number in 1..100; false after a message otherwise. */
bool cv_moct_parse_size_ratio (const char *s, double *out);

/* A video through GStreamer, or a directory of PNG frames (sorted by name). */
typedef struct cv_moct_source {
  GstElement *pipeline, *sink;
  char **files;
  int nfiles, next;
} cv_moct_source;

/* Opens path (gst_init done): 0, or -1 after a message (close it all the same). */
int cv_moct_source_open (cv_moct_source *s, const char *path);
/* The next frame as a new RGBX8 host image: 1, 0 at the end, -1 after a message when
 * a frame cannot be read, the pipeline posts an error or gives no frame for
 * CV_MOCT_SOURCE_STALL_S seconds (cv_gst_pull: the bus is read every 100 ms). */
#define CV_MOCT_SOURCE_STALL_S 30
int cv_moct_source_next (cv_moct_source *s, cc_image *out);
void cv_moct_source_close (cv_moct_source *s);

typedef struct cv_moct_tracker {
  cc_context *ctx;
  cc_moct *m;
  cc_image dev;           /* the frame where the backend computes */
  cv_moct_region roi;
  uint8_t outside[3];     /* the colour painted outside roi */
  int n, width, height;
} cv_moct_tracker;

/* A tracker of objects o[0..n) for width x height frames on backend: the core's
 * parameters space, min_mass, window (0: the whole frame) and size_ratio; outside roi
 * the frames are painted a colour no object matches. Says the backend on stderr once
 * a run. 0, or nonzero after a message (free it all the same). */
int cv_moct_tracker_init (cv_moct_tracker *t, cc_backend backend, int width, int height,
    const cc_moct_object *o, int n, cc_moct_space space, int min_mass, int window,
    double size_ratio, const cv_moct_region *roi);
/* Tracks one host RGBX8 frame (painted outside the region in place) into res[0..n). */
int cv_moct_tracker_run (cv_moct_tracker *t, cc_image *frame, cc_moct_result *res);
/* Draws the last run's state (cc_moct_draw, everything) over frame into a PNG. */
int cv_moct_tracker_draw (cv_moct_tracker *t, cc_image *frame, const char *path);
void cv_moct_tracker_free (cv_moct_tracker *t);
#endif
