/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-moctracker
 * @title: moctracker
 *
 * Multi-object chromatic tracking (vasconcelos, appendix A): N objects, each of one
 * distinctive colour, found in every frame in one pass over the pixels, on the GPU
 * (CUDA memory in and out, no host copy) or the CPU. Each pixel is classified by a
 * look-up table built once per object list (so a pixel costs the same whatever N
 * is), then a multiple parallel reduction sums, per object, the mass, the first and
 * second moments and the bounding box.
 *
 * For every present object (mass >= `min-mass`) each buffer gets a
 * #GstVideoRegionOfInterestMeta: roi_type = the object's name, id = its index in
 * the list, rectangle = its bounding box, and a `moctracker` parameter structure
 * with centroid-x, centroid-y (double, px), mass (gint64), orientation (radians,
 * major axis from +x towards +y), major-axis, minor-axis (semi-axes, px),
 * velocity-x, velocity-y (px per frame) and velocity-valid. With `post-messages`
 * an element message `moctracker` carries the frame's timestamp and, per object,
 * name, present, lost (refused by `size-ratio`), centroid, box and mass. `draw`
 * draws boxes, centroids, trajectories, a mask and labels into the frame (in CUDA
 * memory too): `labels` writes each present object's name in its colour (a built-in
 * 5x7 px font, 6 px a character) left-aligned with its box, just above it, or just below it when the
 * box is within 8 px of the top of the frame; text past the frame's edges is
 * clipped.
 *
 * With `search-window`, each object is searched near where it was (and where its
 * velocity takes it) rather than in the whole frame: stray pixels of its colour
 * elsewhere stop pulling its box and centroid (on the billiard clips this took the
 * cue and eight balls from IoU 0.002 to 0.28..0.82). `size-ratio` (default 3) then
 * refuses a look-alike that enters the window: a blob whose mass or box is far from
 * the object's recent size leaves the object absent (`lost` in the message) until a
 * blob of its size reappears.
 *
 * Trajectories and search windows restart on a flushing seek, a new segment, a
 * DISCONT buffer and a caps change. Changing `color-space`, `hue-weight`, `min-mass`,
 * `trajectory-length`, `search-window` or `size-ratio` recreates the tracker
 * (trajectories restart); `objects`, `objects-file`, `tolerance` and `draw` apply on
 * the next frame.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=game1_clip1.mp4 ! decodebin ! videoconvert ! \
 *     video/x-raw,format=RGBA ! moctracker objects-file=balls.txt draw=boxes+trajectories+labels ! \
 *     videoconvert ! autovideosink
 * ]| Billiard balls with their boxes, trajectories and names (cv-moct calibrate
 * writes balls.txt from a frame and boxes).
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=NV12 ! cudaupload ! \
 *     "video/x-raw(memory:CUDAMemory)" ! \
 *     moctracker objects="red:#c02020:60;green:#20a040:60" color-space=hsv draw=all post-messages=true ! \
 *     cudadownload ! videoconvert ! autovideosink
 * ]| A camera on the GPU: two coloured markers tracked in CUDA memory.
 */
#include "gstcvfilter.h"
#include "gstcvenum.h"
#include "gstcvobjects.h"
#include "gstcvanalytics.h"

#include <cudacore/cc_moct.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (moctracker_debug);
#define GST_CAT_DEFAULT moctracker_debug

#define GST_TYPE_CV_MOCT_SPACE (gst_cv_moct_space_get_type ())
GST_CV_DEFINE_ENUM (gst_cv_moct_space_get_type, "GstCvMoctSpace",
    { CC_MOCT_SPACE_RGB, "Euclidean distance in 8-bit RGB", "rgb" },
    { CC_MOCT_SPACE_HSV, "HSV with hue counted hue-weight times (same units as RGB)", "hsv" },
    { CC_MOCT_SPACE_LAB, "CIE76 delta E in L*a*b*", "lab" })

