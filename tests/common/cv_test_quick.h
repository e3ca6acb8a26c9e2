/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CV_TEST_QUICK: the test programs' smaller variant, for runs where the full one does not
 * fit its time (CI's AddressSanitizer run, tests/meson.build's asanci; compute-sanitizer
 * on the GPU machine, tools/gpu/suite.sh SANITIZE=1). A quick run covers the same code
 * paths and CUDA kernels on less data: smaller frames and graphs, fewer sites, frames,
 * iterations and meshes. Without it every test runs in full.
 *
 * Header-only (no Check, no GLib): the Check suites (cv_test.h) and the element suites
 * (element_common.h, built on gst-check) share it. */
#ifndef CV_TEST_QUICK_H
#define CV_TEST_QUICK_H
#include <stdlib.h>

/* True when CV_TEST_QUICK is set to anything but "" or "0". */
static inline int
cv_test_quick (void)
{
  const char *v = getenv ("CV_TEST_QUICK");
  return v != NULL && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}
#endif
