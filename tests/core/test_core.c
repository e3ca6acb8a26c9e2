/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudacore basics: status names, errors, contexts, image views and copies. */
#include "cv_test.h"
#include "cv_imageio.h"
#include <cudacore/cc_flow_io.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

START_TEST (test_status_names)
{
  ck_assert_str_eq (cc_status_name (CC_SUCCESS), "CC_SUCCESS");
  ck_assert_str_eq (cc_status_name (CC_ERROR_NO_DEVICE), "CC_ERROR_NO_DEVICE");
  ck_assert_str_eq (cc_status_name ((cc_status) 999), "CC_ERROR_UNKNOWN");
  ck_assert_str_eq (cc_backend_name (CC_BACKEND_CUDA), "cuda");
}
END_TEST

START_TEST (test_context_cpu_and_errors)
{
  cc_context *ctx = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &ctx));
  ck_assert_int_eq (cc_context_backend (ctx), CC_BACKEND_CPU);
  ck_assert_ptr_null (cc_context_stream (ctx));
  CC_ASSERT_OK (cc_context_synchronize (ctx));
  cc_context_destroy (ctx);

  ck_assert_int_eq (cc_context_create (CC_BACKEND_CPU, -7, &ctx), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null (ctx);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "device_id -7"));
  ck_assert_int_eq (cc_context_create ((cc_backend) 42, -1, &ctx), CC_ERROR_INVALID_ARGUMENT);

  /* AUTO resolves to a concrete backend, CUDA exactly when a device exists */
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_AUTO, -1, &ctx));
  ck_assert_int_eq (cc_context_backend (ctx),
      cc_cuda_device_count () > 0 ? CC_BACKEND_CUDA : CC_BACKEND_CPU);
  cc_context_destroy (ctx);

  if (cc_cuda_device_count () == 0) {
    ck_assert_int_eq (cc_context_create (CC_BACKEND_CUDA, -1, &ctx), CC_ERROR_NO_DEVICE);
    ck_assert_ptr_null (ctx);
    ck_assert_msg (strlen (cc_last_error ()) > 10, "no-device error explains itself");
  }
}
END_TEST

/* cc_backend_resolve: the one resolution of AUTO; CPU and CUDA stay. */
START_TEST (test_backend_resolve)
{
  ck_assert_int_eq (cc_backend_resolve (CC_BACKEND_AUTO),
      cc_cuda_device_count () > 0 ? CC_BACKEND_CUDA : CC_BACKEND_CPU);
  ck_assert_int_eq (cc_backend_resolve (CC_BACKEND_CPU), CC_BACKEND_CPU);
  ck_assert_int_eq (cc_backend_resolve (CC_BACKEND_CUDA), CC_BACKEND_CUDA);
}
END_TEST

/* Fences: nothing to wait for on the CPU (NULL, success); on CUDA, a second
 * context's stream ordered after the first's work by a fence sees that work (a 64 MB
 * fill, then a device-to-device copy on the other stream, read back). */
START_TEST (test_fence)
{
  cc_context *cpu = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  cc_fence *f = (cc_fence *) 0x1;
  CC_ASSERT_OK (cc_fence_record (cpu, NULL, &f));
  ck_assert_ptr_null (f);
  CC_ASSERT_OK (cc_fence_wait (cpu, NULL, NULL));
  cc_fence_destroy (NULL);
  ck_assert_int_eq (cc_fence_record (cpu, NULL, NULL), CC_ERROR_INVALID_ARGUMENT);
  cc_context_destroy (cpu);
  const char *no_gpu = cv_test_gpu_missing ();
  if (no_gpu) {
    CV_SKIP_PART ("fence on CUDA", no_gpu);
    return;
  }
  cc_context *a = NULL, *b = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, 0, &a));
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, 0, &b));
  const int w = 8192, h = 8192;
  cc_image src, dst, host;
  CC_ASSERT_OK (cc_image_alloc (a, w, h, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE, &src));
  CC_ASSERT_OK (cc_image_alloc (a, w, h, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE, &dst));
  CC_ASSERT_OK (cc_image_alloc (a, w, h, CC_FORMAT_GRAY8, CC_LOCATION_HOST, &host));
  CC_ASSERT_OK (cc_image_fill (a, NULL, &dst, 0));
  CC_ASSERT_OK (cc_context_synchronize (a));
  for (int round = 1; round <= 3; round++) {
    CC_ASSERT_OK (cc_image_fill (a, NULL, &src, (uint8_t) (40 * round)));
    cc_fence *fence = NULL;
    CC_ASSERT_OK (cc_fence_record (a, NULL, &fence));
    ck_assert_ptr_nonnull (fence);
    CC_ASSERT_OK (cc_fence_wait (b, NULL, fence));
    cc_fence_destroy (fence);   /* allowed with the wait pending */
    CC_ASSERT_OK (cc_image_copy (b, NULL, &src, &dst));
    CC_ASSERT_OK (cc_image_copy (b, NULL, &dst, &host));
    const uint8_t *p = host.planes[0];
    for (int y = 0; y < h; y += 511)
      for (int x = 0; x < w; x += 97)
        ck_assert_uint_eq (p[(size_t) y * host.pitch[0] + x], 40 * round);
  }
  cc_image_free (a, &src);
  cc_image_free (a, &dst);
  cc_image_free (a, &host);
  cc_context_destroy (b);
  cc_context_destroy (a);
}
END_TEST