#define GST_TYPE_CV_MOCT_DRAW (gst_cv_moct_draw_get_type ())
static GType
gst_cv_moct_draw_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    { CC_MOCT_DRAW_MASK, "Tint the classified pixels with their object's colour", "mask" },
    { CC_MOCT_DRAW_TRAJECTORIES, "Trajectory lines", "trajectories" },
    { CC_MOCT_DRAW_BOXES, "Bounding boxes", "boxes" },
    { CC_MOCT_DRAW_CENTROIDS, "Centroid crosses", "centroids" },
    { CC_MOCT_DRAW_LABELS, "Object names beside their boxes (5x7 px font)", "labels" },
    { CC_MOCT_DRAW_ALL, "Everything", "all" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstCvMoctDraw", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

enum {
  PROP_0, PROP_OBJECTS, PROP_OBJECTS_FILE, PROP_COLOR_SPACE, PROP_TOLERANCE, PROP_HUE_WEIGHT,
  PROP_MIN_MASS, PROP_TRAJECTORY_LENGTH, PROP_DRAW, PROP_POST_MESSAGES, PROP_SEARCH_WINDOW,
  PROP_SIZE_RATIO,
};

#define DEFAULT_TOLERANCE 40.0

struct _GstMoctTracker {
  GstCvFilter parent;
  /* properties (object lock) */
  GstCvObjectEntry *entries;
  gint n_entries;
  gchar *objects_file;
  gboolean objects_changed;
  gboolean started;            /* between start and stop: refusals are bus warnings */
  gchar *refused;              /* a list refused before the start: the start fails */
  gboolean refused_open;       /* ... because its file could not be opened or read */
  cc_moct_params params;
  gdouble tolerance;
  guint draw;
  gboolean post_messages;
  /* streaming (setup/process) */
  cc_moct *moct;
  cc_moct_object *table;       /* the list given to the core (names for metas) */
  gint n_table;
  cc_moct_result *results;
  GstCvTracks *tracks;         /* analytics mtds: first / last seen per object */
};

G_DECLARE_FINAL_TYPE (GstMoctTracker, gst_moct_tracker, GST, MOCT_TRACKER, GstCvFilter)
/* The GType is named GstMoctracker: GStreamer names instances after it (lowercase,
 * without "Gst"), so they are moctracker0, moctracker1, ... (not "mocttracker0") */
typedef GstMoctTracker GstMoctracker;
typedef GstMoctTrackerClass GstMoctrackerClass;
G_DEFINE_TYPE (GstMoctracker, gst_moct_tracker, GST_TYPE_CV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (moctracker, "moctracker", GST_RANK_NONE,
    gst_moct_tracker_get_type ());

static void
gst_moct_tracker_teardown (GstCvFilter * filter)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (filter);
  cc_moct_destroy (self->moct);
  self->moct = NULL;
  g_clear_pointer (&self->table, g_free);
  g_clear_pointer (&self->results, g_free);
  self->n_table = 0;
}

static void
gst_moct_tracker_reset (GstCvFilter * filter)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (filter);
  if (self->moct)
    cc_moct_reset (self->moct, gst_cv_filter_get_stream (GST_CV_FILTER (self)));
  gst_cv_tracks_reset (self->tracks);
}

/* Gives the core the current list (object lock not held). */
static gboolean
apply_objects (GstMoctTracker * self)
{
  GST_OBJECT_LOCK (self);
  gint n = self->n_entries;
  cc_moct_object *table = g_new0 (cc_moct_object, MAX (n, 1));
  for (gint i = 0; i < n; i++) {
    table[i] = self->entries[i].object;
    if (table[i].tolerance <= 0)
      table[i].tolerance = (float) self->tolerance;
  }
  self->objects_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  cc_status st = cc_moct_set_objects (self->moct, table, n);
  if (st != CC_SUCCESS) {
    g_free (table);
    GST_CV_FILTER_CORE_ERROR (self, st, "setting the object list");
    return FALSE;
  }
  if (n != self->n_table || (n > 0 && memcmp (table, self->table, n * sizeof *table))) {
    /* ids may mean other objects now: their trajectories restart */
    cc_moct_reset (self->moct, gst_cv_filter_get_stream (GST_CV_FILTER (self)));
  }
  g_free (self->table);
  self->table = table;
  self->n_table = n;
  g_free (self->results);
  self->results = g_new0 (cc_moct_result, MAX (n, 1));
  GST_INFO_OBJECT (self, "%d object(s)", n);
  return TRUE;
}

