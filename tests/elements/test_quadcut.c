/* SPDX-License-Identifier: GPL-3.0-or-later */
/* quadcut through GstHarness: every output's pixels against cc_quadcut run directly
 * on the same bytes (and the masks against the synthetic clip's exact masks), the
 * plate from a file, learned and relearned, active illumination, a caps change, the
 * alpha-caps negotiation error, missing and corrupt images, the reset on a flush,
 * and CUDA memory when a GPU is present. */
#include "element_common.h"
#include "gstcvfilter.h"
#include "cv_imageio.h"
#include "cv_synth.h"
#include <cudacore/cc_quadcut.h>
#include <glib/gstdio.h>
#include <string.h>

#define W 96
#define H 72

static gchar *tmpdir;

static gchar *
tmp_path (const gchar * name)
{
  if (!tmpdir)
    tmpdir = g_dir_make_tmp ("quadcut-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
  return g_build_filename (tmpdir, name, NULL);
}

/* A buffer of `format` from a host RGBX8 image (GstVideoConverter for the others). */
static GstBuffer *
buffer_from_rgbx (const cc_image * img, const gchar * format)
{
  GstVideoInfo sinfo, dinfo;
  gst_video_info_set_format (&sinfo, GST_VIDEO_FORMAT_RGBA, img->width, img->height);
  gst_video_info_set_format (&dinfo, gst_video_format_from_string (format), img->width,
      img->height);
  GstBuffer *src = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&sinfo), NULL);
  GstBuffer *dst = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&dinfo), NULL);
  gst_buffer_add_video_meta_full (dst, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&dinfo), img->width, img->height,
      GST_VIDEO_INFO_N_PLANES (&dinfo), dinfo.offset, dinfo.stride);
  GstVideoFrame sf, df;
  fail_unless (gst_video_frame_map (&sf, &sinfo, src, GST_MAP_WRITE));
  for (int y = 0; y < img->height; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&sf, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&sf, 0),
        (const guint8 *) img->planes[0] + y * img->pitch[0], 4 * img->width);
  fail_unless (gst_video_frame_map (&df, &dinfo, dst, GST_MAP_WRITE));
  GstVideoConverter *conv = gst_video_converter_new (&sinfo, &dinfo, NULL);
  gst_video_converter_frame (conv, &sf, &df);
  gst_video_converter_free (conv);
  gst_video_frame_unmap (&sf);
  gst_video_frame_unmap (&df);
  gst_buffer_unref (src);
  return dst;
}

/* Synthetic frame t of the foreground clip (noise 6) as a buffer, its mask in mask. */
static GstBuffer *
fg_buffer (int t, int w, int h, int illumination, const gchar * format, guint8 * mask)
{
  cc_image img;
  CC_ASSERT_OK (cv_synth_fg_frame (t, w, h, illumination, 6, &img, mask));
  GstBuffer *buf = buffer_from_rgbx (&img, format);
  cv_image_free (&img);
  GST_BUFFER_PTS (buf) = t * GST_SECOND / 30;
  return buf;
}

static GstBuffer *
plate_buffer (int w, int h, const gchar * format)
{
  cc_image img;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &img));
  GstBuffer *buf = buffer_from_rgbx (&img, format);
  cv_image_free (&img);
  return buf;
}

/* The plate (or any RGBX8 image) saved as a PNG in the temporary folder. */
static gchar *
save_png (const gchar * name, const cc_image * img)
{
  gchar *path = tmp_path (name);
  CC_ASSERT_OK (cv_png_save (path, img));
  return path;
}

static gchar *
save_plate (int w, int h)
{
  cc_image img;
  CC_ASSERT_OK (cv_synth_fg_plate (w, h, &img));
  gchar *path = save_png ("plate.png", &img);
  cv_image_free (&img);
  return path;
}

/* ---- the reference: cc_quadcut on the CPU, on the same bytes */

typedef struct {
  cc_context *ctx;
  cc_quadcut *q;
  GstVideoInfo info;
} Ref;

static void
ref_init (Ref * r, const gchar * format, int w, int h, const cc_quadcut_params * p)
{
  CC_ASSERT_OK (cc_context_create (CC_BACKEND_CPU, -1, &r->ctx));
  CC_ASSERT_OK (cc_quadcut_create (r->ctx, w, h, p, &r->q));
  gst_video_info_set_format (&r->info, gst_video_format_from_string (format), w, h);
}

static void
ref_clear (Ref * r)
{
  cc_quadcut_destroy (r->q);
  cc_context_destroy (r->ctx);
}

/* Maps buf (read or write) and gives its cc_image view. */
static cc_image
map_view (Ref * r, GstBuffer * buf, GstVideoFrame * vf, GstMapFlags flags)
{
  fail_unless (gst_video_frame_map (vf, &r->info, buf, flags));
  return gst_cv_video_frame_view (vf, CC_LOCATION_HOST);
}

static void
ref_set_plate (Ref * r, GstBuffer * plate)
{
  GstVideoFrame vf;
  cc_image img = map_view (r, plate, &vf, GST_MAP_READ);
  CC_ASSERT_OK (cc_quadcut_set_plate (r->q, NULL, &img));
  gst_video_frame_unmap (&vf);
}

