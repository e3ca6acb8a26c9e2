/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ELEMENT_COMMON_H
#define ELEMENT_COMMON_H
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <cudacore/cc_core.h>
#include "gstcvflowmeta.h"
#include "cv_test_quick.h"   /* tests/common: cv_test_quick (), CV_TEST_QUICK */
#include "cv_test_skip.h"    /* tests/common: CV_SKIP, CV_SKIP_PART, CV_SKIP_WITHOUT_GPU */

/* GLib 2.76+ (Debian trixie has 2.84) refuses an out-of-range property value with a
 * g_critical where 2.74 (bookworm) gave a g_warning: there, ASSERT_WARNING accepts
 * either, so that the tests of refused values pass on both (elements' own refusals
 * still warn). */
#if GLIB_CHECK_VERSION(2, 75, 0)
#undef ASSERT_WARNING
#define ASSERT_WARNING(code)                                                      \
  G_STMT_START {                                                                  \
    _gst_check_expecting_log = TRUE;                                              \
    _gst_check_raised_warning = FALSE;                                            \
    _gst_check_raised_critical = FALSE;                                           \
    code;                                                                         \
    if (!_gst_check_raised_warning && !_gst_check_raised_critical)                \
      _ck_assert_failed (__FILE__, __LINE__,                                      \
          "Expected g_warning (or g_critical), got nothing", NULL);               \
    _gst_check_expecting_log = FALSE;                                             \
  } G_STMT_END
#endif

/* gst-check bundles its own Check: element tests must not include <check.h>
 * (tests/common/cv_test.h) or link the system libcheck. */
#define CC_ASSERT_OK(expr)                                                        \
  do {                                                                            \
    cc_status st_ = (expr);                                                       \
    fail_unless (st_ == CC_SUCCESS, "%s -> %s: %s", #expr, cc_status_name (st_),  \
        cc_last_error ());                                                        \
  } while (0)

/* A harness around `launch` (e.g. "cudaflowlk visualize=color") with src caps set. */
GstHarness *cv_harness_new (const gchar * launch, const gchar * format, int width, int height);
/* A buffer of `format` whose luma (or RGB) is the given GRAY8 picture (w x h). */
GstBuffer *cv_buffer_from_gray (const gchar * format, const guint8 * gray, int width, int height);
/* Pushes `gray` as a `format` buffer and pulls the output (caller unrefs). */
GstBuffer *cv_push_gray (GstHarness * h, const gchar * format, const guint8 * gray, int width,
    int height);
/* Pushes `first`, drops its output, pushes `second` and returns that output. */
GstBuffer *cv_push_pair (GstHarness * h, const gchar * format, const guint8 * first,
    const guint8 * second, int width, int height);
/* Textured GRAY8 pair with a known translation (caller g_free's). */
void cv_translation_pair (int width, int height, double dx, double dy, guint8 ** first,
    guint8 ** second);
/* How cv_check_stream_reset interrupts the stream. */
typedef enum {
  CV_RESET_FLUSH,      /* FLUSH_START, FLUSH_STOP and a new segment (a flushing seek) */
  CV_RESET_DISCONT,    /* the next buffer carries GST_BUFFER_FLAG_DISCONT */
  CV_RESET_SEGMENT,    /* a new segment alone (a non-flushing seek) */
} CvResetKind;
/* Interrupts the harness's stream by `kind` before `next` is pushed: flush events
 * and a new segment, a new segment alone, or the DISCONT flag set on `next` (which
 * must then be writable). */
void cv_harness_interrupt (GstHarness * h, CvResetKind kind, GstBuffer * next);
/* Pushes frames A, B (flow valid), interrupts the stream by `kind`, pushes A again
 * and asserts that frame gives zero vectors, zero confidence and a not-valid meta;
 * then B again must give a valid, non-zero field (the reset is not permanent).
 * `launch` is a flow element ("cudaflowlk backend=cpu", ...). */
void cv_check_stream_reset (const gchar * launch, CvResetKind kind);
/* cv_check_stream_reset for each kind, on the CPU backend and (with a device) the CUDA
 * one: `launch_format` names the backend with one %s ("cudaflowlk backend=%s"). */
void cv_check_stream_resets (const gchar * launch_format);

/* Two flat GRAY8 frames (level 120) through `launch` (a flow element drawing
 * visualize=quality): the second's meta is valid, every confidence 0 (with
 * zero_vectors, every vector too), and the drawn frame black. */
void cv_check_flat_pair (const gchar * launch, int width, int height, gboolean zero_vectors);
/* The vector (u, v) at cell (x, y) of a host view of a flow meta (stride in bytes),
 * and the confidence. */
