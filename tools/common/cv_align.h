/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Global shift between two photos of one scene (the camera moved a little): for
 * aligning a background plate with the frames before quadcut. */
#ifndef CV_ALIGN_H
#define CV_ALIGN_H
#include <cudacore/cc_core.h>

/* The integer shift (dx, dy) with img(x, y) ~ ref(x + dx, y + dy), |dx|, |dy| <=
 * max_shift, found coarse to fine on luma pyramids (2x2 means) by the least mean
 * truncated luma difference min (|d|, 20) over the overlap: robust, so that a
 * foreground in img (a person before the plate) does not pull the estimate. Both
 * host RGBX8 images of one size. *agree: the share of pixels whose luma differs by
 * at most 10 levels at the found shift, *agree0: at (0, 0) (either may be NULL). */
cc_status cv_align_shift (const cc_image *ref, const cc_image *img, int max_shift, int *dx,
    int *dy, double *agree, double *agree0);
/* out (a new host RGBX8 image of ref's size) = ref moved by (dx, dy) as above: out(x, y)
 * = ref(x + dx, y + dy), edge pixels repeated past the border. */
cc_status cv_shift_image (const cc_image *ref, int dx, int dy, cc_image *out);
#endif
