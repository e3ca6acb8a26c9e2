/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tools' command lines, run as a user runs them (binaries from meson): --help and
 * --version, values that must be refused (exit status and the message), cv-flow --vis
 * writing an opaque picture of the flow's exact colours, flow-bench --no-cpu without a
 * device, tools/setup.sh with a bad mode (refused before anything is installed). */
#include "cv_test.h"
#include "cv_config.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include "cv_align.h"
#include "cv_pairs.h"
#include <cudacore/cc_flow_io.h>
#include <cudacore/cc_flow_vis.h>
#include <cudacore/cc_epic.h>

#include <math.h>
#include <png.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Runs argv; asserts the exit status and that stderr holds err_part (when not NULL). */
static void
expect (const char *const argv[], int status, const char *err_part)
{
  char *out, *err;
  int rc = cv_test_run (argv, NULL, &out, &err);
  ck_assert_msg (rc == status, "%s %s: exit %d, wanted %d; stderr: %s", argv[0],
      argv[1] ? argv[1] : "", rc, status, err);
  if (err_part)
    ck_assert_msg (strstr (err, err_part), "%s: stderr '%s' lacks '%s'", argv[0], err,
        err_part);
  free (out);
  free (err);
}

START_TEST (test_version)
{
  const char *bins[] = { CV_FLOW_BIN, CV_MKCLIP_BIN, CV_MKMESH_BIN, FLOW_BENCH_BIN, BM_BENCH_BIN,
    APSP_BENCH_BIN, MOCT_BENCH_BIN, CVD_BENCH_BIN, CV_MKPAIRS_BIN, MATCH_BENCH_BIN,
#ifdef QUADCUT_EVAL_BIN
    QUADCUT_EVAL_BIN, QUADCUT_BENCH_BIN,
#endif
#ifdef PIPELINE_BENCH_BIN
    PIPELINE_BENCH_BIN, CV_SOAK_BIN,
#endif
#ifdef CV_MOCT_BIN
    CV_MOCT_BIN, CVD_FLICKER_BIN,
#endif
  };
  for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
    const char *argv[] = { bins[i], "--version", NULL };
    char *out, wanted[256];
    ck_assert_int_eq (cv_test_run (argv, NULL, &out, NULL), 0);
    const char *name = strrchr (bins[i], '/') + 1;
    snprintf (wanted, sizeof wanted, "%s (cudavision) %s\n", name, CV_VERSION);
    ck_assert_str_eq (out, wanted);
    free (out);
  }
}
END_TEST

/* Every tool but cv-flow (test_cv_flow_options) and meshseg (a manual page,
 * tools-meshseg): --help and -h exit 0 with nothing on
 * stderr and, on stdout, "usage: NAME" and a description of each option its usage
 * lines name: every "--option" of the lines before the first line that does not
 * start with "usage:" or spaces (the synopsis) is at the start of a later line
 * (after spaces, possibly after another option and a comma) or is described with
 * others ("--json, --backend, ..."); an unknown option is refused (exit 2). */
#ifdef MESHSEG_BIN
/* meshseg --help and -h: a manual page on stdout (NAME, SYNOPSIS, OPTIONS, EXIT STATUS),
 * exit 0, nothing on stderr; an unknown option is refused. */
START_TEST (test_meshseg_manual)
{
  for (int h = 0; h < 2; h++) {
    const char *argv[] = { MESHSEG_BIN, h ? "-h" : "--help", NULL };
    char *out, *err;
    int rc = cv_test_run (argv, NULL, &out, &err);
    ck_assert_msg (rc == 0, "meshseg %s: exit %d", argv[1], rc);
    ck_assert_msg (err[0] == '\0', "meshseg %s: stderr '%s'", argv[1], err);
    ck_assert_msg (!strncmp (out, "NAME\n  meshseg", 14), "meshseg: manual starts '%.40s'", out);
    const char *sections[] = { "\nSYNOPSIS\n", "\nDESCRIPTION\n", "\nOPTIONS\n",
      "\nEXIT STATUS\n" };
    for (size_t k = 0; k < 4; k++)
      ck_assert_msg (strstr (out, sections[k]) != NULL, "meshseg manual: no%s", sections[k]);
    free (out);
    free (err);
  }
  const char *bad[] = { MESHSEG_BIN, "--no-such-option", NULL };
  char *out, *err;
  ck_assert_int_ne (cv_test_run (bad, NULL, &out, &err), 0);
  free (out);
  free (err);
}
END_TEST
#endif

START_TEST (test_help)
{
  const char *bins[] = { CV_MKCLIP_BIN, CV_MKMESH_BIN, FLOW_BENCH_BIN, BM_BENCH_BIN,
    APSP_BENCH_BIN, MOCT_BENCH_BIN, CVD_BENCH_BIN, CV_MKPAIRS_BIN, MATCH_BENCH_BIN,
#ifdef QUADCUT_EVAL_BIN
    QUADCUT_EVAL_BIN, QUADCUT_BENCH_BIN,
#endif
#ifdef PIPELINE_BENCH_BIN
    PIPELINE_BENCH_BIN, CV_SOAK_BIN, ANALYTICS_BENCH_BIN,
#endif
#ifdef CV_MOCT_BIN
    CV_MOCT_BIN, CVD_FLICKER_BIN,
#endif
  };
  /* meshseg answers with a manual page (NAME, SYNOPSIS, ... EXIT STATUS): tools-meshseg */
  for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
    const char *name = strrchr (bins[i], '/') + 1;
    for (int h = 0; h < 2; h++) {
      const char *argv[] = { bins[i], h ? "-h" : "--help", NULL };
      char *out, *err, want[256];
      int rc = cv_test_run (argv, NULL, &out, &err);
      ck_assert_msg (rc == 0, "%s %s: exit %d; stderr: %s", name, argv[1], rc, err);
      ck_assert_msg (err[0] == '\0', "%s %s: stderr '%s'", name, argv[1], err);
      snprintf (want, sizeof want, "usage: %s", name);
      ck_assert_msg (!strncmp (out, want, strlen (want)), "%s: help starts '%.60s'", name,
          out);
      /* the synopsis: the first lines, up to one that is neither "usage:" nor indented */
      const char *body = out;
      while (*body && (!strncmp (body, "usage:", 6) || body[0] == ' ')) {
        const char *nl = strchr (body, '\n');
        body = nl ? nl + 1 : body + strlen (body);
      }
      ck_assert_msg (*body, "%s: no text after the synopsis", name);
      int options = 0;
      for (const char *p = out; p < body; p++) {
        if (p[0] != '-' || p[1] != '-' || (p > out && p[-1] != '[' && p[-1] != ' '
                && p[-1] != '|'))
          continue;
        size_t n = 2;
        while (p[n] && (p[n] == '-' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0'
                    && p[n] <= '9')))
          n++;
        char opt[64];
        snprintf (opt, sizeof opt, "%.*s", (int) n, p);
        if (!strcmp (opt, "--help") || !strcmp (opt, "--version"))
          continue;
        /* described: at a line's start after spaces, or after "-x, " or in a list "A, B" */
        bool described = false;
        for (const char *q = strstr (body, opt); q && !described; q = strstr (q + 1, opt)) {
          char next = q[n];
          if (next != ' ' && next != ',' && next != '\n' && next != '=')
            continue;
          const char *b = q;
          while (b > body && b[-1] != '\n')
            b--;
          bool lead = true;   /* only spaces, options and ", " before it on its line */
          for (const char *c = b; c < q && lead; c++)
            lead = *c == ' ' || *c == ',' || *c == '-' || (*c >= 'a' && *c <= 'z')
                || (*c >= '0' && *c <= '9');
          described = lead && (q == b || q[-1] == ' ');
        }
        ck_assert_msg (described, "%s --help: %s is in the synopsis but not described",
            name, opt);
        options++;
      }
      if (h == 0)
        printf ("%s --help: %d options in the synopsis, each described\n", name, options);
      free (out);
      free (err);
    }
    const char *bogus[] = { bins[i], "--no-such-option", NULL };
    char *err;
    int rc = cv_test_run (bogus, NULL, NULL, &err);
    ck_assert_msg (rc == 2, "%s --no-such-option: exit %d, want 2; stderr: %s", name, rc, err);
    free (err);
  }
}
END_TEST

