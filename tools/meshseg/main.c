/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meshseg: segments a triangle mesh into parts (Katz-Tal fuzzy clustering on the
 * dual graph's all-pairs shortest paths, boundaries by minimum cut), writes per-face
 * labels (.seg), a face-coloured PLY and a picture (PNG), and scores the result against ground-truth
 * .seg files. See docs/meshseg.md. */
#include "cv_cli.h"
#include "cv_timing.h"
#include "meshseg.h"
#include "render.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TRUTHS 256

typedef struct {
  const char *input, *seg_out, *ply_out, *render_out, *eval_dir, *sweep;
  const char *truths[MAX_TRUTHS];
  char *owned_truths[MAX_TRUTHS];   /* paths made for --eval-dir, freed at exit */
  int truth_count, owned_count;
  cc_backend backend;
  ms_apsp_mode apsp;
  int threads;
  bool json, quiet;
  ms_import_options import;
  ms_dual_params dual;
  ms_cluster_params cluster;
  ms_render_params render;
} options;


/* For a command line that cannot run: the synopsis alone, on stderr. */
static void
short_usage (void)
{
  fprintf (stderr, "usage: meshseg [options] MESH (meshseg --help describes every option)\n");
}

static void
usage (FILE *out)
{
  fprintf (out,
      "NAME\n"
      "  meshseg - segment a triangle mesh into meaningful parts\n"
      "\n"
      "SYNOPSIS\n"
      "  meshseg [options] MESH\n"
      "  meshseg --help | --version\n"
      "\n"
      "DESCRIPTION\n"
      "  Segments a triangle mesh (OFF, OBJ, PLY, ... read by Assimp) into parts, after\n"
      "  Katz and Tal: distances between faces on the dual graph (geodesic and angular,\n"
      "  all pairs on the CPU or a CUDA device), fuzzy clustering around representatives,\n"
      "  a minimum cut through each fuzzy boundary, then flat boundaries merged. Prints a\n"
      "  summary (or one JSON line); writes labels, a coloured PLY or a picture on request;\n"
      "  scores the result against ground truths. Defaults were chosen on the Princeton\n"
      "  Segmentation Benchmark (docs/meshseg.md in the source tree).\n"
      "\n"
      "OPTIONS\n"
      "  -k, --segments N        number of representatives (0..64; 0 = automatic; default 0)\n"
      "      --max-segments N    at most N segments in the result (or k, if larger): automatic\n"
      "                          k tries up to N, then the smallest segments merge (2..64;\n"
      "                          default 30)\n"
      "      --k-threshold T     automatic k: representatives at least T x as far as the\n"
      "                          first farthest one (0..1; default 0.15)\n"
      "      --merge-flat F      merge neighbouring parts whose boundary is flat: its share\n"
      "                          of arcs sharper than --merge-crease times the smaller\n"
      "                          part's sqrt(area) / boundary length under F (salience),\n"
      "                          that share under F (share), or its mean crease\n"
      "                          (1 - cos dihedral) under F x the reference (0..100,\n"
      "                          0 = off; default 0.125)\n"
      "      --merge-crease C    salience, share: an arc is sharp when its crease is over\n"
      "                          C (0..2; default 0.006, about 6 degrees)\n"
      "      --method M          kway | hierarchy: one k-way clustering of the mesh, or\n"
      "                          Katz-Tal's recursive splits (default kway)\n"
      "      --level-segments N  hierarchy: at most N parts per split (2..16; default 4)\n"
      "      --depth N           hierarchy: levels of splits (1..16; default 3)\n"
      "      --min-extent F      hierarchy: split a patch only while its extent is at least\n"
      "                          F x the mesh's (0..1; default 0.2)\n"
      "      --merge-reference R salience | share | absolute | mesh | parts: the share of\n"
      "                          sharp arcs times the smaller part's protrusion, that share,\n"
      "                          or the mean crease against F itself, F x the mesh's mean\n"
      "                          angular distance, or F x the mean crease inside the two\n"
      "                          parts (default salience)\n"
      "      --merge-convex W    weight of convex edges in that boundary measure (0 =\n"
      "                          concave creases only; 0..1, default 0)\n"
      "      --alpha A           angular share of the face distance, 0..1 (default 0.5)\n"
      "      --eta E             convex-edge angle factor, (0, 1] (default 0.05)\n"
      "      --epsilon E         fuzzy band half-width, [0, 0.5) (default 0.1)\n"
      "      --iterations N      representative updates (0..1000; default 10)\n"
      "      --min-part F        parts under this share of faces merge (0..1; default 0.002)\n"
      "  -b, --backend B         auto | cpu | cuda (APSP backend; default auto)\n"
      "      --apsp M            auto | full | rows: the full APSP matrix (auto on CUDA),\n"
      "                          or rows by CPU Dijkstra on demand (auto on the CPU)\n"
      "      --threads N         CPU threads of the APSP (0..1024, 0 = all, more than 256\n"
      "                          count as 256; default 0)\n"
      "      --triangulate       split polygons into triangles instead of failing\n"
      "      --allow-nonmanifold join the faces of edges with more than two faces\n"
      "  -o, --seg FILE          write labels (.seg: one per line, one line per face)\n"
      "      --ply FILE          write a face-coloured PLY (paler = less certain)\n"
      "      --render FILE.png   write a picture of the segmented mesh (PLY colours, flat\n"
      "                          shading, 3/4 view with the longest extent horizontal)\n"
      "      --render-size WxH   size of that picture (default 640x480)\n"
      "  -e, --eval FILE.seg     score against a ground truth (repeatable)\n"
      "      --eval-dir DIR      score against every *.seg in DIR\n"
      "      --json              print a JSON summary line\n"
      "      --sweep FILE        one line of segmentation options per setting (no --alpha,\n"
      "                          --eta or outputs): each runs on the same distances and\n"
      "                          prints a JSON line with its \"setting\" (implies --json -q)\n"
      "  -q, --quiet             only errors and the JSON line\n"
      "  -h, --help              this text (exit status 0)\n"
      "      --version           the project's version (exit status 0)\n"
      "\n"
      "EXIT STATUS\n"
      "  0  segmented (and every requested output written)\n"
      "  1  the mesh: unreadable, faces naming missing vertices, zero area, a ground truth\n"
      "     that is missing or does not match it\n"
      "  2  options: values out of range, unwritable output paths\n"
      "\n"
      "EXAMPLES\n"
      "  meshseg body.off --seg body.seg --render body.png --render-size 480x360\n"
      "  meshseg -q --json --eval-dir psb/seg/92 psb/off/92.off\n"
      "\n"
      "LICENCE\n"
      "  GPL-3.0-or-later (it links igraph, GPL-2.0-or-later).\n");
}

static int
string_compare (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static int
add_eval_dir (options *o, const char *dir)
{
  DIR *d = opendir (dir);
  if (!d) {
    fprintf (stderr, "meshseg: cannot open ground-truth folder %s\n", dir);
    return -1;
  }
  struct dirent *e;
  int first = o->truth_count;
  while ((e = readdir (d)) && o->truth_count < MAX_TRUTHS) {
    size_t len = strlen (e->d_name);
    if (len > 4 && !strcmp (e->d_name + len - 4, ".seg")) {
      char *path = malloc (strlen (dir) + len + 2);
      if (!path)
        break;
      sprintf (path, "%s/%s", dir, e->d_name);
      o->truths[o->truth_count++] = path;
      o->owned_truths[o->owned_count++] = path;
    }
  }
  closedir (d);
  qsort (&o->truths[first], (size_t) (o->truth_count - first), sizeof (char *), string_compare);
  if (o->truth_count == first) {
    fprintf (stderr, "meshseg: no .seg files in %s\n", dir);
    return -1;
  }
  return 0;
}

/* Whether path (an output file; NULL: none asked for) can be written, checked before
 * the mesh is read rather than after the computation; creates nothing. */
static bool
writable (const char *opt, const char *path)
{
  if (!path)
    return true;
  const char *why = NULL;
  struct stat st;
  if (stat (path, &st) == 0) {
    if (S_ISDIR (st.st_mode))
      why = "is a folder";
    else if (access (path, W_OK) != 0)
      why = strerror (errno);
  } else if (errno != ENOENT)
    why = strerror (errno);
  else {
    /* a new file: its folder must exist and be writable */
    char *dir = strdup (path), *slash = strrchr (dir, '/');
    if (slash == dir)
      slash[1] = 0;
    else if (slash)
      *slash = 0;
    if (access (slash ? dir : ".", W_OK | X_OK) != 0)
      why = strerror (errno);
    free (dir);
  }
  if (why)
    fprintf (stderr, "meshseg: %s: cannot write %s: %s\n", opt, path, why);
  return !why;
}

static int
parse (int argc, char **argv, options *o)
{
  enum { O_MAXSEG = 256, O_ALPHA, O_ETA, O_EPS, O_ITER, O_MINPART, O_APSP, O_THREADS,
    O_TRI, O_NONMAN, O_PLY, O_EVALDIR, O_JSON, O_KTHR, O_FLAT, O_RENDER, O_RSIZE,
    O_METHOD, O_LEVELSEG, O_DEPTH, O_MINEXT, O_SWEEP, O_MCONVEX, O_MREF, O_MCREASE };
  static const struct option longs[] = {
    { "segments", required_argument, 0, 'k' }, { "max-segments", required_argument, 0, O_MAXSEG },
    { "alpha", required_argument, 0, O_ALPHA }, { "eta", required_argument, 0, O_ETA },
    { "epsilon", required_argument, 0, O_EPS }, { "iterations", required_argument, 0, O_ITER },
    { "min-part", required_argument, 0, O_MINPART }, { "backend", required_argument, 0, 'b' },
    { "apsp", required_argument, 0, O_APSP }, { "threads", required_argument, 0, O_THREADS },
    { "triangulate", no_argument, 0, O_TRI }, { "allow-nonmanifold", no_argument, 0, O_NONMAN },
    { "seg", required_argument, 0, 'o' }, { "ply", required_argument, 0, O_PLY },
    { "render", required_argument, 0, O_RENDER }, { "render-size", required_argument, 0, O_RSIZE },
    { "eval", required_argument, 0, 'e' }, { "eval-dir", required_argument, 0, O_EVALDIR },
    { "json", no_argument, 0, O_JSON }, { "k-threshold", required_argument, 0, O_KTHR },
    { "merge-flat", required_argument, 0, O_FLAT }, { "quiet", no_argument, 0, 'q' },
    { "method", required_argument, 0, O_METHOD },
    { "level-segments", required_argument, 0, O_LEVELSEG },
    { "depth", required_argument, 0, O_DEPTH }, { "min-extent", required_argument, 0, O_MINEXT },
    { "sweep", required_argument, 0, O_SWEEP },
    { "merge-convex", required_argument, 0, O_MCONVEX },
    { "merge-reference", required_argument, 0, O_MREF },
    { "merge-crease", required_argument, 0, O_MCREASE },
    { "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 } };
  memset (o, 0, sizeof *o);
  ms_dual_params_default (&o->dual);
  ms_cluster_params_default (&o->cluster);
  ms_render_params_default (&o->render);
  int c;
  while ((c = getopt_long (argc, argv, "k:b:o:e:qh", longs, NULL)) != -1) {
    bool ok = true;
    switch (c) {
      case 'k': ok = cv_parse_int ("--segments", optarg, 0, 64, &o->cluster.segments); break;
      case O_MAXSEG:
        ok = cv_parse_int ("--max-segments", optarg, 2, 64, &o->cluster.max_segments);
        break;
      case O_FLAT:
        ok = cv_parse_float ("--merge-flat", optarg, 0, 100, &o->cluster.merge_flatness);
        break;
      case O_METHOD:
        if (!strcmp (optarg, "kway")) o->cluster.method = MS_METHOD_KWAY;
        else if (!strcmp (optarg, "hierarchy")) o->cluster.method = MS_METHOD_HIERARCHY;
        else ok = cv_option_error ("--method", optarg, "kway or hierarchy");
        break;
      case O_LEVELSEG:
        ok = cv_parse_int ("--level-segments", optarg, 2, 16, &o->cluster.level_segments);
        break;
      case O_DEPTH: ok = cv_parse_int ("--depth", optarg, 1, 16, &o->cluster.max_depth); break;
      case O_MINEXT:
        ok = cv_parse_float ("--min-extent", optarg, 0, 1, &o->cluster.min_extent);
        break;
      case O_SWEEP: o->sweep = optarg; break;
      case O_MCREASE:
        ok = cv_parse_float ("--merge-crease", optarg, 0, 2, &o->cluster.merge_crease);
        break;
      case O_MREF:
        if (!strcmp (optarg, "share")) o->cluster.merge_reference = MS_MERGE_SHARE;
        else if (!strcmp (optarg, "absolute")) o->cluster.merge_reference = MS_MERGE_ABSOLUTE;
        else if (!strcmp (optarg, "mesh")) o->cluster.merge_reference = MS_MERGE_MESH;
        else if (!strcmp (optarg, "parts")) o->cluster.merge_reference = MS_MERGE_PARTS;
        else if (!strcmp (optarg, "salience")) o->cluster.merge_reference = MS_MERGE_SALIENCE;
        else ok = cv_option_error ("--merge-reference", optarg,
            "salience, share, absolute, mesh or parts");
        break;
      case O_MCONVEX:
        ok = cv_parse_float ("--merge-convex", optarg, 0, 1, &o->cluster.merge_convex);
        break;
      case O_KTHR:
        ok = cv_parse_float ("--k-threshold", optarg, 0, 1, &o->cluster.k_threshold);
        if (ok && o->cluster.k_threshold == 0)
          ok = cv_option_error ("--k-threshold", optarg, "a number in (0, 1]");
        break;
      case O_ALPHA: ok = cv_parse_float ("--alpha", optarg, 0, 1, &o->dual.alpha); break;
      case O_ETA:
        ok = cv_parse_float ("--eta", optarg, 0, 1, &o->dual.convex_eta);
        if (ok && o->dual.convex_eta == 0)
          ok = cv_option_error ("--eta", optarg, "a number in (0, 1]");
        break;
      case O_EPS:
        ok = cv_parse_float ("--epsilon", optarg, 0, 0.5, &o->cluster.epsilon);
        if (ok && o->cluster.epsilon >= 0.5f)
          ok = cv_option_error ("--epsilon", optarg, "a number in [0, 0.5)");
        break;
      case O_ITER:
        ok = cv_parse_int ("--iterations", optarg, 0, 1000, &o->cluster.max_iterations);
        break;
      case O_MINPART:
        ok = cv_parse_float ("--min-part", optarg, 0, 1, &o->cluster.min_part);
        break;
      case 'b':
        if (!strcmp (optarg, "cpu")) o->backend = CC_BACKEND_CPU;
        else if (!strcmp (optarg, "cuda")) o->backend = CC_BACKEND_CUDA;
        else if (!strcmp (optarg, "auto")) o->backend = CC_BACKEND_AUTO;
        else { fprintf (stderr, "meshseg: unknown backend '%s'\n", optarg); return -1; }
        break;
      case O_APSP:
        if (!strcmp (optarg, "full")) o->apsp = MS_APSP_FULL;
        else if (!strcmp (optarg, "rows")) o->apsp = MS_APSP_ROWS;
        else if (!strcmp (optarg, "auto")) o->apsp = MS_APSP_AUTO;
        else { fprintf (stderr, "meshseg: unknown --apsp '%s'\n", optarg); return -1; }
        break;
      case O_THREADS: ok = cv_parse_int ("--threads", optarg, 0, 1024, &o->threads); break;
      case O_TRI: o->import.triangulate = true; break;
      case O_NONMAN: o->import.allow_nonmanifold = true; break;
      case 'o': o->seg_out = optarg; break;
      case O_PLY: o->ply_out = optarg; break;
      case O_RENDER: o->render_out = optarg; break;
      case O_RSIZE: {
        int w, h;
        char extra;
        if (sscanf (optarg, "%dx%d%c", &w, &h, &extra) != 2 || w < 8 || h < 8 || w > 8192
            || h > 8192) {
          fprintf (stderr, "meshseg: --render-size wants WxH, 8..8192 each (got '%s')\n",
              optarg);
          return -1;
        }
        o->render.width = w;
        o->render.height = h;
        break;
      }
      case 'e':
        if (o->truth_count < MAX_TRUTHS)
          o->truths[o->truth_count++] = optarg;
        break;
      case O_EVALDIR: o->eval_dir = optarg; break;
      case O_JSON: o->json = true; break;
      case 'q': o->quiet = true; break;
      case 'h': usage (stdout); exit (0);
      case 'V': cv_print_version (); exit (0);
      default: short_usage (); return -1;
    }
    if (!ok)
      return -1;
  }
  if (optind != argc - 1) {
    short_usage ();
    return -1;
  }
  o->input = argv[optind];
  if (o->eval_dir && add_eval_dir (o, o->eval_dir) != 0)
    return -1;
  if (!writable ("--seg", o->seg_out) || !writable ("--ply", o->ply_out)
      || !writable ("--render", o->render_out))
    return -1;
  return 0;
}

static int
fail (const char *stage, cc_status st)
{
  fprintf (stderr, "meshseg: %s failed: %s: %s\n", stage, cc_status_name (st), cc_last_error ());
  return 1;
}

/* One setting of a --sweep file: the command line's options with the line's after them
 * (later options win), parsed by parse() itself so that every check applies. */
typedef struct {
  char *text;
  ms_cluster_params cluster;
} sweep_setting;

static int
read_sweep (int argc, char **argv, const options *base, sweep_setting **out, int *count)
{
  FILE *f = fopen (base->sweep, "r");
  if (!f) {
    fprintf (stderr, "meshseg: cannot read --sweep %s: %s\n", base->sweep, strerror (errno));
    return -1;
  }
  sweep_setting *list = NULL;
  int n = 0, rc = 0;
  char line[1024];
  while (rc == 0 && fgets (line, sizeof line, f)) {
    line[strcspn (line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#')
      continue;
    if (strpbrk (line, "\"\\")) {
      fprintf (stderr, "meshseg: --sweep line '%s': quotes and backslashes not allowed\n", line);
      rc = -1;
      break;
    }
    char *copy = strdup (line), *words[64], *save = NULL;
    int w = 0;
    for (char *t = strtok_r (copy, " \t", &save); t && w < 64; t = strtok_r (NULL, " \t", &save))
      words[w++] = t;
    char **args = malloc (sizeof (char *) * (size_t) (argc + w + 1));
    int a = 0;
    for (int i = 0; i < argc - 1; i++)
      args[a++] = argv[i];
    for (int i = 0; i < w; i++)
      args[a++] = words[i];
    args[a++] = argv[argc - 1];
    args[a] = NULL;
    options lo;
    optind = 0;   /* glibc: start getopt afresh */
    if (parse (a, args, &lo) != 0) {
      fprintf (stderr, "meshseg: in --sweep line '%s'\n", line);
      rc = -1;
    } else if (lo.dual.alpha != base->dual.alpha || lo.dual.convex_eta != base->dual.convex_eta
        || lo.import.triangulate != base->import.triangulate
        || lo.import.allow_nonmanifold != base->import.allow_nonmanifold
        || lo.backend != base->backend || lo.apsp != base->apsp) {
      fprintf (stderr, "meshseg: --sweep line '%s': only segmentation options may change "
          "(the distances are shared)\n", line);
      rc = -1;
    } else {
      sweep_setting *more = realloc (list, sizeof *list * (size_t) (n + 1));
      if (more) {
        list = more;
        list[n].text = strdup (line);
        list[n++].cluster = lo.cluster;
      } else
        rc = -1;
    }
    for (int i = 0; i < lo.owned_count; i++)
      free (lo.owned_truths[i]);
    free (args);
    free (copy);
  }
  fclose (f);
  if (rc == 0 && n == 0) {
    fprintf (stderr, "meshseg: no settings in --sweep %s\n", base->sweep);
    rc = -1;
  }
  if (rc != 0) {
    for (int i = 0; i < n; i++)
      free (list[i].text);
    free (list);
    return rc;
  }
  *out = list;
  *count = n;
  return 0;
}

int
main (int argc, char **argv)
{
  options o;
  if (parse (argc, argv, &o) != 0)
    return 2;
  sweep_setting *settings = NULL;
  int setting_count = 0;
  if (o.sweep) {
    if (o.seg_out || o.ply_out || o.render_out) {
      fprintf (stderr, "meshseg: --sweep writes no -o, --ply or --render output\n");
      return 2;
    }
    if (read_sweep (argc, argv, &o, &settings, &setting_count) != 0)
      return 2;
    o.json = o.quiet = true;
  }
  double t_start = cc_now_ms (), t[8];
  ms_mesh mesh;
  cc_status st = ms_mesh_load (o.input, &o.import, &mesh);
  if (st != CC_SUCCESS)
    return fail ("reading the mesh", st);
  /* ground truths, read once for all settings, before the work: a score asked for
   * against a missing or mismatched ground truth is an error, not a skipped line */
  int32_t *truth[MAX_TRUTHS];
  int scored = 0;
  for (int i = 0; i < o.truth_count; i++, scored++)
    if ((st = ms_seg_read (o.truths[i], mesh.face_count, &truth[i])) != CC_SUCCESS) {
      fprintf (stderr, "meshseg: ground truth %s: %s\n", o.truths[i], cc_last_error ());
      for (int j = 0; j < scored; j++)
        free (truth[j]);
      ms_mesh_free (&mesh);
      return 1;
    }
  t[0] = cc_now_ms ();
  ms_dual dual;
  st = ms_dual_build (&mesh, &o.dual, o.import.allow_nonmanifold, &dual);
  if (st != CC_SUCCESS)
    return fail ("building the dual graph", st);
  t[1] = cc_now_ms ();
  if (!o.quiet) {
    printf ("%s: %d faces, %d vertices, %d connected part%s, %d boundary edges\n", o.input,
        mesh.face_count, mesh.vertex_count, dual.components, dual.components == 1 ? "" : "s",
        dual.boundary_edges);
    if (dual.weight_step > 0.0f)
      printf ("face distances rounded to multiples of 2^%d (largest change %.2g of the mean "
          "arc weight): exact on every APSP\n", ilogbf (dual.weight_step), dual.weight_error);
    if (dual.nonmanifold_edges)
      printf ("warning: %d non-manifold edges (faces joined pairwise)\n", dual.nonmanifold_edges);
  }
  cc_context *ctx;
  st = cc_context_create (o.backend, CC_DEVICE_AUTO, &ctx);
  if (st != CC_SUCCESS)
    return fail ("creating the context", st);
  /* the full matrix's CPU threads (the same distances on any count) */
  st = cc_context_set_threads (ctx, o.threads < CC_CONTEXT_THREADS_MAX ? o.threads
      : CC_CONTEXT_THREADS_MAX);
  if (st != CC_SUCCESS)
    return fail ("creating the context", st);
  cv_report_backend (ctx, o.backend, "APSP");
  ms_distances dist;
  st = ms_distances_init (&dist, &dual, ctx, o.apsp, o.threads);
  if (st != CC_SUCCESS)
    return fail ("computing distances", st);
  t[2] = cc_now_ms ();
  const char *backend = cc_backend_name (cc_context_backend (ctx));
  for (int run = 0; run < (settings ? setting_count : 1); run++) {
    const ms_cluster_params *cp = settings ? &settings[run].cluster : &o.cluster;
    double t_run = cc_now_ms ();
    ms_segmentation seg;
    st = ms_segment (&dist, &dual, cp, &seg);
    if (st != CC_SUCCESS)
      return fail ("segmenting", st);
    t[4] = cc_now_ms ();
    if (o.seg_out && (st = ms_seg_write (o.seg_out, seg.label, seg.faces)) != CC_SUCCESS)
      return fail ("writing the .seg file", st);
    if (o.ply_out && (st = ms_ply_write (o.ply_out, &mesh, &seg)) != CC_SUCCESS)
      return fail ("writing the PLY file", st);
    if (o.render_out
        && (st = ms_render_png (o.render_out, &mesh, &seg, &o.render)) != CC_SUCCESS)
      return fail ("rendering the picture", st);
    t[5] = cc_now_ms ();
    /* shared stages (import, dual graph, distances) plus this setting's own */
    double total = t[2] - t_start + t[5] - t_run;
    if (!o.quiet) {
      printf ("  import        %9.1f ms\n", t[0] - t_start);
      printf ("  dual graph    %9.1f ms\n", t[1] - t[0]);
      if (dist.full || dist.apsp)
        printf ("  APSP (%s)   %9.1f ms  (full %dx%d matrix, kernel %.1f ms)\n", backend,
            t[2] - t[1], dual.faces, dual.faces, dist.apsp_kernel_ms);
      else
        printf ("  APSP          %9.1f ms  (rows on demand)\n", t[2] - t[1]);
      printf ("  segmentation  %9.1f ms  (%s, k = %d, %d iterations, %d fuzzy faces",
          t[4] - t_run, cp->method == MS_METHOD_HIERARCHY ? "hierarchy" : "k-way", seg.k,
          seg.iterations, seg.fuzzy_faces);
      if (!dist.full && !dist.apsp)
        printf (", %ld rows by Dijkstra", dist.rows_computed);
      printf (", %d segments)\n", seg.segments);
      printf ("  output        %9.1f ms\n", t[5] - t[4]);
      printf ("  total         %9.1f ms\n", total);
    }
    double sum_ri = 0, sum_gce = 0, sum_lce = 0;
    for (int i = 0; i < scored; i++) {
      ms_eval e;
      ms_evaluate (seg.label, truth[i], seg.faces, &e);
      if (!o.quiet)
        printf ("  vs %s: Rand Index error %.4f, GCE %.4f, LCE %.4f\n", o.truths[i],
            e.rand_index_error, e.gce, e.lce);
      sum_ri += e.rand_index_error;
      sum_gce += e.gce;
      sum_lce += e.lce;
    }
    if (scored && !o.quiet)
      printf ("  mean over %d ground truths: Rand Index error %.4f, GCE %.4f, LCE %.4f\n",
          scored, sum_ri / scored, sum_gce / scored, sum_lce / scored);
    if (o.json) {
      printf ("{\"tool\":\"meshseg\",\"mesh\":\"%s\",\"faces\":%d,\"backend\":\"%s\","
          "\"apsp\":\"%s\",\"method\":\"%s\",\"k\":%d,\"segments\":%d,\"import_ms\":%.1f,"
          "\"dual_ms\":%.1f,\"apsp_ms\":%.1f,\"apsp_kernel_ms\":%.2f,\"segment_ms\":%.1f,"
          "\"total_ms\":%.1f,\"weight_step\":%g,\"weight_error\":%.3g", o.input, seg.faces, backend,
          dist.full || dist.apsp ? "full" : "rows",
          cp->method == MS_METHOD_HIERARCHY ? "hierarchy" : "kway", seg.k, seg.segments,
          t[0] - t_start, t[1] - t[0], t[2] - t[1], dist.apsp_kernel_ms, t[4] - t_run, total,
          dual.weight_step, dual.weight_error);
      if (settings)
        printf (",\"setting\":\"%s\"", settings[run].text);
      if (scored)
        printf (",\"ground_truths\":%d,\"rand_index_error\":%.4f,\"gce\":%.4f,\"lce\":%.4f",
            scored, sum_ri / scored, sum_gce / scored, sum_lce / scored);
      printf ("}\n");
      fflush (stdout);
    }
    ms_segmentation_free (&seg);
  }
  for (int i = 0; i < scored; i++)
    free (truth[i]);
  for (int i = 0; i < setting_count; i++)
    free (settings[i].text);
  free (settings);
  ms_distances_free (&dist);
  cc_context_destroy (ctx);
  ms_dual_free (&dual);
  ms_mesh_free (&mesh);
  for (int i = 0; i < o.owned_count; i++)
    free (o.owned_truths[i]);
  return 0;
}
