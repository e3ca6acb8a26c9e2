/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a compositing element puts behind its foreground, as one group of four
 * properties: `background` (auto: the picture when background-location is set, else
 * the colour; color; image; blur), `background-location` (a PNG or JPEG, scaled to the
 * frame), `background-color` (0xRRGGBB) and `blur-radius` (the frame under a box
 * blur). Their values live in the element's settings (a GstCvBackgroundSettings under
 * the object lock, set and read through gstcvprops); the picture is read when the
 * element starts and converted to each setup's frames (GstCvBackground). */
#ifndef GST_CV_BACKGROUND_H
#define GST_CV_BACKGROUND_H

#include "gstcvenum.h"
#include "gstcvfilter.h"
#include "gstcvprops.h"

G_BEGIN_DECLS

typedef enum {
  GST_CV_BACKGROUND_AUTO = 0,
  GST_CV_BACKGROUND_COLOR,
  GST_CV_BACKGROUND_IMAGE,
  GST_CV_BACKGROUND_BLUR
} GstCvBackgroundKind;

/* Defines `static GType fn (void)`: the `background` property's enum, registered as
 * `name` (the element's own type name). */
#define GST_CV_DEFINE_BACKGROUND_ENUM(fn, name)                                       \
  GST_CV_DEFINE_ENUM (fn, name,                                                       \
      { GST_CV_BACKGROUND_AUTO, "background-location when set, else background-color", \
        "auto" },                                                                     \
      { GST_CV_BACKGROUND_COLOR, "A solid colour (background-color)", "color" },      \
      { GST_CV_BACKGROUND_IMAGE, "The image of background-location, scaled to the frame", \
        "image" },                                                                    \
      { GST_CV_BACKGROUND_BLUR, "The frame under a box blur of blur-radius", "blur" })

/* The group's property values (the element's object lock). */
typedef struct {
  GstCvBackgroundKind kind;
  gchar *location;            /* NULL: unset */
  guint color;                /* 0xRRGGBB */
  gint blur_radius;           /* px, 1..256 */
} GstCvBackgroundSettings;

/* The group's four GstCvProp entries, ids first_id to first_id + 3, for the settings
 * struct that holds a GstCvBackgroundSettings at `offset`; enum_type: the
 * GST_CV_DEFINE_BACKGROUND_ENUM function; blurb: the `background` property's. Only
 * background-location is READY-only. */
#define GST_CV_BG_FIELD(offset, f) ((offset) + G_STRUCT_OFFSET (GstCvBackgroundSettings, f))
#define GST_CV_BACKGROUND_PROPS(first_id, offset, enum_type, blurb)                   \
  { (first_id), "background", "Background", (blurb), GST_CV_PROP_ENUM,               \
    GST_CV_BG_FIELD (offset, kind), 0, 0, (enum_type), TRUE },                        \
  { (first_id) + 1, "background-location", "Background location",                     \
    "PNG or JPEG behind the foreground (background=auto or image), scaled to the "    \
    "frame", GST_CV_PROP_STRING, GST_CV_BG_FIELD (offset, location), 0, 0, NULL, FALSE }, \
  { (first_id) + 2, "background-color", "Background colour",                          \
    "The solid background as 0xRRGGBB",                                               \
    GST_CV_PROP_UINT, GST_CV_BG_FIELD (offset, color), 0, 0xFFFFFF, NULL, TRUE },     \
  { (first_id) + 3, "blur-radius", "Blur radius",                                     \
    "Box blur radius in px of background=blur (YUV chroma: half)",                    \
    GST_CV_PROP_INT, GST_CV_BG_FIELD (offset, blur_radius), 1, 256, NULL, TRUE }

/* [out] s: the defaults: auto, no location, 0x00B140 (a chroma-key green), radius 15. */
void gst_cv_background_settings_init (GstCvBackgroundSettings * s);
/* Frees the location (finalize). */
void gst_cv_background_settings_clear (GstCvBackgroundSettings * s);

/* The group's pictures while the element runs; zero-initialised (the instance struct). */
typedef struct {
  cc_image picture;           /* host RGBX8 read at start, its own size; no planes: none */
  cc_image frame;             /* the picture at the frames' size and format, where the
                                 filter computes (setup to teardown) */
} GstCvBackground;

/* At start: background=image without background-location is RESOURCE NOT_FOUND; the
 * file of background-location is read (gst_cv_image_load_property). FALSE after
 * posting the error; no picture then. */
gboolean gst_cv_background_start (GstCvBackground * bg, GstElement * element);
/* At setup: the picture, if any, scaled and converted to the frames of `info`
 * (gst_cv_image_convert_to_frame). FALSE after posting the error. */
gboolean gst_cv_background_setup (GstCvBackground * bg, GstCvFilter * filter, cc_context * ctx,
    const GstVideoInfo * info);
/* At teardown: the converted picture freed (on the setup's ctx). */
void gst_cv_background_teardown (GstCvBackground * bg, cc_context * ctx);
/* At stop and finalize: the picture read at start freed. */
void gst_cv_background_stop (GstCvBackground * bg);
/* What goes behind for the settings `s`, as the core takes it: BLUR (the settings'
 * radius), IMAGE (auto or image with a picture: the converted one) or COLOR (the
 * settings' colour). */
cc_background gst_cv_background_get (const GstCvBackground * bg,
    const GstCvBackgroundSettings * s);

G_END_DECLS
#endif
