#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudavision: install the dependencies (Debian bookworm packages), build, then
#   tools/setup.sh demo   run the main job on the project's own media: out/flow.webm + PNGs
#   tools/setup.sh test   run the whole test suite, then again under ASan+UBSan (what CI runs)
#   tools/setup.sh build  only install and build
#   tools/setup.sh install    install into PREFIX (default /usr/local): library, headers,
#                         cudavision-1.0.pc, typelib and cv-* tools there, the plugins in
#                         GStreamer's own folder (pkg-config --variable=pluginsdir
#                         gstreamer-1.0), the one a default GStreamer scans with no
#                         GST_PLUGIN_PATH, and the typelib in GObject introspection's
#                         (pkg-config --variable=typelibdir gobject-introspection-1.0);
#                         then ldconfig
#   tools/setup.sh uninstall  remove what `install` installed (meson's install log)
#   tools/setup.sh test-trixie  the second CI leg: a Debian trixie root (GStreamer 1.26,
#                         analytics library) by debootstrap in build-trixie/, a CPU-only
#                         build there, the element, analytics and overlay pipeline
#                         tests (tools/dev/test-trixie.sh; needs root and the network)
# Idempotent; needs root or sudo for apt-get (skipped when everything is installed).
# Environment: BUILD_DIR (default build), CUDA_ARCH (meson cuda-arch; default auto:
# this machine's GPU, or one architecture plus PTX without one), MESON_ARGS (extra meson setup arguments), ASAN=0 (test: skip
# the sanitizer build BUILD_DIR-asan that runs after the normal suite), PREFIX (install).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: tools/setup.sh [build|test|test-trixie|demo|install|uninstall]   (default build; -h, --help: what each does)"
help="$usage
Installs the Debian packages the project needs (apt-get, with sudo when not root;
skipped when all are there), configures BUILD_DIR with meson (once) and builds it,
then:
  build        nothing more (the default)
  demo         pipelines/demo-clip.sh: optical flow of the project's clip to out/flow.webm
               and out/flow_NNN.png with its accuracy, moctracker, cvdmosaic and quadcut
               to out/*.webm
  test         the whole test suite (meson test), then the AddressSanitizer + UBSan
               build BUILD_DIR-asan of the CPU paths under the CI setup (ASAN=0: not)
  test-trixie  CI's second leg: a Debian trixie root (GStreamer 1.26) by debootstrap in
               build-trixie/, a CPU build and the element, analytics and pipeline tests
               there (needs root and the network; no host build)
  install      install into PREFIX: library, headers, cudavision-1.0.pc, typelib and
               cv-* tools; the plugins into GStreamer's own folder, so that
               gst-inspect-1.0 finds them with no variable; then ldconfig
  uninstall    remove what install installed
Environment:
  BUILD_DIR    the build folder (default build)
  CUDA_ARCH    meson's cuda-arch: auto (the default: this machine's GPU, or one
               architecture plus PTX without one), all (the distribution list), or a
               list such as sm_86,compute_86
  MESON_ARGS   more meson setup arguments
  ASAN=0       test: leave out the sanitizer build
  PREFIX       install: where (default /usr/local)"
mode=${1:-build}
# the mode is checked before anything is installed
case "$mode" in
  build|test|demo|install|uninstall) ;;
  test-trixie) exec bash tools/dev/test-trixie.sh ;;   # its own root: no host build
  -h|--help) echo "$help"; exit 0 ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
build=${BUILD_DIR:-build}

packages=(
  meson ninja-build pkg-config gcc g++
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  # x264enc: the build encodes media/objects.h264 for the hardware-decode tests
  gstreamer1.0-plugins-ugly
  gstreamer1.0-libav check libpng-dev libassimp-dev libigraph-dev libmaxflow-dev
  libjpeg-dev
  # GObject introspection (GstCudaVision-1.0.typelib) and the Python examples
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0 python3-gi python3-gst-1.0
)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# nvcc is optional: without it the plugin is built CPU-only.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
args=(-Dbuildtype=release)
[ -n "${CUDA_ARCH:-}" ] && args+=("-Dcuda-arch=$CUDA_ARCH")
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "${args[@]}" ${MESON_ARGS:-}
fi
ninja -C "$build"

case "$mode" in
  build) ;;
  test)
    meson test -C "$build" --print-errorlogs --num-processes "$(nproc)"
    python3 tests/skip-summary.py "$build"   # the cases that could not run, per program
    # then the AddressSanitizer + UBSan build of the CPU paths (-Dcuda=disabled: no
    # nvcc, and ASan does not see device code anyway) under the CI setup `asanci`
    # (tests/meson.build; docs/reliability.md: what it runs and leaves out). ASAN=0
    # skips it.
    if [ "${ASAN:-1}" != 0 ]; then
      asan="${build}-asan"
      if [ ! -f "$asan/build.ninja" ]; then
        meson setup "$asan" -Dbuildtype=debugoptimized -Dcuda=disabled \
          -Db_sanitize=address,undefined -Db_lundef=false ${MESON_ARGS:-}
      fi
      ninja -C "$asan"
      meson test -C "$asan" --setup asanci --print-errorlogs --num-processes "$(nproc)"
      python3 tests/skip-summary.py "$asan"
    fi
    ;;
  demo)
    bash pipelines/demo-clip.sh "$build"
    ;;
  install)
    prefix=${PREFIX:-/usr/local}
    pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
    # and the typelib in GObject introspection's own folder, where Python finds it
    typelibdir=$(pkg-config --variable=typelibdir gobject-introspection-1.0 2>/dev/null || true)
    meson configure "$build" --prefix="$prefix" -Dplugins-install-dir="$pluginsdir" \
      ${typelibdir:+-Dtypelib-install-dir="$typelibdir"}
    ninja -C "$build"
    $sudo meson install -C "$build" --no-rebuild
    # the plugins link libgstcudavision-1.0.so.0 from PREFIX's libdir (on the loader's
    # path for /usr/local on Debian: /etc/ld.so.conf.d/x86_64-linux-gnu.conf)
    $sudo ldconfig
    libdir=$prefix/$(meson introspect "$build" --buildoptions \
      | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"][0])')
    echo "setup: installed the plugins in $pluginsdir (GStreamer scans it: gst-inspect-1.0 cudaflowlk)"
    [ -n "$typelibdir" ] && echo "setup: GstCudaVision-1.0.typelib in $typelibdir (Python: gi.require_version('GstCudaVision', '1.0'))"
    echo "setup: library and cudavision-1.0.pc in $libdir, headers in $prefix/include/cudavision-1.0, tools in $prefix/bin"
    case "$libdir" in
      /usr/local/lib/*|/usr/lib/*) ;;
      *) echo "setup: $libdir is not on the loader's path: LD_LIBRARY_PATH=$libdir (or an /etc/ld.so.conf.d entry), GI_TYPELIB_PATH=$libdir/girepository-1.0 for Python" ;;
    esac
    ;;
  uninstall)
    $sudo ninja -C "$build" uninstall
    $sudo ldconfig
    ;;
esac
