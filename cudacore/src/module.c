/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The life cycle of the frame-sized modules (cc_module, cc_internal.h): create,
 * destroy, set_params and the frame check they share. */
#include "cc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *
module_params (cc_module *m)
{
  return (char *) m + m->cls->params_offset;
}

cc_status
cc_module_create (const cc_module_class *cls, cc_context *ctx, int width, int height,
    const void *params, cc_module **out)
{
  char fn[64];
  snprintf (fn, sizeof fn, "%s_create", cls->name);
  CC_CHECK_CREATE (fn, ctx, width, height, out);
  if (params)
    CC_TRY (cls->params_check (params));
  cc_module *m = calloc (1, cls->size);
  if (!m)
    return cc_set_error (CC_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  m->cls = cls;
  m->ctx = ctx;
  m->width = width;
  m->height = height;
  if (params)
    memcpy (module_params (m), params, cls->params_size);
  else
    cls->params_default (module_params (m));
  cc_status st = cls->alloc (m);
  if (st != CC_SUCCESS) {
    cls->release (m);
    free (m);
    return st;
  }
  *out = m;
  return CC_SUCCESS;
}

void
cc_module_destroy (cc_module *m)
{
  if (!m)
    return;
  m->cls->release (m);
  free (m);
}

cc_status
cc_module_set_params (cc_module *m, const void *params)
{
  const cc_module_class *cls = m->cls;
  CC_TRY (cls->params_check (params));
  bool realloc_needed = false;
  if (cls->params_changing)
    CC_TRY (cls->params_changing (m, params, &realloc_needed));
  memcpy (module_params (m), params, cls->params_size);
  if (realloc_needed) {
    cls->release (m);
    return cls->alloc (m);
  }
  return CC_SUCCESS;
}

cc_status
cc_module_check_frame (const cc_module *m, const cc_image *img, const char *what,
    const char *module, bool copy_host)
{
  CC_CHECK_ARG (img != NULL, "%s is NULL", what);
  CC_TRY (cc_image_check (img, what));
  CC_CHECK_ARG (img->format == CC_FORMAT_GRAY8 || img->format == CC_FORMAT_RGBX8
      || img->format == CC_FORMAT_BGRX8 || img->format == CC_FORMAT_NV12
      || img->format == CC_FORMAT_I420, "%s: format %s is not a video frame format",
      what, cc_format_name (img->format));
  CC_CHECK_ARG (img->width == m->width && img->height == m->height,
      "%s: frame is %dx%d but %s was created for %dx%d", what, img->width,
      img->height, module, m->width, m->height);
  if (!copy_host)
    return cc_image_check_location (m->ctx, img, what);
  CC_CHECK_ARG (img->location == CC_LOCATION_HOST || m->ctx->backend == CC_BACKEND_CUDA,
      "%s: device memory needs the CUDA backend", what);
  return CC_SUCCESS;
}
