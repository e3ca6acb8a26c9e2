/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the Check suites. */
#ifndef CV_TEST_H
#define CV_TEST_H
#include <check.h>
#include <cudacore/cc_core.h>
#include <stdio.h>
#include <stdlib.h>
#include "cv_test_quick.h"   /* cv_test_quick (): CV_TEST_QUICK */
#include "cv_test_skip.h"    /* CV_SKIP, CV_SKIP_PART: cases that cannot run */

/* Fails the test with the core's message when a cc_ call does not succeed. */
#define CC_ASSERT_OK(expr)                                                        \
  do {                                                                            \
    cc_status st_ = (expr);                                                       \
    ck_assert_msg (st_ == CC_SUCCESS, "%s -> %s: %s", #expr, cc_status_name (st_), \
        cc_last_error ());                                                        \
  } while (0)

/* Backends a core test runs on: always CPU; CUDA when a device is present.
 * Loop with for (int b = 0; b < cv_test_backend_count (); b++). */
int cv_test_backend_count (void);
cc_backend cv_test_backend (int index);
/* ../shared/media, found from the source tree (CV_SHARED_MEDIA env overrides), when
 * its folder SUBDIR (NULL: the root) is there, as on a partial copy on the GPU
 * machine; NULL (after printing the path it looked for) when absent: the caller
 * then ends with CV_SKIP (test_name, CV_SKIP_NO_MEDIA). Returns the media root. */
const char *cv_test_shared_media_with (const char *test_name, const char *subdir);

/* Uploads a host image to a new device image on a CUDA context (copy for CPU). */
cc_status cv_test_to_backend (cc_context *ctx, const cc_image *host, cc_image *out);
/* Downloads into a new host image (packed). Caller frees with cv_image_free. */
cc_status cv_test_to_host (cc_context *ctx, const cc_image *img, cc_image *out);  /* NV12 / I420 too */

/* A host F32C2 field of w x h with every vector (u, v). Free with cv_image_free. */
cc_image cv_test_constant_field (int w, int h, float u, float v);
/* Fails the test at the first non-finite value of a host F32 or F32C2 image. */
void cv_test_assert_finite (const cc_image *img, const char *what);
/* Mean |a - b| over the vector components of two host F32C2 fields of one size. */
double cv_test_mean_abs_diff (const cc_image *a, const cc_image *b);

/* Runs argv[0] (a path) with argv, stdin closed, and returns its exit status (-1 when
 * it did not exit normally); *out and *err (when not NULL) get its stdout and stderr,
 * NUL-terminated, to free(). env_path, when not NULL, replaces PATH for it. */
int cv_test_run (const char *const argv[], const char *env_path, char **out, char **err);
/* cv_test_run with bounds, for hostile inputs: the child is killed (SIGALRM) after
 * `seconds`, and its address space is limited to `megabytes` (not in an ASan build:
 * the sanitizer's shadow needs terabytes of address space; the peak RSS is still
 * measured there). 0: no bound. */
typedef struct { int seconds, megabytes; } cv_test_limits;
typedef struct {
  double seconds;      /* wall time */
  long peak_rss_kb;    /* the child's peak resident set */
  int signal;          /* the signal that ended it, 0 if it exited */
} cv_test_usage;
int cv_test_run_limited (const char *const argv[], const char *env_path, char **out, char **err,
    const cv_test_limits *limits, cv_test_usage *usage);

/* Fails the test unless two host images of one size and format hold the same bytes
 * in every plane (pitch padding ignored); names the first differing row. */
void cv_test_assert_same_bits (const cc_image *a, const cc_image *b, const char *what);

/* Runs a suite's tests and returns main's exit status: 1 when a case failed, 77 when
 * none ran (all skipped: cv_test_skip.h), else 0; prints the program's skip line. */
int cv_test_run_suite (Suite *suite);
/* cv_test_run_suite with a fresh temporary folder ($TMPDIR or /tmp, named
 * PREFIX-XXXXXX), removed afterwards. */
int cv_test_main_with_tmpdir (Suite *suite, const char *prefix);
/* That folder, and a path in it (four rotating buffers: up to four in use at once). */
const char *cv_test_tmpdir (void);
const char *cv_test_temp_path (const char *name);
#endif
