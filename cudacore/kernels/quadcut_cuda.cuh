/* SPDX-License-Identifier: GPL-3.0-or-later */
// Private to Quad-Cut on CUDA (quadcut.cu: the handle, the plate and the front;
// quadcut_output.cu: the back and what is drawn from the mask): the handle's device
// buffers and the launch shapes both use.
#pragma once
#include "cuda_common.cuh"
#include "quadcut_internal.h"
#include "quadcut_hostdev.h"

#define QC_THREADS 256

#define QC_EVENTS 8   // stratify, histogram, pyramid, leaves, neighbours, graph, transfer

struct cc_cuda_quadcut {
  cc_context *ctx;
  int w, h;
  size_t npx;
  float *lin;                       // 256: sRGB -> linear
  float *plate_lab;                 // 3 x npx
  uint8_t *plate_rgb;               // 4 x npx: R, G, B, 0
  float *lab, *dist, *cost_fg, *cost_bg;
  uint8_t *seed;
  int *hist;                        // 256 x 256
  float *hist_cost;
  int *host_hist;                   // pinned? plain host: bins^2 ints
  float *host_cost;
  uint8_t *mask, *prev_mask, *alpha;
  uint8_t *group[CC_QUADCUT_MAX_LEVEL + 2];
  int lw[CC_QUADCUT_MAX_LEVEL + 2], lh[CC_QUADCUT_MAX_LEVEL + 2];
  int levels;
  cc_qc_range *range[2];
  int *flags, *prefix;              // npx + 1 each
  int32_t *leaf_id;
  cc_quadcut_leaf *leaves;
  int *counts, *offsets, *eoff;     // leaf_cap + 1 each (eoff: each leaf's first n-link)
  int leaf_cap;
  int *nbr, *len;
  long long nbr_cap;
  uint8_t *labels;
  int labels_cap;
  uint32_t *box_tmp;                // 3 x npx
  uint8_t *blurred;                 // 4 x npx
  void *scan_tmp;
  size_t scan_bytes;
  cudaEvent_t ev[QC_EVENTS];        // stage boundaries of the front
  void *gbuf;                       // the compact leaf graph (device), gbuf_cap bytes
  void *hbuf;                       // its host copy (pinned), as large
  size_t gbuf_cap;
  int n_leaves;
  long long n_nbr;
};

static inline dim3
rows_grid (int w, int h)
{
  return dim3 (cc_div_up ((unsigned) w, QC_THREADS), (unsigned) h);
}

static inline unsigned
flat_blocks (size_t n)
{
  return (unsigned) ((n + QC_THREADS - 1) / QC_THREADS);
}
