/* SPDX-License-Identifier: GPL-3.0-or-later */
// Quad-Cut on CUDA, the back and the outputs: the twin of src/quadcut_output.c (and of
// the mask and alpha step of src/quadcut_compute.c), with the formulas of
// src/quadcut_hostdev.h (built without FMA contraction, as quadcut.cu).
//
//  back:    the labels up, scattered to the mask (and the next frame's prior), the box
//           filter for the alpha.
//  outputs: the composite (integer blend) over a colour, an image or the blurred frame,
//           the alpha byte, the matte, the debug view of the leaves.
#include "quadcut_cuda.cuh"

#include <string.h>

// ------------------------------------------------------------------ kernels


__global__ void
qc_scatter_kernel (size_t npx, const int32_t *__restrict__ leaf_id,
    const uint8_t *__restrict__ labels, uint8_t *mask, uint8_t *prev_mask)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npx)
    return;
  uint8_t v = labels[leaf_id[i]] ? 255 : 0;
  mask[i] = v;
  prev_mask[i] = v;
}

// Box filter (the CPU's running sums, summed directly here: the same integers).
__global__ void
qc_box_h_kernel (const uint8_t *__restrict__ src, size_t spitch, int sbpp, int nch, int w,
    int r, uint32_t *tmp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  const uint8_t *row = src + (size_t) y * spitch;
  for (int c = 0; c < nch; c++) {
    uint32_t s = 0;
    for (int k = -r; k <= r; k++)
      s += row[cc_clampi (x + k, 0, w - 1) * sbpp + c];
    tmp[((size_t) y * w + x) * nch + c] = s;
  }
}

__global__ void
qc_box_v_kernel (const uint32_t *__restrict__ tmp, int nch, int w, int h, int r, uint8_t *dst,
    size_t dpitch, int dbpp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w)
    return;
  const uint32_t area = (uint32_t) (2 * r + 1) * (2 * r + 1);
  for (int c = 0; c < nch; c++) {
    uint32_t s = 0;
    for (int k = -r; k <= r; k++)
      s += tmp[((size_t) cc_clampi (y + k, 0, h - 1) * w + x) * nch + c];
    dst[(size_t) y * dpitch + (size_t) x * dbpp + c] = (uint8_t) ((s + area / 2) / area);
  }
}

__global__ void
qc_composite_kernel (cc_image f, const uint8_t *__restrict__ alpha,
    const uint8_t *__restrict__ bsrc, size_t bpitch, uchar4 colour, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  const uint8_t *fp = (const uint8_t *) f.planes[0] + (size_t) y * f.pitch[0] + 4 * x;
  uint8_t *o = (uint8_t *) out.planes[0] + (size_t) y * out.pitch[0] + 4 * x;
  uint8_t c[4] = { colour.x, colour.y, colour.z, colour.w };
  const uint8_t *bp = bsrc ? bsrc + (size_t) y * bpitch + 4 * x : c;
  unsigned a = alpha[(size_t) y * f.width + x];
  uint8_t f0 = fp[0], f1 = fp[1], f2 = fp[2], f3 = fp[3];
  uint8_t b0 = bp[0], b1 = bp[1], b2 = bp[2];
  o[0] = cc_qc_blend (a, f0, b0);
  o[1] = cc_qc_blend (a, f1, b1);
  o[2] = cc_qc_blend (a, f2, b2);
  o[3] = f3;
}

__global__ void
qc_set_alpha_kernel (cc_image f, const uint8_t *__restrict__ alpha)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < f.width)
    ((uint8_t *) f.planes[0])[(size_t) y * f.pitch[0] + 4 * x + 3] =
        alpha[(size_t) y * f.width + x];
}

// NV12 / I420 composite and debug view: luma a thread a pixel, chroma a block.
__global__ void
qc_comp_luma_kernel (cc_image f, cc_image b, int has_b, uint8_t by,
    const uint8_t *__restrict__ alpha, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < f.width)
    cc_qc_composite_luma (&f, has_b ? &b : NULL, by, alpha, x, y, &out);
}

