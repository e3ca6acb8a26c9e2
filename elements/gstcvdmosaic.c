/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cvdmosaic
 * @title: cvdmosaic
 *
 * A centroidal Voronoi mosaic / stippling video effect (vasconcelos, appendix B:
 * Lloyd's algorithm on the GPU). `sites` sites are relaxed by `iterations` Lloyd
 * iterations a frame (jump flooding for the Voronoi cells, a regional reduction for
 * the density-weighted centroids), starting from the previous frame's sites (warm
 * start), so the cells are temporally coherent; after a (re)seed, up to
 * `settle-iterations` more iterations settle the fresh sites on that frame. With
 * `advect=flow` each cell first moves by the mean of the frame's dense Lucas-Kanade
 * flow over its pixels, so cells follow the content.
 * The density (`density`) weights the centroids: `dark` gathers sites in the dark
 * parts (stippling), `gradient` along edges (mosaics). `style` draws the cells
 * filled with their mean colour, a dot per site sized by the cell's darkness, or
 * the cell borders over the image. Everything runs where the backend computes (CUDA
 * memory in and out with no host copy on the CUDA backend). Design and figures:
 * docs/cvdmosaic.md.
 *
 * Changing `sites` or `seed` re-seeds the sites on the next frame; every other
 * property applies from the next frame. A `sites` value larger than the negotiated
 * frame's pixel count is refused with a warning (the previous value stays); a caps
 * change to a frame smaller than `sites` uses one site a pixel. A flushing seek, a
 * new segment, a DISCONT buffer and a caps change re-seed.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=fruits.jpg ! jpegdec ! videoconvert ! imagefreeze ! \
 *     video/x-raw,format=RGBA ! cvdmosaic sites=3000 density=gradient border-width=1 ! \
 *     videoconvert ! autovideosink
 * ]| A mosaic of a still picture; the cells settle over the first frames.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=NV12 ! cudaupload ! \
 *     "video/x-raw(memory:CUDAMemory)" ! cvdmosaic sites=20000 iterations=2 advect=flow ! \
 *     cudadownload ! videoconvert ! autovideosink
 * ]| A live camera mosaic on the GPU whose cells follow the motion.
 */
#include "gstcvfilter.h"
#include "gstcvenum.h"
#include <cudacore/cc_cvd.h>
#include <cudacore/cc_flow_lk.h>

GST_DEBUG_CATEGORY_STATIC (cvdmosaic_debug);
#define GST_CAT_DEFAULT cvdmosaic_debug

GST_CV_DEFINE_ENUM (gst_cv_cvd_density_get_type, "GstCvCvdDensity",
    { CC_CVD_DENSITY_UNIFORM, "Uniform", "uniform" },
    { CC_CVD_DENSITY_DARK, "Luminance, dark = dense (stippling)", "dark" },
    { CC_CVD_DENSITY_BRIGHT, "Inverse luminance, bright = dense", "bright" },
    { CC_CVD_DENSITY_GRADIENT, "Gradient magnitude (sites gather at edges)", "gradient" })
GST_CV_DEFINE_ENUM (gst_cv_cvd_style_get_type, "GstCvCvdStyle",
    { CC_CVD_STYLE_CELLS, "Cells filled with their mean colour", "cells" },
    { CC_CVD_STYLE_STIPPLE, "A dot per site on white, sized by the cell's darkness", "stipple" },
    { CC_CVD_STYLE_OUTLINE, "Cell borders over the image", "outline" })

typedef enum { ADVECT_NONE = 0, ADVECT_FLOW } AdvectMode;
GST_CV_DEFINE_ENUM (gst_cv_cvd_advect_get_type, "GstCvCvdAdvect",
    { ADVECT_NONE, "Sites stay where the last frame left them", "none" },
    { ADVECT_FLOW, "Sites move with the frame's Lucas-Kanade flow first", "flow" })

enum {
  PROP_0, PROP_SITES, PROP_ITERATIONS, PROP_DENSITY, PROP_STYLE, PROP_BORDER_WIDTH,
  PROP_BORDER_COLOR, PROP_ADVECT, PROP_SEED,
  PROP_SETTLE_ITERATIONS,
};

#define DEFAULT_SITES 2000
#define DEFAULT_ITERATIONS 2
#define DEFAULT_SETTLE_ITERATIONS 30
/* the settling stops once the sites move less than this (mean |dx| + |dy|, px) */
#define SETTLE_THRESHOLD 0.01
#define DEFAULT_BORDER_WIDTH 1
#define DEFAULT_BORDER_COLOR 0x000000

