/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The object lists of moctracker: its `objects` property and `objects-file`.
 *
 *   inline:  name:#rrggbb[:tolerance[:space]] entries separated by ';'
 *            "cue:#f0f0e8:40;eight:#101010:30;red:#c01010::hsv"
 *   file:    one object a line, fields separated by white space or ':'
 *            name #rrggbb [tolerance [space]]
 *            blank lines and lines whose first character is '#' followed by a space
 *            or the end of the line are comments.
 *
 * A name is 1..63 bytes without white space, ':' or ';', unique in the list; a colour
 * is '#' and six hex digits; a tolerance a number > 0 (empty or absent: the element's
 * `tolerance`); a space one of rgb, hsv, lab (absent: the element's `color-space`).
 * At most CC_MOCT_MAX_OBJECTS entries. The parser is plain GLib so that tests and
 * fuzzers call it directly. */
#ifndef GST_CV_OBJECTS_H
#define GST_CV_OBJECTS_H

#include <glib.h>
#include <cudacore/cc_moct.h>

G_BEGIN_DECLS

/* One object: tolerance <= 0 and space CC_MOCT_SPACE_PARAMS stand for the element's
 * `tolerance` and `color-space`. */
typedef struct {
  cc_moct_object object;
} GstCvObjectEntry;

/* Parses `text` (inline syntax, or file syntax when `file_syntax`). Returns the
 * entries (g_free) and their count in *n, or NULL with *error naming the offending
 * entry, or line of a file ("entry 3 (\"red\"): colour \"#ff00\" is not #rrggbb",
 * "line 7 (...): ..."). An empty text gives an empty list (non-NULL, *n = 0). */
GstCvObjectEntry *gst_cv_objects_parse (const gchar * text, gboolean file_syntax, gint * n,
    GError ** error);

/* The list back as an inline string (g_free), for the property's getter. */
gchar *gst_cv_objects_to_string (const GstCvObjectEntry * entries, gint n);

G_END_DECLS
#endif
