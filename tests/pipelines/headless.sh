#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# pipelines/*.sh on a machine with no display: they write a file instead of opening a
# window (autovideosink crashed in DirectFB there). Runs testsrc.sh for 5 frames and
# checks the WebM it wrote decodes to 5 frames of 640x480.
set -euo pipefail
src=$1 build=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
log=$(env -u DISPLAY -u WAYLAND_DISPLAY BUILD_DIR="$build" OUT_DIR="$dir" NUM=5 \
  bash "$src/pipelines/testsrc.sh" 2>&1) || { echo "$log"; echo "FAIL: testsrc.sh failed"; exit 1; }
grep -q "no display: writing $dir/testsrc.webm" <<<"$log" || { echo "$log"; echo "FAIL: no notice"; exit 1; }
[ -s "$dir/testsrc.webm" ] || { echo "FAIL: $dir/testsrc.webm missing"; exit 1; }
frames=$(gst-launch-1.0 filesrc location="$dir/testsrc.webm" ! matroskademux ! vp8dec ! \
  video/x-raw,width=640,height=480 ! fakesink name=s silent=false -v 2>&1 | grep -c 'chain   ' || true)
[ "$frames" -eq 5 ] || { echo "FAIL: $frames frames decoded, want 5"; exit 1; }
echo "1 passed, 0 failed"
