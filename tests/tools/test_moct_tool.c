/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cv-moct, run as a user runs it: calibration of synthetic balls (exact colours and
 * tolerances), tracking of the generated objects clip against its objects.csv; the
 * billiard evaluation of the shared clips (tools/dev/moct-billiard; skipped without
 * ../shared/media) at the figures docs/moctracker.md reports; the refused options of
 * both. */
#include "cv_test.h"
#include "cv_imageio.h"
#include "cv_synth.h"

#include <math.h>
#include <string.h>
#include <unistd.h>


/* Runs argv, asserting exit status 0; *out gets its stdout (free it). */
static void
run_ok (const char *const argv[], char **out)
{
  char *err;
  int rc = cv_test_run (argv, NULL, out, &err);
  ck_assert_msg (rc == 0, "%s %s: exit %d; stderr: %s", argv[0], argv[1], rc, err);
  free (err);
}

/* Five balls on the grey (128) cloth, 21x21 boxes:
 *  cue:    flat (245, 240, 200);
 *  eight:  flat (20, 20, 20) with a white number disc of radius 3 (a minority: the
 *          median ignores it, and the 75% distance quantile is 0: tolerance 10);
 *  solid1: concentric G = 230 (r 4), 200 (r 5.5), 170 (rest) on R = 60, B = 60: the
 *          sampled disc (radius 0.7 x 10.5 = 7.35) is about 29% / 27% / 44% of them,
 *          so the median is G = 200 and the 75% quantile of the distances is 30;
 *  stripe1: a (200, 40, 40) disc with a white (250, 250, 250) band across its middle
 *          (the band is left out: colour exactly (200, 40, 40));
 *  solid2: flat (140, 140, 150): 0.8 x its distance to the cloth (about 19.7) caps
 *          its tolerance, which then stays under the cloth;
 *  solid3: flat (60, 60, 200) centred at (160, 100) in a 24x21 box whose centre is
 *          (158.5, 100): the whole ball is in its box, so the centroid of the box's
 *          classified pixels is the ball's centre and the offset to the box's centre
 *          is exactly (-1.50, 0.00); the symmetric balls in centred boxes have none. */