__global__ void
qc_comp_chroma_kernel (cc_image f, cc_image b, int has_b, uint8_t bu, uint8_t bv,
    const uint8_t *__restrict__ alpha, int cw, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < cw)
    cc_qc_composite_chroma (&f, has_b ? &b : NULL, bu, bv, alpha, x, y, &out);
}

// The matte (cc_quadcut_render's MASK): RGBX a thread a pixel; YUV luma a pixel,
// chroma a block.
__global__ void
qc_matte_kernel (const uint8_t *__restrict__ alpha, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < out.width)
    cc_qc_matte_pixel (alpha, x, y, &out);
}

__global__ void
qc_matte_luma_kernel (const uint8_t *__restrict__ alpha, uint8_t wy, uint8_t ky, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < out.width)
    cc_qc_matte_luma (alpha, wy, ky, x, y, &out);
}

__global__ void
qc_matte_chroma_kernel (const uint8_t *__restrict__ alpha, uint8_t wu, uint8_t wv, uint8_t ku,
    uint8_t kv, int cw, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < cw)
    cc_qc_matte_chroma (alpha, wu, wv, ku, kv, x, y, &out);
}

__global__ void
qc_draw_luma_kernel (cc_image f, const cc_quadcut_leaf *__restrict__ leaves,
    const int32_t *__restrict__ leaf_id, const uint8_t *__restrict__ seed, cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  size_t i = (size_t) y * f.width + x;
  cc_quadcut_leaf l = leaves[leaf_id[i]];
  cc_qc_debug_luma (&l, x, y, seed[i], &f, &out);
}

__global__ void
qc_draw_chroma_kernel (cc_image f, const cc_quadcut_leaf *__restrict__ leaves,
    const int32_t *__restrict__ leaf_id, const uint8_t *__restrict__ seed, int cw,
    cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= cw)
    return;
  size_t i = (size_t) (2 * y) * f.width + 2 * x;
  cc_quadcut_leaf l = leaves[leaf_id[i]];
  cc_qc_debug_chroma (&l, x, y, seed[i], &f, &out);
}

__global__ void
qc_draw_leaves_kernel (cc_image f, const cc_quadcut_leaf *__restrict__ leaves,
    const int32_t *__restrict__ leaf_id, const uint8_t *__restrict__ seed, int ri,
    cc_image out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= f.width)
    return;
  size_t i = (size_t) y * f.width + x;
  const uint8_t *fp = (const uint8_t *) f.planes[0] + (size_t) y * f.pitch[0] + 4 * x;
  uint8_t px[4] = { fp[0], fp[1], fp[2], fp[3] }, o[3];
  cc_quadcut_leaf l = leaves[leaf_id[i]];
  cc_qc_debug_pixel (&l, x, y, seed[i], px, ri, o);
  uint8_t *op = (uint8_t *) out.planes[0] + (size_t) y * out.pitch[0] + 4 * x;
  op[0] = o[0];
  op[1] = o[1];
  op[2] = o[2];
  op[3] = px[3];
}

// ------------------------------------------------------------------ host side

// Box filter of radius r over nch channels of a w x h plane (device buffers).
static cc_status
box_filter (cc_cuda_quadcut *s, cudaStream_t st, const uint8_t *src, size_t spitch,
    int sbpp, uint8_t *dst, size_t dpitch, int dbpp, int nch, int r, int w, int h)
{
  qc_box_h_kernel<<<rows_grid (w, h), QC_THREADS, 0, st>>> (src, spitch, sbpp, nch, w, r,
      s->box_tmp);
  CC_CUDA_LAUNCHED ("qc_box_h_kernel");
  qc_box_v_kernel<<<rows_grid (w, h), QC_THREADS, 0, st>>> (s->box_tmp, nch, w, h, r, dst,
      dpitch, dbpp);
  CC_CUDA_LAUNCHED ("qc_box_v_kernel");
  return CC_SUCCESS;
}

