/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Image views: format facts, checks, and the convenience allocation/copy helpers. */
#include "cc_internal.h"

#include <stdlib.h>
#include <string.h>

const char *
cc_format_name (cc_format format)
{
  switch (format) {
    case CC_FORMAT_GRAY8: return "GRAY8";
    case CC_FORMAT_RGBX8: return "RGBX8";
    case CC_FORMAT_BGRX8: return "BGRX8";
    case CC_FORMAT_NV12: return "NV12";
    case CC_FORMAT_I420: return "I420";
    case CC_FORMAT_F32: return "F32";
    case CC_FORMAT_F32C2: return "F32C2";
  }
  return "unknown";
}

int
cc_format_planes (cc_format format)
{
  switch (format) {
    case CC_FORMAT_NV12: return 2;
    case CC_FORMAT_I420: return 3;
    default: return 1;
  }
}

int
cc_format_plane_bpp (cc_format format, int plane)
{
  switch (format) {
    case CC_FORMAT_GRAY8: return 1;
    case CC_FORMAT_RGBX8:
    case CC_FORMAT_BGRX8: return 4;
    case CC_FORMAT_NV12: return plane == 0 ? 1 : 2;
    case CC_FORMAT_I420: return 1;
    case CC_FORMAT_F32: return 4;
    case CC_FORMAT_F32C2: return 8;
  }
  return 0;
}

void
cc_format_plane_size (cc_format format, int width, int height, int plane,
    int *plane_width, int *plane_height)
{
  int chroma = plane > 0 && (format == CC_FORMAT_NV12 || format == CC_FORMAT_I420);
  *plane_width = chroma ? (width + 1) / 2 : width;
  *plane_height = chroma ? (height + 1) / 2 : height;
}

cc_image
cc_image_view (void *data, size_t pitch, int width, int height, cc_format format,
    cc_location location)
{
  cc_image img;
  memset (&img, 0, sizeof img);
  img.planes[0] = data;
  img.pitch[0] = pitch;
  img.width = width;
  img.height = height;
  img.format = format;
  img.location = location;
  return img;
}

cc_status
cc_image_check (const cc_image *img, const char *what)
{
  CC_CHECK_ARG (img != NULL, "%s: image is NULL", what);
  CC_CHECK_ARG (img->format >= CC_FORMAT_GRAY8 && img->format <= CC_FORMAT_F32C2,
      "%s: unknown format %d", what, (int) img->format);
  CC_CHECK_ARG (img->width >= 1 && img->height >= 1 && img->width <= 65536
      && img->height <= 65536, "%s: size %dx%d out of range 1..65536", what,
      img->width, img->height);
  for (int p = 0; p < cc_format_planes (img->format); p++) {
    int pw, ph;
    cc_format_plane_size (img->format, img->width, img->height, p, &pw, &ph);
    CC_CHECK_ARG (img->planes[p] != NULL, "%s: plane %d of %s is NULL", what, p,
        cc_format_name (img->format));
    CC_CHECK_ARG (img->pitch[p] >= (size_t) pw * cc_format_plane_bpp (img->format, p),
        "%s: plane %d pitch %zu is less than a row of %d bytes", what, p,
        img->pitch[p], pw * cc_format_plane_bpp (img->format, p));
  }
  return CC_SUCCESS;
}

cc_status
cc_image_check_location (const cc_context *ctx, const cc_image *img, const char *what)
{
  cc_location want = ctx->backend == CC_BACKEND_CUDA ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  CC_CHECK_ARG (img->location == want, "%s: image is in %s memory but the %s backend needs %s memory",
      what, img->location == CC_LOCATION_DEVICE ? "device" : "host",
      cc_backend_name (ctx->backend), want == CC_LOCATION_DEVICE ? "device" : "host");
  return CC_SUCCESS;
}

cc_status
cc_image_check_same_size (const cc_image *a, const cc_image *b, const char *what_a,
    const char *what_b)
{
  CC_CHECK_ARG (a->width == b->width && a->height == b->height,
      "%s is %dx%d but %s is %dx%d", what_a, a->width, a->height, what_b,
      b->width, b->height);
  return CC_SUCCESS;
}

int
cc_pyramid_sizes (int width, int height, int wanted, int min_size, int *widths, int *heights)
{
  int levels = 1;
  widths[0] = width;
  heights[0] = height;
  for (int l = 1; l < wanted; l++) {
    int w = (widths[l - 1] + 1) / 2, h = (heights[l - 1] + 1) / 2;
    if (w < min_size || h < min_size)
      break;
    widths[l] = w;
    heights[l] = h;
    levels = l + 1;
  }
  return levels;
}

