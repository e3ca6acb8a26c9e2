/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meshseg's picture of a segmentation: a small software rasteriser (orthographic,
 * z-buffer, flat Lambert shading with a headlight) drawing each face in its segment
 * colour, the colour of the face-coloured PLY. Plain C; the PNG through cv_imageio. */
#ifndef MESHSEG_RENDER_H
#define MESHSEG_RENDER_H

#include "meshseg.h"
#include <cudacore/cc_core.h>

typedef struct ms_render_params {
  int width, height;      /* output pixels (default 640 x 480) */
  float yaw_deg;          /* turn about the vertical axis (default 30) */
  float pitch_deg;        /* tilt towards the viewer (default 20) */
  int supersample;        /* rendered at this factor and averaged down (1..4; default 3) */
  bool outline;           /* darken the silhouette and segment boundaries (default true) */
} ms_render_params;

void ms_render_params_default (ms_render_params *params);

/* Draws the mesh: its principal axes are turned so the largest extent is horizontal
 * and the second vertical, then yawed and pitched, fitted to the image with a margin.
 * Background white. out: an RGBX8 host image from cv_image_new (cv_image_free it). */
cc_status ms_render (const ms_mesh *mesh, const ms_segmentation *seg,
    const ms_render_params *params, cc_image *out);
/* ms_render into a PNG file. */
cc_status ms_render_png (const char *path, const ms_mesh *mesh, const ms_segmentation *seg,
    const ms_render_params *params);

#endif