static void
ref_update_plate (Ref * r, GstBuffer * frame, int step, gboolean background_only)
{
  GstVideoFrame vf;
  cc_image img = map_view (r, frame, &vf, GST_MAP_READ);
  CC_ASSERT_OK (cc_quadcut_update_plate (r->q, NULL, &img, step, background_only));
  gst_video_frame_unmap (&vf);
}

typedef enum { OUT_COMPOSITE, OUT_ALPHA, OUT_MASK, OUT_DEBUG } Out;

/* Runs the reference on `in` (and `other`, active mode) and returns what the element
 * should write: a new buffer. */
static GstBuffer *
ref_run (Ref * r, GstBuffer * in, GstBuffer * other, Out out,
    const cc_background * bg)
{
  GstVideoFrame fv, ov, rv;
  cc_image frame = map_view (r, in, &fv, GST_MAP_READ), oimg;
  if (other)
    oimg = map_view (r, other, &ov, GST_MAP_READ);
  CC_ASSERT_OK (cc_quadcut_compute_sync (r->q, NULL, &frame, other ? &oimg : NULL));
  GstBuffer *res = gst_buffer_copy_deep (in);
  cc_image dst = map_view (r, res, &rv, GST_MAP_READWRITE);
  switch (out) {
    case OUT_COMPOSITE:
      CC_ASSERT_OK (cc_quadcut_composite (r->q, NULL, &frame, bg, &dst));
      break;
    case OUT_ALPHA:
      CC_ASSERT_OK (cc_quadcut_set_alpha (r->q, NULL, &dst));
      break;
    case OUT_MASK: {
      /* white over black: the alpha as grey */
      cc_image rgbx;
      CC_ASSERT_OK (cv_image_new (r->info.width, r->info.height, CC_FORMAT_RGBX8, &rgbx));
      memset (rgbx.planes[0], 255, rgbx.pitch[0] * rgbx.height);
      GstBuffer *wb = buffer_from_rgbx (&rgbx, gst_video_format_to_string (r->info.finfo->format));
      GstVideoFrame wv;
      cc_image wimg = map_view (r, wb, &wv, GST_MAP_READ);
      cc_background black = { .kind = CC_BACKGROUND_COLOR };
      CC_ASSERT_OK (cc_quadcut_composite (r->q, NULL, &wimg, &black, &dst));
      gst_video_frame_unmap (&wv);
      gst_buffer_unref (wb);
      cv_image_free (&rgbx);
      break;
    }
    case OUT_DEBUG:
      CC_ASSERT_OK (cc_quadcut_draw (r->q, NULL, &frame, &dst));
      break;
  }
  gst_video_frame_unmap (&rv);
  gst_video_frame_unmap (&fv);
  if (other)
    gst_video_frame_unmap (&ov);
  return res;
}

/* The reference's mask (w x h bytes, g_free). */
static guint8 *
ref_mask (Ref * r)
{
  int w = r->info.width, h = r->info.height;
  guint8 *m = g_malloc (w * h);
  cc_image img = cc_image_view (m, w, w, h, CC_FORMAT_GRAY8, CC_LOCATION_HOST);
  CC_ASSERT_OK (cc_quadcut_get_mask (r->q, NULL, &img));
  return m;
}

/* Bytes of two buffers of the same video info that differ (every plane's visible
 * bytes). */
static long
differ (const GstVideoInfo * info, GstBuffer * a, GstBuffer * b)
{
  GstVideoFrame fa, fb;
  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  long n = 0;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    int rows = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p == 0 ? 0 : 1);
    int bytes = GST_VIDEO_FRAME_COMP_WIDTH (&fa, p == 0 ? 0 : 1)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p == 0 ? 0 : 1);
    for (int y = 0; y < rows; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      for (int x = 0; x < bytes; x++)
        n += ra[x] != rb[x];
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return n;
}

/* Pixels where `got` (0/255) and the truth disagree, not counting those within 2 px
 * of the truth's edge. */
static long
mask_errors (const guint8 * got, const guint8 * truth, int w, int h)
{
  long n = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      if (got[y * w + x] == truth[y * w + x])
        continue;
      gboolean edge = FALSE;
      for (int dy = -2; dy <= 2 && !edge; dy++)
        for (int dx = -2; dx <= 2 && !edge; dx++) {
          int xx = CLAMP (x + dx, 0, w - 1), yy = CLAMP (y + dy, 0, h - 1);
          edge = truth[yy * w + xx] != truth[y * w + x];
        }
      n += !edge;
    }
  return n;
}

/* mask_errors of an RGBA output=mask buffer (R > 127: foreground). */
static long
output_errors (GstBuffer * buf, const guint8 * truth, int w, int h, long *fg)
{
  GstMapInfo m;
  fail_unless (gst_buffer_map (buf, &m, GST_MAP_READ));
  guint8 *bin = g_malloc (w * h);
  long n = 0;
  for (int i = 0; i < w * h; i++) {
    bin[i] = m.data[4 * i] > 127 ? 255 : 0;
    n += bin[i] != 0;
  }
  gst_buffer_unmap (buf, &m);
  long e = mask_errors (bin, truth, w, h);
  g_free (bin);
  if (fg)
    *fg = n;
  return e;
}

