/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* moctracker's object lists (cudacore/cc_moct_objects.h): the inline `objects` string,
 * the objects-file syntax, and the file reader (its limits). The first byte picks:
 * bit 0 the syntax, bit 1 the reader (the rest written to a file). Oracles: a refusal
 * says why; a list that parses prints (gst_cv_objects_to_string, the property's
 * getter) to an inline string that parses to the same objects. */
#include "fuzz_common.h"
#include "gstcvobjects.h"
#include <stdlib.h>
#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  cc_moct_object *o = NULL;
  int n = -1;
  cc_status st;
  if (data[0] & 2) {
    st = cc_moct_objects_read (fuzz_write_file (data + 1, size - 1, ".txt"), &o, &n);
  } else {
    char *text = fuzz_string (data + 1, size - 1);
    st = cc_moct_objects_parse (text, (data[0] & 1) ? CC_MOCT_OBJECTS_FILE
        : CC_MOCT_OBJECTS_INLINE, &o, &n);
    free (text);
  }
  if (st != CC_SUCCESS) {
    if (o || n != 0 || !cc_last_error ()[0])
      abort ();                  /* a refusal returns nothing and says why */
    return 0;
  }
  if (!o || n < 0 || n > CC_MOCT_MAX_OBJECTS)
    abort ();
  GstCvObjectEntry *e = g_new0 (GstCvObjectEntry, n + 1);
  for (int i = 0; i < n; i++)
    e[i].object = o[i];
  gchar *back = gst_cv_objects_to_string (e, n);
  GError *err = NULL;
  gint n2 = -1;
  GstCvObjectEntry *e2 = gst_cv_objects_parse (back, FALSE, &n2, &err);
  if (!e2 || n2 != n)
    abort ();                    /* the printed list must parse to the same count */
  for (gint i = 0; i < n; i++)
    if (strcmp (o[i].name, e2[i].object.name) != 0 || o[i].r != e2[i].object.r
        || o[i].g != e2[i].object.g || o[i].b != e2[i].object.b
        || o[i].space != e2[i].object.space
        || (o[i].tolerance > 0) != (e2[i].object.tolerance > 0))
      abort ();
  g_free (e2);
  g_free (back);
  g_free (e);
  free (o);
  return 0;
}
