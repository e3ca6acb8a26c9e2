/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE   /* program_invocation_short_name */
#include "cv_cli.h"
#include "cv_config.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool
cv_is_help (const char *arg)
{
  return !strcmp (arg, "--help") || !strcmp (arg, "-h");
}

int
cv_fail (const char *what)
{
  fprintf (stderr, "%s: %s: %s\n", program_invocation_short_name, what, cc_last_error ());
  return 1;
}

const char *
cv_option_value (int argc, char **argv, int *i, int (*help) (void), int (*usage) (void))
{
  if (cv_is_help (argv[*i]))
    exit (help ());
  if (!strcmp (argv[*i], "--version")) {
    cv_print_version ();
    exit (0);
  }
  if (*i + 1 >= argc)
    exit (usage ());
  return argv[++*i];
}

bool
cv_version_or_help (const char *arg, const char *help)
{
  if (!strcmp (arg, "--version"))
    cv_print_version ();
  else if (cv_is_help (arg))
    fputs (help, stdout);
  else
    return false;
  return true;
}

bool
cv_command_version_or_help (int argc, char **argv, const char *usage, const char *help)
{
  if (argc >= 2 && !strcmp (argv[1], "--version")) {
    cv_print_version ();
    return true;
  }
  for (int i = 1; i < argc; i++)
    if (cv_is_help (argv[i])) {
      printf ("%s%s", usage, help);
      return true;
    }
  return false;
}

bool
cv_bench_option (int argc, char **argv, int *i, const char *help, int max_runs, bool *cpu,
    int *runs, int *exit_status)
{
  const char *a = argv[*i];
  *exit_status = -1;
  if (!strcmp (a, "--version")) {
    cv_print_version ();
    *exit_status = 0;
  } else if (cv_is_help (a)) {
    printf (help, max_runs);
    *exit_status = 0;
  } else if (!strcmp (a, "--no-cpu"))
    *cpu = false;
  else if (!strcmp (a, "--runs") && *i + 1 < argc) {
    if (!cv_parse_int ("--runs", argv[++*i], 1, max_runs, runs))
      *exit_status = 2;
  } else
    return false;
  return true;
}

bool
cv_parse_backend (const char *opt, const char *s, bool allow_auto, cc_backend *out)
{
  if (allow_auto && !strcmp (s, "auto"))
    *out = CC_BACKEND_AUTO;
  else if (!strcmp (s, "cpu"))
    *out = CC_BACKEND_CPU;
  else if (!strcmp (s, "cuda"))
    *out = CC_BACKEND_CUDA;
  else
    return cv_option_error (opt, s, allow_auto ? "one of auto, cpu, cuda" : "one of cpu, cuda");
  return true;
}

bool
cv_parse_epic_preset (const char *opt, const char *s, cc_epic_preset *out)
{
  for (int k = CC_EPIC_PRESET_FAST; k <= CC_EPIC_PRESET_ACCURATE; k++)
    if (!strcmp (s, cc_epic_preset_name ((cc_epic_preset) k))) {
      *out = (cc_epic_preset) k;
      return true;
    }
  return cv_option_error (opt, s, "one of fast, balanced, accurate");
}

void
cv_epic_overrides_apply (const cv_epic_overrides *o, cc_epic_params *p)
{
  if (o->k)
    p->interp.k = o->k;
  if (o->cell)
    p->interp.cell = o->cell;
  if (o->step)
    p->match.step = o->step;
  if (o->iterations)
    p->match.iterations = o->iterations;
  if (o->levels)
    p->refine_params.levels = o->levels;
  if (o->outer)
    p->refine_params.outer_iterations = o->outer;
  if (o->inner)
    p->refine_params.inner_iterations = o->inner;
  if (o->alpha >= 0.0f)
    p->refine_params.smoothness_weight = o->alpha;
  if (o->gamma >= 0.0f)
    p->refine_params.gradient_weight = o->gamma;
  if (o->delta >= 0.0f)
    p->refine_params.color_weight = o->delta;
  if (o->omega >= 0.0f)
    p->refine_params.omega = o->omega;
  if (o->kappa >= 0.0f)
    p->refine_params.smoothness_kappa = o->kappa;
  if (o->presmooth >= 0.0f)
    p->refine_params.presmooth_sigma = o->presmooth;
  if (o->robust >= 0.0f)
    p->interp.robust = o->robust;
}

bool
cv_parse_size (const char *opt, const char *s, int max, int *width, int *height)
{
  int w, h;
  char end;
  if (sscanf (s, "%dx%d%c", &w, &h, &end) != 2 || w < 1 || h < 1 || w > max || h > max) {
    char expected[64];
    snprintf (expected, sizeof expected, "a size WxH in 1..%d", max);
    return cv_option_error (opt, s, expected);
  }
  *width = w;
  *height = h;
  return true;
}

cc_status
cv_context_new (cc_backend backend, int device, int threads, cc_context **ctx)
{
  cc_status st = cc_context_create (backend, device, ctx);
  if (st != CC_SUCCESS)
    return st;
  st = cc_context_set_threads (*ctx, threads);
  if (st != CC_SUCCESS) {
    cc_context_destroy (*ctx);
    *ctx = NULL;
  }
  return st;
}

void
cv_report_backend (const cc_context *ctx, cc_backend asked, const char *what)
{
  const char *why = asked == CC_BACKEND_AUTO ? cc_cuda_unavailable_reason () : NULL;
  fprintf (stderr, "%s: %s on the %s backend%s%s%s\n", program_invocation_short_name, what,
      cc_backend_name (cc_context_backend (ctx)), why ? " (backend auto: no CUDA device: " : "",
      why ? why : "", why ? ")" : "");
}

static int
cmp_name (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
cv_list_pairs (const char *dir, char **names, int max)
{
  DIR *d = opendir (dir);
  if (!d) {
    fprintf (stderr, "%s: cannot open %s\n", program_invocation_short_name, dir);
    return -1;
  }
  int count = 0;
  struct dirent *e;
  while ((e = readdir (d)) && count < max) {
    char probe[4096];
    snprintf (probe, sizeof probe, "%s/%s/flow10.flo", dir, e->d_name);
    FILE *f = fopen (probe, "rb");
    if (f) {
      fclose (f);
      names[count++] = strdup (e->d_name);
    }
  }
  closedir (d);
  qsort (names, count, sizeof names[0], cmp_name);
  return count;
}