/* The R byte of an RGBA output as a w x h mask (g_free). */
static guint8 *
red_plane (GstBuffer * buf, int w, int h)
{
  GstMapInfo m;
  fail_unless (gst_buffer_map (buf, &m, GST_MAP_READ));
  guint8 *r = g_malloc (w * h);
  for (int i = 0; i < w * h; i++)
    r[i] = m.data[4 * i];
  gst_buffer_unmap (buf, &m);
  return r;
}

static GstHarness *
harness (const gchar * launch, const gchar * format, int w, int h)
{
  return cv_harness_new (launch, format, w, h);
}

/* Pushes `in` (kept: the element writes into a copy) and pulls the output. */
static GstBuffer *
push (GstHarness * h, GstBuffer * in)
{
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  return out;
}

static void
default_params (cc_quadcut_params * p)
{
  cc_quadcut_params_default (p);
  p->shadow_depth = 0.6f;   /* the clip's shadow takes 45 % of the light */
}

#define PARAMS "backend=cpu shadow-depth=0.6"

/* ---------------------------------------------------------------- tests */

/* Every output, over every background, in RGBA / BGRx / NV12 / I420 with the plate
 * from a file: the element's bytes equal the core's; the mask is the clip's exact
 * mask except within 2 px of its edge. */
GST_START_TEST (test_outputs)
{
  gchar *plate = save_plate (W, H);
  cc_image back;
  CC_ASSERT_OK (cv_synth_fg_frame (40, W, H, CV_SYNTH_FG_PLAIN, 20, &back, NULL));
  gchar *back_path = save_png ("back.png", &back);
  struct { Out out; const gchar *props; cc_background_kind bg; } cases[] = {
    { OUT_COMPOSITE, "background-color=0x0a141e", CC_BACKGROUND_COLOR },
    { OUT_COMPOSITE, "background=blur blur-radius=4", CC_BACKGROUND_BLUR },
    { OUT_COMPOSITE, "background-location=%s", CC_BACKGROUND_IMAGE },
    { OUT_ALPHA, "output=alpha", CC_BACKGROUND_COLOR },
    { OUT_MASK, "output=mask", CC_BACKGROUND_COLOR },
    { OUT_DEBUG, "output=debug", CC_BACKGROUND_COLOR },
  };
  const gchar *formats[] = { "RGBA", "BGRx", "NV12", "I420", "BGRA", "RGBx" };
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gsize c = 0; c < G_N_ELEMENTS (cases); c++) {
      if (cases[c].out == OUT_ALPHA && !g_str_has_suffix (formats[f], "A"))
        continue;
      gchar *props = g_strdup_printf (cases[c].props, back_path);
      gchar *launch = g_strdup_printf ("quadcut " PARAMS " feather=2 plate-location=%s %s",
          plate, props);
      GstHarness *h = harness (launch, formats[f], W, H);
      cc_quadcut_params p;
      default_params (&p);
      p.feather = 2;
      Ref r;
      ref_init (&r, formats[f], W, H, &p);
      GstBuffer *pb = plate_buffer (W, H, "RGBA");
      GstVideoInfo rgba = r.info;
      gst_video_info_set_format (&r.info, GST_VIDEO_FORMAT_RGBA, W, H);
      ref_set_plate (&r, pb);
      r.info = rgba;
      GstBuffer *bgb = buffer_from_rgbx (&back, formats[f]);
      GstVideoFrame bv;
      cc_image bimg = map_view (&r, bgb, &bv, GST_MAP_READ);
      cc_background bg = { .kind = cases[c].bg, .image = &bimg, .r = 10, .g = 20,
                                   .b = 30, .blur_radius = 4 };
      for (int t = 10; t < 13; t++) {
        guint8 truth[W * H];
        GstBuffer *in = fg_buffer (t, W, H, CV_SYNTH_FG_PLAIN, formats[f], truth);
        GstBuffer *out = push (h, in);
        GstBuffer *want = ref_run (&r, in, NULL, cases[c].out, &bg);
        long d = differ (&r.info, out, want);
        fail_unless (d == 0, "%s, %s, frame %d: %ld bytes differ from the core", formats[f],
            props, t, d);
        guint8 *m = ref_mask (&r);
        long e = mask_errors (m, truth, W, H);
        fail_unless (e == 0, "%s frame %d: %ld mask errors off the edge", formats[f], t, e);
        if (cases[c].out == OUT_MASK && !strcmp (formats[f], "RGBA")) {
          /* the output itself: white object, black background (feather 2: grey edge) */
          guint8 *red = red_plane (out, W, H);
          long wrong = 0;
          for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
              gboolean inner = TRUE;
              for (int dy = -4; dy <= 4; dy++)
                for (int dx = -4; dx <= 4; dx++)
                  inner &= truth[CLAMP (y + dy, 0, H - 1) * W + CLAMP (x + dx, 0, W - 1)]
                      == truth[y * W + x];
              if (inner)
                wrong += red[y * W + x] != truth[y * W + x];
            }
          fail_unless (wrong == 0, "mask output: %ld pixels away from the edge wrong", wrong);
          g_free (red);
        }
        g_free (m);
        gst_buffer_unref (in);
        gst_buffer_unref (out);
        gst_buffer_unref (want);
      }
      gst_video_frame_unmap (&bv);
      gst_buffer_unref (bgb);
      gst_buffer_unref (pb);
      ref_clear (&r);
      gst_harness_teardown (h);
      g_free (launch);
      g_free (props);
    }
  cv_image_free (&back);
  g_unlink (back_path);
  g_unlink (plate);
  g_free (back_path);
  g_free (plate);
}
GST_END_TEST;

