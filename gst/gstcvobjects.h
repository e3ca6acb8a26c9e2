/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The object lists of moctracker (its `objects` property and `objects-file`): a GLib
 * face on cudacore's parser (cudacore/cc_moct_objects.h says the syntax, the limits
 * and the messages), so that the element keeps GLib types and errors. */
#ifndef GST_CV_OBJECTS_H
#define GST_CV_OBJECTS_H

#include <glib.h>
#include <cudacore/cc_moct_objects.h>

G_BEGIN_DECLS

/* One object: tolerance <= 0 and space CC_MOCT_SPACE_PARAMS stand for the element's
 * `tolerance` and `color-space`. */
typedef struct {
  cc_moct_object object;
} GstCvObjectEntry;

/* The error domain of the functions below; the code is the cc_status
 * (CC_ERROR_IO: the file could not be opened or read). */
#define GST_CV_OBJECTS_ERROR (gst_cv_objects_error_quark ())
GQuark gst_cv_objects_error_quark (void);

/* Parses `text` (inline syntax, or file syntax when `file_syntax`). Returns the
 * entries (g_free) and their count in *n, or NULL with *error naming the offending
 * entry, or line of a file ("entry 3 (\"red\"): colour \"#ff00\" is not #rrggbb",
 * "line 7 (...): ..."). An empty text gives an empty list (non-NULL, *n = 0). */
GstCvObjectEntry *gst_cv_objects_parse (const gchar * text, gboolean file_syntax, gint * n,
    GError ** error);

/* Reads an objects file (cc_moct_objects_read: regular files of at most
 * CC_MOCT_OBJECTS_FILE_MAX bytes), as gst_cv_objects_parse. */
GstCvObjectEntry *gst_cv_objects_read_file (const gchar * path, gint * n, GError ** error);

/* The list back as an inline string (g_free), for the property's getter. */
gchar *gst_cv_objects_to_string (const GstCvObjectEntry * entries, gint n);

G_END_DECLS
#endif
