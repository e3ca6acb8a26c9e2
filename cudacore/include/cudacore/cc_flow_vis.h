/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Drawing a flow field (cc_flow.h) into a frame: colour wheel, arrows, confidence.
 *
 * No call here waits: cc_flow_vis_draw's images are where the context computes. */
#ifndef CUDACORE_CC_FLOW_VIS_H
#define CUDACORE_CC_FLOW_VIS_H

#include "cc_flow.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cc_flow_vis_mode {
  CC_FLOW_VIS_COLOR = 0,  /* Middlebury colour wheel (Baker et al. 2011) */
  CC_FLOW_VIS_ARROWS,     /* arrows on a grid, over the frame */
  CC_FLOW_VIS_QUALITY     /* confidence: white = confident, black = not */
} cc_flow_vis_mode;

typedef struct cc_flow_vis_params {
  cc_flow_vis_mode mode;  /* Default COLOR */
  float max_magnitude;   /* px mapped to full saturation (COLOR) / arrow scale ref. > 0. Default 8 */
  int arrow_spacing;     /* frame pixels between arrows, 4..256. Default 16 */
  float arrow_scale;     /* arrow length = scale * spacing * |flow| / max_magnitude
                            (not checked). Default 1 */
  float quality_scale;   /* QUALITY: confidence mapped to white. > 0. Default 1e-3 */
  float min_confidence;  /* COLOR/ARROWS: cells whose confidence is below this are
                            drawn as no motion (white / no arrow), e.g. flat areas
                            whose vector was only filled in from coarser levels.
                            Needs a confidence image. Default 0 (draw every valid cell) */
} cc_flow_vis_params;

/* [out] params: the defaults above. */
void cc_flow_vis_params_default (cc_flow_vis_params *params);

/* Draws the flow into `frame` in place (GRAY8 gets the luma of the colours).
 * The flow grid may be coarser than the frame (block matching): frame pixel
 * (x, y) shows grid cell (x * gw / W, y * gh / H), and vectors are scaled by
 * W / gw to frame pixels. confidence may be NULL (COLOR, ARROWS). Invalid vectors
 * (confidence < 0) are drawn black in COLOR mode and skipped in ARROWS mode;
 * with min_confidence > 0, cells under it are drawn as zero motion.
 * [in] ctx: not NULL. [in] flow: F32C2 gw x gh. [in] confidence: F32 gw x gh, or NULL
 *      (not for QUALITY or min_confidence > 0). [in] params: checked (mode, the ranges
 *      above). [in,out] frame: GRAY8 / RGBX8 / BGRX8 / NV12 / I420 W x H.
 * All three images where the context computes.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_CUDA.
 * On `stream` (NULL: the context's); does not wait. */
cc_status cc_flow_vis_draw (cc_context *ctx, cc_stream stream, const cc_image *flow,
    const cc_image *confidence, const cc_flow_vis_params *params, cc_image *frame);

/* The Middlebury wheel colour of a vector already divided by max_magnitude (what
 * COLOR draws; for legends). [out] r, g, b: not NULL. Host only. */
void cc_flow_color_rgb (float u, float v, uint8_t *r, uint8_t *g, uint8_t *b);

#ifdef __cplusplus
}
#endif
#endif