START_TEST (test_calibrate_synthetic)
{
  cv_synth_shape s[10] = {
    { 40, 40, 10, 10, 0, 245, 240, 200 },
    { 100, 40, 10, 10, 0, 20, 20, 20 },
    { 100, 40, 3, 3, 0, 250, 250, 250 },
    { 160, 40, 10, 10, 0, 60, 170, 60 },
    { 160, 40, 5.5, 5.5, 0, 60, 200, 60 },
    { 160, 40, 4, 4, 0, 60, 230, 60 },
    { 40, 100, 10, 10, 0, 200, 40, 40 },
    { 40, 100, 10, 2.5, 0, 250, 250, 250 },
    { 100, 100, 10, 10, 0, 140, 140, 150 },
    { 160, 100, 10, 10, 0, 60, 60, 200 },
  };
  cc_image frame;
  CC_ASSERT_OK (cv_synth_shapes (200, 140, s, 10, &frame, NULL));
  const char *png = cv_test_temp_path ("balls.png");
  CC_ASSERT_OK (cv_png_save (png, &frame));
  cv_image_free (&frame);
  const char *boxes = cv_test_temp_path ("balls.txt");
  FILE *f = fopen (boxes, "w");
  fprintf (f, "30 30 21 21 1\n90 30 21 21 2\n150 30 21 21 3\n30 90 21 21 4\n"
      "90 90 21 21 3\n147 90 24 21 3\n");
  fclose (f);
  const char *argv[] = { CV_MOCT_BIN, "calibrate", png, boxes, NULL };
  char *out;
  run_ok (argv, &out);
  const char *want[] = {
    "cue #f5f0c8 10.0\n", "eight #141414 10.0\n", "solid1 #3cc83c 30.0\n",
    "stripe1 #c82828 10.0\n",
  };
  for (int i = 0; i < 4; i++)
    ck_assert_msg (strstr (out, want[i]), "'%s' lacks '%s'", out, want[i]);
  /* solid2: 0.8 x |(140, 140, 150) - (128, 128, 128)| = 0.8 x 27.71 = 22.2 > 10: the
   * cap does not bind here, the minimum does */
  ck_assert_msg (strstr (out, "solid2 #8c8c96 10.0\n"), "%s", out);
  ck_assert_msg (strstr (out, "solid3 #3c3cc8 10.0\n"), "%s", out);
  /* each ball's validation line ends with its offset */
  const char *line_of[2] = { "#   cue: ", "#   solid3: " };
  const char *offset_of[2] = { "; offset (0.00, 0.00) px", "; offset (-1.50, 0.00) px" };
  for (int i = 0; i < 2; i++) {
    const char *l = strstr (out, line_of[i]);
    ck_assert_ptr_nonnull (l);
    size_t len = strcspn (l, "\n"), tail = strlen (offset_of[i]);
    ck_assert_msg (len > tail && !strncmp (l + len - tail, offset_of[i], tail), "%.*s",
        (int) len, l);
  }
  free (out);
  /* --names and -o */
  const char *objects = cv_test_temp_path ("balls.objects");
  const char *named[] = { CV_MOCT_BIN, "calibrate", png, boxes, "--names", "a,b,c,d,e,f", "-o",
    objects, NULL };
  char *named_out;
  run_ok (named, &named_out);
  free (named_out);
  f = fopen (objects, "r");
  ck_assert_ptr_nonnull (f);
  char line[256];
  int n = 0;
  while (fgets (line, sizeof line, f))
    if (line[0] != '#')
      n++;
  fclose (f);
  ck_assert_int_eq (n, 6);
  char *err;
  const char *few[] = { CV_MOCT_BIN, "calibrate", png, boxes, "--names", "a,b", NULL };
  ck_assert_int_eq (cv_test_run (few, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "--names: wanted 6 non-empty names"));
  free (err);
}
END_TEST

/* Tracking the generated objects clip: every frame's mass, centroid and box of every
 * object equal objects.csv (flat colours 250 apart: tolerance 20 classifies exactly). */
