/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Wall-clock helpers shared by the tools' timings. */
#ifndef CV_TIMING_H
#define CV_TIMING_H

/* Monotonic clock in milliseconds. */
double cv_now_ms (void);
/* Median of v[0..n) (sorts v in place); 0 for n < 1. */
double cv_median (double *v, int n);
#endif
