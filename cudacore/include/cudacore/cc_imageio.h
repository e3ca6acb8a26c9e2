/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PNG and JPEG files in, as host images: the decoders the quadcut element (its plate
 * and background files) and the tools (frames, ground truths) share. A library of its
 * own, cudacore-imageio (libpng, libjpeg; docs/dependencies.md), on cudacore's floor so
 * that gst/ and tools/ may both use it; cudacore itself does not link it.
 *
 * A file that is truncated or corrupt is an error (CORRUPT_DATA), never a
 * half-decoded image: libjpeg's "premature end of JPEG file" and its other warnings
 * that mean missing or damaged pixel data are errors here; nothing is printed.
 *
 * Host only: no context, no stream, nothing waits. Paths and outputs must not be
 * NULL. */
#ifndef CUDACORE_CC_IMAGEIO_H
#define CUDACORE_CC_IMAGEIO_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest image the readers take: 2^28 pixels (16384 x 16384; RGBX8 1 GiB). A
 * header that asks for more is refused (CORRUPT_DATA) before anything is allocated:
 * fuzz-jpeg found a 261-byte JPEG asking for 62984 x 40711 (10 GB). */
#define CC_IMAGE_READ_MAX_PIXELS ((size_t) 1 << 28)

/* A zeroed host image with packed rows (GRAY8, RGBX8, BGRX8, F32, F32C2); free it with
 * cc_image_host_free. [in] width, height: >= 1. [out] out.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY. */
cc_status cc_image_host_new (int width, int height, cc_format format, cc_image *out);
/* Frees an image of cc_image_host_new or of the readers; NULL or an empty image: no-op. */
void cc_image_host_free (cc_image *img);

/* A PNG as GRAY8 or RGBX8 (format picks which; X is the PNG's alpha, 255 when it has
 * none). [in] path. [in] format: GRAY8 or RGBX8 (else NOT_SUPPORTED). [out] out.
 * Returns CC_SUCCESS; CC_ERROR_IO when the file cannot be opened or its signature
 * read; CC_ERROR_CORRUPT_DATA; CC_ERROR_OUT_OF_MEMORY. */
cc_status cc_image_read_png (const char *path, cc_format format, cc_image *out);
/* A JPEG as RGBX8 (X = 255); grey JPEGs are expanded to RGB. [in] path. [out] out.
 * Returns CC_SUCCESS, CC_ERROR_IO, CC_ERROR_CORRUPT_DATA, CC_ERROR_OUT_OF_MEMORY. */
cc_status cc_image_read_jpeg (const char *path, cc_image *out);
/* A PNG or a JPEG, told apart by its signature, as RGBX8. [in] path. [out] out.
 * Returns CC_SUCCESS; CC_ERROR_IO when the file cannot be opened or is not a regular
 * file; CC_ERROR_NOT_SUPPORTED ("... is neither a PNG nor a JPEG") for other content;
 * CC_ERROR_CORRUPT_DATA from the decoders; CC_ERROR_OUT_OF_MEMORY. */
cc_status cc_image_read (const char *path, cc_image *out);

#ifdef __cplusplus
}
#endif
#endif
