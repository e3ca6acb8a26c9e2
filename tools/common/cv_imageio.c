/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cv_imageio.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
bytes_per_pixel (cc_format f)
{
  switch (f) {
    case CC_FORMAT_GRAY8: return 1;
    case CC_FORMAT_RGBX8: case CC_FORMAT_BGRX8: case CC_FORMAT_F32: return 4;
    case CC_FORMAT_F32C2: return 8;
    default: return 0;
  }
}

cc_status
cv_image_new (int width, int height, cc_format format, cc_image *out)
{
  int bpp = bytes_per_pixel (format);
  if (bpp == 0 || width < 1 || height < 1)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cv_image_new: %dx%d of format %d",
        width, height, (int) format);
  void *data = calloc ((size_t) width * height, bpp);
  if (!data)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cv_image_new: %dx%d", width, height);
  *out = cc_image_view (data, (size_t) width * bpp, width, height, format, CC_LOCATION_HOST);
  return CC_SUCCESS;
}

void
cv_image_free (cc_image *img)
{
  if (img) {
    free (img->planes[0]);
    img->planes[0] = NULL;
  }
}

cc_status
cv_png_load (const char *path, cc_format format, cc_image *out)
{
  if (format != CC_FORMAT_GRAY8 && format != CC_FORMAT_RGBX8)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "cv_png_load: only GRAY8 or RGBX8");
  png_image png;
  memset (&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file (&png, path))
    return cc_set_error (CC_ERROR_IO, "cannot read PNG %s: %s", path, png.message);
  png.format = format == CC_FORMAT_GRAY8 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGBA;
  if ((size_t) png.width * png.height > CV_IMAGE_MAX_PIXELS) {
    png_image_free (&png);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "PNG %s: %ux%u is over the %zu pixels the "
        "readers take", path, (unsigned) png.width, (unsigned) png.height, CV_IMAGE_MAX_PIXELS);
  }
  cc_status st = cv_image_new (png.width, png.height, format, out);
  if (st != CC_SUCCESS) {
    png_image_free (&png);
    return st;
  }
  if (!png_image_finish_read (&png, NULL, out->planes[0], (png_int_32) out->pitch[0], NULL)) {
    cv_image_free (out);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "corrupt PNG %s: %s", path, png.message);
  }
  return CC_SUCCESS;
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

/* ---- JPEG (libjpeg): errors jump back instead of exiting */
#include <jpeglib.h>

typedef struct {
  struct jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
} jpeg_error;

static void
jpeg_error_exit (j_common_ptr cinfo)
{
  jpeg_error *e = (jpeg_error *) cinfo->err;
  (*cinfo->err->format_message) (cinfo, e->message);
  longjmp (e->jump, 1);
}

cc_status
cv_cdnet_frame_load (const char *dir, int t, cc_image *out)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/input/in%06d.jpg", dir, t);
  return cv_jpeg_load (path, out);
}

cc_status
cv_jpeg_load (const char *path, cc_image *out)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "cannot open JPEG %s", path);
  struct jpeg_decompress_struct cinfo;
  jpeg_error err;
  uint8_t *volatile row = NULL;
  volatile int allocated = 0;
  cinfo.err = jpeg_std_error (&err.mgr);
  err.mgr.error_exit = jpeg_error_exit;
  if (setjmp (err.jump)) {
    jpeg_destroy_decompress (&cinfo);
    fclose (f);
    free (row);
    if (allocated)
      cv_image_free (out);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "corrupt JPEG %s: %s", path, err.message);
  }
  jpeg_create_decompress (&cinfo);
  jpeg_stdio_src (&cinfo, f);
  jpeg_read_header (&cinfo, TRUE);
  /* before libjpeg's own buffers (a row of the width) and ours */
  if ((size_t) cinfo.image_width * cinfo.image_height > CV_IMAGE_MAX_PIXELS) {
    unsigned w = cinfo.image_width, h = cinfo.image_height;
    jpeg_destroy_decompress (&cinfo);
    fclose (f);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "JPEG %s: %ux%u is over the %zu pixels the "
        "readers take", path, w, h, CV_IMAGE_MAX_PIXELS);
  }
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress (&cinfo);
  cc_status st = cv_image_new ((int) cinfo.output_width, (int) cinfo.output_height,
      CC_FORMAT_RGBX8, out);
  if (st != CC_SUCCESS) {
    jpeg_destroy_decompress (&cinfo);
    fclose (f);
    return st;
  }
  allocated = 1;
  row = malloc ((size_t) cinfo.output_width * 3);
  if (!row)
    longjmp (err.jump, 1);
  while (cinfo.output_scanline < cinfo.output_height) {
    int y = (int) cinfo.output_scanline;
    JSAMPROW rows[1] = { row };
    jpeg_read_scanlines (&cinfo, rows, 1);
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    for (unsigned x = 0; x < cinfo.output_width; x++) {
      o[4 * x] = row[3 * x];
      o[4 * x + 1] = row[3 * x + 1];
      o[4 * x + 2] = row[3 * x + 2];
      o[4 * x + 3] = 255;
    }
  }
  jpeg_finish_decompress (&cinfo);
  jpeg_destroy_decompress (&cinfo);
  free (row);
  fclose (f);
  return CC_SUCCESS;
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

cc_status
cv_image_load (const char *path, cc_image *out)
{
  unsigned char magic[4] = { 0 };
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "cannot open %s: %s", path, strerror (errno));
  size_t n = fread (magic, 1, sizeof magic, f);
  fclose (f);
  if (n >= 4 && magic[0] == 0x89 && magic[1] == 'P' && magic[2] == 'N' && magic[3] == 'G') {
    cc_status st = cv_png_load (path, CC_FORMAT_RGBX8, out);
    /* libpng's "cannot read" of a file that opens and has the signature: a bad header */
    if (st == CC_ERROR_IO) {
      char why[512];   /* a copy: the message buffer is the one being written */
      snprintf (why, sizeof why, "%s", cc_last_error ());
      st = cc_set_error (CC_ERROR_CORRUPT_DATA, "corrupt PNG: %s", why);
    }
    return st;
  }
  if (n >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF)
    return cv_jpeg_load (path, out);
  return cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s is neither a PNG nor a JPEG image", path);
}
