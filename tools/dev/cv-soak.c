/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-soak: memory growth of one element over a long stream.
 *
 *   cv-soak [--frames N] [--size WxH] [--format F] [--memory system|cuda]
 *           [--every K] [--warmup W] [--limit-kb L] "ELEMENT [PROPERTIES]"
 *   cv-soak --version
 *
 * Runs videotestsrc (pattern=ball, N frames, default 10000) of WxH (default
 * 1920x1080) in format F (default NV12) through the element, in system memory or, with
 * --memory cuda, in CUDA memory (cudaupload; needs a GPU and nvcodec), into fakesink.
 * Every K frames (default 1000) it samples the process's RSS (/proc/self/statm) and,
 * on a GPU machine, the device memory the process holds (nvidia-smi
 * --query-compute-apps). Prints one line per sample and a JSON summary: the growth
 * from the first sample at or after W frames (default 2000, the warm-up) to the last.
 * Exit status 1 when the RSS or the device memory grew by more than L kB (default
 * 1024), 2 on usage errors, 3 when the pipeline fails. */
#include "cv_gst.h"
#include "cv_cli.h"
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SAMPLES 4096

typedef struct {
  guint64 frame;
  long rss_kb;
  long device_kb;    /* -1: no reading */
} Sample;

static Sample samples[MAX_SAMPLES];

static const char help[] =
"usage: cv-soak [--frames N] [--size WxH] [--format F] [--memory system|cuda]\n"
"               [--every K] [--warmup W] [--limit-kb L] \"ELEMENT [PROPERTIES]\"\n"
"Memory growth of one element over a long stream: videotestsrc (the ball) through\n"
"the element into fakesink; every K frames the process's RSS and, on a GPU machine,\n"
"the device memory it holds (nvidia-smi), then a JSON summary of the growth after\n"
"the warm-up. Exit 1 when a growth passes the limit, 2 on usage errors, 3 when the\n"
"pipeline fails.\n"
"  --frames N           frames to run (default 10000)\n"
"  --size WxH           frame size (default 1920x1080)\n"
"  --format F           video format of the frames (default NV12)\n"
"  --memory system|cuda system memory, or CUDA memory through cudaupload (needs a\n"
"                       GPU and GStreamer's nvcodec; default system)\n"
"  --every K            sample every K frames (default 1000)\n"
"  --warmup W           growth counted from the first sample at or after frame W\n"
"                       (default 2000)\n"
"  --limit-kb L         the growth allowed, in kB (default 1024)\n"
"  -h, --help           this text\n"
"  --version            the program's version\n";
static int n_samples;
static guint64 frames;
static int every = 1000;

