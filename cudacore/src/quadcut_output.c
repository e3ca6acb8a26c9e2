/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a Quad-Cut compute gives: the mask and alpha copies, the composite over a
 * background (colour, image or the blurred frame), the alpha byte, the debug view of
 * the leaves, the matte, one of these written by output kind (cc_quadcut_render), and
 * the box filter that feathers the mask and blurs the frame. */
#include "quadcut_module.h"

#include <string.h>

/* Box filter of radius r (window clamped at the frame edges: edge pixels repeat)
 * over nch channels of a pixel array of stride `bpp` bytes; integer sums, rounded
 * to nearest. dst may not be src. */
void
cc_qc_box_filter (const cc_quadcut *q, const uint8_t *src, size_t spitch, int sbpp,
    uint8_t *dst, size_t dpitch, int dbpp, int nch, int r, int w, int h)
{
  uint32_t *tmp = q->box_tmp;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < h; y++) {
    const uint8_t *row = src + (size_t) y * spitch;
    uint32_t *t = tmp + (size_t) y * w * nch;
    for (int c = 0; c < nch; c++) {
      uint32_t s = 0;
      for (int k = -r; k <= r; k++)
        s += row[cc_clampi (k, 0, w - 1) * sbpp + c];
      for (int x = 0; x < w; x++) {
        t[(size_t) x * nch + c] = s;
        s += row[cc_clampi (x + r + 1, 0, w - 1) * sbpp + c];
        s -= row[cc_clampi (x - r, 0, w - 1) * sbpp + c];
      }
    }
  }
  const uint32_t area = (uint32_t) (2 * r + 1) * (2 * r + 1);
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int x = 0; x < w; x++) {
    for (int c = 0; c < nch; c++) {
      uint32_t s = 0;
      for (int k = -r; k <= r; k++)
        s += tmp[((size_t) cc_clampi (k, 0, h - 1) * w + x) * nch + c];
      for (int y = 0; y < h; y++) {
        dst[(size_t) y * dpitch + (size_t) x * dbpp + c] = (uint8_t) ((s + area / 2) / area);
        s += tmp[((size_t) cc_clampi (y + r + 1, 0, h - 1) * w + x) * nch + c];
        s -= tmp[((size_t) cc_clampi (y - r, 0, h - 1) * w + x) * nch + c];
      }
    }
  }
}

static cc_status
copy_plane (cc_quadcut *q, cc_stream stream, int alpha, cc_image *dst, const char *fn)
{
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_CHECK_ARG (dst != NULL, "%s: dst is NULL", fn);
  CC_TRY (cc_image_check (dst, "dst"));
  CC_TRY (cc_image_check_location (q->mod.ctx, dst, "dst"));
  CC_CHECK_ARG (dst->format == CC_FORMAT_GRAY8 && dst->width == q->mod.width
      && dst->height == q->mod.height,
      "%s: dst must be a %dx%d GRAY8 image", fn, q->mod.width, q->mod.height);
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda) {
#if CC_HAVE_CUDA
    return cc_cuda_copy_2d (stream, dst->planes[0], dst->pitch[0], dst->location,
        cc_cuda_quadcut_plane (q->cuda, alpha), (size_t) q->mod.width, CC_LOCATION_DEVICE,
        (size_t) q->mod.width, (size_t) q->mod.height);
#endif
  }
  const uint8_t *src = alpha ? q->alpha : q->mask;
  for (int y = 0; y < q->mod.height; y++)
    memcpy ((uint8_t *) dst->planes[0] + (size_t) y * dst->pitch[0],
        src + (size_t) y * q->mod.width, (size_t) q->mod.width);
  return CC_SUCCESS;
}

cc_status
cc_quadcut_get_mask (cc_quadcut *q, cc_stream stream, cc_image *dst)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_get_mask: q is NULL");
  return copy_plane (q, stream, 0, dst, "cc_quadcut_get_mask");
}

cc_status
cc_quadcut_get_alpha (cc_quadcut *q, cc_stream stream, cc_image *dst)
{
  CC_CHECK_ARG (q != NULL, "cc_quadcut_get_alpha: q is NULL");
  return copy_plane (q, stream, 1, dst, "cc_quadcut_get_alpha");
}

static int
is_yuv (const cc_image *f)
{
  return f->format == CC_FORMAT_NV12 || f->format == CC_FORMAT_I420;
}

/* The frame under a box blur of radius r into q->blurred, described by *out (same
 * format; YUV chroma planes blurred with radius (r + 1) / 2 at their own size). */
