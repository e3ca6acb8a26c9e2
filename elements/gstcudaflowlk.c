/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudaflowlk
 * @title: cudaflowlk
 *
 * Dense pyramidal Lucas-Kanade optical flow on the GPU (with a CPU fallback).
 * Every frame passes through with a #GstCvFlowMeta holding one motion vector per
 * pixel (from the previous frame to this one) and its confidence; `visualize`
 * draws the flow into the video (Middlebury colour wheel or arrows).
 * Frames in CUDA memory (from cudaupload or nvh264dec) are processed on the GPU
 * with no host copy. The first frame, and the first after a caps change, a flushing
 * seek, a new segment or a DISCONT buffer, carries zero flow with confidence 0 (meta
 * field `valid` = FALSE). With `refine=variational`
 * the field is refined by the variational energy minimisation shared with
 * cudablockmatch (refine-* properties).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,format=NV12 ! cudaupload ! \
 *     "video/x-raw(memory:CUDAMemory)" ! cudaflowlk visualize=color ! cudadownload ! \
 *     videoconvert ! autovideosink
 * ]| The moving ball coloured by direction of motion on the Middlebury wheel. The caps
 * filter keeps the frames in CUDA memory (without it cudaupload and cudadownload
 * agree on system memory and only pass buffers through).
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=I420 ! \
 *     cudaflowlk visualize=arrows window-size=15 ! videoconvert ! autovideosink
 * ]| Camera motion as arrows, system memory in and out.
 */
#include "gstcvfilter.h"
#include "gstcvenum.h"
#include "gstcvflowfield.h"
#include "gstcvflowelement.h"

#include <cudacore/cc_flow_lk.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (cudaflowlk_debug);
#define GST_CAT_DEFAULT cudaflowlk_debug

#define GST_TYPE_CV_GRADIENT (gst_cv_gradient_get_type ())
GST_CV_DEFINE_ENUM (gst_cv_gradient_get_type, "GstCvGradient",
    { CC_GRADIENT_SCHARR, "3x3 Scharr", "scharr" },
    { CC_GRADIENT_SOBEL, "3x3 Sobel", "sobel" })

enum {
  PROP_0, PROP_PYRAMID_LEVELS, PROP_ITERATIONS, PROP_WINDOW_SIZE, PROP_MIN_EIGEN_THRESHOLD,
  PROP_GRADIENT, PROP_FB_CHECK, PROP_FB_THRESHOLD, PROP_ROI,
  PROP_VIS_FIRST,                                      /* GST_CV_VIS_N_PROPS ids */
  PROP_REFINE_FIRST = PROP_VIS_FIRST + GST_CV_VIS_N_PROPS, /* GST_CV_REFINE_N_PROPS ids */
};

struct _GstCudaFlowLk {
  GstCvFilter parent;
  /* properties (object lock) */
  cc_flow_lk_params params;
  gboolean params_changed;
  GstCvFlowVis vis;
  gint roi[4];               /* x, y, width, height; width 0 = whole frame */
  gint roi_warned[6];        /* the roi and frame size last warned about (once a change) */
  GstCvRefine refine;
  /* streaming (setup/process) */
  cc_flow_lk *lk;
  GstCvFieldPool *pool;
  cc_image mask;
  gboolean have_mask;
};

G_DECLARE_FINAL_TYPE (GstCudaFlowLk, gst_cuda_flow_lk, GST, CUDA_FLOW_LK, GstCvFilter)
G_DEFINE_TYPE (GstCudaFlowLk, gst_cuda_flow_lk, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaflowlk, "cudaflowlk", GST_RANK_NONE, gst_cuda_flow_lk_get_type ());

static void
gst_cuda_flow_lk_teardown (GstCvFilter * filter)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (filter);
  cc_flow_lk_destroy (self->lk);
  self->lk = NULL;
  gst_cv_field_pool_unref (self->pool);
  self->pool = NULL;
  if (self->have_mask)
    cc_image_free (gst_cv_filter_get_context (filter), &self->mask);
  self->have_mask = FALSE;
  gst_cv_refine_teardown (&self->refine);
}

static gboolean
gst_cuda_flow_lk_wants_previous_frame (GstCvFilter * filter)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (filter);
  GST_OBJECT_LOCK (self);
  gboolean wants = self->refine.enabled;
  GST_OBJECT_UNLOCK (self);
  return wants;
}

static void
gst_cuda_flow_lk_reset (GstCvFilter * filter)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (filter);
  if (self->lk)
    cc_flow_lk_reset (self->lk);   /* the next frame gives zero flow, meta not valid */
}

/* Clamps the roi (x, y, width, height; any non-negative 32-bit values) to a w x h
 * frame in 64-bit arithmetic: *x0 <= x < *x1, *y0 <= y < *y1. FALSE when the
 * rectangle lies wholly outside the frame. */