cc_status
cc_image_alloc (cc_context *ctx, int width, int height, cc_format format,
    cc_location location, cc_image *out)
{
  CC_CHECK_ARG (out != NULL, "cc_image_alloc: out is NULL");
  memset (out, 0, sizeof *out);
  CC_CHECK_ARG (width >= 1 && height >= 1 && width <= 65536 && height <= 65536,
      "cc_image_alloc: size %dx%d out of range 1..65536", width, height);
  CC_CHECK_ARG (location == CC_LOCATION_HOST || (ctx && ctx->backend == CC_BACKEND_CUDA),
      "cc_image_alloc: device memory needs a CUDA context");
  out->width = width;
  out->height = height;
  out->format = format;
  out->location = location;
  for (int p = 0; p < cc_format_planes (format); p++) {
    int pw, ph;
    cc_format_plane_size (format, width, height, p, &pw, &ph);
    size_t row = (size_t) pw * cc_format_plane_bpp (format, p);
    if (location == CC_LOCATION_HOST) {
      size_t pitch = (row + 63) & ~(size_t) 63;
      out->planes[p] = aligned_alloc (64, pitch * ph);
      out->pitch[p] = pitch;
      if (!out->planes[p]) {
        cc_image_free (ctx, out);
        return cc_set_error (CC_ERROR_OUT_OF_MEMORY,
            "cc_image_alloc: %zu bytes of host memory", pitch * ph);
      }
    } else {
      cc_status st = CC_CUDA_ONLY (cc_cuda_malloc_pitch (ctx, row, ph,
              &out->planes[p], &out->pitch[p]));
      if (st != CC_SUCCESS) {
        cc_image_free (ctx, out);
        return st;
      }
    }
  }
  return CC_SUCCESS;
}

void
cc_image_free (cc_context *ctx, cc_image *img)
{
  if (!img)
    return;
  for (int p = 0; p < CC_MAX_PLANES; p++) {
    if (!img->planes[p])
      continue;
    if (img->location == CC_LOCATION_HOST)
      free (img->planes[p]);
#if CC_HAVE_CUDA
    else
      cc_cuda_free (ctx, img->planes[p]);
#endif
    img->planes[p] = NULL;
  }
}

cc_status
cc_image_copy (cc_context *ctx, cc_stream stream, const cc_image *src, cc_image *dst)
{
  CC_TRY (cc_image_check (src, "cc_image_copy: src"));
  CC_TRY (cc_image_check (dst, "cc_image_copy: dst"));
  CC_CHECK_ARG (src->format == dst->format, "cc_image_copy: src is %s, dst is %s",
      cc_format_name (src->format), cc_format_name (dst->format));
  CC_TRY (cc_image_check_same_size (src, dst, "cc_image_copy: src", "dst"));
  bool any_device = src->location == CC_LOCATION_DEVICE || dst->location == CC_LOCATION_DEVICE;
  CC_CHECK_ARG (!any_device || (ctx && ctx->backend == CC_BACKEND_CUDA),
      "cc_image_copy: device memory needs a CUDA context");
  for (int p = 0; p < cc_format_planes (src->format); p++) {
    int pw, ph;
    cc_format_plane_size (src->format, src->width, src->height, p, &pw, &ph);
    size_t row = (size_t) pw * cc_format_plane_bpp (src->format, p);
    if (!any_device) {
      for (int y = 0; y < ph; y++)
        memcpy ((char *) dst->planes[p] + y * dst->pitch[p],
            (const char *) src->planes[p] + y * src->pitch[p], row);
    } else {
      CC_TRY (CC_CUDA_ONLY (cc_cuda_copy_2d (cc_stream_resolve (ctx, stream), dst->planes[p], dst->pitch[p],
                  dst->location, src->planes[p], src->pitch[p], src->location, row, ph)));
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_image_fill (cc_context *ctx, cc_stream stream, cc_image *img, uint8_t value)
{
  CC_TRY (cc_image_check (img, "cc_image_fill"));
  for (int p = 0; p < cc_format_planes (img->format); p++) {
    int pw, ph;
    cc_format_plane_size (img->format, img->width, img->height, p, &pw, &ph);
    size_t row = (size_t) pw * cc_format_plane_bpp (img->format, p);
    if (img->location == CC_LOCATION_HOST) {
      for (int y = 0; y < ph; y++)
        memset ((char *) img->planes[p] + y * img->pitch[p], value, row);
    } else {
      CC_CHECK_ARG (ctx && ctx->backend == CC_BACKEND_CUDA,
          "cc_image_fill: device memory needs a CUDA context");
      CC_TRY (CC_CUDA_ONLY (cc_cuda_memset_2d_async (cc_stream_resolve (ctx, stream), img->planes[p], img->pitch[p],
                  value, row, ph)));
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_image_resize_nearest (cc_context *ctx, cc_stream stream, const cc_image *src,
    cc_image *dst)
{
  CC_CHECK_ARG (ctx != NULL, "cc_image_resize_nearest: ctx is NULL");
  CC_TRY (cc_image_check (src, "cc_image_resize_nearest: src"));
  CC_TRY (cc_image_check (dst, "cc_image_resize_nearest: dst"));
  CC_CHECK_ARG (src->format == dst->format && (src->format == CC_FORMAT_F32
          || src->format == CC_FORMAT_F32C2),
      "cc_image_resize_nearest: needs two F32 or two F32C2 images (got %s, %s)",
      cc_format_name (src->format), cc_format_name (dst->format));
  CC_TRY (cc_image_check_location (ctx, src, "cc_image_resize_nearest: src"));
  CC_TRY (cc_image_check_location (ctx, dst, "cc_image_resize_nearest: dst"));
  if (ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_resize_nearest (cc_stream_resolve (ctx, stream), src, dst));
  size_t bpp = (size_t) cc_format_plane_bpp (src->format, 0);
  for (int y = 0; y < dst->height; y++) {
    int sy = (int) ((long) y * src->height / dst->height);
    const char *srow = (const char *) src->planes[0] + (size_t) sy * src->pitch[0];
    char *drow = (char *) dst->planes[0] + (size_t) y * dst->pitch[0];
    for (int x = 0; x < dst->width; x++)
      memcpy (drow + x * bpp, srow + (size_t) ((long) x * src->width / dst->width) * bpp, bpp);
  }
  return CC_SUCCESS;
}
