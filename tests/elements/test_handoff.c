/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA-memory hand-off (gst/gstcvhandoff.h) under a slow producer. A test-only
 * element, cvslowproducer, takes each CUDA-memory frame, keeps its own stream busy for
 * tens of milliseconds (device copies of 64 MB) and only then writes a known pattern
 * (two coloured squares on black) into the frame, and hands the frame on as every
 * cudavision element does. The consumers must see the pattern, not the black frame
 * cudaupload gave: moctracker directly, through a queue, in both branches of a tee,
 * and cudadownload (bytes equal the pattern).
 * Built twice: test-element-handoff, and test-element-handoff-removed with
 * CV_TEST_NO_HANDOFF, whose producer skips the hand-off; that program must fail on a
 * GPU (meson: should_fail), which shows that the cases see a missing hand-off. Both
 * skip (exit 77) without a device or nvcodec's cudaupload. */
#include "element_common.h"
#include "gstcvhandoff.h"
#include <gst/app/gstappsink.h>
#include <gst/base/gstbasetransform.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#define HAVE_GST_CUDA_STREAM 1
#else
#define HAVE_GST_CUDA_STREAM 0
#endif

#define W 320
#define H 240
#define FRAMES 5
#define BUSY_COPIES 400   /* 64 MB device copies before the pattern: ~20-40 ms on an H100 */
#define OBJECTS "r:#ff0000:30;g:#00ff00:30"

typedef struct { const gchar *name; int x, y, size; guint8 r, g, b; } Square;
static const Square squares[] = {
  { "r", 40, 40, 40, 255, 0, 0 },
  { "g", 200, 100, 30, 0, 255, 0 },
};

static void
pattern_pixel (int x, int y, guint8 * p)
{
  p[0] = p[1] = p[2] = 0;
  p[3] = 255;
  for (guint i = 0; i < G_N_ELEMENTS (squares); i++) {
    const Square *s = &squares[i];
    if (x >= s->x && y >= s->y && x < s->x + s->size && y < s->y + s->size) {
      p[0] = s->r;
      p[1] = s->g;
      p[2] = s->b;
    }
  }
}

/* ------------------------------------------------------------- the producer */

typedef struct {
  GstBaseTransform parent;
  GstCudaContext *cuda_ctx;
  cc_context *core;
#if HAVE_GST_CUDA_STREAM
  GstCudaStream *stream;
#endif
  cc_image busy_a, busy_b, pattern;
  gboolean ready, downstream_waits;
} CvSlowProducer;
typedef struct { GstBaseTransformClass parent_class; } CvSlowProducerClass;
GType cv_slow_producer_get_type (void);
G_DEFINE_TYPE (CvSlowProducer, cv_slow_producer, GST_TYPE_BASE_TRANSFORM);

static gboolean
producer_setup (CvSlowProducer * self, GstCudaContext * ctx)
{
  self->cuda_ctx = gst_object_ref (ctx);
  if (cc_context_create (CC_BACKEND_CUDA, CC_DEVICE_CURRENT, &self->core) != CC_SUCCESS)
    return FALSE;
#if HAVE_GST_CUDA_STREAM
  self->stream = gst_cuda_stream_new (ctx);
  if (self->stream && cc_context_adopt_stream (self->core,
          (cc_stream) gst_cuda_stream_get_handle (self->stream)) != CC_SUCCESS)
    return FALSE;
#endif
  cc_image host;
  if (cc_image_alloc (self->core, 8192, 8192, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE,
          &self->busy_a) != CC_SUCCESS
      || cc_image_alloc (self->core, 8192, 8192, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE,
          &self->busy_b) != CC_SUCCESS
      || cc_image_alloc (self->core, W, H, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE,
          &self->pattern) != CC_SUCCESS
      || cc_image_alloc (self->core, W, H, CC_FORMAT_RGBX8, CC_LOCATION_HOST, &host)
      != CC_SUCCESS)
    return FALSE;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      pattern_pixel (x, y, (guint8 *) host.planes[0] + (gsize) y * host.pitch[0] + 4 * x);
  gboolean ok = cc_image_copy (self->core, cc_context_stream (self->core), &host,
      &self->pattern) == CC_SUCCESS;
  cc_image_free (self->core, &host);
  self->ready = ok;
  return ok;
}