#ifdef CV_SOAK_BIN
/* cv-soak: samples every K frames from the warm-up on, the JSON summary; usage errors
 * exit 2, a pipeline that cannot be built 3. */
START_TEST (test_cv_soak)
{
  const char *argv[] = { CV_SOAK_BIN, "--frames", "600", "--every", "100", "--warmup", "200",
    "--size", "32x24", "--limit-kb", "100000000", "identity", NULL };
  char *out;
  ck_assert_int_eq (cv_test_run (argv, NULL, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "frame      600  rss "));
  ck_assert_ptr_nonnull (strstr (out, "\"frames\":600,"));
  ck_assert_ptr_nonnull (strstr (out, "\"samples_after_warmup\":5}"));
  ck_assert_ptr_nonnull (strstr (out, "\"device_growth_kb\":null"));
  free (out);
  const char *bad_size[] = { CV_SOAK_BIN, "--size", "0x5", "identity", NULL };
  ck_assert_int_eq (cv_test_run (bad_size, NULL, NULL, NULL), 2);
  const char *few[] = { CV_SOAK_BIN, "--frames", "100", "identity", NULL };
  ck_assert_int_eq (cv_test_run (few, NULL, NULL, NULL), 2);   /* no sample after warm-up */
  const char *no_element[] = { CV_SOAK_BIN, "--frames", "10", "no-such-element", NULL };
  ck_assert_int_eq (cv_test_run (no_element, NULL, NULL, NULL), 3);
}
END_TEST
#endif

/* cv-mkmesh: the body's OFF header and one label a face (0..5, all used); bad --freq. */
START_TEST (test_cv_mkmesh)
{
  char off[512], seg[512];
  snprintf (off, sizeof off, "%s", cv_test_temp_path ("body.off"));
  snprintf (seg, sizeof seg, "%s", cv_test_temp_path ("body.seg"));
  const char *argv[] = { CV_MKMESH_BIN, off, "--seg", seg, "--freq", "3", NULL };
  char *out;
  ck_assert_int_eq (cv_test_run (argv, NULL, &out, NULL), 0);
  free (out);
  FILE *f = fopen (off, "r");
  ck_assert_ptr_nonnull (f);
  int nv, nf, ne;
  ck_assert_int_eq (fscanf (f, "OFF %d %d %d", &nv, &nf, &ne), 3);
  ck_assert_int_eq (nf, 20 * 3 * 3);
  ck_assert_int_eq (nv, 3 * nf);
  fclose (f);
  f = fopen (seg, "r");
  ck_assert_ptr_nonnull (f);
  int label, lines = 0, used[6] = { 0 };
  while (fscanf (f, "%d", &label) == 1) {
    ck_assert (label >= 0 && label <= 5);
    used[label]++;
    lines++;
  }
  fclose (f);
  ck_assert_int_eq (lines, nf);
  for (int i = 0; i < 6; i++)
    ck_assert_msg (used[i] > 0, "part %d has no face", i);
  const char *bad[] = { CV_MKMESH_BIN, off, "--freq", "0", NULL };
  char *err;
  ck_assert_int_eq (cv_test_run (bad, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "cv-mkmesh: --freq: '0' is not a number in 1..200"));
  free (err);
}
END_TEST

