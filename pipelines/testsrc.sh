#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cudaflowlk on videotestsrc's moving ball, in a window (no display: out/testsrc.webm,
# 300 frames unless NUM says; SINK=... to choose; NUM=N frames). Runs on any machine
# (CPU backend without a GPU); frames and rate on stderr every PROGRESS s (5).
set -euo pipefail
source "$(dirname "$0")/common.sh"
num=$(cv_frames 300)
cv_launch videotestsrc pattern=ball motion=sweep ${num:+num-buffers=$num} ! \
  video/x-raw,format=I420,width=640,height=480 ! \
  cudaflowlk visualize=${VIS:-color} ! $(cv_counter) ! $(cv_sink testsrc)
