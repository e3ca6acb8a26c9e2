/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudablockmatch
 * @title: cudablockmatch
 *
 * Multi-scale block-matching optical flow (NCC by default, as in marras-2010) on
 * the GPU, with a CPU fallback. Frame 1 is cut into `block-size` blocks, each
 * searched in frame 2 within `search-radius` through a pyramid, refined to
 * sub-pixel by a parabola fit. Each frame carries a #GstCvFlowMeta: one vector per
 * block (vectors in grid cells: times cell_width / cell_height for pixels) with a
 * confidence in [0, 1] (NCC peak x distinctiveness: flat blocks get 0), or, with
 * `dense=true` or `refine=variational`, one vector per pixel (confidence-weighted
 * upsampling, then optionally the variational refinement). The first frame, and the
 * first after a caps change, a flushing seek, a new segment or a DISCONT buffer,
 * carries zero vectors with confidence 0 (meta field `valid` = FALSE).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball motion=sweep ! video/x-raw,format=NV12 ! \
 *     cudaupload ! video/x-raw(memory:CUDAMemory) ! cudablockmatch visualize=quality ! cudadownload ! videoconvert ! autovideosink
 * ]| White blocks are matched reliably, black ones (flat background) are not.
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! decodebin ! videoconvert ! \
 *     video/x-raw,format=I420 ! cudablockmatch refine=variational visualize=color ! \
 *     videoconvert ! autovideosink
 * ]| Dense, refined flow on the colour wheel.
 */
#include "gstcvfilter.h"
#include "gstcvenum.h"
#include "gstcvflowelement.h"

#include <cudacore/cc_blockmatch.h>

GST_DEBUG_CATEGORY_STATIC (cudablockmatch_debug);
#define GST_CAT_DEFAULT cudablockmatch_debug

#define GST_TYPE_CV_MATCH_METRIC (gst_cv_match_metric_get_type ())
GST_CV_DEFINE_ENUM (gst_cv_match_metric_get_type, "GstCvMatchMetric",
    { CC_BLOCKMATCH_NCC, "Normalised cross-correlation (robust to brightness changes)", "ncc" },
    { CC_BLOCKMATCH_SSD, "Sum of squared differences", "ssd" },
    { CC_BLOCKMATCH_SAD, "Sum of absolute differences", "sad" })

enum {
  PROP_0, PROP_BLOCK_SIZE, PROP_SEARCH_RADIUS, PROP_SEED_RADIUS, PROP_LEVELS, PROP_METRIC,
  PROP_SUBPIXEL, PROP_FLAT_THRESHOLD, PROP_PYRAMID_LEVELS, PROP_DENSE,
  PROP_VIS_FIRST,
  PROP_REFINE_FIRST = PROP_VIS_FIRST + GST_CV_VIS_N_PROPS,
};

struct _GstCudaBlockMatch {
  GstCvFilter parent;
  /* properties (object lock) */
  cc_blockmatch_params params;
  gboolean params_changed;
  gboolean dense;
  GstCvFlowVis vis;
  GstCvRefine refine;
  /* streaming */
  cc_blockmatch *bm;
  gboolean dense_now;          /* the meta is dense this setup (dense || refine) */
  GstCvFieldPool *pool;        /* fields of the meta's size */
  cc_image grid, grid_conf;    /* block results when the meta is dense */
  gboolean have_grid;
};

G_DECLARE_FINAL_TYPE (GstCudaBlockMatch, gst_cuda_block_match, GST, CUDA_BLOCK_MATCH,
    GstCvFilter)
G_DEFINE_TYPE (GstCudaBlockMatch, gst_cuda_block_match, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudablockmatch, "cudablockmatch", GST_RANK_NONE,
    gst_cuda_block_match_get_type ());

