#!/usr/bin/env bash
# Live camera (v4l2src) with flow arrows drawn over the picture.
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD_DIR:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-launch-1.0 v4l2src device=${DEVICE:-/dev/video0} ! videoconvert ! \
  video/x-raw,format=I420 ! cudaflowlk visualize=${VIS:-arrows} window-size=15 ! \
  videoconvert ! autovideosink sync=false
