/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cvdmosaic: every style's pixels equal the core's CPU rendering of the same steps
 * (seed, density, K Lloyd iterations, render) for a known small frame in RGBA, BGRx,
 * NV12 and I420, warm start across frames, property changes while playing (style
 * next frame, sites re-seeds), a caps change, 1x1 and odd sizes, the too-many-sites
 * warning, re-seeding on a flush and on a DISCONT buffer, and (with a GPU) CUDA memory
 * against the CPU backend, byte for byte. */
#include "element_common.h"
#include "cv_flicker.h"
#include <cudacore/cc_cvd.h>
#include <string.h>

typedef struct {
  int sites, iterations, settle;
  cc_cvd_density density;
  cc_cvd_style style;
  int border_width;
  guint color;
  guint64 seed;
} Props;

static const Props defaults = { 40, 2, 6, CC_CVD_DENSITY_GRADIENT, CC_CVD_STYLE_CELLS, 1,
  0x102030, 7 };

static const char *style_nick[] = { "cells", "stipple", "outline" };
static const char *density_nick[] = { "uniform", "dark", "bright", "gradient" };

static gchar *
launch_line (const Props * p)
{
  return g_strdup_printf ("cvdmosaic backend=cpu sites=%d iterations=%d settle-iterations=%d "
      "density=%s style=%s border-width=%d border-color=%u seed=%" G_GUINT64_FORMAT, p->sites,
      p->iterations, p->settle, density_nick[p->density], style_nick[p->style],
      p->border_width, p->color, p->seed);
}

/* A known frame: a colour pattern with edges (RGB), or Y / U / V patterns. */
static GstBuffer *
make_frame (const gchar * format, int w, int h, int t)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w, h);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (buf, 0, 0, GST_VIDEO_INFO_SIZE (&info));
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&info), w, h, GST_VIDEO_INFO_N_PLANES (&info), info.offset,
      info.stride);
  GstVideoFrame vf;
  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
  for (int p = 0; p < (int) GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
    gint comp = p == 0 ? 0 : 1;
    gint pw = GST_VIDEO_FRAME_COMP_WIDTH (&vf, comp) * GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, comp);
    gint ph = GST_VIDEO_FRAME_COMP_HEIGHT (&vf, p == 0 ? 0 : 1);
    const int rgb = GST_VIDEO_INFO_IS_RGB (&info) != 0;
    if (rgb)
      pw = 4 * w;
    for (int y = 0; y < ph; y++)
      for (int x = 0; x < pw; x++) {
        int px = rgb ? x / 4 : x;
        int disc = (px - w / 2) * (px - w / 2) + (y - h / 3) * (y - h / 3) < w * h / 10;
        int v = disc ? 230 - 40 * (x % 4) : px * 9 + y * 5 + 31 * p + 3 * t;
        d[y * stride + x] = (guint8) v;
      }
  }
  gst_video_frame_unmap (&vf);
  return buf;
}

static cc_format
core_format (const gchar * format)
{
  if (!strcmp (format, "RGBA") || !strcmp (format, "RGBx"))
    return CC_FORMAT_RGBX8;
  if (!strcmp (format, "BGRA") || !strcmp (format, "BGRx"))
    return CC_FORMAT_BGRX8;
  return !strcmp (format, "NV12") ? CC_FORMAT_NV12 : CC_FORMAT_I420;
}