/* Adopting a stream: a CPU context refuses one (and accepts NULL); a CUDA context
 * that adopts another's stream reports it, runs its NULL-stream calls there (a fill
 * then a copy on the other context's stream see each other's order with no fence)
 * and goes back to its own stream with NULL. */
START_TEST (test_adopt_stream)
{
  cc_context *cpu = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &cpu));
  CC_ASSERT_OK (cc_context_adopt_stream (cpu, NULL));
  ck_assert_int_eq (cc_context_adopt_stream (cpu, (cc_stream) 0x1), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null (cc_context_stream (cpu));
  ck_assert_int_eq (cc_context_adopt_stream (NULL, NULL), CC_ERROR_INVALID_ARGUMENT);
  cc_context_destroy (cpu);
  const char *no_gpu = cv_test_gpu_missing ();
  if (no_gpu) {
    CV_SKIP_PART ("adopted stream on CUDA", no_gpu);
    return;
  }
  cc_context *a = NULL, *b = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, 0, &a));
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CUDA, 0, &b));
  cc_stream own = cc_context_stream (b);
  ck_assert_ptr_nonnull (own);
  ck_assert_ptr_ne (own, cc_context_stream (a));
  CC_ASSERT_OK (cc_context_adopt_stream (b, cc_context_stream (a)));
  ck_assert_ptr_eq (cc_context_stream (b), cc_context_stream (a));
  const int w = 8192, h = 4096;
  cc_image src, dst, host;
  CC_ASSERT_OK (cc_image_alloc (a, w, h, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE, &src));
  CC_ASSERT_OK (cc_image_alloc (a, w, h, CC_FORMAT_GRAY8, CC_LOCATION_DEVICE, &dst));
  CC_ASSERT_OK (cc_image_alloc (a, w, h, CC_FORMAT_GRAY8, CC_LOCATION_HOST, &host));
  for (int round = 1; round <= 3; round++) {
    CC_ASSERT_OK (cc_image_fill (b, NULL, &src, (uint8_t) (50 * round)));
    CC_ASSERT_OK (cc_image_copy (a, NULL, &src, &dst));
    CC_ASSERT_OK (cc_context_synchronize (b));   /* waits for a's stream */
    CC_ASSERT_OK (cc_image_copy (b, own, &dst, &host));
    const uint8_t *p = host.planes[0];
    for (int y = 0; y < h; y += 509)
      for (int x = 0; x < w; x += 101)
        ck_assert_uint_eq (p[(size_t) y * host.pitch[0] + x], 50 * round);
  }
  CC_ASSERT_OK (cc_context_adopt_stream (b, NULL));
  ck_assert_ptr_eq (cc_context_stream (b), own);
  cc_image_free (a, &src);
  cc_image_free (a, &dst);
  cc_image_free (a, &host);
  cc_context_destroy (b);
  cc_context_destroy (a);
}
END_TEST

/* The CPU thread setting: 0 (all cores) by default, any count up to the maximum
 * (more than the cores too), per context; negative or too large is refused with a
 * message and leaves the setting as it was. */
