/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cudavisiongpl: the cudavision elements that link GPL libraries, in a plugin of their
 * own so that the LGPL plugin (plugin.c) stays LGPL. quadcut links libmaxflow
 * (GPL-3.0-or-later) through cc_quadcut: this plugin is distributed under the GPL
 * (docs/dependencies.md). */
#include "gstcvconfig.h"
#include <gst/gst.h>

GST_ELEMENT_REGISTER_DECLARE (quadcut);

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (quadcut, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudavisiongpl,
    "GPL elements of cudavision: foreground segmentation and background replacement by "
    "graph cuts on quadtree leaves (CUDA, with a CPU fallback; the minimum cut is "
    "libmaxflow, GPL-3.0-or-later)",
    plugin_init, CV_VERSION, "GPL", "cudavision", CV_PACKAGE_ORIGIN)
