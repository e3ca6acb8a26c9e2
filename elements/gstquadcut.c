/* SPDX-License-Identifier: GPL-3.0-or-later */
/**
 * SECTION:element-quadcut
 * @title: quadcut
 *
 * Live foreground segmentation and background replacement by a minimum graph cut on
 * quadtree leaves (Quad-Cut with QuadN4tree neighbours: Vasconcelos et al., appendices C
 * and D; core cc_quadcut, design docs/quadcut.md). Pixels group into leaves of similar
 * colour and background distance. The leaves, weighted by area and shared border length,
 * are cut into foreground and background (Boykov-Kolmogorov max-flow); the feathered
 * result replaces the background. Per-pixel work runs where the backend computes (on CUDA:
 * CUDA memory in and out, no host copy); only the compact leaf graph goes to the host.
 *
 * It is in the GPL plugin `cudavisiongpl` (libgstcudavisiongpl.so), as the cut is
 * libmaxflow (GPL-3.0-or-later); the other, LGPL elements do not link it
 * (docs/dependencies.md).
 *
 * `mode=plate` compares each frame with a background plate: the image of
 * `plate-location`, or one learned from the stream's first frames (`learn-frames`,
 * `learn-step`; meanwhile frames are segmented against the plate so far) or after the
 * `relearn` action signal; `plate-update-rate` keeps it up to date. Shadows (darker,
 * same chroma) are background (`shadow-depth`).
 *
 * `mode=active-illumination`: frames alternate lit and unlit (a light near the subject
 * flashing every other frame). Each frame pairs with the previous one; the background
 * distance is their luminance difference (no order needed). The lit one has the higher
 * mean luminance (the leaves' means: no extra pass); one warning when the frames do not
 * alternate (a pair's mean L within 0.05 units, or changing the same way twice in a
 * row). A stream's first frame, unpaired, is background.
 *
 * `output`: `composite` (over what `background` picks); `alpha` (colours unchanged,
 * for GStreamer's compositor; caps without alpha fail to negotiate with a message saying
 * so: name the caps after a videoconvert); `mask` (opaque grey); `debug` (the leaves'
 * edges coloured by level, seeds tinted red).
 *
 * A flushing seek, a new segment or stream, and a DISCONT buffer drop the temporal prior
 * and an incomplete learned plate (learning restarts); a file's or a fully learned plate
 * stays. A caps change keeps a file's plate (converted again) and a fully learned one of
 * the same size (relearned on a new size). A missing or unreadable image file fails the
 * state change to PAUSED with an error naming the file.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=RGBA ! \
 *     quadcut learn-frames=60 background-location=beach.jpg ! videoconvert ! autovideosink
 * ]| A virtual background: keep out of the picture for the first two seconds.
 * |[
 * gst-launch-1.0 compositor name=c sink_1::zorder=1 ! videoconvert ! autovideosink \
 *     videotestsrc pattern=ball ! video/x-raw,width=1280,height=720 ! c.sink_0 \
 *     v4l2src ! videoconvert ! video/x-raw,format=RGBA,width=1280,height=720 ! \
 *     quadcut output=alpha plate-location=empty-room.png ! c.sink_1
 * ]| The foreground over any video, through the alpha channel.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! cudaupload ! \
 *     "video/x-raw(memory:CUDAMemory)" ! quadcut background=blur blur-radius=25 ! \
 *     cudadownload ! videoconvert ! autovideosink
 * ]| A blurred background on the GPU, frames in CUDA memory.
 */
#include "gstcvfilter.h"
#include "gstcvenum.h"
#include "gstcvanalytics.h"
#include "gstcvbackground.h"
#include "gstcvimageio.h"
#include "gstcvprops.h"
#include <cudacore/cc_quadcut.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (quadcut_debug);
#define GST_CAT_DEFAULT quadcut_debug

