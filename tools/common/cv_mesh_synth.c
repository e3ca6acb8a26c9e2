/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The procedural test mesh: see cv_mesh_synth.h. */
#include "cv_mesh_synth.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Geodesic sphere: each icosahedron face split into a freq x freq triangle grid. Points
 * on an icosahedron edge are computed from its lower-index corner, so both faces of an
 * edge produce bit-identical vertices, which the importer welds. */
static const float ico_v[12][3] = { { -1, 1.618034f, 0 }, { 1, 1.618034f, 0 },
  { -1, -1.618034f, 0 }, { 1, -1.618034f, 0 }, { 0, -1, 1.618034f }, { 0, 1, 1.618034f },
  { 0, -1, -1.618034f }, { 0, 1, -1.618034f }, { 1.618034f, 0, -1 }, { 1.618034f, 0, 1 },
  { -1.618034f, 0, -1 }, { -1.618034f, 0, 1 } };
static const int ico_f[20][3] = { { 0, 11, 5 }, { 0, 5, 1 }, { 0, 1, 7 }, { 0, 7, 10 },
  { 0, 10, 11 }, { 1, 5, 9 }, { 5, 11, 4 }, { 11, 10, 2 }, { 10, 7, 6 }, { 7, 1, 8 },
  { 3, 9, 4 }, { 3, 4, 2 }, { 3, 2, 6 }, { 3, 6, 8 }, { 3, 8, 9 }, { 4, 9, 5 },
  { 2, 4, 11 }, { 6, 2, 10 }, { 8, 6, 7 }, { 9, 8, 1 } };

static void
normalize3 (float *p)
{
  float l = sqrtf (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  p[0] /= l; p[1] /= l; p[2] /= l;
}

/* Point (i, j) of the grid on face (A, B, C): A + i/freq (B - A) + j/freq (C - A). */
static void
grid_point (int face, int i, int j, int freq, float *out)
{
  int ia = ico_f[face][0], ib = ico_f[face][1], ic = ico_f[face][2];
  int lo = -1, hi = -1, t = 0;
  if (j == 0) { lo = ia; hi = ib; t = i; }                   /* edge A-B */
  else if (i == 0) { lo = ia; hi = ic; t = j; }              /* edge A-C */
  else if (i + j == freq) { lo = ib; hi = ic; t = j; }       /* edge B-C */
  if (lo >= 0) {
    if (lo > hi) { int s = lo; lo = hi; hi = s; t = freq - t; }
    if (t == 0 || t == freq) {   /* an icosahedron corner: exact */
      memcpy (out, ico_v[t ? hi : lo], sizeof (float) * 3);
      normalize3 (out);
      return;
    }
    for (int k = 0; k < 3; k++)
      out[k] = ico_v[lo][k] + (ico_v[hi][k] - ico_v[lo][k]) * ((float) t / freq);
  } else
    for (int k = 0; k < 3; k++)
      out[k] = ico_v[ia][k] + (ico_v[ib][k] - ico_v[ia][k]) * ((float) i / freq)
          + (ico_v[ic][k] - ico_v[ia][k]) * ((float) j / freq);
  normalize3 (out);
}

static const float arm_axis[5][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 },
  { 0, 0, 1 } };
#define ARM_CAP_COS 0.927f    /* cos 22 deg: the arm's end cap, moved out whole */
#define ARM_BASE_COS 0.866f   /* cos 30 deg: the band in between becomes the wall */
#define ARM_LENGTH 1.3f

#define FINGER_CAP_COS 0.978f   /* cos 12 deg: the finger's end cap */
#define FINGER_BASE_COS 0.966f  /* cos 15 deg: the finger's wall */
#define FINGER_LENGTH 0.8f

