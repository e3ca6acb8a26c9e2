/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Quad-Cut: foreground segmentation by a minimum cut on quadtree leaves
 * (Vasconcelos et al., appendices C "QuadN4tree" and D "Quad-Cut" of
 * shared/papers/vasconcelos-moct-cvd-quadn4tree-quadcut.md). Design: docs/quadcut.md.
 *
 * One frame, in stages (the same on every backend):
 *  1. Stratify (D 6.2): per pixel, CIE Lab (sRGB, D65) of the frame, the background
 *     distance d and its probability p_B = exp (-d^2 / (2 sigma_l^2)), and the seed
 *     (p_B < seed_threshold). d comes from one of two sources (cc_quadcut_mode):
 *      PLATE:  the Lab difference from a background plate; a pixel darker than the
 *              plate by at most shadow_depth (as a share of the plate's L) whose
 *              chroma is the plate's, scaled as a shadow scales it ((L+16) ratio: Lab
 *              a, b scale with the cube root of the light), counts only by that
 *              chroma difference: shadows are background;
 *      ACTIVE: |L_frame - L_other| of a lit / unlit pair (paper D 6.1, eq. 4).
 *  2. Object colour model (D 6.2.3): a bins x bins histogram of the seed pixels' Lab
 *     a, b (a, b in [-128, 128)); p_O = (n_k + 1) / (n_O + bins^2) (add-one, so an
 *     empty seed set gives a uniform model instead of log 0).
 *  3. Per-pixel regional costs (D eq. 6): fg = -log p_O, bg = -log p_B = d^2 /
 *     (2 sigma_l^2); plus the temporal prior: `temporal` added to the label the pixel
 *     did not have in the previous frame's mask (none after create / reset).
 *  4. Quadtree (D 5.2, C 4.2): a reduction pyramid whose node groups its four
 *     children when they are all groupable, it lies wholly inside the frame, its
 *     level is at most max_level, and over its pixels the range (max - min) of each of
 *     Lab a, b and the background distance d (the stratified channels of D 6.2; not L,
 *     whose sensor noise would split every leaf) is at most `similarity`, or (on the
 *     stratified data, `certain` > 0) every pixel is within certain x sigma_l of the
 *     background or every pixel is a seed: nodes whose answer is not in doubt group
 *     whatever their texture. A leaf is
 *     a groupable node whose parent is not (two reads a node). The leaf list is compacted in raster order of the
 *     leaves' top-left pixels; each leaf gets its four QuadN4 references (C 4.2.4,
 *     in image coordinates, y down):
 *        north: the leaf covering (x0, y0 - 1)    east: the leaf covering (x1 + 1, y1)
 *        south: the leaf covering (x1, y1 + 1)    west: the leaf covering (x0 - 1, y0)
 *     (-1 past the frame edge), and its complete neighbour list with the shared
 *     border lengths, by QuadN4 navigation (C 3.1: north border: north, then east
 *     references; east: east then north; south: south then west; west: west then
 *     south).
 *  5. Energy on leaves (D eq. 3 / 8): t-links: the regional costs summed over the
 *     leaf's pixels (area x mean); n-links: lambda x border length x
 *     -log max (B, 1e-6), B = 1 - exp (-|Lab_t - Lab_u|^2 / (2 sigma_c^2)) over the
 *     leaves' mean Lab. nodes = PIXELS builds the same energy with one node per
 *     pixel and 4-connected unit borders: the pixel-level reference.
 *  6. Minimum cut (Boykov-Kolmogorov, Debian's libmaxflow: docs/dependencies.md),
 *     labels scattered back to a 0 / 255 mask, feathered into an alpha (a box
 *     filter of radius `feather`), composited as alpha F + (1 - alpha) B.
 *
 * Backends: the CPU reference (OpenMP on the context's threads; the same bits for
 * any thread count) and CUDA (every per-pixel and per-leaf stage on the device, the
 * leaf graph's t-links and n-links included; the seed histogram, the compact graph
 * (one copy) and the labels cross to the host, where it is cut): both give the same
 * bits at every stage.
 * NODES_PIXELS is CPU only. Frames, plates and backgrounds: RGBX8 / BGRX8 / NV12 /
 * I420 (YUV read as RGB by BT.601 limited range in integers, chroma of the pixel's
 * 2x2 block; written luma per pixel, chroma per block), masks GRAY8, all where the
 * backend computes (device memory for CUDA). Nothing is
 * allocated per frame once the buffers have grown to the frame's leaf graph
 * (capacities only grow). Design and figures: docs/quadcut.md.
 *
 * Streams: every call that reads or writes images takes the stream it runs on after
 * the handle (NULL: the context's own). Calls of this header that wait (CUDA):
 * cc_quadcut_compute_sync (the minimum cut runs on the host: the compact graph comes
 * down, the labels go up, and the call returns with its outputs done), the host
 * readbacks cc_quadcut_get_graph and cc_quadcut_mean_luminance (on the stream of the
 * last compute), cc_quadcut_get_plate_host and cc_quadcut_keep_plate (the copy to the
 * host), cc_quadcut_start_plate (the upload of a host plate), create (it
 * initialises device memory) and destroy (cudaFree). set_params, set_plate,
 * update_plate, learn_plate, get_plate, reset, get_mask, get_alpha, composite,
 * set_alpha, draw, render and prepare do not wait; the learning state's other calls, the
 * alternation calls and the pair warning are host only; check_pair waits as
 * mean_luminance does. */
#ifndef CUDACORE_CC_QUADCUT_H
#define CUDACORE_CC_QUADCUT_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_QUADCUT_MAX_LEVEL 12       /* leaf side up to 4096 px */

typedef enum cc_quadcut_mode {
  CC_QUADCUT_MODE_PLATE = 0,
  CC_QUADCUT_MODE_ACTIVE
} cc_quadcut_mode;

typedef enum cc_quadcut_nodes {
  CC_QUADCUT_NODES_LEAVES = 0,   /* Quad-Cut: one graph node per quadtree leaf */
  CC_QUADCUT_NODES_PIXELS        /* reference: one node per pixel (max_level 0) */
} cc_quadcut_nodes;

/* The tunable fields (all but mode and nodes): ranges in cc_quadcut_param_table. */
typedef struct cc_quadcut_params {
  cc_quadcut_mode mode;
  cc_quadcut_nodes nodes;
  float sigma_l;          /* std of the background distance (Lab units). Default 6 */
  float shadow_depth;     /* PLATE: darkest shadow, as a share of the plate's L
                             (0: no shadow rule). Default 0.15: deeper settings
                             also take dark grey objects on grey ground for shadows
                             (CDnet highway: F 0.916 at 0.15, 0.769 at 0.6) */
  float seed_threshold;   /* seed where p_B < this. Default 1e-4 (d > 4.3 sigma_l) */
  int bins;               /* histogram bins per axis (a and b). Default 32 */
  float sigma_c;          /* boundary colour std (Lab units). Default 10 */
  float lambda;           /* boundary weight. Default 1 */
  float similarity;       /* largest range of a, b and d inside a leaf (Lab units).
                             Default 8 */
  float certain;         /* grouping on the stratified data (D 5.2): a node whose
                             pixels are all within certain x sigma_l of the
                             background (surely background), or all seeds (surely
                             foreground), is grouped whatever its texture (a, b,
                             d ranges), so that only the uncertain band stays fine;
                             0: off (the ranges alone). Default 4 */
  int max_level;          /* largest leaf side 2^max_level, up to
                             CC_QUADCUT_MAX_LEVEL. Default 5 (32 px) */
  float temporal;         /* temporal prior per pixel. Default 1.5 (CDnet
                             highway: 4 already keeps trails of the cars) */
  int feather;            /* alpha box-filter radius in px. Default 1 */
} cc_quadcut_params;

#define CC_QUADCUT_N_PARAMS 11  /* the tunable fields, sigma_l to feather */

/* The CC_QUADCUT_N_PARAMS tunable fields of cc_quadcut_params in the struct's order
 * (the quadcut element builds its properties from them): the one description of
 * their ranges (cc_quadcut_params_check enforces them). Static;
 * nothing waits. */
const cc_param_info *cc_quadcut_param_table (void);

/* [out] params: the defaults the field comments give. Nothing waits. */
void cc_quadcut_params_default (cc_quadcut_params *params);
/* [in] params: the parameters to check.
 * INVALID_ARGUMENT with a message naming the first field out of range. Nothing
 * waits. */
cc_status cc_quadcut_params_check (const cc_quadcut_params *params);

typedef struct cc_quadcut cc_quadcut;

/* For width x height frames. The parameters can change between frames with
 * cc_quadcut_set_params (same mode and nodes kind).
 * [in] ctx: the context (its backend computes). [in] width, height: >= 1.
 * [in] params: checked as cc_quadcut_params_check; NULL gives the defaults.
 * [out] out: the new handle.
 * NOT_SUPPORTED for NODES_PIXELS on the CUDA backend; OUT_OF_MEMORY. Waits on CUDA
 * for the device memory it initialises. */
cc_status cc_quadcut_create (cc_context *ctx, int width, int height,
    const cc_quadcut_params *params, cc_quadcut **out);
/* [in] q: NULL is a no-op. Waits on CUDA (cudaFree). */
void cc_quadcut_destroy (cc_quadcut *q);
/* [in] q. [out] params: the parameters in use. Nothing waits. */
void cc_quadcut_get_params (const cc_quadcut *q, cc_quadcut_params *params);
/* [in,out] q. [in] params: checked as cc_quadcut_params_check, the created mode and
 * nodes kind. Apply from the next compute (nothing is allocated anew).
 * INVALID_ARGUMENT for bad values or a change of mode / nodes (recreate). Takes no
 * stream; nothing waits. */
cc_status cc_quadcut_set_params (cc_quadcut *q, const cc_quadcut_params *params);

/* PLATE: the background plate, converted to Lab once, here.
 * [in,out] q. [in] stream: NULL for the context's stream.
 * [in] plate: RGBX8 / BGRX8 / NV12 / I420, the created size, where the backend
 *   computes.
 * Does not wait. */
cc_status cc_quadcut_set_plate (cc_quadcut *q, cc_stream stream, const cc_image *plate);
/* Moves the plate towards a frame (same size and format rules as the plate): each
 * channel by the frame's difference clamped to +-step (1..255): called once a frame,
 * a running approximation of the per-pixel temporal median (McFarlane and
 * Schofield's, with steps of `step` levels), for learning a plate (start from
 * cc_quadcut_set_plate of the first frame) and for keeping it up to date.
 * [in,out] q: a plate must have been set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream. [in] frame: as the plate.
 * [in] step: 1..255 levels.
 * [in] background_only: only where the last compute's alpha is 0 (confident
 *   background; a compute must have happened, else INVALID_ARGUMENT).
 * Does not wait. */
cc_status cc_quadcut_update_plate (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    int step, bool background_only);
/* The plate as it stands.
 * [in] q: a plate must have been set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [out] dst: RGBX8 / BGRX8 (X = 255), the created size, where the backend computes.
 * Does not wait. */
cc_status cc_quadcut_get_plate (cc_quadcut *q, cc_stream stream, cc_image *dst);
/* The plate as it stands, copied to the host on any backend: for keeping a plate while
 * the handle is recreated.
 * [in] q: a plate must have been set (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [out] host: a new host RGBX8 image of the created size (X = 255; free with
 *   cc_image_free (NULL, host)); zeroed on error.
 * OUT_OF_MEMORY. Waits (the copy to the host). */
cc_status cc_quadcut_get_plate_host (cc_quadcut *q, cc_stream stream, cc_image *host);

/* ---- PLATE: learning a plate from the stream's frames. */

typedef enum cc_quadcut_plate_source {
  CC_QUADCUT_PLATE_NONE = 0,    /* no plate yet: the next frame learned starts one */
  CC_QUADCUT_PLATE_LEARNING,    /* each frame learned moves the plate towards it */
  CC_QUADCUT_PLATE_LEARNED,     /* learned from all its frames */
  CC_QUADCUT_PLATE_IMAGE        /* set from a picture (a file) */
} cc_quadcut_plate_source;

/* Where the plate comes from and how far learning is, for cc_quadcut_learn_plate. */
typedef struct cc_quadcut_learning {
  cc_quadcut_plate_source source;
  int learned;                  /* frames learned into the plate so far */
} cc_quadcut_learning;

/* [out] l: `source`, no frame learned. Host only: nothing waits. */
void cc_quadcut_learning_init (cc_quadcut_learning *l, cc_quadcut_plate_source source);
/* One frame of learning: NONE: the frame becomes the plate (cc_quadcut_set_plate;
 * LEARNING, 1 frame learned); LEARNING: the plate moves towards it
 * (cc_quadcut_update_plate by `step`, one frame more); LEARNING becomes LEARNED once
 * `frames` frames are learned. LEARNED and IMAGE: nothing.
 * [in,out] q, l. [in] stream: NULL for the context's stream.
 * [in] frame: as cc_quadcut_set_plate. [in] step: 1..255. [in] frames: >= 1.
 * The status of the plate call. Does not wait. */
cc_status cc_quadcut_learn_plate (cc_quadcut *q, cc_stream stream, cc_quadcut_learning *l,
    const cc_image *frame, int step, int frames);
/* A stream discontinuity: a plate still LEARNING is dropped (NONE: learning starts
 * again at the next frame), a LEARNED or IMAGE one stays; no frame learned.
 * [in,out] l. Returns the frames learned into a dropped plate, 0 when none was
 * dropped. Host only: nothing waits. */
int cc_quadcut_learning_restart (cc_quadcut_learning *l);
/* Whether the plate is complete (LEARNED or IMAGE): the one to keep up to date.
 * Host only: nothing waits. */
bool cc_quadcut_learning_done (const cc_quadcut_learning *l);

/* What a frame is compared with, before its compute: ACTIVE (q's created mode): the
 * previous frame, or the frame itself when there is none (the stream's first: distance
 * 0, all background); PLATE: the plate (other NULL), after one frame of learning
 * (cc_quadcut_learn_plate; with relearn, l starts again from NONE first).
 * [in,out] q. [in] stream: NULL for the context's stream. [in,out] l: q's learning
 * state (PLATE). [in] frame: as cc_quadcut_compute_sync's. [in] previous: the stream's
 * previous frame, or NULL (ACTIVE). [in] relearn, step, frames: as above.
 * [out] other: cc_quadcut_compute_sync's `other`.
 * [out] learned: whether this frame completed the learned plate (LEARNED now, not
 *   before).
 * INVALID_ARGUMENT (a NULL pointer), and cc_quadcut_learn_plate's. Does not wait. */
cc_status cc_quadcut_prepare (cc_quadcut *q, cc_stream stream, cc_quadcut_learning *l,
    const cc_image *frame, const cc_image *previous, bool relearn, int step, int frames,
    const cc_image **other, bool *learned);

/* ---- PLATE: the plate across handles. A handle is recreated when the frames change
 * size, backend or thread count; a fully learned plate can outlive it on the host
 * (cc_quadcut_keep_plate), and the new handle's plate comes from a picture, that
 * kept plate, or the frames (cc_quadcut_start_plate). */

/* Keeps q's plate on the host when it is fully learned.
 * [in] q. [in] stream: NULL for the context's stream. [in] l: q's learning state.
 * [in,out] kept: a host image or one without planes. l LEARNED: freed and replaced by
 *   the plate (cc_quadcut_get_plate_host: RGBX8, X = 255; zeroed on error); else
 *   untouched.
 * OUT_OF_MEMORY. Waits when it copies (the copy to the host). */
cc_status cc_quadcut_keep_plate (cc_quadcut *q, cc_stream stream, const cc_quadcut_learning *l,
    cc_image *kept);
/* A new handle's plate and its learning state: `picture` when given (IMAGE; with
 * relearn NONE: the next frame learned replaces it), else `kept` when it has the
 * created size (LEARNED), else none (NONE: learned from the frames).
 * [in,out] q. [in] stream: NULL for the context's stream. [out] l.
 * [in] picture: host RGBX8 of the created size (a picture scaled to the frames), or
 *   NULL.
 * [in,out] kept: host RGBX8 of any size (cc_quadcut_keep_plate's) or an image without
 *   planes; freed (cc_image_free (NULL, kept)) whatever the outcome: a kept plate of
 *   another size is learned again.
 * [in] relearn: learn a new plate even when there is a picture.
 * INVALID_ARGUMENT (a plate that is not host RGBX8 of the created size; l is then
 * NONE), OUT_OF_MEMORY. Waits on CUDA when it sets a plate (the host plate's upload). */
cc_status cc_quadcut_start_plate (cc_quadcut *q, cc_stream stream, cc_quadcut_learning *l,
    const cc_image *picture, cc_image *kept, bool relearn);

/* Forgets the previous mask (the temporal prior); the plate stays.
 * [in,out] q. Host state only: takes no stream, nothing waits. */
cc_status cc_quadcut_reset (cc_quadcut *q);

/* Segments one frame: the mask and alpha that get_mask, get_alpha, composite,
 * set_alpha and draw read, and the leaf graph of get_graph. Quad-Cut's one compute:
 * the temporal prior (params.temporal; 0: none) reads the previous compute's mask
 * until cc_quadcut_reset.
 * [in,out] q. [in] stream: NULL for the context's stream.
 * [in] frame: RGBX8 / BGRX8 / NV12 / I420, the created size, where the backend
 *   computes. Its own colours make the Lab and the colour model.
 * [in] other: PLATE: NULL (the plate must have been set: else INVALID_ARGUMENT);
 *   ACTIVE: the frame of the other illumination (same size, any of those formats).
 * OUT_OF_MEMORY (the leaf graph's buffers grow, or libmaxflow's graph).
 * Waits (the minimum cut runs on the host): on CUDA the call returns with its
 * outputs done on the stream. */
cc_status cc_quadcut_compute_sync (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    const cc_image *other);

/* The last compute's mask (GRAY8: 255 foreground, 0 background) or feathered alpha
 * (GRAY8), copied into dst.
 * [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [out] dst: GRAY8, the created size, where the backend computes.
 * Do not wait. */
cc_status cc_quadcut_get_mask (cc_quadcut *q, cc_stream stream, cc_image *dst);
cc_status cc_quadcut_get_alpha (cc_quadcut *q, cc_stream stream, cc_image *dst);

/* out = (alpha F + (255 - alpha) B + 127) / 255 per channel, alpha the last
 * compute's feathered alpha, X bytes copied from F. NV12 / I420: luma per pixel;
 * chroma per 2x2 block with the block's rounded mean alpha; the colour by
 * cc_rgb_to_yuv's BT.601; the blur of the chroma planes has radius
 * (blur_radius + 1) / 2.
 * [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [in] frame: F, the frame computed or any frame of its size and format (RGBX8 /
 *   BGRX8 / NV12 / I420), where the backend computes.
 * [in] bg: B; an IMAGE of frame's size and format, blur_radius 1..256 for BLUR.
 * [out] out: frame's size and format, where the backend computes; may be frame.
 * Does not wait. */
cc_status cc_quadcut_composite (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    const cc_background *bg, cc_image *out);

/* Writes the last compute's feathered alpha into the X byte of an RGBX8 / BGRX8
 * frame (RGBA / BGRA: the foreground in the alpha channel, for a compositor
 * downstream); the colours stay.
 * [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [in,out] frame: RGBX8 / BGRX8 (other formats: NOT_SUPPORTED), the created size,
 *   where the backend computes.
 * Does not wait. */
cc_status cc_quadcut_set_alpha (cc_quadcut *q, cc_stream stream, cc_image *frame);

/* Draws the last compute's leaves, the debug view: out = frame with, per pixel, the
 * top and left edge pixels of every leaf in its level's colour (so 1x1 and 2x2
 * leaves fill their area), other seed pixels halfway to red ((p + c + 1) >> 1 a
 * channel), the rest the frame's. Level colours (R, G, B), level 0 up: (40, 40, 40),
 * (0, 90, 255), (0, 200, 255), (0, 220, 90), (250, 220, 0), (255, 120, 0),
 * (255, 0, 160), then white. NV12 / I420: those colours' Y, U, V (cc_rgb_to_yuv),
 * luma per pixel, chroma per 2x2 block by its top-left pixel.
 * [in] q: a compute with NODES_LEAVES must have happened (else INVALID_ARGUMENT).
 * [in] stream: NULL for the context's stream.
 * [in] frame, [out] out: as in cc_quadcut_composite; out may be frame.
 * Does not wait. */
cc_status cc_quadcut_draw (cc_quadcut *q, cc_stream stream, const cc_image *frame,
    cc_image *out);

/* What cc_quadcut_render writes into a frame. */
typedef enum cc_quadcut_output {
  CC_QUADCUT_OUTPUT_COMPOSITE = 0,   /* the frame over a background (cc_quadcut_composite) */
  CC_QUADCUT_OUTPUT_ALPHA,           /* the alpha in the X byte (cc_quadcut_set_alpha) */
  CC_QUADCUT_OUTPUT_MASK,            /* the feathered matte as an opaque grey picture */
  CC_QUADCUT_OUTPUT_DEBUG            /* the leaves (cc_quadcut_draw) */
} cc_quadcut_output;

/* Writes one output of the last compute into the frame, in place. MASK is
 * cc_quadcut_composite of an all-white frame over black: RGBX8 / BGRX8: R = G = B =
 * the alpha, X 255; NV12 / I420: luma per pixel between cc_rgb_to_yuv's white (235)
 * and black (16), chroma per 2x2 block with its rounded mean alpha between theirs
 * (both 128).
 * [in] q: a compute must have happened (DEBUG: with NODES_LEAVES), else
 *   INVALID_ARGUMENT.
 * [in] stream: NULL for the context's stream.
 * [in] output: what to write; another value: INVALID_ARGUMENT.
 * [in] bg: COMPOSITE's background, as in cc_quadcut_composite; not read otherwise
 *   (may be NULL).
 * [in,out] frame: RGBX8 / BGRX8 / NV12 / I420 (ALPHA: RGBX8 / BGRX8, else
 *   NOT_SUPPORTED), the created size, where the backend computes.
 * Does not wait. */
cc_status cc_quadcut_render (cc_quadcut *q, cc_stream stream, cc_quadcut_output output,
    const cc_background *bg, cc_image *frame);

/* ---- The last compute's leaf graph (what crosses to the host on a GPU backend):
 * for tests, tools and debug drawing. Pointers stay valid until the next compute. */
typedef struct cc_quadcut_leaf {
  int x, y;                      /* top-left pixel */
  int level;                     /* side 2^level */
  int north, east, south, west;  /* QuadN4 references (leaf indices), -1 at the edge */
  float L, a, b;                 /* mean Lab over the leaf */
  double cost_fg, cost_bg;       /* regional terms summed over the leaf's pixels */
} cc_quadcut_leaf;

typedef struct cc_quadcut_graph {
  int n_leaves;                  /* NODES_PIXELS: 0 (no leaf graph) */
  const cc_quadcut_leaf *leaves;
  /* complete neighbour lists: leaf i's neighbours are neighbours[offsets[i] ..
   * offsets[i + 1]), north border first (west to east), then east (south to
   * north), south (east to west), west (north to south); lengths[] the shared border
   * length of each */
  const int *offsets, *neighbours, *lengths;
  /* the graph as cut (D eq. 3 / 8): t-links per node (the regional costs summed over
   * the leaf: paid as foreground / background), n-links edge_a[i] < edge_b[i] with
   * weight edge_w[i] = lambda x border x -log max (B, 1e-6), n_edges of them, in the
   * leaves' order (each leaf's neighbours of a higher index, in its list's order) */
  const double *tlink_fg, *tlink_bg, *edge_w;
  const int *edge_a, *edge_b;
  const uint8_t *labels;         /* per node (leaf or pixel): 1 foreground */
  int n_nodes;                   /* graph nodes: leaves or pixels */
  long long n_edges;             /* n-links (unordered neighbour pairs) */
  long long n_seeds;             /* seed pixels */
  double flow;                   /* the maximum flow = the minimum energy */
} cc_quadcut_graph;

/* [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [out] out: host pointers into q's buffers.
 * OUT_OF_MEMORY. A host readback: on CUDA the leaves and neighbour lists are
 * downloaded here, at the first call after a compute (the compute itself only copies
 * the compact graph, t-links and n-links), waiting for the stream of the last
 * compute. */
cc_status cc_quadcut_get_graph (cc_quadcut *q, cc_quadcut_graph *out);

/* ---- Active illumination: do the frames alternate lit and unlit? */

/* The last computed frame's mean luminance (Lab L, 0..100): NODES_LEAVES: the leaves'
 * mean L weighted by their area (no pass over the pixels); NODES_PIXELS: the mean
 * over the pixels.
 * [in] q: a compute must have happened (else INVALID_ARGUMENT).
 * [out] mean_l: host.
 * On CUDA it reads the leaves back as cc_quadcut_get_graph does (OUT_OF_MEMORY, CUDA
 * errors) and waits for the stream of the last compute. */
cc_status cc_quadcut_mean_luminance (cc_quadcut *q, double *mean_l);

/* A pair of frames whose mean L differs by less than this has the same light. Only
 * the foreground gets the light: on the project's 640x360 clip the mean L of a lit
 * and an unlit frame differ by 0.9, so the threshold sits under it; frames that do
 * not alternate have the same mean L (noise averages out over the frame), or change
 * it the same way twice in a row. */
#define CC_QUADCUT_SAME_L 0.05

typedef enum cc_quadcut_pair_check {
  CC_QUADCUT_PAIR_FIRST = 0,    /* no previous frame: nothing to compare */
  CC_QUADCUT_PAIR_ALTERNATES,   /* lit after unlit or unlit after lit */
  CC_QUADCUT_PAIR_SAME_LIGHT,   /* |dL| < CC_QUADCUT_SAME_L */
  CC_QUADCUT_PAIR_SAME_CHANGE   /* dL has the sign of the previous pair's (a change) */
} cc_quadcut_pair_check;

/* The frames seen so far, for cc_quadcut_alternation_push. */
typedef struct cc_quadcut_alternation {
  double previous_l;    /* the previous frame's mean L; < 0: none */
  double previous_dl;   /* the previous pair's change of mean L; 0: none, or the same
                           light */
} cc_quadcut_alternation;

/* [out] a: no frame seen (previous_l -1, previous_dl 0). Host only: nothing
 * waits. */
void cc_quadcut_alternation_init (cc_quadcut_alternation *a);
/* Checks the pair (the previous frame, this one) and makes this frame the previous:
 * SAME_LIGHT before SAME_CHANGE; previous_dl becomes dL, or 0 for SAME_LIGHT.
 * [in,out] a: from cc_quadcut_alternation_init (and the pushes since).
 * [in] mean_l: this frame's mean L (cc_quadcut_mean_luminance), finite, >= 0.
 * [out] check: the pair's verdict.
 * INVALID_ARGUMENT for a NULL pointer or mean_l out of range. Host only: nothing
 * waits. */
cc_status cc_quadcut_alternation_push (cc_quadcut_alternation *a, double mean_l,
    cc_quadcut_pair_check *check);

/* The warning for a pair that does not alternate: text names the frames (`frame` is
 * this one's number), detail gives the mean L values. SAME_LIGHT: "active
 * illumination: frames N-1 and N have the same mean luminance"; SAME_CHANGE: "...
 * frames N-2 to N do not alternate lit and unlit"; FIRST and ALTERNATES: none.
 * [in] before: the alternation before this frame's push. [in] mean_l: this frame's.
 * [in] check: the push's verdict. [in] frame: this frame's number (>= 2 for a warning).
 * [out] text, detail: NUL-terminated, cut to text_size / detail_size bytes.
 * Returns whether there is a warning (text and detail untouched when not). Host only:
 * nothing waits. */
bool cc_quadcut_pair_warning (const cc_quadcut_alternation *before, double mean_l,
    cc_quadcut_pair_check check, unsigned long long frame, char *text, size_t text_size,
    char *detail, size_t detail_size);

/* The size of cc_quadcut_pair's text and detail (NUL included). */
#define CC_QUADCUT_PAIR_TEXT 160

/* One active-illumination frame's pair, for cc_quadcut_check_pair. */
typedef struct cc_quadcut_pair {
  cc_quadcut_pair_check check;
  double mean_l;        /* this frame's mean L */
  double previous_l;    /* the previous frame's; < 0: none */
  bool warn;            /* the pair does not alternate: text and detail say so */
  char text[CC_QUADCUT_PAIR_TEXT], detail[CC_QUADCUT_PAIR_TEXT];   /* empty: no warning */
} cc_quadcut_pair;

/* An active-illumination frame after its compute: its mean L
 * (cc_quadcut_mean_luminance) pushed on a (cc_quadcut_alternation_push), and the
 * warning of cc_quadcut_pair_warning when the pair does not alternate.
 * [in] q: a compute must have happened. [in,out] a: untouched on error.
 * [in] frame: this frame's number. [out] pair.
 * INVALID_ARGUMENT (a NULL pointer), and the errors of cc_quadcut_mean_luminance
 * (whose wait it shares) and cc_quadcut_alternation_push. */
cc_status cc_quadcut_check_pair (cc_quadcut *q, cc_quadcut_alternation *a,
    unsigned long long frame, cc_quadcut_pair *pair);

#ifdef __cplusplus
}
#endif
#endif
