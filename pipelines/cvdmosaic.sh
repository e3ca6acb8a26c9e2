#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cvdmosaic (centroidal Voronoi mosaic / stippling) on a still picture of
# ../shared/media/mosaic through imagefreeze, or on a live camera.
#   pipelines/cvdmosaic.sh [IMAGE]     IMAGE: fruits (default), baboon, starry_night, or a path
#   CAMERA=1 pipelines/cvdmosaic.sh    the camera (DEVICE=/dev/videoN), sites follow the motion
# Element settings from the environment: SITES (3000), ITERATIONS (2), SETTLE (30: settling
# iterations on the first frame), DENSITY (gradient),
# STYLE (cells|stipple|outline), BORDER (1), ADVECT (none|flow), BACKEND (auto|cpu|cuda);
# NUM=N frames (default 60 for a picture; the camera: 300 with no display, else until
# Ctrl-C). No display: out/cvdmosaic-NAME.webm (SINK=...). Frames and rate on stderr
# every PROGRESS s (5).
set -euo pipefail
source "$(dirname "$0")/common.sh"
mosaic="sites=${SITES:-3000} iterations=${ITERATIONS:-2} settle-iterations=${SETTLE:-30} \
  density=${DENSITY:-gradient} \
  style=${STYLE:-cells} border-width=${BORDER:-1} advect=${ADVECT:-none} backend=${BACKEND:-auto}"
if [ -n "${CAMERA:-}" ]; then
  # the camera line: advection on by default, so the cells follow what moves
  mosaic="$mosaic advect=${ADVECT:-flow}"
  device=$(cv_camera)
  num=$(cv_frames 300)
  cv_launch v4l2src device="$device" ${num:+num-buffers=$num} ! videoconvert ! \
    video/x-raw,format=NV12 ! cvdmosaic $mosaic ! $(cv_counter) ! $(cv_sink cvdmosaic-camera)
  exit
fi
image=${1:-fruits}
case $image in
  */*|*.*) path=$image ;;
  *) path=../shared/media/mosaic/$image.jpg ;;
esac
if [ ! -f "$path" ]; then
  echo "cvdmosaic.sh: no picture at $path (the shared media live in ../shared/media)" >&2
  exit 1
fi
name=$(basename "${path%.*}")
cv_launch filesrc location="\"$path\"" ! jpegdec ! videoconvert ! \
  imagefreeze num-buffers=${NUM:-60} ! video/x-raw,format=RGBA,framerate=30/1 ! \
  cvdmosaic $mosaic ! $(cv_counter) ! $(cv_sink cvdmosaic-$name)
