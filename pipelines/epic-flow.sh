#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudaflowepic (EpicFlow: large displacements) on a video file, or on videotestsrc's
# fast sweeping ball without one, in a window (no display: out/epic-flow.webm; SINK=...
# to choose; NUM=N frames; VIS=color|arrows|quality). With a GPU the frames go
# cudaupload -> cudaflowepic -> cudadownload in CUDA memory; without one, the CPU
# backend in system memory (about a second or more per 640x480 frame).
#   pipelines/epic-flow.sh [video.mp4]
set -euo pipefail
input=${1:+$(realpath "$1")}
source "$(dirname "$0")/common.sh"
if [ -n "$input" ]; then
  src="filesrc location=$input ! decodebin ! videoconvert"
else
  src="videotestsrc pattern=ball motion=sweep ${NUM:+num-buffers=$NUM} ! video/x-raw,width=640,height=480"
fi
if gst-inspect-1.0 cudaupload >/dev/null 2>&1; then   # nvcodec registers it only with a driver
  gst-launch-1.0 $src ! video/x-raw,format=NV12 ! cudaupload ! \
    'video/x-raw(memory:CUDAMemory)' ! cudaflowepic visualize=${VIS:-color} ! cudadownload ! \
    $(cv_sink epic-flow)
else
  gst-launch-1.0 $src ! video/x-raw,format=I420 ! \
    cudaflowepic backend=cpu visualize=${VIS:-color} ! $(cv_sink epic-flow)
fi
