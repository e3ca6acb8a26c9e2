#!/usr/bin/env bash
# GPU end to end: upload once, flow on CUDA memory (no host copy), download once.
# Needs nvcodec's cudaupload/cudadownload (gstreamer1.0-plugins-bad with a driver).
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD_DIR:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-launch-1.0 videotestsrc pattern=ball motion=sweep ${NUM:+num-buffers=$NUM} ! \
  video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! 'video/x-raw(memory:CUDAMemory)' ! \
  cudaflowlk visualize=color ! cudadownload ! videoconvert ! ${SINK:-autovideosink}
