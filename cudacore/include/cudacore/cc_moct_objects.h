/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Object lists of the chromatic tracker as text: moctracker's `objects` property and
 * `objects-file`, and cv-moct's objects files. Host only, plain C (no locale: numbers
 * are read with '.' whatever LC_NUMERIC says).
 *
 *   inline:  name:#rrggbb[:tolerance[:space]] entries separated by ';'
 *            "cue:#f0f0e8:40;eight:#101010:30;red:#c01010::hsv"
 *   file:    one object a line, fields separated by white space or ':'
 *            name #rrggbb [tolerance [space]]
 *            blank lines and lines whose first character is '#' followed by a space
 *            or the end of the line are comments.
 *
 * A name is 1..CC_MOCT_NAME_MAX-1 bytes of UTF-8 without white space, ':' or ';',
 * unique in the list; a colour is '#' and six hex digits; a tolerance a decimal number
 * in (0, 1000] (optional exponent; empty or absent: tolerance 0, the caller's
 * default); a space one of rgb, hsv, lab (absent: CC_MOCT_SPACE_PARAMS, the caller's
 * default). At most CC_MOCT_MAX_OBJECTS entries. No call here takes a context or a
 * stream, or waits. */
#ifndef CUDACORE_CC_MOCT_OBJECTS_H
#define CUDACORE_CC_MOCT_OBJECTS_H

#include "cc_moct.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest objects file read: 1 MiB. 1024 objects of the longest line (a 63-byte
 * name, colour, tolerance, space: under 100 bytes) take 100 kB; the rest is room for
 * comments. A larger file, or one that is not a regular file (/dev/zero, a FIFO, a
 * folder), is refused before it is read. */
#define CC_MOCT_OBJECTS_FILE_MAX ((size_t) 1 << 20)

typedef enum cc_moct_objects_syntax {
  CC_MOCT_OBJECTS_INLINE = 0,   /* ';'-separated entries, ':'-separated fields */
  CC_MOCT_OBJECTS_FILE          /* lines, fields at white space or ':', comments */
} cc_moct_objects_syntax;

/* Parses `text`.
 * [in] text: NUL-terminated; NULL = empty. [in] syntax.
 * [out] objects: a new array (free()) of *n entries, never NULL on success (an empty
 *       text gives *n = 0 and a one-entry allocation).
 * INVALID_ARGUMENT with a message naming the entry (inline) or line (file) and why:
 * "entry 3 (\"red\"): colour \"#ff00\" is not #rrggbb", "line 7: more than 1024
 * objects"; OUT_OF_MEMORY. On error *objects is NULL and *n 0. */
cc_status cc_moct_objects_parse (const char *text, cc_moct_objects_syntax syntax,
    cc_moct_object **objects, int *n);

/* Reads and parses an objects file (file syntax). [in] path. [out] objects, n: as
 * cc_moct_objects_parse. Returns CC_SUCCESS; IO when it cannot be opened or read;
 * INVALID_ARGUMENT when it is not a regular file; CORRUPT_DATA when it is larger than
 * CC_MOCT_OBJECTS_FILE_MAX or holds a NUL byte; else as cc_moct_objects_parse. The
 * message starts with the path. */
cc_status cc_moct_objects_read (const char *path, cc_moct_object **objects, int *n);

#ifdef __cplusplus
}
#endif
#endif
