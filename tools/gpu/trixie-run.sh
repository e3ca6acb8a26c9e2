#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, from the checkout root, carrying .gstrt126 (tools/gpu/trixie-prepare.sh):
#   bash tools/gpu/trixie-run.sh 'COMMAND'
# runs COMMAND with GStreamer 1.26 (nvcodec included) and the project's 1.26 CUDA build
# (/src/build-trixie/build126) in the minimal trixie root: unpacked into /tmp/r126 once,
# with /dev, /proc, the driver's libraries (/usr/local/nvidia), the CUDA toolkit, this
# checkout at /srcroot (the working directory) and $OUT at /out bound. CV_TRIXIE_ROOT=1
# there makes tools/gpu/env.sh use that build, so that
#   bash tools/gpu/trixie-run.sh 'bash tools/gpu/suite.sh'
# runs the same suite as on the 1.22 bundle. These variables pass through when set:
# TESTS_ONLY EXTRA SANITIZE SANITIZE_* FRAMES ONLY BRANCHES CK_RUN_CASE CV_TEST_QUICK
# (and COMPUTE_SANITIZER, set here to the toolkit's).
set -uo pipefail
# the host's own tools (mount, tar, chroot) with the host's libraries: a caller that
# sourced tools/gpu/env.sh has the 1.22 bundle's libraries first in LD_LIBRARY_PATH,
# whose libmount is older than mount needs
unset LD_LIBRARY_PATH
T=/tmp/r126; src=$PWD
if [ ! -f $T/.unpacked ]; then mkdir -p $T && tar -C $T -xJf .gstrt126/root126.tar.xz && touch $T/.unpacked; fi
# the root keeps mawk but not Debian's alternatives link awk -> mawk, and has no
# /bin/sh (compute-sanitizer is a sh script)
[ -e $T/usr/bin/awk ] || ln -s mawk $T/usr/bin/awk
[ -e $T/usr/bin/sh ] || ln -s bash $T/usr/bin/sh
b() { mountpoint -q "$T/$2" || mount --bind "$1" "$T/$2"; }
b /dev dev; mountpoint -q $T/proc || mount -t proc proc $T/proc
cuda=$(readlink -f /usr/local/cuda)
b /usr/local/nvidia usr/local/nvidia; b "$cuda" usr/local/cuda; b "$src" srcroot
# the toolkit at its own path too (its links, compute-sanitizer's among them, are
# absolute), and compute-sanitizer's folder where that lies outside it
mkdir -p "$T$cuda"; b "$cuda" "${cuda#/}"
cs=$(readlink -f /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$cs" ] && [ -e "$cs" ]; then
  d=$(dirname "$cs")
  case "$d" in "$cuda"/*) ;; *) mkdir -p "$T$d"; b "$d" "${d#/}" ;; esac
  export COMPUTE_SANITIZER="$cs"
fi
mkdir -p "${OUT:-/tmp/out}"; b "${OUT:-/tmp/out}" out
pass=()
for v in $(compgen -e | grep -E '^(TESTS_ONLY|EXTRA|SANITIZE|SANITIZE_[A-Z_]+|FRAMES|ONLY|BRANCHES|CK_RUN_CASE|CV_TEST_QUICK|COMPUTE_SANITIZER)$'); do
  pass+=("$v=${!v}")
done
chroot $T /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/cuda/bin HOME=/root LC_ALL=C OUT=/out \
  LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/cuda/lib64 OMP_WAIT_POLICY=passive \
  GST_PLUGIN_PATH=/src/build-trixie/build126/gst GST_REGISTRY=/tmp/registry126.bin CV_SOURCE_ROOT=/srcroot \
  CV_TRIXIE_ROOT=1 "${pass[@]}" /bin/bash -c "cd /srcroot && $1"
r=$?
for m in out srcroot usr/local/cuda "${cuda#/}" ${d:+"${d#/}"} usr/local/nvidia proc dev; do umount -l "$T/$m" 2>/dev/null; done
exit $r
