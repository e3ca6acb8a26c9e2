/* SPDX-License-Identifier: GPL-3.0-or-later */
/**
 * SECTION:element-quadcut
 * @title: quadcut
 *
 * Live foreground segmentation and background replacement by a minimum graph cut on
 * quadtree leaves (Quad-Cut with QuadN4tree neighbours: Vasconcelos et al.,
 * appendices C and D; the core is cc_quadcut, design in docs/quadcut.md). Pixels are
 * grouped into quadtree leaves of similar colour and background distance; the
 * leaves, weighted by their area and shared border lengths, are cut into foreground
 * and background (Boykov-Kolmogorov max-flow); the feathered result replaces the
 * background. Everything per pixel runs where the backend computes (CUDA memory in
 * and out without a host copy on the CUDA backend; only the compact leaf graph
 * crosses to the host for the cut).
 *
 * This element is in the plugin `cudavisiongpl` (libgstcudavisiongpl.so), licensed
 * GPL: the cut is libmaxflow (GPL-3.0-or-later). The other cudavision elements are
 * LGPL and do not link it (docs/dependencies.md).
 *
 * `mode=plate` compares each frame with a background plate: the image file
 * `plate-location` (scaled to the frame with a warning when its size differs), or,
 * without a file, a plate learned from the stream's first `learn-frames` frames (a
 * running approximation of the per-pixel temporal median that moves by at most
 * `learn-step` levels a frame; while it learns, the frames are segmented against the
 * plate so far). The `relearn` action signal learns a new plate from the next frame
 * on (also replacing a file's plate). `plate-update-rate` keeps the plate up to date
 * afterwards where the cut is confidently background. Shadows (darker, same chroma)
 * count as background (`shadow-depth`).
 *
 * `mode=active-illumination`: the frames alternate lit and unlit (a light near the
 * subject flashing every other frame). Each frame is paired with the previous one;
 * the background distance is their luminance difference, which needs no order. The
 * element tells which of the two is lit by their mean luminance (the leaves' means:
 * no extra pass) and warns once when a pair differs by less than 1 L unit (the
 * illumination does not alternate). The first frame of a stream has no pair: it is
 * all background.
 *
 * `output`: `composite` (the frame over the background: `background-location`, an
 * image scaled to the frame, `background-color`, or `blur` of `blur-radius`);
 * `alpha` (RGBA or BGRA only: the colours unchanged and the feathered foreground in
 * the alpha channel, for GStreamer's compositor; caps without alpha fail to
 * negotiate with a message saying so: name the caps after a videoconvert); `mask`
 * (the feathered matte as an opaque grey picture: white foreground, black
 * background); `debug` (the leaves' edges coloured by level, seeds tinted red).
 *
 * A flushing seek, a new segment or stream, and a DISCONT buffer drop the temporal
 * prior and a learned plate that is still incomplete (learning restarts); a plate
 * from a file or a fully learned one stays. A caps change keeps a file's plate
 * (converted again) and a fully learned one when the size stays (relearned when it
 * changes). A missing or unreadable image file
 * fails the state change to PAUSED with an error naming the file.
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
#include "gstcvimageio.h"
#include <cudacore/cc_quadcut.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (quadcut_debug);

/* active illumination: a pair whose mean L differs by less than this has the same light */
#define ACTIVE_SAME_L 0.05
#define GST_CAT_DEFAULT quadcut_debug

GST_CV_DEFINE_ENUM (gst_quadcut_mode_get_type, "GstQuadCutMode",
    { CC_QUADCUT_MODE_PLATE, "Difference from a background plate (file or learned)", "plate" },
    { CC_QUADCUT_MODE_ACTIVE, "Luminance difference of alternating lit / unlit frames",
      "active-illumination" })

typedef enum { OUTPUT_COMPOSITE = 0, OUTPUT_ALPHA, OUTPUT_MASK, OUTPUT_DEBUG } QuadCutOutput;
GST_CV_DEFINE_ENUM (gst_quadcut_output_get_type, "GstQuadCutOutput",
    { OUTPUT_COMPOSITE, "The foreground over the background", "composite" },
    { OUTPUT_ALPHA, "The frame with the foreground in its alpha channel (RGBA/BGRA)", "alpha" },
    { OUTPUT_MASK, "The feathered matte: white foreground, black background", "mask" },
    { OUTPUT_DEBUG, "The quadtree leaves by level and the seeds", "debug" })

typedef enum { BG_AUTO = 0, BG_COLOR, BG_IMAGE, BG_BLUR } QuadCutBackground;
GST_CV_DEFINE_ENUM (gst_quadcut_background_get_type, "GstQuadCutBackground",
    { BG_AUTO, "background-location when set, else background-color", "auto" },
    { BG_COLOR, "A solid colour (background-color)", "color" },
    { BG_IMAGE, "The image of background-location, scaled to the frame", "image" },
    { BG_BLUR, "The frame under a box blur of blur-radius", "blur" })

/* Where the plate comes from, and how far learning is. */
typedef enum { PLATE_NONE = 0, PLATE_LEARNING, PLATE_LEARNED, PLATE_FILE } PlateState;