static gboolean
clamp_roi (const gint roi[4], int w, int h, int *x0, int *y0, int *x1, int *y1)
{
  gint64 rx1 = MIN ((gint64) roi[0] + roi[2], (gint64) w);
  gint64 ry1 = MIN ((gint64) roi[1] + roi[3], (gint64) h);
  if (roi[0] >= w || roi[1] >= h || rx1 <= roi[0] || ry1 <= roi[1])
    return FALSE;
  *x0 = roi[0];
  *y0 = roi[1];
  *x1 = (int) rx1;
  *y1 = (int) ry1;
  return TRUE;
}

/* The roi property as a mask image, built once per setup. */
static gboolean
make_roi_mask (GstCudaFlowLk * self, cc_context * ctx, int w, int h, int x0, int y0, int x1,
    int y1)
{
  cc_image host;
  if (cc_image_alloc (ctx, w, h, CC_FORMAT_GRAY8, CC_LOCATION_HOST, &host) != CC_SUCCESS)
    return FALSE;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      ((guint8 *) host.planes[0])[y * host.pitch[0] + x] = x >= x0 && y >= y0
          && x < x1 && y < y1 ? 255 : 0;
  cc_location loc = gst_cv_filter_get_location (GST_CV_FILTER (self));
  gboolean ok = cc_image_alloc (ctx, w, h, CC_FORMAT_GRAY8, loc, &self->mask) == CC_SUCCESS
      && cc_image_copy (ctx, gst_cv_filter_get_stream (GST_CV_FILTER (self)), &host,
          &self->mask) == CC_SUCCESS;
  self->have_mask = ok;
  cc_image_free (ctx, &host);
  return ok;
}

static gboolean
gst_cuda_flow_lk_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (filter);
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GST_OBJECT_LOCK (self);
  cc_flow_lk_params params = self->params;
  self->params_changed = FALSE;
  gint roi[4] = { self->roi[0], self->roi[1], self->roi[2], self->roi[3] };
  GST_OBJECT_UNLOCK (self);

  cc_status st = cc_flow_lk_create (ctx, w, h, &params, &self->lk);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating Lucas-Kanade");
    return FALSE;
  }
  self->pool = gst_cv_flow_element_pool_new (filter, w, h);
  if (!self->pool)
    return FALSE;
  if (!gst_cv_refine_setup (&self->refine, filter, w, h))
    return FALSE;
  int x0, y0, x1, y1;
  const gint warn_key[6] = { roi[0], roi[1], roi[2], roi[3], w, h };
  const gboolean outside = roi[2] > 0 && !clamp_roi (roi, w, h, &x0, &y0, &x1, &y1);
  if (outside) {
    /* other properties set up again too: one warning for a roi and frame size */
    if (memcmp (warn_key, self->roi_warned, sizeof warn_key) != 0)
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("roi %d,%d,%d,%d lies outside the "
              "%dx%d frame: refused, flow over the whole frame", roi[0], roi[1], roi[2],
              roi[3], w, h), (NULL));
    memcpy (self->roi_warned, warn_key, sizeof warn_key);
  } else if (roi[2] > 0 && !make_roi_mask (self, ctx, w, h, x0, y0, x1, y1)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("cannot create the roi mask"),
        ("%s", cc_last_error ()));
    return FALSE;
  }
  if (!outside)
    memset (self->roi_warned, 0, sizeof self->roi_warned);   /* usable: warn anew */
  GST_INFO_OBJECT (self, "%dx%d on %s, %d levels, %d iterations, window %d", w, h,
      cc_backend_name (cc_context_backend (ctx)), params.pyramid_levels, params.iterations,
      params.window_size);
  return TRUE;
}

static gboolean
gst_cuda_flow_lk_writes_frame (GstCvFilter * filter)
{
  return gst_cv_flow_vis_draws (GST_OBJECT (filter), &GST_CUDA_FLOW_LK (filter)->vis);
}

static cc_status
gst_cuda_flow_lk_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (filter);
  GST_OBJECT_LOCK (self);
  gboolean changed = self->params_changed;
  cc_flow_lk_params params = self->params;
  self->params_changed = FALSE;
  GST_OBJECT_UNLOCK (self);

  cc_status st;
  *what = "changing the Lucas-Kanade parameters";
  if (changed && (st = cc_flow_lk_set_params (self->lk, &params)) != CC_SUCCESS)
    return st;
  GstCvFlowFrame f;
  if ((st = gst_cv_flow_frame_begin (&f, self->pool, what)) != CC_SUCCESS)
    return st;
  bool had_previous = false;
  *what = "optical flow";
  st = cc_flow_lk_compute_video (self->lk, stream, frame, self->have_mask ? &self->mask : NULL,
      f.vectors, f.confidence, &had_previous);
  if (st == CC_SUCCESS && had_previous)
    st = gst_cv_refine_apply (&self->refine, filter, stream,
        gst_cv_filter_get_previous_frame (filter), frame, f.vectors, what);
  const GstCvFlowFrameEnd end = {
    .keep_frame = had_previous,
    /* flat areas only inherit coarse vectors: drawn as still */
    .min_confidence = params.fb_check ? 0.0f : params.min_eigen_threshold,
    .quality_scale = 1e-3f,
    .cell_width = 1, .cell_height = 1,
    .confidence = params.fb_check ? GST_CV_FLOW_CONFIDENCE_FB_ERROR
        : GST_CV_FLOW_CONFIDENCE_MIN_EIGENVALUE,
    .valid = had_previous,
    .name = "optical flow",
  };
  return gst_cv_flow_frame_finish (&f, st, filter, buffer, stream, frame, &self->vis, &end,
      what);
}

