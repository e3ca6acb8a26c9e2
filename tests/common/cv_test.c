#include "cv_test.h"
#include "cv_imageio.h"

#include <string.h>
#include <sys/stat.h>

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

int
cv_test_skip_without_gpu (const char *name)
{
  if (cc_cuda_device_count () > 0)
    return 0;
  printf ("SKIP %s: no CUDA device (built with CUDA: %s)\n", name,
      cc_built_with_cuda () ? "yes" : "no");
  return 1;
}

const char *
cv_test_shared_media (const char *name)
{
  static char path[4096];
  const char *env = getenv ("CV_SHARED_MEDIA");
  if (env)
    snprintf (path, sizeof path, "%s", env);
  else
    snprintf (path, sizeof path, "%s/../shared/media", CV_SOURCE_ROOT);
  struct stat st;
  if (stat (path, &st) != 0 || !S_ISDIR (st.st_mode)) {
    printf ("SKIP %s: no shared media at %s\n", name, path);
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
  return cc_image_copy (ctx, host, out);
}

cc_status
cv_test_to_host (cc_context *ctx, const cc_image *img, cc_image *out)
{
  cc_status st = cv_image_new (img->width, img->height, img->format, out);
  if (st != CC_SUCCESS)
    return st;
  return cc_image_copy (ctx, img, out);
}
