#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudavision: install the dependencies (Debian bookworm packages), build, then
#   tools/setup.sh demo   run the main job on the project's own media: out/flow.webm + PNGs
#   tools/setup.sh test   run the whole test suite, then again under ASan+UBSan (what CI runs)
#   tools/setup.sh build  only install and build
#   tools/setup.sh test-trixie  the second CI leg: a Debian trixie root (GStreamer 1.26,
#                         analytics library) by debootstrap in build-trixie/, a CPU-only
#                         build there, the element, analytics and overlay pipeline
#                         tests (tools/test-trixie.sh; needs root and the network)
# Idempotent; needs root or sudo for apt-get (skipped when everything is installed).
# Environment: BUILD_DIR (default build), CUDA_ARCH (meson cuda-arch; default: the
# project's full list), MESON_ARGS (extra meson setup arguments), ASAN=0 (test: skip
# the sanitizer build BUILD_DIR-asan that runs after the normal suite).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: tools/setup.sh [build|test|test-trixie|demo]   (default build; -h, --help: this text)"
mode=${1:-build}
# the mode is checked before anything is installed
case "$mode" in
  build|test|demo) ;;
  test-trixie) exec bash tools/test-trixie.sh ;;   # its own root: no host build
  -h|--help) echo "$usage"; exit 0 ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
build=${BUILD_DIR:-build}

packages=(
  meson ninja-build pkg-config gcc g++
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-libav check libpng-dev libassimp-dev libigraph-dev libmaxflow-dev
  libjpeg-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
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
    fi
    ;;
  demo)
    bash pipelines/demo-clip.sh "$build"
    ;;
esac
