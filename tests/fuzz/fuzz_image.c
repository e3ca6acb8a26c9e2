/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tools' image reading (tools/common/cv_imageio.c): PNG as GRAY8 and as RGBX8
 * (cv-flow, cv-moct, quadcut-eval's ground truth) and JPEG (quadcut-eval's CDnet
 * frames). Built twice: FUZZ_JPEG picks the JPEG reader. */
#include "fuzz_common.h"
#include "cv_imageio.h"
#include <stdint.h>

/* every pixel read once: ASan sees a short or wrongly sized buffer */
static volatile unsigned sink;

static void
touch (const cc_image *img)
{
  unsigned sum = 0;
  int bpp = img->format == CC_FORMAT_GRAY8 ? 1 : 4;
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width * bpp; x++)
      sum += ((const uint8_t *) img->planes[0])[(size_t) y * img->pitch[0] + x];
  sink = sum;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  cc_image img;
#ifdef FUZZ_JPEG
  const char *path = fuzz_write_file (data, size, ".jpg");
  if (cv_jpeg_load (path, &img) == CC_SUCCESS) {
    touch (&img);
    cv_image_free (&img);
  }
#else
  const char *path = fuzz_write_file (data, size, ".png");
  const cc_format formats[] = { CC_FORMAT_GRAY8, CC_FORMAT_RGBX8 };
  for (int i = 0; i < 2; i++)
    if (cv_png_load (path, formats[i], &img) == CC_SUCCESS) {
      touch (&img);
      cv_image_free (&img);
    }
#endif
  return 0;
}
