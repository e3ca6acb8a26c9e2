/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cvd-bench: timings of one Lloyd iteration of cc_cvd (centroidal Voronoi), one JSON
 * object per line.
 *
 *   cvd-bench [--runs N] [--no-cpu] [--quick] [--voronoi jfa|1+jfa|1+jfa+2]
 *   cvd-bench --version
 *
 * Cases: 1920x1080 with 2k and 20k sites, 3840x2160 with 2k and 100k sites (--quick:
 * 1920x1080 with 2k only). Uniform density, sites seeded and relaxed by 20 iterations
 * first (a settled diagram, as in a stream). On CUDA each centroid method
 * (privatized, mdrr) with the Voronoi method of --voronoi (default 1+jfa+2, the
 * library's default); the CPU (JFA twin, all cores of the context) once
 * per case with fewer runs. Medians over runs of cc_timer (CUDA events on the stream;
 * the wall clock on the CPU):
 *  lloyd_ms:    cc_cvd_compute (1): Voronoi + centroids + update + displacement;
 *  jfa_ms:      cc_cvd_voronoi alone;
 *  centroid_ms: CUDA: lloyd_ms - jfa_ms (centroids, update and convergence); CPU:
 *               cc_cvd_centroid_sums timed alone (the CPU's difference of two
 *               medians drowns in the noise of a shared machine);
 *  lloyd10_ms:  cc_cvd_compute (10) / 10: iterations queued back to back with no host
 *               synchronisation (the per-frame path);
 *  warm:        whether those steps started warm (cc_cvd_params.warm_start, the
 *               default: the settled sites move by less than a pixel, so the Voronoi
 *               step runs the last passes of its schedule over the last labels);
 *  cold_lloyd_ms, cold_jfa_ms: the same with warm_start = 0 (every Voronoi step runs
 *               its whole schedule: a new stream, new sites or advected ones). */
#include "cc_tuning.h"   /* cudacore/src: the Voronoi and centroid variants it compares */
#include "cv_cli.h"
#include "cv_timing.h"
#include <cudacore/cc_cvd.h>
#include <cudacore/cc_timer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 1000

/* Median of `runs` timings of one call. what: 0 iterate 1, 1 voronoi, 2 iterate 10,
 * 3 centroid sums (sums: room for the sites). */
static int
time_call (cc_cvd *c, cc_timer *timer, int what, int runs, double *median, cc_cvd_sums *sums)
{
  static double t[MAX_RUNS];
  for (int i = 0; i < runs; i++) {
    float ms;
    cc_status st = cc_timer_start (timer, NULL);
    if (st == CC_SUCCESS)
      st = what == 1 ? cc_cvd_voronoi (c, NULL) : what == 3 ? cc_cvd_centroid_sums (c, NULL, sums)
          : cc_cvd_compute (c, NULL, what == 2 ? 10 : 1, 0.0, NULL);
    if (st == CC_SUCCESS)
      st = cv_timer_stop_ms (timer, &ms);
    if (st != CC_SUCCESS)
      return cv_fail ("timed call");
    t[i] = what == 2 ? ms / 10.0 : ms;
  }
  *median = cv_median (t, runs);
  return 0;
}

static const char *voronoi_names[] = { "1+jfa", "jfa", "exact", "1+jfa+2" };

static int
bench_one (cc_context *ctx, int w, int h, int n, cc_cvd_voronoi_method voronoi,
    cc_cvd_centroid_method method, int runs)
{
  cc_cvd_tuning t = { .voronoi = voronoi, .centroid = method };
  cc_cvd *c;
  cc_timer *timer;
  if (cc_cvd_create (ctx, w, h, NULL, &c) != CC_SUCCESS)
    return cv_fail ("cc_cvd_create");
  if (cc_cvd_set_tuning (c, &t) != CC_SUCCESS)
    return cv_fail ("cc_cvd_set_tuning");
  if (cc_timer_create (ctx, &timer) != CC_SUCCESS)
    return cv_fail ("cc_timer_create");
  cc_cvd_stats st;
  if (cc_cvd_seed (c, NULL, n, 1) != CC_SUCCESS || cc_cvd_compute (c, NULL, 20, 0.0, &st) != CC_SUCCESS)
    return cv_fail ("settling");
  double lloyd = 0.0, jfa = 0.0, centroid = 0.0, lloyd10 = 0.0;
  cc_cvd_sums *sums = malloc ((size_t) n * sizeof *sums);
  if (!sums || time_call (c, timer, 0, runs, &lloyd, sums)
      || time_call (c, timer, 1, runs, &jfa, sums))
    return 1;
  bool cuda = cc_context_backend (ctx) == CC_BACKEND_CUDA;
  if (cuda && time_call (c, timer, 2, runs, &lloyd10, sums))
    return 1;
  if (!cuda && time_call (c, timer, 3, runs, &centroid, sums))
    return 1;
  if (cuda)
    centroid = lloyd - jfa;
  if (cc_cvd_compute (c, NULL, 1, 0.0, &st) != CC_SUCCESS)
    return cv_fail ("cc_cvd_compute");
  int warm = st.warm;
  double cold_lloyd = 0.0, cold_jfa = 0.0;
  cc_cvd_params p;
  cc_cvd_params_default (&p);
  p.warm_start = 0;
  if (cc_cvd_set_params (c, &p) != CC_SUCCESS)
    return cv_fail ("cc_cvd_set_params");
  if (time_call (c, timer, 0, runs, &cold_lloyd, sums)
      || time_call (c, timer, 1, runs, &cold_jfa, sums))
    return 1;
  free (sums);
  static const char *names[] = { "auto", "privatized", "mdrr" };
  printf ("{\"algorithm\":\"cvd\",\"width\":%d,\"height\":%d,\"sites\":%d,\"backend\":\"%s\","
      "\"threads\":%d,\"voronoi\":\"%s\",\"centroid\":\"%s\",\"runs\":%d,"
      "\"lloyd_ms\":%.4f,\"jfa_ms\":%.4f,\"centroid_ms\":%.4f,\"lloyd10_ms\":%.4f,"
      "\"warm\":%s,\"cold_lloyd_ms\":%.4f,\"cold_jfa_ms\":%.4f,"
      "\"mean_displacement_px\":%.4f}\n", w, h, n, cuda ? "cuda" : "cpu",
      cuda ? 0 : cc_context_cpu_threads (ctx), voronoi_names[voronoi],
      cuda ? names[method] : "cpu", runs, lloyd,
      jfa, centroid, lloyd10, warm ? "true" : "false", cold_lloyd, cold_jfa,
      st.mean_displacement);
  fflush (stdout);
  cc_timer_destroy (timer);
  cc_cvd_destroy (c);
  return 0;
}

int
main (int argc, char **argv)
{
  static const char help[] =
    "usage: cvd-bench [--runs N] [--no-cpu] [--quick] [--voronoi jfa|1+jfa|1+jfa+2]\n"
    "Times one Lloyd iteration of the centroidal Voronoi diagram (cc_cvd) at 1920x1080\n"
    "with 2k and 20k sites and 3840x2160 with 2k and 100k, settled sites, uniform\n"
    "density; one JSON line per case and method: lloyd_ms, jfa_ms, centroid_ms,\n"
    "lloyd10_ms (10 queued iterations / 10), warm and cold (medians).\n"
    "  --runs N        timed runs, the median kept (1..%d; default 50; the CPU fewer)\n"
    "  --no-cpu        CUDA only\n"
    "  --quick         1920x1080 with 2k sites only\n"
    "  --voronoi V     the CUDA Voronoi method: jfa, 1+jfa or 1+jfa+2 (default 1+jfa+2,\n"
    "                  the library's)\n"
    "  -h, --help      this text\n"
    "  --version       the program's version\n";
  bool cpu = true, quick = false;
  int runs = 50;
  cc_cvd_tuning defaults;
  cc_cvd_tuning_default (&defaults);
  cc_cvd_voronoi_method voronoi = defaults.voronoi;
  for (int i = 1; i < argc; i++) {
    int exit_status;
    if (cv_bench_option (argc, argv, &i, help, MAX_RUNS, &cpu, &runs, &exit_status)) {
      if (exit_status >= 0)
        return exit_status;
    } else if (!strcmp (argv[i], "--quick")) {
      quick = true;
    } else if (!strcmp (argv[i], "--voronoi") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp (v, "jfa"))
        voronoi = CC_CVD_VORONOI_JFA;
      else if (!strcmp (v, "1+jfa"))
        voronoi = CC_CVD_VORONOI_JFA_1PLUS;
      else if (!strcmp (v, "1+jfa+2"))
        voronoi = CC_CVD_VORONOI_JFA_1PLUS_2;
      else {
        cv_option_error ("--voronoi", v, "one of jfa, 1+jfa or 1+jfa+2");
        return 2;
      }
    } else {
      fprintf (stderr, "usage: cvd-bench [--runs N] [--no-cpu] [--quick] "
          "[--voronoi jfa|1+jfa|1+jfa+2] | --version\n");
      return 2;
    }
  }
  static const int cases[4][3] = { { 1920, 1080, 2000 }, { 1920, 1080, 20000 },
                                   { 3840, 2160, 2000 }, { 3840, 2160, 100000 } };
  int ncases = quick ? 1 : 4;
  bool gpu = cc_cuda_device_count () > 0;
  if (!gpu)
    fprintf (stderr, "cvd-bench: no CUDA device (%s), CPU only\n", cc_cuda_unavailable_reason ());
  if (!gpu && !cpu) {
    fprintf (stderr, "cvd-bench: --no-cpu and no CUDA device: nothing to measure\n");
    return 1;
  }
  for (int b = 0; b < 2; b++) {
    if ((b == 0 && !cpu) || (b == 1 && !gpu))
      continue;
    cc_context *ctx;
    if (cc_context_create (b ? CC_BACKEND_CUDA : CC_BACKEND_CPU, CC_DEVICE_AUTO, &ctx)
        != CC_SUCCESS)
      return cv_fail ("cc_context_create");
    for (int k = 0; k < ncases; k++) {
      if (b == 1) {
        for (int m = CC_CVD_CENTROID_PRIVATIZED; m <= CC_CVD_CENTROID_MDRR; m++)
          if (bench_one (ctx, cases[k][0], cases[k][1], cases[k][2], voronoi,
                  (cc_cvd_centroid_method) m, runs))
            return 1;
      } else if (bench_one (ctx, cases[k][0], cases[k][1], cases[k][2], voronoi,
              CC_CVD_CENTROID_AUTO, runs < 3 ? runs : 3)) {
        return 1;
      }
    }
    cc_context_destroy (ctx);
  }
  return 0;
}
