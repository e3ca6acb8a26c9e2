/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-cudaflowepic
 * @title: cudaflowepic
 *
 * Large-displacement optical flow, the EpicFlow pipeline (cc_epic.h,
 * docs/epicflow.md): sparse matches (coarse-to-fine PatchMatch over census codes,
 * forward-backward checked), edge-preserving interpolation of the matches along
 * geodesic distances on the frame's edges (EPIC), then the variational refinement
 * shared with cudaflowlk and cudablockmatch. Where cudaflowlk and cudablockmatch
 * follow motions of a few tens of pixels, this element follows 100+ px (fast pans,
 * sport, driving) at a higher cost per frame.
 *
 * A separate element rather than a mode of cudaflowlk: the method has its own
 * stages and parameters (matcher, interpolation) and none of LK's, its confidence
 * means something else, and it needs the previous frame (kept by the base class,
 * where the backend computes). Every frame passes through with a #GstCvFlowMeta (and,
 * on GStreamer 1.26+, the flow analytics mtd sharing it; docs/analytics.md) of
 * one vector per pixel (previous frame to this one) and a confidence in [0, 1]
 * (GST_CV_FLOW_CONFIDENCE_CONSISTENCY: low far from every match, where the nearest
 * matches disagree and where the frames differ along the vector, as at occlusions;
 * docs/epicflow.md). The method runs in video mode: what it derived from a frame is
 * reused when that frame becomes the previous one (the same results). The
 * first frame, and the first after a caps change, a flushing seek, a new segment or
 * a DISCONT buffer, carries zero flow with confidence 0 (meta field `valid` =
 * FALSE). Frames in CUDA memory are processed on the GPU with no host copy;
 * `visualize` draws the flow (colour wheel, arrows) or the confidence (quality).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! decodebin ! videoconvert ! \
 *     video/x-raw,format=NV12 ! cudaupload ! "video/x-raw(memory:CUDAMemory)" ! \
 *     cudaflowepic visualize=color ! cudadownload ! videoconvert ! autovideosink
 * ]| Large motions of a clip coloured by direction on the Middlebury wheel, on the GPU
 * from upload to download.
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball motion=sweep ! video/x-raw,format=I420 ! \
 *     cudaflowepic backend=cpu visualize=arrows ! videoconvert ! autovideosink
 * ]| The same on the CPU backend, system memory in and out, drawn as arrows.
 */
#include "gstcvenum.h"
#include "gstcvflowelement.h"

#include <cudacore/cc_epic.h>

GST_DEBUG_CATEGORY_STATIC (cudaflowepic_debug);
#define GST_CAT_DEFAULT cudaflowepic_debug

enum {
  PROP_0, PROP_MATCH_STEP, PROP_MATCH_LEVELS, PROP_MATCH_ITERATIONS, PROP_MAX_DISPLACEMENT,
  PROP_FB_THRESHOLD, PROP_NEIGHBOURS, PROP_CELL, PROP_SIGMA, PROP_AFFINE, PROP_FLAT_COST,
  PROP_EDGE_WEIGHT, PROP_EXTRAPOLATE, PROP_ROBUST, PROP_PRESET,
  PROP_VIS_FIRST,                                      /* GST_CV_VIS_N_PROPS ids */
  PROP_REFINE_FIRST = PROP_VIS_FIRST + GST_CV_VIS_N_PROPS, /* GST_CV_REFINE_N_PROPS ids */
};

/* CPU time of one frame (the whole method with its confidence, default parameters):
 * about 1.9 s per megapixel on 2 threads of the 2-core dev machine, idle (1024x436:
 * 0.39 s, 3840x2160: 15.7 s; docs/epicflow.md, 2026-11-28). The CPU-time warning of
 * setup() is scaled from it. */
#define EPIC_CPU_SECONDS_PER_MEGAPIXEL 1.9
#define EPIC_CPU_MEASURED_THREADS 2

struct _GstCudaFlowEpic {
  GstCvFilter parent;
  /* properties (object lock) */
  cc_epic_params params;
  cc_epic_preset preset;     /* the last preset set (object lock) */
  gboolean params_changed;
  GstCvFlowVis vis;
  /* streaming (setup/process) */
  cc_epic *epic;
  GstCvFieldPool *pool;
};