/* A learned plate: the first frame gives a plate equal to itself (all background:
 * the solid colour everywhere); then set_plate + update_plate(learn-step) as the core
 * does; once learned, the clip's masks. relearn: the next frame is the new plate. */
GST_START_TEST (test_plate_learned_and_relearn)
{
  const int frames = 4, step = 40;
  gchar *launch = g_strdup_printf ("quadcut " PARAMS " name=q output=mask learn-frames=%d "
      "learn-step=%d", frames, step);
  GstHarness *h = harness (launch, "RGBA", W, H);
  cc_quadcut_params p;
  default_params (&p);
  Ref r;
  ref_init (&r, "RGBA", W, H, &p);
  /* learning: frames 0..3 are the empty scene */
  for (int t = 0; t < frames; t++) {
    GstBuffer *in = plate_buffer (W, H, "RGBA");
    if (t == 0)
      ref_set_plate (&r, in);
    else
      ref_update_plate (&r, in, step, FALSE);
    GstBuffer *out = push (h, in);
    GstBuffer *want = ref_run (&r, in, NULL, OUT_MASK, NULL);
    ck_assert_int_eq (differ (&r.info, out, want), 0);
    guint8 *red = red_plane (out, W, H);
    for (int i = 0; i < W * H; i++)
      fail_unless (red[i] == 0, "learning frame %d: pixel %d is foreground", t, i);
    g_free (red);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_buffer_unref (want);
  }
  /* learned: the object is found, and the plate no longer moves */
  for (int t = 10; t < 13; t++) {
    guint8 truth[W * H];
    GstBuffer *in = fg_buffer (t, W, H, CV_SYNTH_FG_PLAIN, "RGBA", truth);
    GstBuffer *out = push (h, in);
    GstBuffer *want = ref_run (&r, in, NULL, OUT_MASK, NULL);
    ck_assert_int_eq (differ (&r.info, out, want), 0);
    guint8 *m = ref_mask (&r);
    long e = mask_errors (m, truth, W, H), fg = 0;
    for (int i = 0; i < W * H; i++)
      fg += truth[i] != 0;
    fail_unless (fg > 200 && e == 0, "frame %d: %ld mask errors (object %ld px)", t, e, fg);
    g_free (m);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_buffer_unref (want);
  }
  /* caps renegotiated at the same size (another framerate): the learned plate stays */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=96,height=72,framerate=25/1");
  {
    guint8 truth[W * H];
    GstBuffer *in = fg_buffer (13, W, H, CV_SYNTH_FG_PLAIN, "RGBA", truth);
    GstBuffer *out = push (h, in);
    long fg, e = output_errors (out, truth, W, H, &fg);
    fail_unless (fg > 200 && e == 0, "after new caps: %ld fg, %ld errors (plate lost?)", fg, e);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  /* relearn: frame 20 (object inside) becomes the plate: all background */
  GstElement *q = gst_harness_find_element (h, "quadcut");
  g_signal_emit_by_name (q, "relearn");
  gst_object_unref (q);
  GstBuffer *in = fg_buffer (20, W, H, CV_SYNTH_FG_PLAIN, "RGBA", NULL);
  GstBuffer *out = push (h, in);
  guint8 *red = red_plane (out, W, H);
  for (int i = 0; i < W * H; i++)
    fail_unless (red[i] == 0, "after relearn: pixel %d is foreground", i);
  g_free (red);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  ref_clear (&r);
  gst_harness_teardown (h);
  g_free (launch);
}
GST_END_TEST;

/* plate-update-rate: after each frame the file's plate moves towards the frame where
 * the alpha is 0, as cc_quadcut_update_plate does. */
GST_START_TEST (test_plate_update)
{
  gchar *plate = save_plate (W, H);
  gchar *launch = g_strdup_printf ("quadcut " PARAMS " output=mask plate-update-rate=3 "
      "plate-location=%s", plate);
  GstHarness *h = harness (launch, "RGBA", W, H);
  cc_quadcut_params p;
  default_params (&p);
  Ref r;
  ref_init (&r, "RGBA", W, H, &p);
  GstBuffer *pb = plate_buffer (W, H, "RGBA");
  ref_set_plate (&r, pb);
  for (int t = 0; t < 6; t++) {
    GstBuffer *in = fg_buffer (t, W, H, CV_SYNTH_FG_PLAIN, "RGBA", NULL);
    GstBuffer *out = push (h, in);
    GstBuffer *want = ref_run (&r, in, NULL, OUT_MASK, NULL);
    ref_update_plate (&r, in, 3, TRUE);
    ck_assert_int_eq (differ (&r.info, out, want), 0);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_buffer_unref (want);
  }
  gst_buffer_unref (pb);
  ref_clear (&r);
  gst_harness_teardown (h);
  g_unlink (plate);
  g_free (plate);
  g_free (launch);
}
GST_END_TEST;

/* Active illumination: an unlit / lit alternation. The first frame has no pair (all
 * background); then each frame against the previous one, as the core gives, and the
 * clip's mask. Two frames of the same light: a warning. */
GST_START_TEST (test_active_illumination)
{
  GstHarness *h = harness ("quadcut backend=cpu mode=active-illumination output=mask "
      "sigma-l=4", "RGBA", W, H);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  cc_quadcut_params p;
  cc_quadcut_params_default (&p);
  p.mode = CC_QUADCUT_MODE_ACTIVE;
  p.sigma_l = 4.0f;
  Ref r;
  ref_init (&r, "RGBA", W, H, &p);
  GstBuffer *prev = NULL;
  guint8 prev_truth[W * H];
  for (int t = 10; t < 14; t++) {
    guint8 truth[W * H], both[W * H];
    int ill = t % 2 ? CV_SYNTH_FG_LIT : CV_SYNTH_FG_UNLIT;
    GstBuffer *in = fg_buffer (t, W, H, ill, "RGBA", truth);
    GstBuffer *out = push (h, in);
    GstBuffer *want = ref_run (&r, in, prev ? prev : in, OUT_MASK, NULL);
    ck_assert_int_eq (differ (&r.info, out, want), 0);
    guint8 *m = ref_mask (&r);
    if (!prev) {
      for (int i = 0; i < W * H; i++)
        fail_unless (m[i] == 0, "first frame: pixel %d is foreground", i);
    } else {
      /* |L - L_other| sees the object where it is in either frame of the pair */
      for (int i = 0; i < W * H; i++)
        both[i] = truth[i] | prev_truth[i];
      long e = mask_errors (m, both, W, H), fg = 0;
      for (int i = 0; i < W * H; i++)
        fg += m[i] != 0;
      fail_unless (fg > 200 && e < W * H / 50, "frame %d: %ld errors, %ld fg", t, e, fg);
    }
    g_free (m);
    if (prev)
      gst_buffer_unref (prev);
    prev = in;
    memcpy (prev_truth, truth, sizeof truth);
    gst_buffer_unref (out);
    gst_buffer_unref (want);
  }
  fail_if (gst_bus_have_pending (bus), "a warning for alternating frames");
  /* the same light twice: warned once */
  GstBuffer *in = fg_buffer (14, W, H, CV_SYNTH_FG_UNLIT, "RGBA", NULL);
  gst_buffer_unref (push (h, in));
  gst_buffer_unref (push (h, in));
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for a pair of the same light");
  GError *err;
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "same mean luminance") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_buffer_unref (in);
  gst_buffer_unref (prev);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  ref_clear (&r);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A caps change keeps a file's plate (converted to the new format), and a plate of
 * another size is scaled with a warning. */
GST_START_TEST (test_caps_change_and_plate_size)
{
  gchar *plate = save_plate (W, H);
  gchar *launch = g_strdup_printf ("quadcut " PARAMS " output=mask plate-location=%s", plate);
  GstHarness *h = harness (launch, "RGBA", W, H);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  cc_quadcut_params p;
  default_params (&p);
  guint8 truth[W * H];
  GstBuffer *in = fg_buffer (10, W, H, CV_SYNTH_FG_PLAIN, "RGBA", truth);
  gst_buffer_unref (push (h, in));
  gst_buffer_unref (in);
  fail_if (gst_bus_have_pending (bus), "a message for a plate of the frame's size");
  /* BGRx: the same plate, the same mask as the core's on BGRx */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=BGRx,width=96,height=72,framerate=30/1");
  Ref r;
  ref_init (&r, "BGRx", W, H, &p);
  GstBuffer *pb = plate_buffer (W, H, "BGRx");
  ref_set_plate (&r, pb);
  in = fg_buffer (11, W, H, CV_SYNTH_FG_PLAIN, "BGRx", truth);
  GstBuffer *out = push (h, in);
  GstBuffer *want = ref_run (&r, in, NULL, OUT_MASK, NULL);
  ck_assert_int_eq (differ (&r.info, out, want), 0);
  guint8 *m = ref_mask (&r);
  ck_assert_int_eq (mask_errors (m, truth, W, H), 0);
  g_free (m);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_buffer_unref (want);
  gst_buffer_unref (pb);
  ref_clear (&r);
  /* 48x36 frames: the 96x72 plate is scaled, with a warning; the object is found */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=48,height=36,framerate=30/1");
  guint8 small[48 * 36];
  in = fg_buffer (12, 48, 36, CV_SYNTH_FG_PLAIN, "RGBA", small);
  out = push (h, in);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for the scaled plate");
  GError *err;
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "the plate is 96x72, the frames 48x36") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  guint8 *red = red_plane (out, 48, 36);
  long e = 0, fg = 0;
  for (int i = 0; i < 48 * 36; i++) {
    e += (red[i] > 127) != (small[i] != 0);
    fg += small[i] != 0;
  }
  /* the scaled plate is not the small frame's plate: a few edge pixels may differ */
  fail_unless (fg > 50 && e < fg / 4, "48x36 with a scaled plate: %ld errors, %ld fg", e, fg);
  g_free (red);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_unlink (plate);
  g_free (plate);
  g_free (launch);
}
GST_END_TEST;

