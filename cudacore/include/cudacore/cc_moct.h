/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MOCT: multi-object chromatic tracking (Vasconcelos et al., appendix A of
 * shared/papers/vasconcelos-moct-cvd-quadn4tree-quadcut.md: local evaluation +
 * multiple parallel reduction, sections 3.1-3.5). Design: docs/moctracker.md.
 *
 * Up to CC_MOCT_MAX_OBJECTS objects, each of one distinctive colour, are found in
 * every frame in one pass over the pixels:
 *  1. Classification: a look-up table, built on the host whenever the object table
 *     changes, maps a quantised input colour to an object id (or none), so that a
 *     pixel costs O(1) whatever the number of objects. The table has
 *     2^(3 x CC_MOCT_LUT_BITS) cells (6 bits a channel: 262,144 uint16 entries);
 *     input channel value c falls in cell q = c >> 2, and a cell is classified by the
 *     colour at the CENTRE of its bin (4 q + 1.5 on each channel), not by the exact
 *     colour. RGBX8 / BGRX8 frames index an RGB table; NV12 / I420 frames index a
 *     second table by their Y, U, V (the bin centre is converted to RGB with the
 *     inverse of the BT.601 limited-range conversion, then classified like an
 *     RGB colour): no per-pixel colour conversion. Both backends use the same tables,
 *     so they classify every pixel identically.
 *     A cell goes to the target nearest to it (in the chosen colour space) among
 *     those within their own tolerance; equal distances go to the lowest id.
 *  2. Reduction: per object, 64-bit integer count, sum x, sum y, sum x^2, sum y^2,
 *     sum xy and the min / max x and y. Integer sums: the CPU and CUDA results are
 *     bit-identical.
 *  3. Results: derived on the host from the sums (moments, orientation, axes) and a
 *     trajectory history: a ring of the last `history` samples per object, kept
 *     where the backend computes (device memory on CUDA).
 *
 * Conventions: pixel (x, y) is the pixel centre at integer x, y (x right, y down).
 * Bounding boxes are inclusive: x0 <= x <= x1, y0 <= y <= y1.
 *
 * Calls that wait (CUDA): cc_moct_compute with a results array; cc_moct_get_trajectory
 * (a host readback); cc_moct_set_objects (a configuration call: it waits for the last
 * call's stream, uploads the tables and waits); cc_moct_seed (its host values are
 * uploaded); cc_moct_create (it clears its device buffers and waits); destroy
 * (cudaFree). cc_moct_compute without results, cc_moct_reset and cc_moct_draw do not. */
#ifndef CUDACORE_CC_MOCT_H
#define CUDACORE_CC_MOCT_H

#include "cc_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CC_MOCT_MAX_OBJECTS 1024
#define CC_MOCT_NAME_MAX 64            /* bytes of a name, including the NUL */
#define CC_MOCT_LUT_BITS 6             /* bits per channel of the classification table */
#define CC_MOCT_HISTORY_MAX 4096
#define CC_MOCT_NONE 0xFFFF            /* "no object" in a table cell */

/* Colour space in which a pixel is compared with a target (distance d vs tolerance):
 *  RGB: Euclidean in 8-bit R, G, B.
 *  HSV: d = 255 sqrt((hue_weight dh)^2 + ds^2 + dv^2), with h, s, v in [0, 1] and
 *       dh = 2 min(|h1 - h2|, 1 - |h1 - h2|) the circular hue difference (0..1):
 *       a tolerance in the same units as RGB, but hue counts hue_weight times more
 *       (paper 3.4). Greys have hue 0.
 *  LAB: CIE76 delta E in CIE L*a*b* (sRGB, D65). */
typedef enum cc_moct_space {
  CC_MOCT_SPACE_PARAMS = 0,   /* objects only: the tracker's cc_moct_params.space */
  CC_MOCT_SPACE_RGB,
  CC_MOCT_SPACE_HSV,
  CC_MOCT_SPACE_LAB
} cc_moct_space;