/* The core's version of one frame: buffer (a copy of the input) rendered in place. */
static void
core_frame (cc_cvd * c, GstBuffer * buf, const gchar * format, int w, int h, const Props * p,
    gboolean reseed)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w, h);
  GstVideoFrame vf;
  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_READWRITE));
  cc_image img;
  memset (&img, 0, sizeof img);
  for (guint k = 0; k < GST_VIDEO_FRAME_N_PLANES (&vf); k++) {
    img.planes[k] = GST_VIDEO_FRAME_PLANE_DATA (&vf, k);
    img.pitch[k] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, k);
  }
  img.width = w;
  img.height = h;
  img.format = core_format (format);
  img.location = CC_LOCATION_HOST;
  cc_cvd_params cp;
  cc_cvd_params_default (&cp);
  cp.density = p->density;
  CC_ASSERT_OK (cc_cvd_set_params (c, &cp));
  if (reseed)
    CC_ASSERT_OK (cc_cvd_seed (c, NULL, MIN (p->sites, w * h), p->seed));
  CC_ASSERT_OK (cc_cvd_set_density (c, NULL, &img));
  /* fresh sites settle first: up to `settle` iterations, stopping under 0.01 px */
  if (reseed && p->settle > 0)
    CC_ASSERT_OK (cc_cvd_compute (c, NULL, p->settle, 0.01, NULL));
  CC_ASSERT_OK (cc_cvd_compute (c, NULL, p->iterations, 0.0, NULL));
  cc_cvd_draw_params rp = { p->style, p->border_width, (p->color >> 16) & 255,
                              (p->color >> 8) & 255, p->color & 255 };
  CC_ASSERT_OK (cc_cvd_draw (c, NULL, &img, &rp));
  gst_video_frame_unmap (&vf);
}

static void
assert_same (GstBuffer * a, GstBuffer * b, const char *what)
{
  GstMapInfo ma, mb;
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (ma.size == mb.size, "%s: sizes differ", what);
  long differ = 0, first = -1;
  for (gsize k = 0; k < ma.size; k++)
    if (ma.data[k] != mb.data[k]) {
      differ++;
      if (first < 0)
        first = (long) k;
    }
  fail_unless (differ == 0, "%s: %ld bytes differ from the core's rendering (first at %ld)",
      what, differ, first);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

static void
assert_not_same (GstBuffer * a, GstBuffer * b, const char *what)
{
  GstMapInfo ma, mb;
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (ma.size != mb.size || memcmp (ma.data, mb.data, ma.size) != 0, "%s: equal", what);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

/* Pushes frame t through the element and the core; asserts they are equal. */
static void
step (GstHarness * hn, cc_cvd * c, const gchar * format, int w, int h, int t, const Props * p,
    gboolean reseed, const char *what)
{
  GstBuffer *in = make_frame (format, w, h, t);
  GstBuffer *want = gst_buffer_copy_deep (in);
  GstBuffer *out = gst_harness_push_and_pull (hn, in);
  fail_unless (out != NULL, "%s: no output", what);
  core_frame (c, want, format, w, h, p, reseed);
  assert_same (out, want, what);
  gst_buffer_unref (out);
  gst_buffer_unref (want);
}

static cc_cvd *
core_new (cc_context * ctx, int w, int h)
{
  cc_cvd *c = NULL;
  CC_ASSERT_OK (cc_cvd_create (ctx, w, h, NULL, &c));
  return c;
}

/* The element (a harness around the launch line of some Props) beside the core that must
 * render the same frames (a CPU cvd of the frame's size). */
typedef struct {
  cc_context *ctx;
  gchar *line;
  GstHarness *hn;
  cc_cvd *core;
} Twin;

/* extra: more properties after the Props' launch line, or NULL. */
static void
twin_open (Twin * t, const Props * p, const gchar * extra, const gchar * format, int w, int h)
{
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, 0, &t->ctx));
  gchar *line = launch_line (p);
  t->line = extra ? g_strdup_printf ("%s %s", line, extra) : g_strdup (line);
  g_free (line);
  t->hn = cv_harness_new (t->line, format, w, h);
  t->core = core_new (t->ctx, w, h);
}

static void
twin_close (Twin * t)
{
  cc_cvd_destroy (t->core);
  gst_harness_teardown (t->hn);
  g_free (t->line);
  cc_context_destroy (t->ctx);
}

GST_START_TEST (test_styles_pixels)
{
  const gchar *formats[] = { "RGBA", "BGRx", "NV12", "I420" };
  const int w = 64, h = 48;
  cc_context *ctx = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, 0, &ctx));
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int s = 0; s < 3; s++) {
      Props p = defaults;
      p.style = (cc_cvd_style) s;
      p.density = (cc_cvd_density) ((s + f) % 4);
      p.border_width = s == 1 ? 0 : 2;
      gchar *line = launch_line (&p);
      GstHarness *hn = cv_harness_new (line, formats[f], w, h);
      cc_cvd *c = core_new (ctx, w, h);
      gchar *what = g_strdup_printf ("%s %s", formats[f], line);
      /* three frames: warm start from the previous frame's sites */
      for (int t = 0; t < 3; t++)
        step (hn, c, formats[f], w, h, t, &p, t == 0, what);
      g_free (what);
      g_free (line);
      cc_cvd_destroy (c);
      gst_harness_teardown (hn);
    }
  cc_context_destroy (ctx);
}
GST_END_TEST;

