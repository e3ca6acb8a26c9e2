/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-mkpairs: synthetic large-motion pairs with exact ground truth (cv_pairs.h: a
 * textured background and 2..4 textured foreground layers, each moved by its own
 * random affine motion, occluding each other).
 *
 *   cv-mkpairs DIR [--count N] [--size WxH] [--max-motion PX | --driving] [--seed N]
 *                  [--media DIR | --procedural]
 *   (--driving: forward camera motion over a textured ground plane, cv_pair_make_driving)
 *   cv-mkpairs --version
 *   (count 1..1000, default 8; size 16..8192 a side, default 1024x436; max-motion
 *    0..4096 px, default 150; seed default 1; media default ../shared/media)
 *
 * DIR/pair_%03d/ holds frame10.png, frame11.png (RGB), flow10.flo (true flow frame
 * 1 -> 2) and occlusions.png (white: the pixel leaves the frame or is covered in
 * frame 2): the layout of the Sintel pairs, so `match-bench --eval DIR` and
 * `cv-flow --eval` read both alike. Pair i uses seed + i: the same options write
 * the same files.
 *
 * Textures: the photographs of MEDIA/mosaic/ (JPEG) and the Middlebury frames
 * MEDIA/optflow/middlebury/<name>/frame10.png. Without them (no media folder, or
 * --procedural) coloured value noise, so CI can make pairs. */
#include "cv_cli.h"
#include "cv_imageio.h"
#include "cv_pairs.h"
#include <cudacore/cc_flow_io.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_TEXTURES 32

static int
name_cmp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Sorted file names of dir (NULL entries on failure); returns the count. */
static int
list_dir (const char *dir, char **names, int max)
{
  DIR *d = opendir (dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir (d)) && n < max)
    if (e->d_name[0] != '.')
      names[n++] = strdup (e->d_name);
  closedir (d);
  qsort (names, n, sizeof *names, name_cmp);
  return n;
}

/* The media textures, in a fixed order (sorted names): the mosaic photographs,
 * then the Middlebury frames. */
static int
load_textures (const char *media, cc_image *tex)
{
  int n = 0;
  char dir[4096], path[8192];
  char *names[64];
  snprintf (dir, sizeof dir, "%s/mosaic", media);
  int k = list_dir (dir, names, 64);
  for (int i = 0; i < k; i++) {
    snprintf (path, sizeof path, "%s/%s", dir, names[i]);
    if (n < MAX_TEXTURES && strstr (names[i], ".jpg") && cv_jpeg_load (path, &tex[n]) == CC_SUCCESS)
      n++;
    free (names[i]);
  }
  snprintf (dir, sizeof dir, "%s/optflow/middlebury", media);
  k = list_dir (dir, names, 64);
  for (int i = 0; i < k; i++) {
    snprintf (path, sizeof path, "%s/%s/frame10.png", dir, names[i]);
    if (n < MAX_TEXTURES && cv_png_load (path, CC_FORMAT_RGBX8, &tex[n]) == CC_SUCCESS)
      n++;
    free (names[i]);
  }
  return n;
}

static int
make_dir (const char *path)
{
  if (mkdir (path, 0755) != 0 && errno != EEXIST) {
    fprintf (stderr, "cv-mkpairs: cannot create %s: %s\n", path, strerror (errno));
    return 1;
  }
  return 0;
}

static int
write_pair (const char *dir, int index, const cv_pair_params *p, const cc_image *tex, int ntex,
    bool driving)
{
  char sub[4096], path[8192];
  snprintf (sub, sizeof sub, "%s/pair_%03d", dir, index);
  if (make_dir (sub))
    return 1;
  cc_image f1, f2, flow, occ;
  cc_status made = driving ? cv_pair_make_driving (p, tex, ntex, &f1, &f2, &flow, &occ, NULL)
      : cv_pair_make (p, tex, ntex, &f1, &f2, &flow, &occ);
  if (made != CC_SUCCESS) {
    fprintf (stderr, "cv-mkpairs: %s\n", cc_last_error ());
    return 1;
  }
  cc_status st;
  snprintf (path, sizeof path, "%s/frame10.png", sub);
  st = cv_png_save (path, &f1);
  if (st == CC_SUCCESS) {
    snprintf (path, sizeof path, "%s/frame11.png", sub);
    st = cv_png_save (path, &f2);
  }
  if (st == CC_SUCCESS) {
    snprintf (path, sizeof path, "%s/flow10.flo", sub);
    st = cc_flo_write (path, &flow);
  }
  if (st == CC_SUCCESS) {
    snprintf (path, sizeof path, "%s/occlusions.png", sub);
    st = cv_png_save (path, &occ);
  }
  if (st != CC_SUCCESS)
    fprintf (stderr, "cv-mkpairs: %s: %s\n", path, cc_last_error ());
  cv_image_free (&f1);
  cv_image_free (&f2);
  cv_image_free (&flow);
  cv_image_free (&occ);
  return st != CC_SUCCESS;
}

