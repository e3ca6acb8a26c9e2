/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Drawing flow fields into frames on CUDA: the twin of src/flow_vis.c.
//
// Cells are skipped / drawn as zero motion per cc_flow_vis_drawn (min_confidence).
// COLOR / QUALITY: one thread per frame pixel, writing what cc_vis_put_rgb writes (for
// NV12 / I420 the top-left pixel of each 2x2 block writes the chroma).
// ARROWS: one thread per arrow draws its line (all lines write the same white, so
// overlaps are harmless), then a second launch draws every tail dot: the same
// two-pass order as the CPU reference.
//
// This file is compiled with -fmad=false (see cudacore/meson.build) so that the
// float expressions round as the CPU's do; atan2f in cc_flow_color may still
// differ from the host libm by an ulp, which can move a colour by one level.
#include "cuda_common.cuh"
#include "flow_vis_internal.h"
#include "flow_vis_hostdev.h"

namespace {

struct Field {
  const uint8_t *flow;
  size_t flow_pitch;
  const uint8_t *conf;   // nullable
  size_t conf_pitch;
  int gw, gh;
};

__device__ __forceinline__ float2
flow_at (const Field &F, int cx, int cy)
{
  const float *v = (const float *) (F.flow + (size_t) cy * F.flow_pitch) + 2 * cx;
  return make_float2 (v[0], v[1]);
}

__device__ __forceinline__ float
conf_at (const Field &F, int cx, int cy)
{
  return ((const float *) (F.conf + (size_t) cy * F.conf_pitch))[cx];
}

__global__ void
vis_pixels (cc_image f, Field F, int mode, float max_magnitude, float quality_scale,
    float min_confidence)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= f.width || y >= f.height)
    return;
  const float to_frame = (float) f.width / F.gw;
  int cx = (int) ((long long) x * F.gw / f.width), cy = (int) ((long long) y * F.gh / f.height);
  float c = F.conf ? conf_at (F, cx, cy) : 0.0f;
  uint8_t r, g, b;
  if (mode == CC_FLOW_VIS_QUALITY) {
    uint8_t q = (uint8_t) (cc_clampf (c / quality_scale, 0.f, 1.f) * 255.f + 0.5f);
    r = g = b = q;
  } else if (F.conf && c < 0.0f) {
    r = g = b = 0;
  } else if (F.conf && !cc_flow_vis_drawn (c, min_confidence)) {
    r = g = b = 255;   // the colour of zero motion
  } else {
    float2 v = flow_at (F, cx, cy);
    cc_flow_color (to_frame * v.x / max_magnitude, to_frame * v.y / max_magnitude, &r, &g, &b);
  }
  cc_vis_put_rgb (&f, x, y, r, g, b);
}

// Arrow (ax, ay) of the grid: its tail (x, y) and whether it is drawn.
__device__ __forceinline__ bool
arrow_tail (const cc_image &f, const Field &F, int spacing, int nx, int ny, float min_confidence,
    int *x, int *y, int *cx, int *cy)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx * ny)
    return false;
  int ay = i / nx, ax = i - ay * nx;
  *x = spacing / 2 + ax * spacing;
  *y = spacing / 2 + ay * spacing;
  *cx = (int) ((long long) *x * F.gw / f.width);
  *cy = (int) ((long long) *y * F.gh / f.height);
  return !F.conf || cc_flow_vis_drawn (conf_at (F, *cx, *cy), min_confidence);
}

__global__ void
vis_arrow_lines (cc_image f, Field F, int spacing, int nx, int ny, float min_confidence,
    float arrow_scale, float max_magnitude)
{
  int x, y, cx, cy;
  if (!arrow_tail (f, F, spacing, nx, ny, min_confidence, &x, &y, &cx, &cy))
    return;
  const float to_frame = (float) f.width / F.gw;
  float2 v = flow_at (F, cx, cy);
  // an arrow spans one spacing at max_magnitude (same expression as the CPU)
  const float k = arrow_scale * spacing * to_frame / max_magnitude;
  float x0 = (float) x, y0 = (float) y;
  float x1 = x + k * v.x, y1 = y + k * v.y;
  // draw_line of the CPU
  float dx = x1 - x0, dy = y1 - y0;
  if (!isfinite (dx) || !isfinite (dy))
    return;
  int steps = (int) (fmaxf (fabsf (dx), fabsf (dy)) + 1.0f);
  for (int i = 0; i <= steps; i++) {
    int px = (int) (x0 + dx * i / steps + 0.5f), py = (int) (y0 + dy * i / steps + 0.5f);
    if (px >= 0 && py >= 0 && px < f.width && py < f.height)
      cc_vis_put_rgb (&f, px, py, 255, 255, 255);
  }
}

__global__ void
vis_arrow_tails (cc_image f, Field F, int spacing, int nx, int ny, float min_confidence)
{
  int x, y, cx, cy;
  if (!arrow_tail (f, F, spacing, nx, ny, min_confidence, &x, &y, &cx, &cy))
    return;
  cc_vis_put_rgb (&f, x, y, 0, 0, 0);
}

}  // namespace

extern "C" cc_status
cc_cuda_flow_vis_draw (cc_stream stream, const cc_image *flow, const cc_image *confidence,
    const cc_flow_vis_params *p, cc_image *frame)
{
  const cc_image f = *frame;
  Field F;
  F.flow = (const uint8_t *) flow->planes[0];
  F.flow_pitch = flow->pitch[0];
  F.conf = confidence ? (const uint8_t *) confidence->planes[0] : NULL;
  F.conf_pitch = confidence ? confidence->pitch[0] : 0;
  F.gw = flow->width;
  F.gh = flow->height;
  if (p->mode == CC_FLOW_VIS_ARROWS) {
    const int s = p->arrow_spacing;
    const int nx = f.width > s / 2 ? (f.width - s / 2 + s - 1) / s : 0;
    const int ny = f.height > s / 2 ? (f.height - s / 2 + s - 1) / s : 0;
    if (nx == 0 || ny == 0)
      return CC_SUCCESS;
    const unsigned blocks = cc_div_up ((unsigned) (nx * ny), 128);
    vis_arrow_lines<<<blocks, 128, 0, stream>>> (f, F, s, nx, ny, p->min_confidence,
        p->arrow_scale, p->max_magnitude);
    CC_CUDA_LAUNCHED ("vis_arrow_lines");
    vis_arrow_tails<<<blocks, 128, 0, stream>>> (f, F, s, nx, ny, p->min_confidence);
    CC_CUDA_LAUNCHED ("vis_arrow_tails");
    return CC_SUCCESS;
  }
  dim3 b (32, 8);
  vis_pixels<<<dim3 (cc_div_up (f.width, b.x), cc_div_up (f.height, b.y)), b, 0, stream>>> (f, F,
      (int) p->mode, p->max_magnitude, p->quality_scale, p->min_confidence);
  CC_CUDA_LAUNCHED ("vis_pixels");
  return CC_SUCCESS;
}