// The frame under a box blur into s->blurred, described by *out (as the CPU's).
static cc_status
blur_frame (cc_cuda_quadcut *s, cudaStream_t st, const cc_image *f, int r, cc_image *out)
{
  const int w = s->w, h = s->h, cw = (w + 1) / 2, ch = (h + 1) / 2, rc = (r + 1) / 2;
  memset (out, 0, sizeof *out);
  out->width = w;
  out->height = h;
  out->format = f->format;
  out->location = CC_LOCATION_DEVICE;
  const uint8_t *p0 = (const uint8_t *) f->planes[0];
  if (f->format == CC_FORMAT_RGBX8 || f->format == CC_FORMAT_BGRX8) {
    out->planes[0] = s->blurred;
    out->pitch[0] = 4 * (size_t) w;
    return box_filter (s, st, p0, f->pitch[0], 4, s->blurred, out->pitch[0], 4, 3, r, w, h);
  }
  out->planes[0] = s->blurred;
  out->pitch[0] = (size_t) w;
  CC_TRY (box_filter (s, st, p0, f->pitch[0], 1, s->blurred, w, 1, 1, r, w, h));
  uint8_t *c = s->blurred + s->npx;
  if (f->format == CC_FORMAT_NV12) {
    out->planes[1] = c;
    out->pitch[1] = 2 * (size_t) cw;
    return box_filter (s, st, (const uint8_t *) f->planes[1], f->pitch[1], 2, c, out->pitch[1],
        2, 2, rc, cw, ch);
  }
  out->planes[1] = c;
  out->planes[2] = c + (size_t) cw * ch;
  out->pitch[1] = out->pitch[2] = (size_t) cw;
  CC_TRY (box_filter (s, st, (const uint8_t *) f->planes[1], f->pitch[1], 1,
      (uint8_t *) out->planes[1], cw, 1, 1, rc, cw, ch));
  return box_filter (s, st, (const uint8_t *) f->planes[2], f->pitch[2], 1,
      (uint8_t *) out->planes[2], cw, 1, 1, rc, cw, ch);
}