/* A background image of another size is scaled to the frame: a uniform 10x8 picture
 * gives its colour wherever the alpha is 0, the frame where it is 255, the blend in
 * between. */
GST_START_TEST (test_background_scaled)
{
  gchar *plate = save_plate (W, H);
  cc_image back;
  CC_ASSERT_OK (cv_image_new (10, 8, CC_FORMAT_RGBX8, &back));
  for (int i = 0; i < 10 * 8; i++) {
    guint8 *p = (guint8 *) back.planes[0] + 4 * i;
    p[0] = 37, p[1] = 99, p[2] = 180, p[3] = 255;
  }
  gchar *back_path = save_png ("back-small.png", &back);
  gchar *launch = g_strdup_printf ("quadcut " PARAMS " feather=2 plate-location=%s "
      "background-location=%s", plate, back_path);
  GstHarness *h = harness (launch, "RGBA", W, H);
  cc_quadcut_params p;
  default_params (&p);
  p.feather = 2;
  Ref r;
  ref_init (&r, "RGBA", W, H, &p);
  GstBuffer *pb = plate_buffer (W, H, "RGBA");
  ref_set_plate (&r, pb);
  GstBuffer *in = fg_buffer (10, W, H, CV_SYNTH_FG_PLAIN, "RGBA", NULL);
  GstBuffer *out = push (h, in);
  cc_background bg = { .kind = CC_BACKGROUND_COLOR, .r = 37, .g = 99, .b = 180 };
  GstBuffer *want = ref_run (&r, in, NULL, OUT_COMPOSITE, &bg);
  long d = differ (&r.info, out, want);
  fail_unless (d == 0, "the scaled uniform background differs from the colour in %ld bytes", d);
  guint8 alpha[W * H];
  cc_image aimg = cc_image_view (alpha, W, W, H, CC_FORMAT_GRAY8, CC_LOCATION_HOST);
  CC_ASSERT_OK (cc_quadcut_get_alpha (r.q, NULL, &aimg));
  long zero = 0, full = 0;
  for (int i = 0; i < W * H; i++) {
    zero += alpha[i] == 0;
    full += alpha[i] == 255;
  }
  fail_unless (zero > W * H / 2 && full > 200, "alpha 0 on %ld, 255 on %ld pixels", zero, full);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_buffer_unref (want);
  gst_buffer_unref (pb);
  ref_clear (&r);
  gst_harness_teardown (h);
  cv_image_free (&back);
  g_unlink (back_path);
  g_unlink (plate);
  g_free (back_path);
  g_free (plate);
  g_free (launch);
}
GST_END_TEST;

