/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cvd-flicker: temporal coherence of cvdmosaic on a clip, one JSON object per mode.
 *
 *   cvd-flicker [--frames N] [--sites N] [--iterations K] [--settle K]
 *               [--density uniform|dark|bright|gradient] [--backend cpu|cuda|auto] CLIP
 *   cvd-flicker --version
 *
 * Flicker (tools/common/cv_flicker.h): among the pixels whose input is static between
 * two consecutive frames (every channel within 4 of the previous frame's: the
 * background of a static camera, not the moving people), the share whose rendered
 * colour changes by more than 4 in some channel (smaller changes are the input's
 * noise passed through the cell means); averaged over the clip's frame pairs. The
 * lower, the steadier the mosaic. flicker_any counts every change, the camera's noise
 * included. Modes:
 *  cold:   the sites re-seeded on every frame (each buffer is flagged DISCONT): the
 *          same seeding, settling and K iterations on every frame, from scratch:
 *          what a per-frame CVD gives;
 *  warm:   the sites kept from frame to frame (the element's default);
 *  advect: warm, and each cell moved by the mean LK flow of its pixels (advect=flow).
 * With the uniform density a cold start draws the same diagram on every frame
 * whatever the content, so there cold is the floor (only cell colours change) and
 * warm can at best equal it; the content-weighted densities (dark, gradient: the
 * stippling and mosaic looks) are where a cold start re-converges into another
 * diagram on every frame.
 * The element runs in a pipeline (uridecodebin ! videoconvert ! RGBA ! tee, one
 * branch to the mosaic), so this measures what users get; the cudavision plugin must
 * be on GST_PLUGIN_PATH (build/gst). */
#include "cv_cli.h"
#include "cv_flicker.h"
#include "cv_gst.h"
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static GstPadProbeReturn
mark_discont (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstBuffer *buf = gst_pad_probe_info_get_buffer (info);
  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* No frame for this long from either branch ends the run: cvdmosaic's first frame
 * settles the sites (an 8K frame took 298 s on the loaded 2-core machine). */
#define FLICKER_STALL_S 600

/* The next RGBA frame of an appsink, copied packed into *out (realloc'd); 0 at the
 * end, -1 after "PREFIX: MESSAGE" on stderr when the pipeline fails (a file that is not a playable
 * video: cv_gst_pull reads the bus, a blocking pull would wait forever). */
static int
pull (GstElement *pipe, GstElement *sink, const char *prefix, guint8 **out, int *w, int *h)
{
  GstSample *sample = NULL;
  int rc = cv_gst_pull (pipe, sink, prefix, FLICKER_STALL_S, &sample);
  if (rc <= 0)
    return rc;
  GstVideoInfo info;
  GstVideoFrame vf;
  int ok = 0;
  if (gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      && gst_video_frame_map (&vf, &info, gst_sample_get_buffer (sample), GST_MAP_READ)) {
    *w = GST_VIDEO_INFO_WIDTH (&info);
    *h = GST_VIDEO_INFO_HEIGHT (&info);
    *out = realloc (*out, (size_t) 4 * *w * *h);
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&vf, 0);
    int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0);
    for (int y = 0; y < *h; y++)
      memcpy (*out + (size_t) 4 * *w * y, src + (size_t) stride * y, (size_t) 4 * *w);
    gst_video_frame_unmap (&vf);
    ok = 1;
  }
  gst_sample_unref (sample);
  return ok;
}

static int
measure (const char *path, const char *mode, int frames, int sites, int iterations, int settle,
    const char *density, const char *backend)
{
  GError *err = NULL;
  gchar *uri = gst_filename_to_uri (path, &err);
  if (!uri) {
    fprintf (stderr, "cvd-flicker: %s: %s\n", path, err->message);
    g_error_free (err);
    return 1;
  }
  gchar *desc = g_strdup_printf ("uridecodebin uri=\"%s\" ! videoconvert ! "
      "video/x-raw,format=RGBA ! tee name=t "
      "t. ! queue ! appsink name=in sync=false "
      "t. ! queue ! cvdmosaic name=m backend=%s sites=%d iterations=%d "
      "settle-iterations=%d density=%s advect=%s ! appsink name=out sync=false", uri,
      backend, sites, iterations, settle, density, strcmp (mode, "advect") ? "none" : "flow");
  GstElement *pipe = gst_parse_launch (desc, &err);
  g_free (uri);
  g_free (desc);
  if (!pipe) {
    fprintf (stderr, "cvd-flicker: %s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    return 1;
  }
  GstElement *in = gst_bin_get_by_name (GST_BIN (pipe), "in");
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstElement *m = gst_bin_get_by_name (GST_BIN (pipe), "m");
  if (!strcmp (mode, "cold")) {
    GstPad *pad = gst_element_get_static_pad (m, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, mark_discont, NULL, NULL);
    gst_object_unref (pad);
  }
  cv_gst_report_backends (pipe, "cvd-flicker");
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "cvd-flicker: %s: the pipeline does not start\n", path);
    return 1;
  }
  guint8 *a[2] = { NULL, NULL }, *r[2] = { NULL, NULL };
  int w = 0, h = 0, n = 0;
  double sum = 0.0, sum_any = 0.0;
  long long static_px = 0;
  int failed = 0;
  gchar *prefix = g_strdup_printf ("cvd-flicker: %s", path);   /* cv_gst_pull's messages */
  for (; n < frames; n++) {
    int cur = n & 1, prev = cur ^ 1;
    int got = pull (pipe, in, prefix, &a[cur], &w, &h);
    if (got > 0)
      got = pull (pipe, out, prefix, &r[cur], &w, &h);
    if (got <= 0) {
      failed = got < 0;
      break;
    }
    if (n == 0)
      continue;
    long long still, changed, any;
    cv_flicker_pair (a[prev], a[cur], r[prev], r[cur], (size_t) w * h, &still, &changed, &any);
    sum_any += still ? (double) any / still : 0.0;
    sum += still ? (double) changed / still : 0.0;
    static_px += still;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (out);
  gst_object_unref (m);
  gst_object_unref (pipe);
  free (a[0]); free (a[1]); free (r[0]); free (r[1]);
  g_free (prefix);
  if (failed)
    return 1;
  if (n < 2) {
    fprintf (stderr, "cvd-flicker: %s: fewer than 2 frames decoded\n", path);
    return 1;
  }
  printf ("{\"tool\":\"cvd-flicker\",\"clip\":\"%s\",\"width\":%d,\"height\":%d,\"frames\":%d,"
      "\"mode\":\"%s\",\"sites\":%d,\"iterations\":%d,\"settle\":%d,\"density\":\"%s\","
      "\"backend\":\"%s\",\"static_share\":%.4f,\"flicker\":%.5f,\"flicker_any\":%.5f}\n",
      path, w, h, n, mode, sites, iterations, settle, density, backend,
      (double) static_px / ((double) w * h * (n - 1)), sum / (n - 1), sum_any / (n - 1));
  fflush (stdout);
  return 0;
}

