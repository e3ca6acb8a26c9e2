/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal: the plugin's thin layer over libgstcuda (GstCudaContext), compiled to
 * no-ops when the build has no CUDA or no gstreamer-cuda-1.0. */
#ifndef GST_CV_CUDA_H
#define GST_CV_CUDA_H
#include <gst/gst.h>

G_BEGIN_DECLS
/* TRUE once libgstcuda found a driver (never on machines without one). */
gboolean gst_cv_cuda_available (void);
gpointer gst_cv_cuda_context_ref (gpointer cuda_context);
void gst_cv_cuda_context_unref (gpointer cuda_context);
/* Pushes a GstCudaContext; FALSE (nothing pushed) for NULL or failure. */
gboolean gst_cv_cuda_context_push (gpointer cuda_context);
void gst_cv_cuda_context_pop (void);
G_END_DECLS
#endif
