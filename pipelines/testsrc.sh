#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudaflowlk on videotestsrc's moving ball, in a window (no display: out/testsrc.webm;
# SINK=... to choose; NUM=N frames). Runs on any machine (CPU backend without a GPU).
set -euo pipefail
source "$(dirname "$0")/common.sh"
gst-launch-1.0 videotestsrc pattern=ball motion=sweep ${NUM:+num-buffers=$NUM} ! \
  video/x-raw,format=I420,width=640,height=480 ! \
  cudaflowlk visualize=${VIS:-color} ! $(cv_sink testsrc)
