#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live camera (v4l2src) with flow arrows drawn over the picture (no display:
# out/camera.webm, or OUT_DIR, 300 frames unless NUM says; SINK=... to choose;
# DEVICE=/dev/videoN; NUM=N frames). Without a camera it says so and exits 1, writing
# nothing. Ctrl-C ends it with the file complete.
set -euo pipefail
source "$(dirname "$0")/common.sh"
device=$(cv_camera)
num=$(cv_frames 300)
cv_launch v4l2src device="$device" ${num:+num-buffers=$num} ! videoconvert ! \
  video/x-raw,format=I420 ! cudaflowlk visualize=${VIS:-arrows} window-size=15 ! \
  $(cv_counter) ! $(cv_sink camera)