/* Runs `launch` to PLAYING and back; returns the first error's message (g_free), or
 * NULL. *failed: the state change to PAUSED failed. */
static gchar *
pipeline_error (const gchar * launch, gchar ** debug)
{
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (launch, &perr);
  fail_unless (pipe != NULL && perr == NULL, "%s", perr ? perr->message : launch);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gchar *text = NULL;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err;
    gst_message_parse_error (msg, &err, debug);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return text;
}

/* output=alpha: caps without alpha fail with the reason; with the caps named after a
 * videoconvert, the alpha channel is written. */
GST_START_TEST (test_alpha_caps)
{
  gchar *debug = NULL;
  gchar *e = pipeline_error ("videotestsrc num-buffers=2 ! video/x-raw,format=RGBx,"
      "width=64,height=48 ! quadcut backend=cpu output=alpha ! fakesink", &debug);
  fail_unless (e != NULL, "RGBx with output=alpha ran");
  fail_unless (strstr (e, "output=alpha needs RGBA or BGRA caps, not RGBx") != NULL, "%s", e);
  fail_unless (debug && strstr (debug, "videoconvert") != NULL);
  g_free (e);
  g_free (debug);
  debug = NULL;
  e = pipeline_error ("videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,"
      "height=48 ! quadcut backend=cpu output=alpha ! fakesink", &debug);
  fail_unless (e && strstr (e, "not I420"), "%s", e ? e : "no error");
  g_free (e);
  g_free (debug);
  /* through videoconvert to BGRA: the alpha is written (all 0 on the first frame,
   * which starts the learned plate: all background) */
  GstHarness *h = gst_harness_new_parse ("videoconvert ! video/x-raw,format=BGRA ! "
      "quadcut backend=cpu output=alpha");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw");
  GstBuffer *in = gst_buffer_new_allocate (NULL, 64 * 48 * 3 / 2, NULL);
  gst_buffer_memset (in, 0, 128, 64 * 48 * 3 / 2);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_BGRA);
  GstMapInfo m;
  fail_unless (gst_buffer_map (out, &m, GST_MAP_READ));
  for (gsize i = 3; i < m.size; i += 4)
    fail_unless (m.data[i] == 0, "alpha %d at byte %" G_GSIZE_FORMAT, m.data[i], i);
  gst_buffer_unmap (out, &m);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A missing, a corrupt and a non-image file fail the start with the file's name. */
