/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meshseg: Katz-Tal fuzzy-clustering mesh segmentation over the dual graph's all-pairs
 * shortest paths (marras-2010 section 4; Katz and Tal 2003). The stages, one file each:
 *   mesh_import.c  triangle meshes (OFF, OBJ, PLY, ...) through Assimp, welded, checked
 *   dual_graph.c   faces as nodes, adjacent faces joined by the paper's distance
 *   clustering.c   representatives, fuzzy memberships, automatic k
 *   mincut.c       the fuzzy boundaries resolved by a minimum cut (igraph)
 *   hierarchy.c    Katz-Tal's hierarchical decomposition, and ms_segment
 *   seg_io.c       Princeton .seg files and the face-coloured PLY
 *   render.c       a picture of the segmented mesh (PNG; render.h)
 *   evaluate.c     Rand Index and consistency errors against ground truth
 * Errors are cc_status values with the message in cc_last_error(). */
#ifndef MESHSEG_H
#define MESHSEG_H

#include <cudacore/cc_apsp.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ms_mesh {
  int vertex_count, face_count;
  float (*vertices)[3];
  int32_t (*faces)[3];
} ms_mesh;

typedef struct ms_import_options {
  bool triangulate;          /* let Assimp split polygons; otherwise they are an error */
  bool allow_nonmanifold;    /* edges of more than two faces join them all pairwise */
} ms_import_options;

/* Reads a triangle mesh; vertices at the same position are welded (file formats
 * duplicate them per corner), face order is the file's. Refused (CC_ERROR_CORRUPT_DATA):
 * a face naming a vertex the file does not have, a mesh whose faces all have zero area. */
cc_status ms_mesh_load (const char *path, const ms_import_options *options, ms_mesh *out);
/* What ms_mesh_load checks before Assimp reads the file: a regular file (IO otherwise:
 * /dev/zero, a FIFO); a PLY header that ends (end_header) within 64 kB; OFF and PLY
 * header counts that the file's size can hold (each OFF vertex takes 6 bytes at least,
 * a face 2; a PLY item 2 bytes a property in ASCII, its scalars' sizes in binary):
 * CORRUPT_DATA naming the counts otherwise. OBJ declares no counts. */
cc_status ms_mesh_precheck (const char *path);
void ms_mesh_free (ms_mesh *mesh);

/* The dual graph: arcs between faces sharing an edge, each listed once (u < v). */
typedef struct ms_dual {
  int faces;
  int arcs;
  int32_t *from, *to;
  float *weight;        /* alpha * angular / mean + (1 - alpha) * geodesic / mean,
                           rounded to whole multiples of weight_step */
  float *angular;       /* eta * (1 - cos dihedral), eta = 1 on concave edges */
  float *bend;          /* 1 - cos dihedral, negative on convex edges */
  float mean_angular;
  float (*centroid)[3];
  float *area;
  int components;       /* connected parts of the dual graph */
  int boundary_edges;   /* edges of a single face (open mesh) */
  int nonmanifold_edges;
  /* Exact distances (dual_graph.c): the weights are whole multiples of weight_step, a
   * power of two under which every shortest-path length stays below 2^24 steps, so
   * every APSP (CUDA tiled Floyd-Warshall, CPU Dijkstra or Floyd-Warshall) returns
   * the same distances bit for bit. 0 with float_weights. */
  float weight_step;
  double weight_error;  /* largest |rounded - float weight| / mean weight */
} ms_dual;

typedef struct ms_dual_params {
  float alpha;          /* angular share of the distance, 0..1 */
  float convex_eta;     /* eta of convex edges (concave edges: 1) */
  bool float_weights;   /* keep the float weights unrounded: distances then differ
                           between APSP methods in their last bits (tests show it;
                           not a meshseg option; default false) */
} ms_dual_params;

void ms_dual_params_default (ms_dual_params *params);
cc_status ms_dual_build (const ms_mesh *mesh, const ms_dual_params *params,
    bool allow_nonmanifold, ms_dual *out);
void ms_dual_free (ms_dual *dual);
cc_apsp_graph ms_dual_graph (const ms_dual *dual);

/* Rows of the face-to-face distance matrix: from the full APSP matrix (kept on the
 * device on CUDA, on the host on the CPU), or on demand by CPU Dijkstra. */