static const char help[] =
"usage: cv-mkpairs DIR [--count N] [--size WxH] [--max-motion PX | --driving]\n"
"                  [--seed N] [--media DIR | --procedural]\n"
"Writes synthetic large-motion pairs with exact ground truth: DIR/pair_NNN/ with\n"
"frame10.png, frame11.png, flow10.flo (true flow) and occlusions.png (white: the\n"
"pixel leaves the frame or is covered), the Sintel layout that match-bench --eval\n"
"and cv-flow --eval read. The same options write the same files.\n"
"  --count N        pairs to write (1..1000; default 8)\n"
"  --size WxH       frame size (16..8192 a side; default 1024x436)\n"
"  --max-motion PX  the largest motion of a layer, in pixels (0..4096; default 150)\n"
"  --driving        driving pairs instead of layers: a pinhole camera 1.2..1.8 m\n"
"                   above a textured ground plane with a textured far wall (25..60 m),\n"
"                   moving forward 0.15..0.4 of the distance to the nearest ground\n"
"                   point seen and turning -1.5..1.5 degrees; flow exact\n"
"                   from the two camera poses, occluded where a point leaves frame 2\n"
"                   (--max-motion does not apply)\n"
"  --seed N         pair i uses seed N + i (default 1)\n"
"  --media DIR      the textures' folder: DIR/mosaic/*.jpg and the Middlebury frames\n"
"                   (default ../shared/media)\n"
"  --procedural     coloured value noise as textures, no media needed\n"
"  -h, --help       this text\n"
"  --version        the program's version\n";

static int
usage (void)
{
  fprintf (stderr, "usage: cv-mkpairs DIR [--count 1..1000] [--size WxH, 16..8192]"
      " [--max-motion 0..4096 | --driving] [--seed N] [--media DIR | --procedural]\n");
  return 2;
}

int
main (int argc, char **argv)
{
  const char *dir = NULL, *media = "../shared/media";
  int count = 8, w = 1024, h = 436, seed = 1;
  float max_motion = 150.0f;
  bool procedural = false, media_given = false, driving = false, motion_given = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool ok = true;
    if (cv_version_or_help (a, help))
      return 0;
    else if (!strcmp (a, "--procedural"))
      procedural = true;
    else if (!strcmp (a, "--driving"))
      driving = true;
    else if (a[0] == '-' && i + 1 >= argc)
      return usage ();
    else if (!strcmp (a, "--count"))
      ok = cv_parse_int (a, argv[++i], 1, 1000, &count);
    else if (!strcmp (a, "--seed"))
      ok = cv_parse_int (a, argv[++i], 0, 2147483647L, &seed);
    else if (!strcmp (a, "--max-motion"))
    {
      ok = cv_parse_float (a, argv[++i], 0, 4096, &max_motion);
      motion_given = true;
    }
    else if (!strcmp (a, "--media")) {
      media = argv[++i];
      media_given = true;
    } else if (!strcmp (a, "--size")) {
      char extra;
      i++;
      if (sscanf (argv[i], "%dx%d%c", &w, &h, &extra) != 2 || w < 16 || h < 16 || w > 8192
          || h > 8192)
        ok = cv_option_error (a, argv[i], "WxH with W, H in 16..8192");
    } else if (a[0] == '-' || dir)
      return usage ();
    else
      dir = a;
    if (!ok)
      return 2;
  }
  if (!dir)
    return usage ();
  if (driving && motion_given) {
    fprintf (stderr, "cv-mkpairs: --max-motion does not apply to --driving\n");
    return 2;
  }
  static cc_image tex[MAX_TEXTURES];
  int ntex = 0;
  if (!procedural) {
    ntex = load_textures (media, tex);
    if (ntex == 0 && media_given) {
      fprintf (stderr, "cv-mkpairs: no texture under %s (mosaic/*.jpg, "
          "optflow/middlebury/*/frame10.png)\n", media);
      return 1;
    }
    if (ntex == 0)
      fprintf (stderr, "cv-mkpairs: no media at %s: procedural textures\n", media);
  }
  if (make_dir (dir))
    return 1;
  int rc = 0;
  for (int i = 0; i < count && !rc; i++) {
    cv_pair_params p = { w, h, max_motion, (unsigned) seed + (unsigned) i };
    rc = write_pair (dir, i, &p, tex, ntex, driving);
  }
  for (int i = 0; i < ntex; i++)
    cv_image_free (&tex[i]);
  if (!rc && driving)
    printf ("cv-mkpairs: %d driving pair%s %dx%d, %s textures in %s\n", count,
        count == 1 ? "" : "s", w, h, ntex ? "media" : "procedural", dir);
  else if (!rc)
    printf ("cv-mkpairs: %d pair%s %dx%d, max motion %g px, %s textures in %s\n", count,
        count == 1 ? "" : "s", w, h, max_motion, ntex ? "media" : "procedural", dir);
  return rc;
}
