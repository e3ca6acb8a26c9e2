/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PNG (libpng's simplified API) and JPEG (libjpeg) readers: cc_imageio.h. */
#include "cudacore/cc_imageio.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <jerror.h>

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
cc_image_host_new (int width, int height, cc_format format, cc_image *out)
{
  int bpp = bytes_per_pixel (format);
  if (bpp == 0 || width < 1 || height < 1)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "cc_image_host_new: %dx%d of format %d",
        width, height, (int) format);
  void *data = calloc ((size_t) width * height, bpp);
  if (!data)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_image_host_new: %dx%d", width, height);
  *out = cc_image_view (data, (size_t) width * bpp, width, height, format, CC_LOCATION_HOST);
  return CC_SUCCESS;
}

void
cc_image_host_free (cc_image *img)
{
  if (img) {
    free (img->planes[0]);
    img->planes[0] = NULL;
  }
}

cc_status
cc_image_read_png (const char *path, cc_format format, cc_image *out)
{
  if (format != CC_FORMAT_GRAY8 && format != CC_FORMAT_RGBX8)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "cc_image_read_png: only GRAY8 or RGBX8");
  png_image png;
  memset (&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file (&png, path))
    return cc_set_error (CC_ERROR_IO, "cannot read PNG %s: %s", path, png.message);
  png.format = format == CC_FORMAT_GRAY8 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGBA;
  if ((size_t) png.width * png.height > CC_IMAGE_READ_MAX_PIXELS) {
    png_image_free (&png);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "PNG %s: %ux%u is over the %zu pixels the "
        "readers take", path, (unsigned) png.width, (unsigned) png.height,
        CC_IMAGE_READ_MAX_PIXELS);
  }
  cc_status st = cc_image_host_new (png.width, png.height, format, out);
  if (st != CC_SUCCESS) {
    png_image_free (&png);
    return st;
  }
  if (!png_image_finish_read (&png, NULL, out->planes[0], (png_int_32) out->pitch[0], NULL)) {
    cc_image_host_free (out);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "corrupt PNG %s: %s", path, png.message);
  }
  return CC_SUCCESS;
}

/* ---- JPEG: errors jump back instead of exiting; warnings that mean missing or
 * damaged pixel data are errors; nothing is printed */

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

/* msg_level -1: a warning. A truncated file (JWRN_JPEG_EOF: libjpeg inserts an end
 * marker and fills the missing rows with grey), data cut short by a marker, lost
 * synchronisation, bad Huffman codes and broken progressive scans leave pixels that
 * are not the file's: errors. Other warnings (extraneous bytes before a marker, odd
 * JFIF or Adobe versions) leave the pixels intact and are ignored. Trace messages
 * (level >= 0) are ignored. */
static void
jpeg_emit_message (j_common_ptr cinfo, int msg_level)
{
  if (msg_level >= 0)
    return;
  switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_MUST_RESYNC:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
      jpeg_error_exit (cinfo);
      break;
    default:
      cinfo->err->num_warnings++;
      break;
  }
}

cc_status
cc_image_read_jpeg (const char *path, cc_image *out)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "cannot open JPEG %s: %s", path, strerror (errno));
  struct jpeg_decompress_struct cinfo;
  jpeg_error err;
  uint8_t *volatile row = NULL;
  volatile int allocated = 0;
  cinfo.err = jpeg_std_error (&err.mgr);
  err.mgr.error_exit = jpeg_error_exit;
  err.mgr.emit_message = jpeg_emit_message;
  if (setjmp (err.jump)) {
    jpeg_destroy_decompress (&cinfo);
    fclose (f);
    free (row);
    if (allocated)
      cc_image_host_free (out);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "corrupt JPEG %s: %s", path, err.message);
  }
  jpeg_create_decompress (&cinfo);
  jpeg_stdio_src (&cinfo, f);
  jpeg_read_header (&cinfo, TRUE);
  /* before libjpeg's own buffers (a row of the width) and ours */
  if ((size_t) cinfo.image_width * cinfo.image_height > CC_IMAGE_READ_MAX_PIXELS) {
    unsigned w = cinfo.image_width, h = cinfo.image_height;
    jpeg_destroy_decompress (&cinfo);
    fclose (f);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "JPEG %s: %ux%u is over the %zu pixels the "
        "readers take", path, w, h, CC_IMAGE_READ_MAX_PIXELS);
  }
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress (&cinfo);
  cc_status st = cc_image_host_new ((int) cinfo.output_width, (int) cinfo.output_height,
      CC_FORMAT_RGBX8, out);
  if (st != CC_SUCCESS) {
    jpeg_destroy_decompress (&cinfo);
    fclose (f);
    return st;
  }
  allocated = 1;
  row = malloc ((size_t) cinfo.output_width * 3);
  if (!row) {
    snprintf (err.message, sizeof err.message, "out of memory");
    longjmp (err.jump, 1);
  }
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
  /* reads to the end marker: a file cut after the last row is caught here */
  jpeg_finish_decompress (&cinfo);
  jpeg_destroy_decompress (&cinfo);
  free (row);
  fclose (f);
  return CC_SUCCESS;
}

cc_status
cc_image_read (const char *path, cc_image *out)
{
  struct stat sb;
  if (stat (path, &sb) != 0)
    return cc_set_error (CC_ERROR_IO, "cannot open %s: %s", path, strerror (errno));
  if (!S_ISREG (sb.st_mode))
    return cc_set_error (CC_ERROR_IO, "cannot open %s: not a regular file", path);
  unsigned char magic[4] = { 0 };
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "cannot open %s: %s", path, strerror (errno));
  size_t n = fread (magic, 1, sizeof magic, f);
  fclose (f);
  if (n >= 4 && magic[0] == 0x89 && magic[1] == 'P' && magic[2] == 'N' && magic[3] == 'G') {
    cc_status st = cc_image_read_png (path, CC_FORMAT_RGBX8, out);
    /* libpng's "cannot read" of a file that opens and has the signature: a bad header */
    if (st == CC_ERROR_IO) {
      char why[512];   /* a copy: the message buffer is the one being written */
      snprintf (why, sizeof why, "%s", cc_last_error ());
      st = cc_set_error (CC_ERROR_CORRUPT_DATA, "corrupt PNG: %s", why);
    }
    return st;
  }
  if (n >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF)
    return cc_image_read_jpeg (path, out);
  return cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s is neither a PNG nor a JPEG image", path);
}
