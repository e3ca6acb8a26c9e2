/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The flow meta's accessors for applications and bindings (gst/gstcvflowmeta.h, the
 * GstCudaVision GIR): gst_buffer_get_cv_flow_meta, grid and cell sizes, validity,
 * the confidence kind, and the packed copies (float arrays and GBytes) against the
 * strided host view, on cudaflowlk (dense) and cudablockmatch (blocks, odd grid). */
#include "element_common.h"
#include "gstcvflowmeta.h"
#include <string.h>

/* The packed copies equal the host view cell for cell (bit-exact). */
static void
check_copies (GstCvFlowMeta * m)
{
  const gfloat *uv, *conf;
  gsize uv_stride, conf_stride;
  fail_unless (gst_cv_flow_meta_map_host (m, &uv, &uv_stride, &conf, &conf_stride));
  guint gw, gh;
  gst_cv_flow_meta_get_grid_size (m, &gw, &gh);
  ck_assert_uint_eq (gw, m->grid_width);
  ck_assert_uint_eq (gh, m->grid_height);

  gsize nv = 0, nc = 0;
  gfloat *vec = gst_cv_flow_meta_get_vectors (m, &nv);
  gfloat *cf = gst_cv_flow_meta_get_confidence (m, &nc);
  fail_unless (vec && cf);
  ck_assert_uint_eq (nv, (gsize) 2 * gw * gh);
  ck_assert_uint_eq (nc, (gsize) gw * gh);
  GBytes *bv = gst_cv_flow_meta_get_vectors_bytes (m);
  GBytes *bc = gst_cv_flow_meta_get_confidence_bytes (m);
  ck_assert_uint_eq (g_bytes_get_size (bv), nv * sizeof (gfloat));
  ck_assert_uint_eq (g_bytes_get_size (bc), nc * sizeof (gfloat));
  const gfloat *pv = g_bytes_get_data (bv, NULL), *pc = g_bytes_get_data (bc, NULL);
  gboolean nonzero = FALSE;
  for (guint y = 0; y < gh; y++) {
    const gfloat *row = (const gfloat *) ((const guint8 *) uv + y * uv_stride);
    const gfloat *crow = (const gfloat *) ((const guint8 *) conf + y * conf_stride);
    ck_assert (memcmp (vec + (gsize) y * 2 * gw, row, 2 * gw * sizeof (gfloat)) == 0);
    ck_assert (memcmp (pv + (gsize) y * 2 * gw, row, 2 * gw * sizeof (gfloat)) == 0);
    ck_assert (memcmp (cf + (gsize) y * gw, crow, gw * sizeof (gfloat)) == 0);
    ck_assert (memcmp (pc + (gsize) y * gw, crow, gw * sizeof (gfloat)) == 0);
    for (guint x = 0; x < 2 * gw; x++)
      nonzero |= row[x] != 0.0f;
  }
  ck_assert_int_eq (nonzero, m->valid);
  g_free (vec);
  g_free (cf);
  g_bytes_unref (bv);
  g_bytes_unref (bc);
}

/* Two frames of a known translation through `launch`; checks both metas. */
static void
check_element (const gchar * launch, int w, int h, guint gw, guint gh, guint cell,
    GstCvFlowConfidence kind)
{
  guint8 *a, *b;
  cv_translation_pair (w, h, 2.0, 1.0, &a, &b);
  GstHarness *hn = cv_harness_new (launch, "I420", w, h);
  GstBuffer *o1 = gst_harness_push_and_pull (hn, cv_buffer_from_gray ("I420", a, w, h));
  GstBuffer *o2 = gst_harness_push_and_pull (hn, cv_buffer_from_gray ("I420", b, w, h));
  fail_unless (o1 && o2);
  GstBuffer *outs[2] = { o1, o2 };
  for (int i = 0; i < 2; i++) {
    GstCvFlowMeta *m = gst_buffer_get_cv_flow_meta (outs[i]);
    fail_unless (m != NULL, "%s: no meta on frame %d", launch, i);
    fail_unless (m == (GstCvFlowMeta *) gst_buffer_get_meta (outs[i],
            GST_CV_FLOW_META_API_TYPE));
    guint cw = 0, ch = 0;
    gst_cv_flow_meta_get_cell_size (m, &cw, &ch);
    ck_assert_uint_eq (cw, cell);
    ck_assert_uint_eq (ch, cell);
    ck_assert_uint_eq (m->grid_width, gw);
    ck_assert_uint_eq (m->grid_height, gh);
    ck_assert_int_eq (gst_cv_flow_meta_is_valid (m), i == 1);
    ck_assert_int_eq (gst_cv_flow_meta_get_confidence_kind (m), kind);
    check_copies (m);
  }
  gst_buffer_unref (o1);
  gst_buffer_unref (o2);
  gst_harness_teardown (hn);
  g_free (a);
  g_free (b);
}

GST_START_TEST (test_dense_flowlk)
{
  check_element ("cudaflowlk backend=cpu", 64, 48, 64, 48, 1,
      GST_CV_FLOW_CONFIDENCE_MIN_EIGENVALUE);
  check_element ("cudaflowlk backend=cpu fb-check=true", 64, 48, 64, 48, 1,
      GST_CV_FLOW_CONFIDENCE_FB_ERROR);
}
GST_END_TEST;

GST_START_TEST (test_blocks_blockmatch)
{
  /* 100x60 in 16 px blocks: a 7x4 grid whose last column and row are clipped */
  check_element ("cudablockmatch backend=cpu block-size=16", 100, 60, 7, 4, 16,
      GST_CV_FLOW_CONFIDENCE_MATCH);
}
GST_END_TEST;

GST_START_TEST (test_no_meta)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16, NULL);
  fail_unless (gst_buffer_get_cv_flow_meta (buf) == NULL);
  gst_buffer_unref (buf);
}
GST_END_TEST;

static Suite *
flowmeta_api_suite (void)
{
  Suite *s = suite_create ("flowmeta-api");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_dense_flowlk);
  tcase_add_test (tc, test_blocks_blockmatch);
  tcase_add_test (tc, test_no_meta);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (flowmeta_api);
