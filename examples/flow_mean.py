#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-frame mean optical flow, read from cudaflowlk's GstCvFlowMeta through GObject
introspection (GstCudaVision-1.0.typelib).

  python3 examples/flow_mean.py [--frames N] [--source LAUNCH] [--element cudaflowlk|cudablockmatch|cudaflowepic] [--analytics]

One line a frame: the grid, whether the field is valid (FALSE on the first frame) and
the mean (u, v) in frame pixels of motion from the previous frame (+x right, +y down)
over the cells with a confidence above 0. Default source: videotestsrc's moving ball
at 160x120. Run from the source tree it uses ./build (BUILD_DIR=...) when
GST_PLUGIN_PATH is unset.
--analytics also looks for the flow in the buffer's GstAnalyticsRelationMeta (GStreamer
1.26+, the "cv-flow" GstCvFlowMtd: docs/analytics.md) and prints its mtd id. Its
vectors are not introspectable (the GstCvFlowMtd accessors are C API outside the
GstCudaVision typelib): Python reads them from the GstCvFlowMeta, which shares the
same field.
"""
import argparse
import array
import sys

import cvexample
from cvexample import Gst

GstCudaVision = cvexample.cudavision()


def mean_flow(meta):
    """(mean u, mean v, cells counted) over the confident cells, in frame pixels."""
    w, h = meta.get_grid_size()
    # float32 bytes (no Python list of every float); get_vectors () gives a list
    vec = array.array('f', meta.get_vectors_bytes().get_data())
    conf = array.array('f', meta.get_confidence_bytes().get_data())
    assert len(vec) == 2 * w * h and len(conf) == w * h
    cw, ch = meta.get_cell_size()
    # block vectors are in grid cells: frame pixels are about cell_width x that
    su = sv = 0.0
    n = 0
    for i, c in enumerate(conf):
        if c > 0:
            su += vec[2 * i]
            sv += vec[2 * i + 1]
            n += 1
    if n == 0:
        return 0.0, 0.0, 0
    return su / n * cw, sv / n * ch, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--frames', type=int, default=10)
    ap.add_argument('--source', default='videotestsrc pattern=ball ! '
                    'video/x-raw,width=160,height=120')
    ap.add_argument('--element', default='cudaflowlk',
                    help='the flow element and its properties (default cudaflowlk)')
    ap.add_argument('--analytics', action='store_true',
                    help='also find the flow mtd in the analytics relation meta (1.26+)')
    args = ap.parse_args()
    if not cvexample.have_element(args.element.split()[0]):
        return 1
    GstAnalytics = None
    if args.analytics:
        GstAnalytics = cvexample.analytics()
        if GstAnalytics is None:
            return 77
    # identity ends the stream in place of buffer FRAMES + 1
    pipe = Gst.parse_launch('%s ! identity eos-after=%d ! videoconvert ! '
                            'video/x-raw,format=I420 ! %s name=flow ! fakesink'
                            % (args.source, args.frames + 1, args.element))
    frames = [0]

    def on_buffer(pad, info):
        meta = GstCudaVision.buffer_get_cv_flow_meta(info.get_buffer())
        if meta is None:
            print('frame %d: no flow meta' % frames[0])
        else:
            w, h = meta.get_grid_size()
            u, v, n = mean_flow(meta)
            print('frame %d grid %dx%d %s mean %+.3f %+.3f px (%d confident cells)'
                  % (frames[0], w, h, 'valid' if meta.is_valid() else 'first', u, v, n))
        if GstAnalytics is not None:
            _, mtds = cvexample.analytics_mtds(GstAnalytics, info.get_buffer())
            ids = [i for i, name, _ in mtds if name == 'cv-flow']
            print('frame %d analytics cv-flow mtd %s'
                  % (frames[0], ' '.join('id %d' % i for i in ids) if ids else 'none'))
        frames[0] += 1
        return Gst.PadProbeReturn.OK

    pipe.get_by_name('flow').get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER,
                                                             on_buffer)
    status = cvexample.run(pipe)
    print('flow_mean: %d frames' % frames[0])
    return status


if __name__ == '__main__':
    sys.exit(main())
