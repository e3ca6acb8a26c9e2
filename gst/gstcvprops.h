/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Properties described by a table: each value lives at an offset of a settings struct
 * that the element keeps under its object lock, so that one table installs the
 * properties (defaults read from a settings struct that holds them) and the class's
 * set_property and get_property, one lookup, set or get any of them. */
#ifndef GST_CV_PROPS_H
#define GST_CV_PROPS_H

#include <gst/gst.h>
#include <cudacore/cc_core.h>

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
  gboolean resetup;           /* a change asks a GstCvFilter for a new setup
                                 (gst_cv_filter_request_setup) */
} GstCvProp;

/* Installs the n properties in table order (G_PARAM_READWRITE,
 * G_PARAM_STATIC_STRINGS and the mutability), each default read at its offset in
 * `defaults`, the ENUM types marked as plugin API; and the class's set_property and
 * get_property: the entry of the property, its value stored at its offset in the
 * instance's settings struct (at `settings_offset` of the instance; a STRING's old
 * value freed, a copy kept) or read from there, under the object lock. `props` is
 * static (the class keeps it). */
void gst_cv_props_class_install (GObjectClass * klass, const GstCvProp * props, guint n,
    gconstpointer defaults, gsize settings_offset);

/* Fills props[0 .. n) from a cudacore parameter table (cc_<module>_param_table, n
 * entries): ids first_id on, INT or FLOAT at `offset` (of the parameter struct in the
 * settings struct) plus the field's, the table's names, nicks, blurbs and ranges,
 * mutable while playing. */
void gst_cv_props_from_core (GstCvProp * props, guint n, guint first_id, gsize offset,
    const cc_param_info * table);

G_END_DECLS
#endif
