/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Properties described by a table: each value lives at an offset of a settings struct
 * that the element keeps under its object lock, so that one table installs the
 * properties (defaults read from a settings struct that holds them) and one lookup
 * sets or gets any of them. */
#ifndef GST_CV_PROPS_H
#define GST_CV_PROPS_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum {
  GST_CV_PROP_INT,      /* gint */
  GST_CV_PROP_UINT,     /* guint */
  GST_CV_PROP_FLOAT,    /* gfloat */
  GST_CV_PROP_ENUM,     /* an int-sized C enum of the GType enum_type () */
  GST_CV_PROP_STRING    /* gchar *, owned by the settings (NULL: unset) */
} GstCvPropType;

typedef struct {
  guint id;
  const gchar *name, *nick, *blurb;
  GstCvPropType type;
  gsize offset;               /* of the value in the settings struct */
  gdouble min, max;           /* INT, UINT, FLOAT: the range */
  GType (*enum_type) (void);  /* ENUM */
  gboolean playing;           /* GST_PARAM_MUTABLE_PLAYING, else GST_PARAM_MUTABLE_READY */
} GstCvProp;

/* Installs the n properties in table order (G_PARAM_READWRITE,
 * G_PARAM_STATIC_STRINGS and the mutability), each default read at its offset in
 * `defaults`. */
void gst_cv_props_install (GObjectClass * klass, const GstCvProp * props, guint n,
    gconstpointer defaults);
/* GObject's set_property and get_property through the table: the entry of prop_id
 * (none: GObject's invalid-property warning, FALSE), its value stored at its offset in
 * `settings` (a STRING's old value freed, a copy kept) or read from there, under the
 * object lock of `object` (a GstObject). */
gboolean gst_cv_props_set_property (GObject * object, const GstCvProp * props, guint n,
    gpointer settings, guint prop_id, const GValue * value, GParamSpec * pspec);
gboolean gst_cv_props_get_property (GObject * object, const GstCvProp * props, guint n,
    gconstpointer settings, guint prop_id, GValue * value, GParamSpec * pspec);

G_END_DECLS
#endif
