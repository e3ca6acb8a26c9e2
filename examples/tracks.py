#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tracks of moctracker, read from its `moctracker` element messages (post-messages=true)
or, with --meta, from the GstVideoRegionOfInterestMeta it puts on each buffer.

  python3 examples/tracks.py [--frames N] [--meta | --analytics] [--clip DIR | --source LAUNCH --objects LIST]

One line per object and frame: name, present or absent, the box (x, y, width, height in
frame pixels, top-left origin), the centroid (px) and the mass (pixels); --meta lists
the present objects only, with their velocity (px per frame) from the ROI meta's
`moctracker` parameters.
--analytics reads the buffer's GstAnalyticsRelationMeta (GStreamer 1.24+, through the
GstAnalytics typelib; docs/analytics.md) as any analytics consumer does: per box
(GstAnalyticsODMtd) its type and the related track (GstAnalyticsTrackingMtd: id, which
is the ROI meta's id, and lost), then the tracks lost on that frame.
--clip reads a clip of cv-mkclip --objects (build/media/objects: frame_NNN.png and
objects.csv, whose colours become the object list). Default: videotestsrc's white ball.
The message's `objects` list needs python3-gst-1.0 (GStreamer's Python overrides).
"""
import argparse
import csv
import os
import sys

import cvexample
from cvexample import Gst, GstVideo, GLib


def clip_objects(clip):
    """The object list of a cv-mkclip --objects clip: its frame-0 colours."""
    entries = []
    with open(os.path.join(clip, 'objects.csv')) as f:
        for row in csv.DictReader(f):
            if row['frame'] != '0':
                break
            entries.append('obj%s:#%02x%02x%02x:40' % (row['object'], int(row['r']),
                                                        int(row['g']), int(row['b'])))
    return ';'.join(entries)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--frames', type=int, default=10)
    ap.add_argument('--clip', help='a cv-mkclip --objects clip (build/media/objects)')
    ap.add_argument('--source', default='videotestsrc pattern=ball ! '
                    'video/x-raw,width=160,height=120')
    ap.add_argument('--meta', action='store_true',
                    help='read the ROI metas of the buffers instead of the messages')
    ap.add_argument('--analytics', action='store_true',
                    help='read the analytics relation meta (GStreamer 1.24+)')
    ap.add_argument('--objects', default='ball:#ffffff:60',
                    help='moctracker objects (name:#rrggbb[:tolerance]; ...)')
    args = ap.parse_args()
    if not cvexample.have_element('moctracker'):
        return 1
    GstAnalytics = None
    if args.analytics:
        GstAnalytics = cvexample.analytics()
        if GstAnalytics is None:
            return 77
    source, objects = args.source, args.objects
    if args.clip:
        source = ('multifilesrc location=%s caps=image/png,framerate=30/1 ! pngdec'
                  % os.path.join(args.clip, 'frame_%03d.png'))
        objects = clip_objects(args.clip)
    pipe = Gst.parse_launch('%s ! identity eos-after=%d ! videoconvert ! '
                            'video/x-raw,format=RGBA ! moctracker name=track post-messages=true '
                            'objects="%s" ! fakesink name=sink'
                            % (source, args.frames + 1, objects))
    n_objects = len(objects.split(';'))
    count = [0]

    def on_buffer(pad, info):
        """--meta: the ROI metas of the buffer (present objects only)."""
        buf = info.get_buffer()
        for i in range(n_objects):
            # moctracker sets each ROI meta's id to the object's index in the list
            roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, i)
            if roi is None:
                continue
            p = roi.get_param('moctracker')
            valid = p.get_boolean('velocity-valid')[1]
            print('frame %d %s present box %d,%d %dx%d centroid %.2f %.2f mass %d velocity %s'
                  % (count[0], GLib.quark_to_string(roi.roi_type), roi.x, roi.y, roi.w, roi.h,
                     p.get_double('centroid-x')[1], p.get_double('centroid-y')[1],
                     p.get_int64('mass')[1],
                     '%+.2f %+.2f' % (p.get_double('velocity-x')[1],
                                      p.get_double('velocity-y')[1]) if valid else 'none'))
        count[0] += 1
        return Gst.PadProbeReturn.OK

    def on_message(msg):
        """The element message: every object, present or not."""
        s = msg.get_structure()
        if s is None or s.get_name() != 'moctracker':
            return
        frame = s.get_uint64('frame')[1]
        try:
            objs = s.get_value('objects')
        except TypeError:
            sys.stderr.write('tracks: the objects list needs python3-gst-1.0 '
                             '(GstValueList), or use --meta\n')
            sys.exit(1)
        for o in objs:
            print('frame %d %s %s box %d,%d %dx%d centroid %.2f %.2f mass %d'
                  % (frame, o.get_string('name'),
                     'present' if o.get_boolean('present')[1] else 'absent',
                     o.get_int('x')[1], o.get_int('y')[1], o.get_int('width')[1],
                     o.get_int('height')[1], o.get_double('centroid-x')[1],
                     o.get_double('centroid-y')[1], o.get_int64('mass')[1]))
        count[0] += 1

    def on_buffer_analytics(pad, info):
        """--analytics: the boxes, their tracks and the lost tracks of the relation meta."""
        rmeta, mtds = cvexample.analytics_mtds(GstAnalytics, info.get_buffer())
        tracks = [(i, m) for i, name, m in mtds if name == 'object-tracking']
        for i, name, _ in mtds:
            if name != 'object-detection':
                continue
            od = rmeta.get_od_mtd(i)[1]
            _, x, y, w, h, _ = od.get_location()
            track = 'no track'
            for j, _ in tracks:
                if rmeta.get_relation(i, j) & GstAnalytics.RelTypes.RELATE_TO:
                    _, tid, first, last, lost = rmeta.get_tracking_mtd(j)[1].get_info()
                    track = 'id %d lost %s' % (tid, 'yes' if lost else 'no')
            print('frame %d %s present box %d,%d %dx%d %s'
                  % (count[0], GLib.quark_to_string(od.get_obj_type()), x, y, w, h, track))
        for j, _ in tracks:
            _, tid, first, last, lost = rmeta.get_tracking_mtd(j)[1].get_info()
            if lost:
                print('frame %d lost id %d last-seen %d ns' % (count[0], tid, last))
        count[0] += 1
        return Gst.PadProbeReturn.OK

    if args.analytics:
        pipe.get_by_name('sink').get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER,
                                                                  on_buffer_analytics)
        on_message = None
    elif args.meta:
        pipe.get_by_name('sink').get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER,
                                                                  on_buffer)
        on_message = None
    status = cvexample.run(pipe, on_message)
    print('tracks: %d frames' % count[0])
    return status


if __name__ == '__main__':
    sys.exit(main())