enum {
  PROP_0, PROP_MODE, PROP_OUTPUT, PROP_PLATE_LOCATION, PROP_LEARN_FRAMES, PROP_LEARN_STEP,
  PROP_PLATE_UPDATE_RATE, PROP_BACKGROUND, PROP_BACKGROUND_LOCATION, PROP_BACKGROUND_COLOR,
  PROP_BLUR_RADIUS, PROP_SIGMA_L, PROP_SHADOW_DEPTH, PROP_SEED_THRESHOLD, PROP_BINS,
  PROP_SIGMA_C, PROP_LAMBDA, PROP_SIMILARITY, PROP_CERTAIN, PROP_MAX_LEVEL, PROP_TEMPORAL, PROP_FEATHER,
};

enum { SIGNAL_RELEARN, N_SIGNALS };
static guint signals[N_SIGNALS];

#define DEFAULT_LEARN_FRAMES 100
#define DEFAULT_LEARN_STEP 2
#define DEFAULT_PLATE_UPDATE_RATE 0
#define DEFAULT_BACKGROUND_COLOR 0x00B140
#define DEFAULT_BLUR_RADIUS 15

struct _GstQuadCut {
  GstCvFilter parent;
  /* properties (object lock) */
  cc_quadcut_params params;
  QuadCutOutput output;
  gchar *plate_location, *background_location;
  gint learn_frames, learn_step, plate_update_rate;
  QuadCutBackground background;
  guint background_color;
  gint blur_radius;
  gboolean relearn;
  /* images read at start (host RGBX8, their own size) */
  cc_image plate_file, background_file;
  /* a fully learned plate kept across a teardown (host RGBX8): a new setup of the same
   * size (caps renegotiated, cpu-threads changed) takes it back instead of learning */
  cc_image kept_plate;
  /* streaming (setup/process) */
  cc_quadcut *qc;
  gint width, height;          /* qc's size (the info may already be the next caps') */
  cc_image plate_img;          /* the file's plate at the frame size, RGBX8 */
  cc_image background_img;     /* the background at the frame size and format */
  cc_image white;              /* an all-white frame (output=mask) */
  gboolean have_plate_img, have_background_img, have_white;
  PlateState plate_state;
  gint learned;                /* frames learned into the plate so far */
  gdouble previous_l;          /* active: the previous frame's mean L (< 0: none) */
  gdouble previous_dl;         /* active: the previous pair's change of mean L (0: none) */
  gboolean warned_pair;
  GstCvMaskOut *mask_out;      /* the mask as a segmentation mtd (1.26+), or NULL */
};

G_DECLARE_FINAL_TYPE (GstQuadCut, gst_quad_cut, GST, QUAD_CUT, GstCvFilter)
G_DEFINE_TYPE (GstQuadCut, gst_quad_cut, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (quadcut, "quadcut", GST_RANK_NONE, gst_quad_cut_get_type ());

/* ------------------------------------------------------------- images */

/* Reads a PNG or JPEG into a host RGBX8 image; FALSE after posting an element error
 * that names the property, the file and what is wrong (gst/gstcvimageio.h). */
static gboolean
load_image (GstQuadCut * self, const gchar * property, const gchar * path, cc_image * out)
{
  return gst_cv_image_load (GST_ELEMENT (self), property, path, out);
}

static void
free_host (cc_image * img)
{
  if (img->planes[0])
    cc_image_host_free (img);
  memset (img, 0, sizeof *img);
}

/* A host RGBX8 image scaled and converted by GstVideoConverter into a new image of
 * `format` at the frame's size, where the backend computes (dst: free with
 * cc_image_free on ctx). */
static gboolean
convert_image (GstQuadCut * self, cc_context * ctx, const cc_image * src,
    const GstVideoInfo * frame_info, GstVideoFormat format, cc_image * dst)
{
  GstVideoInfo sinfo, dinfo;
  gst_video_info_set_format (&sinfo, GST_VIDEO_FORMAT_RGBA, src->width, src->height);
  sinfo.stride[0] = (gint) src->pitch[0];
  sinfo.size = src->pitch[0] * src->height;
  gst_video_info_set_format (&dinfo, format, GST_VIDEO_INFO_WIDTH (frame_info),
      GST_VIDEO_INFO_HEIGHT (frame_info));
  if (GST_VIDEO_INFO_IS_YUV (&dinfo))
    dinfo.colorimetry = frame_info->colorimetry;
  GstBuffer *sbuf = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, src->planes[0],
      sinfo.size, 0, sinfo.size, NULL, NULL);
  GstBuffer *dbuf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&dinfo), NULL);
  GstVideoFrame sf, df;
  gboolean ok = FALSE, mapped = FALSE;
  if (gst_video_frame_map (&sf, &sinfo, sbuf, GST_MAP_READ)) {
    if (gst_video_frame_map (&df, &dinfo, dbuf, GST_MAP_WRITE)) {
      mapped = TRUE;
      /* bilinear, no dithering: the plate is a reference, and a flat colour stays flat
       * (the default cubic taps overshoot it by up to 3 levels in places) */
      GstStructure *config = gst_structure_new ("GstVideoConverter",
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD,
          GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR, NULL);
      GstVideoConverter *conv = gst_video_converter_new (&sinfo, &dinfo, config);
      if (conv) {
        gst_video_converter_frame (conv, &sf, &df);
        gst_video_converter_free (conv);
        cc_image host = gst_cv_video_frame_view (&df, CC_LOCATION_HOST);
        cc_location loc = gst_cv_filter_get_location (GST_CV_FILTER (self));
        cc_status st = cc_image_alloc (ctx, host.width, host.height, host.format, loc, dst);
        if (st == CC_SUCCESS && (st = cc_image_copy (ctx, NULL, &host, dst)) != CC_SUCCESS)
          cc_image_free (ctx, dst);
        if (st == CC_SUCCESS)
          st = cc_context_synchronize (ctx);   /* dbuf goes away below */
        if (st != CC_SUCCESS)
          GST_CV_FILTER_CORE_ERROR (self, st, "preparing an image for the frame");
        ok = st == CC_SUCCESS;
      } else {
        GST_ELEMENT_ERROR (self, CORE, FAILED, ("cannot convert an image to the frame's %s",
                gst_video_format_to_string (format)), (NULL));
      }
      gst_video_frame_unmap (&df);
    }
    gst_video_frame_unmap (&sf);
  }
  if (!mapped)
    GST_ELEMENT_ERROR (self, CORE, FAILED, ("cannot map a %dx%d image for the conversion to "
            "the frame", src->width, src->height), (NULL));
  gst_buffer_unref (sbuf);
  gst_buffer_unref (dbuf);
  return ok;
}

