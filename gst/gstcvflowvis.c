/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvflowvis.h"
#include <string.h>

static GType
visualize_type (gboolean with_quality)
{
  static GType types[2] = { 0, 0 };
  static const GEnumValue values[] = {
    { GST_CV_VISUALIZE_NONE, "Video unchanged (flow only in the meta)", "none" },
    { GST_CV_VISUALIZE_COLOR, "Middlebury colour wheel: hue = direction, saturation = speed",
        "color" },
    { GST_CV_VISUALIZE_ARROWS, "Arrows on a grid over the video", "arrows" },
    { GST_CV_VISUALIZE_QUALITY, "Confidence: white = reliable, black = not", "quality" },
    { 0, NULL, NULL },
  };
  static GEnumValue without_quality[4];
  int i = with_quality ? 1 : 0;
  if (g_once_init_enter (&types[i])) {
    GType t;
    if (with_quality) {
      t = g_enum_register_static ("GstCvVisualizeWithQuality", values);
    } else {
      memcpy (without_quality, values, 3 * sizeof (GEnumValue));
      memset (&without_quality[3], 0, sizeof (GEnumValue));
      t = g_enum_register_static ("GstCvVisualize", without_quality);
    }
    g_once_init_leave (&types[i], t);
  }
  return types[i];
}

void
gst_cv_flow_vis_init (GstCvFlowVis * v)
{
  v->mode = GST_CV_VISUALIZE_NONE;
  cc_flow_vis_params_default (&v->params);
}

void
gst_cv_flow_vis_install_properties (GObjectClass * klass, guint id, gboolean with_quality)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  cc_flow_vis_params d;
  cc_flow_vis_params_default (&d);
  g_object_class_install_property (klass, id + GST_CV_VIS_PROP_MODE,
      g_param_spec_enum ("visualize", "Visualize", "Draw the flow into the video",
          visualize_type (with_quality), GST_CV_VISUALIZE_NONE, rw));
  g_object_class_install_property (klass, id + GST_CV_VIS_PROP_MAX_MAGNITUDE,
      g_param_spec_double ("max-magnitude", "Maximum magnitude",
          "Motion in pixels shown at full colour saturation (color), or as an arrow one "
          "spacing long (arrows)", 0.1, 1000.0, d.max_magnitude, rw));
  g_object_class_install_property (klass, id + GST_CV_VIS_PROP_SPACING,
      g_param_spec_int ("arrow-spacing", "Arrow spacing",
          "Pixels between arrows (visualize=arrows)", 4, 256, d.arrow_spacing, rw));
  gst_type_mark_as_plugin_api (visualize_type (with_quality), 0);
}

gboolean
gst_cv_flow_vis_set_property (GstCvFlowVis * v, guint first_id, guint prop_id,
    const GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + GST_CV_VIS_N_PROPS)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_CV_VIS_PROP_MODE: v->mode = g_value_get_enum (value); break;
    case GST_CV_VIS_PROP_MAX_MAGNITUDE: v->params.max_magnitude = (float) g_value_get_double (value); break;
    case GST_CV_VIS_PROP_SPACING: v->params.arrow_spacing = g_value_get_int (value); break;
  }
  return TRUE;
}

gboolean
gst_cv_flow_vis_get_property (GstCvFlowVis * v, guint first_id, guint prop_id, GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + GST_CV_VIS_N_PROPS)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_CV_VIS_PROP_MODE: g_value_set_enum (value, v->mode); break;
    case GST_CV_VIS_PROP_MAX_MAGNITUDE: g_value_set_double (value, v->params.max_magnitude); break;
    case GST_CV_VIS_PROP_SPACING: g_value_set_int (value, v->params.arrow_spacing); break;
  }
  return TRUE;
}

gboolean
gst_cv_flow_vis_draws (GstObject * owner, const GstCvFlowVis * v)
{
  GST_OBJECT_LOCK (owner);
  gboolean draws = v->mode != GST_CV_VISUALIZE_NONE;
  GST_OBJECT_UNLOCK (owner);
  return draws;
}

cc_status
gst_cv_flow_vis_draw (GstCvFlowVis * v, GstCvFilter * filter, cc_stream stream,
    const cc_image * flow, const cc_image * confidence, float min_confidence,
    float quality_scale, cc_image * frame, const gchar ** what)
{
  GST_OBJECT_LOCK (filter);
  GstCvVisualize mode = v->mode;
  cc_flow_vis_params params = v->params;
  GST_OBJECT_UNLOCK (filter);
  if (mode == GST_CV_VISUALIZE_NONE)
    return CC_SUCCESS;
  params.mode = mode == GST_CV_VISUALIZE_COLOR ? CC_FLOW_VIS_COLOR
      : mode == GST_CV_VISUALIZE_ARROWS ? CC_FLOW_VIS_ARROWS : CC_FLOW_VIS_QUALITY;
  params.min_confidence = min_confidence;
  params.quality_scale = quality_scale;
  cc_status st = cc_flow_vis_draw (gst_cv_filter_get_context (filter), stream, flow,
      confidence, &params, frame);
  if (st != CC_SUCCESS)
    *what = "drawing the flow";
  return st;
}
