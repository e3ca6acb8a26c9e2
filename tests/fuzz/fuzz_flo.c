/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* .flo reading (cc_flo_read, Middlebury format): any file gives a field or an error. */
#include "fuzz_common.h"
#include <cudacore/cc_flow_io.h>
#include <stdlib.h>

static volatile float sink;   /* every value read once: ASan sees a short buffer */

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write_file (data, size, ".flo");
  cc_image flow;
  if (cc_flo_read (path, &flow) == CC_SUCCESS) {
    /* the whole field is readable */
    float sum = 0;
    for (int y = 0; y < flow.height; y++) {
      const float *row = (const float *) ((const uint8_t *) flow.planes[0] + (size_t) y * flow.pitch[0]);
      for (int x = 0; x < 2 * flow.width; x++)
        sum += row[x];
    }
    sink = sum;
    cc_flo_free (&flow);
  }
  return 0;
}