typedef struct ms_distances {
  int faces;
  cc_apsp *apsp;              /* CUDA: the solved matrix, rows fetched from the device */
  float *full;                /* CPU: faces x faces, or NULL */
  cc_apsp_graph graph;        /* for on-demand rows */
  int threads;
  double apsp_kernel_ms;      /* APSP kernel time when `full` was computed */
  long rows_computed;         /* on-demand rows so far */
  /* On-demand rows are kept (up to a memory budget) so that the representative updates,
   * the hierarchy's levels and a parameter sweep (--sweep) read each row once. */
  int32_t *cache_slot;        /* faces: slot of the face's row in cache, -1 = none */
  float *cache;               /* cache_capacity rows */
  int cache_capacity, cache_used;
} ms_distances;

typedef enum ms_apsp_mode { MS_APSP_AUTO = 0, MS_APSP_FULL, MS_APSP_ROWS } ms_apsp_mode;

/* AUTO: the full matrix on CUDA, rows on demand on the CPU. threads: the on-demand
 * rows' CPU Dijkstra (0 = all cores); the full matrix runs on the context's threads
 * (cc_context_set_threads). */
cc_status ms_distances_init (ms_distances *d, const ms_dual *dual, cc_context *ctx,
    ms_apsp_mode mode, int threads);
void ms_distances_free (ms_distances *d);
/* Bytes of on-demand rows ms_distances keeps (ms_distances_init's budget). */
#define MS_ROW_CACHE_BYTES ((size_t) 1 << 30)
/* count rows (distances from sources[i]) into out, count x faces. */
cc_status ms_distances_rows (ms_distances *d, const int32_t *sources, int count, float *out);

/* k-way: one clustering of the whole mesh into k parts (k automatic or given), then
 * flat boundaries merge. Hierarchy: Katz-Tal's recursive decomposition, each patch
 * split into a few parts by the same clustering and cut, recursively (hierarchy.c). */
typedef enum ms_method { MS_METHOD_KWAY = 0, MS_METHOD_HIERARCHY } ms_method;

/* The flat-merge test (ms_merge_flat): a boundary is flat when
 *  - SALIENCE (the default, chosen by leave-one-category-out cross-validation over the
 *    44 PSB meshes): the share of its arcs whose crease is over merge_crease, times
 *    the smaller part's protrusion sqrt(area) / boundary length, is under
 *    merge_flatness;
 *  - SHARE: that share alone is under merge_flatness (it merges parts on a soft
 *    crease, such as wings and fins: docs/meshseg.md);
 * or when its mean crease is under merge_flatness times
 *  - ABSOLUTE: 1 (merge_flatness is itself a mean 1 - cos dihedral),
 *  - MESH: the mesh's mean angular distance (Ang),
 *  - PARTS: the mean crease of the arcs inside the two parts. */
typedef enum ms_merge_reference {
  MS_MERGE_SHARE = 0, MS_MERGE_ABSOLUTE, MS_MERGE_MESH, MS_MERGE_PARTS, MS_MERGE_SALIENCE
} ms_merge_reference;

typedef struct ms_cluster_params {
  ms_method method;
  int segments;         /* k; 0 = automatic */
  int max_segments;     /* the final segments are at most this many (or `segments`, if
                           larger); automatic k: at most this many representatives */
  float k_threshold;    /* automatic k: keep representatives with G >= this x G(1) */
  float epsilon;        /* fuzzy band: faces whose top-two membership ratio is under 0.5 + epsilon */
  int max_iterations;   /* representative updates */
  int candidates;       /* faces tried per cluster when a representative moves */
  float min_part;       /* parts under this share of the faces merge into a neighbour */
  float merge_flatness; /* adjacent parts whose boundary is flat merge (0 = never):
                           SHARE: under this share of its arcs sharp; SALIENCE:
                           that share x the smaller part's sqrt(area) / boundary
                           length under this; otherwise its mean crease under this
                           x the reference */
  ms_merge_reference merge_reference; /* how merge_flatness is read */
  float merge_crease;   /* SHARE, SALIENCE: an arc is sharp when its crease is over this */
  float merge_convex;   /* the crease of an arc: its 1 - cos dihedral, times this on
                           convex arcs (0, the default: concave creases only; 0.2
                           with eta 0.2 is the test on Ang itself, the old rule) */
  /* hierarchy only */
  int level_segments;   /* at most this many parts per split (2..16) */
  int max_depth;        /* levels of splits (1..16) */
  float min_extent;     /* a patch splits only while its extent (the distance of its
                           first farthest face from its central one) is at least this x
                           the whole mesh's (0..1) */
} ms_cluster_params;