static void
gst_cuda_block_match_teardown (GstCvFilter * filter)
{
  GstCudaBlockMatch *self = GST_CUDA_BLOCK_MATCH (filter);
  cc_context *ctx = gst_cv_filter_get_context (filter);
  cc_blockmatch_destroy (self->bm);
  self->bm = NULL;
  gst_cv_field_pool_unref (self->pool);
  self->pool = NULL;
  if (self->have_grid) {
    cc_image_free (ctx, &self->grid);
    cc_image_free (ctx, &self->grid_conf);
  }
  self->have_grid = FALSE;
  gst_cv_refine_teardown (&self->refine);
}

static gboolean
gst_cuda_block_match_wants_previous_frame (GstCvFilter * filter)
{
  return TRUE;   /* block matching compares each frame with the previous one */
}

static gboolean
gst_cuda_block_match_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstCudaBlockMatch *self = GST_CUDA_BLOCK_MATCH (filter);
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GST_OBJECT_LOCK (self);
  cc_blockmatch_params params = self->params;
  self->params_changed = FALSE;
  self->dense_now = self->dense || self->refine.enabled;
  GST_OBJECT_UNLOCK (self);

  cc_status st = cc_blockmatch_create (ctx, w, h, &params, &self->bm);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating block matching");
    return FALSE;
  }
  int gw, gh;
  cc_blockmatch_grid_size (self->bm, &gw, &gh);
  if (self->dense_now) {
    cc_location loc = gst_cv_filter_get_location (filter);
    if ((st = cc_image_alloc (ctx, gw, gh, CC_FORMAT_F32C2, loc, &self->grid)) != CC_SUCCESS
        || (st = cc_image_alloc (ctx, gw, gh, CC_FORMAT_F32, loc, &self->grid_conf))
        != CC_SUCCESS) {
      GST_CV_FILTER_CORE_ERROR (self, st, "allocating the block grid");
      return FALSE;
    }
    self->have_grid = TRUE;
  }
  self->pool = gst_cv_flow_element_pool_new (filter, self->dense_now ? w : gw,
      self->dense_now ? h : gh);
  if (!self->pool)
    return FALSE;
  if (!gst_cv_refine_setup (&self->refine, filter, w, h))
    return FALSE;
  GST_INFO_OBJECT (self, "%dx%d, %dx%d blocks of %d px, %s meta", w, h, gw, gh,
      params.block_size, self->dense_now ? "dense" : "block");
  return TRUE;
}

static gboolean
gst_cuda_block_match_writes_frame (GstCvFilter * filter)
{
  return gst_cv_flow_vis_draws (GST_OBJECT (filter), &GST_CUDA_BLOCK_MATCH (filter)->vis);
}

static cc_status
gst_cuda_block_match_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstCudaBlockMatch *self = GST_CUDA_BLOCK_MATCH (filter);
  cc_context *ctx = gst_cv_filter_get_context (filter);
  const GstVideoInfo *info = gst_cv_filter_get_info (filter);
  const cc_image *prev = gst_cv_filter_get_previous_frame (filter);

  GST_OBJECT_LOCK (self);
  gboolean changed = self->params_changed;
  cc_blockmatch_params params = self->params;
  gboolean dense_wanted = self->dense || self->refine.enabled;
  self->params_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  cc_blockmatch_params current;
  cc_blockmatch_get_params (self->bm, &current);
  if (dense_wanted != self->dense_now || params.block_size != current.block_size) {
    /* the meta's grid changes size: new matcher, grid and pool before this frame
     * (the previous frame, kept by the base class, stays valid) */
    gst_cuda_block_match_teardown (filter);
    if (!gst_cuda_block_match_setup (filter, info, ctx)) {
      *what = NULL;   /* posted */
      return CC_ERROR_INTERNAL;
    }
  } else if (changed) {
    *what = "changing the block-matching parameters";
    cc_status st = cc_blockmatch_set_params (self->bm, &params);
    if (st != CC_SUCCESS)
      return st;
  }

  GstCvFlowFrame f;
  cc_status st = gst_cv_flow_frame_begin (&f, self->pool, what);
  if (st != CC_SUCCESS)
    return st;
  *what = "block matching";
  if (!prev) {
    st = gst_cv_flow_frame_zero (&f, filter, stream);
  } else if (!self->dense_now) {
    st = cc_blockmatch_compute (self->bm, stream, prev, frame, f.vectors, f.confidence, NULL);
  } else {
    st = cc_blockmatch_compute (self->bm, stream, prev, frame, &self->grid, &self->grid_conf,
        f.vectors);
    if (st == CC_SUCCESS)
      st = cc_image_resize_nearest (ctx, stream, &self->grid_conf, f.confidence);
    if (st == CC_SUCCESS)
      st = gst_cv_refine_apply (&self->refine, filter, stream, prev, frame, f.vectors, what);
  }
  const guint cell = self->dense_now ? 1 : (guint) params.block_size;
  const GstCvFlowFrameEnd end = {
    .keep_frame = TRUE, .min_confidence = 0.0f, .quality_scale = 1.0f,
    .cell_width = cell, .cell_height = cell, .confidence = GST_CV_FLOW_CONFIDENCE_MATCH,
    .valid = prev != NULL, .name = "block matching",
  };
  return gst_cv_flow_frame_finish (&f, st, filter, buffer, stream, frame, &self->vis, &end,
      what);
}