struct _GstCvdMosaic {
  GstCvFilter parent;
  /* properties (object lock) */
  gint sites, iterations, settle;
  cc_cvd_params params;
  cc_cvd_style style;
  gint border_width;
  guint border_color;
  AdvectMode advect;
  guint64 seed;
  gboolean reseed;
  gint width, height;          /* negotiated size (0 before caps) */
  /* streaming (setup/process) */
  cc_cvd *cvd;
  cc_flow_lk *lk;              /* created when advection is first asked for */
  cc_image flow;
  gboolean lk_failed;
};

G_DECLARE_FINAL_TYPE (GstCvdMosaic, gst_cvd_mosaic, GST, CVD_MOSAIC, GstCvFilter)
G_DEFINE_TYPE (GstCvdMosaic, gst_cvd_mosaic, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cvdmosaic, "cvdmosaic", GST_RANK_NONE, gst_cvd_mosaic_get_type ());

static void
gst_cvd_mosaic_teardown (GstCvFilter * filter)
{
  GstCvdMosaic *self = GST_CVD_MOSAIC (filter);
  cc_cvd_destroy (self->cvd);
  self->cvd = NULL;
  cc_flow_lk_destroy (self->lk);
  self->lk = NULL;
  if (self->flow.planes[0])
    cc_image_free (gst_cv_filter_get_context (filter), &self->flow);
  memset (&self->flow, 0, sizeof self->flow);
  self->lk_failed = FALSE;
}

static void
gst_cvd_mosaic_reset (GstCvFilter * filter)
{
  GstCvdMosaic *self = GST_CVD_MOSAIC (filter);
  GST_OBJECT_LOCK (self);
  self->reseed = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (self->lk)
    cc_flow_lk_reset (self->lk);
}

static gboolean
gst_cvd_mosaic_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstCvdMosaic *self = GST_CVD_MOSAIC (filter);
  GST_OBJECT_LOCK (self);
  cc_cvd_params params = self->params;
  self->width = GST_VIDEO_INFO_WIDTH (info);
  self->height = GST_VIDEO_INFO_HEIGHT (info);
  self->reseed = TRUE;
  GST_OBJECT_UNLOCK (self);
  cc_status st = cc_cvd_create (ctx, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      &params, &self->cvd);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating the mosaic");
    return FALSE;
  }
  return TRUE;
}

/* The flow estimator and its field, the first time advection is asked for. */
static gboolean
ensure_flow (GstCvdMosaic * self, cc_context * ctx, const cc_image * frame)
{
  if (self->lk)
    return TRUE;
  if (self->lk_failed)
    return FALSE;
  cc_status st = cc_flow_lk_create (ctx, frame->width, frame->height, NULL, &self->lk);
  if (st == CC_SUCCESS)
    st = cc_image_alloc (ctx, frame->width, frame->height, CC_FORMAT_F32C2,
        gst_cv_filter_get_location (GST_CV_FILTER (self)),
        &self->flow);
  if (st != CC_SUCCESS) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("advect=flow is not available for %dx%d "
            "frames; the sites are not advected", frame->width, frame->height),
        ("%s: %s", cc_status_name (st), cc_last_error ()));
    cc_flow_lk_destroy (self->lk);
    self->lk = NULL;
    self->lk_failed = TRUE;
    return FALSE;
  }
  return TRUE;
}