/* ------------------------------------------------------------- properties */

static gboolean
parse_roi (const gchar * s, gint roi[4])
{
  if (!s || !*s) {
    roi[0] = roi[1] = roi[2] = roi[3] = 0;
    return TRUE;
  }
  gint v[4];
  const gchar *p = s;
  for (int i = 0; i < 4; i++) {
    gchar *end;
    if (i > 0 && *p++ != ',')
      return FALSE;
    if (!g_ascii_isdigit (*p))
      return FALSE;
    guint64 n = g_ascii_strtoull (p, &end, 10);
    if (n > G_MAXINT || (i >= 2 && n < 1))
      return FALSE;
    v[i] = (gint) n;
    p = end;
  }
  if (*p)
    return FALSE;
  memcpy (roi, v, sizeof v);
  return TRUE;
}

static void
gst_cuda_flow_lk_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (object);
  gboolean resetup = FALSE;
  if (gst_cv_flow_element_set_property (GST_OBJECT (self), &self->vis, PROP_VIS_FIRST,
          &self->refine, PROP_REFINE_FIRST, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  cc_flow_lk_params *p = &self->params;
  switch (prop_id) {
    case PROP_PYRAMID_LEVELS: p->pyramid_levels = g_value_get_int (value); break;
    case PROP_ITERATIONS: p->iterations = g_value_get_int (value); break;
    case PROP_WINDOW_SIZE: {
      gint w = g_value_get_int (value);
      if (w % 2 == 0) {
        gint kept = p->window_size;
        GST_OBJECT_UNLOCK (self);
        GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("window-size must be odd (got %d); "
                "keeping %d", w, kept), (NULL));
        return;
      }
      p->window_size = w;
      break;
    }
    case PROP_MIN_EIGEN_THRESHOLD: p->min_eigen_threshold = (float) g_value_get_double (value); break;
    case PROP_GRADIENT: p->gradient = g_value_get_enum (value); break;
    case PROP_FB_CHECK: p->fb_check = g_value_get_boolean (value); break;
    case PROP_FB_THRESHOLD: p->fb_threshold = (float) g_value_get_double (value); break;
    case PROP_ROI:
      if (!parse_roi (g_value_get_string (value), self->roi)) {
        GST_OBJECT_UNLOCK (self);
        GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("roi must be \"x,y,width,height\" "
                "(got \"%s\"); unchanged", g_value_get_string (value)), (NULL));
        return;
      }
      resetup = TRUE;
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  if (prop_id >= PROP_PYRAMID_LEVELS && prop_id <= PROP_FB_THRESHOLD)
    self->params_changed = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (resetup)
    gst_cv_filter_request_setup (GST_CV_FILTER (self));
}