typedef struct cc_moct_params {
  cc_moct_space space;     /* RGB, HSV or LAB (not PARAMS). Default RGB */
  float hue_weight;        /* HSV only, 0..100. Default 2 */
  int history;             /* trajectory samples kept per object, 2..4096. Default 64 */
  int min_mass;            /* an object is present when its mass (pixels) is at least
                              this, >= 1. Default 16 */
  int window;              /* search window, 0..4096 px; 0 (default): every object is
                              searched in the whole frame. > 0: an object present in
                              the last frame is searched only within +-window px of its
                              rounded centroid moved by its rounded velocity (constant
                              velocity; a square of 2 window + 1); after a
                              frame without it the square grows by window px a side
                              per frame; never seen since reset (and not seeded with
                              cc_moct_seed): the whole frame. The paper's local
                              evaluation with a region-of-interest clue (appendix B's
                              regional reduction): stray pixels of an object's colour
                              elsewhere no longer move its box and centroid */
  float size_ratio;        /* window > 0 only: the look-alike gate. 0 (off) or 1..100;
                              default 3. A blob whose mass differs from the object's
                              recent mass (a running average over about 4 accepted
                              frames) by more than this factor either way, or whose
                              box's longer side grows past this factor of the recent
                              one (+2 px), is not the object: the frame reports it
                              absent with `lost` set, the window grows as for an
                              absent object, and the object is re-acquired by the
                              first blob of its size in its window. The reference
                              starts at the first frame with the object present
                              after create or reset */
} cc_moct_params;

/* [out] params: the defaults above. */
void cc_moct_params_default (cc_moct_params *params);
/* [in] params. Returns CC_SUCCESS, or CC_ERROR_INVALID_ARGUMENT (NULL, or a message
 * naming the first field out of range). */
cc_status cc_moct_params_check (const cc_moct_params *params);

typedef struct cc_moct_object {
  char name[CC_MOCT_NAME_MAX];  /* non-empty, unique in the table */
  uint8_t r, g, b;              /* target colour (8-bit sRGB) */
  float tolerance;              /* > 0: largest distance in the object's space */
  cc_moct_space space;          /* where this object's colour is compared; PARAMS (0,
                                   what a zeroed struct holds): params.space. A colour
                                   within tolerance of objects of several spaces goes
                                   to the smallest distance, each measured in its
                                   object's own space (lowest id on a tie) */
} cc_moct_object;

/* One object in one frame. Every field is 0 (bbox 0, 0, -1, -1) when mass is 0. */
typedef struct cc_moct_result {
  int id;                        /* index in the object table */
  bool present;                  /* mass >= min_mass */
  bool velocity_valid;           /* see vx, vy */
  int64_t mass;                  /* classified pixels */
  int64_t sum_x, sum_y, sum_xx, sum_yy, sum_xy;   /* raw integer sums */
  double cx, cy;                 /* centroid: sum_x / mass, sum_y / mass */
  int x0, y0, x1, y1;            /* inclusive bounding box */
  /* normalised second central moments (px^2): mu20 = sum (x - cx)^2 / mass, ... */
  double mu20, mu02, mu11;
  double orientation;            /* radians, 0.5 atan2 (2 mu11, mu20 - mu02): the major
                                    axis' angle from +x towards +y (clockwise on screen) */
  double major_axis, minor_axis; /* 2 sqrt (eigenvalue) of [mu20 mu11; mu11 mu02]: the
                                    semi-axes of the uniform ellipse with these moments */
  /* px / frame, from this frame's centroid and the object's previous present
   * sample (however old, since create / reset): (c - c_prev) / (frame - frame_prev).
   * velocity_valid when present now and there is such a sample; else 0. */
  double vx, vy;
  /* with a window and params.size_ratio: mass >= min_mass but refused as a
   * look-alike (present is false; mass, centroid and box are those of what was
   * refused) */
  bool lost;
} cc_moct_result;

