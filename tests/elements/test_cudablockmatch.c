/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudablockmatch and the refinement on both flow elements, through GstHarness. */
#include "element_common.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include "gstcvflowmeta.h"
#include <cudacore/cc_flow_io.h>
#include <math.h>
#include <string.h>

GST_START_TEST (test_block_grid_meta)
{
  const int w = 160, h = 96;
  guint8 *a, *b;
  cv_translation_pair (w, h, 3.0, -2.0, &a, &b);
  const gchar *formats[] = { "GRAY8", "NV12", "I420", "BGRx" };
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstHarness *hn = cv_harness_new ("cudablockmatch backend=cpu block-size=16", formats[f], w, h);
    GstBuffer *out = cv_push_pair (hn, formats[f], a, b, w, h);
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (out);
    fail_unless (m != NULL);
    ck_assert_uint_eq (m->grid_width, 10);
    ck_assert_uint_eq (m->grid_height, 6);
    ck_assert_uint_eq (m->cell_width, 16);
    ck_assert_int_eq (m->confidence, GST_CV_FLOW_CONFIDENCE_MATCH);
    ck_assert (m->valid);
    const gfloat *uv, *conf;
    gsize us, cs;
    fail_unless (gst_cv_flow_meta_map_host (m, &uv, &us, &conf, &cs));
    /* interior blocks: (3, -2) px = (3/16, -2/16) grid cells */
    for (guint y = 1; y < m->grid_height - 1; y++)
      for (guint x = 1; x < m->grid_width - 1; x++) {
        const gfloat *v = cv_flow_vector (uv, us, x, y);
        fail_unless (fabsf (v[0] * 16 - 3.0f) < 0.25f && fabsf (v[1] * 16 + 2.0f) < 0.25f,
            "%s block (%u,%u): (%.2f, %.2f) px", formats[f], x, y, v[0] * 16, v[1] * 16);
        gfloat c = cv_flow_confidence (conf, cs, x, y);
        fail_unless (c > 0.3f && c <= 1.0f, "block (%u,%u) confidence %.3f", x, y, c);
      }
    gst_buffer_unref (out);
    gst_harness_teardown (hn);
  }
  g_free (a);
  g_free (b);
}
GST_END_TEST;

/* A flat frame: every block is unreliable (confidence 0), and quality draws black. */
GST_START_TEST (test_flat_blocks_quality)
{
  cv_check_flat_pair ("cudablockmatch backend=cpu visualize=quality", 64, 64, FALSE);
}
GST_END_TEST;

/* dense=true: per-pixel meta; block-size change mid-stream changes the grid. */
GST_START_TEST (test_dense_and_block_size_change)
{
  const int w = 128, h = 96;
  guint8 *a, *b;
  cv_translation_pair (w, h, 2.0, 1.0, &a, &b);
  GstHarness *hn = cv_harness_new ("cudablockmatch backend=cpu", "I420", w, h);
  GstElement *bm = gst_harness_find_element (hn, "cudablockmatch");
  GstBuffer *o1 = cv_push_pair (hn, "I420", a, b, w, h);
  ck_assert_uint_eq (gst_buffer_get_cv_flow_meta (o1)->grid_width, 8);
  g_object_set (bm, "block-size", 8, NULL);
  GstBuffer *o2 = cv_push_gray (hn, "I420", a, w, h);
  GstCvFlowMeta *m2 = gst_buffer_get_cv_flow_meta (o2);
  ck_assert_uint_eq (m2->grid_width, 16);
  ck_assert_uint_eq (m2->cell_width, 8);
  ck_assert (m2->valid);   /* the previous frame survives the grid change */
  g_object_set (bm, "dense", TRUE, NULL);
  GstBuffer *o3 = cv_push_gray (hn, "I420", b, w, h);
  GstCvFlowMeta *m3 = gst_buffer_get_cv_flow_meta (o3);
  ck_assert_uint_eq (m3->grid_width, w);
  ck_assert_uint_eq (m3->cell_width, 1);
  const gfloat *uv;
  gsize us;
  fail_unless (gst_cv_flow_meta_map_host (m3, &uv, &us, NULL, NULL));
  const gfloat *c = cv_flow_vector (uv, us, 64, 48);
  fail_unless (fabsf (c[0] - 2.0f) < 0.25f && fabsf (c[1] - 1.0f) < 0.25f,
      "dense centre (%.2f, %.2f)", c[0], c[1]);
  gst_buffer_unref (o1); gst_buffer_unref (o2); gst_buffer_unref (o3);
  gst_object_unref (bm);
  gst_harness_teardown (hn);
  g_free (a);
  g_free (b);
}
GST_END_TEST;

