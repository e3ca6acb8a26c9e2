/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moctracker's object lists: cudacore's parser with GLib errors (gstcvobjects.h). */
#include "gstcvobjects.h"
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (gst-cv-objects-error-quark, gst_cv_objects_error)

/* The core's list (malloc'd) as GstCvObjectEntry (g_malloc'd), or the error. */
static GstCvObjectEntry *
to_entries (cc_status st, cc_moct_object * objects, int count, gint * n, GError ** error)
{
  if (st != CC_SUCCESS) {
    g_set_error_literal (error, GST_CV_OBJECTS_ERROR, st, cc_last_error ());
    return NULL;
  }
  GstCvObjectEntry *e = g_new0 (GstCvObjectEntry, MAX (count, 1));
  for (int i = 0; i < count; i++)
    e[i].object = objects[i];
  free (objects);
  *n = count;
  return e;
}

GstCvObjectEntry *
gst_cv_objects_parse (const gchar * text, gboolean file_syntax, gint * n, GError ** error)
{
  cc_moct_object *objects;
  int count;
  *n = 0;
  cc_status st = cc_moct_objects_parse (text, file_syntax ? CC_MOCT_OBJECTS_FILE
      : CC_MOCT_OBJECTS_INLINE, &objects, &count);
  return to_entries (st, objects, count, n, error);
}

GstCvObjectEntry *
gst_cv_objects_read_file (const gchar * path, gint * n, GError ** error)
{
  cc_moct_object *objects;
  int count;
  *n = 0;
  cc_status st = cc_moct_objects_read (path, &objects, &count);
  return to_entries (st, objects, count, n, error);
}

static const gchar *space_names[] = { "", "rgb", "hsv", "lab" };   /* by cc_moct_space */

gchar *
gst_cv_objects_to_string (const GstCvObjectEntry * entries, gint n)
{
  GString *s = g_string_new (NULL);
  for (gint i = 0; i < n; i++) {
    const cc_moct_object *o = &entries[i].object;
    g_string_append_printf (s, "%s%s:#%02x%02x%02x", i ? ";" : "", o->name, o->r, o->g, o->b);
    if (o->tolerance > 0) {
      gchar num[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append_printf (s, ":%s", g_ascii_formatd (num, sizeof num, "%g", o->tolerance));
    } else if (o->space != CC_MOCT_SPACE_PARAMS) {
      g_string_append_c (s, ':');
    }
    if (o->space != CC_MOCT_SPACE_PARAMS)
      g_string_append_printf (s, ":%s", space_names[o->space]);
  }
  return g_string_free (s, FALSE);
}