START_TEST (test_cv_flow_options)
{
  const char *help[] = { CV_FLOW_BIN, "--help", NULL };
  char *out;
  ck_assert_int_eq (cv_test_run (help, NULL, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "usage: cv-flow"));
  ck_assert_ptr_nonnull (strstr (out, "--backend auto|cpu|cuda"));
  /* every option under the elements' property names, with its default where it has one */
  const char *names[] = { "--pyramid-levels N", "--iterations N", "--window-size N",
    "--min-eigen-threshold X", "--gradient scharr|sobel", "--fb-check", "--fb-threshold X",
    "--block-size N", "--search-radius N", "--seed-radius N", "--levels N",
    "--metric ncc|ssd|sad", "--subpixel true|false", "--flat-threshold X", "--match-step N",
    "--match-levels N", "--match-iterations N", "--max-displacement X", "--neighbours N",
    "--cell N", "--sigma X", "--affine true|false", "--flat-cost X", "--edge-weight X",
    "--extrapolate PX", "--robust PX",
    "--refine [variational|none]", "--refine-levels N", "--refine-outer-iterations N",
    "--refine-inner-iterations N", "--refine-omega X", "--refine-smoothness X",
    "--refine-color-weight X", "--refine-gradient-weight X", "--refine-smoothness-kappa X",
    "--refine-presmooth SIGMA", "--cpu-threads N",
    "[also --k]", "[also --max-motion]", "[also --levels]" };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_msg (strstr (out, names[i]), "cv-flow --help lacks '%s'", names[i]);
  /* the EpicFlow defaults named beside the others, as cc_epic_params_default has them */
  cc_epic_params ep;
  cc_epic_params_default (&ep);
  char want[64];
  snprintf (want, sizeof want, "epic %d)", ep.refine_params.levels);
  ck_assert_msg (strstr (out, want), "cv-flow --help lacks '%s'", want);
  snprintf (want, sizeof want, "epic %d)", ep.refine_params.inner_iterations);
  ck_assert_msg (strstr (out, want), "cv-flow --help lacks '%s'", want);
  free (out);
  /* options of another method, and the refinement's while it is off */
  const char *lk_k[] = { CV_FLOW_BIN, "--neighbours", "8", "a.png", "b.png", NULL };
  expect (lk_k, 2, "cv-flow: --neighbours applies to --method epic, not lk");
  const char *bm_epic[] = { CV_FLOW_BIN, "--block-size", "8", "--method", "epic", "a.png",
    "b.png", NULL };
  expect (bm_epic, 2, "cv-flow: --block-size applies to --method blockmatch, not epic");
  const char *levels_epic[] = { CV_FLOW_BIN, "--method", "epic", "--levels", "2", "a.png",
    "b.png", NULL };
  expect (levels_epic, 2, "cv-flow: --levels applies to --method lk, blockmatch, not epic");
  const char *rf_off[] = { CV_FLOW_BIN, "--refine-levels", "2", "a.png", "b.png", NULL };
  expect (rf_off, 2, "cv-flow: --refine-levels applies to the refinement, which is off");
  const char *rf_epic_off[] = { CV_FLOW_BIN, "--method", "epic", "--refine", "none",
    "--outer", "2", "a.png", "b.png", NULL };
  expect (rf_epic_off, 2, "cv-flow: --outer applies to the refinement, which is off");
  const char *affine[] = { CV_FLOW_BIN, "--method", "epic", "--affine", "yes", "a.png",
    "b.png", NULL };
  expect (affine, 2, "cv-flow: --affine: 'yes' is not true or false");
  /* refused before any frame is read (the frames do not exist) */
  const char *backend[] = { CV_FLOW_BIN, "--backend", "gpu", "a.png", "b.png", NULL };
  expect (backend, 2, "cv-flow: --backend: 'gpu' is not one of auto, cpu, cuda");
  const char *repeat0[] = { CV_FLOW_BIN, "--repeat", "0", "a.png", "b.png", NULL };
  expect (repeat0, 2, "cv-flow: --repeat: '0' is not a number in 1..64");
  const char *repeat_x[] = { CV_FLOW_BIN, "--repeat", "3x", "a.png", "b.png", NULL };
  expect (repeat_x, 2, "cv-flow: --repeat: '3x' is not a number in 1..64");
  const char *levels[] = { CV_FLOW_BIN, "--levels", "abc", "a.png", "b.png", NULL };
  expect (levels, 2, "cv-flow: --levels: 'abc' is not a number");
  const char *alpha[] = { CV_FLOW_BIN, "--alpha", "", "a.png", "b.png", NULL };
  expect (alpha, 2, "cv-flow: --alpha: '' is not a number");
  const char *huge[] = { CV_FLOW_BIN, "--omega", "1e99", "a.png", "b.png", NULL };
  expect (huge, 2, "cv-flow: --omega: '1e99' is not a number");
  const char *unknown[] = { CV_FLOW_BIN, "--bogus", NULL };
  expect (unknown, 2, "unknown or incomplete argument --bogus");
}
END_TEST

START_TEST (test_other_tools_options)
{
  const char *frames[] = { CV_MKCLIP_BIN, cv_test_temp_path ("clip"), "--frames", "ten", NULL };
  expect (frames, 2, "cv-mkclip: --frames: 'ten' is not a number in 2..10000");
  ck_assert_int_ne (access (cv_test_temp_path ("clip"), F_OK), 0);   /* nothing made */
  const char *size[] = { CV_MKCLIP_BIN, cv_test_temp_path ("clip"), "--size", "64x48x", NULL };
  expect (size, 2, "--size wants WxH");
  const char *runs[] = { FLOW_BENCH_BIN, "--runs", "0", NULL };
  expect (runs, 2, "flow-bench: --runs: '0' is not a number in 1..1000");
  const char *repeat[] = { BM_BENCH_BIN, "--repeat", "-5", NULL };
  expect (repeat, 2, "blockmatch-refine-bench: --repeat: '-5' is not a number in 1..200");
  const char *backend[] = { BM_BENCH_BIN, "--backend", "gpu", NULL };
  expect (backend, 2, "blockmatch-refine-bench: --backend: 'gpu' is not one of cuda, cpu");
  const char *sizes[] = { APSP_BENCH_BIN, "--backend", "cpu", "--sizes", "64,1k", NULL };
  expect (sizes, 2, "apsp-bench: --sizes: '1k' is not a number");
  const char *check[] = { APSP_BENCH_BIN, "--check", "x", NULL };
  expect (check, 2, "apsp-bench: --check: 'x' is not a number");
  const char *cvd_runs[] = { CVD_BENCH_BIN, "--runs", "0", NULL };
  expect (cvd_runs, 2, "--runs: '0' is not a number in 1..1000");
  const char *cvd_opt[] = { CVD_BENCH_BIN, "--sites", "5", NULL };
  expect (cvd_opt, 2, "usage: cvd-bench");
  const char *cvd_vor[] = { CVD_BENCH_BIN, "--voronoi", "exact", NULL };
  expect (cvd_vor, 2, "--voronoi: 'exact' is not one of jfa, 1+jfa or 1+jfa+2");
  if (cc_cuda_device_count () == 0) {
    const char *cvd_none[] = { CVD_BENCH_BIN, "--no-cpu", NULL };
    expect (cvd_none, 1, "nothing to measure");
  } else {
    CV_SKIP_PART ("cvd-bench --no-cpu without a device", CV_SKIP_HAS_DEVICE);
  }
#ifdef CVD_FLICKER_BIN
  const char *fl_backend[] = { CVD_FLICKER_BIN, "--backend", "gpu", "x.avi", NULL };
  expect (fl_backend, 2, "--backend");
  const char *fl_clip[] = { CVD_FLICKER_BIN, "--frames", "10", NULL };
  expect (fl_clip, 2, "cvd-flicker: no clip");
  const char *fl_density[] = { CVD_FLICKER_BIN, "--density", "edges", "x.avi", NULL };
  expect (fl_density, 2, "--density: 'edges' is not one of uniform, dark, bright or gradient");
  const char *fl_settle[] = { CVD_FLICKER_BIN, "--settle", "-1", "x.avi", NULL };
  expect (fl_settle, 2, "--settle: '-1' is not a number in 0..1000");
#endif
}
END_TEST

#ifdef CVD_FLICKER_BIN
/* A file that is not a playable video stops cvd-flicker with an error, soon: it pulled
 * its appsinks without reading the bus and waited forever (killed by timeout after
 * 15 s on /dev/null, an empty file, a text file, a truncated PNG). Its own registry
 * in the test folder (no change to the user's). */
