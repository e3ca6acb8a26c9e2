/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Object lists as text: see cc_moct_objects.h for the syntax. */
#include "cc_internal.h"
#include "cudacore/cc_moct_objects.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The C locale's classes, whatever the process's locale. */
static int
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static int
ascii_caseeq (const char *a, const char *b)
{
  for (; *a && *b; a++, b++) {
    char x = (*a >= 'A' && *a <= 'Z') ? *a + 32 : *a;
    char y = (*b >= 'A' && *b <= 'Z') ? *b + 32 : *b;
    if (x != y)
      return 0;
  }
  return *a == *b;
}

/* Strips ASCII white space at both ends, in place. */
static char *
strip (char *s)
{
  while (is_space (*s))
    s++;
  size_t len = strlen (s);
  while (len > 0 && is_space (s[len - 1]))
    s[--len] = '\0';
  return s;
}

/* Well-formed UTF-8: no overlong forms, surrogates or code points past U+10FFFF. */
static int
valid_utf8 (const unsigned char *s)
{
  while (*s) {
    unsigned c = *s++;
    int more;
    unsigned min, cp;
    if (c < 0x80)
      continue;
    else if ((c & 0xe0) == 0xc0) { more = 1; min = 0x80; cp = c & 0x1f; }
    else if ((c & 0xf0) == 0xe0) { more = 2; min = 0x800; cp = c & 0x0f; }
    else if ((c & 0xf8) == 0xf0) { more = 3; min = 0x10000; cp = c & 0x07; }
    else
      return 0;
    for (int i = 0; i < more; i++, s++) {
      if ((*s & 0xc0) != 0x80)
        return 0;
      cp = (cp << 6) | (*s & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
  }
  return 1;
}

/* A decimal number: [+]digits[.digits][(e|E)[+-]digits], at least one mantissa digit.
 * No locale, no hex, inf or nan. */
static int
parse_decimal (const char *s, double *out)
{
  const char *p = s;
  if (*p == '+')
    p++;
  uint64_t mantissa = 0;
  int digits = 0, exponent = 0;
  for (; *p >= '0' && *p <= '9'; p++, digits++) {
    if (mantissa < 100000000000000000ull)
      mantissa = mantissa * 10 + (uint64_t) (*p - '0');
    else
      exponent++;   /* digits past 17 only scale */
  }
  if (*p == '.') {
    for (p++; *p >= '0' && *p <= '9'; p++, digits++)
      if (mantissa < 100000000000000000ull) {
        mantissa = mantissa * 10 + (uint64_t) (*p - '0');
        exponent--;
      }
  }
  if (digits == 0)
    return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    int sign = 1, e = 0, edigits = 0;
    if (*p == '+' || *p == '-')
      sign = *p++ == '-' ? -1 : 1;
    for (; *p >= '0' && *p <= '9'; p++, edigits++)
      if (e < 10000)
        e = e * 10 + (*p - '0');
    if (edigits == 0)
      return 0;
    exponent += sign * e;
  }
  if (*p)
    return 0;
  *out = exponent < -400 ? 0.0 : exponent > 400 ? HUGE_VAL : (double) mantissa * pow (10.0, exponent);
  return 1;
}

static int
parse_colour (const char *s, cc_moct_object *o)
{
  if (strlen (s) != 7 || s[0] != '#')
    return 0;
  int v[6];
  for (int i = 0; i < 6; i++)
    if ((v[i] = hex_value (s[i + 1])) < 0)
      return 0;
  o->r = (uint8_t) (16 * v[0] + v[1]);
  o->g = (uint8_t) (16 * v[2] + v[3]);
  o->b = (uint8_t) (16 * v[4] + v[5]);
  return 1;
}

/* A cc_moct_space, or -1 for an unknown name. */
static int
parse_space (const char *s)
{
  if (ascii_caseeq (s, "rgb"))
    return CC_MOCT_SPACE_RGB;
  if (ascii_caseeq (s, "hsv"))
    return CC_MOCT_SPACE_HSV;
  if (ascii_caseeq (s, "lab"))
    return CC_MOCT_SPACE_LAB;
  return -1;
}

/* "entry 3 (\"red\"): why" */
static cc_status
entry_error (const char *what, unsigned where, const char *name, const char *fmt, ...)
{
  char why[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (why, sizeof why, fmt, ap);
  va_end (ap);
  return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s %u (\"%.200s\"): %s", what, where, name,
      why);
}

#define MAX_FIELDS 5   /* one more than allowed, to tell "too many" */

/* One entry from its fields (name, colour, [tolerance], [space]). */
static cc_status
parse_entry (char **fields, unsigned nf, const char *what, unsigned where, cc_moct_object *o)
{
  const char *name = nf > 0 ? fields[0] : "";
  memset (o, 0, sizeof *o);   /* space CC_MOCT_SPACE_PARAMS, tolerance 0: defaults */
  if (nf < 2 || nf > 4)
    return entry_error (what, where, name, "want name, colour, [tolerance], [space]; got %u%s "
        "field(s)", nf, nf >= MAX_FIELDS ? " or more" : "");
  size_t len = strlen (name);
  if (len == 0 || len >= CC_MOCT_NAME_MAX)
    return entry_error (what, where, name, "a name is 1..%d bytes", CC_MOCT_NAME_MAX - 1);
  if (!valid_utf8 ((const unsigned char *) name))
    return entry_error (what, where, name, "the name is not UTF-8");
  /* the inline form separates with these: a name holding one would not read back
   * from moctracker's `objects` getter */
  for (const char *c = name; *c; c++)
    if (is_space (*c) || *c == ':' || *c == ';')
      return entry_error (what, where, name, "a name has no white space, ':' or ';'");
  memcpy (o->name, name, len + 1);
  if (!parse_colour (fields[1], o))
    return entry_error (what, where, name, "colour \"%.64s\" is not #rrggbb", fields[1]);
  if (nf > 2 && fields[2][0]) {
    double t;
    if (!parse_decimal (fields[2], &t) || !(t > 0.0 && t <= 1000.0))
      return entry_error (what, where, name, "tolerance \"%.64s\" is not a number in (0, 1000]",
          fields[2]);
    o->tolerance = (float) t;
  }
  if (nf > 3) {
    int space = parse_space (fields[3]);
    if (space < 0)
      return entry_error (what, where, name, "colour space \"%.64s\" is not rgb, hsv or lab",
          fields[3]);
    o->space = (cc_moct_space) space;
  }
  return CC_SUCCESS;
}

/* Splits an item into at most MAX_FIELDS fields, in place: a file line at runs of
 * white space and ':', an inline entry at each ':' (fields stripped, empty ones kept). */
static unsigned
split_fields (char *item, cc_moct_objects_syntax syntax, char **fields)
{
  unsigned nf = 0;
  if (syntax == CC_MOCT_OBJECTS_FILE) {
    char *p = item;
    while (*p && nf < MAX_FIELDS) {
      while (*p && (is_space (*p) || *p == ':'))
        p++;
      if (!*p)
        break;
      fields[nf++] = p;
      while (*p && !is_space (*p) && *p != ':')
        p++;
      if (*p)
        *p++ = '\0';
    }
    return nf;
  }
  char *p = item;
  while (nf < MAX_FIELDS) {
    char *colon = strchr (p, ':');
    if (colon)
      *colon = '\0';
    fields[nf++] = strip (p);
    if (!colon)
      break;
    p = colon + 1;
  }
  return nf;
}

cc_status
cc_moct_objects_parse (const char *text, cc_moct_objects_syntax syntax,
    cc_moct_object **objects, int *n)
{
  CC_CHECK_ARG (objects && n, "cc_moct_objects_parse: objects or n is NULL");
  CC_CHECK_ARG (syntax == CC_MOCT_OBJECTS_INLINE || syntax == CC_MOCT_OBJECTS_FILE,
      "cc_moct_objects_parse: syntax %d", (int) syntax);
  *objects = NULL;
  *n = 0;
  if (!text)
    text = "";
  const int file = syntax == CC_MOCT_OBJECTS_FILE;
  const char separator = file ? '\n' : ';';
  const char *what = file ? "line" : "entry";   /* errors name the line or the entry */
  /* the list is as long as the entries in the text, at most the maximum */
  size_t items = 1;
  for (const char *c = text; *c; c++)
    items += *c == separator;
  size_t cap = items < CC_MOCT_MAX_OBJECTS ? items : CC_MOCT_MAX_OBJECTS;
  char *copy = strdup (text);
  cc_moct_object *out = calloc (cap ? cap : 1, sizeof *out);
  if (!copy || !out) {
    free (copy);
    free (out);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_moct_objects_parse: %zu bytes",
        strlen (text));
  }
  cc_status st = CC_SUCCESS;
  int count = 0;
  unsigned line = 0;
  char *next = copy;
  while (st == CC_SUCCESS && next) {
    char *item = next;
    char *sep = strchr (item, separator);
    if (sep)
      *sep = '\0';
    next = sep ? sep + 1 : NULL;
    line++;
    unsigned where = file ? line : (unsigned) count + 1;
    item = strip (item);
    if (!*item)
      continue;
    if (file && item[0] == '#' && (item[1] == '\0' || is_space (item[1])))
      continue;
    if (count >= CC_MOCT_MAX_OBJECTS) {
      st = cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s %u: more than %d objects", what, where,
          CC_MOCT_MAX_OBJECTS);
      break;
    }
    char *fields[MAX_FIELDS];
    unsigned nf = split_fields (item, syntax, fields);
    st = parse_entry (fields, nf, what, where, &out[count]);
    for (int j = 0; st == CC_SUCCESS && j < count; j++)
      if (!strcmp (out[j].name, out[count].name))
        st = cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s %u (\"%s\"): the name is used by "
            "object %d", what, where, out[count].name, j + 1);
    if (st == CC_SUCCESS)
      count++;
  }
  free (copy);
  if (st != CC_SUCCESS) {
    free (out);
    return st;
  }
  *objects = out;
  *n = count;
  return CC_SUCCESS;
}