GST_START_TEST (test_properties_while_playing)
{
  const int w = 64, h = 48;
  Props p = defaults;
  Twin tw;
  twin_open (&tw, &p, NULL, "RGBA", w, h);
  GstElement *e = gst_harness_find_element (tw.hn, "cvdmosaic");
  step (tw.hn, tw.core, "RGBA", w, h, 0, &p, TRUE, "first frame");
  /* style, border, density and iterations: next frame, sites kept (warm) */
  g_object_set (e, "style", CC_CVD_STYLE_OUTLINE, "border-width", 3, "border-color", 0xFF0000,
      "iterations", 3, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "density", "dark");
  p.style = CC_CVD_STYLE_OUTLINE;
  p.border_width = 3;
  p.color = 0xFF0000;
  p.iterations = 3;
  p.density = CC_CVD_DENSITY_DARK;
  step (tw.hn, tw.core, "RGBA", w, h, 1, &p, FALSE, "style change");
  /* sites: re-seeds */
  g_object_set (e, "sites", 100, NULL);
  p.sites = 100;
  step (tw.hn, tw.core, "RGBA", w, h, 2, &p, TRUE, "sites change");
  /* the same value again does not re-seed; seed does */
  g_object_set (e, "sites", 100, NULL);
  step (tw.hn, tw.core, "RGBA", w, h, 3, &p, FALSE, "same sites");
  g_object_set (e, "seed", (guint64) 99, NULL);
  p.seed = 99;
  step (tw.hn, tw.core, "RGBA", w, h, 4, &p, TRUE, "seed change");
  step (tw.hn, tw.core, "RGBA", w, h, 5, &p, FALSE, "steady");
  /* the Voronoi and centroid implementations are the core's tuning (benches compare
   * them), not element properties */
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e), "jfa") == NULL);
  fail_unless (g_object_class_find_property (G_OBJECT_GET_CLASS (e), "centroid-method") == NULL);
  /* defaults of a fresh element: 30 settling iterations */
  GstElement *fresh = gst_element_factory_make ("cvdmosaic", NULL);
  gint settle;
  g_object_get (fresh, "settle-iterations", &settle, NULL);
  ck_assert_int_eq (settle, 30);
  gst_object_unref (fresh);
  gst_object_unref (e);
  twin_close (&tw);
}
GST_END_TEST;

GST_START_TEST (test_caps_change_and_sizes)
{
  cc_context *ctx = NULL;
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, 0, &ctx));
  Props p = defaults;
  gchar *line = launch_line (&p);
  GstHarness *hn = cv_harness_new (line, "I420", 64, 48);
  cc_cvd *c = core_new (ctx, 64, 48);
  step (hn, c, "I420", 64, 48, 0, &p, TRUE, "64x48");
  step (hn, c, "I420", 64, 48, 1, &p, FALSE, "64x48 warm");
  cc_cvd_destroy (c);
  /* a caps change: a new frame size, sites re-seeded; then 1x1 (one site a pixel) and
   * odd sizes */
  const int sizes[][2] = { { 40, 30 }, { 1, 1 }, { 3, 5 }, { 101, 67 } };
  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++) {
    int w = sizes[k][0], h = sizes[k][1];
    gchar *caps = g_strdup_printf ("video/x-raw,format=I420,width=%d,height=%d,framerate=30/1",
        w, h);
    gst_harness_set_src_caps_str (hn, caps);
    g_free (caps);
    c = core_new (ctx, w, h);
    gchar *what = g_strdup_printf ("caps %dx%d", w, h);
    step (hn, c, "I420", w, h, 2, &p, TRUE, what);
    step (hn, c, "I420", w, h, 3, &p, FALSE, what);
    g_free (what);
    cc_cvd_destroy (c);
  }
  gst_harness_teardown (hn);
  /* RGBA odd sizes from the start */
  for (int k = 0; k < 2; k++) {
    int w = k ? 1 : 7, h = k ? 1 : 3;
    hn = cv_harness_new (line, "RGBA", w, h);
    c = core_new (ctx, w, h);
    step (hn, c, "RGBA", w, h, 0, &p, TRUE, "RGBA small");
    cc_cvd_destroy (c);
    gst_harness_teardown (hn);
  }
  g_free (line);
  cc_context_destroy (ctx);
}
GST_END_TEST;