START_TEST (test_context_threads)
{
  cc_context *a, *b;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &a));
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &b));
  ck_assert_int_eq (cc_context_threads (a), 0);
  CC_ASSERT_OK (cc_context_set_threads (a, 3));
  CC_ASSERT_OK (cc_context_set_threads (b, 64));
  ck_assert_int_eq (cc_context_threads (a), 3);
  ck_assert_int_eq (cc_context_threads (b), 64);
  /* what the CPU loops run on: the setting with OpenMP, else one thread */
  ck_assert_int_eq (cc_context_cpu_threads (a), cc_built_with_openmp () ? 3 : 1);
  ck_assert_int_eq (cc_context_cpu_threads (b), cc_built_with_openmp () ? 64 : 1);
  CC_ASSERT_OK (cc_context_set_threads (b, CC_CONTEXT_THREADS_MAX));
  ck_assert_int_eq (cc_context_threads (b), CC_CONTEXT_THREADS_MAX);
  CC_ASSERT_OK (cc_context_set_threads (b, 0));
  ck_assert_int_eq (cc_context_threads (b), 0);
  ck_assert_int_ge (cc_context_cpu_threads (b), 1);
  ck_assert_int_eq (cc_context_cpu_threads (b), cc_context_cpu_threads (NULL));

  ck_assert_int_eq (cc_context_set_threads (a, -1), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "threads -1"));
  ck_assert_int_eq (cc_context_set_threads (a, CC_CONTEXT_THREADS_MAX + 1),
      CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "out of range"));
  ck_assert_int_eq (cc_context_threads (a), 3);
  ck_assert_int_eq (cc_context_set_threads (NULL, 2), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "ctx is NULL"));
  ck_assert_int_eq (cc_context_threads (NULL), 0);
  cc_context_destroy (a);
  cc_context_destroy (b);
}
END_TEST

START_TEST (test_image_checks)
{
  uint8_t buf[64];
  cc_image img = cc_image_view (buf, 8, 8, 8, CC_FORMAT_GRAY8, CC_LOCATION_HOST);
  CC_ASSERT_OK (cc_image_check (&img, "test"));
  img.pitch[0] = 4;
  ck_assert_int_eq (cc_image_check (&img, "test"), CC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "pitch 4"));
  img = cc_image_view (buf, 8, 0, 8, CC_FORMAT_GRAY8, CC_LOCATION_HOST);
  ck_assert_int_eq (cc_image_check (&img, "test"), CC_ERROR_INVALID_ARGUMENT);
  img = cc_image_view (buf, 8, 8, 8, CC_FORMAT_NV12, CC_LOCATION_HOST);
  ck_assert_int_eq (cc_image_check (&img, "test"), CC_ERROR_INVALID_ARGUMENT);  /* no UV plane */
  ck_assert_int_eq (cc_format_planes (CC_FORMAT_I420), 3);
}
END_TEST

/* Round trip host -> backend -> host for every format, odd sizes included. */
START_TEST (test_image_copy_roundtrip)
{
  const cc_format formats[] = { CC_FORMAT_GRAY8, CC_FORMAT_RGBX8, CC_FORMAT_NV12,
    CC_FORMAT_I420, CC_FORMAT_F32, CC_FORMAT_F32C2 };
  const int sizes[][2] = { { 1, 1 }, { 641, 479 }, { 64, 3 } };
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_context *ctx;
    CC_ASSERT_OK (cc_context_create (cv_test_backend (b), -1, &ctx));
    cc_location loc = b ? CC_LOCATION_DEVICE : CC_LOCATION_HOST;
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
      for (size_t s = 0; s < 3; s++) {
        cc_image src, mid, back;
        int w = sizes[s][0], h = sizes[s][1];
        CC_ASSERT_OK (cc_image_alloc (ctx, w, h, formats[f], CC_LOCATION_HOST, &src));
        CC_ASSERT_OK (cc_image_alloc (ctx, w, h, formats[f], loc, &mid));
        CC_ASSERT_OK (cc_image_alloc (ctx, w, h, formats[f], CC_LOCATION_HOST, &back));
        for (int p = 0; p < cc_format_planes (formats[f]); p++)
          for (size_t i = 0; i < src.pitch[p] * (p ? (h + 1) / 2 : h); i++)
            ((uint8_t *) src.planes[p])[i] = (uint8_t) (i * 31 + p * 7 + 1);
        CC_ASSERT_OK (cc_image_fill (ctx, NULL, &back, 0xEE));
        CC_ASSERT_OK (cc_image_copy (ctx, NULL, &src, &mid));
        CC_ASSERT_OK (cc_image_copy (ctx, NULL, &mid, &back));
        for (int p = 0; p < cc_format_planes (formats[f]); p++) {
          int pw = p ? (w + 1) / 2 : w, ph = p ? (h + 1) / 2 : h;
          int bpp = formats[f] == CC_FORMAT_NV12 && p ? 2 :
              formats[f] == CC_FORMAT_RGBX8 || formats[f] == CC_FORMAT_F32 ? 4 :
              formats[f] == CC_FORMAT_F32C2 ? 8 : 1;
          for (int y = 0; y < ph; y++)
            ck_assert_msg (memcmp ((uint8_t *) src.planes[p] + y * src.pitch[p],
                    (uint8_t *) back.planes[p] + y * back.pitch[p], (size_t) pw * bpp) == 0,
                "%s %dx%d plane %d row %d differs after round trip on %s",
                cc_format_name (formats[f]), w, h, p, y, cc_backend_name (cv_test_backend (b)));
        }
        cc_image_free (ctx, &src);
        cc_image_free (ctx, &mid);
        cc_image_free (ctx, &back);
      }
    cc_context_destroy (ctx);
  }
}
END_TEST

