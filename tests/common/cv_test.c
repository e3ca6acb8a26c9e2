/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE   /* program_invocation_name */
#include "cv_test.h"
#include "cv_imageio.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

int
cv_test_backend_count (void)
{
  return cc_cuda_device_count () > 0 ? 2 : 1;
}

cc_backend
cv_test_backend (int index)
{
  return index == 0 ? CC_BACKEND_CPU : CC_BACKEND_CUDA;
}

const char *
cv_test_shared_media_with (const char *name, const char *subdir)
{
  static char path[4096];
  const char *env = getenv ("CV_SHARED_MEDIA");
  if (env)
    snprintf (path, sizeof path, "%s", env);
  else
    snprintf (path, sizeof path, "%s/../shared/media", CV_SOURCE_ROOT);
  char want[4200];
  snprintf (want, sizeof want, "%s/%s", path, subdir ? subdir : "");
  struct stat st;
  if (stat (want, &st) != 0 || !S_ISDIR (st.st_mode)) {
    printf ("%s: no shared media at %s\n", name, want);
    return NULL;
  }
  return path;
}

cc_status
cv_test_to_backend (cc_context *ctx, const cc_image *host, cc_image *out)
{
  cc_location loc = cc_context_backend (ctx) == CC_BACKEND_CUDA
      ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
  cc_status st = cc_image_alloc (ctx, host->width, host->height, host->format, loc, out);
  if (st != CC_SUCCESS)
    return st;
  return cc_image_copy (ctx, NULL, host, out);
}

cc_status
cv_test_to_host (cc_context *ctx, const cc_image *img, cc_image *out)
{
  if (img->format == CC_FORMAT_NV12 || img->format == CC_FORMAT_I420) {
    /* one block that cv_image_free frees: Y, then the chroma plane(s), packed; any
     * size, odd ones included (chroma of (w + 1) / 2 x (h + 1) / 2) */
    size_t w = img->width, h = img->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    uint8_t *block = calloc (w * h + 2 * cw * ch, 1);
    if (!block)
      return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cv_test_to_host: %zux%zu", w, h);
    *out = cc_image_view (block, w, img->width, img->height, CC_FORMAT_GRAY8,
        CC_LOCATION_HOST);
    out->format = img->format;
    out->planes[1] = block + w * h;
    if (img->format == CC_FORMAT_NV12) {
      out->pitch[1] = 2 * cw;
    } else {
      out->pitch[1] = out->pitch[2] = cw;
      out->planes[2] = block + w * h + cw * ch;
    }
    return cc_image_copy (ctx, NULL, img, out);
  }
  cc_status st = cv_image_new (img->width, img->height, img->format, out);
  if (st != CC_SUCCESS)
    return st;
  return cc_image_copy (ctx, NULL, img, out);
}

cc_image
cv_test_constant_field (int w, int h, float u, float v)
{
  cc_image f;
  ck_assert_int_eq (cv_image_new (w, h, CC_FORMAT_F32C2, &f), CC_SUCCESS);
  for (int i = 0; i < w * h; i++) {
    ((float *) f.planes[0])[2 * i] = u;
    ((float *) f.planes[0])[2 * i + 1] = v;
  }
  return f;
}

void
cv_test_assert_finite (const cc_image *img, const char *what)
{
  int ch = img->format == CC_FORMAT_F32C2 ? 2 : 1;
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width * ch; x++)
      ck_assert_msg (isfinite (((const float *) ((const char *) img->planes[0]
                      + y * img->pitch[0]))[x]),
          "%s: non-finite value at (%d, %d)", what, x / ch, y);
}

double
cv_test_mean_abs_diff (const cc_image *a, const cc_image *b)
{
  double s = 0;
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < 2 * a->width; x++)
      s += fabs (((const float *) ((const char *) a->planes[0] + y * a->pitch[0]))[x]
          - ((const float *) ((const char *) b->planes[0] + y * b->pitch[0]))[x]);
  return s / (2.0 * a->width * a->height);
}

/* The whole of an open temp file as a string; closes it. */
static char *
slurp (int fd)
{
  off_t size = lseek (fd, 0, SEEK_END);
  char *text = malloc ((size_t) (size > 0 ? size : 0) + 1);
  ck_assert_ptr_nonnull (text);
  ssize_t got = size > 0 ? pread (fd, text, (size_t) size, 0) : 0;
  text[got > 0 ? got : 0] = 0;
  close (fd);
  return text;
}

/* Built with AddressSanitizer: its shadow memory needs terabytes of address space,
 * so an address-space limit would stop every child at its start. */
#if defined(__SANITIZE_ADDRESS__)
#define CV_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CV_TEST_ASAN 1
#endif
#endif