static cc_status
gst_cvd_mosaic_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstCvdMosaic *self = GST_CVD_MOSAIC (filter);
  cc_context *ctx = gst_cv_filter_get_context (filter);
  GST_OBJECT_LOCK (self);
  gboolean reseed = self->reseed;
  self->reseed = FALSE;
  gint sites = self->sites, iterations = self->iterations, settle = self->settle;
  guint64 seed = self->seed;
  cc_cvd_params params = self->params;
  AdvectMode advect = self->advect;
  guint c = self->border_color;
  cc_cvd_draw_params rp = { self->style, self->border_width, (c >> 16) & 0xFF,
                              (c >> 8) & 0xFF, c & 0xFF };
  GST_OBJECT_UNLOCK (self);

  *what = "setting the parameters";
  cc_status st = cc_cvd_set_params (self->cvd, &params);
  reseed = reseed || cc_cvd_site_count (self->cvd) == 0;
  if (st == CC_SUCCESS && reseed) {
    /* one site a pixel at most (a frame smaller than `sites`) */
    gint64 pixels = (gint64) frame->width * frame->height;
    gint n = sites < pixels ? sites : (gint) pixels;
    *what = "seeding the sites";
    st = cc_cvd_seed (self->cvd, stream, n, seed);
    if (self->lk)
      cc_flow_lk_reset (self->lk);
  }
  if (st == CC_SUCCESS && advect == ADVECT_FLOW && ensure_flow (self, ctx, frame)) {
    bool has_previous = false;
    *what = "estimating the flow";
    st = cc_flow_lk_compute_video (self->lk, stream, frame, NULL, &self->flow, NULL, &has_previous);
    if (st == CC_SUCCESS && has_previous) {
      *what = "advecting the sites";
      st = cc_cvd_move_sites (self->cvd, stream, &self->flow);
    }
  } else if (st == CC_SUCCESS && advect == ADVECT_NONE && self->lk) {
    /* advection resumes from a fresh pair when it is turned on again */
    cc_flow_lk_reset (self->lk);
  }
  if (st == CC_SUCCESS) {
    *what = "computing the density";
    st = cc_cvd_set_density (self->cvd, stream, frame);
  }
  if (st == CC_SUCCESS && reseed && settle > 0) {
    /* fresh sites: settle them on this frame (stopping on the device once they move
     * less than SETTLE_THRESHOLD), so that the next frames start from a converged
     * diagram and only follow the content */
    *what = "settling the sites";
    st = cc_cvd_compute (self->cvd, stream, settle, SETTLE_THRESHOLD, NULL);
  }
  if (st == CC_SUCCESS) {
    *what = "Lloyd iterations";
    st = cc_cvd_compute (self->cvd, stream, iterations, 0.0, NULL);
  }
  if (st == CC_SUCCESS) {
    *what = "rendering";
    st = cc_cvd_draw (self->cvd, stream, frame, &rp);
  }
  return st;
}

/* ------------------------------------------------------------- properties */

static void
gst_cvd_mosaic_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCvdMosaic *self = GST_CVD_MOSAIC (object);
  gchar *refused = NULL;   /* a warning, posted once the lock is released */
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SITES: {
      gint n = g_value_get_int (value);
      gint64 pixels = (gint64) self->width * self->height;
      if (pixels > 0 && n > pixels) {
        refused = g_strdup_printf ("sites=%d refused: the %dx%d frame has %" G_GINT64_FORMAT
            " pixels; sites stays %d", n, self->width, self->height, pixels, self->sites);
        break;
      }
      if (n != self->sites)
        self->reseed = TRUE;
      self->sites = n;
      break;
    }
    case PROP_SEED:
      if (g_value_get_uint64 (value) != self->seed)
        self->reseed = TRUE;
      self->seed = g_value_get_uint64 (value);
      break;
    case PROP_ITERATIONS: self->iterations = g_value_get_int (value); break;
    case PROP_SETTLE_ITERATIONS: self->settle = g_value_get_int (value); break;
    case PROP_DENSITY: self->params.density = g_value_get_enum (value); break;
    case PROP_STYLE: self->style = g_value_get_enum (value); break;
    case PROP_BORDER_WIDTH: self->border_width = g_value_get_int (value); break;
    case PROP_BORDER_COLOR: self->border_color = g_value_get_uint (value); break;
    case PROP_ADVECT: self->advect = g_value_get_enum (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
  if (refused) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s", refused), (NULL));
    g_free (refused);
  }
}

