/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-pipeline-bench: steady-state throughput of a pipeline and the time one of its
 * elements holds each buffer.
 *
 *   cv-pipeline-bench "videotestsrc num-buffers=1 ! ... ! cudaflowlk name=e ! ... ! fakesink name=sink" [LABEL]
 *   cv-pipeline-bench --version
 *
 * Buffer probes on the element named "e" (optional) time each buffer from its sink
 * pad to its src pad (what the element adds to a frame's trip); a probe on "sink"
 * gives the fps over the frames after the first WARMUP. Prints one JSON line. */
#include "cv_gst.h"
#include "cv_cli.h"
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#define WARMUP 30
#define MAX_FRAMES 100000

static const char help[] =
"usage: cv-pipeline-bench \"LAUNCH\" [LABEL]\n"
"Steady-state throughput of a gst-launch pipeline and the time one of its elements\n"
"holds each buffer; prints one JSON line (LABEL names it; default: the pipeline).\n"
"  LAUNCH      a gst-launch-1.0 line whose last element is \"fakesink name=sink\": the\n"
"              fps over the frames after the first " G_STRINGIFY (WARMUP) " (the warm-up); an element\n"
"              named e (optional) is timed from its sink pad to its src pad\n"
"              (at most " G_STRINGIFY (MAX_FRAMES) " frames)\n"
"  -h, --help  this text\n"
"  --version   the program's version\n"
"example: cv-pipeline-bench \"videotestsrc num-buffers=300 ! video/x-raw,format=I420,\n"
"         width=1920,height=1080 ! cudaflowlk name=e ! fakesink name=sink\"\n";

static gint64 entered;             /* element sink pad, current buffer */
static double element_us[MAX_FRAMES];
static int n_element;
static gint64 sink_times[MAX_FRAMES];
static int n_sink;

static GstPadProbeReturn
on_enter (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  entered = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_leave (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (n_element < MAX_FRAMES)
    element_us[n_element++] = (double) (g_get_monotonic_time () - entered);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_sink (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (n_sink < MAX_FRAMES)
    sink_times[n_sink++] = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
probe (GstElement * pipe, const char *name, const char *pad, GstPadProbeCallback cb)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  if (!e)
    return;
  GstPad *p = gst_element_get_static_pad (e, pad);
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, cb, NULL, NULL);
  gst_object_unref (p);
  gst_object_unref (e);
}

int
main (int argc, char **argv)
{
  if (argc == 2 && !strcmp (argv[1], "--version")) {
    cv_print_version ();
    return 0;
  }
  if (argc >= 2 && cv_is_help (argv[1])) {
    fputs (help, stdout);
    return 0;
  }
  gst_init (&argc, &argv);
  if (argc < 2 || argc > 3 || argv[1][0] == '-') {
    fprintf (stderr, "usage: cv-pipeline-bench \"LAUNCH with name=e and fakesink name=sink\" [label]"
        " (--help: more)\n");
    return 2;
  }
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (argv[1], &err);
  if (!pipe) {
    fprintf (stderr, "cv-pipeline-bench: %s\n", err->message);
    return 1;
  }
  probe (pipe, "e", "sink", on_enter);
  probe (pipe, "e", "src", on_leave);
  probe (pipe, "sink", "sink", on_sink);
  cv_gst_report_backends (pipe, "cv-pipeline-bench");
  int rc = cv_gst_play_to_end (pipe, "cv-pipeline-bench") ? 0 : 1;
  gst_object_unref (pipe);
  if (rc)
    return rc;
  double fps = 0;
  if (n_sink > WARMUP + 1)
    fps = (n_sink - 1 - WARMUP) * 1e6 / (double) (sink_times[n_sink - 1] - sink_times[WARMUP]);
  double median = 0, p90 = 0;
  if (n_element > WARMUP + 1) {
    int n = n_element - WARMUP;
    qsort (element_us + WARMUP, n, sizeof (double), cmp_double);
    median = element_us[WARMUP + n / 2];
    p90 = element_us[WARMUP + (int) (n * 0.9)];
  }
  printf ("{\"pipeline\":\"%s\",\"frames\":%d,\"fps\":%.1f,\"frame_ms\":%.3f,"
      "\"element_median_ms\":%.3f,\"element_p90_ms\":%.3f}\n", argc > 2 ? argv[2] : "",
      n_sink, fps, fps > 0 ? 1000.0 / fps : 0.0, median / 1000.0, p90 / 1000.0);
  return 0;
}
