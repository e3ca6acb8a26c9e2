#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live camera (v4l2src) with flow arrows drawn over the picture (no display:
# out/camera.webm, or OUT_DIR; SINK=... to choose; DEVICE=/dev/videoN). Without a
# camera it says so and exits 1, writing nothing.
set -euo pipefail
source "$(dirname "$0")/common.sh"
device=$(cv_camera)
gst-launch-1.0 v4l2src device="$device" ! videoconvert ! \
  video/x-raw,format=I420 ! cudaflowlk visualize=${VIS:-arrows} window-size=15 ! \
  $(cv_sink camera)
