/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Calibration of the multi-object chromatic tracker's objects from boxes drawn on a
 * frame (cv-moct calibrate, and tools/dev/moct-billiard's first frame;
 * docs/moctracker.md, "Calibration and billiard evaluation"), and the objects file.
 *
 * A boxes file has one object per box, `x y w h class` a line (class 1 cue, 2 eight,
 * 3 solid, 4 striped). A box's colour is the per-channel median of the pixels of its
 * inscribed disc shrunk to 70% radius, leaving out those within CLOTH_EXCLUDE of the
 * cloth (the median of the box's border pixels) and, for stripes, the white band;
 * its tolerance is the 75% quantile of those pixels' RGB distances to that colour
 * (the object's own spread, shading included), clamped to 10..60 and kept under 0.8 x
 * the colour's distance to the cloth (so the cloth never matches). Messages on stderr
 * start with the program's name. */
#ifndef CV_MOCT_CALIB_H
#define CV_MOCT_CALIB_H

#include <cudacore/cc_moct.h>
#include <stdint.h>

#define CV_MOCT_MAX_BOXES 64
/* the tolerance of an objects file's object that gives none */
#define CV_MOCT_DEFAULT_TOLERANCE 30.0f

typedef struct cv_moct_box {
  int x, y, w, h, cls;
} cv_moct_box;

/* The classes' names, by class (index 0 unused). */
extern const char *const cv_moct_class_names[5];

/* Reads the boxes of path into b (at most max): their count, or -1 after a message on
 * a bad line or file. */
int cv_moct_read_boxes (const char *path, cv_moct_box *b, int max);
/* 0 when every box lies inside a width x height frame; else -1 after a message naming
 * the first that does not (a box outside calibrates nothing: refused). */
int cv_moct_check_boxes (const char *path, const cv_moct_box *b, int n, int width,
    int height);

/* The distance calibrated objects are compared with (RGB: Lab spheres were measured
 * and tracked fewer balls, docs/moctracker.md), between two RGB triples. */
double cv_moct_colour_distance (const uint8_t *a, const uint8_t *b);
/* The Euclidean RGB distance of two RGB(X) pixels. */
double cv_moct_rgb_distance (const uint8_t *a, const uint8_t *b);
/* The per-channel median of n >= 1 RGB triples. */
void cv_moct_median_rgb (const uint8_t *px, int n, uint8_t out[3]);

/* One box of the RGBX8 host image img: its colour and tolerance (above), and the
 * cloth's colour around it (the median of its border pixels). */
void cv_moct_calibrate_box (const cc_image *img, const cv_moct_box *b, uint8_t colour[3],
    float *tolerance, uint8_t cloth[3]);
/* Objects o[0..n) for boxes b[0..n) of img: names from `names` (comma-separated, n of
 * them) or, when NULL, by class (cue, eight, solid1.., stripe1..); cloth (or NULL)
 * gets each box's cloth colour. -1 after a message on a bad name list. */
int cv_moct_calibrate (const cc_image *img, const cv_moct_box *b, int n, const char *names,
    cc_moct_object *o, uint8_t (*cloth)[3]);
/* A ball's colour blob is not centred on the ball: a shaded sphere's lit side (a white
 * ball) or its shaded side (a dark one) is what matches its colour, so the blob's
 * centroid lies off the ball's centre. The offset is measured where the ball's true box
 * is known: off[i] = (box centre - centroid of the box's pixels that the tracker's
 * table gives to object i (cc_moct_classify), the ball's size there, (w + h) / 2).
 * Fewer than 8 classified pixels: no offset. -1 after a message when the table fails. */
int cv_moct_calibrate_offsets (const cc_image *img, const cv_moct_box *b, int n,
    const cc_moct_object *o, double (*off)[3]);

/* The objects file, parsed by cudacore's parser (cudacore/cc_moct_objects.h: `name
 * #rrggbb [tolerance [space]]` a line; files over CC_MOCT_OBJECTS_FILE_MAX or not
 * regular are refused), into o (at most max). Objects without a tolerance get
 * CV_MOCT_DEFAULT_TOLERANCE; without a space, the tracker's (RGB). Returns the count,
 * or -1 after a message. */
int cv_moct_read_objects (const char *path, cc_moct_object *o, int max);
#endif
