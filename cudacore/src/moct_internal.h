/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared between moct.c (API, LUT build, CPU reference) and kernels/moct.cu. */
#ifndef CUDACORE_MOCT_INTERNAL_H
#define CUDACORE_MOCT_INTERNAL_H

#include "cc_internal.h"
#include "cudacore/cc_moct.h"
#include "cc_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_MOCT_LUT_SIZE (1 << (3 * CC_MOCT_LUT_BITS))

/* Per-object accumulators of one frame (64 bytes; also the CUDA shared-memory and
 * global layout). min / max are INT_MAX / INT_MIN (CC_MOCT_EMPTY_*) when n is 0. */
typedef struct cc_moct_acc {
  unsigned long long n, sx, sy, sxx, syy, sxy;
  int minx, maxx, miny, maxy;
} cc_moct_acc;

#define CC_MOCT_EMPTY_MIN 0x7FFFFFFF
#define CC_MOCT_EMPTY_MAX (-0x7FFFFFFF - 1)

/* What a run leaves per object where the backend computes (and what a host result
 * is derived from). */
typedef struct cc_moct_record {
  cc_moct_acc acc;
  double vx, vy;
  int present, velocity_valid;
  int lost;          /* mass >= min_mass but refused by the size gate */
  int reserved;
} cc_moct_record;

/* Per-object state across frames: the last present sample (velocity), the search
 * window of the next frame (win 0: the whole frame; else x in wx0..wx1 and y in
 * wy0..wy1, inclusive; win..wy1 are contiguous: cc_cuda_moct_seed writes them), and
 * the size gate's reference (window mode): mass and box side of the recent accepted
 * frames (integer running averages, 0: none yet). All zero after a reset. */
typedef struct cc_moct_track {
  double cx, cy;
  long long frame;
  int has, win;
  int wx0, wy0, wx1, wy1;
  long long ref_mass;   /* x CC_MOCT_REF_ONE */
  int ref_side;         /* x CC_MOCT_REF_ONE */
  int lost;             /* frames refused by the gate since the last accepted one */
  int ref_edge;         /* the last accepted box touched the frame's border */
  int reserved;
} cc_moct_track;

/* Fixed point of the size gate: references and the ratio in 1/16 units, integer
 * arithmetic only, so that both backends decide alike. */
#define CC_MOCT_REF_ONE 16

/* Drawing colours of an object (host-computed, YUV by cc_rgb_to_yuv). */
typedef struct cc_moct_colour {
  uint8_t r, g, b, y, u, v, pad[2];
} cc_moct_colour;

/* An object's name as drawn by LABELS (the table's name, its length in bytes). */
typedef struct cc_moct_label {
  char text[CC_MOCT_NAME_MAX];
  int len;
} cc_moct_label;

/* CUDA backend (kernels/moct.cu). */
typedef struct cc_cuda_moct cc_cuda_moct;
cc_status cc_cuda_moct_create (cc_context *ctx, int width, int height, int history,
    cc_cuda_moct **out);
void cc_cuda_moct_destroy (cc_cuda_moct *s);
/* Uploads the tables, colours and labels for n objects (waits for the stream first). */
cc_status cc_cuda_moct_set_objects (cc_cuda_moct *s, const uint16_t *lut_rgb,
    const uint16_t *lut_yuv, const cc_moct_colour *colours, const cc_moct_label *labels,
    int n);
/* Frame `frame` (index): classify + reduce + finalize; records (host, n entries)
 * or NULL (no wait). */
cc_status cc_cuda_moct_compute (cc_cuda_moct *s, cc_stream stream, const cc_moct_params *p,
    const cc_moct_tuning *t, const cc_image *f,
    long long frame, cc_moct_record *records);
/* params.size_ratio in CC_MOCT_REF_ONE units (0: no gate; only with a window). */
int cc_moct_ratio_fixed (const cc_moct_params *p);
cc_status cc_cuda_moct_reset (cc_cuda_moct *s, cc_stream stream);
/* Writes the search window of one object's track (win, wx0, wy0, wx1, wy1). */
cc_status cc_cuda_moct_seed (cc_cuda_moct *s, cc_stream stream, int object, const int window[5]);
/* Copies the whole ring of one object (history samples) to the host; waits. */
cc_status cc_cuda_moct_get_ring (cc_cuda_moct *s, int object, cc_moct_sample *ring);
cc_status cc_cuda_moct_draw (cc_cuda_moct *s, cc_stream stream, cc_image *f, unsigned flags,
    long long frames, const cc_moct_colour *white);

#ifdef __cplusplus
}
#endif
#endif
