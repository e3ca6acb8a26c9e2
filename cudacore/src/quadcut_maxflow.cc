/* SPDX-License-Identifier: GPL-3.0-or-later */
// The quadcut minimum cut: Boykov-Kolmogorov max-flow (Debian's libmaxflow, the
// authors' maxflow 3.0) behind the C interface of quadcut_internal.h.
#include "quadcut_internal.h"

#include <maxflow.h>
#include <new>

typedef maxflow::Graph_DDD graph_t;

struct cc_qc_cut {
  graph_t *g;
  int node_cap;
  long long edge_cap;
};

static void
graph_error (const char *msg)
{
  // libmaxflow calls this on a failed allocation, then would exit(): throw instead
  (void) msg;
  throw std::bad_alloc ();
}

extern "C" cc_qc_cut *
cc_qc_cut_new (void)
{
  cc_qc_cut *c = new (std::nothrow) cc_qc_cut;
  if (c) {
    c->g = nullptr;
    c->node_cap = 0;
    c->edge_cap = 0;
  }
  return c;
}

extern "C" void
cc_qc_cut_free (cc_qc_cut *c)
{
  if (!c)
    return;
  delete c->g;
  delete c;
}

extern "C" cc_status
cc_qc_cut_solve (cc_qc_cut *c, int n, const double *cost_fg, const double *cost_bg,
    long long m, const int *a, const int *b, const double *w, uint8_t *labels,
    double *flow)
{
  try {
    if (!c->g || n > c->node_cap || m > c->edge_cap) {
      delete c->g;
      c->g = nullptr;
      // grow with headroom so that a slowly growing leaf count does not reallocate
      // every frame
      int nc = n + n / 4 + 16;
      long long ec = m + m / 4 + 16;
      if (ec > 0x3FFFFFFFLL)
        return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: %lld n-links are too many "
            "for the max-flow library", m);
      c->g = new graph_t (nc, (int) ec, graph_error);
      c->node_cap = nc;
      c->edge_cap = ec;
    } else {
      c->g->reset ();
    }
    graph_t *g = c->g;
    g->add_node (n);
    // SOURCE = foreground: a foreground node cuts its sink link, which carries the
    // cost of being foreground
    for (int i = 0; i < n; i++)
      g->add_tweights (i, cost_bg[i], cost_fg[i]);
    for (long long e = 0; e < m; e++)
      g->add_edge (a[e], b[e], w[e], w[e]);
    *flow = g->maxflow ();
    for (int i = 0; i < n; i++)
      labels[i] = g->what_segment (i, graph_t::SINK) == graph_t::SOURCE;
  } catch (const std::bad_alloc &) {
    delete c->g;
    c->g = nullptr;
    c->node_cap = 0;
    c->edge_cap = 0;
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "quadcut: out of memory for a graph of "
        "%d nodes and %lld n-links", n, m);
  }
  return CC_SUCCESS;
}