static long
rss_kb (void)
{
  long pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");
  if (f) {
    if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose (f);
  }
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

/* Device memory this process holds, from nvidia-smi; -1 without a GPU. */
static long
device_kb (void)
{
  FILE *p = popen ("nvidia-smi --query-compute-apps=pid,used_memory "
      "--format=csv,noheader,nounits 2>/dev/null", "r");
  if (!p)
    return -1;
  long found = -1, pid, mib;
  while (fscanf (p, "%ld, %ld", &pid, &mib) == 2)
    if (pid == (long) getpid ())
      found = mib * 1024;
  pclose (p);
  return found;
}

static GstPadProbeReturn
on_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  frames++;
  if (frames % every == 0 && n_samples < MAX_SAMPLES) {
    Sample *s = &samples[n_samples++];
    s->frame = frames;
    s->rss_kb = rss_kb ();
    s->device_kb = device_kb ();
    printf ("frame %8" G_GUINT64_FORMAT "  rss %8ld kB  device %8ld kB\n", s->frame, s->rss_kb,
        s->device_kb);
    fflush (stdout);
  }
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  if (argc == 2 && !strcmp (argv[1], "--version")) {
    cv_print_version ();
    return 0;
  }
  for (int i = 1; i < argc; i++)
    if (cv_is_help (argv[i])) {
      fputs (help, stdout);
      return 0;
    }
  gst_init (&argc, &argv);
  int n = 10000, warmup = 2000, width = 1920, height = 1080, limit_kb = 1024;
  const char *format = "NV12", *memory = "system", *element = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    gboolean ok = TRUE;
    if (!strcmp (a, "--frames") && v)
      ok = cv_parse_int (a, v, 1, 100000000, &n), i++;
    else if (!strcmp (a, "--every") && v)
      ok = cv_parse_int (a, v, 1, 100000000, &every), i++;
    else if (!strcmp (a, "--warmup") && v)
      ok = cv_parse_int (a, v, 0, 100000000, &warmup), i++;
    else if (!strcmp (a, "--limit-kb") && v)
      ok = cv_parse_int (a, v, 0, 100000000, &limit_kb), i++;
    else if (!strcmp (a, "--format") && v)
      format = v, i++;
    else if (!strcmp (a, "--size") && v) {
      ok = (sscanf (v, "%dx%d", &width, &height) == 2 && width > 0 && height > 0)
          || cv_option_error (a, v, "WIDTHxHEIGHT");
      i++;
    } else if (!strcmp (a, "--memory") && v) {
      memory = v;
      ok = !strcmp (v, "system") || !strcmp (v, "cuda")
          || cv_option_error (a, v, "one of system, cuda");
      i++;
    } else if (a[0] != '-' && !element)
      element = a;
    else
      ok = FALSE;
    if (!ok) {
      fprintf (stderr, "usage: cv-soak [--frames N] [--size WxH] [--format F] "
          "[--memory system|cuda] [--every K] [--warmup W] [--limit-kb L] \"ELEMENT ...\"\n");
      return 2;
    }
  }
  if (!element) {
    fprintf (stderr, "cv-soak: no element given\n");
    return 2;
  }
  gboolean cuda = !strcmp (memory, "cuda");
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%d ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! %s%s name=e ! "
      "fakesink name=sink sync=false", n, format, width, height,
      cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "", element);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  if (!pipe || err) {
    fprintf (stderr, "cv-soak: %s: %s\n", desc, err ? err->message : "cannot build");
    g_free (desc);
    g_clear_error (&err);
    if (pipe)
      gst_object_unref (pipe);
    return 3;
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_frame, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  printf ("cv-soak: %s\n", desc);
  g_free (desc);
  gint64 t0 = g_get_monotonic_time ();
  cv_gst_report_backends (pipe, "cv-soak");
  int rc = cv_gst_play_to_end (pipe, "cv-soak") ? 0 : 3;
  gst_object_unref (pipe);
  double seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (rc)
    return rc;

  /* growth: from the first sample at or after the warm-up to the last */
  int first = 0;
  while (first < n_samples && samples[first].frame < (guint64) warmup)
    first++;
  long rss_growth = 0, dev_growth = 0, rss_max = 0;
  gboolean have_dev = FALSE;
  if (first < n_samples) {
    rss_growth = samples[n_samples - 1].rss_kb - samples[first].rss_kb;
    have_dev = samples[first].device_kb >= 0 && samples[n_samples - 1].device_kb >= 0;
    if (have_dev)
      dev_growth = samples[n_samples - 1].device_kb - samples[first].device_kb;
    for (int i = first; i < n_samples; i++)
      rss_max = MAX (rss_max, samples[i].rss_kb - samples[first].rss_kb);
  }
  gboolean enough = first < n_samples - 1;
  gchar *dev = have_dev ? g_strdup_printf ("%ld", dev_growth) : g_strdup ("null");
  printf ("{\"element\":\"%s\",\"memory\":\"%s\",\"size\":\"%dx%d\",\"format\":\"%s\","
      "\"frames\":%" G_GUINT64_FORMAT ",\"seconds\":%.1f,\"warmup\":%d,"
      "\"rss_start_kb\":%ld,\"rss_end_kb\":%ld,\"rss_growth_kb\":%ld,"
      "\"rss_peak_growth_kb\":%ld,\"device_growth_kb\":%s,\"samples_after_warmup\":%d}\n",
      element, memory, width, height, format, frames, seconds, warmup,
      first < n_samples ? samples[first].rss_kb : 0,
      n_samples ? samples[n_samples - 1].rss_kb : 0, rss_growth, rss_max, dev,
      enough ? n_samples - first : 0);
  g_free (dev);
  if (!enough) {
    fprintf (stderr, "cv-soak: fewer than two samples after the warm-up: no growth figure\n");
    return 2;
  }
  return rss_growth > limit_kb || (have_dev && dev_growth > limit_kb) ? 1 : 0;
}
