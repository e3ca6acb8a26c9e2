#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU end to end: upload once, flow on CUDA memory (no host copy), download once.
# Needs an NVIDIA GPU and GStreamer's nvcodec plugin (cudaupload/cudadownload, in
# gstreamer1.0-plugins-bad, which registers them only when a driver is found): without
# them it says so in one line and exits 1 (pipelines/testsrc.sh is the same flow on
# the CPU). No display: out/cuda-memory.webm, 300 frames (SINK=... to choose; NUM=N
# frames).
set -euo pipefail
source "$(dirname "$0")/common.sh"
if ! gst-inspect-1.0 --exists cudaupload; then
  echo "cuda-memory.sh: no element cudaupload: needs an NVIDIA GPU, its driver and GStreamer's nvcodec plugin (gstreamer1.0-plugins-bad); pipelines/testsrc.sh runs the same flow on the CPU" >&2
  exit 1
fi
num=$(cv_frames 300)
cv_launch videotestsrc pattern=ball motion=sweep ${num:+num-buffers=$num} ! \
  video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! 'video/x-raw(memory:CUDAMemory)' ! \
  cudaflowlk visualize=color ! cudadownload ! $(cv_counter) ! $(cv_sink cuda-memory)
