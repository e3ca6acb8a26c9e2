/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Drawing flow fields into frames: colour wheel, arrows, quality. CPU reference.
 *
 * Every mode writes each frame pixel from the grid cell under it (COLOR, QUALITY),
 * or draws one arrow per `arrow_spacing` cell of the frame (ARROWS): a white line
 * from the cell centre along the vector with a 2-pixel black outline-free head dot.
 * The CUDA twin (kernels/flow_vis.cu) uses the same per-pixel functions. */
#include "flow_vis_internal.h"
#include "flow_vis_hostdev.h"

#include <string.h>

void
cc_flow_vis_params_default (cc_flow_vis_params *p)
{
  p->mode = CC_FLOW_VIS_COLOR;
  p->max_magnitude = 8.0f;
  p->arrow_spacing = 16;
  p->arrow_scale = 1.0f;
  p->quality_scale = 1e-3f;
  p->min_confidence = 0.0f;
}

void
cc_flow_color_rgb (float u, float v, uint8_t *r, uint8_t *g, uint8_t *b)
{
  cc_flow_color (u, v, r, g, b);
}

static cc_status
check_vis (cc_context *ctx, const cc_image *flow, const cc_image *confidence,
    const cc_flow_vis_params *p, cc_image *frame)
{
  CC_CHECK_ARG (ctx && p, "cc_flow_vis_draw: ctx or params is NULL");
  CC_TRY (cc_image_check (flow, "cc_flow_vis_draw: flow"));
  CC_TRY (cc_image_check (frame, "cc_flow_vis_draw: frame"));
  CC_CHECK_ARG (flow->format == CC_FORMAT_F32C2, "cc_flow_vis_draw: flow must be F32C2");
  CC_CHECK_ARG (frame->format <= CC_FORMAT_I420,
      "cc_flow_vis_draw: frame format %s cannot be drawn into", cc_format_name (frame->format));
  CC_CHECK_ARG (p->mode >= CC_FLOW_VIS_COLOR && p->mode <= CC_FLOW_VIS_QUALITY,
      "cc_flow_vis_draw: unknown mode %d", (int) p->mode);
  CC_CHECK_ARG (p->max_magnitude > 0.0f, "cc_flow_vis_draw: max_magnitude %g must be > 0",
      p->max_magnitude);
  CC_CHECK_ARG (p->arrow_spacing >= 4 && p->arrow_spacing <= 256,
      "cc_flow_vis_draw: arrow_spacing %d out of range 4..256", p->arrow_spacing);
  CC_CHECK_ARG (p->quality_scale > 0.0f, "cc_flow_vis_draw: quality_scale must be > 0");
  CC_CHECK_ARG (p->min_confidence >= 0.0f, "cc_flow_vis_draw: min_confidence %g must be >= 0",
      p->min_confidence);
  CC_CHECK_ARG (p->mode != CC_FLOW_VIS_QUALITY || confidence,
      "cc_flow_vis_draw: QUALITY mode needs a confidence image");
  CC_TRY (cc_image_check_location (ctx, flow, "cc_flow_vis_draw: flow"));
  CC_TRY (cc_image_check_location (ctx, frame, "cc_flow_vis_draw: frame"));
  if (confidence) {
    CC_TRY (cc_image_check (confidence, "cc_flow_vis_draw: confidence"));
    CC_CHECK_ARG (confidence->format == CC_FORMAT_F32,
        "cc_flow_vis_draw: confidence must be F32");
    CC_TRY (cc_image_check_same_size (flow, confidence, "flow", "confidence"));
    CC_TRY (cc_image_check_location (ctx, confidence, "cc_flow_vis_draw: confidence"));
  }
  return CC_SUCCESS;
}

static const float *
cell (const cc_image *img, int gx, int gy, int channels)
{
  return (const float *) ((const char *) img->planes[0] + (size_t) gy * img->pitch[0]) + channels * gx;
}

