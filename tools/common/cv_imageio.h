/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PNG in and out for the tools and tests, through libpng's simplified API
 * (docs/dependencies.md says why libpng). Host images, malloc'd. */
#ifndef CV_IMAGEIO_H
#define CV_IMAGEIO_H
#include <cudacore/cc_core.h>

/* The largest image the readers take: 2^28 pixels (16384 x 16384; RGBX8 1 GiB). A
 * header that asks for more is refused (CORRUPT_DATA) before anything is allocated:
 * fuzz-jpeg found a 261-byte JPEG asking for 62984 x 40711 (10 GB). */
#define CV_IMAGE_MAX_PIXELS ((size_t) 1 << 28)
/* Loads a PNG as GRAY8 or RGBX8 (format picks which; X is the PNG's alpha, 255 when it
 * has none). */
cc_status cv_png_load (const char *path, cc_format format, cc_image *out);
/* Loads a JPEG (libjpeg) as RGBX8 (X = 255); grey JPEGs are expanded to RGB. */
cc_status cv_jpeg_load (const char *path, cc_image *out);
/* Frame t (from 1) of a CDnet 2014 category folder, DIR/input/in%06d.jpg, as
 * cv_jpeg_load gives it. */
cc_status cv_cdnet_frame_load (const char *dir, int t, cc_image *out);
/* Loads a PNG or a JPEG, told apart by its signature, as RGBX8: IO when the file
 * cannot be opened, NOT_SUPPORTED ("... is neither a PNG nor a JPEG") for other
 * content, CORRUPT_DATA from the decoders. */
cc_status cv_image_load (const char *path, cc_image *out);
/* Per-pixel, per-channel median (the upper one of an even count) of n RGBX8 host
 * frames of one size: a background plate learned from a clip's first frames. out:
 * a new RGBX8 image (X = 255). */
cc_status cv_median_frames (const cc_image *frames, int n, cc_image *out);
/* Saves a GRAY8, RGBX8 or BGRX8 host image; RGBX8/BGRX8 as opaque RGB (the X byte is
 * padding, not alpha). */
cc_status cv_png_save (const char *path, const cc_image *img);
/* Frees an image from cv_png_load or cv_image_new. */
void cv_image_free (cc_image *img);
/* A zeroed host image, packed rows. */
cc_status cv_image_new (int width, int height, cc_format format, cc_image *out);
#endif
