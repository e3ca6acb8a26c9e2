/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvcuda.h"
#include "gstcvcudaapi.h"

#if CV_HAVE_GST_CUDA

gboolean
gst_cv_cuda_available (void)
{
  static gsize once = 0;
  static gboolean available = FALSE;
  if (g_once_init_enter (&once)) {
    available = gst_cuda_load_library ();
    if (available)
      gst_cuda_memory_init_once ();
    g_once_init_leave (&once, 1);
  }
  return available;
}

gpointer
gst_cv_cuda_context_ref (gpointer c)
{
  return c ? gst_object_ref (c) : NULL;
}

void
gst_cv_cuda_context_unref (gpointer c)
{
  if (c)
    gst_object_unref (c);
}

gboolean
gst_cv_cuda_context_push (gpointer c)
{
  return c && gst_cuda_context_push (GST_CUDA_CONTEXT (c));
}

void
gst_cv_cuda_context_pop (void)
{
  gst_cuda_context_pop (NULL);
}
#else
gboolean gst_cv_cuda_available (void) { return FALSE; }
gpointer gst_cv_cuda_context_ref (gpointer c) { return c; }
void gst_cv_cuda_context_unref (gpointer c) { }
gboolean gst_cv_cuda_context_push (gpointer c) { return FALSE; }
void gst_cv_cuda_context_pop (void) { }
#endif
