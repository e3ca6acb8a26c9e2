/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cudavision: GPU video analysis elements. */
#include "gstcvconfig.h"
#include <gst/gst.h>

GST_ELEMENT_REGISTER_DECLARE (cudaflowlk);
GST_ELEMENT_REGISTER_DECLARE (cudaflowepic);
GST_ELEMENT_REGISTER_DECLARE (cudablockmatch);
GST_ELEMENT_REGISTER_DECLARE (moctracker);
GST_ELEMENT_REGISTER_DECLARE (cvdmosaic);

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;
  ret |= GST_ELEMENT_REGISTER (cudaflowlk, plugin);
  ret |= GST_ELEMENT_REGISTER (cudaflowepic, plugin);
  ret |= GST_ELEMENT_REGISTER (cudablockmatch, plugin);
  ret |= GST_ELEMENT_REGISTER (moctracker, plugin);
  ret |= GST_ELEMENT_REGISTER (cvdmosaic, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudavision,
    "GPU video analysis: dense optical flow by Lucas-Kanade, block matching and EpicFlow "
    "(large displacements), with "
    "variational refinement; multi-object colour tracking; a centroidal Voronoi mosaic "
    "and stippling effect (CUDA, with a CPU fallback)",
    plugin_init, CV_VERSION, "LGPL", "cudavision", CV_PACKAGE_ORIGIN)
