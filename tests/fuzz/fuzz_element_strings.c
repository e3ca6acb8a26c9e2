/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every string property of every element of the plugin (roi, objects, objects-file:
 * the file gets the input as its contents), set from the fuzzer's bytes, with a frame
 * through the element after it. The first byte picks the property; the text is the
 * rest. A refused value must leave a warning and the element working; nothing may
 * crash. The plugin is loaded from CV_FUZZ_PLUGIN_DIR (the build's gst/). */
#include "fuzz_common.h"
#include "fuzz_gst.h"
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  GstElement *pipeline, *src, *element;
  const gchar *property;
  gboolean is_file;
} Target;

static Target targets[32];
static int n_targets;

static void
quiet_log (const gchar * domain, GLogLevelFlags level, const gchar * msg, gpointer data)
{
  /* refusals are warnings by design: the fuzzer looks for crashes, not for these */
}

static void
add_element (const gchar * name, const gchar * caps)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"%s\" format=time block=true max-bytes=4096 ! %s name=e "
      "backend=cpu ! fakesink sync=false", caps, name);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (!pipe)
    abort ();
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  guint n;
  GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
  for (guint i = 0; i < n && n_targets < (int) G_N_ELEMENTS (targets); i++)
    if (G_IS_PARAM_SPEC_STRING (props[i]) && (props[i]->flags & G_PARAM_WRITABLE)
        && props[i]->owner_type != GST_TYPE_OBJECT) {
      Target *t = &targets[n_targets++];
      t->pipeline = pipe;
      t->src = src;
      t->element = e;
      t->property = props[i]->name;
      t->is_file = g_str_has_suffix (props[i]->name, "-file");
    }
  g_free (props);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_gst_init (CV_FUZZ_PLUGIN_DIR, quiet_log);
  g_log_set_handler ("GLib-GObject", G_LOG_LEVEL_WARNING, quiet_log, NULL);
  const gchar *caps = "video/x-raw,format=RGBA,width=16,height=12,framerate=30/1";
  /* every element of the plugin, found through the registry */
  GList *features = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "cudavision");
  if (!features) {
    fprintf (stderr, "cudavision plugin not found in %s\n", CV_FUZZ_PLUGIN_DIR);
    abort ();
  }
  for (GList * l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      add_element (GST_OBJECT_NAME (l->data), caps);
  gst_plugin_feature_list_free (features);
  fprintf (stderr, "fuzz_element_strings: %d string properties\n", n_targets);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1 || n_targets == 0)
    return 0;
  Target *t = &targets[data[0] % n_targets];
  char *text = fuzz_string (data + 1, size - 1);
  if (t->is_file)
    g_object_set (t->element, t->property, fuzz_write_file (data + 1, size - 1, ".txt"), NULL);
  else
    g_object_set (t->element, t->property, text, NULL);
  /* a frame through, so the element works with what it took */
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16 * 12 * 4, NULL);
  gst_buffer_memset (buf, 0, data[0], 16 * 12 * 4);
  if (gst_app_src_push_buffer (GST_APP_SRC (t->src), buf) != GST_FLOW_OK)
    abort ();
  free (text);
  return 0;
}