static GstFlowReturn
producer_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  CvSlowProducer *self = (CvSlowProducer *) trans;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  if (!gst_is_cuda_memory (mem))
    return GST_FLOW_ERROR;
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  if (!gst_cuda_context_push (cmem->context))
    return GST_FLOW_ERROR;
  GstFlowReturn ret = GST_FLOW_ERROR;
  GstMapInfo map;
  if ((self->ready || producer_setup (self, cmem->context))
      && gst_memory_map (mem, &map, GST_MAP_READWRITE | GST_MAP_CUDA)) {
    cc_image frame = cc_image_view (map.data, GST_VIDEO_INFO_PLANE_STRIDE (&cmem->info, 0),
        W, H, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE);
    cc_stream stream = cc_context_stream (self->core);
    cc_status st = CC_SUCCESS;
    for (int i = 0; i < BUSY_COPIES && st == CC_SUCCESS; i++)
      st = cc_image_copy (self->core, stream, i % 2 ? &self->busy_a : &self->busy_b,
          i % 2 ? &self->busy_b : &self->busy_a);
    if (st == CC_SUCCESS)
      st = cc_image_copy (self->core, stream, &self->pattern, &frame);
#ifndef CV_TEST_NO_HANDOFF
    GST_OBJECT_LOCK (self);
    gboolean waits = self->downstream_waits;
    GST_OBJECT_UNLOCK (self);
    if (st == CC_SUCCESS)
      st = gst_cv_cuda_memory_hand_off (self->core, self->cuda_ctx, mem, waits);
#endif
    gst_memory_unmap (mem, &map);
    if (st == CC_SUCCESS)
      ret = GST_FLOW_OK;
    else
      GST_ERROR_OBJECT (self, "%s: %s", cc_status_name (st), cc_last_error ());
  }
  gst_cuda_context_pop (NULL);
  return ret;
}

