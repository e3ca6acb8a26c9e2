/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvprops.h"

#define FIELD(settings, prop, type) ((type *) ((guint8 *) (settings) + (prop)->offset))

void
gst_cv_props_install (GObjectClass * klass, const GstCvProp * props, guint n,
    gconstpointer defaults)
{
  for (guint i = 0; i < n; i++) {
    const GstCvProp *p = &props[i];
    const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
        | (p->playing ? GST_PARAM_MUTABLE_PLAYING : GST_PARAM_MUTABLE_READY);
    GParamSpec *spec = NULL;
    switch (p->type) {
      case GST_CV_PROP_INT:
        spec = g_param_spec_int (p->name, p->nick, p->blurb, (gint) p->min, (gint) p->max,
            *FIELD (defaults, p, const gint), flags);
        break;
      case GST_CV_PROP_UINT:
        spec = g_param_spec_uint (p->name, p->nick, p->blurb, (guint) p->min,
            (guint) p->max, *FIELD (defaults, p, const guint), flags);
        break;
      case GST_CV_PROP_FLOAT:
        spec = g_param_spec_float (p->name, p->nick, p->blurb, (gfloat) p->min,
            (gfloat) p->max, *FIELD (defaults, p, const gfloat), flags);
        break;
      case GST_CV_PROP_ENUM:
        spec = g_param_spec_enum (p->name, p->nick, p->blurb, p->enum_type (),
            *FIELD (defaults, p, const gint), flags);
        break;
      case GST_CV_PROP_STRING:
        spec = g_param_spec_string (p->name, p->nick, p->blurb,
            *FIELD (defaults, p, const gchar * const), flags);
        break;
    }
    g_object_class_install_property (klass, p->id, spec);
  }
}

/* The entry of prop_id, or NULL after GObject's invalid-property warning. */
static const GstCvProp *
find (GObject * object, const GstCvProp * props, guint n, guint prop_id, GParamSpec * pspec)
{
  for (guint i = 0; i < n; i++)
    if (props[i].id == prop_id)
      return &props[i];
  G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  return NULL;
}

static void
set (const GstCvProp * prop, gpointer settings, const GValue * value)
{
  switch (prop->type) {
    case GST_CV_PROP_INT: *FIELD (settings, prop, gint) = g_value_get_int (value); break;
    case GST_CV_PROP_UINT: *FIELD (settings, prop, guint) = g_value_get_uint (value); break;
    case GST_CV_PROP_FLOAT: *FIELD (settings, prop, gfloat) = g_value_get_float (value); break;
    case GST_CV_PROP_ENUM: *FIELD (settings, prop, gint) = g_value_get_enum (value); break;
    case GST_CV_PROP_STRING:
      g_free (*FIELD (settings, prop, gchar *));
      *FIELD (settings, prop, gchar *) = g_value_dup_string (value);
      break;
  }
}

static void
get (const GstCvProp * prop, gconstpointer settings, GValue * value)
{
  switch (prop->type) {
    case GST_CV_PROP_INT: g_value_set_int (value, *FIELD (settings, prop, const gint)); break;
    case GST_CV_PROP_UINT: g_value_set_uint (value, *FIELD (settings, prop, const guint)); break;
    case GST_CV_PROP_FLOAT:
      g_value_set_float (value, *FIELD (settings, prop, const gfloat));
      break;
    case GST_CV_PROP_ENUM: g_value_set_enum (value, *FIELD (settings, prop, const gint)); break;
    case GST_CV_PROP_STRING:
      g_value_set_string (value, *FIELD (settings, prop, const gchar * const));
      break;
  }
}

/* Stores value into settings (store) or reads it from there, under the object lock. */
static gboolean
props_access (GObject * object, const GstCvProp * props, guint n, gpointer settings,
    guint prop_id, GValue * value, gboolean store, GParamSpec * pspec)
{
  const GstCvProp *prop = find (object, props, n, prop_id, pspec);
  if (!prop)
    return FALSE;
  GST_OBJECT_LOCK (object);
  if (store)
    set (prop, settings, value);
  else
    get (prop, settings, value);
  GST_OBJECT_UNLOCK (object);
  return TRUE;
}

gboolean
gst_cv_props_set_property (GObject * object, const GstCvProp * props, guint n,
    gpointer settings, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  return props_access (object, props, n, settings, prop_id, (GValue *) value, TRUE, pspec);
}

gboolean
gst_cv_props_get_property (GObject * object, const GstCvProp * props, guint n,
    gconstpointer settings, guint prop_id, GValue * value, GParamSpec * pspec)
{
  return props_access (object, props, n, (gpointer) settings, prop_id, value, FALSE, pspec);
}