START_TEST (test_cvd_flicker_not_a_video)
{
  setenv ("GST_PLUGIN_PATH_1_0", CV_PLUGIN_DIR, 1);
  setenv ("GST_REGISTRY_1_0", cv_test_temp_path ("flicker-registry.bin"), 1);
  const char *text = cv_test_temp_path ("objects.txt");
  FILE *f = fopen (text, "w");
  fprintf (f, "red #ff0000 40\n");
  fclose (f);
  const char *inputs[] = { "/dev/null", text };
  /* killed after 120 s (the first run scans a fresh registry: 15 s under ASan) */
  const cv_test_limits limits = { 120, 0 };
  for (int i = 0; i < 2; i++) {
    const char *argv[] = { CVD_FLICKER_BIN, "--frames", "3", "--sites", "16", inputs[i], NULL };
    char *err;
    cv_test_usage use;
    int rc = cv_test_run_limited (argv, NULL, NULL, &err, &limits, &use);
    ck_assert_msg (rc == 1 && use.signal == 0, "%s: exit %d, signal %d, %.1f s; stderr: %s",
        inputs[i], rc, use.signal, use.seconds, err);
    char want[600];
    snprintf (want, sizeof want, "cvd-flicker: %s: ", inputs[i]);
    ck_assert_msg (strstr (err, want), "%s: stderr '%s' lacks '%s'", inputs[i], err, want);
    ck_assert_msg (use.seconds < 60.0 && use.peak_rss_kb < 512 * 1024, "%s: %.1f s, peak "
        "RSS %ld kB", inputs[i], use.seconds, use.peak_rss_kb);
    free (err);
  }
}
END_TEST
#endif

/* cv-mkclip --foreground: plate, frames and masks equal to cv_synth's (plain and
 * active, whose even frames are lit); refused values and combinations. */
START_TEST (test_cv_mkclip_foreground)
{
  static const char *modes[] = { "plain", "active" };
  for (int m = 0; m < 2; m++) {
    char dir[512], path[600];
    snprintf (dir, sizeof dir, "%s", cv_test_temp_path (modes[m]));
    const char *argv[] = { CV_MKCLIP_BIN, dir, "--frames", "3", "--size", "40x30",
                           "--foreground", modes[m], NULL };
    expect (argv, 0, NULL);
    cc_image plate, want;
    snprintf (path, sizeof path, "%s/plate.png", dir);
    CC_ASSERT_OK (cv_png_load (path, CC_FORMAT_RGBX8, &plate));
    CC_ASSERT_OK (cv_synth_fg_plate (40, 30, &want));
    cv_test_assert_same_bits (&plate, &want, "plate");
    cv_image_free (&plate);
    cv_image_free (&want);
    for (int t = 0; t < 3; t++) {
      uint8_t truth[40 * 30];
      int light = m == 0 ? CV_SYNTH_FG_PLAIN : (t % 2 ? CV_SYNTH_FG_UNLIT : CV_SYNTH_FG_LIT);
      cc_image frame, mask;
      CC_ASSERT_OK (cv_synth_fg_frame (t, 40, 30, light, 6, &want, truth));
      snprintf (path, sizeof path, "%s/frame_%03d.png", dir, t);
      CC_ASSERT_OK (cv_png_load (path, CC_FORMAT_RGBX8, &frame));
      cv_test_assert_same_bits (&frame, &want, "foreground frame");
      snprintf (path, sizeof path, "%s/mask_%03d.png", dir, t);
      CC_ASSERT_OK (cv_png_load (path, CC_FORMAT_GRAY8, &mask));
      int fg = 0;
      for (int i = 0; i < 40 * 30; i++) {
        uint8_t v = ((uint8_t *) mask.planes[0])[(i / 40) * mask.pitch[0] + i % 40];
        ck_assert_int_eq (v, truth[i]);
        fg += v == 255;
      }
      ck_assert_int_gt (fg, 0);
      cv_image_free (&frame);
      cv_image_free (&mask);
      cv_image_free (&want);
    }
  }
  const char *bad[] = { CV_MKCLIP_BIN, cv_test_temp_path ("fg"), "--foreground", "lit", NULL };
  expect (bad, 2, "cv-mkclip: --foreground: 'lit' is not one of plain, active");
  const char *both[] = { CV_MKCLIP_BIN, cv_test_temp_path ("fg"), "--objects", "2", "--foreground",
                         "plain", NULL };
  expect (both, 2, "--objects and --foreground");
#ifdef QUADCUT_EVAL_BIN
  const char *eval[] = { QUADCUT_EVAL_BIN, "--synthetic", "64x48", "--similarity", "-1",
                         NULL };
  expect (eval, 2, "quadcut-eval: --similarity: '-1' is not a number");
  const char *bench_bad[] = { QUADCUT_BENCH_BIN, "--size", "0x3", NULL };
  expect (bench_bad, 2, "quadcut-bench: --size: '0x3' is not a size WxH");
  /* a tiny run: one JSON line with the split, the leaf share and the end to end */
  const char *bench[] = { QUADCUT_BENCH_BIN, "--size", "64x48", "--frames", "2", "--warmup",
                          "0", "--threads", "1", "--backend", "cpu", NULL };
  char *out, *err;
  ck_assert_int_eq (cv_test_run (bench, NULL, &out, &err), 0);
  const char *keys[] = { "\"size\": \"64x48\"", "\"backend\": \"cpu\"", "\"threads\": 1",
                         "\"input\": \"synthetic\"", "\"certain\": 4", "\"histogram\": ",
                         "\"graph\": ", "\"transfer\": 0.000", "\"maxflow\": ",
                         "\"output\": ", "\"composite\": ", "\"total\": ",
                         "\"nodes_share\": 0.", "\"end_to_end_ms\": " };
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    ck_assert_msg (strstr (out, keys[k]), "quadcut-bench output lacks %s: %s", keys[k], out);
  ck_assert_int_eq (strchr (out, '\n') - out + 1, (long) strlen (out));   /* one line */
  free (out);
  free (err);
#endif
}
END_TEST

#ifdef QUADCUT_EVAL_BIN
/* quadcut-eval --align: a frame made of the plate moved by (13, -7) with an object in
 * front (6 % of the frame) gives back that shift, and the aligned plate is the
 * plate moved so (cv_shift_image); the agreement rises above 0.9, by 0.2 at least. */
