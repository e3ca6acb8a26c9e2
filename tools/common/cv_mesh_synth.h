/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A procedural mesh with exact part labels, for meshseg's tests and the project's
 * media: a geodesic sphere (20 freq^2 triangles) with five arms pushed out along
 * +x, -x, +y, -y, +z, each a tube with a concave crease at its base. */
#ifndef CV_MESH_SYNTH_H
#define CV_MESH_SYNTH_H
#include <stdint.h>

/* Writes the body as ASCII OFF (3 vertices per face, welded by the importer) and
 * returns its face count, with *truth (malloc'd, one label per face: 0 body, 1..5
 * the arms; a face is in an arm when a corner of it moved). -1 when freq is outside
 * 1..1000 or the file cannot be written (then *truth is NULL). */
int cv_synth_body_off (const char *path, int freq, int32_t **truth);
/* The same body with a finger on the end of each arm: parts nested two levels deep.
 * Labels: 0 body, 1..5 the arms, 6..10 their fingers (finger a + 5 on arm a). */
int cv_synth_fingers_off (const char *path, int freq, int32_t **truth);

#endif