GST_START_TEST (test_too_many_sites)
{
  Props p = defaults;
  p.sites = 16;
  gchar *line = launch_line (&p);
  GstHarness *hn = cv_harness_new (line, "RGBA", 8, 4);
  gst_buffer_unref (gst_harness_push_and_pull (hn, make_frame ("RGBA", 8, 4, 0)));
  GstElement *e = gst_harness_find_element (hn, "cvdmosaic");
  GstBus *bus = cv_watch_bus (e);
  g_object_set (e, "sites", 33, NULL);
  cv_assert_warning (bus, "*sites=33 refused*8x4 frame has 32 pixels*");
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gint sites;
  g_object_get (e, "sites", &sites, NULL);
  ck_assert_int_eq (sites, 16);
  g_object_set (e, "sites", 32, NULL);
  g_object_get (e, "sites", &sites, NULL);
  ck_assert_int_eq (sites, 32);
  gst_buffer_unref (gst_harness_push_and_pull (hn, make_frame ("RGBA", 8, 4, 1)));
  gst_object_unref (e);
  gst_harness_teardown (hn);
  g_free (line);
}
GST_END_TEST;

GST_START_TEST (test_reset_on_flush_and_discont)
{
  const int w = 64, h = 48;
  Props p = defaults;
  p.iterations = 1;
  Twin tw;
  twin_open (&tw, &p, NULL, "RGBA", w, h);
  step (tw.hn, tw.core, "RGBA", w, h, 0, &p, TRUE, "first");
  step (tw.hn, tw.core, "RGBA", w, h, 1, &p, FALSE, "second");
  /* what a warm third frame would give, to show the reset changes the output */
  GstBuffer *warm = make_frame ("RGBA", w, h, 1);
  cc_cvd *cw = core_new (tw.ctx, w, h);
  for (int t = 0; t < 3; t++) {
    GstBuffer *tmp = make_frame ("RGBA", w, h, t < 2 ? t : 1);
    core_frame (cw, t < 2 ? tmp : warm, "RGBA", w, h, &p, t == 0);
    gst_buffer_unref (tmp);
  }
  cc_cvd_destroy (cw);
  fail_unless (gst_harness_push_event (tw.hn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (tw.hn, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (tw.hn, gst_event_new_segment (&seg)));
  GstBuffer *in = make_frame ("RGBA", w, h, 1);
  GstBuffer *out = gst_harness_push_and_pull (tw.hn, in);
  GstBuffer *want = make_frame ("RGBA", w, h, 1);
  core_frame (tw.core, want, "RGBA", w, h, &p, TRUE);
  assert_same (out, want, "after flush");
  assert_not_same (out, warm, "after flush vs warm");
  gst_buffer_unref (out);
  gst_buffer_unref (want);
  gst_buffer_unref (warm);
  step (tw.hn, tw.core, "RGBA", w, h, 2, &p, FALSE, "after flush, warm");
  in = make_frame ("RGBA", w, h, 3);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  out = gst_harness_push_and_pull (tw.hn, in);
  want = make_frame ("RGBA", w, h, 3);
  core_frame (tw.core, want, "RGBA", w, h, &p, TRUE);
  assert_same (out, want, "after discont");
  gst_buffer_unref (out);
  gst_buffer_unref (want);
  twin_close (&tw);
}
GST_END_TEST;

/* cudaupload -> cvdmosaic backend=cuda (CUDA memory) -> cudadownload: the same bytes
 * as backend=cpu for every style, in RGBA and NV12, over three frames (seeding and
 * settling, then warm frames); the CUDA core equals the CPU core bit for bit
 * (core-cvd), so the element must too. Skips without a GPU. */
GST_START_TEST (test_cuda_memory_matches_cpu)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("cvdmosaic cuda_memory_matches_cpu");
  const int w = 96, h = 72;
  const gchar *formats[] = { "RGBA", "NV12" };
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int style = 0; style < 3; style++) {
      Props p = defaults;
      p.style = (cc_cvd_style) style;
      gchar *cpu = launch_line (&p);
      /* the same properties, backend=cuda, between cudaupload and cudadownload */
      gchar *props = g_strdup (strstr (cpu, "backend=cpu ") + strlen ("backend=cpu "));
      gchar *cuda = g_strdup_printf ("cudaupload ! video/x-raw(memory:CUDAMemory) ! "
          "cvdmosaic backend=cuda %s ! cudadownload ! capsfilter caps=video/x-raw,format=%s",
          props, formats[f]);
      GstHarness *hc = cv_harness_new (cuda, formats[f], w, h);
      GstHarness *hp = cv_harness_new (cpu, formats[f], w, h);
      for (int t = 0; t < 3; t++) {
        GstBuffer *in = make_frame (formats[f], w, h, t);
        GstBuffer *a = gst_harness_push_and_pull (hc, gst_buffer_copy_deep (in));
        GstBuffer *b = gst_harness_push_and_pull (hp, in);
        fail_unless (a != NULL && b != NULL);
        gchar *what = g_strdup_printf ("%s style=%s frame %d: CUDA memory against the CPU",
            formats[f], style_nick[style], t);
        assert_same (a, b, what);
        g_free (what);
        gst_buffer_unref (a);
        gst_buffer_unref (b);
      }
      g_print ("cvdmosaic %s style=%s: CUDA memory == CPU, 3 frames\n", formats[f],
          style_nick[style]);
      gst_harness_teardown (hc);
      gst_harness_teardown (hp);
      g_free (cuda);
      g_free (props);
      g_free (cpu);
    }
}
GST_END_TEST;

