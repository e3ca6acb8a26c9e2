/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared inside the quadcut module: the minimum cut behind a small C interface.
 * The cut is Boykov-Kolmogorov max-flow from Debian's libmaxflow, a C++ template
 * library: src/quadcut_maxflow.cc wraps it so that the rest of cudacore stays C. */
#ifndef CUDACORE_QUADCUT_INTERNAL_H
#define CUDACORE_QUADCUT_INTERNAL_H

#include "cc_internal.h"
#include "cc_tuning.h"
#include "cudacore/cc_quadcut.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The pyramid's groupable flags as the leaf tests read them (host or device
 * pointers): group[k] for levels 1..levels, lw[k] x lh[k] nodes (w >> k, h >> k: the
 * nodes wholly inside the frame). */
typedef struct cc_qc_pyramid {
  int levels;
  int lw[CC_QUADCUT_MAX_LEVEL + 2], lh[CC_QUADCUT_MAX_LEVEL + 2];
  const uint8_t *group[CC_QUADCUT_MAX_LEVEL + 2];
} cc_qc_pyramid;

/* Regional fg cost of every histogram bin: -log ((n_k + 1) / (n_O + nb)), n_O the sum
 * of hist (the seed count, returned). Host only (both backends). */
long long cc_qc_hist_costs (const int *hist, int nb, float *cost);

typedef struct cc_qc_cut cc_qc_cut;

cc_qc_cut *cc_qc_cut_new (void);
void cc_qc_cut_free (cc_qc_cut *c);
/* Minimum cut of n nodes (terminal costs: cost_fg paid when the node is
 * foreground, cost_bg when background, both >= 0) and m undirected n-links
 * (a[i], b[i], weight w[i] >= 0). labels[i] = 1 for foreground; a node the cut
 * leaves free goes to the background. *flow: the maximum flow (the minimum energy).
 * The graph's memory is kept for the next call (grown when n or m grow). Returns
 * OUT_OF_MEMORY with a message when the library cannot allocate. */
cc_status cc_qc_cut_solve (cc_qc_cut *c, int n, const double *cost_fg,
    const double *cost_bg, long long m, const int *a, const int *b, const double *w,
    uint8_t *labels, double *flow);

/* ---- CUDA backend (kernels/quadcut.cu, quadcut_output.cu): the per-pixel and
 * per-leaf stages on the device; only the histogram (bins^2 ints, for its costs), the
 * leaf graph and the labels cross. Every call runs on the stream it is given (the public call's,
 * resolved: non-NULL; the readbacks of the graph and the stratified data: the last
 * run's); create initialises on the context's stream and waits for it. */
typedef struct cc_cuda_quadcut cc_cuda_quadcut;
cc_status cc_cuda_quadcut_create (cc_context *ctx, int width, int height, const float *lin,
    cc_cuda_quadcut **out);
void cc_cuda_quadcut_destroy (cc_cuda_quadcut *s);
cc_status cc_cuda_quadcut_set_plate (cc_cuda_quadcut *s, cc_stream stream,
    const cc_image *plate);
cc_status cc_cuda_quadcut_update_plate (cc_cuda_quadcut *s, cc_stream stream,
    const cc_image *frame, int step, int background_only);
cc_status cc_cuda_quadcut_get_plate (cc_cuda_quadcut *s, cc_stream stream, cc_image *dst);
/* The compact leaf graph as it reaches the host: n nodes with their t-links (fg, bg:
 * the leaves' summed regional costs) and m n-links (a[i] < b[i], weight w[i]), in the
 * CPU reference's order. */
typedef struct cc_qc_host_graph {
  int n;
  long long m;
  const double *fg, *bg, *w;
  const int *a, *b;
} cc_qc_host_graph;

/* The capacity a scratch buffer grows to for `need` entries (or bytes): 25 % headroom
 * plus `slack`, so that buffers that never shrink reallocate rarely as frames vary
 * (the CPU reference's and the CUDA backend's alike). */
static inline long long
cc_qc_capacity (long long need, long long slack)
{
  return need + need / 4 + slack;
}

/* Stratify, histogram (costs made on the host), pyramid, leaves, QuadN4, neighbour
 * lists, then the leaf graph (t-links, n-link weights, compacted) on the device and
 * its one copy to the host (*g: pinned host memory, valid until the next front).
 * Waits; *n_neighbours (total list entries) and *n_seeds out; ms[0..6]: the device
 * time (CUDA events) of stratify (with the seed count), the histogram's round trip and
 * per-pixel costs, pyramid, leaves (with the count's read), neighbours (with the
 * total's read), graph, transfer. */
cc_status cc_cuda_quadcut_front (cc_cuda_quadcut *s, cc_stream stream,
    const cc_quadcut_params *p, const cc_image *frame, const cc_image *other, int have_prev,
    int levels, long long *n_neighbours, long long *n_seeds, cc_qc_host_graph *g,
    double ms[7]);
/* The front's leaves and neighbour lists into host arrays (n_leaves, n_leaves + 1,
 * n_neighbours): for cc_quadcut_get_graph only, not on the way of a run. Waits. */
cc_status cc_cuda_quadcut_download_graph (cc_cuda_quadcut *s, cc_stream stream,
    cc_quadcut_leaf *leaves, int *offsets, int *neighbours, int *lengths);
/* Labels (host, n_leaves) to the mask (and the next prior), feathered to the alpha. */
cc_status cc_cuda_quadcut_back (cc_cuda_quadcut *s, cc_stream stream, const uint8_t *labels,
    int n_leaves, int feather);
cc_status cc_cuda_quadcut_composite (cc_cuda_quadcut *s, cc_stream stream,
    const cc_image *frame, const cc_background *bg, cc_image *out);
/* cc_quadcut_set_alpha on the device (RGBX8 / BGRX8). */
cc_status cc_cuda_quadcut_set_alpha (cc_cuda_quadcut *s, cc_stream stream, cc_image *frame);
/* The matte of cc_quadcut_render's MASK on the device, into out. */
cc_status cc_cuda_quadcut_matte (cc_cuda_quadcut *s, cc_stream stream, cc_image *out);
/* cc_quadcut_draw on the device (leaves: the front's, still on the device). */
cc_status cc_cuda_quadcut_draw_leaves (cc_cuda_quadcut *s, cc_stream stream,
    const cc_image *frame, cc_image *out);
/* The device mask (alpha = 0) or alpha (alpha = 1), w bytes a row. */
const uint8_t *cc_cuda_quadcut_plane (const cc_cuda_quadcut *s, int alpha);
/* Host copies of the last run's per-pixel data (any NULL skipped; w x h each). Waits. */
cc_status cc_cuda_quadcut_download (cc_cuda_quadcut *s, cc_stream stream, float *L, float *a,
    float *b, float *d, uint8_t *seed, int32_t *leaf_id, uint8_t *mask, uint8_t *alpha);

#ifdef __cplusplus
}
#endif
#endif
