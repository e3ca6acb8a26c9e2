/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moctracker's object lists (gst/gstcvobjects.c): the inline `objects` string and the
 * objects file. The first byte picks the syntax. Oracle: a list that parses prints
 * (gst_cv_objects_to_string) to an inline string that parses to the same objects. */
#include "fuzz_common.h"
#include "gstcvobjects.h"
#include <stdlib.h>
#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  char *text = fuzz_string (data + 1, size - 1);
  gint n = -1;
  GError *err = NULL;
  GstCvObjectEntry *e = gst_cv_objects_parse (text, data[0] & 1, &n, &err);
  if (!e) {
    if (!err || !err->message[0])
      abort ();                  /* a refusal must say why */
    g_error_free (err);
  } else {
    gchar *back = gst_cv_objects_to_string (e, n);
    gint n2 = -1;
    GstCvObjectEntry *e2 = gst_cv_objects_parse (back, FALSE, &n2, &err);
    if (!e2 || n2 != n)
      abort ();                  /* the printed list must parse to the same count */
    for (gint i = 0; i < n; i++)
      if (strcmp (e[i].object.name, e2[i].object.name) != 0 || e[i].object.r != e2[i].object.r
          || e[i].object.g != e2[i].object.g || e[i].object.b != e2[i].object.b
          || e[i].object.space != e2[i].object.space)
        abort ();
    g_free (e2);
    g_free (back);
    g_free (e);
  }
  free (text);
  return 0;
}