/* ------------------------------------------------------------- GstCvFilter */

static gboolean
gst_quad_cut_start (GstBaseTransform * trans)
{
  GstQuadCut *self = GST_QUAD_CUT (trans);
  GST_OBJECT_LOCK (self);
  gchar *plate = g_strdup (self->plate_location);
  gchar *back = g_strdup (self->background_location);
  cc_quadcut_mode mode = self->params.mode;
  gboolean needs_image = self->background == BG_IMAGE;
  GST_OBJECT_UNLOCK (self);
  if (needs_image && !(back && *back)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("background=image, but no "
            "background-location is set"), (NULL));
    g_free (plate);
    g_free (back);
    return FALSE;
  }
  free_host (&self->plate_file);
  free_host (&self->background_file);
  gboolean ok = TRUE;
  /* a file's plate matters in plate mode only; the background in every mode */
  if (plate && *plate && mode == CC_QUADCUT_MODE_PLATE)
    ok = load_image (self, "plate-location", plate, &self->plate_file);
  if (ok && back && *back)
    ok = load_image (self, "background-location", back, &self->background_file);
  g_free (plate);
  g_free (back);
  if (!ok) {
    free_host (&self->plate_file);
    free_host (&self->background_file);
    return FALSE;
  }
  self->plate_state = PLATE_NONE;
  return GST_BASE_TRANSFORM_CLASS (gst_quad_cut_parent_class)->start (trans);
}

static gboolean
gst_quad_cut_stop (GstBaseTransform * trans)
{
  GstQuadCut *self = GST_QUAD_CUT (trans);
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_quad_cut_parent_class)->stop (trans);
  free_host (&self->plate_file);
  free_host (&self->background_file);
  free_host (&self->kept_plate);   /* the next start learns anew */
  return ret;
}

/* Copies the learned plate of self->qc to the host (kept_plate); on failure the plate
 * is simply learned again. */
static void
keep_learned_plate (GstQuadCut * self, cc_context * ctx)
{
  free_host (&self->kept_plate);
  cc_image host, dev = { 0 };
  const int w = self->width, h = self->height;
  if (cc_image_host_new (w, h, CC_FORMAT_RGBX8, &host) != CC_SUCCESS)
    return;
  cc_status st;
  if (cc_context_backend (ctx) == CC_BACKEND_CUDA) {
    st = cc_image_alloc (ctx, w, h, CC_FORMAT_RGBX8, CC_LOCATION_DEVICE, &dev);
    if (st == CC_SUCCESS && (st = cc_quadcut_get_plate (self->qc, NULL, &dev)) == CC_SUCCESS)
      st = cc_image_copy (ctx, NULL, &dev, &host);
    if (dev.planes[0])
      cc_image_free (ctx, &dev);
  } else {
    st = cc_quadcut_get_plate (self->qc, NULL, &host);
  }
  if (st == CC_SUCCESS)
    self->kept_plate = host;
  else
    cc_image_host_free (&host);
}

static void
gst_quad_cut_teardown (GstCvFilter * filter)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  cc_context *ctx = gst_cv_filter_get_context (filter);
  if (self->qc && self->plate_state == PLATE_LEARNED)
    keep_learned_plate (self, ctx);
  cc_quadcut_destroy (self->qc);
  self->qc = NULL;
  g_clear_pointer (&self->mask_out, gst_cv_mask_out_free);
  if (self->have_plate_img)
    cc_image_free (ctx, &self->plate_img);
  if (self->have_background_img)
    cc_image_free (ctx, &self->background_img);
  if (self->have_white)
    cc_image_free (ctx, &self->white);
  self->have_plate_img = self->have_background_img = self->have_white = FALSE;
}

