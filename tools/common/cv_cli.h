/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Command-line helpers shared by the tools: strict parsing of numeric option values
 * (the whole string must be a number in range, else a message on stderr) and
 * --version. Messages start with the program's name (program_invocation_short_name). */
#ifndef CV_CLI_H
#define CV_CLI_H
#include <stdbool.h>
#include <cudacore/cc_core.h>
#include <cudacore/cc_epic.h>

/* Parses s (the value of option opt) as a decimal integer in min..max into *out;
 * false, after "TOOL: OPT: 'S' is not a number in MIN..MAX" on stderr, if it is not. */
bool cv_parse_int (const char *opt, const char *s, long min, long max, int *out);
/* The same for a finite floating-point number in [min, max] (-INFINITY, INFINITY: any). */
bool cv_parse_float (const char *opt, const char *s, double min, double max, float *out);
/* "TOOL: OPT: 'S' is not EXPECTED" on stderr (e.g. "one of auto, cpu, cuda", or a
 * range the two above do not express); returns false. */
bool cv_option_error (const char *opt, const char *s, const char *expected);
/* "TOOL: WHAT: <the core's last error>" on stderr; returns 1 (the tools' exit status). */
int cv_fail (const char *what);
/* One step of a "--option value" command line: the value of the option argv[*i] (*i
 * then indexes it). -h and --help exit with help ()'s status (help prints the help),
 * --version prints the version and exits with status 0, an option without a value
 * exits with usage ()'s status (usage says it on stderr). */
const char *cv_option_value (int argc, char **argv, int *i, int (*help) (void),
    int (*usage) (void));
/* One step of a command line for -h / --help and --version at arg: prints the help
 * text as it is, or the version, and returns true (the program then exits with status
 * 0); false for any other argument. */
bool cv_version_or_help (const char *arg, const char *help);
/* The same for the programs that take a command or parse their options elsewhere,
 * before any parsing: true after printing the version (argv[1] is --version) or usage
 * then help (any argument is -h or --help); the program then exits with status 0. */
bool cv_command_version_or_help (int argc, char **argv, const char *usage,
    const char *help);
/* One step of a benchmark's command line for the options they share: --version, -h /
 * --help (help is a printf format whose one conversion takes max_runs), --no-cpu
 * (*cpu = false) and --runs N (1..max_runs into *runs; *i then indexes N). True when
 * argv[*i] was one of them, with *exit_status the program's exit status (0 after the
 * version or the help, 2 after a bad --runs value, said on stderr) or -1 to go on;
 * false for any other argument, --runs without a value included. */
bool cv_bench_option (int argc, char **argv, int *i, const char *help, int max_runs,
    bool *cpu, int *runs, int *exit_status);
/* Parses s as a backend: "cpu", "cuda" and, with allow_auto, "auto"; false after
 * "TOOL: OPT: 'S' is not one of ..." otherwise. */
bool cv_parse_backend (const char *opt, const char *s, bool allow_auto, cc_backend *out);
/* Parses s as an EpicFlow preset name (cc_epic_preset_name: fast, balanced,
 * accurate); false after "... is not one of fast, balanced, accurate" otherwise. */
bool cv_parse_epic_preset (const char *opt, const char *s, cc_epic_preset *out);
/* Settings of cc_epic_params that the developer tools (epic-eval, flow-bench) change
 * from the command line to compare against a preset: an integer 0 or a float < 0
 * leaves the preset's value (CV_EPIC_OVERRIDES_NONE: none changed). */
typedef struct cv_epic_overrides {
  int k, cell, step, iterations;           /* interp.k, interp.cell, match.step, .iterations */
  int levels, outer, inner;                /* refine_params.levels, outer/inner_iterations */
  float alpha, gamma, delta, omega;        /* refine_params.smoothness/gradient/color_weight, omega */
  float kappa, presmooth;                  /* refine_params.smoothness_kappa, presmooth_sigma */
  float robust;                            /* interp.robust */
} cv_epic_overrides;
#define CV_EPIC_OVERRIDES_NONE { .alpha = -1.0f, .gamma = -1.0f, .delta = -1.0f, \
    .omega = -1.0f, .kappa = -1.0f, .presmooth = -1.0f, .robust = -1.0f }
/* Writes the changed settings of o into p. */
void cv_epic_overrides_apply (const cv_epic_overrides *o, cc_epic_params *p);
/* Parses s as a size "WxH", each in 1..max; false after "... is not a size WxH in
 * 1..MAX" otherwise. */
bool cv_parse_size (const char *opt, const char *s, int max, int *width, int *height);
/* cc_context_create (backend, device) running `threads` CPU threads (0: all cores,
 * cc_context_set_threads); on failure nothing is left and the status is returned. */
cc_status cv_context_new (cc_backend backend, int device, int threads, cc_context **ctx);
/* "TOOL: WHAT on the cpu backend" on stderr: the backend `ctx` runs on, and why it is
 * not CUDA when `asked` was auto and no device is usable. Every tool that computes
 * says it once. */
void cv_report_backend (const cc_context *ctx, cc_backend asked, const char *what);
/* The NAME folders under dir that hold a pair with ground truth (NAME/flow10.flo
 * beside frame10.png and frame11.png: the Sintel and Middlebury layout, cv-mkpairs'),
 * sorted by name, at most max of them into names (free each): their count, or -1
 * after "TOOL: cannot open DIR" on stderr. */
int cv_list_pairs (const char *dir, char **names, int max);
/* Prints "TOOL (cudavision) VERSION" on stdout (VERSION: the meson project version). */
void cv_print_version (void);
/* True for "-h" and "--help": every tool then prints its help (what it does, each
 * option with its range and default) on stdout and exits with status 0. */
bool cv_is_help (const char *arg);
#endif