/* One trajectory sample (a frame) of one object. */
typedef struct cc_moct_sample {
  int64_t frame;        /* frame index since create / reset, from 0 */
  int64_t mass;
  double cx, cy;        /* centroid (0 when mass is 0) */
  int ix, iy;           /* centroid rounded half up, in integers (what is drawn) */
  int present;          /* mass >= min_mass */
  int reserved;
} cc_moct_sample;

typedef struct cc_moct cc_moct;

/* For width x height frames; no objects yet (compute finds nothing). The parameters
 * are fixed for the tracker's life (recreate to change them).
 * [in] ctx: not NULL, outlives the handle. [in] width, height: 1..16384.
 * [in] params: NULL for the defaults, else checked as by cc_moct_params_check.
 * [out] out: the new handle (NULL on error).
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA.
 * Waits (CUDA) for the device buffers it clears. */
cc_status cc_moct_create (cc_context *ctx, int width, int height,
    const cc_moct_params *params, cc_moct **out);
/* NULL: no-op. */
void cc_moct_destroy (cc_moct *m);
/* [in] m: not NULL. [out] params: the tracker's parameters. */
void cc_moct_get_params (const cc_moct *m, cc_moct_params *params);

/* Replaces the object table (n in 0..CC_MOCT_MAX_OBJECTS) and rebuilds the
 * classification tables on the host (uploaded for CUDA). INVALID_ARGUMENT, naming
 * the offending entry, for a bad n, a NULL table with n > 0, an empty or
 * unterminated name, a duplicate name, or a tolerance that is not > 0; on error
 * the previous table stays. A configuration call, no stream: on CUDA it waits for
 * the stream of the tracker's last call (which may still read the tables), then
 * uploads and waits. Trajectories are kept for ids that stay in the table
 * (the caller resets when ids change meaning). Not per frame: two tables of
 * 262,144 cells are rebuilt (about 0.2 s for 1024 objects on one core).
 * [in,out] m. [in] objects: n entries (NULL only when n is 0). [in] n.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT, CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA. */
cc_status cc_moct_set_objects (cc_moct *m, const cc_moct_object *objects, int n);
/* The number of objects in the table; 0 for NULL. */
int cc_moct_object_count (const cc_moct *m);

/* Tracks one frame (the next frame index) on `stream` (NULL: the context's).
 * [in,out] m: keeps the sums, trajectories and search windows.
 * [in] frame: width x height RGBX8 / BGRX8 / NV12 / I420 where the backend
 *      computes (device memory for CUDA).
 * [out] results: host array of cc_moct_object_count() entries, or NULL. With
 *      results on CUDA the call waits for the frame; with NULL it does not (the
 *      results stay on the device for cc_moct_draw and the trajectory).
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT; CC_ERROR_NOT_SUPPORTED (a GRAY8
 * frame: no colour to track); CC_ERROR_CUDA. */
cc_status cc_moct_compute (cc_moct *m, cc_stream stream, const cc_image *frame,
    cc_moct_result *results);

/* Trajectory of one object, oldest first: at most min(max, frames since reset,
 * history) samples written.
 * [in] m. [in] object: 0..count-1. [out] out: max entries. [in] max: >= 0.
 * [out] n: the number written.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (a NULL pointer, object or max out of
 * range), CC_ERROR_OUT_OF_MEMORY, CC_ERROR_CUDA. A host readback: on CUDA it waits for
 * the stream of the tracker's last call. */
cc_status cc_moct_get_trajectory (cc_moct *m, int object, cc_moct_sample *out, int max,
    int *n);
/* Clears every trajectory and restarts frame indices at 0 (flush / discont); search
 * windows go back to the whole frame and the size gate's references are dropped.
 * [in,out] m. Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (m NULL), CC_ERROR_CUDA.
 * On `stream` (it clears device state); does not wait. */
