/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_flicker.h"

#include <stdlib.h>

void
cv_flicker_pair (const uint8_t *in_prev, const uint8_t *in_cur, const uint8_t *out_prev,
    const uint8_t *out_cur, size_t pixels, long long *still, long long *changed,
    long long *changed_any)
{
  long long any = 0;
  *still = *changed = 0;
  for (size_t p = 0; p < pixels; p++) {
    const uint8_t *x = in_cur + 4 * p, *y = in_prev + 4 * p;
    if (abs (x[0] - y[0]) > CV_FLICKER_STATIC_TOLERANCE
        || abs (x[1] - y[1]) > CV_FLICKER_STATIC_TOLERANCE
        || abs (x[2] - y[2]) > CV_FLICKER_STATIC_TOLERANCE)
      continue;
    (*still)++;
    const uint8_t *r = out_cur + 4 * p, *q = out_prev + 4 * p;
    *changed += abs (r[0] - q[0]) > CV_FLICKER_STATIC_TOLERANCE
        || abs (r[1] - q[1]) > CV_FLICKER_STATIC_TOLERANCE
        || abs (r[2] - q[2]) > CV_FLICKER_STATIC_TOLERANCE;
    any += r[0] != q[0] || r[1] != q[1] || r[2] != q[2];
  }
  if (changed_any)
    *changed_any = any;
}