GST_CV_DEFINE_ENUM (gst_quadcut_mode_get_type, "GstQuadCutMode",
    { CC_QUADCUT_MODE_PLATE, "Difference from a background plate (file or learned)", "plate" },
    { CC_QUADCUT_MODE_ACTIVE, "Luminance difference of alternating lit / unlit frames",
      "active-illumination" })

GST_CV_DEFINE_ENUM (gst_quadcut_output_get_type, "GstQuadCutOutput",
    { CC_QUADCUT_OUTPUT_COMPOSITE, "The foreground over the background", "composite" },
    { CC_QUADCUT_OUTPUT_ALPHA, "The frame with the foreground in its alpha channel (RGBA/BGRA)",
      "alpha" },
    { CC_QUADCUT_OUTPUT_MASK, "The feathered matte: white foreground, black background", "mask" },
    { CC_QUADCUT_OUTPUT_DEBUG, "The quadtree leaves by level and the seeds", "debug" })

GST_CV_DEFINE_BACKGROUND_ENUM (gst_quadcut_background_get_type, "GstQuadCutBackground")

enum {
  PROP_0, PROP_MODE, PROP_OUTPUT, PROP_PLATE_LOCATION, PROP_LEARN_FRAMES, PROP_LEARN_STEP,
  PROP_PLATE_UPDATE_RATE,
  PROP_BACKGROUND,             /* and the three after it: GST_CV_BACKGROUND_PROPS */
  PROP_PARAMS = PROP_BACKGROUND + 4,   /* the CC_QUADCUT_N_PARAMS of cc_quadcut_param_table */
};

enum { SIGNAL_RELEARN, N_SIGNALS };
static guint signals[N_SIGNALS];

#define DEFAULT_LEARN_FRAMES 100
#define DEFAULT_LEARN_STEP 2
#define DEFAULT_PLATE_UPDATE_RATE 0

/* The properties' values (object lock). */
typedef struct {
  cc_quadcut_params params;
  cc_quadcut_output output;
  gchar *plate_location;
  gint learn_frames, learn_step, plate_update_rate;
  GstCvBackgroundSettings background;
} QuadCutSettings;

struct _GstQuadCut {
  GstCvFilter parent;
  QuadCutSettings settings;    /* object lock */
  gboolean relearn;            /* object lock */
  cc_image plate_file;         /* read at start (host RGBX8, its own size) */
  GstCvBackground background;  /* its picture: read at start, converted at setup */
  /* a fully learned plate kept on the host across a teardown (cc_quadcut_keep_plate):
   * a new setup of the same size (caps renegotiated, cpu-threads changed) takes it
   * back instead of learning */
  cc_image kept_plate;
  /* streaming (setup/process) */
  cc_quadcut *qc;
  cc_quadcut_learning learning;   /* plate mode: the plate's source */
  cc_quadcut_alternation pair; /* active: the mean L of the frames so far */
  gboolean warned_pair;
  GstCvMaskOut *mask_out;      /* the mask as a segmentation mtd (1.26+), or NULL */
};