GST_START_TEST (test_advect_runs)
{
  /* advect=flow: the first frame has no flow (equal to no advection), later frames
   * move the sites with the LK flow of a scene that moves */
  const int w = 64, h = 48;
  Props p = defaults;
  Twin tw;
  twin_open (&tw, &p, "advect=flow", "RGBA", w, h);
  step (tw.hn, tw.core, "RGBA", w, h, 0, &p, TRUE, "advect first frame");
  GstBuffer *out = gst_harness_push_and_pull (tw.hn, make_frame ("RGBA", w, h, 4));
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  twin_close (&tw);
}
GST_END_TEST;

/* A static-camera clip: a textured background (blocks of colour, a diagonal ramp)
 * with +-2 of per-frame noise (within the static tolerance, but it perturbs the
 * density a little, as a camera's noise does) and a 14 px square moving 3 px a frame. */
static GstBuffer *
noisy_scene (int w, int h, int t)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) 4 * w * h, NULL);
  GstMapInfo m;
  fail_unless (gst_buffer_map (buf, &m, GST_MAP_WRITE));
  guint32 state = 0x9E3779B9u * (guint32) (t + 1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      guint8 *q = m.data + 4 * ((gsize) y * w + x);
      int block = ((x / 16) * 7 + (y / 12) * 3) % 5;
      int sq = x >= 10 + 3 * t && x < 24 + 3 * t && y >= 20 && y < 34;
      for (int k = 0; k < 3; k++) {
        state = state * 1664525u + 1013904223u;
        int noise = (int) (state >> 29) % 5 - 2;
        int v = sq ? 240 - 60 * k : 30 + 40 * block + (x + y) / 3 + 20 * k;
        q[k] = (guint8) CLAMP (v + noise, 0, 255);
      }
      q[3] = 255;
    }
  gst_buffer_unmap (buf, &m);
  return buf;
}

/* Mean flicker (tools/common/cv_flicker.h) of the element over `frames` frames of the
 * noisy scene; cold: every buffer DISCONT (re-seeded and settled from scratch). */