static gboolean
gst_moct_tracker_setup (GstCvFilter * filter, const GstVideoInfo * info, cc_context * ctx)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (filter);
  GST_OBJECT_LOCK (self);
  cc_moct_params params = self->params;
  GST_OBJECT_UNLOCK (self);
  cc_status st = cc_moct_create (ctx, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), &params, &self->moct);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (self, st, "creating the tracker");
    return FALSE;
  }
  g_clear_pointer (&self->table, g_free);
  self->n_table = 0;
  gst_cv_tracks_reset (self->tracks);
  return apply_objects (self);
}

static gboolean
gst_moct_tracker_writes_frame (GstCvFilter * filter)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (filter);
  GST_OBJECT_LOCK (self);
  gboolean writes = self->draw != 0;
  GST_OBJECT_UNLOCK (self);
  return writes;
}

static void
add_roi_metas (GstMoctTracker * self, GstBuffer * buffer)
{
  for (gint i = 0; i < self->n_table; i++) {
    const cc_moct_result *r = &self->results[i];
    if (!r->present)
      continue;
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buffer,
        self->table[i].name, r->x0, r->y0, r->x1 - r->x0 + 1, r->y1 - r->y0 + 1);
    m->id = i;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("moctracker",
            "centroid-x", G_TYPE_DOUBLE, r->cx, "centroid-y", G_TYPE_DOUBLE, r->cy,
            "mass", G_TYPE_INT64, r->mass, "orientation", G_TYPE_DOUBLE, r->orientation,
            "major-axis", G_TYPE_DOUBLE, r->major_axis,
            "minor-axis", G_TYPE_DOUBLE, r->minor_axis,
            "velocity-x", G_TYPE_DOUBLE, r->vx, "velocity-y", G_TYPE_DOUBLE, r->vy,
            "velocity-valid", G_TYPE_BOOLEAN, r->velocity_valid, NULL));
  }
}

static void
post_message (GstMoctTracker * self, GstBuffer * buffer)
{
  GValue list = G_VALUE_INIT;
  g_value_init (&list, GST_TYPE_LIST);
  for (gint i = 0; i < self->n_table; i++) {
    const cc_moct_result *r = &self->results[i];
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    GstStructure *o = gst_structure_new ("object", "name", G_TYPE_STRING, self->table[i].name,
        "id", G_TYPE_INT, i, "present", G_TYPE_BOOLEAN, r->present,
        "lost", G_TYPE_BOOLEAN, r->lost,
        "centroid-x", G_TYPE_DOUBLE, r->cx, "centroid-y", G_TYPE_DOUBLE, r->cy,
        "x", G_TYPE_INT, r->mass ? r->x0 : 0, "y", G_TYPE_INT, r->mass ? r->y0 : 0,
        "width", G_TYPE_INT, r->mass ? r->x1 - r->x0 + 1 : 0,
        "height", G_TYPE_INT, r->mass ? r->y1 - r->y0 + 1 : 0,
        "mass", G_TYPE_INT64, r->mass, NULL);
    g_value_take_boxed (&v, o);
    gst_value_list_append_and_take_value (&list, &v);
  }
  GstStructure *s = gst_structure_new ("moctracker",
      "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (buffer),
      "frame", G_TYPE_UINT64, gst_cv_filter_get_frame_number (GST_CV_FILTER (self)), NULL);
  gst_structure_take_value (s, "objects", &list);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

static cc_status
gst_moct_tracker_process (GstCvFilter * filter, GstBuffer * buffer, cc_image * frame,
    cc_stream stream, const gchar ** what)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (filter);
  GST_OBJECT_LOCK (self);
  gboolean changed = self->objects_changed;
  guint draw = self->draw;
  gboolean post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  if (changed && !apply_objects (self)) {
    *what = NULL;   /* posted */
    return CC_ERROR_INVALID_ARGUMENT;
  }

  /* the results come back to the host (cc_moct_compute waits for them): the metas and
   * the message are final here; the drawing is handed off by the base */
  *what = "tracking";
  cc_status st = cc_moct_compute (self->moct, stream, frame, self->results);
  if (st == CC_SUCCESS && draw)
    st = cc_moct_draw (self->moct, stream, frame, draw);
  if (st != CC_SUCCESS)
    return st;
  add_roi_metas (self, buffer);
  if (!gst_cv_tracks_attach (self->tracks, &GST_BASE_TRANSFORM (filter)->segment, buffer,
          self->table, self->results, self->n_table))
    GST_WARNING_OBJECT (self, "could not attach the analytics mtds");
  if (post)
    post_message (self, buffer);
  return CC_SUCCESS;
}