static const char help[] =
"usage: cvd-flicker [--frames N] [--sites N] [--iterations K] [--settle K]\n"
"                   [--density uniform|dark|bright|gradient] [--backend cpu|cuda|auto] CLIP\n"
"Temporal coherence of cvdmosaic on a video file (decoded by uridecodebin): the share\n"
"of static input pixels whose rendered colour changes between frames (flicker; the\n"
"lower, the steadier) and flicker_any (every change), one JSON line per mode: cold\n"
"(sites re-seeded every frame), warm (kept, the element's default), advect (warm and\n"
"moved by the flow). The cudavision plugin must be on GST_PLUGIN_PATH (build/gst).\n"
"  --frames N        frames of the clip (2..100000; default 60)\n"
"  --sites N         the mosaic's sites (16..1000000; default 2000)\n"
"  --iterations K    Lloyd iterations a frame (1..100; default 2)\n"
"  --settle K        settling iterations on the first frame (0..1000; default 30)\n"
"  --density D       uniform, dark, bright or gradient (default uniform)\n"
"  --backend B       cpu, cuda or auto (default auto)\n"
"  -h, --help        this text\n"
"  --version         the program's version\n";

int
main (int argc, char **argv)
{
  int frames = 60, sites = 2000, iterations = 2, settle = 30;
  const char *backend = "auto", *density = "uniform", *clip = NULL;
  gst_init (NULL, NULL);
  for (int i = 1; i < argc; i++) {
    if (cv_version_or_help (argv[i], help))
      return 0;
    else if (!strcmp (argv[i], "--frames") && i + 1 < argc) {
      if (!cv_parse_int ("--frames", argv[++i], 2, 100000, &frames))
        return 2;
    } else if (!strcmp (argv[i], "--sites") && i + 1 < argc) {
      if (!cv_parse_int ("--sites", argv[++i], 16, 1000000, &sites))
        return 2;
    } else if (!strcmp (argv[i], "--iterations") && i + 1 < argc) {
      if (!cv_parse_int ("--iterations", argv[++i], 1, 100, &iterations))
        return 2;
    } else if (!strcmp (argv[i], "--settle") && i + 1 < argc) {
      if (!cv_parse_int ("--settle", argv[++i], 0, 1000, &settle))
        return 2;
    } else if (!strcmp (argv[i], "--density") && i + 1 < argc) {
      density = argv[++i];
      if (strcmp (density, "uniform") && strcmp (density, "dark") && strcmp (density, "bright")
          && strcmp (density, "gradient")) {
        cv_option_error ("--density", density, "one of uniform, dark, bright or gradient");
        return 2;
      }
    } else if (!strcmp (argv[i], "--backend") && i + 1 < argc) {
      backend = argv[++i];
      if (strcmp (backend, "cpu") && strcmp (backend, "cuda") && strcmp (backend, "auto")) {
        cv_option_error ("--backend", backend, "cpu, cuda or auto");
        return 2;
      }
    } else if (argv[i][0] != '-' && !clip) {
      clip = argv[i];
    } else {
      fprintf (stderr, "usage: cvd-flicker [--frames N] [--sites N] [--iterations K] "
          "[--settle K] [--density uniform|dark|bright|gradient] [--backend cpu|cuda|auto] "
          "CLIP | --version\n");
      return 2;
    }
  }
  if (!clip) {
    fprintf (stderr, "cvd-flicker: no clip (e.g. ../shared/media/video/vtest.avi)\n");
    return 2;
  }
  const char *modes[] = { "cold", "warm", "advect" };
  for (int k = 0; k < 3; k++)
    if (measure (clip, modes[k], frames, sites, iterations, settle, density, backend))
      return 1;
  return 0;
}