/* As GstCvFilter does: downstream's answer (forwarded by the in-place parent). */
static gboolean
producer_propose_allocation (GstBaseTransform * trans, GstQuery * decide, GstQuery * query)
{
  GST_BASE_TRANSFORM_CLASS (cv_slow_producer_parent_class)->propose_allocation (trans,
      decide, query);
  gboolean waits = gst_query_find_allocation_meta (query, GST_CV_FENCE_META_API_TYPE, NULL);
  GST_OBJECT_LOCK (trans);
  ((CvSlowProducer *) trans)->downstream_waits = waits;
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

static gboolean
producer_stop (GstBaseTransform * trans)
{
  CvSlowProducer *self = (CvSlowProducer *) trans;
  if (self->core) {
    gst_cuda_context_push (self->cuda_ctx);
    cc_context_synchronize (self->core);
    cc_context_adopt_stream (self->core, NULL);
    if (self->ready) {
      cc_image_free (self->core, &self->busy_a);
      cc_image_free (self->core, &self->busy_b);
      cc_image_free (self->core, &self->pattern);
    }
    cc_context_destroy (self->core);
#if HAVE_GST_CUDA_STREAM
    gst_clear_cuda_stream (&self->stream);
#endif
    gst_cuda_context_pop (NULL);
  }
  self->core = NULL;
  self->ready = FALSE;
  gst_clear_object (&self->cuda_ctx);
  return TRUE;
}

static void
cv_slow_producer_class_init (CvSlowProducerClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *tc = GST_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),format=RGBA");
  gst_element_class_add_pad_template (ec, gst_pad_template_new ("sink", GST_PAD_SINK,
          GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (ec, gst_pad_template_new ("src", GST_PAD_SRC,
          GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (ec, "slow CUDA producer (test)", "Filter/Video",
      "Writes a pattern after tens of milliseconds on its own stream", "cudavision");
  tc->transform_ip = producer_transform_ip;
  tc->propose_allocation = producer_propose_allocation;
  tc->stop = producer_stop;
}

static void
cv_slow_producer_init (CvSlowProducer * self)
{
}

/* ------------------------------------------------------------- the cases */

#define SOURCE "videotestsrc pattern=black num-buffers=" G_STRINGIFY (FRAMES) " ! " \
  "video/x-raw,format=RGBA,width=" G_STRINGIFY (W) ",height=" G_STRINGIFY (H) " ! " \
  "cudaupload ! video/x-raw(memory:CUDAMemory),format=RGBA ! cvslowproducer ! "
#define TRACKER "moctracker objects=\"" OBJECTS "\" ! appsink sync=false name="

static void
check_tracked (GstBuffer * buf, const gchar * sink, int frame)
{
  for (guint i = 0; i < G_N_ELEMENTS (squares); i++) {
    const Square *s = &squares[i];
    GstVideoRegionOfInterestMeta *r = NULL;
    gpointer state = NULL;
    GstMeta *m;
    while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
      if (((GstVideoRegionOfInterestMeta *) m)->roi_type == g_quark_from_string (s->name))
        r = (GstVideoRegionOfInterestMeta *) m;
    fail_unless (r != NULL, "%s frame %d: square %s not found (the consumer read the frame "
        "before the producer wrote it)", sink, frame, s->name);
    ck_assert_uint_eq (r->x, s->x);
    ck_assert_uint_eq (r->y, s->y);
    ck_assert_uint_eq (r->w, s->size);
    ck_assert_uint_eq (r->h, s->size);
    gint64 mass = 0;
    gst_structure_get_int64 (gst_video_region_of_interest_meta_get_param (r, "moctracker"),
        "mass", &mass);
    ck_assert_int_eq (mass, (gint64) s->size * s->size);
  }
}

static void
check_pattern (GstBuffer * buf, const gchar * sink, int frame)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  long differ = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      guint8 want[4];
      pattern_pixel (x, y, want);
      differ += memcmp (map.data + (gsize) y * W * 4 + 4 * x, want, 4) != 0;
    }
  gst_buffer_unmap (buf, &map);
  ck_assert_msg (differ == 0, "%s frame %d: %ld of %d pixels are not the pattern", sink,
      frame, differ, W * H);
}

/* Runs `launch` to EOS, checking every frame of each appsink s0..s{n-1}. */
static void
run_case (const gchar * what, const gchar * launch, int n_sinks, gboolean download)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL, "%s: %s", launch, err ? err->message : "?");
  ck_assert_int_ne (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  for (int k = 0; k < n_sinks; k++) {
    gchar *name = g_strdup_printf ("s%d", k);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), name);
    for (int f = 0; f < FRAMES; f++) {
      GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 30 * GST_SECOND);
      fail_unless (sample != NULL, "%s: %s got no frame %d", what, name, f);
      if (download)
        check_pattern (gst_sample_get_buffer (sample), name, f);
      else
        check_tracked (gst_sample_get_buffer (sample), name, f);
      gst_sample_unref (sample);
    }
    gst_object_unref (sink);
    g_free (name);
  }
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: no EOS", what);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_print ("hand-off %s: %d frames x %d consumer(s) saw the pattern\n", what, FRAMES, n_sinks);
}

#define SKIP_WITHOUT_CUDA(what)                                                   \
  do {                                                                            \
    const gchar *why_ = cv_cuda_elements_missing ();                              \
    if (why_)                                                                     \
      CV_SKIP ((what), why_);                                                     \
    gst_element_register (NULL, "cvslowproducer", GST_RANK_NONE,                  \
        cv_slow_producer_get_type ());                                            \
  } while (0)

GST_START_TEST (test_direct)
{
  SKIP_WITHOUT_CUDA ("hand-off direct");
  run_case ("direct", SOURCE TRACKER "s0", 1, FALSE);
}
GST_END_TEST;

GST_START_TEST (test_queue)
{
  SKIP_WITHOUT_CUDA ("hand-off queue");
  run_case ("queue", SOURCE "queue ! " TRACKER "s0", 1, FALSE);
}
GST_END_TEST;

GST_START_TEST (test_tee)
{
  SKIP_WITHOUT_CUDA ("hand-off tee");
  run_case ("tee", SOURCE "tee name=t t. ! queue ! " TRACKER "s0 t. ! queue ! " TRACKER "s1",
      2, FALSE);
}
GST_END_TEST;

GST_START_TEST (test_cudadownload)
{
  SKIP_WITHOUT_CUDA ("hand-off cudadownload");
  run_case ("cudadownload", SOURCE "cudadownload ! video/x-raw,format=RGBA ! "
      "appsink sync=false name=s0", 1, TRUE);
}
GST_END_TEST;

static Suite *
handoff_suite (void)
{
  Suite *s = suite_create ("handoff");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_direct);
  tcase_add_test (tc, test_queue);
  tcase_add_test (tc, test_tee);
  tcase_add_test (tc, test_cudadownload);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (handoff);
