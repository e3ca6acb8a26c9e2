#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Any video file -> decode -> cudaflowlk (colour) -> window; OUT=file.webm (or no
# display: out/file-flow.webm) to write it.
#   pipelines/file-flow.sh video.mp4
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 VIDEO_FILE" >&2; exit 2; }
input=$(realpath "$1")
source "$(dirname "$0")/common.sh"
[ -n "${OUT:-}" ] && SINK="videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$OUT"
gst-launch-1.0 filesrc location="$input" ! decodebin ! videoconvert ! video/x-raw,format=I420 ! \
  cudaflowlk visualize=${VIS:-color} ! $(cv_sink file-flow)