G_DECLARE_FINAL_TYPE (GstQuadCut, gst_quad_cut, GST, QUAD_CUT, GstCvFilter)
G_DEFINE_TYPE (GstQuadCut, gst_quad_cut, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (quadcut, "quadcut", GST_RANK_NONE, gst_quad_cut_get_type ());

/* ------------------------------------------------------------- GstCvFilter */

/* The pictures read at start and the kept plate (stop, finalize, a failed start). */
static void
free_images (GstQuadCut * self)
{
  cc_image_host_free (&self->plate_file);
  gst_cv_background_stop (&self->background);
  cc_image_free (NULL, &self->kept_plate);
}

static gboolean
gst_quad_cut_start (GstBaseTransform * trans)
{
  GstQuadCut *self = GST_QUAD_CUT (trans);
  GST_OBJECT_LOCK (self);
  const gboolean plate = self->settings.params.mode == CC_QUADCUT_MODE_PLATE;
  GST_OBJECT_UNLOCK (self);
  cc_image_host_free (&self->plate_file);
  /* the background in every mode; a file's plate in plate mode only */
  if (!gst_cv_background_start (&self->background, GST_ELEMENT (self)) || (plate
          && !gst_cv_image_load_property (GST_ELEMENT (self), "plate-location",
              &self->plate_file))) {
    free_images (self);
    return FALSE;
  }
  cc_quadcut_learning_init (&self->learning, CC_QUADCUT_PLATE_NONE);
  return GST_BASE_TRANSFORM_CLASS (gst_quad_cut_parent_class)->start (trans);
}

static gboolean
gst_quad_cut_stop (GstBaseTransform * trans)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_quad_cut_parent_class)->stop (trans);
  free_images (GST_QUAD_CUT (trans));   /* the next start learns anew */
  return ret;
}

static void
gst_quad_cut_teardown (GstCvFilter * filter)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  if (self->qc)   /* a fully learned plate is kept (on failure: learned again) */
    cc_quadcut_keep_plate (self->qc, gst_cv_filter_get_stream (filter), &self->learning,
        &self->kept_plate);
  cc_quadcut_destroy (self->qc);
  self->qc = NULL;
  g_clear_pointer (&self->mask_out, gst_cv_mask_out_free);
  gst_cv_background_teardown (&self->background, gst_cv_filter_get_context (filter));
}

/* output=alpha writes the alpha channel: formats without one are refused. */
static gchar *
gst_quad_cut_refuse_caps (GstCvFilter * filter, const GstVideoInfo * info,
    const gchar ** hint)
{
  GST_OBJECT_LOCK (filter);
  gboolean alpha = GST_QUAD_CUT (filter)->settings.output == CC_QUADCUT_OUTPUT_ALPHA;
  GST_OBJECT_UNLOCK (filter);
  return alpha ? gst_cv_filter_refuse_without_alpha (info, "output=alpha", "the foreground "
      "goes into the alpha channel", "put videoconvert ! video/x-raw,format=RGBA before "
      "quadcut, or use output=composite or mask", hint) : NULL;
}

/* The plate of a new segmenter (plate mode): the file's, scaled to the frames, or the
 * one learned before this setup when the size stays, else learned anew; a relearn
 * asked for before the caps replaces the file's plate too. */
static gboolean
setup_plate (GstQuadCut * self, cc_context * ctx, const GstVideoInfo * info,
    gboolean relearn)
{
  GstCvFilter *filter = GST_CV_FILTER (self);
  cc_image picture;
  if (!gst_cv_image_reference_to_frame (filter, ctx, &self->plate_file, info, "plate",
          "a plate shot with the camera's own resolution segments better", &picture))
    return FALSE;
  cc_status st = cc_quadcut_start_plate (self->qc, gst_cv_filter_get_stream (filter),
      &self->learning, picture.planes[0] ? &picture : NULL, &self->kept_plate, relearn);
  cc_image_free (ctx, &picture);
  if (st != CC_SUCCESS)
    GST_CV_FILTER_CORE_ERROR (self, st, "setting the plate");
  return st == CC_SUCCESS;
}

static gboolean
gst_quad_cut_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GST_OBJECT_LOCK (self);
  cc_quadcut_params params = self->settings.params;
  const gboolean relearn = self->relearn;
  GST_OBJECT_UNLOCK (self);
  cc_status st = cc_quadcut_create (ctx, w, h, &params, &self->qc);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating the segmenter");
    return FALSE;
  }
  self->mask_out = gst_cv_mask_out_new (ctx, gst_cv_filter_get_cuda_context (filter),
      gst_cv_filter_get_cuda_stream (filter), w, h);
  cc_quadcut_learning_init (&self->learning, CC_QUADCUT_PLATE_NONE);
  cc_quadcut_alternation_init (&self->pair);
  return (params.mode != CC_QUADCUT_MODE_PLATE || setup_plate (self, ctx, info, relearn))
      && gst_cv_background_setup (&self->background, filter, ctx, info);
}