static gboolean
has_alpha (GstVideoFormat f)
{
  return f == GST_VIDEO_FORMAT_RGBA || f == GST_VIDEO_FORMAT_BGRA;
}

/* Posts the negotiation error of output=alpha on caps without an alpha channel. */
static void
alpha_caps_error (GstQuadCut * self, GstVideoFormat f)
{
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("output=alpha needs RGBA or BGRA caps, not %s: the foreground goes into the "
          "alpha channel", gst_video_format_to_string (f)),
      ("put videoconvert ! video/x-raw,format=RGBA before quadcut, or use "
          "output=composite or mask"));
}

/* Makes `src` (host RGBX8, any size) the segmenter's plate at the frame's size
 * (plate_img); FALSE after posting an error. */
static gboolean
set_plate_image (GstQuadCut * self, cc_context * ctx, const cc_image * src,
    const GstVideoInfo * info)
{
  if (!convert_image (self, ctx, src, info, GST_VIDEO_FORMAT_RGBA, &self->plate_img))
    return FALSE;
  self->have_plate_img = TRUE;
  cc_status st = cc_quadcut_set_plate (self->qc, NULL, &self->plate_img);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "setting the plate");
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_quad_cut_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  GST_OBJECT_LOCK (self);
  cc_quadcut_params params = self->params;
  QuadCutOutput output = self->output;
  GST_OBJECT_UNLOCK (self);
  if (output == OUTPUT_ALPHA && !has_alpha (format)) {
    alpha_caps_error (self, format);
    return FALSE;
  }
  cc_status st = cc_quadcut_create (ctx, w, h, &params, &self->qc);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating the segmenter");
    return FALSE;
  }
  self->width = w;
  self->height = h;
  self->mask_out = gst_cv_mask_out_new (ctx, w, h);
  if (params.mode == CC_QUADCUT_MODE_PLATE && self->plate_file.planes[0]) {
    if (self->plate_file.width != w || self->plate_file.height != h)
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("the plate is %dx%d, the frames %dx%d: "
              "the plate is scaled", self->plate_file.width, self->plate_file.height, w, h),
          ("a plate shot with the camera's own resolution segments better"));
    if (!set_plate_image (self, ctx, &self->plate_file, info))
      return FALSE;
    GST_OBJECT_LOCK (self);
    /* a relearn asked for before the caps replaces the file's plate too */
    self->plate_state = self->relearn ? PLATE_NONE : PLATE_FILE;
    GST_OBJECT_UNLOCK (self);
  } else if (params.mode == CC_QUADCUT_MODE_PLATE && self->kept_plate.planes[0]
      && self->kept_plate.width == w && self->kept_plate.height == h) {
    /* the plate learned before this setup, same size: kept */
    if (!set_plate_image (self, ctx, &self->kept_plate, info))
      return FALSE;
    self->plate_state = PLATE_LEARNED;
  } else {
    self->plate_state = PLATE_NONE;   /* a learned plate of another size: learn again */
  }
  free_host (&self->kept_plate);
  if (self->background_file.planes[0]) {
    if (!convert_image (self, ctx, &self->background_file, info, format,
            &self->background_img))
      return FALSE;
    self->have_background_img = TRUE;
  }
  /* output=mask composites this white frame over black */
  cc_image white_rgba = { 0 };
  guint32 px = 0xFFFFFFFF;
  white_rgba = cc_image_view (&px, 4, 1, 1, CC_FORMAT_RGBX8, CC_LOCATION_HOST);
  if (!convert_image (self, ctx, &white_rgba, info, format, &self->white))
    return FALSE;
  self->have_white = TRUE;
  self->learned = 0;
  self->previous_l = -1.0;
  self->previous_dl = 0.0;
  return TRUE;
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
  if (self->plate_state == PLATE_LEARNING) {
    GST_DEBUG_OBJECT (self, "stream reset: the plate learned from %d frames is dropped",
        self->learned);
    self->plate_state = PLATE_NONE;
  }
  self->learned = 0;
  self->previous_l = -1.0;
  self->previous_dl = 0.0;
}

static gboolean
gst_quad_cut_writes_frame (GstCvFilter * filter)
{
  return TRUE;
}

static gboolean
gst_quad_cut_wants_previous_frame (GstCvFilter * filter)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  GST_OBJECT_LOCK (self);
  gboolean active = self->params.mode == CC_QUADCUT_MODE_ACTIVE;
  GST_OBJECT_UNLOCK (self);
  return active;
}

/* The area-weighted mean L of the last run's leaves (the frame's mean luminance). */
static gdouble
mean_luminance (GstQuadCut * self)
{
  cc_quadcut_graph g;
  if (cc_quadcut_get_graph (self->qc, &g) != CC_SUCCESS || g.n_leaves == 0)
    return 0.0;
  gdouble sum = 0.0, area = 0.0;
  for (int i = 0; i < g.n_leaves; i++) {
    gdouble a = (gdouble) (1 << g.leaves[i].level) * (1 << g.leaves[i].level);
    sum += a * g.leaves[i].L;
    area += a;
  }
  return sum / area;
}

