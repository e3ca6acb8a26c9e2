/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Wall-clock helpers shared by the tools' timings. */
#ifndef CV_TIMING_H
#define CV_TIMING_H
#include <cudacore/cc_timer.h>

/* Stops `timer` (on the context's stream) and reads its time in ms (waits for the stop
 * point). */
cc_status cv_timer_stop_ms (cc_timer *timer, float *ms);
/* Median of v[0..n) (sorts v in place); 0 for n < 1. */
double cv_median (double *v, int n);
#endif