static double
scene_flicker (const gchar * line, int w, int h, int frames, gboolean cold)
{
  GstHarness *hn = cv_harness_new (line, "RGBA", w, h);
  GstBuffer *in[2] = { NULL, NULL }, *out[2] = { NULL, NULL };
  double sum = 0.0;
  for (int t = 0; t < frames; t++) {
    int cur = t & 1, prev = cur ^ 1;
    GstBuffer *b = noisy_scene (w, h, t);
    if (cold)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    if (in[cur])
      gst_buffer_unref (in[cur]);
    if (out[cur])
      gst_buffer_unref (out[cur]);
    in[cur] = gst_buffer_copy_deep (b);
    out[cur] = gst_harness_push_and_pull (hn, b);
    fail_unless (out[cur] != NULL);
    if (t == 0)
      continue;
    GstMapInfo a0, a1, r0, r1;
    fail_unless (gst_buffer_map (in[prev], &a0, GST_MAP_READ));
    fail_unless (gst_buffer_map (in[cur], &a1, GST_MAP_READ));
    fail_unless (gst_buffer_map (out[prev], &r0, GST_MAP_READ));
    fail_unless (gst_buffer_map (out[cur], &r1, GST_MAP_READ));
    long long still, changed;
    cv_flicker_pair (a0.data, a1.data, r0.data, r1.data, (size_t) w * h, &still, &changed,
        NULL);
    fail_unless (still > w * h / 2, "the scene is mostly static");
    sum += (double) changed / still;
    gst_buffer_unmap (in[prev], &a0);
    gst_buffer_unmap (in[cur], &a1);
    gst_buffer_unmap (out[prev], &r0);
    gst_buffer_unmap (out[cur], &r1);
  }
  for (int k = 0; k < 2; k++) {
    gst_buffer_unref (in[k]);
    gst_buffer_unref (out[k]);
  }
  gst_harness_teardown (hn);
  return sum / (frames - 1);
}

GST_START_TEST (test_warm_start_coherent)
{
  /* the temporal coherence: with the content-weighted densities (mosaic,
   * stippling) a per-frame CVD (cold: re-seeded every frame) re-converges into
   * another diagram whenever the content changes, the warm start keeps its cells;
   * advection moves only the cells over what moves. Uniform density: cold draws the
   * same diagram every frame (the floor), warm must not flicker more: without the
   * settling and the lattice seeding it did (docs/cvdmosaic.md). */
  const int w = 128, h = 72, frames = 8;
  const char *densities[] = { "gradient", "dark", "uniform" };
  for (gsize d = 0; d < G_N_ELEMENTS (densities); d++) {
    gchar *line = g_strdup_printf ("cvdmosaic backend=cpu sites=120 iterations=2 "
        "settle-iterations=30 density=%s border-width=1", densities[d]);
    gchar *adv = g_strdup_printf ("%s advect=flow", line);
    double cold = scene_flicker (line, w, h, frames, TRUE);
    double warm = scene_flicker (line, w, h, frames, FALSE);
    double advect = scene_flicker (adv, w, h, frames, FALSE);
    g_print ("cvdmosaic flicker, %s density: cold %.4f, warm %.4f, advect %.4f\n",
        densities[d], cold, warm, advect);
    if (d < 2) {
      fail_unless (warm < cold, "%s: warm flicker %g >= cold %g", densities[d], warm, cold);
      fail_unless (advect < cold, "%s: advect flicker %g >= cold %g", densities[d], advect,
          cold);
    } else {
      /* both settle to the same kind of diagram; the warm one may still creep by a
       * 1/256 px step now and then: within 0.5 % of the static pixels */
      fail_unless (warm <= cold + 0.005, "uniform: warm flicker %g > cold %g", warm, cold);
    }
    g_free (adv);
    g_free (line);
  }
}
GST_END_TEST;

static Suite *
cvdmosaic_suite (void)
{
  Suite *s = suite_create ("cvdmosaic");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_styles_pixels);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_caps_change_and_sizes);
  tcase_add_test (tc, test_too_many_sites);
  tcase_add_test (tc, test_reset_on_flush_and_discont);
  tcase_add_test (tc, test_advect_runs);
  tcase_add_test (tc, test_warm_start_coherent);
  tcase_add_test (tc, test_cuda_memory_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (cvdmosaic);
