/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Command-line helpers shared by the tools: strict parsing of numeric option values
 * (the whole string must be a number in range, else a message on stderr) and
 * --version. Messages start with the program's name (program_invocation_short_name). */
#ifndef CV_CLI_H
#define CV_CLI_H
#include <stdbool.h>

/* Parses s (the value of option opt) as a decimal integer in min..max into *out;
 * false, after "TOOL: OPT: 'S' is not a number in MIN..MAX" on stderr, if it is not. */
bool cv_parse_int (const char *opt, const char *s, long min, long max, int *out);
/* The same for a finite floating-point number in [min, max] (-INFINITY, INFINITY: any). */
bool cv_parse_float (const char *opt, const char *s, double min, double max, float *out);
/* "TOOL: OPT: 'S' is not EXPECTED" on stderr (e.g. "one of auto, cpu, cuda", or a
 * range the two above do not express); returns false. */
bool cv_option_error (const char *opt, const char *s, const char *expected);
/* Prints "TOOL (cudavision) VERSION" on stdout (VERSION: the meson project version). */
void cv_print_version (void);
#endif