G_DECLARE_FINAL_TYPE (GstCudaFlowEpic, gst_cuda_flow_epic, GST, CUDA_FLOW_EPIC, GstCvFilter)
G_DEFINE_TYPE (GstCudaFlowEpic, gst_cuda_flow_epic, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaflowepic, "cudaflowepic", GST_RANK_NONE,
    gst_cuda_flow_epic_get_type ());

static void
gst_cuda_flow_epic_teardown (GstCvFilter * filter)
{
  GstCudaFlowEpic *self = GST_CUDA_FLOW_EPIC (filter);
  cc_epic_destroy (self->epic);
  self->epic = NULL;
  gst_cv_field_pool_unref (self->pool);
  self->pool = NULL;
}

static void
gst_cuda_flow_epic_reset (GstCvFilter * filter)
{
  GstCudaFlowEpic *self = GST_CUDA_FLOW_EPIC (filter);
  if (self->epic)
    cc_epic_reset (self->epic);
}

static gboolean
gst_cuda_flow_epic_wants_previous_frame (GstCvFilter * filter)
{
  return TRUE;
}

static gboolean
gst_cuda_flow_epic_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstCudaFlowEpic *self = GST_CUDA_FLOW_EPIC (filter);
  int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GST_OBJECT_LOCK (self);
  cc_epic_params params = self->params;
  self->params_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  cc_status st = cc_epic_create (ctx, w, h, &params, &self->epic);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating the EpicFlow method");
    return FALSE;
  }
  self->pool = gst_cv_flow_element_pool_new (filter, w, h);
  if (!self->pool)
    return FALSE;
  GST_INFO_OBJECT (self, "%dx%d on %s, seeds every %d px, k %d", w, h,
      cc_backend_name (cc_context_backend (ctx)), params.match.step, params.interp.k);
  gst_cv_filter_warn_cpu_time (filter, EPIC_CPU_SECONDS_PER_MEGAPIXEL,
      EPIC_CPU_MEASURED_THREADS, "EpicFlow optical flow");
  return TRUE;
}

static gboolean
gst_cuda_flow_epic_writes_frame (GstCvFilter * filter)
{
  return gst_cv_flow_vis_draws (GST_OBJECT (filter), &GST_CUDA_FLOW_EPIC (filter)->vis);
}

static cc_status
gst_cuda_flow_epic_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstCudaFlowEpic *self = GST_CUDA_FLOW_EPIC (filter);
  GST_OBJECT_LOCK (self);
  gboolean changed = self->params_changed;
  cc_epic_params params = self->params;
  self->params_changed = FALSE;
  GST_OBJECT_UNLOCK (self);

  cc_status st = CC_SUCCESS;
  *what = "changing the EpicFlow parameters";
  if (changed && (st = cc_epic_set_params (self->epic, &params)) != CC_SUCCESS)
    return st;
  GstCvFlowFrame f;
  if ((st = gst_cv_flow_frame_begin (&f, self->pool, what)) != CC_SUCCESS)
    return st;
  const cc_image *prev = gst_cv_filter_get_previous_frame (filter);
  *what = "optical flow";
  /* video mode: prev is the copy of the last frame computed on, so the method reuses
   * what it derived from it (the same results as cc_epic_compute). A frame without a
   * previous one follows a setup or reset(), where the chain is already new; a
   * failed frame ends it */
  if (prev)
    st = cc_epic_compute_video (self->epic, stream, prev, frame, f.vectors, f.confidence);
  else
    st = gst_cv_flow_frame_zero (&f, filter, stream);
  if (st != CC_SUCCESS)
    cc_epic_reset (self->epic);
  /* the next frame's previous one is this frame before any drawing */
  const GstCvFlowFrameEnd end = {
    .keep_frame = TRUE, .min_confidence = 0.0f, .quality_scale = 1.0f,
    .cell_width = 1, .cell_height = 1, .confidence = GST_CV_FLOW_CONFIDENCE_CONSISTENCY,
    .valid = prev != NULL, .name = "optical flow",
  };
  return gst_cv_flow_frame_finish (&f, st, filter, buffer, stream, frame, &self->vis, &end,
      what);
}

/* ------------------------------------------------------------- properties */

