# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced (bash) on the GPU machine from the checkout root, carrying .devpack (build
# + libraries, from tools/gpu/build-for-gpu.sh) and .gstrt (the GStreamer runtime):
# unpacks the build into .devbuild and the libraries into /tmp/devlibs, and sets the
# library, plugin and test paths. tools/gpu/suite.sh and tools/dev/soak.sh .devbuild
# source it. In the trixie root (tools/gpu/trixie-run.sh sets CV_TRIXIE_ROOT=1) the
# build is the 1.26 one at /src/build-trixie/build126 and GStreamer is the root's.
if [ "${CV_TRIXIE_ROOT:-0}" = 1 ]; then
  B=/src/build-trixie/build126
  export GST_PLUGIN_PATH="$B/gst" GST_PLUGIN_PATH_1_0="$B/gst"
  export CV_SOURCE_ROOT="$PWD" CV_SHARED_MEDIA="$PWD/.devmedia"
  return 0 2>/dev/null || exit 0
fi
# .gstrt travels packed (tools/gpu/build-for-gpu.sh): unpacked here once
[ -f .gstrt/env.sh ] || { [ -f .devpack/gstrt.tar.xz ] && tar -xJf .devpack/gstrt.tar.xz; }
source .gstrt/env.sh
# once: tar rewrites a file in place, so extracting again under a running program
# (a second script that sources this) truncates the libraries it has mapped (SIGBUS)
if [ ! -f /tmp/devlibs/.unpacked ]; then
  mkdir -p /tmp/devlibs && tar -C /tmp/devlibs -xJf .devpack/libs.tar.xz && touch /tmp/devlibs/.unpacked
fi
[ -d .devbuild ] || tar -xJf .devpack/build.tar.xz
export LD_LIBRARY_PATH="/tmp/devlibs:$LD_LIBRARY_PATH"
# meshseg's 38 psb-train meshes travel packed (build-for-gpu.sh)
if [ -f .devmedia/mesh/psb-train.tar.xz ] && [ ! -d .devmedia/mesh/psb-train ]; then
  tar -C .devmedia/mesh -xJf .devmedia/mesh/psb-train.tar.xz
fi
B=.devbuild
# the test programs hold the absolute path of the build they came from
bp=$(cat $B/BUILD_PATH 2>/dev/null || true)
if [ -n "$bp" ] && [ ! -e "$bp" ]; then mkdir -p "$(dirname "$bp")" && ln -s "$PWD/$B" "$bp"; fi
export GST_PLUGIN_PATH="$PWD/$B/gst"
export GST_PLUGIN_PATH_1_0="$PWD/$B/gst"
export CV_SOURCE_ROOT="$PWD" CV_SHARED_MEDIA="$PWD/.devmedia"
