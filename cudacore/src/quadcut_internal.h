/* Shared inside the quadcut module: the minimum cut behind a small C interface.
 * The cut is Boykov-Kolmogorov max-flow from Debian's libmaxflow, a C++ template
 * library: src/quadcut_maxflow.cc wraps it so that the rest of cudacore stays C. */
#ifndef CUDACORE_QUADCUT_INTERNAL_H
#define CUDACORE_QUADCUT_INTERNAL_H

#include "cc_internal.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
