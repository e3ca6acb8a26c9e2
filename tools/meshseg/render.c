/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A picture of the segmented mesh: orthographic software rasteriser with a z-buffer,
 * flat shading per face and the PLY's segment colours (see render.h). Supersampled and
 * box-filtered down; silhouettes, segment boundaries and depth steps drawn darker. */
#include "render.h"
#include "cv_imageio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
ms_render_params_default (ms_render_params *p)
{
  p->width = 640;
  p->height = 480;
  p->yaw_deg = 30.0f;
  p->pitch_deg = 20.0f;
  p->supersample = 3;
  p->outline = true;
}

/* Eigenvectors of a symmetric 3x3 matrix by Jacobi rotations; columns of v, values in
 * d, sorted by decreasing value. */
static void
eigen3 (double a[3][3], double d[3], double v[3][3])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      v[i][j] = i == j;
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs (a[0][1]) + fabs (a[0][2]) + fabs (a[1][2]);
    if (off < 1e-30)
      break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        if (fabs (a[p][q]) < 1e-300)
          continue;
        double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        double t = (theta >= 0 ? 1 : -1) / (fabs (theta) + sqrt (theta * theta + 1));
        double c = 1 / sqrt (t * t + 1), s = t * c;
        for (int k = 0; k < 3; k++) {       /* a = J^T a J */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < 3; i++)
    d[i] = a[i][i];
  for (int i = 0; i < 2; i++)               /* selection sort, columns along */
    for (int j = i + 1; j < 3; j++)
      if (d[j] > d[i]) {
        double t = d[i]; d[i] = d[j]; d[j] = t;
        for (int k = 0; k < 3; k++) {
          t = v[k][i]; v[k][i] = v[k][j]; v[k][j] = t;
        }
      }
}