/* Pushes the parts of the unit sphere near an arm axis out along it: the cap by
 * ARM_LENGTH, the band down to the base linearly, so each arm is a cylinder-like tube
 * (radius ~0.4) with a concave crease at its base. With fingers, the middle of each
 * arm's end is pushed out further by FINGER_LENGTH the same way: a thinner tube
 * (radius ~0.2) on the arm's flat end, with a concave crease at its base. Returns the
 * part: the arm (1..5), its finger (6..10), or 0 (the body). */
static int
displace (const float *dir, bool fingers, float *out)
{
  memcpy (out, dir, sizeof (float) * 3);
  for (int a = 0; a < 5; a++) {
    float c = dir[0] * arm_axis[a][0] + dir[1] * arm_axis[a][1] + dir[2] * arm_axis[a][2];
    if (c <= ARM_BASE_COS)
      continue;
    float angle = acosf (fminf (c, 1.0f)), cap = acosf (ARM_CAP_COS), base = acosf (ARM_BASE_COS);
    float push = c >= ARM_CAP_COS ? ARM_LENGTH : ARM_LENGTH * (base - angle) / (base - cap);
    int part = a + 1;
    if (fingers && c > FINGER_BASE_COS) {
      float fcap = acosf (FINGER_CAP_COS), fbase = acosf (FINGER_BASE_COS);
      push += c >= FINGER_CAP_COS ? FINGER_LENGTH
          : FINGER_LENGTH * (fbase - angle) / (fbase - fcap);
      part = a + 6;
    }
    for (int k = 0; k < 3; k++)
      out[k] += push * arm_axis[a][k];
    return part;
  }
  return 0;
}

static int
write_body (const char *path, int freq, bool fingers, int32_t **truth)
{
  *truth = NULL;
  if (freq < 1 || freq > 1000)
    return -1;
  int faces = 20 * freq * freq, corners = 3 * faces;
  FILE *f = fopen (path, "w");
  if (!f)
    return -1;
  fprintf (f, "OFF\n%d %d 0\n", corners, faces);
  *truth = malloc (sizeof (int32_t) * faces);
  int32_t (*tri)[3] = malloc (sizeof *tri * faces);
  if (!*truth || !tri) {
    fclose (f);
    free (*truth);
    free (tri);
    *truth = NULL;
    return -1;
  }
  int written = 0;
  for (int face = 0; face < 20; face++)
    for (int i = 0; i < freq; i++)
      for (int j = 0; i + j < freq; j++) {
        /* up triangle (i,j) (i+1,j) (i,j+1); down triangle (i+1,j) (i+1,j+1) (i,j+1) */
        int pts[2][3][2] = { { { i, j }, { i + 1, j }, { i, j + 1 } },
          { { i + 1, j }, { i + 1, j + 1 }, { i, j + 1 } } };
        for (int t = 0; t < (i + j + 1 < freq ? 2 : 1); t++) {
          int arm_of[3];
          for (int c = 0; c < 3; c++) {
            float dir[3], pos[3];
            grid_point (face, pts[t][c][0], pts[t][c][1], freq, dir);
            arm_of[c] = displace (dir, fingers, pos);
            fprintf (f, "%.9g %.9g %.9g\n", pos[0], pos[1], pos[2]);
            tri[written][c] = 3 * written + c;
          }
          /* a face with a corner pushed out is on the arm's wall or cap (a corner
           * pushed out further: the finger's) */
          int arm = arm_of[0] > arm_of[1] ? arm_of[0] : arm_of[1];
          (*truth)[written] = arm > arm_of[2] ? arm : arm_of[2];
          written++;
        }
      }
  for (int t = 0; t < faces; t++)
    fprintf (f, "3 %d %d %d\n", tri[t][0], tri[t][1], tri[t][2]);
  free (tri);
  if (fclose (f) != 0) {
    free (*truth);
    *truth = NULL;
    return -1;
  }
  return faces;
}


int
cv_synth_body_off (const char *path, int freq, int32_t **truth)
{
  return write_body (path, freq, false, truth);
}

int
cv_synth_fingers_off (const char *path, int freq, int32_t **truth)
{
  return write_body (path, freq, true, truth);
}