START_TEST (test_quadcut_align)
{
  const int w = 320, h = 240, dx = 13, dy = -7;
  cc_image plate, moved, frame, aligned;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &plate));
  CC_ASSERT_OK (cv_shift_image (&plate, dx, dy, &moved));
  uint8_t *mask = malloc ((size_t) w * h);
  CC_ASSERT_OK (cv_synth_fg_frame (5, w, h, CV_SYNTH_FG_PLAIN, 0, &frame, mask));
  long fg = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint8_t *d = (uint8_t *) frame.planes[0] + (size_t) y * frame.pitch[0] + 4 * x;
      if (mask[(size_t) y * w + x])
        fg++;
      else
        memcpy (d, (uint8_t *) moved.planes[0] + (size_t) y * moved.pitch[0] + 4 * x, 4);
    }
  ck_assert_int_gt (fg, w * h / 20);
  char pp[600], fp[600], ap[600];
  snprintf (pp, sizeof pp, "%s", cv_test_temp_path ("align-plate.png"));
  snprintf (fp, sizeof fp, "%s", cv_test_temp_path ("align-frame.png"));
  snprintf (ap, sizeof ap, "%s", cv_test_temp_path ("align-out.png"));
  CC_ASSERT_OK (cv_png_save (pp, &plate));
  CC_ASSERT_OK (cv_png_save (fp, &frame));
  const char *argv[] = { QUADCUT_EVAL_BIN, "--align", pp, "--frame", fp, "--aligned", ap, NULL };
  char *out, *err;
  ck_assert_int_eq (cv_test_run (argv, NULL, &out, &err), 0);
  ck_assert_msg (strstr (out, "\"dx\": 13, \"dy\": -7,"), "%s", out);
  double agree, agree0;
  const char *a = strstr (out, "\"agree\": "), *a0 = strstr (out, "\"agree_unaligned\": ");
  ck_assert (a && a0 && sscanf (a, "\"agree\": %lf", &agree) == 1
      && sscanf (a0, "\"agree_unaligned\": %lf", &agree0) == 1);
  ck_assert_msg (agree > 0.9 && agree0 < agree - 0.2, "agree %.3f, unaligned %.3f", agree, agree0);
  CC_ASSERT_OK (cv_png_load (ap, CC_FORMAT_RGBX8, &aligned));
  cv_test_assert_same_bits (&aligned, &moved, "aligned plate");
  const char *one[] = { QUADCUT_EVAL_BIN, "--align", pp, NULL };
  expect (one, 2, "usage");
  /* a truncated JPEG frame is an error (not aligned against half-grey rows) */
  char src[1024], tp[512];
  snprintf (src, sizeof src, "%s/tests/fuzz/corpus/jpeg/rgb-8x8.jpg", getenv ("CV_SOURCE_ROOT"));
  snprintf (tp, sizeof tp, "%s", cv_test_temp_path ("align-truncated.jpg"));
  FILE *in = fopen (src, "rb"), *cut = fopen (tp, "wb");
  ck_assert_msg (in && cut, "cannot copy %s", src);
  unsigned char bytes[400];
  ck_assert_uint_eq (fread (bytes, 1, sizeof bytes, in), sizeof bytes);
  ck_assert_uint_eq (fwrite (bytes, 1, sizeof bytes, cut), sizeof bytes);
  fclose (in);
  fclose (cut);
  const char *truncated[] = { QUADCUT_EVAL_BIN, "--align", pp, "--frame", tp, NULL };
  expect (truncated, 1, "Premature end of JPEG file");
  free (out);
  free (err);
  free (mask);
  cv_image_free (&plate);
  cv_image_free (&moved);
  cv_image_free (&frame);
  cv_image_free (&aligned);
}
END_TEST
#endif

START_TEST (test_flow_bench_no_device)
{
  if (cc_cuda_device_count () > 0)
    CV_SKIP ("flow-bench without a device", CV_SKIP_HAS_DEVICE);
  const char *argv[] = { FLOW_BENCH_BIN, "--no-cpu", "--runs", "1", NULL };
  char *out, *err;
  ck_assert_int_eq (cv_test_run (argv, NULL, &out, &err), 1);
  ck_assert_ptr_nonnull (strstr (err, "nothing to run"));
  ck_assert_str_eq (out, "");
  free (out);
  free (err);
}
END_TEST

/* Loads a PNG as RGBA8 and says whether the file itself has an alpha channel. */
static uint8_t *
load_rgba (const char *path, int *w, int *h, bool *has_alpha)
{
  png_image png;
  memset (&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  ck_assert_msg (png_image_begin_read_from_file (&png, path), "%s: %s", path, png.message);
  *has_alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  png.format = PNG_FORMAT_RGBA;
  *w = (int) png.width;
  *h = (int) png.height;
  uint8_t *px = malloc (PNG_IMAGE_SIZE (png));
  ck_assert (png_image_finish_read (&png, NULL, px, 0, NULL));
  return px;
}

/* The writer: RGBX8 and BGRX8 with padding 0 come back opaque with their colours. */
START_TEST (test_png_writer_opaque)
{
  for (int bgr = 0; bgr < 2; bgr++) {
    cc_image img;
    CC_ASSERT_OK (cv_image_new (5, 3, bgr ? CC_FORMAT_BGRX8 : CC_FORMAT_RGBX8, &img));
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 5; x++) {
        uint8_t *p = (uint8_t *) img.planes[0] + y * img.pitch[0] + 4 * x;
        p[0] = (uint8_t) (40 * x);
        p[1] = (uint8_t) (70 * y);
        p[2] = (uint8_t) (200 - x - y);
        p[3] = 0;
      }
    const char *path = cv_test_temp_path ("writer.png");
    CC_ASSERT_OK (cv_png_save (path, &img));
    int w, h;
    bool has_alpha;
    uint8_t *px = load_rgba (path, &w, &h, &has_alpha);
    ck_assert_int_eq (w, 5);
    ck_assert_int_eq (h, 3);
    ck_assert (!has_alpha);
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 5; x++) {
        const uint8_t *p = px + 4 * (y * 5 + x);
        int r = bgr ? 200 - x - y : 40 * x, b = bgr ? 40 * x : 200 - x - y;
        ck_assert_msg (p[0] == r && p[1] == 70 * y && p[2] == b && p[3] == 255,
            "%s (%d,%d): %d %d %d %d", bgr ? "BGRX" : "RGBX", x, y, p[0], p[1], p[2], p[3]);
      }
    free (px);
    cv_image_free (&img);
  }
}
END_TEST

/* cv-flow --vis on two generated frames: every pixel opaque, colours exactly those of
 * cc_flow_vis_draw on the flow cv-flow wrote with -o. */
START_TEST (test_cv_flow_vis_opaque)
{
  const char *f[2] = { cv_test_temp_path ("f0.png"), cv_test_temp_path ("f1.png") };
  for (int t = 0; t < 2; t++) {
    cc_image frame;
    CC_ASSERT_OK (cv_synth_clip_frame (t, 64, 48, &frame, NULL));
    CC_ASSERT_OK (cv_png_save (f[t], &frame));
    cv_image_free (&frame);
  }
  const char *vis = cv_test_temp_path ("vis.png"), *flo = cv_test_temp_path ("flow.flo");
  const char *argv[] = { CV_FLOW_BIN, "--backend", "cpu", f[0], f[1], "-o", flo, "--vis",
    vis, NULL };
  expect (argv, 0, NULL);
  cc_image flow, drawn;
  CC_ASSERT_OK (cc_flo_read (flo, &flow));
  CC_ASSERT_OK (cv_image_new (64, 48, CC_FORMAT_RGBX8, &drawn));
  cc_flow_vis_params vp;
  cc_flow_vis_params_default (&vp);
  cc_context *cpu;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  CC_ASSERT_OK (cc_flow_vis_draw (cpu, NULL, &flow, NULL, &vp, &drawn));
  int w, h;
  bool has_alpha;
  uint8_t *px = load_rgba (vis, &w, &h, &has_alpha);
  ck_assert_int_eq (w, 64);
  ck_assert_int_eq (h, 48);
  ck_assert (!has_alpha);
  int coloured = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = px + 4 * (y * w + x);
      const uint8_t *q = (const uint8_t *) drawn.planes[0] + y * drawn.pitch[0] + 4 * x;
      ck_assert_msg (p[3] == 255, "(%d,%d): alpha %d", x, y, p[3]);
      ck_assert_msg (p[0] == q[0] && p[1] == q[1] && p[2] == q[2],
          "(%d,%d): %d %d %d, drawn %d %d %d", x, y, p[0], p[1], p[2], q[0], q[1], q[2]);
      coloured += p[0] != 255 || p[1] != 255 || p[2] != 255;
    }
  /* the clip moves: the picture is not all white (zero flow) */
  ck_assert_int_gt (coloured, w * h / 4);
  free (px);
  cc_context_destroy (cpu);
  cv_image_free (&drawn);
  cc_flo_free (&flow);
}
END_TEST