START_TEST (test_track_objects_clip)
{
  char csv[1024];
  snprintf (csv, sizeof csv, "%s/objects.csv", CV_OBJECTS_CLIP);
  FILE *f = fopen (csv, "r");
  ck_assert_msg (f != NULL, "no %s", csv);
  const char *objects = cv_test_temp_path ("clip.objects");
  FILE *o = fopen (objects, "w");
  fprintf (o, "# the objects clip's palette\n");
  for (int k = 0; k < 8; k++) {
    uint8_t rgb[3];
    cv_synth_palette (k, rgb);
    fprintf (o, "obj%d #%02x%02x%02x 20\n", k, rgb[0], rgb[1], rgb[2]);
  }
  fclose (o);
  /* the whole frame, then a 128 px search window with the size gate (default
   * size-ratio 3): objects that leave and re-enter the frame keep their exact
   * figures (a box cut by the border is not a look-alike) */
  for (int v = 0; v < 2; v++) {
    const char *argv[] = { CV_MOCT_BIN, "track", objects, CV_OBJECTS_CLIP, "--json",
      v ? "--window" : NULL, "128", NULL };
    char *out;
    run_ok (argv, &out);
    char line[256];
    rewind (f);
    ck_assert_ptr_nonnull (fgets (line, sizeof line, f));   /* header */
    int rows = 0, present = 0;
    while (fgets (line, sizeof line, f)) {
      int t, k, r, g, b, x0, y0, x1, y1;
      long long mass;
      double cx, cy;
      ck_assert_int_eq (sscanf (line, "%d,%d,%d,%d,%d,%lld,%lf,%lf,%d,%d,%d,%d", &t, &k, &r, &g,
              &b, &mass, &cx, &cy, &x0, &y0, &x1, &y1), 12);
      char key[64];
      snprintf (key, sizeof key, "{\"frame\":%d,", t);
      const char *fl = strstr (out, key);
      ck_assert_msg (fl != NULL, "frame %d missing", t);
      snprintf (key, sizeof key, "{\"name\":\"obj%d\"", k);
      const char *ob = strstr (fl, key);
      ck_assert_ptr_nonnull (ob);
      char pres[8];
      long long m;
      double tcx, tcy;
      int a0, b0, a1, b1;
      ck_assert_int_eq (sscanf (ob + strlen (key), ",\"present\":%7[a-z],\"mass\":%lld,\"cx\":%lf,"
              "\"cy\":%lf,\"x0\":%d,\"y0\":%d,\"x1\":%d,\"y1\":%d", pres, &m, &tcx, &tcy, &a0, &b0,
              &a1, &b1), 8);
      ck_assert_str_eq (pres, mass >= 16 ? "true" : "false");
      present += mass >= 16;
      rows++;
      if (v && mass < 16)
        continue;   /* an absent object's window may hold fewer of its pixels */
      ck_assert_msg (m == mass, "frame %d object %d: mass %lld, truth %lld (window %d)", t, k, m,
          mass, v ? 128 : 0);
      /* both printed with 6 decimals from the same integer sums */
      ck_assert_double_eq_tol (tcx, cx, 1e-6);
      ck_assert_double_eq_tol (tcy, cy, 1e-6);
      ck_assert_msg (a0 == x0 && b0 == y0 && a1 == x1 && b1 == y1,
          "frame %d object %d: box %d,%d..%d,%d, truth %d,%d..%d,%d", t, k, a0, b0, a1, b1, x0,
          y0, x1, y1);
    }
    ck_assert_int_eq (rows, 48 * 8);
    ck_assert_int_gt (present, 48 * 4);
    free (out);
  }
  fclose (f);
}
END_TEST

/* The billiard evaluation at the figures of docs/moctracker.md (so that a change in
 * calibration, decoding or tracking shows): frame counts, decoding against the
 * clips' PNGs, and per evaluated ball its status, IoU and centroid error. */
typedef struct clip_want {
  const char *name;
  int frames, evaluated, tracked, lost, pocketed;
  double min_iou, max_err;   /* bounds: the measured figures, rounded outwards */
} clip_want;

