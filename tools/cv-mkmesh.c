/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-mkmesh: writes the project's procedural test mesh (a body with five arms) as OFF,
 * and its exact part labels as .seg (one label a line, one line a face), so that
 * meshseg can be tried and scored without third-party meshes.
 *
 *   cv-mkmesh OUT.off [--seg OUT.seg] [--freq N] [--fingers]
 *   cv-mkmesh --version | --help
 *
 * --freq N: each of the 20 icosahedron faces is cut into N x N triangles (1..200,
 * default 14: 3,920 faces). --fingers: a finger on the end of each arm (parts nested two
 * levels deep, 11 parts). */
#include "cv_cli.h"
#include "cv_mesh_synth.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage (FILE *out)
{
  fprintf (out, "usage: cv-mkmesh OUT.off [--seg OUT.seg] [--freq N (1..200, default 14)]"
      " [--fingers]\n");
  if (out == stdout)
    fprintf (out, "Writes a mesh with exact parts (OFF): a sphere with five arms.\n"
        "  --seg OUT.seg  also its parts, one label a face (the PSB .seg layout)\n"
        "  --freq N       subdivision: 20 N^2 faces (1..200; default 14)\n"
        "  --fingers      a finger on the end of each arm (11 parts, nested two deep)\n"
        "  -h, --help     this text\n"
        "  --version      the program's version\n");
}

int
main (int argc, char **argv)
{
  const char *off = NULL, *seg = NULL;
  int freq = 14;
  bool fingers = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--version")) {
      cv_print_version ();
      return 0;
    } else if (!strcmp (argv[i], "--help") || !strcmp (argv[i], "-h")) {
      usage (stdout);
      return 0;
    } else if (!strcmp (argv[i], "--seg") && i + 1 < argc) {
      seg = argv[++i];
    } else if (!strcmp (argv[i], "--fingers")) {
      fingers = true;
    } else if (!strcmp (argv[i], "--freq") && i + 1 < argc) {
      if (!cv_parse_int ("--freq", argv[++i], 1, 200, &freq))
        return 2;
    } else if (argv[i][0] != '-' && !off) {
      off = argv[i];
    } else {
      usage (stderr);
      return 2;
    }
  }
  if (!off) {
    usage (stderr);
    return 2;
  }
  int32_t *truth;
  int faces = fingers ? cv_synth_fingers_off (off, freq, &truth)
      : cv_synth_body_off (off, freq, &truth);
  if (faces < 0) {
    fprintf (stderr, "cv-mkmesh: cannot write %s\n", off);
    return 1;
  }
  int rc = 0;
  if (seg) {
    FILE *f = fopen (seg, "w");
    for (int i = 0; f && i < faces; i++)
      fprintf (f, "%d\n", (int) truth[i]);
    if (!f || fclose (f) != 0) {
      fprintf (stderr, "cv-mkmesh: cannot write %s\n", seg);
      rc = 1;
    }
  }
  free (truth);
  if (rc == 0)
    printf ("cv-mkmesh: %s, %d faces, %d parts%s%s\n", off, faces, fingers ? 11 : 6,
        seg ? "; labels in " : "",
        seg ? seg : "");
  return rc;
}