/* Rows of r: the view's right, up and towards-the-viewer axes in mesh coordinates. */
static void
view_frame (const ms_mesh *m, const ms_render_params *p, double centre[3], double r[3][3])
{
  /* area-weighted face centroids: principal axes of the surface, not of the sampling */
  double sum_a = 0, mean[3] = { 0, 0, 0 }, cov[3][3] = { { 0 } };
  for (int f = 0; f < m->face_count; f++) {
    const float *a = m->vertices[m->faces[f][0]], *b = m->vertices[m->faces[f][1]],
        *c = m->vertices[m->faces[f][2]];
    double u[3], w[3], x[3];
    for (int i = 0; i < 3; i++) {
      u[i] = b[i] - a[i];
      w[i] = c[i] - a[i];
    }
    double area = 0.5 * sqrt (pow (u[1] * w[2] - u[2] * w[1], 2)
        + pow (u[2] * w[0] - u[0] * w[2], 2) + pow (u[0] * w[1] - u[1] * w[0], 2)) + 1e-30;
    for (int i = 0; i < 3; i++)
      x[i] = (a[i] + b[i] + c[i]) / 3.0;
    sum_a += area;
    for (int i = 0; i < 3; i++) {
      mean[i] += area * x[i];
      for (int j = 0; j < 3; j++)
        cov[i][j] += area * x[i] * x[j];
    }
  }
  for (int i = 0; i < 3; i++)
    mean[i] /= sum_a;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      cov[i][j] = cov[i][j] / sum_a - mean[i] * mean[j];
  double d[3], v[3][3], e[3][3];
  eigen3 (cov, d, v);
  for (int k = 0; k < 2; k++) {             /* sign: largest component positive */
    int big = 0;
    for (int i = 1; i < 3; i++)
      if (fabs (v[i][k]) > fabs (v[big][k]))
        big = i;
    double s = v[big][k] < 0 ? -1 : 1;
    for (int i = 0; i < 3; i++)
      e[k][i] = s * v[i][k];
  }
  e[2][0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];   /* right-handed: x right, y up, z out */
  e[2][1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
  e[2][2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
  /* yaw about the vertical, then pitch (top towards the viewer: seen from above) */
  double cy = cos (p->yaw_deg * M_PI / 180), sy = sin (p->yaw_deg * M_PI / 180);
  double cp = cos (p->pitch_deg * M_PI / 180), sp = sin (p->pitch_deg * M_PI / 180);
  double yaw[3][3] = { { cy, 0, sy }, { 0, 1, 0 }, { -sy, 0, cy } };
  double pitch[3][3] = { { 1, 0, 0 }, { 0, cp, -sp }, { 0, sp, cp } };
  double t[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      t[i][j] = 0;
      for (int k = 0; k < 3; k++)
        t[i][j] += yaw[i][k] * e[k][j];
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      r[i][j] = 0;
      for (int k = 0; k < 3; k++)
        r[i][j] += pitch[i][k] * t[k][j];
    }
  memcpy (centre, mean, sizeof mean);
}

/* Vertices into view coordinates, fitted to a W x H image (y down, z larger nearer
 * the viewer). Returns the scale; *depth: the depth extent in view units. */
static float
project_vertices (const ms_mesh *m, const ms_render_params *p, int W, int H, float (*sv)[3],
    float *depth)
{
  double c[3], r[3][3];
  view_frame (m, p, c, r);
  float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
  for (int v = 0; v < m->vertex_count; v++)
    for (int i = 0; i < 3; i++) {
      double x = 0;
      for (int j = 0; j < 3; j++)
        x += r[i][j] * (m->vertices[v][j] - c[j]);
      sv[v][i] = (float) x;
      lo[i] = fminf (lo[i], sv[v][i]);
      hi[i] = fmaxf (hi[i], sv[v][i]);
    }
  const float margin = 0.05f;
  float ex = fmaxf (hi[0] - lo[0], 1e-20f), ey = fmaxf (hi[1] - lo[1], 1e-20f);
  float scale = fminf (W * (1 - 2 * margin) / ex, H * (1 - 2 * margin) / ey);
  float mx = 0.5f * (lo[0] + hi[0]), my = 0.5f * (lo[1] + hi[1]);
  for (int v = 0; v < m->vertex_count; v++) {
    sv[v][0] = 0.5f * W + scale * (sv[v][0] - mx);
    sv[v][1] = 0.5f * H - scale * (sv[v][1] - my);
    sv[v][2] = scale * sv[v][2];          /* larger: nearer the viewer */
  }
  *depth = fmaxf (hi[2] - lo[2], 1e-20f);
  return scale;
}

/* Flat Lambert, two-sided: a headlight from a little above left, plus ambient. */
static void
face_shading (const ms_mesh *m, const float (*sv)[3], float *shade)
{
  const float light[3] = { -0.25f, 0.35f, 0.90f };
  const float ll = sqrtf (light[0] * light[0] + light[1] * light[1] + light[2] * light[2]);
  for (int f = 0; f < m->face_count; f++) {
    const float *a = sv[m->faces[f][0]], *b = sv[m->faces[f][1]], *q = sv[m->faces[f][2]];
    /* screen y points down: flip it back for the normal */
    float u[3] = { b[0] - a[0], a[1] - b[1], b[2] - a[2] };
    float w[3] = { q[0] - a[0], a[1] - q[1], q[2] - a[2] };
    float nrm[3] = { u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
      u[0] * w[1] - u[1] * w[0] };
    float len = sqrtf (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    float lambert = len > 0 ? fabsf (nrm[0] * light[0] + nrm[1] * light[1]
        + nrm[2] * light[2]) / (len * ll) : 0;
    shade[f] = 0.32f + 0.68f * lambert;
  }
}

/* Z-buffer of the W x H (supersampled) image: per pixel the nearest face (-1: none). */
static void
rasterize (const ms_mesh *m, const float (*sv)[3], int W, int H, float *zbuf, int32_t *fbuf)
{
  size_t n = (size_t) W * H;
  for (size_t i = 0; i < n; i++) {
    zbuf[i] = -INFINITY;
    fbuf[i] = -1;
  }
  for (int f = 0; f < m->face_count; f++) {
    const float *a = sv[m->faces[f][0]], *b = sv[m->faces[f][1]], *q = sv[m->faces[f][2]];
    float area = (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]);
    if (fabsf (area) < 1e-12f)
      continue;
    int x0 = (int) floorf (fminf (a[0], fminf (b[0], q[0]))), x1 = (int) ceilf (fmaxf (a[0],
        fmaxf (b[0], q[0])));
    int y0 = (int) floorf (fminf (a[1], fminf (b[1], q[1]))), y1 = (int) ceilf (fmaxf (a[1],
        fmaxf (b[1], q[1])));
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > W - 1 ? W - 1 : x1;
    y1 = y1 > H - 1 ? H - 1 : y1;
    float inv = 1.0f / area;
    for (int y = y0; y <= y1; y++) {
      float py = y + 0.5f;
      for (int x = x0; x <= x1; x++) {
        float px = x + 0.5f;
        /* barycentric weights of a, b, q; all >= 0 inside either winding */
        float wa = ((b[0] - px) * (q[1] - py) - (b[1] - py) * (q[0] - px)) * inv;
        float wb = ((q[0] - px) * (a[1] - py) - (q[1] - py) * (a[0] - px)) * inv;
        float wq = 1.0f - wa - wb;
        if (wa < 0 || wb < 0 || wq < 0)
          continue;
        float z = wa * a[2] + wb * b[2] + wq * q[2];
        size_t i = (size_t) y * W + x;
        if (z > zbuf[i]) {
          zbuf[i] = z;
          fbuf[i] = f;
        }
      }
    }
  }
}

/* The output pixels: each the mean of its ss x ss samples, a sample the face's
 * segment colour shaded, darkened on segment edges and depth steps over zstep
 * (p->outline), white where no face is. */
static void
resolve (const ms_segmentation *seg, const ms_render_params *p, const float *zbuf,
    const int32_t *fbuf, const float *shade, float zstep, cc_image *out)
{
  const int ss = p->supersample, W = p->width * ss, H = p->height * ss;
  for (int oy = 0; oy < p->height; oy++) {
    uint8_t *row = (uint8_t *) out->planes[0] + (size_t) oy * out->pitch[0];
    for (int ox = 0; ox < p->width; ox++) {
      float acc[3] = { 0, 0, 0 };
      for (int sy = 0; sy < ss; sy++)
        for (int sx = 0; sx < ss; sx++) {
          int x = ox * ss + sx, y = oy * ss + sy;
          size_t i = (size_t) y * W + x;
          int f = fbuf[i];
          if (f < 0) {
            acc[0] += 255; acc[1] += 255; acc[2] += 255;
            continue;
          }
          uint8_t rgb[3];
          ms_face_colour (seg, f, rgb);
          float k = shade[f];
          bool edge = false;
          if (p->outline) {
            static const int dx[4] = { 1, -1, 0, 0 }, dy[4] = { 0, 0, 1, -1 };
            for (int d = 0; d < 4 && !edge; d++) {
              int nx = x + dx[d], ny = y + dy[d];
              if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
              size_t j = (size_t) ny * W + nx;
              int g = fbuf[j];
              edge = g < 0 || seg->label[g] != seg->label[f] || zbuf[j] - zbuf[i] > zstep;
            }
          }
          for (int ch = 0; ch < 3; ch++) {
            float v = rgb[ch] * k;
            acc[ch] += edge ? 0.35f * v + 0.65f * 45.0f : v;
          }
        }
      for (int ch = 0; ch < 3; ch++) {
        long v = lrintf (acc[ch] / (ss * ss));
        row[4 * ox + ch] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
      }
      row[4 * ox + 3] = 255;
    }
  }
}

cc_status
ms_render (const ms_mesh *m, const ms_segmentation *seg, const ms_render_params *params,
    cc_image *out)
{
  ms_render_params p;
  if (params)
    p = *params;
  else
    ms_render_params_default (&p);
  if (p.width < 8 || p.height < 8 || p.width > 8192 || p.height > 8192)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "render: size %dx%d (8..8192)", p.width,
        p.height);
  if (p.supersample < 1 || p.supersample > 4)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "render: supersample %d (1..4)",
        p.supersample);
  if (!m->face_count || !seg || seg->faces != m->face_count)
    return cc_set_error (CC_ERROR_INVALID_ARGUMENT, "render: %d faces, segmentation of %d",
        m->face_count, seg ? seg->faces : 0);
  const int ss = p.supersample, W = p.width * ss, H = p.height * ss;
  size_t n = (size_t) W * H;
  float (*sv)[3] = malloc (sizeof *sv * (size_t) (m->vertex_count ? m->vertex_count : 1));
  float *zbuf = malloc (sizeof (float) * n);
  int32_t *fbuf = malloc (sizeof (int32_t) * n);
  float *shade = malloc (sizeof (float) * (size_t) m->face_count);
  cc_status st = CC_SUCCESS;
  if (!sv || !zbuf || !fbuf || !shade) {
    st = cc_set_error (CC_ERROR_OUT_OF_MEMORY, "render: %dx%d", W, H);
    goto done;
  }
  float depth;
  float scale = project_vertices (m, &p, W, H, sv, &depth);
  face_shading (m, (const float (*)[3]) sv, shade);
  rasterize (m, (const float (*)[3]) sv, W, H, zbuf, fbuf);
  st = cv_image_new (p.width, p.height, CC_FORMAT_RGBX8, out);
  if (st != CC_SUCCESS)
    goto done;
  /* depth step that counts as an edge: 2 % of the depth extent */
  resolve (seg, &p, zbuf, fbuf, shade, 0.02f * scale * depth, out);

done:
  free (sv);
  free (zbuf);
  free (fbuf);
  free (shade);
  return st;
}

cc_status
ms_render_png (const char *path, const ms_mesh *m, const ms_segmentation *seg,
    const ms_render_params *params)
{
  cc_image img;
  cc_status st = ms_render (m, seg, params, &img);
  if (st != CC_SUCCESS)
    return st;
  st = cv_png_save (path, &img);
  cv_image_free (&img);
  return st;
}