static void
blur_frame (cc_quadcut *q, const cc_image *f, int r, cc_image *out)
{
  const int w = q->mod.width, h = q->mod.height;
  const int cw = (w + 1) / 2, ch = (h + 1) / 2, rc = (r + 1) / 2;
  memset (out, 0, sizeof *out);
  out->width = w;
  out->height = h;
  out->format = f->format;
  out->location = CC_LOCATION_HOST;
  if (!is_yuv (f)) {
    out->planes[0] = q->blurred;
    out->pitch[0] = 4 * (size_t) w;
    cc_qc_box_filter (q, f->planes[0], f->pitch[0], 4, q->blurred, out->pitch[0], 4, 3, r, w, h);
    return;
  }
  out->planes[0] = q->blurred;
  out->pitch[0] = (size_t) w;
  cc_qc_box_filter (q, f->planes[0], f->pitch[0], 1, q->blurred, w, 1, 1, r, w, h);
  uint8_t *c = q->blurred + q->npx;
  if (f->format == CC_FORMAT_NV12) {
    out->planes[1] = c;
    out->pitch[1] = 2 * (size_t) cw;
    cc_qc_box_filter (q, f->planes[1], f->pitch[1], 2, c, out->pitch[1], 2, 2, rc, cw, ch);
  } else {
    out->planes[1] = c;
    out->planes[2] = c + (size_t) cw * ch;
    out->pitch[1] = out->pitch[2] = (size_t) cw;
    cc_qc_box_filter (q, f->planes[1], f->pitch[1], 1, out->planes[1], cw, 1, 1, rc, cw, ch);
    cc_qc_box_filter (q, f->planes[2], f->pitch[2], 1, out->planes[2], cw, 1, 1, rc, cw, ch);
  }
}

cc_status
cc_quadcut_composite (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    const cc_background *bg, cc_image *out)
{
  const char *fn = "cc_quadcut_composite";
  CC_CHECK_ARG (q != NULL && bg != NULL, "%s: q or bg is NULL", fn);
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_TRY (cc_qc_check_frame (q, frame, fn, "frame"));
  CC_TRY (cc_qc_check_frame (q, out, fn, "out"));
  CC_CHECK_ARG (out->format == frame->format, "%s: out is %s, frame %s", fn,
      cc_format_name (out->format), cc_format_name (frame->format));
  const int yuv = is_yuv (frame);
  const cc_image *b = NULL;
  cc_image blurred;
  uint8_t colour[4] = { 0, 0, 0, 0 }, cy = 0, cu = 0, cv = 0;
  switch (bg->kind) {
    case CC_BACKGROUND_IMAGE:
      CC_TRY (cc_qc_check_frame (q, bg->image, fn, "background image"));
      CC_CHECK_ARG (bg->image->format == frame->format, "%s: background image is %s, "
          "frame %s", fn, cc_format_name (bg->image->format), cc_format_name (frame->format));
      b = bg->image;
      break;
    case CC_BACKGROUND_COLOR:
      colour[frame->format == CC_FORMAT_BGRX8 ? 2 : 0] = bg->r;
      colour[1] = bg->g;
      colour[frame->format == CC_FORMAT_BGRX8 ? 0 : 2] = bg->b;
      cc_rgb_to_yuv (bg->r, bg->g, bg->b, &cy, &cu, &cv);
      break;
    case CC_BACKGROUND_BLUR:
      CC_CHECK_ARG (bg->blur_radius >= 1 && bg->blur_radius <= 256,
          "%s: blur_radius %d out of range 1..256", fn, bg->blur_radius);
      if (q->cuda)
        break;
      /* blurred first: out may be frame */
      blur_frame (q, frame, bg->blur_radius, &blurred);
      b = &blurred;
      break;
    default:
      return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s: unknown background kind %d", fn,
          (int) bg->kind);
  }
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_composite (q->cuda, stream, frame, bg, out));
  if (yuv) {
    const int cw = (q->mod.width + 1) / 2, ch = (q->mod.height + 1) / 2;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int y = 0; y < q->mod.height; y++)
      for (int x = 0; x < q->mod.width; x++)
        cc_qc_composite_luma (frame, b, cy, q->alpha, x, y, out);
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int y = 0; y < ch; y++)
      for (int x = 0; x < cw; x++)
        cc_qc_composite_chroma (frame, b, cu, cv, q->alpha, x, y, out);
    return CC_SUCCESS;
  }
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < q->mod.height; y++) {
    const uint8_t *f = (const uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    const uint8_t *bp0 = b ? (const uint8_t *) b->planes[0] + (size_t) y * b->pitch[0] : NULL;
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    const uint8_t *al = q->alpha + (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++) {
      unsigned a = al[x];
      const uint8_t *bp = bp0 ? bp0 + 4 * x : colour;
      uint8_t f3 = f[4 * x + 3];
      for (int c = 0; c < 3; c++)
        o[4 * x + c] = cc_qc_blend (a, f[4 * x + c], bp[c]);
      o[4 * x + 3] = f3;
    }
  }
  return CC_SUCCESS;
}

cc_status
cc_quadcut_set_alpha (cc_quadcut *q, cc_stream stream, cc_image *frame)
{
  const char *fn = "cc_quadcut_set_alpha";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_TRY (cc_qc_check_frame (q, frame, fn, "frame"));
  if (frame->format != CC_FORMAT_RGBX8 && frame->format != CC_FORMAT_BGRX8)
    return cc_set_error (CC_ERROR_NOT_SUPPORTED, "%s: %s has no alpha byte (RGBX8 or "
        "BGRX8 only)", fn, cc_format_name (frame->format));
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_set_alpha (q->cuda, stream, frame));
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < q->mod.height; y++) {
    uint8_t *o = (uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    const uint8_t *al = q->alpha + (size_t) y * q->mod.width;
    for (int x = 0; x < q->mod.width; x++)
      o[4 * x + 3] = al[x];
  }
  return CC_SUCCESS;
}