/* Plate mode: learning (a new plate from this frame on, or one more frame into it). */
static cc_status
learn_plate (GstQuadCut * self, const cc_image * frame, gint frames, gint step)
{
  cc_status st = CC_SUCCESS;
  if (self->plate_state == PLATE_NONE) {
    st = cc_quadcut_set_plate (self->qc, gst_cv_filter_get_stream (GST_CV_FILTER (self)), frame);
    self->learned = 1;
    self->plate_state = PLATE_LEARNING;
  } else if (self->plate_state == PLATE_LEARNING) {
    st = cc_quadcut_update_plate (self->qc, gst_cv_filter_get_stream (GST_CV_FILTER (self)),
        frame, step, false);
    self->learned++;
  }
  if (st == CC_SUCCESS && self->plate_state == PLATE_LEARNING && self->learned >= frames) {
    GST_INFO_OBJECT (self, "plate learned from %d frames", self->learned);
    self->plate_state = PLATE_LEARNED;
  }
  return st;
}

/* The cut's mask (0 background, 255 foreground) as a segmentation mtd of the
 * buffer's analytics relation meta, on GStreamer 1.26+ (docs/analytics.md). */
static void
attach_mask (GstQuadCut * self, GstBuffer * buffer)
{
  static const guint regions[] = { 0, 255 };
  cc_image *dst = gst_cv_mask_out_begin (self->mask_out);
  if (dst && !gst_cv_mask_out_finish (self->mask_out, buffer,
          cc_quadcut_get_mask (self->qc, gst_cv_filter_get_stream (GST_CV_FILTER (self)),
              dst) == CC_SUCCESS, regions, 2))
    GST_WARNING_OBJECT (self, "could not attach the segmentation mtd");
}

static cc_status
gst_quad_cut_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstQuadCut *self = GST_QUAD_CUT (filter);
  GST_OBJECT_LOCK (self);
  cc_quadcut_params params = self->params;
  QuadCutOutput output = self->output;
  gint learn_frames = self->learn_frames, learn_step = self->learn_step;
  gint update_rate = self->plate_update_rate;
  QuadCutBackground background = self->background;
  guint c = self->background_color;
  gint blur_radius = self->blur_radius;
  gboolean relearn = self->relearn;
  self->relearn = FALSE;
  GST_OBJECT_UNLOCK (self);

  cc_quadcut_params created;
  cc_quadcut_get_params (self->qc, &created);
  params.mode = created.mode;   /* a mode change waits for the next setup */
  gboolean active = params.mode == CC_QUADCUT_MODE_ACTIVE;
  *what = "setting the parameters";
  cc_status st = cc_quadcut_set_params (self->qc, &params);
  const cc_image *other = NULL;
  if (st == CC_SUCCESS && active) {
    other = gst_cv_filter_get_previous_frame (filter);
    if (!other)
      other = frame;   /* no pair yet: the distance is 0, all background */
  } else if (st == CC_SUCCESS) {
    if (relearn) {
      GST_INFO_OBJECT (self, "relearning the plate");
      self->plate_state = PLATE_NONE;
    }
    *what = "learning the plate";
    st = learn_plate (self, frame, learn_frames, learn_step);
  }
  if (st == CC_SUCCESS) {
    *what = "segmenting";
    st = cc_quadcut_run (self->qc, stream, frame, other);
  }
  if (st == CC_SUCCESS && active) {
    gdouble l = mean_luminance (self);
    if (self->previous_l >= 0.0) {
      GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " is the %s one of its pair (mean L "
          "%.2f, previous %.2f)", gst_cv_filter_get_frame_number (filter),
          l >= self->previous_l ? "lit" : "unlit", l, self->previous_l);
      /* Only the foreground gets the light: on the project's 640x360 clip the mean L
       * of a lit and an unlit frame differ by 0.9, so the threshold sits under it.
       * Frames that do not alternate have the same mean L (noise averages out over
       * the frame), or change it the same way twice in a row. */
      gdouble dl = l - self->previous_l;
      guint64 n = gst_cv_filter_get_frame_number (filter);
      if (!self->warned_pair && (ABS (dl) < ACTIVE_SAME_L
              || (self->previous_dl != 0.0 && (dl > 0) == (self->previous_dl > 0)))) {
        if (ABS (dl) < ACTIVE_SAME_L)
          GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("active illumination: frames %"
                  G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT " have the same mean luminance",
                  n - 1, n), ("mean L %.3f and %.3f: the frames do not alternate lit and "
                  "unlit, the foreground will be missed", self->previous_l, l));
        else
          GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("active illumination: frames %"
                  G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " do not alternate lit and unlit",
                  n - 2, n), ("mean L %s twice in a row (by %.3f, then %.3f): the "
                  "foreground will be missed", dl > 0 ? "rises" : "falls", self->previous_dl,
                  dl));
        self->warned_pair = TRUE;
      }
      self->previous_dl = ABS (dl) < ACTIVE_SAME_L ? 0.0 : dl;
    }
    self->previous_l = l;
    /* the unchanged frame becomes the next pair's other before it is drawn over (the
     * copy replaces `other`: after the run) */
    if (!gst_cv_filter_keep_frame (filter, frame)) {
      *what = NULL;   /* posted */
      return CC_ERROR_INTERNAL;
    }
  }
  if (st == CC_SUCCESS && !active && update_rate > 0
      && (self->plate_state == PLATE_LEARNED || self->plate_state == PLATE_FILE)) {
    *what = "updating the plate";
    st = cc_quadcut_update_plate (self->qc, stream, frame, update_rate, true);
  }
  if (st == CC_SUCCESS) {
    *what = "writing the output";
    cc_quadcut_background bg = { .kind = CC_QUADCUT_BG_COLOR, .r = (c >> 16) & 0xFF,
                                 .g = (c >> 8) & 0xFF, .b = c & 0xFF,
                                 .blur_radius = blur_radius };
    if (background == BG_BLUR)
      bg.kind = CC_QUADCUT_BG_BLUR;
    else if ((background == BG_IMAGE || background == BG_AUTO) && self->have_background_img) {
      bg.kind = CC_QUADCUT_BG_IMAGE;
      bg.image = &self->background_img;
    }
    switch (output) {
      case OUTPUT_COMPOSITE:
        st = cc_quadcut_composite (self->qc, stream, frame, &bg, frame);
        break;
      case OUTPUT_ALPHA:
        st = cc_quadcut_set_alpha (self->qc, stream, frame);
        break;
      case OUTPUT_MASK: {
        cc_quadcut_background black = { .kind = CC_QUADCUT_BG_COLOR };
        st = cc_quadcut_composite (self->qc, stream, &self->white, &black, frame);
        break;
      }
      case OUTPUT_DEBUG:
        st = cc_quadcut_draw_leaves (self->qc, stream, frame, frame);
        break;
    }
  }
  if (st == CC_SUCCESS)
    attach_mask (self, buffer);   /* the mask's download waits for the stream */
  return st;
}

