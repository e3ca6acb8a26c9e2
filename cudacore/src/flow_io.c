/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Middlebury .flo files and flow error metrics (host only). */
#include "cc_internal.h"
#include "cudacore/cc_flow_io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLO_MAGIC 202021.25f
#define FLO_UNKNOWN 1e9f

cc_status
cc_flo_read (const char *path, cc_image *out)
{
  CC_CHECK_ARG (path && out, "cc_flo_read: path or out is NULL");
  memset (out, 0, sizeof *out);
  FILE *f = fopen (path, "rb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "cc_flo_read: cannot open %s: %s", path, strerror (errno));
  float magic = 0;
  int32_t wh[2] = { 0, 0 };
  if (fread (&magic, 4, 1, f) != 1 || fread (wh, 4, 2, f) != 2) {
    fclose (f);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "cc_flo_read: %s: truncated header", path);
  }
  if (magic != FLO_MAGIC || wh[0] < 1 || wh[1] < 1 || wh[0] > 65536 || wh[1] > 65536) {
    fclose (f);
    return cc_set_error (CC_ERROR_CORRUPT_DATA,
        "cc_flo_read: %s: not a .flo file (magic %g, size %dx%d)", path, magic, wh[0], wh[1]);
  }
  size_t n = (size_t) wh[0] * wh[1] * 2;
  /* the header's size must match the file before anything that large is allocated
   * (a corrupt header asked for gigabytes) */
  long here = ftell (f);
  if (here < 0 || fseek (f, 0, SEEK_END) != 0 || ftell (f) - here < (long) (n * sizeof (float))
      || fseek (f, here, SEEK_SET) != 0) {
    fclose (f);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "cc_flo_read: %s: truncated data (%dx%d "
        "in the header)", path, wh[0], wh[1]);
  }
  float *data = malloc (n * sizeof (float));
  if (!data) {
    fclose (f);
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "cc_flo_read: %s: %zu floats", path, n);
  }
  if (fread (data, sizeof (float), n, f) != n) {
    free (data);
    fclose (f);
    return cc_set_error (CC_ERROR_CORRUPT_DATA, "cc_flo_read: %s: truncated data", path);
  }
  fclose (f);
  *out = cc_image_view (data, (size_t) wh[0] * 8, wh[0], wh[1], CC_FORMAT_F32C2,
      CC_LOCATION_HOST);
  return CC_SUCCESS;
}

void
cc_flo_free (cc_image *flow)
{
  if (flow) {
    free (flow->planes[0]);
    flow->planes[0] = NULL;
  }
}

cc_status
cc_flo_write (const char *path, const cc_image *flow)
{
  CC_TRY (cc_image_check (flow, "cc_flo_write"));
  CC_CHECK_ARG (flow->format == CC_FORMAT_F32C2 && flow->location == CC_LOCATION_HOST,
      "cc_flo_write: needs a host F32C2 image");
  FILE *f = fopen (path, "wb");
  if (!f)
    return cc_set_error (CC_ERROR_IO, "cc_flo_write: cannot create %s: %s", path, strerror (errno));
  float magic = FLO_MAGIC;
  int32_t wh[2] = { flow->width, flow->height };
  bool ok = fwrite (&magic, 4, 1, f) == 1 && fwrite (wh, 4, 2, f) == 2;
  for (int y = 0; ok && y < flow->height; y++)
    ok = fwrite ((const char *) flow->planes[0] + (size_t) y * flow->pitch[0], 8,
        flow->width, f) == (size_t) flow->width;
  if (fclose (f) != 0 || !ok)
    return cc_set_error (CC_ERROR_IO, "cc_flo_write: writing %s failed", path);
  return CC_SUCCESS;
}

cc_status
cc_flow_compare (const cc_image *est, const cc_image *gt, int border, cc_flow_metrics *out)
{
  CC_CHECK_ARG (out != NULL, "cc_flow_compare: out is NULL");
  memset (out, 0, sizeof *out);
  CC_TRY (cc_image_check (est, "cc_flow_compare: estimate"));
  CC_TRY (cc_image_check (gt, "cc_flow_compare: truth"));
  CC_CHECK_ARG (est->format == CC_FORMAT_F32C2 && gt->format == CC_FORMAT_F32C2
      && est->location == CC_LOCATION_HOST && gt->location == CC_LOCATION_HOST,
      "cc_flow_compare: needs host F32C2 images");
  CC_TRY (cc_image_check_same_size (est, gt, "estimate", "truth"));
  CC_CHECK_ARG (border >= 0, "cc_flow_compare: border %d < 0", border);
  double epe = 0, ae = 0;
  long n = 0, o1 = 0, o3 = 0, o5 = 0;
  for (int y = border; y < gt->height - border; y++) {
    const float *e = (const float *) ((const char *) est->planes[0] + (size_t) y * est->pitch[0]);
    const float *g = (const float *) ((const char *) gt->planes[0] + (size_t) y * gt->pitch[0]);
    for (int x = border; x < gt->width - border; x++) {
      float gu = g[2 * x], gv = g[2 * x + 1];
      if (!(fabsf (gu) <= FLO_UNKNOWN && fabsf (gv) <= FLO_UNKNOWN))
        continue;
      float eu = e[2 * x], ev = e[2 * x + 1];
      double d;
      double angle;
      if (isfinite (eu) && isfinite (ev)) {
        d = hypot (eu - gu, ev - gv);
        double num = 1.0 + (double) eu * gu + (double) ev * gv;
        double den = sqrt (1.0 + (double) eu * eu + (double) ev * ev)
            * sqrt (1.0 + (double) gu * gu + (double) gv * gv);
        double c = num / den;
        angle = acos (c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c)) * 180.0 / M_PI;
      } else {
        d = hypot (gu, gv) + 1e3;
        angle = 180.0;
      }
      epe += d;
      ae += angle;
      n++;
      o1 += d > 1.0;
      o3 += d > 3.0;
      o5 += d > 5.0;
    }
  }
  if (n == 0)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT,
        "cc_flow_compare: no pixel with known ground truth inside the border");
  out->epe = epe / n;
  out->angular_error = ae / n;
  out->over1 = (double) o1 / n;
  out->over3 = (double) o3 / n;
  out->over5 = (double) o5 / n;
  out->counted = n;
  return CC_SUCCESS;
}