int
cv_test_run_limited (const char *const argv[], const char *env_path, char **out, char **err,
    const cv_test_limits *limits, cv_test_usage *usage)
{
  char out_name[] = "/tmp/cv-test-out-XXXXXX", err_name[] = "/tmp/cv-test-err-XXXXXX";
  int fo = mkstemp (out_name), fe = mkstemp (err_name);
  ck_assert_msg (fo >= 0 && fe >= 0, "mkstemp failed");
  unlink (out_name);
  unlink (err_name);
  fflush (stdout);
  fflush (stderr);
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  pid_t pid = fork ();
  ck_assert_msg (pid >= 0, "fork failed");
  if (pid == 0) {
    int null = open ("/dev/null", O_RDONLY);
    dup2 (null, 0);
    dup2 (fo, 1);
    dup2 (fe, 2);
    if (env_path)
      setenv ("PATH", env_path, 1);
    if (limits && limits->seconds > 0)
      alarm ((unsigned) limits->seconds);   /* kept across exec: SIGALRM ends it */
#ifndef CV_TEST_ASAN
    if (limits && limits->megabytes > 0) {
      struct rlimit rl = { (rlim_t) limits->megabytes << 20, (rlim_t) limits->megabytes << 20 };
      setrlimit (RLIMIT_AS, &rl);
    }
#endif
    execv (argv[0], (char *const *) argv);
    fprintf (stderr, "cannot run %s\n", argv[0]);
    _exit (127);
  }
  int status;
  struct rusage ru;
  memset (&ru, 0, sizeof ru);
  wait4 (pid, &status, 0, &ru);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  if (usage) {
    usage->seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
    usage->peak_rss_kb = ru.ru_maxrss;
    usage->signal = WIFSIGNALED (status) ? WTERMSIG (status) : 0;
  }
  if (out)
    *out = slurp (fo);
  else
    close (fo);
  if (err)
    *err = slurp (fe);
  else
    close (fe);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

int
cv_test_run (const char *const argv[], const char *env_path, char **out, char **err)
{
  return cv_test_run_limited (argv, env_path, out, err, NULL, NULL);
}

void
cv_test_assert_same_bits (const cc_image *a, const cc_image *b, const char *what)
{
  ck_assert_msg (a->format == b->format && a->width == b->width && a->height == b->height,
      "%s: images differ in size or format", what);
  int w = a->width, h = a->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  for (int p = 0; p < cc_format_planes (a->format); p++) {
    size_t row_bytes;
    int rows = p == 0 ? h : ch;
    switch (a->format) {
      case CC_FORMAT_GRAY8: row_bytes = w; break;
      case CC_FORMAT_RGBX8: case CC_FORMAT_BGRX8: case CC_FORMAT_F32: row_bytes = 4 * (size_t) w; break;
      case CC_FORMAT_F32C2: row_bytes = 8 * (size_t) w; break;
      case CC_FORMAT_NV12: row_bytes = p == 0 ? (size_t) w : 2 * (size_t) cw; break;
      default: row_bytes = p == 0 ? (size_t) w : (size_t) cw; break;   /* I420 */
    }
    for (int y = 0; y < rows; y++)
      ck_assert_msg (memcmp ((const char *) a->planes[p] + y * a->pitch[p],
              (const char *) b->planes[p] + y * b->pitch[p], row_bytes) == 0,
          "%s: plane %d differs in row %d", what, p, y);
  }
}

int
cv_test_run_suite (Suite *suite)
{
  SRunner *sr = srunner_create (suite);
  cv_test_skip_begin ();
  srunner_run_all (sr, CK_NORMAL);
  int run = srunner_ntests_run (sr), failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return cv_test_skip_finish (cv_test_skip_program_name (program_invocation_name), run, failed);
}

static char test_tmpdir[256];

const char *
cv_test_tmpdir (void)
{
  return test_tmpdir;
}

const char *
cv_test_temp_path (const char *name)
{
  static char path[4][512];
  static int next;
  char *p = path[next++ & 3];
  snprintf (p, sizeof path[0], "%s/%s", test_tmpdir, name);
  return p;
}

int
cv_test_main_with_tmpdir (Suite *suite, const char *prefix)
{
  const char *base = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  snprintf (test_tmpdir, sizeof test_tmpdir, "%s/%s-XXXXXX", base, prefix);
  if (!mkdtemp (test_tmpdir)) {
    perror ("mkdtemp");
    return EXIT_FAILURE;
  }
  int status = cv_test_run_suite (suite);
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", test_tmpdir);
  if (system (cmd) != 0)
    fprintf (stderr, "could not remove %s\n", test_tmpdir);
  return status;
}