#define GST_TYPE_CV_EPIC_PRESET (gst_cv_epic_preset_get_type ())
GST_CV_DEFINE_ENUM (gst_cv_epic_preset_get_type, "GstCvEpicPreset",
    { CC_EPIC_PRESET_FAST, "The defaults, real time: seeds every 5 px, 24 neighbours, "
          "refinement levels of 3 x 10 with EpicFlow's energy (docs/epicflow.md has each "
          "preset's measured accuracy and time)", "fast" },
    { CC_EPIC_PRESET_BALANCED, "Seeds every 4 px, 32 neighbours, refinement levels of "
          "5 x 15", "balanced" },
    { CC_EPIC_PRESET_ACCURATE, "Balanced with refinement levels of 5 x 30", "accurate" })

static void
gst_cuda_flow_epic_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaFlowEpic *self = GST_CUDA_FLOW_EPIC (object);
  if (gst_cv_flow_element_set_property (GST_OBJECT (self), &self->vis, PROP_VIS_FIRST, NULL, 0,
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  cc_epic_params *p = &self->params;
  /* refine, refine-*: the shared properties (gstcvrefine) over the method's own */
  GstCvRefine r = { .enabled = p->refine, .params = p->refine_params };
  if (gst_cv_refine_set_property (&r, PROP_REFINE_FIRST, prop_id, value)) {
    p->refine = r.enabled;
    p->refine_params = r.params;
    self->params_changed = TRUE;
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_MATCH_STEP: p->match.step = g_value_get_int (value); break;
    case PROP_MATCH_LEVELS: p->match.levels = g_value_get_int (value); break;
    case PROP_MATCH_ITERATIONS: p->match.iterations = g_value_get_int (value); break;
    case PROP_MAX_DISPLACEMENT:
      p->match.max_displacement = (float) g_value_get_double (value);
      break;
    case PROP_FB_THRESHOLD: p->match.fb_threshold = (float) g_value_get_double (value); break;
    case PROP_NEIGHBOURS: p->interp.k = g_value_get_int (value); break;
    case PROP_CELL: p->interp.cell = g_value_get_int (value); break;
    case PROP_SIGMA: p->interp.sigma = (float) g_value_get_double (value); break;
    case PROP_AFFINE: p->interp.affine = g_value_get_boolean (value); break;
    case PROP_FLAT_COST: p->interp.flat_cost = (float) g_value_get_double (value); break;
    case PROP_EDGE_WEIGHT: p->interp.edge_weight = (float) g_value_get_double (value); break;
    case PROP_EXTRAPOLATE: p->interp.extrapolate = (float) g_value_get_double (value); break;
    case PROP_ROBUST: p->interp.robust = (float) g_value_get_double (value); break;
    case PROP_PRESET:
      /* the whole parameter set; properties set after it change it further */
      self->preset = g_value_get_enum (value);
      cc_epic_params_preset (p, self->preset);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  self->params_changed = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_flow_epic_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaFlowEpic *self = GST_CUDA_FLOW_EPIC (object);
  if (gst_cv_flow_element_get_property (GST_OBJECT (self), &self->vis, PROP_VIS_FIRST, NULL, 0,
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  const cc_epic_params *p = &self->params;
  GstCvRefine r = { .enabled = p->refine, .params = p->refine_params };
  if (gst_cv_refine_get_property (&r, PROP_REFINE_FIRST, prop_id, value)) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_MATCH_STEP: g_value_set_int (value, p->match.step); break;
    case PROP_MATCH_LEVELS: g_value_set_int (value, p->match.levels); break;
    case PROP_MATCH_ITERATIONS: g_value_set_int (value, p->match.iterations); break;
    case PROP_MAX_DISPLACEMENT: g_value_set_double (value, p->match.max_displacement); break;
    case PROP_FB_THRESHOLD: g_value_set_double (value, p->match.fb_threshold); break;
    case PROP_NEIGHBOURS: g_value_set_int (value, p->interp.k); break;
    case PROP_CELL: g_value_set_int (value, p->interp.cell); break;
    case PROP_SIGMA: g_value_set_double (value, p->interp.sigma); break;
    case PROP_AFFINE: g_value_set_boolean (value, p->interp.affine); break;
    case PROP_FLAT_COST: g_value_set_double (value, p->interp.flat_cost); break;
    case PROP_EDGE_WEIGHT: g_value_set_double (value, p->interp.edge_weight); break;
    case PROP_EXTRAPOLATE: g_value_set_double (value, p->interp.extrapolate); break;
    case PROP_ROBUST: g_value_set_double (value, p->interp.robust); break;
    case PROP_PRESET: g_value_set_enum (value, self->preset); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_flow_epic_class_init (GstCudaFlowEpicClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  cc_epic_params d;
  cc_epic_params_default (&d);

  GST_DEBUG_CATEGORY_INIT (cudaflowepic_debug, "cudaflowepic", 0,
      "EpicFlow large-displacement optical flow");
  gobject_class->set_property = gst_cuda_flow_epic_set_property;
  gobject_class->get_property = gst_cuda_flow_epic_get_property;

  g_object_class_install_property (gobject_class, PROP_PRESET,
      g_param_spec_enum ("preset", "Preset",
          "Sets every parameter of the method at once, in the manner of DIS's presets: "
          "fast (the defaults), balanced or accurate; properties set after it change its "
          "values (on the command line, name it first). Reads the last preset set, "
          "whatever was changed after it", GST_TYPE_CV_EPIC_PRESET, CC_EPIC_PRESET_FAST,
          rw));
  g_object_class_install_property (gobject_class, PROP_MATCH_STEP,
      g_param_spec_int ("match-step", "Match step",
          "Spacing of the matches, px: lower it to catch smaller moving objects, raise it "
          "for speed (the matching work goes as 1 / step^2: 8 is a quarter of 4's)",
          2, 32, d.match.step, rw));
  g_object_class_install_property (gobject_class, PROP_MATCH_LEVELS,
      g_param_spec_int ("match-levels", "Match levels",
          "Pyramid levels of the coarse-to-fine matcher: each level doubles the motion it "
          "can find; fewer are a little faster (levels under 32 px are skipped)", 1, 8,
          d.match.levels, rw));
  g_object_class_install_property (gobject_class, PROP_MATCH_ITERATIONS,
      g_param_spec_int ("match-iterations", "Match iterations",
          "Search rounds per level: more find matches in hard areas (repeated texture, "
          "large motion); the matcher's time grows in proportion", 1, 32,
          d.match.iterations, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_DISPLACEMENT,
      g_param_spec_double ("max-displacement", "Maximum displacement",
          "Largest motion searched per axis, px at full resolution: lower it when motions "
          "are known to be small, to rule out wrong long-range matches", 8.0, 1024.0,
          d.match.max_displacement, rw));
  g_object_class_install_property (gobject_class, PROP_FB_THRESHOLD,
      g_param_spec_double ("fb-threshold", "Forward-backward threshold",
          "A match whose backward match lands further than this (px) from its start is "
          "dropped: lower keeps only reliable matches (the interpolation fills the holes), "
          "higher keeps more in blurred or occluded areas", 0.01, 1024.0,
          d.match.fb_threshold, rw));
  g_object_class_install_property (gobject_class, PROP_NEIGHBOURS,
      g_param_spec_int ("neighbours", "Neighbours",
          "Matches each seed's motion is interpolated from (the nearest along the image): "
          "more give a smoother field that fills holes from further away, fewer keep small "
          "moving objects apart; the interpolation's time grows in proportion", 1, 128,
          d.interp.k, rw));
  g_object_class_install_property (gobject_class, PROP_CELL,
      g_param_spec_int ("cell", "Seed cell",
          "Pixels a side of the blocks that keep one match each as a seed: larger cells "
          "mean fewer seeds (faster and smoother; objects under about a cell get lost), "
          "smaller follow finer detail (2 has 4x the seeds of 4)", 2, 8, d.interp.cell, rw));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Kernel width",
          "How far a match's influence reaches, in edge-weighted distance: raise for "
          "smoother fields over uniform areas, lower to keep neighbouring motions apart; "
          "no effect on the time", 0.001, 10000.0,
          d.interp.sigma, rw));
  g_object_class_install_property (gobject_class, PROP_AFFINE,
      g_param_spec_boolean ("affine", "Affine interpolation",
          "TRUE: each seed fits a local affine motion (follows rotation, zoom and "
          "perspective, but overshoots where matches are sparse); FALSE: a weighted mean "
          "of its neighbours (more accurate on fast or blurred motion, docs/epicflow.md); "
          "the same time", d.interp.affine, rw));
  g_object_class_install_property (gobject_class, PROP_FLAT_COST,
      g_param_spec_double ("flat-cost", "Flat cost",
          "Distance cost of crossing one pixel of flat image: raise to keep each match's "
          "influence local, lower to spread it across uniform regions; no effect on the "
          "time", 0.001, 100.0, d.interp.flat_cost, rw));
  g_object_class_install_property (gobject_class, PROP_EDGE_WEIGHT,
      g_param_spec_double ("edge-weight", "Edge weight",
          "Extra distance cost per luma level of image edge: raise so motion stops at object "
          "outlines (texture stops it too), lower to interpolate across textured areas (0: "
          "edges ignored); no effect on the time",
          0.0, 100.0, d.interp.edge_weight, rw));
  g_object_class_install_property (gobject_class, PROP_EXTRAPOLATE,
      g_param_spec_double ("extrapolate", "Extrapolate",
          "With affine=false: where the motion leaves the frame (no match can exist "
          "there), continue the matches' linear trend beyond this many pixels from the "
          "nearest seed instead of their mean: for forward camera motion (driving), whose "
          "bottom rows and sides leave the frame; 0: off (docs/epicflow.md)",
          0.0, 10000.0, d.interp.extrapolate, rw));
  g_object_class_install_property (gobject_class, PROP_ROBUST,
      g_param_spec_double ("robust", "Robust",
          "With affine=false: each seed's neighbours whose motion differs from their "
          "weighted mean by about this many pixels or more weigh less (one Gaussian "
          "reweighting), so a seed takes the dominant motion around it instead of a blend "
          "across a motion boundary or of outlier matches; 0: the plain weighted mean; "
          "little effect on the time (docs/epicflow.md)",
          0.0, 10000.0, d.interp.robust, rw));

  gst_cv_flow_vis_install_properties (gobject_class, PROP_VIS_FIRST, TRUE);
  /* the refinement's properties as on cudaflowlk and cudablockmatch, with the method's
   * defaults (refine=variational, two levels of 3 x 10, EpicFlow's energy, SOR 1.8) */
  gst_cv_refine_install_properties_full (gobject_class, PROP_REFINE_FIRST, &d.refine_params,
      d.refine);

  gst_element_class_set_static_metadata (element_class, "CUDA EpicFlow optical flow",
      "Filter/Analyzer/Video",
      "Optical flow that follows large motions (100+ px: fast pans, sport, driving), "
      "where cudaflowlk and cudablockmatch follow a few tens of pixels, at a higher cost "
      "per frame. Every frame leaves with a GstCvFlowMeta of one vector per pixel (the "
      "motion from the previous frame) and a confidence in 0..1 (low far from matches, at motion boundaries and occlusions); "
      "the first frame of a stream carries zero flow marked not valid. visualize draws "
      "the motion (color, arrows) or the confidence (quality) into the video. The method "
      "is EpicFlow: sparse matches, interpolated along the image's edges, then the "
      "variational refinement (refine). On the CPU backend a frame takes seconds (about "
      "4 s per megapixel on 2 cores; a warning gives the estimate); CUDA memory stays on "
      "the GPU. active-backend says where it runs. Design and figures: docs/epicflow.md",
      "cudavision developers");
  gst_cv_filter_class_add_pad_templates (filter_class);

  filter_class->setup = gst_cuda_flow_epic_setup;
  filter_class->teardown = gst_cuda_flow_epic_teardown;
  filter_class->writes_frame = gst_cuda_flow_epic_writes_frame;
  filter_class->process = gst_cuda_flow_epic_process;
  filter_class->wants_previous_frame = gst_cuda_flow_epic_wants_previous_frame;
  /* the base class drops the previous frame; the method forgets what it derived
   * from it (video mode) */
  filter_class->reset = gst_cuda_flow_epic_reset;
  gst_type_mark_as_plugin_api (GST_TYPE_CV_EPIC_PRESET, 0);
}

static void
gst_cuda_flow_epic_init (GstCudaFlowEpic * self)
{
  cc_epic_params_default (&self->params);
  self->preset = CC_EPIC_PRESET_FAST;
  gst_cv_flow_vis_init (&self->vis);
}
