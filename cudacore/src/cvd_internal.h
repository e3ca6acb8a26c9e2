/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between cvd.c (API, CPU reference) and kernels/cvd.cu. */
#ifndef CUDACORE_CVD_INTERNAL_H
#define CUDACORE_CVD_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_cvd.h"
#include "cc_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Colour sums of one cell (see cc_cvd_pixel_colour). */
typedef struct cc_cvd_colour_acc {
  unsigned long long n, nc, c[3];
} cc_cvd_colour_acc;

/* A cell's mean colour (frame channel order: R G B, B G R or Y U V) and its
 * stipple disc's radius^2; also a plain colour (border, ink, paper). */
typedef struct cc_cvd_mean {
  uint8_t c[4];
  int32_t pad;
  long long radius2;
} cc_cvd_mean;

/* CUDA backend (kernels/cvd.cu). Every call runs on the stream it is given (the
 * public call's, resolved: non-NULL). create initialises on the context's stream and
 * waits for it. */
typedef struct cc_cuda_cvd cc_cuda_cvd;
cc_status cc_cuda_cvd_create (cc_context *ctx, int width, int height, cc_cuda_cvd **out);
void cc_cuda_cvd_destroy (cc_cuda_cvd *s);
/* Makes room for n sites (may reallocate: waits first for `stream`, the last one that
 * used the old arrays). */
cc_status cc_cuda_cvd_reserve (cc_cuda_cvd *s, cc_stream stream, int n);
cc_status cc_cuda_cvd_set_sites (cc_cuda_cvd *s, cc_stream stream, const cc_cvd_site *sites,
    int n);
cc_status cc_cuda_cvd_get_sites (cc_cuda_cvd *s, cc_stream stream, cc_cvd_site *sites, int n);
cc_status cc_cuda_cvd_set_density (cc_cuda_cvd *s, cc_stream stream, const cc_image *f,
    cc_cvd_density d);
cc_status cc_cuda_cvd_set_density_map (cc_cuda_cvd *s, cc_stream stream, const uint16_t *rho);
/* cold: the device's warm flag is cleared first (the whole JFA schedule runs). */
cc_status cc_cuda_cvd_voronoi (cc_cuda_cvd *s, cc_stream stream, int n,
    cc_cvd_voronoi_method method, int warm_start, int cold);
cc_status cc_cuda_cvd_get_labels (cc_cuda_cvd *s, cc_stream stream, int32_t *labels);
cc_status cc_cuda_cvd_centroid_sums (cc_cuda_cvd *s, cc_stream stream, int n,
    cc_cvd_centroid_method m, cc_cvd_sums *sums);
/* threshold: the largest total displacement (1/256 px) that stops; 0 = never. cold as
 * in cc_cuda_cvd_voronoi. */
cc_status cc_cuda_cvd_iterate (cc_cuda_cvd *s, cc_stream stream, int n,
    const cc_cvd_params *p, const cc_cvd_tuning *t, int iterations,
    unsigned long long threshold, int cold, cc_cvd_stats *stats);
cc_status cc_cuda_cvd_advect (cc_cuda_cvd *s, cc_stream stream, int n, const cc_image *flow);
/* colours: [0] border / ink, [1] paper, in the frame's channel order. */
cc_status cc_cuda_cvd_render (cc_cuda_cvd *s, cc_stream stream, int n, cc_image *f, int style,
    int bw, long long radius2, const cc_cvd_mean colours[2]);

#ifdef __cplusplus
}
#endif
#endif
