#!/usr/bin/env bash
# Any video file -> decode -> cudaflowlk (colour) -> window, or OUT=file.webm to write it.
#   pipelines/file-flow.sh video.mp4
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 VIDEO_FILE" >&2; exit 2; }
export GST_PLUGIN_PATH="$PWD/${BUILD_DIR:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
if [ -n "${OUT:-}" ]; then
  sink="videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$OUT"
else
  sink="videoconvert ! autovideosink"
fi
gst-launch-1.0 filesrc location="$1" ! decodebin ! videoconvert ! video/x-raw,format=I420 ! \
  cudaflowlk visualize=${VIS:-color} ! $sink
