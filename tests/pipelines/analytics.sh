#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A gst-launch pipeline through objectdetectionoverlay (gst-plugins-bad 1.26): the
# overlay, with no option set, draws moctracker's analytics boxes around
# videotestsrc's ball (the raw frames differ from the same pipeline without the
# overlay), and draws nothing when moctracker tracks no object (the frames are the
# same). Skips (77) without objectdetectionoverlay.
set -euo pipefail
src=$1 build=$2
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
if ! gst-inspect-1.0 --exists objectdetectionoverlay; then
  echo "SKIP: no objectdetectionoverlay (gst-plugins-bad 1.26)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() {   # run OUT TRACKER OVERLAY
  gst-launch-1.0 -q videotestsrc num-buffers=8 pattern=ball ! \
    video/x-raw,format=RGBA,width=160,height=120,framerate=30/1 ! \
    $2 $3 filesink location="$dir/$1" || { echo "FAIL: pipeline $1"; exit 1; }
}
run ball.raw "moctracker backend=cpu objects=ball:#ffffff:60 !" ""
run boxes.raw "moctracker backend=cpu objects=ball:#ffffff:60 !" "objectdetectionoverlay !"
run none.raw "moctracker backend=cpu !" "objectdetectionoverlay !"
[ "$(stat -c %s "$dir/ball.raw")" -eq $((160 * 120 * 4 * 8)) ] || { echo "FAIL: 8 frames"; exit 1; }
cmp -s "$dir/ball.raw" "$dir/boxes.raw" && { echo "FAIL: no box drawn"; exit 1; }
cmp -s "$dir/ball.raw" "$dir/none.raw" || { echo "FAIL: drawn with no object"; exit 1; }
changed=$( (cmp -l "$dir/ball.raw" "$dir/boxes.raw" || true) | wc -l)
echo "boxes drawn: $changed bytes changed over 8 frames"
echo "1 passed, 0 failed"
