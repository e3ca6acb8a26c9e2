#ifndef ELEMENT_COMMON_H
#define ELEMENT_COMMON_H
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <cudacore/cc_core.h>

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
/* Skips when the GPU or nvcodec's cudaupload is missing. */
gboolean cv_have_cuda_elements (const gchar * test_name);
#endif