START_TEST (test_billiard)
{
  const char *media = cv_test_shared_media_with ("tools-moct billiard", "tracking");
  if (!media)
    CV_SKIP ("tools-moct billiard", CV_SKIP_NO_MEDIA);
  static const clip_want want[] = {
    { "game1_clip1", 187, 2, 2, 0, 0, 0.34, 0.7 },
    { "game1_clip2", 157, 2, 2, 0, 0, 0.31, 4.1 },
    { "game2_clip1", 122, 2, 2, 0, 0, 0.61, 2.0 },
    /* the cue ends in the shadow of the right cushion, its lit half classified
     * (6.45 px from the blob's centroid, 3.98 px once offset); the annotation's
     * first-frame "eight" is a maroon solid and its last-frame one a purple solid (no
     * black ball on the table): lost by the labels, followed on the ball it was given
     * (below; docs/moctracker.md) */
    { "game2_clip2", 133, 2, 1, 1, 0, 0.35, 4.0 },
    { "game3_clip1", 116, 2, 2, 0, 0, 0.37, 2.45 },
    { "game3_clip2", 119, 2, 2, 0, 0, 0.62, 1.4 },
  };
  for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
    char dir[1024];
    snprintf (dir, sizeof dir, "%s/tracking/%s", media, want[c].name);
    if (access (dir, F_OK)) {
      printf ("tools-moct billiard %s: no %s\n", want[c].name, dir);
      CV_SKIP_PART (want[c].name, CV_SKIP_NO_MEDIA);
      continue;
    }
    const char *argv[] = { MOCT_BILLIARD_BIN, dir, "--json", NULL };
    char *out;
    run_ok (argv, &out);
    int frames, ev, tr, lo, po;
    double fmad, lmad, mean_iou, min_iou, mean_err, max_err;
    const char *p = strstr (out, "\"frames\":");
    ck_assert_ptr_nonnull (p);
    ck_assert_int_eq (sscanf (p, "\"frames\":%d", &frames), 1);
    p = strstr (out, "\"first_frame_mad\":");
    ck_assert_int_eq (sscanf (p, "\"first_frame_mad\":%lf,\"last_frame_mad\":%lf,"
            "\"evaluated\":%d,\"tracked\":%d,\"lost\":%d,\"pocketed\":%d,\"mean_iou\":%lf,"
            "\"min_iou\":%lf,\"mean_centroid_error\":%lf,\"max_centroid_error\":%lf", &fmad,
            &lmad, &ev, &tr, &lo, &po, &mean_iou, &min_iou, &mean_err, &max_err), 10);
    ck_assert_int_eq (frames, want[c].frames);
    /* the decoded first and last frames are the clip's PNGs up to the decoders'
     * differences (about 3.5 to 4 grey levels on average) */
    ck_assert_msg (fmad >= 0 && fmad < 5 && lmad >= 0 && lmad < 5, "%s: %.2f %.2f",
        want[c].name, fmad, lmad);
    ck_assert_int_eq (ev, want[c].evaluated);
    ck_assert_int_eq (tr, want[c].tracked);
    ck_assert_int_eq (lo, want[c].lost);
    ck_assert_int_eq (po, want[c].pocketed);
    ck_assert_msg (min_iou >= want[c].min_iou, "%s: min IoU %.4f < %.4f", want[c].name,
        min_iou, want[c].min_iou);
    ck_assert_msg (max_err <= want[c].max_err, "%s: max centroid error %.2f > %.2f",
        want[c].name, max_err, want[c].max_err);
    /* the cue's position is its blob's centroid moved by its calibrated offset, scaled
     * by one ratio (0.5..2) on both axes */
    p = strstr (out, "{\"name\":\"cue\"");
    ck_assert_ptr_nonnull (p);
    double odx, ody, cx, cy, bcx, bcy;
    ck_assert_int_eq (sscanf (strstr (p, "\"offset_dx\":"), "\"offset_dx\":%lf,\"offset_dy\":%lf",
            &odx, &ody), 2);
    ck_assert_int_eq (sscanf (strstr (p, "\"cx\":"), "\"cx\":%lf,\"cy\":%lf,\"blob_cx\":%lf,"
            "\"blob_cy\":%lf", &cx, &cy, &bcx, &bcy), 4);
    double ratio = hypot (odx, ody) > 0 ? hypot (cx - bcx, cy - bcy) / hypot (odx, ody) : 1;
    ck_assert_msg (ratio >= 0.5 - 1e-3 && ratio <= 2 + 1e-3 && fabs (cx - bcx - ratio * odx) < 2e-3
        && fabs (cy - bcy - ratio * ody) < 2e-3, "%s: (%.3f, %.3f) + %.3f (%.3f, %.3f) != "
        "(%.3f, %.3f)", want[c].name, bcx, bcy, ratio, odx, ody, cx, cy);
    if (!strcmp (want[c].name, "game2_clip2")) {
      /* the "eight" ends on the box of the ball it started on, labelled a solid */
      p = strstr (out, "{\"name\":\"eight\"");
      ck_assert_ptr_nonnull (p);
      p = strstr (p, "\"nearest_class\":");
      int ncls;
      double niou, nerr;
      ck_assert_int_eq (sscanf (p, "\"nearest_class\":%d,\"nearest_iou\":%lf,"
              "\"nearest_centroid_error\":%lf", &ncls, &niou, &nerr), 3);
      ck_assert_int_eq (ncls, 3);
      ck_assert_msg (niou >= 0.47 && nerr <= 1.5, "eight on its ball: IoU %.4f, %.2f px",
          niou, nerr);
      /* --offset off: the blob's centroid, 6.45 px from the cue's box */
      const char *raw[] = { MOCT_BILLIARD_BIN, dir, "--json", "--offset", "off", NULL };
      char *out_raw;
      run_ok (raw, &out_raw);
      p = strstr (out_raw, "\"max_centroid_error\":");
      ck_assert_int_eq (sscanf (p, "\"max_centroid_error\":%lf", &max_err), 1);
      ck_assert_msg (max_err > 6.4 && max_err < 6.5, "--offset off: %.2f px", max_err);
      p = strstr (strstr (out_raw, "{\"name\":\"cue\""), "\"cx\":");
      ck_assert_int_eq (sscanf (p, "\"cx\":%lf,\"cy\":%lf,\"blob_cx\":%lf,\"blob_cy\":%lf", &cx,
              &cy, &bcx, &bcy), 4);
      ck_assert (cx == bcx && cy == bcy);
      free (out_raw);
    }
    free (out);
  }
}
END_TEST