/* ------------------------------------------------------------- caps */

/* Fixed caps without alpha for output=alpha: refused with the reason. (The caps
 * queries are not narrowed to RGBA / BGRA: a link to a capsfilter of RGBx would then
 * fail in gst_parse_launch with a bare "could not link", before any message could
 * say why. So a videoconvert before quadcut needs its caps named, as in the launch
 * line above.) */
static gboolean
gst_quad_cut_accept_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps)
{
  GstQuadCut *self = GST_QUAD_CUT (trans);
  GST_OBJECT_LOCK (self);
  gboolean alpha = self->output == OUTPUT_ALPHA;
  GST_OBJECT_UNLOCK (self);
  GstVideoInfo info;
  if (alpha && gst_caps_is_fixed (caps) && gst_video_info_from_caps (&info, caps)
      && !has_alpha (GST_VIDEO_INFO_FORMAT (&info))) {
    alpha_caps_error (self, GST_VIDEO_INFO_FORMAT (&info));
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_quad_cut_parent_class)->accept_caps (trans, direction,
      caps);
}

/* ------------------------------------------------------------- properties */

static void
gst_quad_cut_relearn (GstQuadCut * self)
{
  GST_OBJECT_LOCK (self);
  self->relearn = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_quad_cut_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstQuadCut *self = GST_QUAD_CUT (object);
  gboolean resetup = FALSE;
  GST_OBJECT_LOCK (self);
  cc_quadcut_params *p = &self->params;
  switch (prop_id) {
    case PROP_MODE:
      p->mode = g_value_get_enum (value);
      resetup = TRUE;
      break;
    case PROP_OUTPUT:
      self->output = g_value_get_enum (value);
      resetup = TRUE;   /* setup checks the alpha caps */
      break;
    case PROP_PLATE_LOCATION:
      g_free (self->plate_location);
      self->plate_location = g_value_dup_string (value);
      break;
    case PROP_BACKGROUND_LOCATION:
      g_free (self->background_location);
      self->background_location = g_value_dup_string (value);
      break;
    case PROP_LEARN_FRAMES: self->learn_frames = g_value_get_int (value); break;
    case PROP_LEARN_STEP: self->learn_step = g_value_get_int (value); break;
    case PROP_PLATE_UPDATE_RATE: self->plate_update_rate = g_value_get_int (value); break;
    case PROP_BACKGROUND: self->background = g_value_get_enum (value); break;
    case PROP_BACKGROUND_COLOR: self->background_color = g_value_get_uint (value); break;
    case PROP_BLUR_RADIUS: self->blur_radius = g_value_get_int (value); break;
    case PROP_SIGMA_L: p->sigma_l = g_value_get_float (value); break;
    case PROP_SHADOW_DEPTH: p->shadow_depth = g_value_get_float (value); break;
    case PROP_SEED_THRESHOLD: p->seed_threshold = g_value_get_float (value); break;
    case PROP_BINS: p->bins = g_value_get_int (value); break;
    case PROP_SIGMA_C: p->sigma_c = g_value_get_float (value); break;
    case PROP_LAMBDA: p->lambda = g_value_get_float (value); break;
    case PROP_SIMILARITY: p->similarity = g_value_get_float (value); break;
    case PROP_CERTAIN: p->certain = g_value_get_float (value); break;
    case PROP_MAX_LEVEL: p->max_level = g_value_get_int (value); break;
    case PROP_TEMPORAL: p->temporal = g_value_get_float (value); break;
    case PROP_FEATHER: p->feather = g_value_get_int (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
  if (resetup)
    gst_cv_filter_request_setup (GST_CV_FILTER (self));
}

static void
gst_quad_cut_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstQuadCut *self = GST_QUAD_CUT (object);
  GST_OBJECT_LOCK (self);
  const cc_quadcut_params *p = &self->params;
  switch (prop_id) {
    case PROP_MODE: g_value_set_enum (value, p->mode); break;
    case PROP_OUTPUT: g_value_set_enum (value, self->output); break;
    case PROP_PLATE_LOCATION: g_value_set_string (value, self->plate_location); break;
    case PROP_BACKGROUND_LOCATION: g_value_set_string (value, self->background_location); break;
    case PROP_LEARN_FRAMES: g_value_set_int (value, self->learn_frames); break;
    case PROP_LEARN_STEP: g_value_set_int (value, self->learn_step); break;
    case PROP_PLATE_UPDATE_RATE: g_value_set_int (value, self->plate_update_rate); break;
    case PROP_BACKGROUND: g_value_set_enum (value, self->background); break;
    case PROP_BACKGROUND_COLOR: g_value_set_uint (value, self->background_color); break;
    case PROP_BLUR_RADIUS: g_value_set_int (value, self->blur_radius); break;
    case PROP_SIGMA_L: g_value_set_float (value, p->sigma_l); break;
    case PROP_SHADOW_DEPTH: g_value_set_float (value, p->shadow_depth); break;
    case PROP_SEED_THRESHOLD: g_value_set_float (value, p->seed_threshold); break;
    case PROP_BINS: g_value_set_int (value, p->bins); break;
    case PROP_SIGMA_C: g_value_set_float (value, p->sigma_c); break;
    case PROP_LAMBDA: g_value_set_float (value, p->lambda); break;
    case PROP_SIMILARITY: g_value_set_float (value, p->similarity); break;
    case PROP_CERTAIN: g_value_set_float (value, p->certain); break;
    case PROP_MAX_LEVEL: g_value_set_int (value, p->max_level); break;
    case PROP_TEMPORAL: g_value_set_float (value, p->temporal); break;
    case PROP_FEATHER: g_value_set_int (value, p->feather); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_quad_cut_finalize (GObject * object)
{
  GstQuadCut *self = GST_QUAD_CUT (object);
  g_free (self->plate_location);
  g_free (self->background_location);
  free_host (&self->plate_file);
  free_host (&self->background_file);
  free_host (&self->kept_plate);
  G_OBJECT_CLASS (gst_quad_cut_parent_class)->finalize (object);
}

static void
gst_quad_cut_class_init (GstQuadCutClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags rw_ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;
  cc_quadcut_params d;
  cc_quadcut_params_default (&d);

  GST_DEBUG_CATEGORY_INIT (quadcut_debug, "quadcut", 0, "Quad-Cut foreground segmentation");
  gobject_class->set_property = gst_quad_cut_set_property;
  gobject_class->get_property = gst_quad_cut_get_property;
  gobject_class->finalize = gst_quad_cut_finalize;

  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Where the background distance comes from",
          gst_quadcut_mode_get_type (), d.mode, rw_ready));
  g_object_class_install_property (gobject_class, PROP_OUTPUT,
      g_param_spec_enum ("output", "Output", "What the element writes into the frame",
          gst_quadcut_output_get_type (), OUTPUT_COMPOSITE, rw_ready));
  g_object_class_install_property (gobject_class, PROP_PLATE_LOCATION,
      g_param_spec_string ("plate-location", "Plate location",
          "PNG or JPEG of the empty scene (mode=plate); scaled to the frame with a warning "
          "when its size differs. Unset: the plate is learned", NULL, rw_ready));
  g_object_class_install_property (gobject_class, PROP_LEARN_FRAMES,
      g_param_spec_int ("learn-frames", "Learn frames",
          "Frames a learned plate takes (the first ones of the stream, or after relearn)",
          1, 100000, DEFAULT_LEARN_FRAMES, rw));
  g_object_class_install_property (gobject_class, PROP_LEARN_STEP,
      g_param_spec_int ("learn-step", "Learn step",
          "Levels a channel of the plate moves at most per frame while learning (the "
          "running median: small steps ignore passers-by, large ones learn fast)",
          1, 255, DEFAULT_LEARN_STEP, rw));
  g_object_class_install_property (gobject_class, PROP_PLATE_UPDATE_RATE,
      g_param_spec_int ("plate-update-rate", "Plate update rate",
          "Levels a channel of a learned or file plate moves at most per frame where the "
          "cut is confidently background (alpha 0); 0 keeps the plate as it is",
          0, 255, DEFAULT_PLATE_UPDATE_RATE, rw));
  g_object_class_install_property (gobject_class, PROP_BACKGROUND,
      g_param_spec_enum ("background", "Background", "What output=composite puts behind",
          gst_quadcut_background_get_type (), BG_AUTO, rw));
  g_object_class_install_property (gobject_class, PROP_BACKGROUND_LOCATION,
      g_param_spec_string ("background-location", "Background location",
          "PNG or JPEG behind the foreground (background=auto or image), scaled to the "
          "frame", NULL, rw_ready));
  g_object_class_install_property (gobject_class, PROP_BACKGROUND_COLOR,
      g_param_spec_uint ("background-color", "Background colour",
          "The solid background as 0xRRGGBB", 0, 0xFFFFFF, DEFAULT_BACKGROUND_COLOR, rw));
  g_object_class_install_property (gobject_class, PROP_BLUR_RADIUS,
      g_param_spec_int ("blur-radius", "Blur radius",
          "Box blur radius in px of background=blur (YUV chroma: half)", 1, 256,
          DEFAULT_BLUR_RADIUS, rw));
  g_object_class_install_property (gobject_class, PROP_SIGMA_L,
      g_param_spec_float ("sigma-l", "Sigma L",
          "How far (Lab units) a pixel may differ from the background and still count as "
          "background: raise under noise or lighting changes (parts of the subject may be "
          "lost), lower for subjects close to the background's colour", 0.1f, 100.0f,
          d.sigma_l, rw));
  g_object_class_install_property (gobject_class, PROP_SHADOW_DEPTH,
      g_param_spec_float ("shadow-depth", "Shadow depth",
          "mode=plate: the darkest shadow counted as background, as a share of the "
          "plate's L (0: no shadow rule)", 0.0f, 1.0f, d.shadow_depth, rw));
  g_object_class_install_property (gobject_class, PROP_SEED_THRESHOLD,
      g_param_spec_float ("seed-threshold", "Seed threshold",
          "A pixel seeds the object colour model where p_B is below this", 0.0f, 1.0f,
          d.seed_threshold, rw));
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_int ("bins", "Histogram bins",
          "Bins per axis of the subject's colour histogram: more tell similar subject and "
          "background colours apart, but need more certain subject pixels", 2, 256, d.bins,
          rw));
  g_object_class_install_property (gobject_class, PROP_SIGMA_C,
      g_param_spec_float ("sigma-c", "Sigma C",
          "Colour difference (Lab units) at which the mask's edge prefers to run between "
          "two areas: lower to follow fine colour edges, raise to follow only strong ones",
          0.1f, 100.0f,
          d.sigma_c, rw));
  g_object_class_install_property (gobject_class, PROP_LAMBDA,
      g_param_spec_float ("lambda", "Lambda", "Smoothness of the mask: raise for fewer, "
          "smoother shapes (thin parts may vanish), lower to keep thin parts (more "
          "speckle); no effect on the time", 0.0f, 1000.0f,
          d.lambda, rw));
  g_object_class_install_property (gobject_class, PROP_SIMILARITY,
      g_param_spec_float ("similarity", "Similarity",
          "How different (Lab units) pixels may be and still be decided together as one "
          "block: raise for fewer, bigger blocks (faster, blockier edges), lower for finer "
          "edges at more cost (0: only identical pixels)", 0.0f, 1000.0f,
          d.similarity, rw));
  g_object_class_install_property (gobject_class, PROP_CERTAIN,
      g_param_spec_float ("certain", "Certain",
          "Quadtree criterion on the stratified data: a block whose pixels are all "
          "within certain x sigma-l of the background, or all seeds, becomes one leaf "
          "whatever its texture (0: off, the ranges alone)", 0.0f, 100.0f, d.certain,
          rw));
  g_object_class_install_property (gobject_class, PROP_MAX_LEVEL,
      g_param_spec_int ("max-level", "Max level",
          "Largest leaf side as 2^max-level px (0: one node a pixel)", 0,
          CC_QUADCUT_MAX_LEVEL, d.max_level, rw));
  g_object_class_install_property (gobject_class, PROP_TEMPORAL,
      g_param_spec_float ("temporal", "Temporal weight",
          "Cost per pixel of changing label from the previous frame's mask (against "
          "flicker; high values leave trails)", 0.0f, 100.0f, d.temporal, rw));
  g_object_class_install_property (gobject_class, PROP_FEATHER,
      g_param_spec_int ("feather", "Feather",
          "Radius in px of the box filter that softens the mask's edge into the alpha",
          0, 64, d.feather, rw));

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
  trans_class->accept_caps = GST_DEBUG_FUNCPTR (gst_quad_cut_accept_caps);
  filter_class->setup = gst_quad_cut_setup;
  filter_class->teardown = gst_quad_cut_teardown;
  filter_class->writes_frame = gst_quad_cut_writes_frame;
  filter_class->wants_previous_frame = gst_quad_cut_wants_previous_frame;
  filter_class->process = gst_quad_cut_process;
  filter_class->reset = gst_quad_cut_reset;
  gst_type_mark_as_plugin_api (gst_quadcut_mode_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_quadcut_output_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_quadcut_background_get_type (), 0);
}

static void
gst_quad_cut_init (GstQuadCut * self)
{
  cc_quadcut_params_default (&self->params);
  self->output = OUTPUT_COMPOSITE;
  self->learn_frames = DEFAULT_LEARN_FRAMES;
  self->learn_step = DEFAULT_LEARN_STEP;
  self->plate_update_rate = DEFAULT_PLATE_UPDATE_RATE;
  self->background = BG_AUTO;
  self->background_color = DEFAULT_BACKGROUND_COLOR;
  self->blur_radius = DEFAULT_BLUR_RADIUS;
  self->previous_l = -1.0;
  self->previous_dl = 0.0;
}