static void
gst_cuda_flow_lk_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaFlowLk *self = GST_CUDA_FLOW_LK (object);
  if (gst_cv_flow_element_get_property (GST_OBJECT (self), &self->vis, PROP_VIS_FIRST,
          &self->refine, PROP_REFINE_FIRST, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  const cc_flow_lk_params *p = &self->params;
  switch (prop_id) {
    case PROP_PYRAMID_LEVELS: g_value_set_int (value, p->pyramid_levels); break;
    case PROP_ITERATIONS: g_value_set_int (value, p->iterations); break;
    case PROP_WINDOW_SIZE: g_value_set_int (value, p->window_size); break;
    case PROP_MIN_EIGEN_THRESHOLD: g_value_set_double (value, p->min_eigen_threshold); break;
    case PROP_GRADIENT: g_value_set_enum (value, p->gradient); break;
    case PROP_FB_CHECK: g_value_set_boolean (value, p->fb_check); break;
    case PROP_FB_THRESHOLD: g_value_set_double (value, p->fb_threshold); break;
    case PROP_ROI:
      if (self->roi[2] > 0)
        g_value_take_string (value, g_strdup_printf ("%d,%d,%d,%d", self->roi[0], self->roi[1],
                self->roi[2], self->roi[3]));
      else
        g_value_set_string (value, "");
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_flow_lk_class_init (GstCudaFlowLkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (cudaflowlk_debug, "cudaflowlk", 0, "Lucas-Kanade optical flow");
  gobject_class->set_property = gst_cuda_flow_lk_set_property;
  gobject_class->get_property = gst_cuda_flow_lk_get_property;

  g_object_class_install_property (gobject_class, PROP_PYRAMID_LEVELS,
      g_param_spec_int ("pyramid-levels", "Pyramid levels",
          "Gaussian pyramid levels: each level doubles the motion followed, for little more "
          "time (a level costs a quarter of the one above; levels under 8 px are skipped)",
          CC_FLOW_LK_LEVELS_MIN, CC_FLOW_LK_LEVELS_MAX, 5, rw));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations", "Refinement steps per pyramid level: "
          "more converge further on large or fast motion, the time grows in proportion",
          CC_FLOW_LK_ITERATIONS_MIN, CC_FLOW_LK_ITERATIONS_MAX, 3, rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW_SIZE,
      g_param_spec_int ("window-size", "Window size",
          "Side of the square window each vector is estimated over, odd (even values are "
          "refused): larger is smoother and copes with weaker texture, smaller keeps "
          "small moving objects apart",
          CC_FLOW_LK_WINDOW_MIN, CC_FLOW_LK_WINDOW_MAX, 9, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_EIGEN_THRESHOLD,
      g_param_spec_double ("min-eigen-threshold", "Minimum eigenvalue",
          "How much texture a pixel needs for its own vector (the window's smallest "
          "gradient eigenvalue per pixel, intensities in 0..1); below it the coarser "
          "level's vector is kept: raise to suppress noise in flat areas, lower to trust "
          "weak texture",
          0.0, 0.99, 1e-6, rw));
  g_object_class_install_property (gobject_class, PROP_GRADIENT,
      g_param_spec_enum ("gradient", "Gradient", "Spatial derivative filter: scharr "
          "(more accurate on rotated texture) or sobel; the same time",
          GST_TYPE_CV_GRADIENT, CC_GRADIENT_SCHARR, rw));
  g_object_class_install_property (gobject_class, PROP_FB_CHECK,
      g_param_spec_boolean ("fb-check", "Forward-backward check",
          "Also compute the backward flow; confidence becomes the forward-backward error "
          "in pixels, -1 where it exceeds fb-threshold (about twice the work)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_FB_THRESHOLD,
      g_param_spec_double ("fb-threshold", "Forward-backward threshold",
          "Forward-backward error in pixels above which a vector is invalid",
          0.01, 1000.0, 1.0, rw));
  g_object_class_install_property (gobject_class, PROP_ROI,
      g_param_spec_string ("roi", "Region of interest",
          "\"x,y,width,height\": flow only inside this rectangle (zero outside), clipped "
          "to the frame; one wholly outside the frame is refused with a warning; "
          "empty = whole frame", "", rw));

  gst_cv_flow_vis_install_properties (gobject_class, PROP_VIS_FIRST, FALSE);
  gst_cv_refine_install_properties (gobject_class, PROP_REFINE_FIRST);

  gst_element_class_set_static_metadata (element_class, "CUDA Lucas-Kanade optical flow",
      "Filter/Analyzer/Video",
      "Dense optical flow for motions of up to a few tens of pixels, fast enough for live "
      "video on the GPU. Every frame leaves with a GstCvFlowMeta of one vector per pixel "
      "(the motion from the previous frame) and a confidence (texture strength, or with "
      "fb-check the forward-backward error in pixels); the first frame of a stream "
      "carries zero flow marked not valid. visualize draws the motion (color, arrows); "
      "refine=variational smooths and sharpens the field; roi restricts it to a "
      "rectangle. CUDA memory (cudaupload, nvh264dec) stays on the GPU; active-backend "
      "says where it runs. The method is pyramidal Lucas-Kanade",
      "cudavision developers");
  gst_cv_filter_class_add_pad_templates (filter_class);

  filter_class->setup = gst_cuda_flow_lk_setup;
  filter_class->teardown = gst_cuda_flow_lk_teardown;
  filter_class->writes_frame = gst_cuda_flow_lk_writes_frame;
  filter_class->process = gst_cuda_flow_lk_process;
  filter_class->wants_previous_frame = gst_cuda_flow_lk_wants_previous_frame;
  filter_class->reset = gst_cuda_flow_lk_reset;

  gst_type_mark_as_plugin_api (GST_TYPE_CV_GRADIENT, 0);
}

static void
gst_cuda_flow_lk_init (GstCudaFlowLk * self)
{
  cc_flow_lk_params_default (&self->params);
  gst_cv_flow_vis_init (&self->vis);
  gst_cv_refine_init (&self->refine);
}
