/* Per-pixel formulas of Quad-Cut, written once for the CPU reference (and the CUDA
 * kernels to come): Lab, the background distance, the histogram bin and the
 * boundary term. */
#ifndef CUDACORE_QUADCUT_HOSTDEV_H
#define CUDACORE_QUADCUT_HOSTDEV_H

#include "cc_hostdev.h"

/* CIE Lab (D65) of 8-bit sRGB; lin: the 256-entry sRGB -> linear table. */
CC_HOSTDEV float cc_qc_lab_f (float t)
{
  const float d3 = 0.008856452f;   /* (6/29)^3 */
  return t > d3 ? cbrtf (t) : t * 7.787037f + 0.137931034f;
}

CC_HOSTDEV void cc_qc_lab (int r, int g, int b, const float *lin, float lab[3])
{
  float rl = lin[r], gl = lin[g], bl = lin[b];
  float X = (0.4124564f * rl + 0.3575761f * gl + 0.1804375f * bl) * (1.0f / 0.95047f);
  float Y = 0.2126729f * rl + 0.7151522f * gl + 0.0721750f * bl;
  float Z = (0.0193339f * rl + 0.1191920f * gl + 0.9503041f * bl) * (1.0f / 1.08883f);
  float fx = cc_qc_lab_f (X), fy = cc_qc_lab_f (Y), fz = cc_qc_lab_f (Z);
  lab[0] = 116.0f * fy - 16.0f;
  lab[1] = 500.0f * (fx - fy);
  lab[2] = 200.0f * (fy - fz);
}

/* PLATE: background distance of a pixel from the plate's Lab. A pixel darker than
 * the plate by at most shadow_depth x L_plate is compared as a shadow: luminance
 * ignored, the plate's a, b scaled by (L + 16) / (L_plate + 16) (a, b go with the
 * cube root of the light, as L + 16 does). */
CC_HOSTDEV float cc_qc_plate_distance (const float f[3], const float p[3],
    float shadow_depth)
{
  float dl = f[0] - p[0];
  if (dl < 0.0f && f[0] >= (1.0f - shadow_depth) * p[0]) {
    float s = (f[0] + 16.0f) / (p[0] + 16.0f);
    float da = f[1] - s * p[1], db = f[2] - s * p[2];
    return sqrtf (da * da + db * db);
  }
  float da = f[1] - p[1], db = f[2] - p[2];
  return sqrtf (dl * dl + da * da + db * db);
}

/* Histogram bin of a Lab a or b value: [-128, 128) in `bins` equal parts. */
CC_HOSTDEV int cc_qc_bin (float v, int bins)
{
  int k = (int) floorf ((v + 128.0f) * (float) bins * (1.0f / 256.0f));
  return cc_clampi (k, 0, bins - 1);
}

/* Boundary term of one unit of border between colours p and q: -log max (B, 1e-6),
 * B = 1 - exp (-|p - q|^2 / (2 sigma_c^2)) (paper D eq. 7, 8). */
CC_HOSTDEV double cc_qc_boundary (const float p[3], const float q[3], double inv_2sc2)
{
  double d0 = p[0] - q[0], d1 = p[1] - q[1], d2 = p[2] - q[2];
  double bb = 1.0 - exp (-(d0 * d0 + d1 * d1 + d2 * d2) * inv_2sc2);
  return -log (bb > 1e-6 ? bb : 1e-6);
}

#endif
