/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Princeton Segmentation Benchmark .seg files and the face-coloured PLY. */
#include "meshseg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cc_status
ms_seg_write (const char *path, const int32_t *label, int faces)
{
  FILE *f = fopen (path, "w");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "%s: cannot write: %s", path, strerror (errno));
  for (int i = 0; i < faces; i++)
    fprintf (f, "%d\n", label[i]);
  if (fclose (f) != 0)
    return cc_set_error (CC_ERROR_IO, "%s: write failed: %s", path, strerror (errno));
  return CC_SUCCESS;
}

cc_status
ms_seg_read (const char *path, int faces, int32_t **label)
{
  *label = NULL;
  FILE *f = fopen (path, "r");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "%s: cannot open: %s", path, strerror (errno));
  int32_t *l = malloc (sizeof (int32_t) * (size_t) (faces ? faces : 1));
  if (!l) {
    fclose (f);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  int count = 0;
  long value;
  char extra;
  cc_status st = CC_SUCCESS;
  while (st == CC_SUCCESS && fscanf (f, "%ld", &value) == 1) {
    if (count >= faces)
      st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: more labels than the mesh's %d faces",
          path, faces);
    else
      l[count++] = (int32_t) value;
  }
  if (st == CC_SUCCESS && fscanf (f, " %c", &extra) == 1)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: not a label after line %d", path, count);
  if (st == CC_SUCCESS && count != faces)
    st = cc_set_error (CC_ERROR_CORRUPT_DATA, "%s: %d labels for a mesh of %d faces", path,
        count, faces);
  fclose (f);
  if (st != CC_SUCCESS)
    free (l);
  else
    *label = l;
  return st;
}

/* Well separated hues (golden-ratio steps), saturated. */
static void
label_colour (int label, float rgb[3])
{
  float h = fmodf (0.13f + label * 0.618034f, 1.0f) * 6.0f, s = 0.85f, v = 0.95f;
  int i = (int) h;
  float fr = h - i, p = v * (1 - s), q = v * (1 - s * fr), t = v * (1 - s * (1 - fr));
  float table[6][3] = { { v, t, p }, { q, v, p }, { p, v, t }, { p, q, v }, { t, p, v }, { v, p, q } };
  memcpy (rgb, table[i % 6], sizeof table[0]);
}

void
ms_face_colour (const ms_segmentation *s, int face, uint8_t rgb[3])
{
  float base[3];
  label_colour (s->label[face], base);
  /* linear blend towards white as certainty falls (marras-2010 figure 6) */
  float c = s->certainty ? fminf (1.0f, fmaxf (0.0f, s->certainty[face])) : 1.0f;
  float keep = 0.25f + 0.75f * c;
  for (int i = 0; i < 3; i++)
    rgb[i] = (uint8_t) lrintf (255.0f * (1.0f - keep * (1.0f - base[i])));
}

cc_status
ms_ply_write (const char *path, const ms_mesh *m, const ms_segmentation *s)
{
  FILE *f = fopen (path, "w");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "%s: cannot write: %s", path, strerror (errno));
  fprintf (f, "ply\nformat ascii 1.0\ncomment meshseg: colour = segment, paler = less "
      "certain membership\nelement vertex %d\nproperty float x\nproperty float y\n"
      "property float z\nelement face %d\nproperty list uchar int vertex_indices\n"
      "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n",
      m->vertex_count, m->face_count);
  for (int v = 0; v < m->vertex_count; v++)
    fprintf (f, "%g %g %g\n", m->vertices[v][0], m->vertices[v][1], m->vertices[v][2]);
  for (int i = 0; i < m->face_count; i++) {
    uint8_t rgb[3];
    ms_face_colour (s, i, rgb);
    fprintf (f, "3 %d %d %d %d %d %d\n", m->faces[i][0], m->faces[i][1], m->faces[i][2],
        rgb[0], rgb[1], rgb[2]);
  }
  if (fclose (f) != 0)
    return cc_set_error (CC_ERROR_IO, "%s: write failed: %s", path, strerror (errno));
  return CC_SUCCESS;
}