/* setup.sh with a bad mode: usage, exit 2, fast, and no apt-get, sudo or dpkg-query run
 * (fakes first in PATH record being called). */
START_TEST (test_setup_bad_mode)
{
  const char *bin = cv_test_temp_path ("fakebin");
  ck_assert_int_eq (mkdir (bin, 0755), 0);
  const char *names[] = { "apt-get", "sudo", "dpkg-query", "meson", "ninja" };
  const char *marker = cv_test_temp_path ("called");
  for (int i = 0; i < 5; i++) {
    char path[600];
    snprintf (path, sizeof path, "%s/%s", bin, names[i]);
    FILE *f = fopen (path, "w");
    ck_assert_ptr_nonnull (f);
    fprintf (f, "#!/bin/sh\necho %s >> '%s'\nexit 0\n", names[i], marker);
    fclose (f);
    chmod (path, 0755);
  }
  char script[600], path_env[1024];
  snprintf (script, sizeof script, "%s/tools/setup.sh", getenv ("CV_SOURCE_ROOT"));
  snprintf (path_env, sizeof path_env, "%s:/usr/bin:/bin", bin);
  const char *modes[] = { "bogus", "--bogus" };
  for (int i = 0; i < 2; i++) {
    const char *argv[] = { "/bin/bash", script, modes[i], NULL };
    char *out, *err;
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    int rc = cv_test_run (argv, path_env, &out, &err);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    ck_assert_int_eq (rc, 2);
    ck_assert_ptr_nonnull (strstr (err, "usage: tools/setup.sh [build|test|test-trixie|demo|install|uninstall]"));
    ck_assert_msg (access (marker, F_OK) != 0, "setup.sh %s ran a package or build tool",
        modes[i]);
    /* a refusal, not an install: well under the time one apt-get or build takes */
    ck_assert_int_lt (t1.tv_sec - t0.tv_sec, 10);
    free (out);
    free (err);
  }
  const char *help[] = { "/bin/bash", script, "--help", NULL };
  char *out;
  ck_assert_int_eq (cv_test_run (help, path_env, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "usage: tools/setup.sh"));
  /* each mode and variable described on its own line */
  const char *described[] = { "\n  build ", "\n  demo ", "\n  test ", "\n  test-trixie ",
    "\n  install ", "\n  uninstall ", "\n  BUILD_DIR ", "\n  CUDA_ARCH ", "\n  MESON_ARGS ",
    "\n  ASAN=0 ", "\n  PREFIX " };
  for (size_t i = 0; i < sizeof described / sizeof described[0]; i++)
    ck_assert_msg (strstr (out, described[i]), "setup.sh --help lacks '%s'", described[i] + 1);
  ck_assert_int_ne (access (marker, F_OK), 0);
  free (out);
}
END_TEST

/* cv-mkpairs: the Sintel layout, the pairs of cv_pair_make bit for bit, the same
 * files for the same seed, refused values; match-bench --eval scores them. */
/* The files cv-mkpairs wrote for pair i under dir are the bits of the pair made in
 * memory (f1, f2, flow, occ: freed here). */
static void
assert_pair_files (const char *dir, int i, cc_image *f1, cc_image *f2, cc_image *flow,
    cc_image *occ)
{
  static const char *names[] = { "frame10.png", "frame11.png", "occlusions.png" };
  const cc_image *want[] = { f1, f2, occ };
  char path[4096];
  cc_image got;
  for (int k = 0; k < 3; k++) {
    snprintf (path, sizeof path, "%s/pair_%03d/%s", dir, i, names[k]);
    CC_ASSERT_OK (cv_png_load (path, k == 2 ? CC_FORMAT_GRAY8 : CC_FORMAT_RGBX8, &got));
    cv_test_assert_same_bits (&got, want[k], names[k]);
    cv_image_free (&got);
  }
  snprintf (path, sizeof path, "%s/pair_%03d/flow10.flo", dir, i);
  CC_ASSERT_OK (cc_flo_read (path, &got));
  cv_test_assert_same_bits (&got, flow, "flow10.flo");
  cc_flo_free (&got);
  cv_image_free (f1);
  cv_image_free (f2);
  cv_image_free (flow);
  cv_image_free (occ);
}

START_TEST (test_cv_mkpairs)
{
  char dir[512], dir2[512], path[600];
  snprintf (dir, sizeof dir, "%s", cv_test_temp_path ("pairs"));
  snprintf (dir2, sizeof dir2, "%s", cv_test_temp_path ("pairs2"));
  const char *argv[] = { CV_MKPAIRS_BIN, dir, "--count", "2", "--size", "64x48",
                         "--max-motion", "20", "--seed", "5", "--procedural", NULL };
  expect (argv, 0, NULL);
  for (int i = 0; i < 2; i++) {
    cv_pair_params gp = { 64, 48, 20.0f, 5u + (unsigned) i };
    cc_image f1, f2, flow, occ;
    CC_ASSERT_OK (cv_pair_make (&gp, NULL, 0, &f1, &f2, &flow, &occ));
    assert_pair_files (dir, i, &f1, &f2, &flow, &occ);
  }
  /* another seed: other frames */
  const char *other[] = { CV_MKPAIRS_BIN, dir2, "--count", "1", "--size", "64x48",
                          "--seed", "6", "--procedural", NULL };
  expect (other, 0, NULL);
  cc_image a, b;
  snprintf (path, sizeof path, "%s/pair_000/frame10.png", dir);
  CC_ASSERT_OK (cv_png_load (path, CC_FORMAT_GRAY8, &a));
  snprintf (path, sizeof path, "%s/pair_000/frame10.png", dir2);
  CC_ASSERT_OK (cv_png_load (path, CC_FORMAT_GRAY8, &b));
  ck_assert_int_ne (memcmp (a.planes[0], b.planes[0], 64 * 48), 0);
  cv_image_free (&a);
  cv_image_free (&b);
  const char *small[] = { CV_MKPAIRS_BIN, dir2, "--size", "8x8", NULL };
  expect (small, 2, "16..8192");
  const char *count[] = { CV_MKPAIRS_BIN, dir2, "--count", "0", NULL };
  expect (count, 2, "--count");
  const char *media[] = { CV_MKPAIRS_BIN, dir2, "--media", "/nonexistent-media", NULL };
  expect (media, 1, "no texture");
  /* match-bench --eval: one JSON line per pair */
  const char *eval[] = { MATCH_BENCH_BIN, "--eval", dir, "--step", "4", NULL };
  char *out;
  ck_assert_int_eq (cv_test_run (eval, NULL, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "{\"pair\":\"pair_000\""));
  ck_assert_ptr_nonnull (strstr (out, "{\"pair\":\"pair_001\""));
  ck_assert_ptr_nonnull (strstr (out, "\"accuracy\":"));
  free (out);
  char empty[512];
  snprintf (empty, sizeof empty, "%s", cv_test_temp_path ("empty"));
  ck_assert_int_eq (mkdir (empty, 0755), 0);
  const char *none[] = { MATCH_BENCH_BIN, "--eval", empty, NULL };
  expect (none, 1, "no pair");
  const char *backend[] = { MATCH_BENCH_BIN, "--eval", dir, "--backend", "gpu", NULL };
  expect (backend, 2, "one of cpu, cuda");
  const char *step[] = { MATCH_BENCH_BIN, "--step", "1", NULL };
  expect (step, 2, "--step");
}
END_TEST

