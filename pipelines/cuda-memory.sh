#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU end to end: upload once, flow on CUDA memory (no host copy), download once.
# Needs an NVIDIA GPU and GStreamer's nvcodec plugin (cudaupload/cudadownload, in
# gstreamer1.0-plugins-bad, which registers them only when a driver is found).
# No display: out/cuda-memory.webm (SINK=... to choose; NUM=N frames).
set -euo pipefail
source "$(dirname "$0")/common.sh"
gst-launch-1.0 videotestsrc pattern=ball motion=sweep ${NUM:+num-buffers=$NUM} ! \
  video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! 'video/x-raw(memory:CUDAMemory)' ! \
  cudaflowlk visualize=color ! cudadownload ! $(cv_sink cuda-memory)