cc_status
cc_cuda_quadcut_back (cc_cuda_quadcut *s, cudaStream_t st, const uint8_t *labels,
    int n_leaves, int feather)
{
  if (n_leaves > s->labels_cap) {
    cc_cuda_free (s->ctx, s->labels);
    s->labels = NULL;
    s->labels_cap = 0;
    int cap = (int) cc_qc_capacity (n_leaves, 64);
    CC_TRY (cc_cuda_malloc (s->ctx, (size_t) cap, (void **) &s->labels));
    s->labels_cap = cap;
  }
  CC_CUDA_TRY (cudaMemcpyAsync (s->labels, labels, (size_t) n_leaves, cudaMemcpyHostToDevice,
      st), "quadcut: labels upload");
  // the host's labels buffer may change after return: wait for the copy
  CC_CUDA_TRY (cudaStreamSynchronize (st), "quadcut: synchronize");
  qc_scatter_kernel<<<flat_blocks (s->npx), QC_THREADS, 0, st>>> (s->npx, s->leaf_id,
      s->labels, s->mask, s->prev_mask);
  CC_CUDA_LAUNCHED ("qc_scatter_kernel");
  if (feather > 0)
    return box_filter (s, st, s->mask, s->w, 1, s->alpha, s->w, 1, 1, feather, s->w, s->h);
  CC_CUDA_TRY (cudaMemcpyAsync (s->alpha, s->mask, s->npx, cudaMemcpyDeviceToDevice, st),
      "quadcut: alpha");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_composite (cc_cuda_quadcut *s, cudaStream_t st, const cc_image *frame,
    const cc_background *bg, cc_image *out)
{
  cc_image b;
  memset (&b, 0, sizeof b);
  int has_b = 0;
  uint8_t cy = 0, cu = 0, cv = 0;
  if (bg->kind == CC_BACKGROUND_IMAGE) {
    b = *bg->image;
    has_b = 1;
  } else if (bg->kind == CC_BACKGROUND_BLUR) {
    CC_TRY (blur_frame (s, st, frame, bg->blur_radius, &b));
    has_b = 1;
  } else {
    cc_rgb_to_yuv (bg->r, bg->g, bg->b, &cy, &cu, &cv);
  }
  if (frame->format == CC_FORMAT_NV12 || frame->format == CC_FORMAT_I420) {
    const int cw = (s->w + 1) / 2, ch = (s->h + 1) / 2;
    qc_comp_luma_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (*frame, b, has_b, cy,
        s->alpha, *out);
    CC_CUDA_LAUNCHED ("qc_comp_luma_kernel");
    qc_comp_chroma_kernel<<<rows_grid (cw, ch), QC_THREADS, 0, st>>> (*frame, b, has_b, cu,
        cv, s->alpha, cw, *out);
    CC_CUDA_LAUNCHED ("qc_comp_chroma_kernel");
    return CC_SUCCESS;
  }
  uchar4 colour = make_uchar4 (0, 0, 0, 0);
  if (!has_b) {
    int rgb = frame->format == CC_FORMAT_RGBX8;
    colour = make_uchar4 (rgb ? bg->r : bg->b, bg->g, rgb ? bg->b : bg->r, 0);
  }
  qc_composite_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (*frame, s->alpha,
      has_b ? (const uint8_t *) b.planes[0] : NULL, has_b ? b.pitch[0] : 0, colour, *out);
  CC_CUDA_LAUNCHED ("qc_composite_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_matte (cc_cuda_quadcut *s, cudaStream_t st, cc_image *out)
{
  if (out->format == CC_FORMAT_NV12 || out->format == CC_FORMAT_I420) {
    const int cw = (s->w + 1) / 2, ch = (s->h + 1) / 2;
    uint8_t wy, wu, wv, ky, ku, kv;
    cc_rgb_to_yuv (255, 255, 255, &wy, &wu, &wv);
    cc_rgb_to_yuv (0, 0, 0, &ky, &ku, &kv);
    qc_matte_luma_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (s->alpha, wy, ky,
        *out);
    CC_CUDA_LAUNCHED ("qc_matte_luma_kernel");
    qc_matte_chroma_kernel<<<rows_grid (cw, ch), QC_THREADS, 0, st>>> (s->alpha, wu, wv, ku,
        kv, cw, *out);
    CC_CUDA_LAUNCHED ("qc_matte_chroma_kernel");
    return CC_SUCCESS;
  }
  qc_matte_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (s->alpha, *out);
  CC_CUDA_LAUNCHED ("qc_matte_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_set_alpha (cc_cuda_quadcut *s, cudaStream_t st, cc_image *frame)
{
  qc_set_alpha_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (
      *frame, s->alpha);
  CC_CUDA_LAUNCHED ("qc_set_alpha_kernel");
  return CC_SUCCESS;
}

cc_status
cc_cuda_quadcut_draw_leaves (cc_cuda_quadcut *s, cudaStream_t st, const cc_image *frame,
    cc_image *out)
{
  if (frame->format == CC_FORMAT_NV12 || frame->format == CC_FORMAT_I420) {
      const int cw = (s->w + 1) / 2, ch = (s->h + 1) / 2;
    qc_draw_chroma_kernel<<<rows_grid (cw, ch), QC_THREADS, 0, st>>> (*frame, s->leaves,
        s->leaf_id, s->seed, cw, *out);
    CC_CUDA_LAUNCHED ("qc_draw_chroma_kernel");
    qc_draw_luma_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (*frame, s->leaves,
        s->leaf_id, s->seed, *out);
    CC_CUDA_LAUNCHED ("qc_draw_luma_kernel");
    return CC_SUCCESS;
  }
  qc_draw_leaves_kernel<<<rows_grid (s->w, s->h), QC_THREADS, 0, st>>> (
      *frame, s->leaves, s->leaf_id, s->seed, frame->format == CC_FORMAT_RGBX8 ? 0 : 2, *out);
  CC_CUDA_LAUNCHED ("qc_draw_leaves_kernel");
  return CC_SUCCESS;
}

const uint8_t *
cc_cuda_quadcut_plane (const cc_cuda_quadcut *s, int alpha)
{
  return alpha ? s->alpha : s->mask;
}
