#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live camera (v4l2src) with flow arrows drawn over the picture (no display:
# out/camera.webm; SINK=... to choose; DEVICE=/dev/videoN).
set -euo pipefail
source "$(dirname "$0")/common.sh"
gst-launch-1.0 v4l2src device=${DEVICE:-/dev/video0} ! videoconvert ! \
  video/x-raw,format=I420 ! cudaflowlk visualize=${VIS:-arrows} window-size=15 ! \
  $(cv_sink camera)