/* ------------------------------------------------------------- properties */

static void
gst_cuda_block_match_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaBlockMatch *self = GST_CUDA_BLOCK_MATCH (object);
  if (gst_cv_flow_element_set_property (GST_OBJECT (self), &self->vis, PROP_VIS_FIRST,
          &self->refine, PROP_REFINE_FIRST, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  cc_blockmatch_params *p = &self->params;
  switch (prop_id) {
    case PROP_BLOCK_SIZE: p->block_size = g_value_get_int (value); break;
    case PROP_SEARCH_RADIUS: p->search_radius = g_value_get_int (value); break;
    case PROP_SEED_RADIUS: p->seed_radius = g_value_get_int (value); break;
    case PROP_LEVELS:
    case PROP_PYRAMID_LEVELS: p->levels = g_value_get_int (value); break;
    case PROP_METRIC: p->metric = g_value_get_enum (value); break;
    case PROP_SUBPIXEL: p->subpixel = g_value_get_boolean (value); break;
    case PROP_FLAT_THRESHOLD: p->flat_threshold = (float) g_value_get_double (value); break;
    case PROP_DENSE: self->dense = g_value_get_boolean (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  if (prop_id >= PROP_BLOCK_SIZE && prop_id <= PROP_PYRAMID_LEVELS)
    self->params_changed = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_block_match_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaBlockMatch *self = GST_CUDA_BLOCK_MATCH (object);
  if (gst_cv_flow_element_get_property (GST_OBJECT (self), &self->vis, PROP_VIS_FIRST,
          &self->refine, PROP_REFINE_FIRST, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  const cc_blockmatch_params *p = &self->params;
  switch (prop_id) {
    case PROP_BLOCK_SIZE: g_value_set_int (value, p->block_size); break;
    case PROP_SEARCH_RADIUS: g_value_set_int (value, p->search_radius); break;
    case PROP_SEED_RADIUS: g_value_set_int (value, p->seed_radius); break;
    case PROP_LEVELS:
    case PROP_PYRAMID_LEVELS: g_value_set_int (value, p->levels); break;
    case PROP_METRIC: g_value_set_enum (value, p->metric); break;
    case PROP_SUBPIXEL: g_value_set_boolean (value, p->subpixel); break;
    case PROP_FLAT_THRESHOLD: g_value_set_double (value, p->flat_threshold); break;
    case PROP_DENSE: g_value_set_boolean (value, self->dense); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_block_match_class_init (GstCudaBlockMatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  cc_blockmatch_params d;
  cc_blockmatch_params_default (&d);

  GST_DEBUG_CATEGORY_INIT (cudablockmatch_debug, "cudablockmatch", 0, "block matching flow");
  gobject_class->set_property = gst_cuda_block_match_set_property;
  gobject_class->get_property = gst_cuda_block_match_get_property;

  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_int ("block-size", "Block size", "Side of the square blocks, pixels",
          CC_BLOCKMATCH_BLOCK_MIN, CC_BLOCKMATCH_BLOCK_MAX, d.block_size, rw));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RADIUS,
      g_param_spec_int ("search-radius", "Search radius",
          "Largest motion searched, pixels at full resolution",
          CC_BLOCKMATCH_RADIUS_MIN, CC_BLOCKMATCH_RADIUS_MAX, d.search_radius, rw));
  g_object_class_install_property (gobject_class, PROP_SEED_RADIUS,
      g_param_spec_int ("seed-radius", "Seed radius",
          "How far (px) each finer level searches around the coarser level's vector: "
          "raise if motion edges come out blocky or wrong, at more work per level",
          CC_BLOCKMATCH_SEED_RADIUS_MIN, CC_BLOCKMATCH_SEED_RADIUS_MAX, d.seed_radius, rw));
  g_object_class_install_property (gobject_class, PROP_PYRAMID_LEVELS,
      g_param_spec_int ("pyramid-levels", "Pyramid levels", "Pyramid levels of the "
          "search (cudaflowlk's name for the same): each level doubles the motion found "
          "for little more time",
          CC_BLOCKMATCH_LEVELS_MIN, CC_BLOCKMATCH_LEVELS_MAX, d.levels, rw));
  /* the name before the flow elements shared one vocabulary: kept for launch lines */
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_int ("levels", "Levels", "Deprecated: the same as pyramid-levels",
          CC_BLOCKMATCH_LEVELS_MIN, CC_BLOCKMATCH_LEVELS_MAX, d.levels,
          rw | G_PARAM_DEPRECATED));
  g_object_class_install_property (gobject_class, PROP_METRIC,
      g_param_spec_enum ("metric", "Metric", "Block similarity", GST_TYPE_CV_MATCH_METRIC,
          d.metric, rw));
  g_object_class_install_property (gobject_class, PROP_SUBPIXEL,
      g_param_spec_boolean ("subpixel", "Sub-pixel", "Parabola fit around the best match",
          d.subpixel, rw));
  g_object_class_install_property (gobject_class, PROP_FLAT_THRESHOLD,
      g_param_spec_double ("flat-threshold", "Flat threshold",
          "Blocks whose luma standard deviation (0-255) is below this are flat: "
          "confidence 0, vector inherited", 0.0, 255.0, d.flat_threshold, rw));
  g_object_class_install_property (gobject_class, PROP_DENSE,
      g_param_spec_boolean ("dense", "Dense",
          "Attach a per-pixel field (confidence-weighted upsampling) instead of one "
          "vector per block (implied by refine=variational)", FALSE, rw));
  gst_cv_flow_vis_install_properties (gobject_class, PROP_VIS_FIRST, TRUE);
  gst_cv_refine_install_properties (gobject_class, PROP_REFINE_FIRST);

  gst_element_class_set_static_metadata (element_class, "CUDA block-matching optical flow",
      "Filter/Analyzer/Video",
      "Optical flow by block matching: one vector per block-size block (or, with dense "
      "or refine=variational, per pixel) and a confidence in 0..1 (0 on flat blocks), "
      "robust to brightness changes with the default metric (ncc); attached as a "
      "GstCvFlowMeta, the first frame of a stream marked not valid. visualize draws the "
      "motion (color, arrows) or the confidence (quality). CUDA memory stays on the GPU; "
      "active-backend says where it runs",
      "cudavision developers");
  gst_cv_filter_class_add_pad_templates (filter_class);

  filter_class->setup = gst_cuda_block_match_setup;
  filter_class->teardown = gst_cuda_block_match_teardown;
  filter_class->writes_frame = gst_cuda_block_match_writes_frame;
  filter_class->process = gst_cuda_block_match_process;
  filter_class->wants_previous_frame = gst_cuda_block_match_wants_previous_frame;
  gst_type_mark_as_plugin_api (GST_TYPE_CV_MATCH_METRIC, 0);
}

static void
gst_cuda_block_match_init (GstCudaBlockMatch * self)
{
  cc_blockmatch_params_default (&self->params);
  gst_cv_flow_vis_init (&self->vis);
  gst_cv_refine_init (&self->refine);
}
