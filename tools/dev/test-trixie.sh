#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `tools/setup.sh test-trixie`: the CI leg on Debian trixie (GStreamer 1.26, with the
# analytics library), beside the bookworm (1.22) suite. Needs root (debootstrap,
# chroot, mount) and the network (Debian's mirror); on the host only debootstrap
# (installed here when missing).
#
#   1. a minimal trixie root made by `debootstrap --variant=minbase` in
#      $TRIXIE_DIR/root (default build-trixie/root, inside the checkout's ignored
#      build folders: nothing is cached outside the checkout; kept and reused by the
#      next run);
#   2. GStreamer 1.26's dev packages, meson, gcc and check installed in it, and
#      PyGObject with the introspection tools and typelibs (GstAnalytics) for the
#      examples (apt-get, again only when the list changed);
#   3. /proc, /dev and the checkout (as /src) mounted in it, unmounted on exit;
#   4. a CPU-only build (-Dcuda=disabled) in $TRIXIE_DIR/build, then the element
#      tests (suite elements, CV_TEST_QUICK=1; the analytics tests are
#      element-analytics), the pipeline through objectdetectionoverlay (suite
#      analytics) and the application kit's examples reading the analytics metas
#      (suite examples).
#   5. where the host has the CUDA toolkit: the two glue objects that use libgstcuda's
#      1.24+ API (GstCudaStream) compiled with CUDA (a compile check: no GPU here).
#
# Environment: TRIXIE_DIR (default build-trixie), DEBIAN_MIRROR (default
# http://deb.debian.org/debian). Do not delete $TRIXIE_DIR while a run is going:
# the checkout and /dev are mounted inside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" -ne 0 ]; then
  echo "test-trixie: needs root (debootstrap, chroot and mount); run it with sudo" >&2
  exit 1
fi
dir=${TRIXIE_DIR:-build-trixie}
root=$dir/root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=(
  meson ninja-build pkg-config gcc g++ libc6-dev libglib2.0-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly check libpng-dev libjpeg-dev libmaxflow-dev
  python3-gi python3-gst-1.0 gobject-introspection libgirepository1.0-dev
  gir1.2-gst-plugins-bad-1.0
)
t0=$(date +%s)
say() { echo "test-trixie [$(( $(date +%s) - t0 )) s]: $*"; }

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    debootstrap >/dev/null
fi

mkdir -p "$dir"
if [ ! -f "$root/.cv-debootstrap-done" ]; then
  say "debootstrap --variant=minbase trixie $root"
  rm -rf "$root"
  debootstrap --variant=minbase trixie "$root" "$mirror" >"$dir/debootstrap.log" 2>&1 \
    || { tail -20 "$dir/debootstrap.log"; exit 1; }
  touch "$root/.cv-debootstrap-done"
fi

# mounts, undone on any exit (the reverse order; lazily if something still holds one)
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
  done
}
trap cleanup EXIT
mount_in() {   # mount_in TARGET MOUNT-ARGS...
  local target=$1
  shift
  mkdir -p "$target"
  if mountpoint -q "$target"; then   # left by a killed run
    umount -l "$target"
  fi
  mount "$@" "$target"
  mounted+=("$target")
}
mount_in "$root/proc" -t proc proc
mount_in "$root/dev" --bind /dev
mount_in "$root/src" --bind "$PWD"

in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive bash -c "$1"
}

want="${packages[*]}"
if [ "$(cat "$root/.cv-packages" 2>/dev/null)" != "$want" ]; then
  say "apt-get install (GStreamer 1.26 dev packages, meson, gcc, check)"
  in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends $want" \
    >"$dir/apt.log" 2>&1 || { tail -20 "$dir/apt.log"; exit 1; }
  echo "$want" >"$root/.cv-packages"
fi
say "$(in_root 'pkg-config --modversion gstreamer-1.0 gstreamer-analytics-1.0' | tr '\n' ' ')"

# build folders: in $dir when it is inside the checkout (mounted as /src), else in the root
case $dir in
  /*) bdir=/var/tmp/cv-trixie ;;
  *) bdir=/src/$dir ;;
esac
build=$bdir/build
say "CPU-only build in $build (in the root)"
in_root "cd /src && { [ -f $build/build.ninja ] || meson setup $build -Dbuildtype=release \
  -Dcuda=disabled >/dev/null; } && ninja -C $build"
# CV_TEST_QUICK (tests/common/cv_test_quick.h): the same code paths on less data; the
# full sizes run in the bookworm leg (element-generic-cvdmosaic alone takes ~5 min
# there on 2 cores)
say "element tests, analytics tests, the pipeline through objectdetectionoverlay, examples"
in_root "cd /src && CV_TEST_QUICK=1 meson test -C $build --no-rebuild --print-errorlogs \
  --num-processes \$(nproc) --suite elements --suite analytics --suite examples"

# libgstcuda's 1.24+ API (GstCudaStream, the stream-ordered hand-off of CUDA memory):
# the glue objects that use it, compiled with CUDA against the host's toolkit (mounted
# in; no GPU and no kernels needed: only those two objects are built)
# The toolkit folder is the one whose bin/nvcc is the real program: an nvcc on PATH may be
# a wrapper script that execs a path which does not exist inside the root.
cuda=
for c in "${CUDA_PATH:-}" "${CUDA_HOME:-}" /usr/local/cuda \
  "$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /nonexistent)")")")"; do
  if [ -n "$c" ] && [ -f "$c/bin/nvcc" ] && [ "$(head -c 4 "$c/bin/nvcc" | tr -d '\0')" = $'\x7fELF' ]; then
    cuda=$(readlink -f "$c")
    break
  fi
done
if [ -n "$cuda" ]; then
  mount_in "$root/usr/local/cuda" --bind "$cuda"
  cbuild=$bdir/build-cuda
  say "libgstcuda 1.26 API: gstcvfilter.c, gstcvcuda.c, gstcvhandoff.c and gstcvanalytics.c with CUDA ($cuda) in $cbuild"
  in_root "/usr/local/cuda/bin/nvcc --version | tail -1"
  in_root "cd /src && { [ -f $cbuild/build.ninja ] || meson setup $cbuild -Dbuildtype=release \
    -Dcuda=enabled -Dcuda-arch=sm_90 >$bdir/cuda-setup.log 2>&1 \
    || { tail -30 $bdir/cuda-setup.log; exit 1; }; } && ninja -C $cbuild \
    \$(ninja -C $cbuild -t targets all | grep -oE '^gst/[^:]*/gstcv(filter|cuda|handoff|analytics)\.c\.o')"
else
  say "no CUDA toolkit on the host: libgstcuda's 1.26 API is not compiled"
fi
say "done"