/* cv-mkpairs --driving (cv_pair_make_driving): every pixel's flow against the
 * homography its plane induces between the two cameras, K R^T (I - C n^T / d) K^-1
 * (ground n = (0, 1, 0), d = height; wall n = (0, 0, 1), d = wall), computed here;
 * occlusion = the point leaving frame 2; the expansion pattern (x2 on the ray from the
 * focus of expansion through the derotated point x_inf2, farther out); |flow| growing
 * down the centre column on the ground; frame 2 sampled at x + flow gives frame 1
 * back; the files of the tool are the function's bits. */
static void
mat3_mul (const double a[9], const double b[9], double r[9])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

static void
mat3_apply (const double m[9], double x, double y, double *ox, double *oy)
{
  double z = m[6] * x + m[7] * y + m[8];
  *ox = (m[0] * x + m[1] * y + m[2]) / z;
  *oy = (m[3] * x + m[4] * y + m[5]) / z;
}

static double
grey_at (const cc_image *im, double x, double y)
{
  int x0 = (int) floor (x), y0 = (int) floor (y);
  double fx = x - x0, fy = y - y0, v[2][2];
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      const uint8_t *p = (const uint8_t *) im->planes[0] + (size_t) (y0 + j) * im->pitch[0]
          + 4 * (x0 + i);
      v[j][i] = (p[0] + p[1] + p[2]) / 3.0;
    }
  return (1 - fy) * ((1 - fx) * v[0][0] + fx * v[0][1]) + fy * ((1 - fx) * v[1][0] + fx * v[1][1]);
}

START_TEST (test_cv_mkpairs_driving)
{
  const int w = 160, h = 96;
  for (unsigned seed = 7; seed < 10; seed++) {
    cv_pair_params gp = { w, h, 0.0f, seed };
    cc_image f1, f2, flow, occ;
    cv_driving_camera c;
    CC_ASSERT_OK (cv_pair_make_driving (&gp, NULL, 0, &f1, &f2, &flow, &occ, &c));
    double nearest = c.focal * c.height / (h - 1 - c.cy);
    ck_assert (c.focal >= 0.55 * w && c.focal <= 0.75 * w && c.forward >= 0.15 * nearest
        && c.forward <= 0.4 * nearest && fabs (c.yaw) <= 1.5 * M_PI / 180 && c.wall >= 25);
    double co = cos (c.yaw), si = sin (c.yaw);
    double K[9] = { c.focal, 0, c.cx, 0, c.focal, c.cy, 0, 0, 1 };
    double Ki[9] = { 1 / c.focal, 0, -c.cx / c.focal, 0, 1 / c.focal, -c.cy / c.focal, 0, 0, 1 };
    double Rt[9] = { co, 0, -si, 0, 1, 0, si, 0, co };
    /* I - C n^T / d with C = (0, 0, forward) */
    double Gg[9] = { 1, 0, 0, 0, 1, 0, 0, -c.forward / c.height, 1 };
    double Gw[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 - c.forward / c.wall };
    double t1[9], t2[9], Hg[9], Hw[9], Hinf[9];
    mat3_mul (Rt, Gg, t1);
    mat3_mul (K, t1, t2);
    mat3_mul (t2, Ki, Hg);
    mat3_mul (Rt, Gw, t1);
    mat3_mul (K, t1, t2);
    mat3_mul (t2, Ki, Hw);
    mat3_mul (K, Rt, t1);
    mat3_mul (t1, Ki, Hinf);
    /* focus of expansion in frame 2: K R^T C */
    double ex = c.cx - c.focal * si / co, ey = c.cy;
    double worst = 0, warp_err = 0, still_err = 0, prev = -1;
    long visible = 0, ground = 0, checked = 0;
    for (int y = 0; y < h; y++) {
      const float *f = (const float *) ((const char *) flow.planes[0] + (size_t) y * flow.pitch[0]);
      const uint8_t *o = (const uint8_t *) occ.planes[0] + (size_t) y * occ.pitch[0];
      for (int x = 0; x < w; x++) {
        int on_ground = y > c.cy && c.focal * c.height / (y - c.cy) < c.wall;
        double x2, y2, xi, yi;
        mat3_apply (on_ground ? Hg : Hw, x, y, &x2, &y2);
        worst = fmax (worst, hypot (f[2 * x] - (x2 - x), f[2 * x + 1] - (y2 - y)));
        int inside = x2 >= -0.5 && y2 >= -0.5 && x2 < w - 0.5 && y2 < h - 0.5;
        ck_assert_int_eq (o[x], inside ? 0 : 255);
        if (!inside)
          continue;
        visible++;
        ground += on_ground;
        mat3_apply (Hinf, x, y, &xi, &yi);
        double rx = xi - ex, ry = yi - ey, dx = x2 - ex, dy = y2 - ey;
        double r = hypot (rx, ry), d = hypot (dx, dy);
        if (r > 2) {
          ck_assert_msg (fabs (rx * dy - ry * dx) < 1e-6 * r * d && d > r,
              "pixel (%d, %d): not expanding from the focus (%g, %g)", x, y, ex, ey);
          checked++;
        }
        if (x >= 2 && y >= 2 && x < w - 3 && y < h - 3 && x2 >= 0 && y2 >= 0 && x2 < w - 1
            && y2 < h - 1) {
          warp_err += fabs (grey_at (&f2, x2, y2) - grey_at (&f1, x, y));
          still_err += fabs (grey_at (&f2, x, y) - grey_at (&f1, x, y));
        }
        if (x == w / 2 && on_ground) {
          double m = hypot (f[2 * x], f[2 * x + 1]);
          ck_assert_msg (m > prev && f[2 * x + 1] > 0, "centre column row %d: |flow| %g after %g",
              y, m, prev);
          prev = m;
        }
      }
    }
    printf ("driving pair seed %u: focal %.1f horizon %.1f height %.2f forward %.2f yaw %.2f deg "
        "wall %.1f; flow vs homography max %.2e px; %ld visible (%ld ground, %ld checked for "
        "expansion); |f2(x + flow) - f1(x)| %.2f, |f2(x) - f1(x)| %.2f grey levels\n", seed,
        c.focal, c.cy, c.height, c.forward, c.yaw * 180 / M_PI, c.wall, worst, visible, ground,
        checked, warp_err / visible, still_err / visible);
    ck_assert_msg (worst < 1e-3, "flow off the homography by %g px", worst);
    fflush (stdout);
    ck_assert (visible > w * h / 3 && ground > w * h / 8 && checked > visible - 20);
    ck_assert_msg (warp_err < 0.35 * still_err, "warp %g still %g", warp_err, still_err);
    ck_assert_msg (prev > 5, "bottom of the centre column moves %g px", prev);
    cv_image_free (&f1);
    cv_image_free (&f2);
    cv_image_free (&flow);
    cv_image_free (&occ);
  }
  /* the tool writes the function's pairs; --max-motion is refused with it */
  char dir[512];
  snprintf (dir, sizeof dir, "%s", cv_test_temp_path ("driving"));
  const char *argv[] = { CV_MKPAIRS_BIN, dir, "--driving", "--count", "2", "--size", "64x48",
                         "--seed", "5", "--procedural", NULL };
  expect (argv, 0, NULL);
  for (int i = 0; i < 2; i++) {
    cv_pair_params gp = { 64, 48, 0.0f, 5u + (unsigned) i };
    cc_image f1, f2, flow, occ;
    CC_ASSERT_OK (cv_pair_make_driving (&gp, NULL, 0, &f1, &f2, &flow, &occ, NULL));
    assert_pair_files (dir, i, &f1, &f2, &flow, &occ);
  }
  const char *both[] = { CV_MKPAIRS_BIN, dir, "--driving", "--max-motion", "20", NULL };
  expect (both, 2, "does not apply");
}
END_TEST

