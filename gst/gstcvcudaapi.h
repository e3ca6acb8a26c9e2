/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal: libgstcuda's headers for the gst/ sources that use its types, and
 * CV_HAVE_GST_CUDA_STREAM (1 where libgstcuda has GstCudaStream, GStreamer 1.24+).
 * Include it from .c files only; nothing when the build has no CUDA. */
#ifndef GST_CV_CUDA_API_H
#define GST_CV_CUDA_API_H
#include <gst/gst.h>
#include "gstcvconfig.h"

#if CV_HAVE_GST_CUDA
#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#define CV_HAVE_GST_CUDA_STREAM 1
#endif
#endif
#ifndef CV_HAVE_GST_CUDA_STREAM
#define CV_HAVE_GST_CUDA_STREAM 0
#endif
#endif