GST_START_TEST (test_bad_images)
{
  gchar *corrupt = tmp_path ("corrupt.png"), *text = tmp_path ("text.png");
  /* a PNG signature and a truncated header */
  static const guint8 bad_png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0,
                                    13, 'I', 'H', 'D', 'R', 0, 0 };
  fail_unless (g_file_set_contents (corrupt, (const gchar *) bad_png, sizeof bad_png, NULL));
  fail_unless (g_file_set_contents (text, "not an image\n", -1, NULL));
  struct { const gchar *prop; const gchar *path; const gchar *want; } cases[] = {
    { "plate-location", "/nonexistent/plate.png", "plate-location: cannot open "
      "\"/nonexistent/plate.png\"" },
    { "background-location", "/nonexistent/b.jpg", "background-location: cannot open" },
    { "plate-location", corrupt, "plate-location: cannot read the image" },
    { "background-location", text, "is neither a PNG nor a JPEG" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *launch = g_strdup_printf ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,"
        "width=32,height=24 ! quadcut backend=cpu %s=%s ! fakesink", cases[i].prop,
        cases[i].path);
    gchar *e = pipeline_error (launch, NULL);
    fail_unless (e && strstr (e, cases[i].want), "%s: got %s", launch, e ? e : "no error");
    g_free (e);
    g_free (launch);
  }
  gchar *e = pipeline_error ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=32,"
      "height=24 ! quadcut backend=cpu background=image ! fakesink", NULL);
  fail_unless (e && strstr (e, "no background-location"), "%s", e ? e : "no error");
  g_free (e);
  g_unlink (corrupt);
  g_unlink (text);
  g_free (corrupt);
  g_free (text);
}
GST_END_TEST;

/* Flush (and DISCONT): the temporal prior goes (the frame after the flush equals a
 * fresh element's); a plate still learning is dropped (learning restarts: no ghost of
 * the first frame's object); a learned or file plate stays. */
GST_START_TEST (test_reset)
{
  gchar *plate = save_plate (W, H);
  CvResetKind kinds[] = { CV_RESET_FLUSH, CV_RESET_DISCONT };
  for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++) {
    /* temporal prior: temporal=100 would keep frame 10's object on frame 30 */
    gchar *launch = g_strdup_printf ("quadcut " PARAMS " output=mask temporal=100 "
        "plate-location=%s", plate);
    GstHarness *h = harness (launch, "RGBA", W, H), *fresh = harness (launch, "RGBA", W, H);
    GstBuffer *a = fg_buffer (10, W, H, CV_SYNTH_FG_PLAIN, "RGBA", NULL);
    GstBuffer *b = fg_buffer (30, W, H, CV_SYNTH_FG_PLAIN, "RGBA", NULL);
    gst_buffer_unref (push (h, a));
    GstBuffer *stale = push (h, b), *want = push (fresh, b);
    GstBuffer *b2 = gst_buffer_copy_deep (b);
    gst_buffer_unref (push (h, a));
    cv_harness_interrupt (h, kinds[k], b2);
    GstBuffer *after = push (h, b2);
    GstVideoInfo info;
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, W, H);
    fail_unless (differ (&info, stale, want) > 0, "temporal=100 had no effect: the test "
        "cannot see a reset");
    long d = differ (&info, after, want);
    fail_unless (d == 0, "reset %d: %ld bytes differ from a fresh element", kinds[k], d);
    gst_buffer_unref (stale);
    gst_buffer_unref (want);
    gst_buffer_unref (after);
    gst_buffer_unref (b2);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    gst_harness_teardown (h);
    gst_harness_teardown (fresh);
    g_free (launch);
  }
  /* learning: frame 10 starts the plate (step 1: its object stays in it), a flush drops
   * it, and five empty frames make the plate; frame 30 is then exact */
  GstHarness *h = harness ("quadcut " PARAMS " output=mask learn-frames=5 learn-step=1",
      "RGBA", W, H);
  GstBuffer *a = fg_buffer (10, W, H, CV_SYNTH_FG_PLAIN, "RGBA", NULL);
  GstBuffer *pb = plate_buffer (W, H, "RGBA");
  gst_buffer_unref (push (h, a));
  GstBuffer *pb2 = gst_buffer_copy_deep (pb);
  cv_harness_interrupt (h, CV_RESET_FLUSH, pb2);
  gst_buffer_unref (push (h, pb2));
  gst_buffer_unref (pb2);   /* push() takes its own reference (LeakSanitizer found it) */
  for (int i = 0; i < 4; i++)
    gst_buffer_unref (push (h, pb));
  guint8 truth[W * H];
  GstBuffer *b = fg_buffer (30, W, H, CV_SYNTH_FG_PLAIN, "RGBA", truth);
  GstBuffer *out = push (h, b);
  long fg, e = output_errors (out, truth, W, H, &fg);
  /* a ghost of frame 10's object would be hundreds of pixels */
  fail_unless (fg > 200 && e == 0, "after a flush while learning: %ld pixels wrong", e);
  gst_buffer_unref (out);
  /* learned: a flush keeps it (frame 30 again: the same output; a relearn would take
   * frame 30 for the plate and find nothing) */
  GstBuffer *b2 = gst_buffer_copy_deep (b);
  cv_harness_interrupt (h, CV_RESET_FLUSH, b2);
  out = push (h, b2);
  e = output_errors (out, truth, W, H, &fg);
  fail_unless (fg > 200 && e == 0, "a flush dropped the learned plate (%ld fg, %ld wrong)",
      fg, e);
  gst_buffer_unref (out);
  gst_buffer_unref (b2);
  gst_buffer_unref (b);
  gst_buffer_unref (a);
  gst_buffer_unref (pb);
  gst_harness_teardown (h);
  /* the file's plate stays too (the first test: the frame after the flush found the
   * object against it) */
  g_unlink (plate);
  g_free (plate);
}
GST_END_TEST;