/* Flush, new segment or stream, DISCONT: no temporal prior, no pair, and an incomplete
 * learned plate is dropped (learning restarts); a file's or a fully learned plate
 * stays. */
static void
gst_quad_cut_reset (GstCvFilter * filter)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  if (self->qc)
    cc_quadcut_reset (self->qc);
  const int dropped = cc_quadcut_learning_restart (&self->learning);
  if (dropped)
    GST_DEBUG_OBJECT (self, "stream reset: the plate learned from %d frames is dropped",
        dropped);
  cc_quadcut_alternation_init (&self->pair);
}

static gboolean
gst_quad_cut_wants_previous_frame (GstCvFilter * filter)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  GST_OBJECT_LOCK (self);
  gboolean active = self->settings.params.mode == CC_QUADCUT_MODE_ACTIVE;
  GST_OBJECT_UNLOCK (self);
  return active;
}

/* ------------------------------------------------------------- process() steps */

/* Before the run: the parameters (a mode change waits for the next setup), and what
 * the frame is compared with (cc_quadcut_prepare: the previous frame, or the plate,
 * learned further while learning). */
static cc_status
prepare_run (GstQuadCut * self, cc_stream stream, const cc_image * frame,
    const QuadCutSettings * s, gboolean relearn, const cc_image ** other,
    const gchar ** what)
{
  cc_quadcut_params params = s->params, created;
  cc_quadcut_get_params (self->qc, &created);
  params.mode = created.mode;
  *what = "setting the parameters";
  cc_status st = cc_quadcut_set_params (self->qc, &params);
  if (st != CC_SUCCESS)
    return st;
  if (relearn && params.mode == CC_QUADCUT_MODE_PLATE)
    GST_INFO_OBJECT (self, "relearning the plate");
  *what = "learning the plate";
  bool learned = false;
  st = cc_quadcut_prepare (self->qc, stream, &self->learning, frame,
      gst_cv_filter_get_previous_frame (GST_CV_FILTER (self)), relearn, s->learn_step,
      s->learn_frames, other, &learned);
  if (learned)
    GST_INFO_OBJECT (self, "plate learned from %d frames", self->learning.learned);
  return st;
}

/* Active illumination after the run: the pair's check (cc_quadcut_check_pair), a
 * warning the first time the frames do not alternate lit and unlit; then the
 * unchanged frame becomes the next pair's other before it is drawn over (the copy
 * replaces `other`: after the run). */
static cc_status
check_alternation (GstQuadCut * self, const cc_image * frame, const gchar ** what)
{
  GstCvFilter *filter = GST_CV_FILTER (self);
  const guint64 n = gst_cv_filter_get_frame_number (filter);
  cc_quadcut_pair pair;
  *what = "measuring the mean luminance";
  cc_status st = cc_quadcut_check_pair (self->qc, &self->pair, n, &pair);
  if (st != CC_SUCCESS)
    return st;
  if (pair.check != CC_QUADCUT_PAIR_FIRST)
    GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " is the %s one of its pair (mean L "
        "%.2f, previous %.2f)", n, pair.mean_l >= pair.previous_l ? "lit" : "unlit",
        pair.mean_l, pair.previous_l);
  if (!self->warned_pair && pair.warn) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("%s", pair.text), ("%s", pair.detail));
    self->warned_pair = TRUE;
  }
  return gst_cv_filter_keep_frame_status (filter, frame, what);
}

/* The cut's mask (0 background, 255 foreground) as a segmentation mtd of the
 * buffer's analytics relation meta, on GStreamer 1.26+ (docs/analytics.md). */