/* What is not a video stops `track` with an error, soon (a pipeline error on the
 * bus ends the run instead of a wait for a sample that never comes): /dev/null, an
 * empty file, a truncated PNG, a text file. Boxes outside the frame are refused by
 * calibrate. */
START_TEST (test_bad_inputs)
{
  const char *objects = cv_test_temp_path ("red.objects");
  FILE *f = fopen (objects, "w");
  fprintf (f, "red #ff0000 40\n");
  fclose (f);
  const char *empty = cv_test_temp_path ("empty.mp4");
  f = fopen (empty, "w");
  fclose (f);
  cc_image img;
  CC_ASSERT_OK (cv_image_new (64, 48, CC_FORMAT_RGBX8, &img));
  memset (img.planes[0], 90, img.pitch[0] * img.height);
  const char *png = cv_test_temp_path ("frame.png");
  CC_ASSERT_OK (cv_png_save (png, &img));
  cv_image_free (&img);
  const char *cut = cv_test_temp_path ("cut.png");
  char buf[4096];
  f = fopen (png, "rb");
  size_t len = fread (buf, 1, sizeof buf, f);
  fclose (f);
  ck_assert_uint_gt (len, 80);
  f = fopen (cut, "wb");
  fwrite (buf, 1, len / 2, f);
  fclose (f);
  /* a text file as the video: typefinding fails (it hung the same way) */
  const char *inputs[] = { "/dev/null", empty, cut, objects };
  /* killed after 60 s; no address-space limit: a registry scan that this run may
   * start loads every system plugin (under ASan in this process: 15 s, 280 MB) */
  const cv_test_limits limits = { 60, 0 };
  for (int i = 0; i < 4; i++) {
    const char *argv[] = { CV_MOCT_BIN, "track", objects, inputs[i], NULL };
    char *err;
    cv_test_usage use;
    int rc = cv_test_run_limited (argv, NULL, NULL, &err, &limits, &use);
    ck_assert_msg (rc == 1 && use.signal == 0, "%s: exit %d, signal %d, %.1f s; stderr: %s",
        inputs[i], rc, use.signal, use.seconds, err);
    ck_assert_msg (strstr (err, "cv-moct: decoding: "), "%s: %s", inputs[i], err);
    ck_assert_msg (use.seconds < 30 && use.peak_rss_kb < 512 * 1024, "%s: %.1f s, peak RSS "
        "%ld kB", inputs[i], use.seconds, use.peak_rss_kb);
    free (err);
  }
  /* a 1x1 frame and boxes of a 1024x576 one */
  CC_ASSERT_OK (cv_image_new (1, 1, CC_FORMAT_RGBX8, &img));
  const char *one = cv_test_temp_path ("one.png");
  CC_ASSERT_OK (cv_png_save (one, &img));
  cv_image_free (&img);
  const char *boxes = cv_test_temp_path ("far.txt");
  f = fopen (boxes, "w");
  fprintf (f, "0 0 1 1 3\n268 317 17 17 1\n");
  fclose (f);
  const char *calib[] = { CV_MOCT_BIN, "calibrate", one, boxes, NULL };
  char *out, *err;
  ck_assert_int_eq (cv_test_run (calib, NULL, &out, &err), 1);
  ck_assert_msg (strstr (err, "box 2 (268 317 17 17) is not inside the 1x1 frame"), "%s", err);
  ck_assert_msg (!strstr (out, "#000000"), "%s", out);
  free (out);
  free (err);
}
END_TEST

