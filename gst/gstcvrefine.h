/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The variational refinement as both flow elements expose it: the same properties
 * (installed by one call) and the same per-frame step. */
#ifndef GST_CV_REFINE_H
#define GST_CV_REFINE_H

#include "gstcvfilter.h"
#include <cudacore/cc_refine.h>

G_BEGIN_DECLS

/* Property ids are first_id + these offsets. */
enum {
  GST_CV_REFINE_PROP_MODE = 0,
  GST_CV_REFINE_PROP_LEVELS,
  GST_CV_REFINE_PROP_OUTER,
  GST_CV_REFINE_PROP_INNER,
  GST_CV_REFINE_PROP_OMEGA,
  GST_CV_REFINE_PROP_SMOOTHNESS,
  GST_CV_REFINE_PROP_COLOR,
  GST_CV_REFINE_PROP_GRADIENT,
  GST_CV_REFINE_PROP_KAPPA,
  GST_CV_REFINE_PROP_PRESMOOTH,
  GST_CV_REFINE_N_PROPS
};

typedef struct {
  /* settings (under the element's object lock) */
  gboolean enabled;
  cc_refine_params params;
  gboolean changed;
  /* streaming */
  cc_refine *refine;
} GstCvRefine;

/* The `refine` enum: none (0), variational (1); false (2) and true (3) are accepted for
 * them and read back as none and variational. */
#define GST_TYPE_CV_REFINE_MODE (gst_cv_refine_mode_get_type ())
GType gst_cv_refine_mode_get_type (void);

void gst_cv_refine_init (GstCvRefine * r);
/* Installs refine and refine-* (ids first_id + GST_CV_REFINE_PROP_*) with the
 * cc_refine_params_default defaults, refine=none. */
void gst_cv_refine_install_properties (GObjectClass * klass, guint first_id);
/* The same with the element's own defaults (cudaflowepic: one level, refine on). */
void gst_cv_refine_install_properties_full (GObjectClass * klass, guint first_id,
    const cc_refine_params * defaults, gboolean enabled);
/* TRUE when prop_id belonged to the refinement (call under the object lock). */
gboolean gst_cv_refine_set_property (GstCvRefine * r, guint first_id, guint prop_id,
    const GValue * value);
gboolean gst_cv_refine_get_property (GstCvRefine * r, guint first_id, guint prop_id,
    GValue * value);

/* setup/teardown from the element's setup()/teardown(). */
gboolean gst_cv_refine_setup (GstCvRefine * r, GstCvFilter * filter, int width, int height);
void gst_cv_refine_teardown (GstCvRefine * r);
/* Refines `flow` (dense, frame size) in place from prev -> next on `stream` when
 * enabled. A failure sets *what for the base's frame error (process() returns it). */
cc_status gst_cv_refine_apply (GstCvRefine * r, GstCvFilter * filter, cc_stream stream,
    const cc_image * prev, const cc_image * next, cc_image * flow, const gchar ** what);

G_END_DECLS
#endif
