/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the harnesses that drive an element: GStreamer set up for an ASan build. */
#ifndef FUZZ_GST_H
#define FUZZ_GST_H
#include <gst/gst.h>
#include <unistd.h>

/* gst_init with our plugin folder only, no registry fork (the scanner would load the
 * plugin unsanitized), a per-process registry file, `quiet` as the default log handler
 * and no debug output. */
static inline void
fuzz_gst_init (const char *plugin_dir, GLogFunc quiet)
{
  g_setenv ("GST_PLUGIN_PATH_1_0", plugin_dir, TRUE);
  g_setenv ("GST_REGISTRY_FORK", "no", TRUE);
  gchar *reg = g_strdup_printf ("%s/cv-fuzz-registry-%d.bin", g_get_tmp_dir (), (int) getpid ());
  g_setenv ("GST_REGISTRY_1_0", reg, TRUE);
  g_free (reg);
  gst_init (NULL, NULL);
  g_log_set_default_handler (quiet, NULL);
  gst_debug_set_default_threshold (GST_LEVEL_NONE);
}
#endif
