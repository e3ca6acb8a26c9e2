#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On this (GPU-less) machine: build for the H100 (sm_90 SASS + PTX) into build-gpu/
# and collect the shared libraries the GPU machine lacks into .devlibs/, so that
# one device `run` can carry .devpack (build, libraries, the GStreamer 1.22 bundle)
# and .gstrt126 (the 1.26 root, tools/gpu/trixie-prepare.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release \
  -Dcuda=enabled -Dcuda-arch=sm_90,compute_90
ninja -C build-gpu
rm -rf .devlibs && mkdir -p .devlibs
grep -qx '/.devlibs/' .git/info/exclude 2>/dev/null || echo '/.devlibs/' >> .git/info/exclude
# libraries of the base system or of .gstrt stay behind
skip='linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread|libgcc_s|libstdc\+\+|libgst|libglib|libgobject|libgmodule|libgio|libffi|libpcre2|libz\.so|libpng16|libcuda|libmount|libselinux|libblkid|liborc|libunwind|libdw|libelf|libgudev|libudev|libexpat|libGL|libEGL|libX|libxcb|libwayland|libdrm|libgbm|libbsd|libmd\.so'
find build-gpu/ -type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.o' -print0 |
  { xargs -0 ldd 2>/dev/null || true; } | awk '/=> \//{print $3}' | sort -u | grep -Ev "$skip" |
  while read -r lib; do cp -L "$lib" .devlibs/; done || true
# a slim copy of the build (programs and shared objects, same relative paths so the
# $ORIGIN rpaths hold) to carry instead of the whole build tree
rm -rf .devbuild && mkdir -p .devbuild
grep -qx '/.devbuild/' .git/info/exclude 2>/dev/null || echo '/.devbuild/' >> .git/info/exclude
(cd build-gpu && find . \( -type f -o -type l \) \( -name '*.so' -o -name '*.so.*' -o \( -perm -u+x ! -name '*.p' \) \) \
   ! -path '*/meson-*' ! -path '*.p/*' -print | while read -r f; do
     mkdir -p "../.devbuild/$(dirname "$f")"; cp -a "$f" "../.devbuild/$f"; done)
# the tests name the tools and generated media by their absolute build path: record it
# (suite.sh links it to .devbuild there) and bring the small generated media along
echo "$(readlink -f build-gpu)" > .devbuild/BUILD_PATH   # the path the programs hold
mkdir -p .devbuild/media && cp -r build-gpu/media/objects build-gpu/media/objects.h264 build-gpu/media/body.* .devbuild/media/
strip --strip-debug .devbuild/tools/* .devbuild/tools/dev/* .devbuild/bench/* .devbuild/tests/test-* .devbuild/tests/*/test-* 2>/dev/null || true
# packed: meshseg's Assimp/igraph pull in ~60 MB of libraries (ICU data, LAPACK)
mkdir -p .devpack
grep -qx '/.devpack/' .git/info/exclude 2>/dev/null || echo '/.devpack/' >> .git/info/exclude
# SLIM=1: without meshseg and its libraries (Assimp, igraph: ICU data, LAPACK; 10 MB
# packed), for runs that also carry .gstrt126 (the 64 MiB of one run)
if [ "${SLIM:-0}" = 1 ]; then
  for f in $(find .devbuild -type f -perm -u+x); do
    if ldd "$f" 2>/dev/null | grep -qE 'libassimp|libigraph'; then rm -f "$f"; fi
  done
  (cd .devlibs && rm -f libassimp* libigraph* libicu* liblapack* libblas* libgfortran* \
     libquadmath* libdraco* libxml2* libarpack* libglpk* libgmp* libplfit* libminizip* \
     libamd* libcolamd* libsuitesparseconfig*)
fi
tar -C .devlibs -cJf .devpack/libs.tar.xz .
tar -cJf .devpack/build.tar.xz .devbuild
# the GStreamer 1.22 bundle (../shared/device/prepare-gst-runtime.sh) packed too (23 MB
# loose, 7 MB packed): .devpack and .gstrt126 then fit one run's 64 MiB; env.sh unpacks it
if [ -f .gstrt/env.sh ] && { [ ! -f .devpack/gstrt.tar.xz ] || [ -n "$(find .gstrt -newer .devpack/gstrt.tar.xz -print -quit)" ]; }; then
  tar -cJf .devpack/gstrt.tar.xz .gstrt
fi
du -sh .devbuild .devpack .gstrt 2>/dev/null
# third-party evaluation media the tests read (never committed: .devmedia is ignored)
rm -rf .devmedia && mkdir -p .devmedia/optflow .devmedia/mesh
grep -qx '/.devmedia/' .git/info/exclude 2>/dev/null || echo '/.devmedia/' >> .git/info/exclude
if [ -d ../shared/media ]; then
  cp -r ../shared/media/optflow/middlebury .devmedia/optflow/
  cp -r ../shared/media/mesh/psb .devmedia/mesh/
  # psb-train (32 MB of OFF text) packed: env.sh unpacks it on the GPU machine
  if [ -d ../shared/media/mesh/psb-train ]; then
    tar -C ../shared/media/mesh -cJf .devmedia/mesh/psb-train.tar.xz psb-train
  fi
fi
du -sh .devmedia
