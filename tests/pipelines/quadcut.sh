#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# pipelines/quadcut.sh: without the shared media the CDnet and bgmatting parts say
# why and are skipped (exit 0); the active-illumination part on the project's own
# clip writes its WebM with no display, without a warning about its alternation; an
# unknown part is refused (exit 2).
set -euo pipefail
src=$1 build=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run () { env -u DISPLAY -u WAYLAND_DISPLAY BUILD_DIR="$build" OUT_DIR="$dir" "$@"; }
log=$(run CV_SHARED_MEDIA=/nonexistent bash "$src/pipelines/quadcut.sh" cdnet bgmatting 2>&1) ||
  { echo "$log"; echo "FAIL: absent media is not a clean skip"; exit 1; }
grep -q "cdnet-highway not found: CDnet part skipped" <<<"$log" &&
  grep -q "bgmatting not found: bgmatting part skipped" <<<"$log" ||
  { echo "$log"; echo "FAIL: no skip notices"; exit 1; }
log=$(run LAST=3 bash "$src/pipelines/quadcut.sh" active 2>&1) ||
  { echo "$log"; echo "FAIL: the active part failed"; exit 1; }
[ -s "$dir/quadcut-active.webm" ] || { echo "$log"; echo "FAIL: no quadcut-active.webm"; exit 1; }
# the clip alternates lit and unlit frames (mean L 0.9 apart: only the foreground is
# lit): no warning that it does not
! grep -Eq "same mean luminance|do not alternate" <<<"$log" ||
  { echo "$log"; echo "FAIL: a bogus active-illumination warning"; exit 1; }
frames=$(gst-launch-1.0 filesrc location="$dir/quadcut-active.webm" ! matroskademux ! \
  vp8dec ! video/x-raw,width=1280,height=360 ! fakesink name=s silent=false -v 2>&1 |
  grep -c 'chain   ' || true)
[ "$frames" -eq 4 ] || { echo "FAIL: $frames frames of 1280x360 decoded, want 4"; exit 1; }
rc=0
run bash "$src/pipelines/quadcut.sh" bogus >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || { echo "FAIL: an unknown part gave exit $rc, want 2"; exit 1; }
echo "3 passed, 0 failed"