static void
attach_mask (GstQuadCut * self, cc_stream stream, GstBuffer * buffer)
{
  static const guint regions[] = { 0, 255 };
  cc_image *dst = gst_cv_mask_out_begin (self->mask_out);
  if (dst && !gst_cv_mask_out_finish (self->mask_out, buffer,
          cc_quadcut_get_mask (self->qc, stream, dst) == CC_SUCCESS, regions, 2))
    GST_WARNING_OBJECT (self, "could not attach the segmentation mtd");
}

static cc_status
gst_quad_cut_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  GST_OBJECT_LOCK (self);
  const QuadCutSettings s = self->settings;   /* its strings are not read */
  gboolean relearn = self->relearn;
  self->relearn = FALSE;
  GST_OBJECT_UNLOCK (self);
  const cc_image *other = NULL;
  cc_status st = prepare_run (self, stream, frame, &s, relearn, &other, what);
  if (st == CC_SUCCESS) {
    *what = "segmenting";
    st = cc_quadcut_compute_sync (self->qc, stream, frame, other);
  }
  if (st == CC_SUCCESS && other)   /* active illumination */
    st = check_alternation (self, frame, what);
  else if (st == CC_SUCCESS && s.plate_update_rate > 0
      && cc_quadcut_learning_done (&self->learning)) {
    *what = "updating the plate";
    st = cc_quadcut_update_plate (self->qc, stream, frame, s.plate_update_rate, true);
  }
  if (st == CC_SUCCESS) {
    *what = "writing the output";
    const cc_background bg = gst_cv_background_get (&self->background, &s.background);
    st = cc_quadcut_render (self->qc, stream, s.output, &bg, frame);
  }
  if (st == CC_SUCCESS)
    attach_mask (self, stream, buffer);   /* the mask's download waits for the stream */
  return st;
}

/* ------------------------------------------------------------- properties */

#define N_OWN_PROPS (PROP_PARAMS - 1)
#define S(field) G_STRUCT_OFFSET (QuadCutSettings, field)
/* The element's own properties; the tunable cc_quadcut_params after them, as the core
 * describes them (their ranges: cc_quadcut_params_check's), filled in at class_init.
 * A new mode needs a new segmenter; output=alpha's caps are checked before setup. */
static GstCvProp quadcut_props[N_OWN_PROPS + CC_QUADCUT_N_PARAMS] = {
  { PROP_MODE, "mode", "Mode", "Where the background distance comes from",
    GST_CV_PROP_ENUM, S (params.mode), 0, 0, gst_quadcut_mode_get_type, FALSE, TRUE },
  { PROP_OUTPUT, "output", "Output", "What the element writes into the frame",
    GST_CV_PROP_ENUM, S (output), 0, 0, gst_quadcut_output_get_type, FALSE, TRUE },
  { PROP_PLATE_LOCATION, "plate-location", "Plate location",
    "PNG or JPEG of the empty scene (mode=plate); scaled to the frame with a warning "
    "when its size differs. Unset: the plate is learned",
    GST_CV_PROP_STRING, S (plate_location), 0, 0, NULL, FALSE },
  { PROP_LEARN_FRAMES, "learn-frames", "Learn frames",
    "Frames a learned plate takes (the first ones of the stream, or after relearn)",
    GST_CV_PROP_INT, S (learn_frames), 1, 100000, NULL, TRUE },
  { PROP_LEARN_STEP, "learn-step", "Learn step",
    "Levels a channel of the plate moves at most per frame while learning (the "
    "running median: small steps ignore passers-by, large ones learn fast)",
    GST_CV_PROP_INT, S (learn_step), 1, 255, NULL, TRUE },
  { PROP_PLATE_UPDATE_RATE, "plate-update-rate", "Plate update rate",
    "Levels a channel of a learned or file plate moves at most per frame where the "
    "cut is confidently background (alpha 0); 0 keeps the plate as it is",
    GST_CV_PROP_INT, S (plate_update_rate), 0, 255, NULL, TRUE },
  GST_CV_BACKGROUND_PROPS (PROP_BACKGROUND, S (background), gst_quadcut_background_get_type,
      "What output=composite puts behind"),
};
#undef S

