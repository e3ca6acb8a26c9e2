/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GST_CV_DEFINE_ENUM: the get_type function of a static GEnum, registered once.
 *
 *   GST_CV_DEFINE_ENUM (gst_cv_gradient_get_type, "GstCvGradient",
 *       { CC_GRADIENT_SCHARR, "3x3 Scharr", "scharr" },
 *       { CC_GRADIENT_SOBEL, "3x3 Sobel", "sobel" })
 *
 * defines `static GType gst_cv_gradient_get_type (void)`; the terminating
 * { 0, NULL, NULL } is added. GST_CV_ENUM_BODY is the body alone, for a get_type
 * with external linkage (a type in a public header). */
#ifndef GST_CV_ENUM_H
#define GST_CV_ENUM_H

#include <glib-object.h>

#define GST_CV_ENUM_BODY(name, ...)                                               \
  {                                                                               \
    static GType type = 0;                                                        \
    static const GEnumValue values[] = { __VA_ARGS__, { 0, NULL, NULL } };        \
    if (g_once_init_enter (&type)) {                                              \
      GType t = g_enum_register_static ((name), values);                          \
      g_once_init_leave (&type, t);                                               \
    }                                                                             \
    return type;                                                                  \
  }

#define GST_CV_DEFINE_ENUM(fn, name, ...) \
  static GType fn (void) GST_CV_ENUM_BODY (name, __VA_ARGS__)

#endif
