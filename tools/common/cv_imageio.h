/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Images in and out for the tools and tests. Reading is cudacore-imageio's
 * (cudacore/cc_imageio.h: libpng and libjpeg, shared with the quadcut element); the
 * cv_ names below are those readers under the tools' names. Writing PNGs and the
 * median plate are the tools' own. Host images, malloc'd. */
#ifndef CV_IMAGEIO_H
#define CV_IMAGEIO_H
#include <cudacore/cc_core.h>
#include <cudacore/cc_imageio.h>

#define CV_IMAGE_MAX_PIXELS CC_IMAGE_READ_MAX_PIXELS
/* cc_image_read_png: a PNG as GRAY8 or RGBX8. */
cc_status cv_png_load (const char *path, cc_format format, cc_image *out);
/* cc_image_read_jpeg: a JPEG as RGBX8; truncated or corrupt files are errors. */
cc_status cv_jpeg_load (const char *path, cc_image *out);
/* Frame t (from 1) of a CDnet 2014 category folder, DIR/input/in%06d.jpg, as
 * cv_jpeg_load gives it. */
cc_status cv_cdnet_frame_load (const char *dir, int t, cc_image *out);
/* cc_image_read: a PNG or a JPEG, told apart by its signature, as RGBX8. */
cc_status cv_image_load (const char *path, cc_image *out);
/* Per-pixel, per-channel median (the upper one of an even count) of n RGBX8 host
 * frames of one size: a background plate learned from a clip's first frames. out:
 * a new RGBX8 image (X = 255). */
cc_status cv_median_frames (const cc_image *frames, int n, cc_image *out);
/* Saves a GRAY8, RGBX8 or BGRX8 host image; RGBX8/BGRX8 as opaque RGB (the X byte is
 * padding, not alpha). */
cc_status cv_png_save (const char *path, const cc_image *img);
/* Frees an image from the loaders or cv_image_new (cc_image_host_free). */
void cv_image_free (cc_image *img);
/* A zeroed host image, packed rows (cc_image_host_new). */
cc_status cv_image_new (int width, int height, cc_format format, cc_image *out);
#endif