cc_status
cc_moct_objects_read (const char *path, cc_moct_object **objects, int *n)
{
  CC_CHECK_ARG (path && objects && n, "cc_moct_objects_read: path, objects or n is NULL");
  *objects = NULL;
  *n = 0;
  /* O_NONBLOCK: opening a FIFO with no writer must not wait; the type is checked on
   * the descriptor (no race between a stat and the open) */
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  struct stat sb;
  if (fstat (fd, &sb) != 0) {
    int e = errno;
    close (fd);
    return cc_set_error (CC_ERROR_IO, "%s: cannot read: %s", path, strerror (e));
  }
  if (!S_ISREG (sb.st_mode)) {
    close (fd);
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s: not a regular file (%s)", path,
        S_ISDIR (sb.st_mode) ? "a folder" : S_ISCHR (sb.st_mode) ? "a character device"
        : S_ISFIFO (sb.st_mode) ? "a FIFO" : S_ISBLK (sb.st_mode) ? "a block device"
        : "a socket or other");
  }
  if ((uint64_t) sb.st_size > CC_MOCT_OBJECTS_FILE_MAX) {
    close (fd);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: %lld bytes, over the %zu bytes an "
        "objects file may have", path, (long long) sb.st_size, CC_MOCT_OBJECTS_FILE_MAX);
  }
  /* read at most the limit plus one byte: a file that grows is caught too */
  char *text = malloc (CC_MOCT_OBJECTS_FILE_MAX + 2);
  if (!text) {
    close (fd);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  size_t len = 0;
  while (len <= CC_MOCT_OBJECTS_FILE_MAX) {
    ssize_t got = read (fd, text + len, CC_MOCT_OBJECTS_FILE_MAX + 1 - len);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = errno;
      free (text);
      close (fd);
      return cc_set_error (CC_ERROR_IO, "%s: cannot read: %s", path, strerror (e));
    }
    if (got == 0)
      break;
    len += (size_t) got;
  }
  close (fd);
  text[len] = '\0';
  cc_status st;
  if (len > CC_MOCT_OBJECTS_FILE_MAX)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: over the %zu bytes an objects file may "
        "have", path, CC_MOCT_OBJECTS_FILE_MAX);
  else if (memchr (text, '\0', len))
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: a NUL byte at offset %zu: not a text file",
        path, (size_t) ((char *) memchr (text, '\0', len) - text));
  else if ((st = cc_moct_objects_parse (text, CC_MOCT_OBJECTS_FILE, objects, n)) != CC_SUCCESS) {
    char why[768];   /* a copy: the message buffer is the one being written */
    snprintf (why, sizeof why, "%s", cc_last_error ());
    st = cc_set_error (st, "%s: %s", path, why);
  }
  free (text);
  return st;
}