static void
settings_default (QuadCutSettings * s)
{
  memset (s, 0, sizeof *s);
  cc_quadcut_params_default (&s->params);
  s->output = CC_QUADCUT_OUTPUT_COMPOSITE;
  s->learn_frames = DEFAULT_LEARN_FRAMES;
  s->learn_step = DEFAULT_LEARN_STEP;
  s->plate_update_rate = DEFAULT_PLATE_UPDATE_RATE;
  gst_cv_background_settings_init (&s->background);
}

static void
gst_quad_cut_relearn (GstQuadCut * self)
{
  GST_OBJECT_LOCK (self);
  self->relearn = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_quad_cut_finalize (GObject * object)
{
  GstQuadCut *self = GST_QUAD_CUT (object);
  g_free (self->settings.plate_location);
  gst_cv_background_settings_clear (&self->settings.background);
  free_images (self);
  G_OBJECT_CLASS (gst_quad_cut_parent_class)->finalize (object);
}

static void
gst_quad_cut_class_init (GstQuadCutClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  QuadCutSettings defaults;
  settings_default (&defaults);

  GST_DEBUG_CATEGORY_INIT (quadcut_debug, "quadcut", 0, "Quad-Cut foreground segmentation");
  gobject_class->finalize = gst_quad_cut_finalize;
  gst_cv_props_from_core (quadcut_props + N_OWN_PROPS, CC_QUADCUT_N_PARAMS, PROP_PARAMS,
      G_STRUCT_OFFSET (QuadCutSettings, params), cc_quadcut_param_table ());
  gst_cv_props_class_install (gobject_class, quadcut_props, G_N_ELEMENTS (quadcut_props),
      &defaults, G_STRUCT_OFFSET (GstQuadCut, settings));

  /**
   * GstQuadCut::relearn:
   *
   * Learns a new plate from the next frame on (learn-frames frames), replacing the
   * current one, a file's included.
   */
  signals[SIGNAL_RELEARN] = g_signal_new_class_handler ("relearn", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (gst_quad_cut_relearn), NULL, NULL,
      NULL, G_TYPE_NONE, 0);

  gst_element_class_set_static_metadata (element_class, "Quad-Cut background replacement",
      "Filter/Effect/Video",
      "Live background removal or replacement: the subject is told from a background "
      "plate (mode=plate: an image file, or learned from the first frames of a static "
      "camera) or from active illumination, and output writes the mask, the alpha, or a "
      "composite over a colour, an image, or the blurred background. Edges follow the "
      "picture's colour edges and are feathered; temporal keeps the mask steady. CUDA "
      "memory stays on the GPU; active-backend says where it runs. The method is a "
      "minimum graph cut on quadtree blocks (Quad-Cut, docs/quadcut.md); GPL plugin",
      "cudavision developers");
  gst_cv_filter_class_add_pad_templates_full (filter_class, GST_CV_COLOR_FORMATS,
      GST_CV_CUDA_FORMATS);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_quad_cut_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_quad_cut_stop);
  filter_class->setup = gst_quad_cut_setup;
  filter_class->teardown = gst_quad_cut_teardown;
  filter_class->writes_frame = gst_cv_filter_writes_always;
  filter_class->wants_previous_frame = gst_quad_cut_wants_previous_frame;
  filter_class->process = gst_quad_cut_process;
  filter_class->reset = gst_quad_cut_reset;
  filter_class->refuse_caps = gst_quad_cut_refuse_caps;
}

static void
gst_quad_cut_init (GstQuadCut * self)
{
  settings_default (&self->settings);
  cc_quadcut_alternation_init (&self->pair);
}
