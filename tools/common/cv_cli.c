/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE   /* program_invocation_short_name */
#include "cv_cli.h"
#include "cv_config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool
cv_option_error (const char *opt, const char *s, const char *expected)
{
  fprintf (stderr, "%s: %s: '%s' is not %s\n", program_invocation_short_name, opt, s,
      expected);
  return false;
}

bool
cv_parse_int (const char *opt, const char *s, long min, long max, int *out)
{
  char *end;
  errno = 0;
  long v = strtol (s, &end, 10);
  if (end == s || *end || errno || v < min || v > max) {
    char range[64];
    snprintf (range, sizeof range, "a number in %ld..%ld", min, max);
    return cv_option_error (opt, s, range);
  }
  *out = (int) v;
  return true;
}

bool
cv_parse_float (const char *opt, const char *s, double min, double max, float *out)
{
  char *end;
  errno = 0;
  double v = strtod (s, &end);
  if (end == s || *end || errno || !(fabs (v) <= FLT_MAX) || v < min || v > max) {
    char range[64];
    if (isinf (min) && isinf (max))
      snprintf (range, sizeof range, "a number");
    else
      snprintf (range, sizeof range, "a number in %g..%g", min, max);
    return cv_option_error (opt, s, range);
  }
  *out = (float) v;
  return true;
}

void
cv_print_version (void)
{
  printf ("%s (cudavision) %s\n", program_invocation_short_name, CV_VERSION);
}
