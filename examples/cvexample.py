# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the Python examples share: PyGObject and GStreamer set up, the plugins and the
GstCudaVision typelib found, and a pipeline run to its end (docs/api.md).

Where the plugins and the typelib come from:
  - an installation: nothing to set when the plugins are in GStreamer's own folder
    (tools/setup.sh install); GST_PLUGIN_PATH / GI_TYPELIB_PATH / LD_LIBRARY_PATH
    for another prefix;
  - the build tree: when GST_PLUGIN_PATH is not set, BUILD_DIR (default: the `build`
    folder beside examples/) is used if it holds gst/GstCudaVision-1.0.typelib: its
    plugins, typelib and library. With GST_PLUGIN_PATH set, the environment decides.
"""
import os
import sys


def _import_gi():
    """Imports gi, or re-runs the script with the system python when this one (a
    virtualenv, pyenv) has no PyGObject; exits 77 (a skip for meson test) without."""
    try:
        import gi  # noqa: F401
        return
    except ImportError:
        pass
    system = '/usr/bin/python3'
    if (os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system)
            and not os.environ.get('CV_EXAMPLE_REEXEC')):
        os.environ['CV_EXAMPLE_REEXEC'] = '1'
        os.execv(system, [system] + sys.argv)
    sys.stderr.write('%s: PyGObject is missing (apt-get install python3-gi python3-gst-1.0 '
                     'gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0)\n'
                     % os.path.basename(sys.argv[0]))
    sys.exit(77)


def _build_tree():
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.environ.get('BUILD_DIR', os.path.join(here, '..', 'build'))
    gst_dir = os.path.abspath(os.path.join(build, 'gst'))
    if os.path.exists(os.path.join(gst_dir, 'GstCudaVision-1.0.typelib')):
        return gst_dir
    return None


_import_gi()
# All from the build tree, or nothing: a typelib (and library) of one build with the
# plugins of another would load two copies of libgstcudavision-1.0.
_gst_dir = None if 'GST_PLUGIN_PATH' in os.environ else _build_tree()
if _gst_dir:
    # before Gst.init: the registry is scanned then
    os.environ['GST_PLUGIN_PATH'] = _gst_dir

import gi  # noqa: E402
gi.require_version('GIRepository', '2.0')
from gi.repository import GIRepository  # noqa: E402
if _gst_dir:
    # the typelib and the library it names (libgstcudavision-1.0.so.0)
    GIRepository.Repository.prepend_search_path(_gst_dir)
    GIRepository.Repository.prepend_library_path(_gst_dir)
gi.require_version('Gst', '1.0')
gi.require_version('GstVideo', '1.0')
from gi.repository import Gst, GstVideo, GLib  # noqa: E402,F401
Gst.init(None)


def cudavision():
    """The GstCudaVision namespace (GstCvFlowMeta and its accessors)."""
    try:
        gi.require_version('GstCudaVision', '1.0')
    except ValueError:
        sys.stderr.write('%s: GstCudaVision-1.0.typelib not found: build with '
                         '-Dintrospection=enabled and set GI_TYPELIB_PATH (or BUILD_DIR)\n'
                         % os.path.basename(sys.argv[0]))
        sys.exit(1)
    from gi.repository import GstCudaVision
    return GstCudaVision


def analytics():
    """The GstAnalytics namespace (GStreamer 1.24+, gir1.2-gst-plugins-bad-1.0), or
    None with a message when it is not there."""
    try:
        gi.require_version('GstAnalytics', '1.0')
        from gi.repository import GstAnalytics
    except (ValueError, ImportError):
        sys.stderr.write('%s: no GstAnalytics-1.0 typelib (GStreamer 1.24+ with '
                         'gir1.2-gst-plugins-bad-1.0): the analytics metas are not read\n'
                         % os.path.basename(sys.argv[0]))
        return None
    return GstAnalytics


def analytics_mtds(GstAnalytics, buf):
    """(id, type name, mtd) of every mtd in the buffer's relation meta, in id order
    ([] without one). Through the ids, as the relation meta has no introspectable
    iterator below gst-python 1.26's overrides."""
    rmeta = GstAnalytics.buffer_get_analytics_relation_meta(buf)
    if rmeta is None:
        return rmeta, []
    out = []
    for i in range(GstAnalytics.relation_get_length(rmeta)):
        ok, mtd = rmeta.get_mtd(i, GstAnalytics.MTD_TYPE_ANY)
        if ok:
            out.append((i, GstAnalytics.mtd_type_get_name(mtd.get_mtd_type()), mtd))
    return rmeta, out


def have_element(name):
    if Gst.ElementFactory.find(name):
        return True
    sys.stderr.write('%s: no element "%s": set GST_PLUGIN_PATH to the plugins\' folder '
                     '(build/gst in the build tree)\n' % (os.path.basename(sys.argv[0]), name))
    return False


def run(pipeline, on_message=None, timeout_s=60):
    """Plays `pipeline` to its end of stream; on_message(msg) sees element messages.
    Returns 0 at EOS, 1 on an error or a timeout."""
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    status = 1
    types = Gst.MessageType.EOS | Gst.MessageType.ERROR | Gst.MessageType.ELEMENT
    while True:
        msg = bus.timed_pop_filtered(timeout_s * Gst.SECOND, types)
        if msg is None:
            sys.stderr.write('no end of stream after %d s\n' % timeout_s)
            break
        if msg.type == Gst.MessageType.EOS:
            status = 0
            break
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            sys.stderr.write('error: %s (%s)\n' % (err.message, dbg))
            break
        if on_message:
            on_message(msg)
    pipeline.set_state(Gst.State.NULL)
    return status