static void
draw_line (cc_image *f, float x0, float y0, float x1, float y1)
{
  float dx = x1 - x0, dy = y1 - y0;
  if (!isfinite (dx) || !isfinite (dy))
    return;   /* no length to draw (and (int) of a non-finite float is undefined) */
  int steps = (int) (fmaxf (fabsf (dx), fabsf (dy)) + 1.0f);
  for (int i = 0; i <= steps; i++) {
    int x = (int) (x0 + dx * i / steps + 0.5f), y = (int) (y0 + dy * i / steps + 0.5f);
    if (x >= 0 && y >= 0 && x < f->width && y < f->height)
      cc_vis_put_rgb (f, x, y, 255, 255, 255);
  }
}

cc_status
cc_flow_vis_draw (cc_context *ctx, cc_stream stream, const cc_image *flow,
    const cc_image *confidence, const cc_flow_vis_params *p, cc_image *frame)
{
  CC_TRY (check_vis (ctx, flow, confidence, p, frame));
  if (ctx->backend == CC_BACKEND_CUDA)
    return CC_CUDA_ONLY (cc_cuda_flow_vis_draw (cc_stream_resolve (ctx, stream), flow, confidence,
        p, frame));

  const int W = frame->width, H = frame->height, gw = flow->width, gh = flow->height;
  const float to_frame = (float) W / gw;
  if (p->mode == CC_FLOW_VIS_ARROWS) {
    /* two passes: every arrow's line, then every tail dot, so that the result does
     * not depend on the order in which arrows are drawn (the CUDA twin draws them
     * all at once); a later arrow's line no longer covers an earlier tail dot */
    for (int pass = 0; pass < 2; pass++)
      for (int y = p->arrow_spacing / 2; y < H; y += p->arrow_spacing)
        for (int x = p->arrow_spacing / 2; x < W; x += p->arrow_spacing) {
          int cx = (int) ((long) x * gw / W), cy = (int) ((long) y * gh / H);
          if (confidence && !cc_flow_vis_drawn (*cell (confidence, cx, cy, 1), p->min_confidence))
            continue;
          if (pass == 1) {
            cc_vis_put_rgb (frame, x, y, 0, 0, 0);   /* the tail: a dark dot marks the cell */
            continue;
          }
          const float *v = cell (flow, cx, cy, 2);
          /* an arrow spans one spacing at max_magnitude */
          float k = p->arrow_scale * p->arrow_spacing * to_frame / p->max_magnitude;
          float ex = x + k * v[0], ey = y + k * v[1];
          draw_line (frame, (float) x, (float) y, ex, ey);
        }
    return CC_SUCCESS;
  }
  /* each row writes its own pixels (and, on even rows, its own chroma row): the rows
   * are split among the context's threads. The few arrows above stay serial: their
   * lines cross rows. */
#pragma omp parallel for schedule(static) num_threads(cc_context_cpu_threads (ctx))
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int cx = (int) ((long) x * gw / W), cy = (int) ((long) y * gh / H);
      float c = confidence ? *cell (confidence, cx, cy, 1) : 0.0f;
      uint8_t r, g, b;
      if (p->mode == CC_FLOW_VIS_QUALITY) {
        uint8_t q = (uint8_t) (cc_clampf (c / p->quality_scale, 0.f, 1.f) * 255.f + 0.5f);
        r = g = b = q;
      } else if (confidence && c < 0.0f) {
        r = g = b = 0;
      } else if (confidence && !cc_flow_vis_drawn (c, p->min_confidence)) {
        r = g = b = 255;   /* the colour of zero motion */
      } else {
        const float *v = cell (flow, cx, cy, 2);
        cc_flow_color (to_frame * v[0] / p->max_magnitude, to_frame * v[1] / p->max_magnitude,
            &r, &g, &b);
      }
      cc_vis_put_rgb (frame, x, y, r, g, b);
    }
  return CC_SUCCESS;
}
