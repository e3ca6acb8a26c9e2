#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A live video effect on the camera: cvdmosaic (a Voronoi mosaic / stippling, LGPL
plugin) or quadcut (background replacement, GPL plugin cudavisiongpl).

  python3 examples/camera_effect.py [--effect mosaic|stipple|quadcut] [--frames N]
                                    [--device /dev/video0] [--file VIDEO] [--no-camera]
                                    [--sink SINK]

The camera (v4l2src) is used when it opens; otherwise (no camera, --no-camera) the
effect runs on --file (decoded by decodebin) or, without one, on videotestsrc. The
window is autovideosink when a display exists, else fakesink (--sink overrides).
--frames stops after N frames (0: until the window closes or the file ends). Without
--frames, a run nobody watches (fakesink: no display) stops after 100 frames, and
says so. The frames done and their rate are printed every
5 seconds.
"""
import time
import argparse
import os
import sys

import cvexample
from cvexample import Gst

# the frames of a run with no --frames that would otherwise not end or not be seen
DEFAULT_FRAMES = 100

EFFECTS = {
    'mosaic': 'cvdmosaic sites=2000 density=gradient border-width=1',
    'stipple': 'cvdmosaic sites=3000 density=dark style=stipple',
    # learns the background from the first 30 frames: keep out of the picture
    'quadcut': 'quadcut learn-frames=30 background=blur blur-radius=15',
}


def camera_source(device):
    """The camera's launch fragment when it opens (PAUSED reached), else None."""
    if not os.path.exists(device) or not Gst.ElementFactory.find('v4l2src'):
        return None
    desc = 'v4l2src device=%s' % device
    probe = Gst.parse_launch('%s ! fakesink' % desc)
    ret = probe.set_state(Gst.State.PAUSED)
    if ret == Gst.StateChangeReturn.ASYNC:
        ret = probe.get_state(5 * Gst.SECOND)[0]
    probe.set_state(Gst.State.NULL)
    return desc if ret in (Gst.StateChangeReturn.SUCCESS,
                           Gst.StateChangeReturn.NO_PREROLL) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--effect', choices=sorted(EFFECTS), default='mosaic')
    ap.add_argument('--frames', type=int,
                    help='stop after N frames (0: no limit; default: none in a window, '
                    '%d without one)' % DEFAULT_FRAMES)
    ap.add_argument('--device', default='/dev/video0')
    ap.add_argument('--file', help='the fallback video when there is no camera')
    ap.add_argument('--no-camera', action='store_true')
    ap.add_argument('--sink')
    ap.add_argument('--size', default='320x240', help='frame size (WxH)')
    args = ap.parse_args()
    effect = EFFECTS[args.effect]
    if not cvexample.have_element(effect.split()[0]):
        return 1

    source = None if args.no_camera else camera_source(args.device)
    if source:
        what = 'camera %s' % args.device
    elif args.file:
        source, what = 'filesrc location="%s" ! decodebin' % args.file, 'file %s' % args.file
    else:
        source, what = 'videotestsrc pattern=ball is-live=true', 'videotestsrc (no camera)'
    w, h = args.size.split('x')
    sink = args.sink or ('autovideosink' if os.environ.get('DISPLAY') or
                         os.environ.get('WAYLAND_DISPLAY') else 'fakesink')
    if args.frames is None:
        args.frames = 0
        if sink.split()[0] == 'fakesink':
            args.frames = DEFAULT_FRAMES
            print('camera_effect: no display: %d frames (--frames N for another count, '
                  '0 for no limit)' % args.frames)
    limit = ' ! identity eos-after=%d' % (args.frames + 1) if args.frames > 0 else ''
    launch = ('%s%s ! videoconvert ! videoscale ! video/x-raw,format=RGBA,width=%s,height=%s ! '
              '%s name=effect ! videoconvert ! %s' % (source, limit, w, h, effect, sink))
    print('camera_effect: %s through %s' % (what, effect.split()[0]), flush=True)
    pipe = Gst.parse_launch(launch)
    frames = [0]
    start = time.monotonic()
    shown = [start]

    def on_buffer(pad, info):
        # identity's eos-after may let later frames of a file (decodebin) through
        # after it returned EOS: --frames N shows N frames
        if 0 < args.frames <= frames[0]:
            return Gst.PadProbeReturn.DROP
        frames[0] += 1
        now = time.monotonic()
        if now - shown[0] >= 5:
            shown[0] = now
            print('camera_effect: %d frames, %.1f fps' % (frames[0], frames[0] / (now - start)),
                  flush=True)
        return Gst.PadProbeReturn.OK

    pipe.get_by_name('effect').get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER,
                                                               on_buffer)
    status = cvexample.run(pipe, timeout_s=3600 if args.frames == 0 else 60 + 2 * args.frames)
    print('camera_effect: %d frames' % frames[0])
    return status


if __name__ == '__main__':
    sys.exit(main())