/* cudaupload -> quadcut (CUDA memory) -> cudadownload: the same bytes as the CPU
 * backend, every output. */
GST_START_TEST (test_cuda_memory_matches_cpu)
{
  CV_SKIP_WITHOUT_CUDA_ELEMENTS ("quadcut cuda_memory_matches_cpu");
  gchar *plate = save_plate (W, H);
  const gchar *outputs[] = { "composite", "alpha", "mask", "debug" };
  const gchar *formats[] = { "RGBA", "NV12" };
  for (gsize f = 0; f < G_N_ELEMENTS (formats); f++)
    for (gsize o = 0; o < G_N_ELEMENTS (outputs); o++) {
      if (!strcmp (outputs[o], "alpha") && strcmp (formats[f], "RGBA"))
        continue;
      GstBuffer *outs[2];
      for (int k = 0; k < 2; k++) {
        gchar *launch = k == 0
            ? g_strdup_printf ("cudaupload ! video/x-raw(memory:CUDAMemory) ! quadcut "
                "backend=cuda shadow-depth=0.6 feather=2 output=%s plate-location=%s ! "
                "cudadownload ! capsfilter caps=video/x-raw,format=%s", outputs[o], plate, formats[f])
            : g_strdup_printf ("quadcut " PARAMS " feather=2 output=%s plate-location=%s",
                outputs[o], plate);
        GstHarness *h = harness (launch, formats[f], W, H);
        for (int t = 10; t < 12; t++) {
          GstBuffer *in = fg_buffer (t, W, H, CV_SYNTH_FG_PLAIN, formats[f], NULL);
          GstBuffer *out = push (h, in);
          if (t == 11)
            outs[k] = out;
          else
            gst_buffer_unref (out);
          gst_buffer_unref (in);
        }
        gst_harness_teardown (h);
        g_free (launch);
      }
      GstVideoInfo info;
      gst_video_info_set_format (&info, gst_video_format_from_string (formats[f]), W, H);
      long d = differ (&info, outs[0], outs[1]);
      fail_unless (d == 0, "%s %s: %ld bytes differ between CUDA memory and the CPU",
          formats[f], outputs[o], d);
      gst_buffer_unref (outs[0]);
      gst_buffer_unref (outs[1]);
    }
  g_unlink (plate);
  g_free (plate);
}
GST_END_TEST;

/* Each test removes its files; the folder goes after it (checked fixture: in the
 * test's process, where tmpdir was made). */
static void
remove_tmpdir (void)
{
  if (tmpdir)
    g_rmdir (tmpdir);
  g_free (tmpdir);
  tmpdir = NULL;
}

static Suite *
quadcut_suite (void)
{
  Suite *s = suite_create ("quadcut");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, NULL, remove_tmpdir);
  tcase_add_test (tc, test_outputs);
  tcase_add_test (tc, test_plate_learned_and_relearn);
  tcase_add_test (tc, test_plate_update);
  tcase_add_test (tc, test_active_illumination);
  tcase_add_test (tc, test_caps_change_and_plate_size);
  tcase_add_test (tc, test_background_scaled);
  tcase_add_test (tc, test_alpha_caps);
  tcase_add_test (tc, test_bad_images);
  tcase_add_test (tc, test_reset);
  tcase_add_test (tc, test_cuda_memory_matches_cpu);
  suite_add_tcase (s, tc);
  return s;
}

CV_CHECK_MAIN (quadcut);