/* Nearest resampling: exact source values on every backend. */
START_TEST (test_resize_nearest)
{
  for (int b = 0; b < cv_test_backend_count (); b++) {
    cc_context *ctx;
    CC_ASSERT_OK (cc_context_create (cv_test_backend (b), -1, &ctx));
    cc_image src, dst, back;
    CC_ASSERT_OK (cc_image_alloc (ctx, 5, 3, CC_FORMAT_F32C2, CC_LOCATION_HOST, &src));
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 10; x++)
        ((float *) ((char *) src.planes[0] + y * src.pitch[0]))[x] = 100.0f * y + x;
    cc_image dsrc, ddst;
    CC_ASSERT_OK (cv_test_to_backend (ctx, &src, &dsrc));
    CC_ASSERT_OK (cc_image_alloc (ctx, 17, 7, CC_FORMAT_F32C2,
            b ? CC_LOCATION_DEVICE : CC_LOCATION_HOST, &ddst));
    CC_ASSERT_OK (cc_image_resize_nearest (ctx, NULL, &dsrc, &ddst));
    CC_ASSERT_OK (cv_test_to_host (ctx, &ddst, &back));
    for (int y = 0; y < 7; y++)
      for (int x = 0; x < 17; x++) {
        const float *v = (const float *) ((char *) back.planes[0] + y * back.pitch[0]) + 2 * x;
        int sx = x * 5 / 17, sy = y * 3 / 7;
        ck_assert_float_eq (v[0], 100.0f * sy + 2 * sx);
        ck_assert_float_eq (v[1], 100.0f * sy + 2 * sx + 1);
      }
    ck_assert_int_eq (cc_image_resize_nearest (ctx, NULL, &dsrc, &src), b ? CC_ERROR_INVALID_ARGUMENT
        : CC_SUCCESS);
    cc_image_free (ctx, &src); cc_image_free (ctx, &dsrc); cc_image_free (ctx, &ddst);
    cc_image_free (NULL, &back);
    (void) dst;
    cc_context_destroy (ctx);
  }
}
END_TEST

START_TEST (test_png_corrupt_file)
{
  char path[] = "/tmp/cv-corrupt-XXXXXX";
  int fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (write (fd, "\x89PNG\r\n\x1a\nnot really", 18), 18);
  close (fd);
  cc_image img;
  cc_status st = cv_png_load (path, CC_FORMAT_GRAY8, &img);
  ck_assert_int_ne (st, CC_SUCCESS);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), path));
  ck_assert_int_eq (cv_png_load ("/nonexistent/x.png", CC_FORMAT_GRAY8, &img), CC_ERROR_IO);
  unlink (path);
}
END_TEST

/* Image headers that ask for more than CV_IMAGE_MAX_PIXELS are refused before any
 * allocation: fuzz-jpeg's input (tests/fuzz/known/jpeg-10gb-header.jpg, 261 bytes,
 * 62984 x 40711) made cv_jpeg_load calloc 10 GB; and a PNG header of 20000 x 20000. */
static void
write_bytes (const char *path, const unsigned char *data, size_t n)
{
  FILE *f = fopen (path, "wb");
  ck_assert_ptr_nonnull (f);
  ck_assert_uint_eq (fwrite (data, 1, n, f), n);
  fclose (f);
}

/* PNG's chunk CRC (CRC-32, ISO 3309) */
static unsigned
png_crc (const unsigned char *p, size_t n)
{
  unsigned c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return c ^ 0xffffffffu;
}

