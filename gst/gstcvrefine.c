/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstcvrefine.h"
#include "gstcvenum.h"

/* One type for every element's `refine`. `false` and `true` are accepted for none
 * and variational (launch lines that write cudaflowepic's `refine` as a boolean work);
 * values of their own, so that reading the property (and gst-inspect's default) gives
 * none or variational. */
enum { REFINE_NONE, REFINE_VARIATIONAL, REFINE_FALSE, REFINE_TRUE };
GType
gst_cv_refine_mode_get_type (void)
GST_CV_ENUM_BODY ("GstCvRefineMode",
    { REFINE_NONE, "No refinement", "none" },
    { REFINE_VARIATIONAL, "Variational refinement (colour + gradient constancy, "
          "Charbonnier smoothness, red-black SOR)", "variational" },
    { REFINE_FALSE, "Accepted for none (the former boolean refine=false); reads none",
          "false" },
    { REFINE_TRUE, "Accepted for variational (the former boolean refine=true); reads "
          "variational", "true" })

void
gst_cv_refine_init (GstCvRefine * r)
{
  r->enabled = FALSE;
  cc_refine_params_default (&r->params);
  r->changed = FALSE;
  r->refine = NULL;
}

void
gst_cv_refine_install_properties (GObjectClass * klass, guint id)
{
  cc_refine_params d;
  cc_refine_params_default (&d);
  gst_cv_refine_install_properties_full (klass, id, &d, FALSE);
}

