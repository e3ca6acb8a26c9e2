#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudaflowepic (EpicFlow: large displacements) on a video file, or on videotestsrc's
# fast sweeping ball without one, in a window (no display: out/epic-flow.webm, and 30
# frames of the ball unless NUM says; SINK=... to choose; NUM=N frames, of the file
# too; VIS=color|arrows|quality). With a GPU the frames go cudaupload -> cudaflowepic
# -> cudadownload in CUDA memory; without one, the CPU backend in system memory (about
# a second or more per 640x480 frame: frames and rate on stderr every PROGRESS s, 5).
#   pipelines/epic-flow.sh [video.mp4]
set -euo pipefail
input=${1:+$(realpath "$1")}
source "$(dirname "$0")/common.sh"
gpu=""
gst-inspect-1.0 --exists cudaupload && gpu=1   # nvcodec registers it only with a driver
fmt=${gpu:+NV12}
fmt=${fmt:-I420}
if [ -n "$input" ]; then
  [ -f "$input" ] || { echo "epic-flow.sh: no file $1" >&2; exit 1; }
  src="filesrc location=\"$input\" ! decodebin ! $(cv_limit "${NUM:-}") videoconvert ! \
    video/x-raw,format=$fmt"
else
  num=$(cv_frames 30)
  src="videotestsrc pattern=ball motion=sweep ${num:+num-buffers=$num} ! \
    video/x-raw,format=$fmt,width=640,height=480"
fi
if [ -n "$gpu" ]; then
  cv_launch $src ! cudaupload ! 'video/x-raw(memory:CUDAMemory)' ! \
    cudaflowepic visualize=${VIS:-color} ! cudadownload ! $(cv_counter) ! $(cv_sink epic-flow)
else
  cv_launch $src ! cudaflowepic backend=cpu visualize=${VIS:-color} ! $(cv_counter) ! \
    $(cv_sink epic-flow)
fi
