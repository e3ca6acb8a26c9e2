/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracker over the frames of a video or a PNG folder (cv_moct_track.h). */
#define _GNU_SOURCE   /* program_invocation_short_name */
#include "cv_moct_track.h"
#include "cv_cli.h"
#include "cv_gst.h"
#include "cv_imageio.h"

#include <gst/video/video.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG program_invocation_short_name

/* ---------------------------------------------------------------- frames */

static int
is_png (const struct dirent *e)
{
  size_t n = strlen (e->d_name);
  return n > 4 && !strcasecmp (e->d_name + n - 4, ".png");
}

int
cv_moct_source_open (cv_moct_source *s, const char *path)
{
  memset (s, 0, sizeof *s);
  struct stat st;
  if (stat (path, &st)) {
    fprintf (stderr, "%s: %s: %s\n", PROG, path, strerror (errno));
    return -1;
  }
  if (S_ISDIR (st.st_mode)) {
    struct dirent **list;
    int n = scandir (path, &list, is_png, alphasort);
    if (n <= 0) {
      fprintf (stderr, "%s: %s: no PNG frames\n", PROG, path);
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
    fprintf (stderr, "%s: %s: %s\n", PROG, path, err ? err->message : "no pipeline");
    g_clear_error (&err);
    return -1;
  }
  s->sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "sink");
  if (gst_element_set_state (s->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "%s: %s: the pipeline does not start\n", PROG, path);
    return -1;
  }
  return 0;
}

/* The next decoded sample of the pipeline (cv_gst_pull, messages "PROG: decoding: ..."). */
static int
cv_moct_source_pull (cv_moct_source *s, GstSample **out)
{
  char prefix[256];
  snprintf (prefix, sizeof prefix, "%s: decoding", PROG);
  return cv_gst_pull (s->pipeline, s->sink, prefix, CV_MOCT_SOURCE_STALL_S, out);
}

int
cv_moct_source_next (cv_moct_source *s, cc_image *out)
{
  if (s->files) {
    if (s->next == s->nfiles)
      return 0;
    const char *f = s->files[s->next++];
    if (cv_png_load (f, CC_FORMAT_RGBX8, out) != CC_SUCCESS) {
      fprintf (stderr, "%s: %s: %s\n", PROG, f, cc_last_error ());
      return -1;
    }
    return 1;
  }
  GstSample *sample = NULL;
  int rc = cv_moct_source_pull (s, &sample);
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
    fprintf (stderr, "%s: a decoded frame could not be read\n", PROG);
  gst_sample_unref (sample);
  return rc;
}

void
cv_moct_source_close (cv_moct_source *s)
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

int
cv_moct_tracker_init (cv_moct_tracker *t, cc_backend backend, int width, int height,
    const cc_moct_object *o, int n, cc_moct_space space, int min_mass, int window,
    double size_ratio, const cv_moct_region *roi)
{
  memset (t, 0, sizeof *t);
  t->n = n;
  t->width = width;
  t->height = height;
  t->roi = *roi;
  if (roi->w && (roi->x < 0 || roi->y < 0 || roi->x + roi->w > width
          || roi->y + roi->h > height)) {
    fprintf (stderr, "%s: --region %d,%d,%d,%d is not inside the %dx%d frame\n", PROG,
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
    fprintf (stderr, "%s: --region: every colour matches an object\n", PROG);
    return -1;
  }
  if (backend == CC_BACKEND_CUDA
      && cc_image_alloc (t->ctx, width, height, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE, &t->dev)
          != CC_SUCCESS)
    return cv_fail ("device frame");
  return 0;
}

int
cv_moct_tracker_run (cv_moct_tracker *t, cc_image *frame, cc_moct_result *res)
{
  if (frame->width != t->width || frame->height != t->height) {
    fprintf (stderr, "%s: a %dx%d frame in a %dx%d sequence\n", PROG, frame->width,
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

int
cv_moct_tracker_draw (cv_moct_tracker *t, cc_image *frame, const char *path)
{
  cc_image *target = t->dev.planes[0] ? &t->dev : frame;
  if (cc_moct_draw (t->m, NULL, target, CC_MOCT_DRAW_ALL) != CC_SUCCESS
      || (target != frame && cc_image_copy (t->ctx, NULL, target, frame) != CC_SUCCESS))
    return cv_fail ("cc_moct_draw");
  if (cv_png_save (path, frame) != CC_SUCCESS)
    return cv_fail (path);
  return 0;
}

void
cv_moct_tracker_free (cv_moct_tracker *t)
{
  if (t->dev.planes[0])
    cc_image_free (t->ctx, &t->dev);
  if (t->m)
    cc_moct_destroy (t->m);
  if (t->ctx)
    cc_context_destroy (t->ctx);
}

/* ---------------------------------------------------------------- options */

bool
cv_moct_parse_region (const char *s, cv_moct_region *out)
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


bool
cv_moct_parse_size_ratio (const char *s, double *out)
{
  char *end;
  *out = strtod (s, &end);
  if (*end || end == s || !(*out == 0 || (*out >= 1 && *out <= 100)))
    return cv_option_error ("--size-ratio", s, "0 (off) or a number in 1..100");
  return true;
}