void
gst_cv_refine_install_properties_full (GObjectClass * klass, guint id,
    const cc_refine_params * defaults, gboolean enabled)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  const cc_refine_params d = *defaults;
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_MODE,
      g_param_spec_enum ("refine", "Refine",
          "variational: a variational energy minimisation smooths the dense field and "
          "sharpens it at motion edges (costs about as much as the flow itself on the "
          "CPU); none: the field as estimated. false/true are accepted for none/variational",
          GST_TYPE_CV_REFINE_MODE, enabled ? REFINE_VARIATIONAL : REFINE_NONE, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_LEVELS,
      g_param_spec_int ("refine-levels", "Refine levels",
          "Pyramid levels refined, coarse to fine, each half the size of the one above: "
          "more levels correct larger errors of the input field (a few pixels per level) "
          "for little more time (a level costs a quarter of the one above)",
          CC_REFINE_LEVELS_MIN, CC_REFINE_LEVELS_MAX,
          d.levels, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_OUTER,
      g_param_spec_int ("refine-outer-iterations", "Refine outer iterations",
          "Re-linearisations per level: more follow larger corrections and sharper motion "
          "edges; the refinement's time grows in proportion", CC_REFINE_OUTER_MIN,
          CC_REFINE_OUTER_MAX,
          d.outer_iterations, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_INNER,
      g_param_spec_int ("refine-inner-iterations", "Refine inner iterations",
          "Solver sweeps per outer iteration: more converge further (a smoother, more exact "
          "field), fewer are faster; the refinement's time grows in proportion",
          CC_REFINE_INNER_MIN, CC_REFINE_INNER_MAX,
          d.inner_iterations, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_OMEGA,
      g_param_spec_double ("refine-omega", "Refine omega", "Over-relaxation of the solver: 1 is plain Gauss-Seidel, up to about 1.9 "
          "converges in fewer sweeps, near 2 it oscillates; no effect on the time per sweep",
          0.01, 1.99, d.omega, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_SMOOTHNESS,
      g_param_spec_double ("refine-smoothness", "Refine smoothness weight",
          "How strongly neighbouring vectors are pulled together (alpha): raise for smoother "
          "fields and less noise in flat areas, lower to keep small moving details; no "
          "effect on the time", 0.001, 10000.0,
          d.smoothness_weight, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_COLOR,
      g_param_spec_double ("refine-color-weight", "Refine colour weight",
          "How strongly the field is pulled to match brightness between the frames (delta): "
          "raise for a closer fit on textured areas, lower when the lighting changes "
          "between frames; no effect on the time", 0.0, 10000.0,
          d.color_weight, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_GRADIENT,
      g_param_spec_double ("refine-gradient-weight", "Refine gradient weight",
          "How strongly the field is pulled to match image gradients (gamma), which lighting "
          "changes leave alone: raise under changing light, lower on noisy video; no "
          "effect on the time", 0.0, 10000.0,
          d.gradient_weight, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_KAPPA,
      g_param_spec_double ("refine-smoothness-kappa", "Refine smoothness kappa",
          "How much weaker the smoothing gets across image edges: each pixel's smoothness "
          "weight is refine-smoothness times exp(-kappa |grad I|), I the luma in 0..1 (as "
          "DeepFlow and EpicFlow); 0: the same weight everywhere; no effect on the time",
          0.0, 100.0, d.smoothness_kappa, rw));
  g_object_class_install_property (klass, id + GST_CV_REFINE_PROP_PRESMOOTH,
      g_param_spec_double ("refine-presmooth", "Refine presmoothing",
          "Gaussian blur (sigma, px) of both frames' luma at full resolution before the "
          "refinement reads their derivatives there: less noise in them; 0: none",
          0.0, 3.0, d.presmooth_sigma, rw));
  gst_type_mark_as_plugin_api (GST_TYPE_CV_REFINE_MODE, 0);
}

gboolean
gst_cv_refine_set_property (GstCvRefine * r, guint first_id, guint prop_id,
    const GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + GST_CV_REFINE_N_PROPS)
    return FALSE;
  cc_refine_params *p = &r->params;
  switch (prop_id - first_id) {
    case GST_CV_REFINE_PROP_MODE: {
      gint v = g_value_get_enum (value);
      r->enabled = v == REFINE_VARIATIONAL || v == REFINE_TRUE;
      break;
    }
    case GST_CV_REFINE_PROP_LEVELS: p->levels = g_value_get_int (value); break;
    case GST_CV_REFINE_PROP_OUTER: p->outer_iterations = g_value_get_int (value); break;
    case GST_CV_REFINE_PROP_INNER: p->inner_iterations = g_value_get_int (value); break;
    case GST_CV_REFINE_PROP_OMEGA: p->omega = (float) g_value_get_double (value); break;
    case GST_CV_REFINE_PROP_SMOOTHNESS: p->smoothness_weight = (float) g_value_get_double (value); break;
    case GST_CV_REFINE_PROP_COLOR: p->color_weight = (float) g_value_get_double (value); break;
    case GST_CV_REFINE_PROP_GRADIENT: p->gradient_weight = (float) g_value_get_double (value); break;
    case GST_CV_REFINE_PROP_KAPPA: p->smoothness_kappa = (float) g_value_get_double (value); break;
    case GST_CV_REFINE_PROP_PRESMOOTH: p->presmooth_sigma = (float) g_value_get_double (value); break;
  }
  r->changed = TRUE;
  return TRUE;
}

gboolean
gst_cv_refine_get_property (GstCvRefine * r, guint first_id, guint prop_id, GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + GST_CV_REFINE_N_PROPS)
    return FALSE;
  cc_refine_params *p = &r->params;
  switch (prop_id - first_id) {
    case GST_CV_REFINE_PROP_MODE:
      g_value_set_enum (value, r->enabled ? REFINE_VARIATIONAL : REFINE_NONE);
      break;
    case GST_CV_REFINE_PROP_LEVELS: g_value_set_int (value, p->levels); break;
    case GST_CV_REFINE_PROP_OUTER: g_value_set_int (value, p->outer_iterations); break;
    case GST_CV_REFINE_PROP_INNER: g_value_set_int (value, p->inner_iterations); break;
    case GST_CV_REFINE_PROP_OMEGA: g_value_set_double (value, p->omega); break;
    case GST_CV_REFINE_PROP_SMOOTHNESS: g_value_set_double (value, p->smoothness_weight); break;
    case GST_CV_REFINE_PROP_COLOR: g_value_set_double (value, p->color_weight); break;
    case GST_CV_REFINE_PROP_GRADIENT: g_value_set_double (value, p->gradient_weight); break;
    case GST_CV_REFINE_PROP_KAPPA: g_value_set_double (value, p->smoothness_kappa); break;
    case GST_CV_REFINE_PROP_PRESMOOTH: g_value_set_double (value, p->presmooth_sigma); break;
  }
  return TRUE;
}

gboolean
gst_cv_refine_setup (GstCvRefine * r, GstCvFilter * filter, int width, int height)
{
  GST_OBJECT_LOCK (filter);
  cc_refine_params params = r->params;
  r->changed = FALSE;
  GST_OBJECT_UNLOCK (filter);
  /* Always created: switching refine on while playing needs no allocation. */
  cc_status st = cc_refine_create (gst_cv_filter_get_context (filter), width, height,
      &params, &r->refine);
  if (st != CC_SUCCESS) {
    GST_CV_FILTER_CORE_ERROR (filter, st, "creating the variational refinement");
    return FALSE;
  }
  return TRUE;
}

void
gst_cv_refine_teardown (GstCvRefine * r)
{
  cc_refine_destroy (r->refine);
  r->refine = NULL;
}

cc_status
gst_cv_refine_apply (GstCvRefine * r, GstCvFilter * filter, cc_stream stream,
    const cc_image * prev, const cc_image * next, cc_image * flow, const gchar ** what)
{
  GST_OBJECT_LOCK (filter);
  gboolean enabled = r->enabled, changed = r->changed;
  cc_refine_params params = r->params;
  r->changed = FALSE;
  GST_OBJECT_UNLOCK (filter);
  if (!enabled || !prev)
    return CC_SUCCESS;
  cc_status st = CC_SUCCESS;
  if (changed)
    st = cc_refine_set_params (r->refine, &params);
  if (st == CC_SUCCESS)
    st = cc_refine_compute (r->refine, stream, prev, next, flow, flow);
  if (st != CC_SUCCESS)
    *what = "variational refinement";
  return st;
}