/* A file's first `keep` bytes (of the seed files in tests/fuzz/corpus) in a temp file. */
static void
truncated_copy (const char *seed, long keep, char *path, size_t path_size)
{
  const char *root = getenv ("CV_SOURCE_ROOT");
  ck_assert_msg (root != NULL, "CV_SOURCE_ROOT is not set");
  char src[1024];
  snprintf (src, sizeof src, "%s/tests/fuzz/corpus/%s", root, seed);
  FILE *f = fopen (src, "rb");
  ck_assert_msg (f != NULL, "cannot open %s", src);
  unsigned char buf[4096];
  size_t n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  snprintf (path, path_size, "/tmp/cv-trunc-XXXXXX");
  int fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  close (fd);
  write_bytes (path, buf, keep < 0 ? n + keep : (size_t) keep < n ? (size_t) keep : n);
}

/* A truncated JPEG or PNG is an error, never a half-decoded image: libjpeg filled the
 * missing rows with grey, printed "Premature end of JPEG file" and the read succeeded
 * (quadcut's plate-location, quadcut-eval --align). */
START_TEST (test_image_truncated)
{
  char path[64];
  cc_image img;
  truncated_copy ("jpeg/rgb-8x8.jpg", 1 << 20, path, sizeof path);
  CC_ASSERT_OK (cv_jpeg_load (path, &img));
  ck_assert_int_eq (img.width, 8);
  cv_image_free (&img);
  unlink (path);
  const long cuts[] = { 400, -2 };   /* in the scan; only the end marker missing */
  for (int i = 0; i < 2; i++) {
    truncated_copy ("jpeg/rgb-8x8.jpg", cuts[i], path, sizeof path);
    ck_assert_int_eq (cv_jpeg_load (path, &img), CC_ERROR_CORRUPT_DATA);
    ck_assert_msg (strstr (cc_last_error (), "Premature end of JPEG file"), "cut %ld: %s",
        cuts[i], cc_last_error ());
    ck_assert_int_eq (cv_image_load (path, &img), CC_ERROR_CORRUPT_DATA);
    unlink (path);
  }
  truncated_copy ("png/rgba-2x2.png", -20, path, sizeof path);
  ck_assert_int_eq (cv_image_load (path, &img), CC_ERROR_CORRUPT_DATA);
  unlink (path);
  /* not a regular file */
  ck_assert_int_eq (cv_image_load ("/dev/zero", &img), CC_ERROR_IO);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "not a regular file"));
}
END_TEST

START_TEST (test_image_size_limit)
{
  static const unsigned char jpeg[] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01,
    0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43,
    0x00, 0x05, 0x03, 0x04, 0x04, 0x04, 0x03, 0x05, 0x04, 0x04, 0x04, 0x05,
    0x05, 0x05, 0x06, 0x07, 0x0c, 0x08, 0x07, 0x07, 0x07, 0x07, 0x0f, 0x0b,
    0x0b, 0x09, 0x0c, 0x11, 0x0f, 0x12, 0x12, 0x11, 0xa0, 0x11, 0x11, 0x13,
    0x16, 0x1c, 0x17, 0x13, 0x14, 0x1a, 0x15, 0x11, 0x11, 0x18, 0x21, 0x18,
    0x1a, 0x1d, 0x1d, 0x1f, 0x1f, 0x1f, 0x13, 0x17, 0x22, 0x24, 0x22, 0x1e,
    0x24, 0x1c, 0x1e, 0x1f, 0x1e, 0xff, 0xdb, 0x00, 0x43, 0x01, 0x05, 0x05,
    0x05, 0x07, 0x06, 0x07, 0x0e, 0x08, 0x08, 0x0e, 0x1e, 0x14, 0x11, 0x14,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e, 0x1e,
    0x1e, 0x1e, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x9f, 0x07, 0xf6, 0x08, 0x03,
    0x01, 0x11, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xc4, 0x00,
    0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
    0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x69, 0x77, 0x78, 0x79, 0x7a, 0x83,
    0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x7a, 0x82, 0x83, 0x84, 0x85,
    0x86, 0x11, 0x13, 0x16, 0x1c, 0x17, 0x13, 0x14, 0x1a, 0x96, 0x97, 0x98,
    0x99, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xda, 0x00,
    0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3f, 0x00,
  };   /* the fuzzer's file with its start-of-scan header completed (0x3f, 0x00): cut
        * inside it, the file is refused earlier, as truncated */
  char path[] = "/tmp/cv-big-XXXXXX";
  int fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  close (fd);
  write_bytes (path, jpeg, sizeof jpeg);
  cc_image img;
  ck_assert_int_eq (cv_jpeg_load (path, &img), CC_ERROR_CORRUPT_DATA);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "62984x40711"));
  ck_assert_int_eq (cv_image_load (path, &img), CC_ERROR_CORRUPT_DATA);
  /* a PNG whose IHDR says 20000 x 20000 (400 M pixels), then an empty IDAT (libpng
   * reads the header up to the first IDAT); the CRCs right */
  unsigned char png[45] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
    'I', 'H', 'D', 'R', 0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20, 8, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 'I', 'D', 'A', 'T' };
  unsigned crc = png_crc (png + 12, 17), idat = png_crc (png + 37, 4);
  for (int i = 0; i < 4; i++) {
    png[29 + i] = (unsigned char) (crc >> (24 - 8 * i));
    png[41 + i] = (unsigned char) (idat >> (24 - 8 * i));
  }
  write_bytes (path, png, sizeof png);
  ck_assert_int_eq (cv_png_load (path, CC_FORMAT_GRAY8, &img), CC_ERROR_CORRUPT_DATA);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "20000x20000"));
  unlink (path);
}
END_TEST