/* ------------------------------------------------------------- properties */

/* Sets the list from the `objects` text or the `objects-file` path. A refusal keeps
 * the previous list and is a g_warning; before the element starts, the start then
 * fails with an element error (the pipeline would track the wrong objects); while it
 * runs, a warning message is posted on the bus too. Object lock not held (messages
 * are posted). */
static void
set_objects (GstMoctTracker * self, const gchar * text, gboolean from_file)
{
  GError *err = NULL;
  gint n = 0;
  if (from_file && (!text || !*text)) {
    GST_OBJECT_LOCK (self);
    g_clear_pointer (&self->objects_file, g_free);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  GstCvObjectEntry *entries = from_file ? gst_cv_objects_read_file (text, &n, &err)
      : gst_cv_objects_parse (text, FALSE, &n, &err);
  gchar *what = from_file ? g_strdup_printf ("objects-file \"%s\"", text)
      : g_strdup ("objects");
  GST_OBJECT_LOCK (self);
  gboolean running = self->started;
  if (entries) {
    g_free (self->entries);
    self->entries = entries;
    self->n_entries = n;
    self->objects_changed = TRUE;
    g_clear_pointer (&self->refused, g_free);
    if (from_file) {
      g_free (self->objects_file);
      self->objects_file = g_strdup (text);
    }
  } else if (!running) {
    g_free (self->refused);
    self->refused = g_strdup_printf ("%s refused: %s", what, err->message);
    self->refused_open = from_file && err->code == CC_ERROR_IO;
  }
  GST_OBJECT_UNLOCK (self);
  if (!entries) {
    /* GLib's way for an invalid property value, as the other elements' properties */
    g_warning ("moctracker: %s refused: %s; the previous list is kept", what, err->message);
    if (running)
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s refused: %s; the previous list is "
              "kept", what, err->message), (NULL));
  }
  g_free (what);
  g_clear_error (&err);
}

/* An object list refused before the start fails it with an element error. */
static gboolean
gst_moct_tracker_start (GstBaseTransform * trans)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (trans);
  GST_OBJECT_LOCK (self);
  gchar *refused = g_strdup (self->refused);   /* kept: every start fails until a list is taken */
  gboolean open = self->refused_open;
  self->started = refused == NULL;
  GST_OBJECT_UNLOCK (self);
  if (refused) {
    if (open)
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", refused), (NULL));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", refused), (NULL));
    g_free (refused);
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_moct_tracker_parent_class)->start (trans);
}

static gboolean
gst_moct_tracker_stop (GstBaseTransform * trans)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (trans);
  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  GST_OBJECT_UNLOCK (self);
  return GST_BASE_TRANSFORM_CLASS (gst_moct_tracker_parent_class)->stop (trans);
}

