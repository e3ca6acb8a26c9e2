#!/usr/bin/env bash
# cudaflowlk on videotestsrc's moving ball, shown in a window (or written with SINK=...).
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD_DIR:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-launch-1.0 videotestsrc pattern=ball motion=sweep ${NUM:+num-buffers=$NUM} ! \
  video/x-raw,format=I420,width=640,height=480 ! \
  cudaflowlk visualize=${VIS:-color} ! videoconvert ! ${SINK:-autovideosink}
