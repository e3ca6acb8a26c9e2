#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# moctracker on a billiard clip of ../shared/media/tracking: the balls are calibrated
# on the clip's first frame and boxes (cv-moct calibrate), then tracked with boxes,
# centroids and trajectories drawn; no display: out/moctracker.webm (SINK=...; OUT_DIR
# for another folder than out/, which also gets balls.txt).
#   pipelines/moctracker.sh [game1|game2|game3]     CAMERA=1 pipelines/moctracker.sh
# The camera line tracks OBJECTS (default: a red and a green marker). NUM=N: the first
# N frames (the camera: 300 with no display, else until Ctrl-C); frames and rate on
# stderr every PROGRESS s (5).
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [ -n "${CAMERA:-}" ]; then
  device=$(cv_camera)
  num=$(cv_frames 300)
  cv_launch v4l2src device="$device" ${num:+num-buffers=$num} ! videoconvert ! \
    video/x-raw,format=RGBx ! \
    moctracker objects="\"${OBJECTS:-red:#c02020:60;green:#20a040:60}\"" search-window=48 \
    draw=boxes+centroids+trajectories ! $(cv_counter) ! $(cv_sink moctracker-camera)
  exit
fi
clip=${CV_SHARED_MEDIA:-../shared/media}/tracking/${1:-game1}_clip1
[ -d "$clip" ] || { echo "moctracker.sh: $clip not found (../shared/media)" >&2; exit 1; }
"$cv_build/tools/cv-moct" calibrate "$clip/frames/frame_first.png" \
  "$clip/bounding_boxes/frame_first_bbox.txt" -o "$cv_out/balls.txt" >/dev/null
# MPEG-4 part 2 in MP4: avdec_mpeg4 (gstreamer1.0-libav, installed by tools/setup.sh)
cv_launch filesrc location="\"$clip/${1:-game1}_clip1.mp4\"" ! decodebin ! \
  $(cv_limit "${NUM:-}") videoconvert ! \
  video/x-raw,format=RGBx ! moctracker objects-file="\"$cv_out/balls.txt\"" search-window=16 \
  draw=boxes+centroids+trajectories ! $(cv_counter) ! $(cv_sink moctracker)
