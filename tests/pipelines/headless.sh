#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# pipelines/*.sh on a machine with no display: they write a file instead of opening a
# window (autovideosink crashed in DirectFB there). Runs testsrc.sh for 5 frames and
# checks the WebM it wrote decodes to 5 frames of 640x480. Also: camera.sh without a
# camera exits 1 and leaves no file; file-flow.sh prints its progress; no script
# writes to out/ when OUT_DIR is set; the README's moctracker line tracks both bars.
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

# camera.sh without a camera: a clear exit 1, no 0-byte camera.webm left behind
rc=0
log=$(env -u DISPLAY -u WAYLAND_DISPLAY BUILD_DIR="$build" OUT_DIR="$dir" DEVICE=/nonexistent/video9 \
  bash "$src/pipelines/camera.sh" 2>&1) || rc=$?
[ $rc -eq 1 ] && grep -q "no camera at /nonexistent/video9" <<<"$log" ||
  { echo "$log"; echo "FAIL: camera.sh without a camera gave exit $rc"; exit 1; }
[ ! -e "$dir/camera.webm" ] || { echo "FAIL: camera.sh left $(stat -c %s "$dir/camera.webm")-byte camera.webm"; exit 1; }

# file-flow.sh: progress lines and a total on stderr
gst-launch-1.0 -q videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48,framerate=30/1 ! \
  vp8enc deadline=1 ! webmmux ! filesink location="$dir/in.webm"
log=$(env -u DISPLAY -u WAYLAND_DISPLAY BUILD_DIR="$build" OUT_DIR="$dir" PROGRESS=1 \
  bash "$src/pipelines/file-flow.sh" "$dir/in.webm" 2>&1) || { echo "$log"; echo "FAIL: file-flow.sh failed"; exit 1; }
grep -Eq "^file-flow: 5 frames in [0-9]+ s, [0-9.]+ fps" <<<"$log" ||
  { echo "$log"; echo "FAIL: no progress total from file-flow.sh"; exit 1; }
[ -s "$dir/file-flow.webm" ] || { echo "FAIL: file-flow.sh wrote no $dir/file-flow.webm"; exit 1; }

# every path a script writes goes through OUT_DIR ($cv_out / $out): no literal out/
# outside comments
lit=$(grep -nE '(^|[^_$a-zA-Z"])out/' "$src"/pipelines/*.sh | grep -v ':[0-9]*: *#' || true)
[ -z "$lit" ] || { echo "$lit"; echo "FAIL: scripts write to out/ whatever OUT_DIR says"; exit 1; }

# the README's moctracker line (one frame, no window) finds both objects
line=$(sed -n '/^gst-launch-1.0 videotestsrc pattern=smpte75/,/autovideosink$/p' "$src/README.md" |
  tr -d '\\\n' | sed 's/pattern=smpte75/pattern=smpte75 num-buffers=1/; s/autovideosink/fakesink/')
[ -n "$line" ] || { echo "FAIL: the README's moctracker line was not found"; exit 1; }
present=$(GST_PLUGIN_PATH="$build/gst" eval "${line/gst-launch-1.0/gst-launch-1.0 -m}" 2>&1 |
  grep '(element)' | grep -o 'present\\\?=\\\?(boolean\\\?)true' | wc -l)
[ "$present" -eq 2 ] || { echo "$line"; echo "FAIL: the README's moctracker line finds $present of 2 objects"; exit 1; }
echo "5 passed, 0 failed"