static void
gst_moct_tracker_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (object);
  gboolean resetup = FALSE;
  if (prop_id == PROP_OBJECTS || prop_id == PROP_OBJECTS_FILE) {
    set_objects (self, g_value_get_string (value), prop_id == PROP_OBJECTS_FILE);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COLOR_SPACE:
      self->params.space = g_value_get_enum (value);
      resetup = TRUE;
      break;
    case PROP_TOLERANCE:
      self->tolerance = g_value_get_double (value);
      self->objects_changed = TRUE;
      break;
    case PROP_HUE_WEIGHT:
      self->params.hue_weight = (float) g_value_get_double (value);
      resetup = TRUE;
      break;
    case PROP_MIN_MASS:
      self->params.min_mass = g_value_get_int (value);
      resetup = TRUE;
      break;
    case PROP_TRAJECTORY_LENGTH:
      self->params.history = g_value_get_int (value);
      resetup = TRUE;
      break;
    case PROP_DRAW: self->draw = g_value_get_flags (value); break;
    case PROP_POST_MESSAGES: self->post_messages = g_value_get_boolean (value); break;
    case PROP_SEARCH_WINDOW:
      self->params.window = g_value_get_int (value);
      resetup = TRUE;
      break;
    case PROP_SIZE_RATIO: {
      gdouble v = g_value_get_double (value);
      if (v > 0.0 && v < 1.0) {
        GST_WARNING_OBJECT (self, "size-ratio %g is below 1: 1 is used", v);
        v = 1.0;
      }
      self->params.size_ratio = (float) v;
      resetup = TRUE;
      break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
  if (resetup)
    gst_cv_filter_request_setup (GST_CV_FILTER (self));
}

static void
gst_moct_tracker_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OBJECTS:
      g_value_take_string (value, gst_cv_objects_to_string (self->entries, self->n_entries));
      break;
    case PROP_OBJECTS_FILE: g_value_set_string (value, self->objects_file); break;
    case PROP_COLOR_SPACE: g_value_set_enum (value, self->params.space); break;
    case PROP_TOLERANCE: g_value_set_double (value, self->tolerance); break;
    case PROP_HUE_WEIGHT: g_value_set_double (value, self->params.hue_weight); break;
    case PROP_MIN_MASS: g_value_set_int (value, self->params.min_mass); break;
    case PROP_TRAJECTORY_LENGTH: g_value_set_int (value, self->params.history); break;
    case PROP_DRAW: g_value_set_flags (value, self->draw); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, self->post_messages); break;
    case PROP_SEARCH_WINDOW: g_value_set_int (value, self->params.window); break;
    case PROP_SIZE_RATIO: g_value_set_double (value, self->params.size_ratio); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_moct_tracker_finalize (GObject * object)
{
  GstMoctTracker *self = GST_MOCT_TRACKER (object);
  g_free (self->entries);
  g_free (self->objects_file);
  g_free (self->refused);
  gst_cv_tracks_free (self->tracks);
  G_OBJECT_CLASS (gst_moct_tracker_parent_class)->finalize (object);
}

