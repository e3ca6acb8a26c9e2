/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_imageio.h"

#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cc_status
cv_image_new (int width, int height, cc_format format, cc_image *out)
{
  return cc_image_host_new (width, height, format, out);
}

void
cv_image_free (cc_image *img)
{
  cc_image_host_free (img);
}

cc_status
cv_png_load (const char *path, cc_format format, cc_image *out)
{
  return cc_image_read_png (path, format, out);
}

cc_status
cv_jpeg_load (const char *path, cc_image *out)
{
  return cc_image_read_jpeg (path, out);
}

cc_status
cv_image_load (const char *path, cc_image *out)
{
  return cc_image_read (path, out);
}

/* RGBX8 and BGRX8 are written as 8-bit RGB (no alpha channel): their fourth byte is
 * padding, not alpha (often 0, which saved as RGBA made the picture transparent). */
cc_status
cv_png_save (const char *path, const cc_image *img)
{
  png_image png;
  memset (&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = img->width;
  png.height = img->height;
  switch (img->format) {
    case CC_FORMAT_GRAY8: png.format = PNG_FORMAT_GRAY; break;
    case CC_FORMAT_RGBX8: png.format = PNG_FORMAT_RGB; break;
    case CC_FORMAT_BGRX8: png.format = PNG_FORMAT_BGR; break;
    default:
      return cc_set_error (CC_ERROR_NOT_SUPPORTED, "cv_png_save: format %s",
          cc_format_name (img->format));
  }
  if (img->location != CC_LOCATION_HOST)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cv_png_save: needs a host image");
  const uint8_t *rows = img->planes[0];
  png_int_32 stride = (png_int_32) img->pitch[0];
  uint8_t *packed = NULL;
  if (img->format != CC_FORMAT_GRAY8) {
    /* drop the padding byte: libpng's simplified API reads 3 bytes a pixel */
    packed = malloc ((size_t) img->width * img->height * 3);
    if (!packed)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cv_png_save: %dx%d", img->width,
          img->height);
    for (int y = 0; y < img->height; y++) {
      const uint8_t *src = rows + (size_t) y * img->pitch[0];
      uint8_t *dst = packed + (size_t) y * img->width * 3;
      for (int x = 0; x < img->width; x++)
        memcpy (dst + 3 * x, src + 4 * x, 3);
    }
    rows = packed;
    stride = img->width * 3;
  }
  int ok = png_image_write_to_file (&png, path, 0, rows, stride, NULL);
  free (packed);
  if (!ok)
    return cc_set_error (CC_ERROR_IO, "cannot write PNG %s: %s", path, png.message);
  return CC_SUCCESS;
}

cc_status
cv_cdnet_frame_load (const char *dir, int t, cc_image *out)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/input/in%06d.jpg", dir, t);
  return cv_jpeg_load (path, out);
}

cc_status
cv_median_frames (const cc_image *frames, int n, cc_image *out)
{
  if (n < 1 || !frames)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cv_median_frames: %d frames", n);
  const int w = frames[0].width, h = frames[0].height;
  for (int k = 0; k < n; k++)
    if (frames[k].width != w || frames[k].height != h || frames[k].format != CC_FORMAT_RGBX8)
      return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cv_median_frames: frame %d is not "
          "a %dx%d RGBX8 image", k, w, h);
  cc_status st = cv_image_new (w, h, CC_FORMAT_RGBX8, out);
  if (st != CC_SUCCESS)
    return st;
  /* a counting median: 256 bins a channel, no sort */
  for (int y = 0; y < h; y++) {
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    for (int x = 0; x < w; x++) {
      for (int c = 0; c < 3; c++) {
        int count[256] = { 0 };
        for (int k = 0; k < n; k++)
          count[((const uint8_t *) frames[k].planes[0])[(size_t) y * frames[k].pitch[0]
              + 4 * x + c]]++;
        int v = 0, seen = count[0];
        while (seen <= n / 2)
          seen += count[++v];
        o[4 * x + c] = (uint8_t) v;
      }
      o[4 * x + 3] = 255;
    }
  }
  return CC_SUCCESS;
}
