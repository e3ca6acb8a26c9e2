/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The quadcut handle and what its C files share: quadcut.c (the API: parameters,
 * create, the plate, the readbacks of a compute, the alternation check),
 * quadcut_compute.c (cc_quadcut_compute_sync and the CPU reference's stages),
 * quadcut_output.c (what a compute gives: mask and alpha copies, composite,
 * set_alpha, draw, and the box filter that feathers and blurs). */
#ifndef CUDACORE_QUADCUT_MODULE_H
#define CUDACORE_QUADCUT_MODULE_H

#include "quadcut_internal.h"
#include "quadcut_hostdev.h"
#include "cudacore/cc_quadcut.h"

struct cc_quadcut {
  cc_module mod;               /* ctx, frame size (first: module.c) */
  cc_quadcut_params params;
  size_t npx;
  cc_stream stream;            /* of the last submit call (CUDA) */
  float lin[256];              /* sRGB -> linear */
  float *plate_lab;            /* 3 x npx */
  uint8_t *plate_rgb;          /* 4 x npx: R, G, B, 0 */
  int have_plate;
  /* stratified data */
  float *lab;                  /* 3 x npx, interleaved */
  float *dist;
  uint8_t *seed;
  float *cost_fg, *cost_bg;    /* per-pixel regional costs (temporal prior included) */
  int *hist;                   /* bins x bins */
  float *hist_cost;
  long long n_seeds;
  /* previous mask (temporal prior), mask, alpha */
  uint8_t *mask, *prev_mask, *alpha;
  int have_prev;
  int have_run;
  /* quadtree */
  int levels;                  /* K: highest level with nodes */
  int lw[CC_QUADCUT_MAX_LEVEL + 1], lh[CC_QUADCUT_MAX_LEVEL + 1];
  uint8_t *group[CC_QUADCUT_MAX_LEVEL + 1];   /* groupable flags, levels 1..K */
  cc_qc_range *range[2];       /* ping-pong: odd levels in 0, even in 1 */
  int32_t *leaf_id;            /* npx */
  int *row_leaves;             /* h + 1: leaves whose top-left pixel is in each row */
  cc_quadcut_leaf *leaves;
  int n_leaves, leaf_cap;
  int *offsets;                /* leaf_cap + 1 */
  int *edge_off;               /* leaf_cap + 1: each leaf's first n-link */
  int *nbr, *len;
  long long nbr_cap, n_nbr;
  int graph_on_host;           /* CUDA: leaves and lists downloaded for get_graph */
  /* graph */
  double *gfg, *gbg, *ew;
  int *ea, *eb;
  int node_cap;
  long long edge_cap;
  uint8_t *labels;
  int labels_cap;
  /* the graph as cut: the CPU's arrays above, or CUDA's pinned copy */
  const double *tfg, *tbg, *tw;
  const int *ta, *tb;
  int n_nodes;
  long long n_edges;
  double flow;
  double ms[CC_QUADCUT_STAGES];
  cc_qc_cut *cut;
  /* box filters: row sums and the blurred frame */
  uint32_t *box_tmp;           /* 3 x npx */
  uint8_t *blurred;            /* 4 x npx */
  /* CUDA: the per-pixel state lives on the device; the leaf graph, its n-links and
   * labels on the host as above */
  cc_cuda_quadcut *cuda;
};
static inline int
cc_qc_threads (const cc_quadcut *q)
{
  return cc_context_cpu_threads (q->mod.ctx);
}

/* quadcut.c: the stream a submit call runs on (kept in q->stream), and the check of
 * a frame the module reads (RGBX8 / BGRX8 / NV12 / I420 where the backend computes,
 * the created size; fn and what name the call and the argument in the message). */
cc_stream cc_qc_submit_stream (cc_quadcut *q, cc_stream stream);
cc_status cc_qc_check_frame (const cc_quadcut *q, const cc_image *f, const char *fn,
    const char *what);

/* quadcut_compute.c: Lab of every pixel of a frame (3 floats a pixel), and the
 * host buffers of the leaf list, the neighbour lists and the labels, grown with
 * slack, never shrunk. */
void cc_qc_frame_to_lab (const cc_quadcut *q, const cc_image *f, float *lab);
cc_status cc_qc_grow_leaves (cc_quadcut *q, int n);
cc_status cc_qc_grow_neighbours (cc_quadcut *q, long long total);
cc_status cc_qc_grow_labels (cc_quadcut *q, int n);

/* quadcut_output.c: a box filter of radius r over nch channels (pixel strides sbpp,
 * dbpp bytes; dst may not be src). */
void cc_qc_box_filter (const cc_quadcut *q, const uint8_t *src, size_t spitch, int sbpp,
    uint8_t *dst, size_t dpitch, int dbpp, int nch, int r, int w, int h);

#endif
