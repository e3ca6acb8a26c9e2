/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Skipped test cases. Check has no skip: a case that returns early passes. So a case
 * that cannot run says so with CV_SKIP (it records the skip and returns), and the
 * program's runner (cv_test_run_suite in cv_test.h, CV_CHECK_MAIN in element_common.h)
 * counts the records after the run, prints one line
 *
 *   cv-test core-refine: 4 of 11 cases skipped (3 no CUDA device, 1 no shared media)
 *
 * and chooses the exit status: 1 when a case failed, 77 (meson's SKIP) when no case
 * ran (every case skipped, or none there), else 0. tests/skip-summary.py gathers the
 * lines of a whole `meson test` run.
 *
 * A part of a case that cannot run while the rest does (the CUDA half of a case, one
 * missing clip of several) is recorded with CV_SKIP_PART: the case still counts as run,
 * and the line adds "; N parts of cases skipped (...)".
 *
 * Check runs each case in a child process (CK_FORK, the default): the records go to a
 * file that the runner makes before the run and reads after it, so they survive the
 * child; with CK_FORK=no they go to the same file. One CV_SKIP per case (it returns);
 * one CV_SKIP_PART per part.
 *
 * Header and source without Check or GLib (cudacore only): the Check suites (cv_test.h) and the
 * element suites (element_common.h, gst-check's own Check) share them. */
#ifndef CV_TEST_SKIP_H
#define CV_TEST_SKIP_H

/* The reasons, one phrase each: the summary counts skips by reason. */
#define CV_SKIP_NO_CUDA_BUILD "built without CUDA"
#define CV_SKIP_NO_DEVICE "no CUDA device"            /* built with CUDA */
#define CV_SKIP_HAS_DEVICE "a CUDA device is present"   /* the no-device paths */
#define CV_SKIP_NO_MEDIA "no shared media"              /* ../shared/media, absent in CI */
#define CV_SKIP_NO_CUDA_ELEMENTS "no nvcodec cudaupload"
#define CV_SKIP_NO_ELEMENT "a GStreamer element is missing"
#define CV_SKIP_OLD_GSTREAMER "GStreamer too old"

/* Records that the case (whole = 1) or a part of it (whole = 0) named `what` could
 * not run for `reason` (one of the phrases above), and prints "SKIP what: reason". */
void cv_test_skip_record (const char *what, const char *reason, int whole);
/* Records `n` cases that the program did not even register (left out at build time,
 * e.g. below a GStreamer version): they count as cases, all skipped. */
void cv_test_skip_cases (int n, const char *what, const char *reason);

/* Why a GPU part cannot run (CV_SKIP_NO_CUDA_BUILD or CV_SKIP_NO_DEVICE), NULL when a
 * CUDA device is there. */
const char *cv_test_gpu_missing (void);

/* Ends the case: skipped for `reason`. */
#define CV_SKIP(what, reason)                                                     \
  do {                                                                            \
    cv_test_skip_record ((what), (reason), 1);                                    \
    return;                                                                       \
  } while (0)
/* Notes a part of the case that cannot run; the case goes on. */
#define CV_SKIP_PART(what, reason) cv_test_skip_record ((what), (reason), 0)
/* Ends a GPU-only case as skipped when no CUDA device is there. */
#define CV_SKIP_WITHOUT_GPU(what)                                                 \
  do {                                                                            \
    const char *why_ = cv_test_gpu_missing ();                                    \
    if (why_)                                                                     \
      CV_SKIP ((what), why_);                                                     \
  } while (0)

/* The runner's side. cv_test_skip_begin before the run (makes the record file; the
 * records of cv_test_skip_cases made earlier are kept); cv_test_skip_finish after it,
 * with Check's counts: prints the line (program `name`) and returns the exit status. */
int cv_test_skip_begin (void);
int cv_test_skip_finish (const char *name, int n_run, int n_failed);
/* The program's name for that line: argv[0]'s base name without "test-", with
 * CK_RUN_CASE when set (element-generic runs one row at a time). Static storage. */
const char *cv_test_skip_program_name (const char *argv0);
#endif