typedef struct ms_segmentation {
  int faces;
  int k;                /* representatives */
  int32_t *reps;        /* k face ids */
  int32_t *label;       /* final label per face, 0..segments-1 */
  int32_t *second;      /* runner-up cluster per face */
  float *certainty;     /* 0 (on a fuzzy boundary) .. 1 (sure) */
  bool *fuzzy;          /* inside the fuzzy band before the cut */
  int segments;         /* distinct labels in `label` */
  int iterations;
  int fuzzy_faces;
  double extent;        /* G(1): distance of the first farthest representative */
  double gain_ratio;    /* G(2) / G(1) (0 when fewer representatives were found) */
  int depth;            /* hierarchy: deepest level split */
} ms_segmentation;

void ms_cluster_params_default (ms_cluster_params *params);
/* The whole pipeline by params->method: the segmentation with labels 0..segments-1. */
cc_status ms_segment (ms_distances *d, const ms_dual *dual, const ms_cluster_params *params,
    ms_segmentation *out);
/* Representatives, memberships, assignment (fuzzy faces carry their best cluster and
 * `fuzzy` until the cut; faces no representative reaches get label -1). */
cc_status ms_cluster (ms_distances *d, const ms_dual *dual, const ms_cluster_params *params,
    ms_segmentation *out);
/* The same on the faces where patch[f] is true (distances still those of the whole
 * mesh); the other faces get label -2 and are left alone by ms_cut_fuzzy. */
cc_status ms_cluster_patch (ms_distances *d, const ms_dual *dual,
    const ms_cluster_params *params, const bool *patch, ms_segmentation *out);
/* Resolves the fuzzy faces by minimum cuts on angular capacities, one per pair of
 * clusters; faces no representative reaches get label k. */
cc_status ms_cut_fuzzy (const ms_dual *dual, ms_segmentation *seg);
/* Merges, among the labels >= 0 (segs of them), adjacent ones whose shared boundary is
 * flat (an arc's crease: 1 - cos dihedral, times merge_convex on convex arcs): under
 * merge_flatness of its arcs with a crease over merge_crease (MS_MERGE_SHARE), that
 * share times the smaller part's sqrt(area) / boundary length under merge_flatness
 * (MS_MERGE_SALIENCE, the default), or its mean crease under merge_flatness x the reference; flattest first. */
cc_status ms_merge_flat (const ms_dual *dual, int32_t *label, int segs,
    const ms_cluster_params *params);
/* After the cut: parts under min_part merge, then (k-way) flat boundaries, then the
 * smallest segments while there are more than max(max_segments, segments); labels
 * numbered 0.. */
cc_status ms_finish_segments (const ms_dual *dual, const ms_cluster_params *params,
    bool merge_flat, ms_segmentation *seg);
/* ms_cut_fuzzy then ms_finish_segments (k-way). */
cc_status ms_refine_mincut (const ms_dual *dual, const ms_cluster_params *params,
    ms_segmentation *seg);
void ms_segmentation_free (ms_segmentation *seg);

/* Princeton Segmentation Benchmark .seg: one label per line, one line per face. */
cc_status ms_seg_write (const char *path, const int32_t *label, int faces);
cc_status ms_seg_read (const char *path, int faces, int32_t **label);
/* ASCII PLY with per-face colours; certainty pales uncertain faces towards white. */
cc_status ms_ply_write (const char *path, const ms_mesh *mesh, const ms_segmentation *seg);
/* The colour of a face in the PLY (and in ms_render): its segment's hue, paler the less
 * certain its membership. */
void ms_face_colour (const ms_segmentation *seg, int face, uint8_t rgb[3]);

typedef struct ms_eval {
  double rand_index_error;        /* 1 - Rand Index (Chen et al. 2009) */
  double gce, lce;                /* global and local consistency errors (Martin et al.) */
} ms_eval;

/* a and b: labels of the same faces (any integer ids). */
void ms_evaluate (const int32_t *a, const int32_t *b, int faces, ms_eval *out);

#endif
