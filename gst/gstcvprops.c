/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvprops.h"
#include "gstcvfilter.h"

#define FIELD(settings, prop, type) ((type *) ((guint8 *) (settings) + (prop)->offset))

/* What a class installed (type qdata of the class that owns the properties). */
typedef struct {
  const GstCvProp *props;
  guint n;
  gsize settings_offset;
} PropsTable;

G_DEFINE_QUARK (gst-cv-props-table, props_table)

static void
install (GObjectClass * klass, const GstCvProp * props, guint n, gconstpointer defaults)
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
        gst_type_mark_as_plugin_api (p->enum_type (), 0);
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

/* Stores value into the settings (store) or reads it from there, under the object
 * lock; a stored change that needs it asks for a new setup. */
static void
props_access (GObject * object, guint prop_id, GValue * value, gboolean store,
    GParamSpec * pspec)
{
  const PropsTable *t = g_type_get_qdata (pspec->owner_type, props_table_quark ());
  const GstCvProp *prop = find (object, t->props, t->n, prop_id, pspec);
  if (!prop)
    return;
  gpointer settings = (guint8 *) object + t->settings_offset;
  GST_OBJECT_LOCK (object);
  if (store)
    set (prop, settings, value);
  else
    get (prop, settings, value);
  GST_OBJECT_UNLOCK (object);
  if (store && prop->resetup && GST_IS_CV_FILTER (object))
    gst_cv_filter_request_setup (GST_CV_FILTER (object));
}

static void
props_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  props_access (object, prop_id, (GValue *) value, TRUE, pspec);
}

static void
props_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  props_access (object, prop_id, value, FALSE, pspec);
}

void
gst_cv_props_class_install (GObjectClass * klass, const GstCvProp * props, guint n,
    gconstpointer defaults, gsize settings_offset)
{
  PropsTable *t = g_new (PropsTable, 1);   /* the class's, for the process's life */
  *t = (PropsTable) { props, n, settings_offset };
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), props_table_quark (), t);
  klass->set_property = props_set_property;
  klass->get_property = props_get_property;
  install (klass, props, n, defaults);
}

void
gst_cv_props_from_core (GstCvProp * props, guint n, guint first_id, gsize offset,
    const cc_param_info * table)
{
  for (guint i = 0; i < n; i++)
    props[i] = (GstCvProp) { first_id + i, table[i].name, table[i].nick, table[i].blurb,
      table[i].kind == CC_PARAM_INT ? GST_CV_PROP_INT : GST_CV_PROP_FLOAT,
      offset + table[i].offset, table[i].min, table[i].max, NULL, TRUE, FALSE };
}