START_TEST (test_options)
{
  char *out, *err;
  const char *help[] = { CV_MOCT_BIN, "--help", NULL };
  ck_assert_int_eq (cv_test_run (help, NULL, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "usage: cv-moct calibrate"));
  free (out);
  const char *region[] = { CV_MOCT_BIN, "track", "a.txt", "dir", "--region", "1,2,3", NULL };
  ck_assert_int_eq (cv_test_run (region, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "cv-moct: --region: '1,2,3' is not x,y,w,h"));
  free (err);
  /* the evaluation is moct-billiard's, not the user's program's */
  const char *billiard[] = { CV_MOCT_BIN, "billiard", "dir", NULL };
  ck_assert_int_eq (cv_test_run (billiard, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "usage: cv-moct calibrate"));
  free (err);
  const char *bhelp[] = { MOCT_BILLIARD_BIN, "--help", NULL };
  ck_assert_int_eq (cv_test_run (bhelp, NULL, &out, NULL), 0);
  ck_assert_ptr_nonnull (strstr (out, "usage: moct-billiard CLIP_DIR"));
  free (out);
  const char *margin[] = { MOCT_BILLIARD_BIN, "dir", "--margin", "-1", NULL };
  ck_assert_int_eq (cv_test_run (margin, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "moct-billiard: --margin: '-1' is not a number in 0..4096"));
  free (err);
  const char *offset[] = { MOCT_BILLIARD_BIN, "dir", "--offset", "maybe", NULL };
  ck_assert_int_eq (cv_test_run (offset, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "moct-billiard: --offset: 'maybe' is not on or off"));
  free (err);
  const char *bregion[] = { MOCT_BILLIARD_BIN, "dir", "--region", "0,0,0,1", NULL };
  ck_assert_int_eq (cv_test_run (bregion, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "moct-billiard: --region: '0,0,0,1' is not x,y,w,h"));
  free (err);
  const char *backend[] = { CV_MOCT_BIN, "track", "a.txt", "dir", "--backend", "gpu", NULL };
  ck_assert_int_eq (cv_test_run (backend, NULL, NULL, &err), 2);
  ck_assert_ptr_nonnull (strstr (err, "cv-moct: --backend: 'gpu' is not one of cpu, cuda"));
  free (err);
  /* a bad objects file names its line */
  const char *objects = cv_test_temp_path ("bad.objects");
  FILE *f = fopen (objects, "w");
  fprintf (f, "# fine\nred #ff0000 30\ngreen #00ff0 30\n");
  fclose (f);
  const char *bad[] = { CV_MOCT_BIN, "track", objects, cv_test_tmpdir (), NULL };
  ck_assert_int_eq (cv_test_run (bad, NULL, NULL, &err), 1);
  ck_assert_ptr_nonnull (strstr (err, "bad.objects: line 3 (\"green\"): colour \"#00ff0\" is not #rrggbb"));
  free (err);
}
END_TEST

static Suite *
moct_tool_suite (void)
{
  Suite *s = suite_create ("tools-moct");
  TCase *tc = tcase_create ("moct");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_calibrate_synthetic);
  tcase_add_test (tc, test_track_objects_clip);
  tcase_add_test (tc, test_billiard);
  tcase_add_test (tc, test_options);
  tcase_add_test (tc, test_bad_inputs);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_main_with_tmpdir (moct_tool_suite (), "cv-moct-test");
}
