/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_timing.h"

#include <stdlib.h>
#include <time.h>

cc_status
cv_timer_stop_ms (cc_timer *timer, float *ms)
{
  cc_status st = cc_timer_stop (timer, NULL);
  return st != CC_SUCCESS ? st : cc_timer_elapsed_ms (timer, ms);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
cv_median (double *v, int n)
{
  if (n < 1)
    return 0.0;
  qsort (v, n, sizeof *v, cmp_double);
  return v[n / 2];
}