cc_status cc_moct_reset (cc_moct *m, cc_stream stream);
/* With params.window > 0: the next compute searches `object` within +-window px of
 * (x, y) (an initial position, e.g. from a calibration box).
 * [in,out] m. [in] object: 0..count-1. [in] x, y: a position in the frame.
 * Returns CC_SUCCESS, CC_ERROR_INVALID_ARGUMENT (m NULL, a bad object, no window),
 * CC_ERROR_CUDA. On `stream`; the five ints are copied from the host, so the call
 * waits for that copy. */
cc_status cc_moct_seed (cc_moct *m, cc_stream stream, int object, int x, int y);

/* What cc_moct_draw draws, in this order (later draws cover earlier ones):
 *  MASK:         tints every classified pixel halfway to its object's colour
 *                ((p + c + 1) >> 1 a channel; YUV frames blend Y per pixel and U, V
 *                per 2x2 block when its top-left pixel is classified);
 *  TRAJECTORIES: lines (object colour) between consecutive present samples;
 *  BOXES:        the inclusive bounding box outline (object colour) of present objects;
 *  CENTROIDS:    a white cross (+-4 px) at the rounded centroid of present objects;
 *  LABELS:       each present object's name in its colour, in a 5x7 px font (the glyph
 *                pixels alone, 6 px a character; bytes outside printable ASCII show
 *                as '?'), left-aligned with its box: its top row 8 px above the box
 *                (one row of gap) when that is inside the frame, else 2 px below the
 *                box. What falls outside the frame is clipped.
 * Lines and labels of several objects that overlap: the highest id wins within a
 * kind. On NV12 / I420, a line or glyph pixel writes Y, and U, V when it is the
 * top-left pixel of its 2x2 block (as cc_flow_vis_draw). Integer drawing: CPU and
 * CUDA pixels are equal. */
#define CC_MOCT_DRAW_MASK         (1u << 0)
#define CC_MOCT_DRAW_TRAJECTORIES (1u << 1)
#define CC_MOCT_DRAW_BOXES        (1u << 2)
#define CC_MOCT_DRAW_CENTROIDS    (1u << 3)
#define CC_MOCT_DRAW_LABELS       (1u << 4)
#define CC_MOCT_DRAW_ALL          0x1Fu

/* Draws the last compute's state into frame on `stream`; does not wait. The mask
 * classifies frame's own pixels. (The CUDA backend's width x height uint32 drawing
 * scratch is allocated at create.)
 * [in] m. [in,out] frame: width x height RGBX8 / BGRX8 / NV12 / I420, where the
 * backend computes. [in] flags: CC_MOCT_DRAW_* bits.
 * Returns CC_SUCCESS; CC_ERROR_INVALID_ARGUMENT (m NULL, a frame that does not fit,
 * unknown flags); CC_ERROR_NOT_SUPPORTED (GRAY8); CC_ERROR_CUDA. */
cc_status cc_moct_draw (cc_moct *m, cc_stream stream, cc_image *frame, unsigned flags);

/* The distance between two 8-bit sRGB colours in a space (RGB, HSV with hue_weight,
 * LAB; see cc_moct_space): what the classification tables compare with a
 * tolerance (for calibration tools). -1 for an unknown space. Host only. */
double cc_moct_colour_distance (cc_moct_space space, float hue_weight, const uint8_t a[3],
    const uint8_t b[3]);

/* The classification of one colour (what the tables hold; for calibration tools
 * such as cv-moct, and tests): [in] m: not NULL. [in] yuv: false: c0, c1, c2 = R, G,
 * B; true: Y, U, V. Returns an id or -1. Host only (the tables' host copy). */
int cc_moct_classify (const cc_moct *m, bool yuv, uint8_t c0, uint8_t c1, uint8_t c2);

#ifdef __cplusplus
}
#endif
#endif