/* .flo files: round trip, and clear errors for truncated or foreign files. */
START_TEST (test_flo_files)
{
  char path[] = "/tmp/cv-flo-XXXXXX";
  int fd = mkstemp (path);
  ck_assert_int_ge (fd, 0);
  close (fd);
  float data[3 * 2 * 2];
  for (int i = 0; i < 12; i++)
    data[i] = i * 0.5f - 2.0f;
  cc_image f = cc_image_view (data, 3 * 8, 3, 2, CC_FORMAT_F32C2, CC_LOCATION_HOST), back;
  CC_ASSERT_OK (cc_flo_write (path, &f));
  CC_ASSERT_OK (cc_flo_read (path, &back));
  ck_assert_int_eq (back.width, 3);
  ck_assert_int_eq (back.height, 2);
  ck_assert_int_eq (memcmp (back.planes[0], data, sizeof data), 0);
  cc_flo_free (&back);
  /* truncated data */
  ck_assert_int_eq (truncate (path, 12 + 20), 0);
  ck_assert_int_eq (cc_flo_read (path, &back), CC_ERROR_CORRUPT_DATA);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "truncated"));
  /* a header asking for 65536x12600 (6.6 GB) over 8 bytes of data: refused before
   * the allocation (found by tests/fuzz/fuzz-flo: it allocated first) */
  FILE *fp = fopen (path, "wb");
  const float magic = 202021.25f;
  const int32_t huge[2] = { 65536, 12600 };
  fwrite (&magic, 4, 1, fp);
  fwrite (huge, 4, 2, fp);
  fwrite (data, 4, 2, fp);
  fclose (fp);
  ck_assert_int_eq (cc_flo_read (path, &back), CC_ERROR_CORRUPT_DATA);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "truncated data (65536x12600"));
  /* not a .flo at all */
  fp = fopen (path, "wb");
  fputs ("P5 3 2 255 garbage garbage", fp);
  fclose (fp);
  ck_assert_int_eq (cc_flo_read (path, &back), CC_ERROR_CORRUPT_DATA);
  ck_assert_ptr_nonnull (strstr (cc_last_error (), "not a .flo"));
  unlink (path);
}
END_TEST

static Suite *
core_suite (void)
{
  Suite *s = suite_create ("core");
  TCase *tc = tcase_create ("basics");
  tcase_add_test (tc, test_status_names);
  tcase_add_test (tc, test_context_cpu_and_errors);
  tcase_add_test (tc, test_context_threads);
  tcase_add_test (tc, test_backend_resolve);
  tcase_add_test (tc, test_fence);
  tcase_add_test (tc, test_adopt_stream);
  tcase_add_test (tc, test_image_checks);
  tcase_add_test (tc, test_image_copy_roundtrip);
  tcase_add_test (tc, test_resize_nearest);
  tcase_add_test (tc, test_png_corrupt_file);
  tcase_add_test (tc, test_image_size_limit);
  tcase_add_test (tc, test_image_truncated);
  tcase_add_test (tc, test_flo_files);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return cv_test_run_suite (core_suite ());
}