/* Mean EPE of a dense meta against the project's clip ground truth. */
static double
clip_epe (const gchar * launch)
{
  cc_image f0, f1, gt;
  fail_unless (cv_synth_clip_frame (7, 160, 96, &f0, &gt) == CC_SUCCESS);
  fail_unless (cv_synth_clip_frame (8, 160, 96, &f1, NULL) == CC_SUCCESS);
  GstHarness *hn = cv_harness_new (launch, "RGBA", 160, 96);
  GstBuffer *bufs[2];
  cc_image *frames[2] = { &f0, &f1 };
  for (int i = 0; i < 2; i++) {
    bufs[i] = gst_buffer_new_memdup (frames[i]->planes[0], 160 * 96 * 4);
    bufs[i] = gst_harness_push_and_pull (hn, bufs[i]);
  }
  GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (bufs[1]);
  fail_unless (m && m->valid && m->grid_width == 160);
  const gfloat *uv;
  gsize us;
  fail_unless (gst_cv_flow_meta_map_host (m, &uv, &us, NULL, NULL));
  cc_image est = cc_image_view ((void *) uv, us, 160, 96, CC_FORMAT_F32C2, CC_LOCATION_HOST);
  cc_flow_metrics met;
  CC_ASSERT_OK (cc_flow_compare (&est, &gt, 4, &met));
  gst_buffer_unref (bufs[0]);
  gst_buffer_unref (bufs[1]);
  gst_harness_teardown (hn);
  cv_image_free (&f0); cv_image_free (&f1); cv_image_free (&gt);
  return met.epe;
}

/* refine=variational runs on both elements and keeps (or improves) accuracy. */
GST_START_TEST (test_refine_on_both_elements)
{
  double lk = clip_epe ("cudaflowlk backend=cpu");
  double lk_r = clip_epe ("cudaflowlk backend=cpu refine=variational");
  double bm = clip_epe ("cudablockmatch backend=cpu dense=true block-size=8");
  double bm_r = clip_epe ("cudablockmatch backend=cpu block-size=8 refine=variational");
  g_print ("clip EPE: lk %.3f, lk+refine %.3f, blockmatch dense %.3f, +refine %.3f\n",
      lk, lk_r, bm, bm_r);
  ck_assert_msg (lk_r < 0.3 && bm_r < 0.3, "refined EPE lk %.3f bm %.3f", lk_r, bm_r);
  ck_assert_msg (bm_r < bm, "refinement should improve block matching (%.3f -> %.3f)", bm, bm_r);
}
GST_END_TEST;

GST_START_TEST (test_invalid_values_and_states)
{
  GstElement *bm = gst_element_factory_make ("cudablockmatch", NULL);
  ASSERT_WARNING (g_object_set (bm, "block-size", 2, NULL));
  ASSERT_WARNING (g_object_set (bm, "search-radius", 100, NULL));
  ASSERT_WARNING (g_object_set (bm, "refine-omega", 2.5, NULL));
  gint bs;
  g_object_get (bm, "block-size", &bs, NULL);
  ck_assert_int_eq (bs, 16);
  gst_object_unref (bm);
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=4 ! "
      "video/x-raw,format=NV12,width=1,height=1 ! cudablockmatch visualize=arrows ! fakesink", NULL);
  const GstState states[] = { GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_NULL,
    GST_STATE_PLAYING, GST_STATE_NULL };
  cv_cycle_states (pipe, states, G_N_ELEMENTS (states));
  gst_object_unref (pipe);
}
GST_END_TEST;

/* Flushing seek, DISCONT and a new segment reset the stream: zero vectors, confidence 0
 * and a not-valid meta on the next frame, block grid and dense (CPU; CUDA with a device). */
GST_START_TEST (test_reset_on_flush_discont_segment)
{
  cv_check_stream_resets ("cudablockmatch backend=%s block-size=8");
  cv_check_stream_resets ("cudablockmatch backend=%s dense=true");
}
GST_END_TEST;

static Suite *
cudablockmatch_suite (void)
{
  Suite *s = suite_create ("cudablockmatch");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_block_grid_meta);
  tcase_add_test (tc, test_flat_blocks_quality);
  tcase_add_test (tc, test_dense_and_block_size_change);
  tcase_add_test (tc, test_refine_on_both_elements);
  tcase_add_test (tc, test_invalid_values_and_states);
  tcase_add_test (tc, test_reset_on_flush_discont_segment);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (cudablockmatch);