static void
gst_cvd_mosaic_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCvdMosaic *self = GST_CVD_MOSAIC (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SITES: g_value_set_int (value, self->sites); break;
    case PROP_SEED: g_value_set_uint64 (value, self->seed); break;
    case PROP_ITERATIONS: g_value_set_int (value, self->iterations); break;
    case PROP_SETTLE_ITERATIONS: g_value_set_int (value, self->settle); break;
    case PROP_DENSITY: g_value_set_enum (value, self->params.density); break;
    case PROP_STYLE: g_value_set_enum (value, self->style); break;
    case PROP_BORDER_WIDTH: g_value_set_int (value, self->border_width); break;
    case PROP_BORDER_COLOR: g_value_set_uint (value, self->border_color); break;
    case PROP_ADVECT: g_value_set_enum (value, self->advect); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cvd_mosaic_class_init (GstCvdMosaicClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  cc_cvd_params d;
  cc_cvd_params_default (&d);

  GST_DEBUG_CATEGORY_INIT (cvdmosaic_debug, "cvdmosaic", 0, "centroidal Voronoi mosaic");
  gobject_class->set_property = gst_cvd_mosaic_set_property;
  gobject_class->get_property = gst_cvd_mosaic_get_property;

  g_object_class_install_property (gobject_class, PROP_SITES,
      g_param_spec_int ("sites", "Sites",
          "Voronoi sites (cells); a change re-seeds. More than the frame's pixels is "
          "refused with a warning", 16, CC_CVD_MAX_SITES, DEFAULT_SITES, rw));
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations", "Relaxation steps per frame: more "
          "make steadier, more regular cells on each frame; the time grows in proportion",
          1, 100,
          DEFAULT_ITERATIONS, rw));
  g_object_class_install_property (gobject_class, PROP_SETTLE_ITERATIONS,
      g_param_spec_int ("settle-iterations", "Settle iterations",
          "Lloyd iterations at most on the frame after the sites are (re)seeded, before "
          "the frame's own; they stop once the sites move less than 0.01 px on average "
          "(0: none)", 0, 1000, DEFAULT_SETTLE_ITERATIONS, rw));
  g_object_class_install_property (gobject_class, PROP_DENSITY,
      g_param_spec_enum ("density", "Density", "Where the cells gather: dark parts "
          "(stippling), bright parts, edges (gradient: mosaics) or evenly (uniform)",
          gst_cv_cvd_density_get_type (), d.density, rw));
  g_object_class_install_property (gobject_class, PROP_STYLE,
      g_param_spec_enum ("style", "Style", "What is drawn", gst_cv_cvd_style_get_type (),
          CC_CVD_STYLE_CELLS, rw));
  g_object_class_install_property (gobject_class, PROP_BORDER_WIDTH,
      g_param_spec_int ("border-width", "Border width",
          "Cell borders in px for style=cells and outline (0: none; outline draws at "
          "least 1)", 0, CC_CVD_BORDER_MAX, DEFAULT_BORDER_WIDTH, rw));
  g_object_class_install_property (gobject_class, PROP_BORDER_COLOR,
      g_param_spec_uint ("border-color", "Border colour",
          "Borders (and stipple dots) as 0xRRGGBB", 0, 0xFFFFFF, DEFAULT_BORDER_COLOR, rw));
  g_object_class_install_property (gobject_class, PROP_ADVECT,
      g_param_spec_enum ("advect", "Advect", "How the sites follow the motion",
          gst_cv_cvd_advect_get_type (), ADVECT_NONE, rw));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint64 ("seed", "Seed", "Random seed of the sites; a change re-seeds", 0,
          G_MAXUINT64, 0, rw));

  gst_element_class_set_static_metadata (element_class, "Centroidal Voronoi mosaic",
      "Filter/Effect/Video",
      "A mosaic or stippling effect: the picture is cut into `sites` cells that gather "
      "where density says (dark parts, edges ...), drawn as cells of their mean colour, "
      "dots sized by darkness, or outlines (style). The cells carry over from frame to "
      "frame (advect=flow moves them with the motion), so the effect does not flicker. "
      "CUDA memory stays on the GPU; active-backend says where it runs. The method is "
      "Lloyd's relaxation of a centroidal Voronoi diagram (docs/cvdmosaic.md)",
      "cudavision developers");
  gst_cv_filter_class_add_pad_templates_full (filter_class, GST_CV_COLOR_FORMATS,
      GST_CV_CUDA_FORMATS);

  filter_class->setup = gst_cvd_mosaic_setup;
  filter_class->teardown = gst_cvd_mosaic_teardown;
  filter_class->writes_frame = gst_cv_filter_writes_always;
  filter_class->process = gst_cvd_mosaic_process;
  filter_class->reset = gst_cvd_mosaic_reset;
  gst_type_mark_as_plugin_api (gst_cv_cvd_density_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_cv_cvd_style_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_cv_cvd_advect_get_type (), 0);
}

static void
gst_cvd_mosaic_init (GstCvdMosaic * self)
{
  cc_cvd_params_default (&self->params);
  self->sites = DEFAULT_SITES;
  self->iterations = DEFAULT_ITERATIONS;
  self->settle = DEFAULT_SETTLE_ITERATIONS;
  self->style = CC_CVD_STYLE_CELLS;
  self->border_width = DEFAULT_BORDER_WIDTH;
  self->border_color = DEFAULT_BORDER_COLOR;
  self->advect = ADVECT_NONE;
  self->reseed = TRUE;
}