/* cv-flow --method epic --eval on two generated 96x64 pairs (20 px motions): a table
 * with both pairs and a mean EPE under 3 px (zero flow: about 8); bad epic options. */
START_TEST (test_cv_flow_epic)
{
  char dir[512];
  snprintf (dir, sizeof dir, "%s", cv_test_temp_path ("epic-pairs"));
  const char *make[] = { CV_MKPAIRS_BIN, dir, "--count", "2", "--size", "96x64",
                         "--max-motion", "20", "--seed", "3", "--procedural", NULL };
  expect (make, 0, NULL);
  const char *eval[] = { CV_FLOW_BIN, "--method", "epic", "--backend", "cpu", "--eval", dir,
                         NULL };
  char *out;
  ck_assert_int_eq (cv_test_run (eval, NULL, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "method epic + variational refinement, backend cpu"));
  ck_assert_ptr_nonnull (strstr (out, "pair_000"));
  ck_assert_ptr_nonnull (strstr (out, "pair_001"));
  const char *mean = strstr (out, "\nmean");
  ck_assert_ptr_nonnull (mean);
  double epe = strtod (mean + 5, NULL);
  printf ("cv-flow --method epic on 2 generated 96x64 pairs: mean EPE %.3f\n", epe);
  ck_assert_msg (epe > 0.0 && epe < 3.0, "mean EPE %g", epe);
  free (out);
  const char *method[] = { CV_FLOW_BIN, "--method", "epicflow", "a.png", "b.png", NULL };
  expect (method, 2, "one of lk, blockmatch, epic");
  const char *k[] = { CV_FLOW_BIN, "--method", "epic", "--neighbours", "0", "a.png", "b.png",
    NULL };
  expect (k, 1, "k 0 out of range");
  const char *k_alias[] = { CV_FLOW_BIN, "--method", "epic", "--k", "0", "a.png", "b.png", NULL };
  expect (k_alias, 1, "k 0 out of range");
  /* the interpolation's model is selectable (--affine), and the backend is named on
   * stderr: the affine fit and the weighted mean (the default, --nw) give different
   * fields; --nw gives the default's */
  char p1[600], p2[600], gt[600];
  snprintf (p1, sizeof p1, "%s/pair_000/frame10.png", dir);
  snprintf (p2, sizeof p2, "%s/pair_000/frame11.png", dir);
  snprintf (gt, sizeof gt, "%s/pair_000/flow10.flo", dir);
  const char *models[3][2] = { { "--affine", "true" }, { "--affine", "false" }, { "--nw", NULL } };
  double model_epe[3];
  for (int i = 0; i < 3; i++) {
    const char *run[] = { CV_FLOW_BIN, "--method", "epic", "--backend", "auto", p1, p2,
      "--truth", gt, models[i][0], models[i][1], NULL };
    char *err;
    ck_assert_int_eq (cv_test_run (run, NULL, &out, &err), 0);
    const char *row = strstr (out, "\npair");
    ck_assert_ptr_nonnull (row);
    model_epe[i] = strtod (row + 5, NULL);
    const char *expected = cc_cuda_device_count () > 0 ? "cv-flow: method epic on the cuda "
        "backend" : "cv-flow: method epic on the cpu backend (backend auto: no CUDA device";
    ck_assert_msg (strstr (err, expected), "stderr '%s' lacks '%s'", err, expected);
    free (out);
    free (err);
  }
  printf ("cv-flow --method epic pair_000: EPE --affine true %.3f, false %.3f, --nw %.3f\n",
      model_epe[0], model_epe[1], model_epe[2]);
  ck_assert (model_epe[0] != model_epe[1]);
  ck_assert (model_epe[1] == model_epe[2]);
}
END_TEST

static Suite *
cli_suite (void)
{
  Suite *s = suite_create ("tools-cli");
  TCase *tc = tcase_create ("cli");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_version);
  tcase_add_test (tc, test_help);
#ifdef MESHSEG_BIN
  tcase_add_test (tc, test_meshseg_manual);
#endif
  tcase_add_test (tc, test_cv_flow_options);
  tcase_add_test (tc, test_cv_flow_epic);
  tcase_add_test (tc, test_cv_mkpairs_driving);
  tcase_add_test (tc, test_cv_mkmesh);
  tcase_add_test (tc, test_other_tools_options);
  tcase_add_test (tc, test_cv_mkclip_foreground);
#ifdef CVD_FLICKER_BIN
  tcase_add_test (tc, test_cvd_flicker_not_a_video);
#endif
  tcase_add_test (tc, test_flow_bench_no_device);
#ifdef QUADCUT_EVAL_BIN
  tcase_add_test (tc, test_quadcut_align);
#endif
  tcase_add_test (tc, test_png_writer_opaque);
  tcase_add_test (tc, test_cv_flow_vis_opaque);
  tcase_add_test (tc, test_setup_bad_mode);
  tcase_add_test (tc, test_cv_mkpairs);
#ifdef CV_SOAK_BIN
  tcase_add_test (tc, test_cv_soak);
#endif
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_main_with_tmpdir (cli_suite (), "cv-cli-test");
}