static inline const gfloat *
cv_flow_vector (const gfloat * vectors, gsize stride, int x, int y)
{
  return (const gfloat *) ((const guint8 *) vectors + y * stride) + 2 * x;
}
static inline gfloat
cv_flow_confidence (const gfloat * confidence, gsize stride, int x, int y)
{
  return ((const gfloat *) ((const guint8 *) confidence + y * stride))[x];
}
/* A packed copy (2 floats a cell, row after row) of the meta's vectors (g_free). */
gfloat *cv_flow_meta_copy (GstCvFlowMeta * meta);
/* Plays `launch` (an appsink named "sink") and returns its second sample; stop the
 * pipeline (*pipe) with cv_pipeline_stop. */
GstSample *cv_pipeline_second_sample (const gchar * launch, GstElement ** pipe);
void cv_pipeline_stop (GstElement * pipe);
/* The vectors of the second frame through `launch` (a packed copy of *n_floats, g_free);
 * asserts the meta is valid and, when the pipeline has an element named "flow", that it
 * was given CUDA memory. *on_device: the meta's field was on the device. */
gfloat *cv_pipeline_flow (const gchar * launch, gboolean * on_device, gsize * n_floats);
/* The mean |difference| of the vectors of the second frame of `src` (a source and its
 * caps) through `element` ("cudaflowlk", with properties) on CUDA memory (cudaupload ->
 * element backend=cuda -> cudadownload: the element must get CUDA memory and keep its
 * field on the device) and through it on the CPU backend (a host field). */
double cv_flow_cuda_vs_cpu (const gchar * src, const gchar * element);
/* A flow element's CUDA-memory test (after CV_SKIP_WITHOUT_CUDA_ELEMENTS): prints the
 * mean |difference| of cv_flow_cuda_vs_cpu, naming `name`, and fails above
 * max_mean_diff px. */
void cv_check_flow_cuda_vs_cpu (const gchar * name, const gchar * src, const gchar * element,
    double max_mean_diff);
/* Takes `pipe` through `states`: no change may fail, nor its completion within 10 s. */
void cv_cycle_states (GstElement * pipe, const GstState * states, gsize n_states);

/* Gives `e` a bus of its own (returned, unref it and set NULL when done) to read the
 * element messages it posts outside a pipeline. */
GstBus *cv_watch_bus (GstElement * e);
/* Asserts that the next warning on `bus` exists and its text matches `pattern`
 * (g_pattern_match_simple). */
void cv_assert_warning (GstBus * bus, const gchar * pattern);

/* Why CUDA-memory pipelines cannot run here (no device, or no nvcodec cudaupload): a
 * cv_test_skip.h reason; NULL when they can. */
const gchar *cv_cuda_elements_missing (void);
/* Ends a CUDA-memory case as skipped when they cannot run. */
#define CV_SKIP_WITHOUT_CUDA_ELEMENTS(what)                                       \
  G_STMT_START {                                                                  \
    const gchar *why_ = cv_cuda_elements_missing ();                              \
    if (why_)                                                                     \
      CV_SKIP ((what), why_);                                                     \
  } G_STMT_END

/* GST_CHECK_MAIN with skipped cases counted (cv_test_skip.h): prints the program's skip
 * line and exits 1 when a case failed, 77 when none ran, else 0. */
int cv_check_run_suite (Suite * suite, const gchar * argv0);
#define CV_CHECK_MAIN(name)                                                       \
  int                                                                             \
  main (int argc, char **argv)                                                    \
  {                                                                               \
    gst_check_init (&argc, &argv);                                                \
    return cv_check_run_suite (name ## _suite (), argv[0]);                       \
  }

/* ------------------------------------------------------------- reliability
 * The generic checks every element goes through (tests/elements/test_generic.c):
 * one row of cv_element_cases per element. */
typedef struct {
  const gchar *name;          /* factory name */
  const gchar *launch;        /* the element on the CPU, settings whose output shows the work */
  const gchar *cheap;         /* extra properties for the 7680x4320 frame (cheapest settings) */
  const gchar *formats[2];    /* two system-memory formats it takes (the format change) */
} CvElementCase;
extern const CvElementCase cv_element_cases[];
extern const gint cv_n_element_cases;

/* A deterministic test frame (frame `index` of a clip): a texture with a white square
 * that moves 2 px a frame, converted from RGBA to `format`. `pad` > 0 widens every
 * plane's stride by `pad` pixels (GstVideoMeta carries the strides; the padding holds
 * garbage). */
GstBuffer *cv_test_frame (const gchar * format, int width, int height, guint index, guint pad);
/* Fails unless both buffers hold the same visible pixels (each mapped through its own
 * GstVideoMeta), the same GstCvFlowMeta and the same region-of-interest metas. */
void cv_assert_same_output (GstBuffer * a, GstBuffer * b, const gchar * format, int width,
    int height, const gchar * what);
/* Gives the harness's element a bus; cv_assert_no_error fails on an ERROR message there. */
GstBus *cv_harness_bus (GstHarness * h);
void cv_assert_no_error (GstBus * bus, const gchar * what);
/* Flushes that bus (its messages hold the element: a reference cycle), drops it and
 * tears the harness down. */
void cv_harness_teardown (GstHarness * h, GstBus * bus);
#endif