cc_status
cc_quadcut_draw (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    cc_image *out)
{
  const char *fn = "cc_quadcut_draw";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
  CC_CHECK_ARG (q->params.nodes == CC_QUADCUT_NODES_LEAVES, "%s: NODES_PIXELS has no leaves",
      fn);
  CC_TRY (cc_qc_check_frame (q, frame, fn, "frame"));
  CC_TRY (cc_qc_check_frame (q, out, fn, "out"));
  CC_CHECK_ARG (out->format == frame->format, "%s: out is %s, frame %s", fn,
      cc_format_name (out->format), cc_format_name (frame->format));
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_draw_leaves (q->cuda, stream, frame, out));
  if (is_yuv (frame)) {
    const int cw = (q->mod.width + 1) / 2, ch = (q->mod.height + 1) / 2;
    /* chroma first: its blocks read the frame's chroma only, luma its own pixel */
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int y = 0; y < ch; y++)
      for (int x = 0; x < cw; x++) {
        size_t i = (size_t) (2 * y) * q->mod.width + 2 * x;
        cc_qc_debug_chroma (&q->leaves[q->leaf_id[i]], x, y, q->seed[i], frame, out);
      }
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int y = 0; y < q->mod.height; y++)
      for (int x = 0; x < q->mod.width; x++) {
        size_t i = (size_t) y * q->mod.width + x;
        cc_qc_debug_luma (&q->leaves[q->leaf_id[i]], x, y, q->seed[i], frame, out);
      }
    return CC_SUCCESS;
  }
  const int ri = frame->format == CC_FORMAT_RGBX8 ? 0 : 2;
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < q->mod.height; y++) {
    const uint8_t *f = (const uint8_t *) frame->planes[0] + (size_t) y * frame->pitch[0];
    uint8_t *o = (uint8_t *) out->planes[0] + (size_t) y * out->pitch[0];
    for (int x = 0; x < q->mod.width; x++) {
      size_t i = (size_t) y * q->mod.width + x;
      uint8_t px[4] = { f[4 * x], f[4 * x + 1], f[4 * x + 2], f[4 * x + 3] };
      cc_qc_debug_pixel (&q->leaves[q->leaf_id[i]], x, y, q->seed[i], px, ri, o + 4 * x);
      o[4 * x + 3] = px[3];
    }
  }
  return CC_SUCCESS;
}
/* The matte (CC_QUADCUT_OUTPUT_MASK) into out, checked by the caller. */
static cc_status
matte (cc_quadcut *q, cc_stream stream, cc_image *out)
{
  stream = cc_qc_submit_stream (q, stream);
  if (q->cuda)
    return CC_CUDA_ONLY (cc_cuda_quadcut_matte (q->cuda, stream, out));
  if (is_yuv (out)) {
    const int cw = (q->mod.width + 1) / 2, ch = (q->mod.height + 1) / 2;
    uint8_t wy, wu, wv, ky, ku, kv;
    cc_rgb_to_yuv (255, 255, 255, &wy, &wu, &wv);
    cc_rgb_to_yuv (0, 0, 0, &ky, &ku, &kv);
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int y = 0; y < q->mod.height; y++)
      for (int x = 0; x < q->mod.width; x++)
        cc_qc_matte_luma (q->alpha, wy, ky, x, y, out);
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
    for (int y = 0; y < ch; y++)
      for (int x = 0; x < cw; x++)
        cc_qc_matte_chroma (q->alpha, wu, wv, ku, kv, x, y, out);
    return CC_SUCCESS;
  }
#pragma omp parallel for schedule(static) num_threads(cc_qc_threads (q))
  for (int y = 0; y < q->mod.height; y++)
    for (int x = 0; x < q->mod.width; x++)
      cc_qc_matte_pixel (q->alpha, x, y, out);
  return CC_SUCCESS;
}

cc_status
cc_quadcut_render (cc_quadcut *q, cc_stream stream, cc_quadcut_output output,
    const cc_background *bg, cc_image *frame)
{
  const char *fn = "cc_quadcut_render";
  CC_CHECK_ARG (q != NULL, "%s: q is NULL", fn);
  switch (output) {
    case CC_QUADCUT_OUTPUT_COMPOSITE:
      return cc_quadcut_composite (q, stream, frame, bg, frame);
    case CC_QUADCUT_OUTPUT_ALPHA:
      return cc_quadcut_set_alpha (q, stream, frame);
    case CC_QUADCUT_OUTPUT_MASK:
      CC_CHECK_ARG (q->have_run, "%s: no frame was run yet", fn);
      CC_TRY (cc_qc_check_frame (q, frame, fn, "frame"));
      return matte (q, stream, frame);
    case CC_QUADCUT_OUTPUT_DEBUG:
      return cc_quadcut_draw (q, stream, frame, frame);
  }
  return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "%s: unknown output %d", fn, (int) output);
}