static void
gst_moct_tracker_class_init (GstMoctTrackerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCvFilterClass *filter_class = GST_CV_FILTER_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  cc_moct_params d;
  cc_moct_params_default (&d);

  GST_DEBUG_CATEGORY_INIT (moctracker_debug, "moctracker", 0, "multi-object chromatic tracking");
  gobject_class->set_property = gst_moct_tracker_set_property;
  gobject_class->get_property = gst_moct_tracker_get_property;
  gobject_class->finalize = gst_moct_tracker_finalize;

  g_object_class_install_property (gobject_class, PROP_OBJECTS,
      g_param_spec_string ("objects", "Objects",
          "name:#rrggbb[:tolerance[:space]] entries separated by ';' (up to 1024; names "
          "unique). An invalid list is refused and the previous kept: set before the start, "
          "the start fails with an error; while running, a warning message on the bus",
          "", rw));
  g_object_class_install_property (gobject_class, PROP_OBJECTS_FILE,
      g_param_spec_string ("objects-file", "Objects file",
          "A file with one object a line: name #rrggbb [tolerance [space]] ('# ' starts "
          "a comment); replaces the list. A regular file of at most 1 MiB; refused as "
          "`objects` is", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_COLOR_SPACE,
      g_param_spec_enum ("color-space", "Colour space",
          "Where colours are compared, for objects that name no space",
          GST_TYPE_CV_MOCT_SPACE, d.space, rw));
  g_object_class_install_property (gobject_class, PROP_TOLERANCE,
      g_param_spec_double ("tolerance", "Tolerance",
          "How far a pixel's colour may be from an object's and still count as it (for "
          "objects that give no tolerance): raise when the lighting varies, lower when "
          "other things have similar colours", 0.1, 1000.0,
          DEFAULT_TOLERANCE, rw));
  g_object_class_install_property (gobject_class, PROP_HUE_WEIGHT,
      g_param_spec_double ("hue-weight", "Hue weight",
          "color-space=hsv: how much hue differences count against saturation and value: "
          "raise to tell objects apart by hue under changing light", 0.0, 100.0,
          d.hue_weight, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_MASS,
      g_param_spec_int ("min-mass", "Minimum mass",
          "Pixels an object needs to be present", 1, G_MAXINT, d.min_mass, rw));
  g_object_class_install_property (gobject_class, PROP_TRAJECTORY_LENGTH,
      g_param_spec_int ("trajectory-length", "Trajectory length",
          "Frames of history kept (and drawn) per object", 2, CC_MOCT_HISTORY_MAX,
          d.history, rw));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_flags ("draw", "Draw", "What to draw into the frame: mask, "
          "trajectories, boxes, centroids, labels (names beside the boxes) or all",
          GST_TYPE_CV_MOCT_DRAW, 0, rw));
  g_object_class_install_property (gobject_class, PROP_SEARCH_WINDOW,
      g_param_spec_int ("search-window", "Search window",
          "0: every object searched in the whole frame. N > 0: an object seen in the last "
          "frame only takes pixels within +-N px of where its velocity puts it (the square "
          "grows by N a frame while it is missing), so stray pixels of its colour elsewhere "
          "do not move its box", 0, 4096, 0, rw));
  g_object_class_install_property (gobject_class, PROP_SIZE_RATIO,
      g_param_spec_double ("size-ratio", "Size ratio",
          "With search-window: a blob whose mass differs from the object's recent mass by "
          "more than this factor, or whose box grows past this factor of its recent size, "
          "is a look-alike: the object is reported lost (absent) until a blob of its size "
          "reappears in its window. 0: off (values in 0..1 act as 1)", 0.0, 100.0,
          d.size_ratio, rw));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a `moctracker` element message per frame", FALSE, rw));

  gst_element_class_set_static_metadata (element_class, "Multi-object chromatic tracker",
      "Filter/Analyzer/Video",
      "Tracks several objects, each of a distinct colour (objects or objects-file), in "
      "every frame: each present object gets a GstVideoRegionOfInterestMeta (name, box, "
      "centroid, orientation, velocity), optionally a moctracker element message "
      "(post-messages) and drawing (draw: boxes, centroids, trajectories, mask, labels). "
      "One pass over the pixels whatever the number of objects; CUDA memory stays on the "
      "GPU; active-backend says where it runs (docs/moctracker.md)",
      "cudavision developers");
  gst_cv_filter_class_add_pad_templates_full (filter_class, GST_CV_COLOR_FORMATS,
      GST_CV_CUDA_FORMATS);

  filter_class->setup = gst_moct_tracker_setup;
  filter_class->teardown = gst_moct_tracker_teardown;
  filter_class->writes_frame = gst_moct_tracker_writes_frame;
  filter_class->process = gst_moct_tracker_process;
  filter_class->reset = gst_moct_tracker_reset;
  GST_BASE_TRANSFORM_CLASS (klass)->start = gst_moct_tracker_start;
  GST_BASE_TRANSFORM_CLASS (klass)->stop = gst_moct_tracker_stop;
  gst_type_mark_as_plugin_api (GST_TYPE_CV_MOCT_SPACE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CV_MOCT_DRAW, 0);
}

static void
gst_moct_tracker_init (GstMoctTracker * self)
{
  cc_moct_params_default (&self->params);
  self->tolerance = DEFAULT_TOLERANCE;
  self->entries = g_new0 (GstCvObjectEntry, 1);
  self->tracks = gst_cv_tracks_new ();
}
