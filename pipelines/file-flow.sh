#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Any video file -> decode -> cudaflowlk (colour) -> window; OUT=file.webm (or no
# display: out/file-flow.webm, or OUT_DIR) to write it; NUM=N: the first N frames
# (a decoder with frames ready may add a few: common.sh, cv_limit).
#   pipelines/file-flow.sh video.mp4
# Progress on stderr every PROGRESS seconds (default 5; 0: none): frames done, their
# rate and the stream position ("file-flow: 240 frames, 1.3 fps, at 0:00:08.0"), and
# a last line with the totals: a 795-frame clip takes minutes on the CPU.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 VIDEO_FILE" >&2; exit 2; }
input=$(realpath "$1")
source "$(dirname "$0")/common.sh"
[ -n "${OUT:-}" ] && SINK="videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$OUT"
cv_launch filesrc location="\"$input\"" ! decodebin ! $(cv_limit "${NUM:-}") videoconvert ! \
  video/x-raw,format=I420 ! cudaflowlk visualize=${VIS:-color} ! \
  $(cv_counter) ! $(cv_sink file-flow)
