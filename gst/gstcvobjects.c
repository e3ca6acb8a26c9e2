/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moctracker's object lists: see gstcvobjects.h for the syntax. */
#include "gstcvobjects.h"
#include <stdlib.h>
#include <string.h>

#define OBJ_ERROR g_quark_from_static_string ("gst-cv-objects")

static gboolean
parse_colour (const gchar * s, cc_moct_object * o)
{
  if (strlen (s) != 7 || s[0] != '#')
    return FALSE;
  for (int i = 1; i < 7; i++)
    if (!g_ascii_isxdigit (s[i]))
      return FALSE;
  guint v = (guint) strtoul (s + 1, NULL, 16);
  o->r = (v >> 16) & 0xff;
  o->g = (v >> 8) & 0xff;
  o->b = v & 0xff;
  return TRUE;
}

/* A cc_moct_space, or -1 for an unknown name. */
static gint
parse_space (const gchar * s)
{
  if (!g_ascii_strcasecmp (s, "rgb"))
    return CC_MOCT_SPACE_RGB;
  if (!g_ascii_strcasecmp (s, "hsv"))
    return CC_MOCT_SPACE_HSV;
  if (!g_ascii_strcasecmp (s, "lab"))
    return CC_MOCT_SPACE_LAB;
  return -1;
}

static const gchar *space_names[] = { "", "rgb", "hsv", "lab" };   /* by cc_moct_space */

/* One entry from its fields (name, colour, [tolerance], [space]). */
static gboolean
parse_entry (gchar ** fields, guint nf, const gchar * what, guint index, GstCvObjectEntry * e,
    GError ** error)
{
  const gchar *name = nf > 0 ? fields[0] : "";
#define FAIL(...) do { \
    gchar *why_ = g_strdup_printf (__VA_ARGS__); \
    g_set_error (error, OBJ_ERROR, 1, "%s %u (\"%s\"): %s", what, index, name, why_); \
    g_free (why_); \
    return FALSE; } while (0)
  memset (e, 0, sizeof *e);   /* space CC_MOCT_SPACE_PARAMS, tolerance 0: defaults */
  if (nf < 2 || nf > 4)
    FAIL ("want name, colour, [tolerance], [space]; got %u field(s)", nf);
  gsize len = strlen (name);
  if (len == 0 || len >= CC_MOCT_NAME_MAX)
    FAIL ("a name is 1..%d bytes", CC_MOCT_NAME_MAX - 1);
  if (!g_utf8_validate (name, -1, NULL))
    FAIL ("the name is not UTF-8");
  /* the inline form separates with these: a name holding one would not read back
   * from the property's getter (the file syntax let ';' through) */
  for (const gchar * c = name; *c; c++)
    if (g_ascii_isspace (*c) || *c == ':' || *c == ';')
      FAIL ("a name has no white space, ':' or ';'");
  memcpy (e->object.name, name, len + 1);
  if (!parse_colour (fields[1], &e->object))
    FAIL ("colour \"%s\" is not #rrggbb", fields[1]);
  if (nf > 2 && fields[2][0]) {
    gchar *end;
    gdouble t = g_ascii_strtod (fields[2], &end);
    if (*end || end == fields[2] || !(t > 0.0 && t <= 1000.0))
      FAIL ("tolerance \"%s\" is not a number in (0, 1000]", fields[2]);
    e->object.tolerance = (gfloat) t;
  }
  if (nf > 3) {
    gint space = parse_space (fields[3]);
    if (space < 0)
      FAIL ("colour space \"%s\" is not rgb, hsv or lab", fields[3]);
    e->object.space = (cc_moct_space) space;
  }
  return TRUE;
#undef FAIL
}

/* Splits one file line into fields at white space and ':'. */
static gchar **
line_fields (const gchar * line, guint * nf)
{
  GPtrArray *a = g_ptr_array_new ();
  const gchar *p = line;
  while (*p) {
    while (*p && (g_ascii_isspace (*p) || *p == ':'))
      p++;
    const gchar *start = p;
    while (*p && !g_ascii_isspace (*p) && *p != ':')
      p++;
    if (p > start)
      g_ptr_array_add (a, g_strndup (start, p - start));
  }
  *nf = a->len;
  g_ptr_array_add (a, NULL);
  return (gchar **) g_ptr_array_free (a, FALSE);
}

GstCvObjectEntry *
gst_cv_objects_parse (const gchar * text, gboolean file_syntax, gint * n, GError ** error)
{
  *n = 0;
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GstCvObjectEntry));
  gchar **items = g_strsplit (text ? text : "", file_syntax ? "\n" : ";", -1);
  gboolean ok = TRUE;
  guint index = 0;
  /* errors name the entry (inline) or the line (file) */
  const gchar *what = file_syntax ? "line" : "entry";
  for (guint i = 0; ok && items[i]; i++) {
    guint where = file_syntax ? i + 1 : index + 1;
    gchar *item = g_strstrip (items[i]);
    if (!*item)
      continue;
    if (file_syntax && item[0] == '#' && (item[1] == '\0' || g_ascii_isspace (item[1])))
      continue;
    if (out->len >= CC_MOCT_MAX_OBJECTS) {
      g_set_error (error, OBJ_ERROR, 2, "%s %u: more than %d objects", what, where,
          CC_MOCT_MAX_OBJECTS);
      ok = FALSE;
      break;
    }
    gchar **fields;
    guint nf;
    if (file_syntax) {
      fields = line_fields (item, &nf);
    } else {
      fields = g_strsplit (item, ":", -1);
      nf = g_strv_length (fields);
      for (guint f = 0; f < nf; f++)
        g_strstrip (fields[f]);
    }
    GstCvObjectEntry e;
    ok = parse_entry (fields, nf, what, where, &e, error);
    g_strfreev (fields);
    for (guint j = 0; ok && j < out->len; j++)
      if (!strcmp (g_array_index (out, GstCvObjectEntry, j).object.name, e.object.name)) {
        g_set_error (error, OBJ_ERROR, 3, "%s %u (\"%s\"): the name is used by object %u",
            what, where, e.object.name, j + 1);
        ok = FALSE;
      }
    if (ok)
      g_array_append_val (out, e);
    index++;
  }
  g_strfreev (items);
  if (!ok) {
    g_array_free (out, TRUE);
    return NULL;
  }
  *n = out->len;
  if (out->len == 0) {
    /* g_array_free gives NULL for an array that never held an element, and NULL means
     * an error to the callers: an empty list is a real (empty) allocation */
    g_array_free (out, TRUE);
    return g_new0 (GstCvObjectEntry, 1);
  }
  return (GstCvObjectEntry *) g_array_free (out, FALSE);
}

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
