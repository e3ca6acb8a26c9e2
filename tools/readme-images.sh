#!/usr/bin/env bash
# Regenerates the README's cudaflowlk pictures from the project's own clip (frames 19
# -> 20 of build/media/clip), CPU backend:
#   docs/images/cudaflowlk-color.png   visualize=color max-magnitude=4
#   docs/images/cudaflowlk-arrows.png  visualize=arrows arrow-spacing=24 max-magnitude=1.5
#                                      (an arrow 24 px long = 1.5 px of motion per frame)
#   tools/readme-images.sh [BUILD_DIR]
set -euo pipefail
export BUILD_DIR=${1:-${BUILD_DIR:-build}}
source "$(dirname "$0")/../pipelines/common.sh"   # the repo root, the plugin path
build=$cv_build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
draw () {  # NAME PROPERTIES...
  local name=$1; shift
  gst-launch-1.0 -q imagesequencesrc location="$build/media/clip/frame_%03d.png" \
    start-index=19 stop-index=20 framerate=12/1 ! pngdec ! videoconvert ! \
    video/x-raw,format=RGBA ! cudaflowlk backend=cpu "$@" ! videoconvert ! \
    video/x-raw,format=RGB ! pngenc ! multifilesink location="$tmp/${name}_%d.png"
  cp "$tmp/${name}_1.png" "docs/images/$name.png"
  echo "wrote docs/images/$name.png"
}
draw cudaflowlk-color visualize=color max-magnitude=4
draw cudaflowlk-arrows visualize=arrows arrow-spacing=24 max-magnitude=1.5

# quadcut (plugin cudavisiongpl), CPU backend, from ../shared/media/segmentation
# (skipped when absent):
#   docs/images/quadcut-bgmatting.png  bgmatting 1000_img over CDnet frame 600, back.png
#                                      aligned by quadcut-eval --align, 400x225
#   docs/images/quadcut-leaves.png     output=debug on the same photo, a 400x225 crop at
#                                      full resolution (leaf edges by level, seeds red)
#   docs/images/quadcut-cdnet.png      CDnet highway frame 600 and the element's mask
#                                      (plate learned from frames 1..200, step 1)
seg=${CV_SHARED_MEDIA:-../shared/media}/segmentation
if [ -f "$seg/bgmatting/back.png" ] && [ -d "$seg/cdnet-highway/input" ]; then
  photo=$seg/bgmatting/1000_img.png
  "$build/tools/quadcut-eval" --align "$seg/bgmatting/back.png" --frame "$photo" \
    --aligned "$tmp/plate.png" >/dev/null
  quadcut () {  # NAME TAIL PROPERTIES...
    local name=$1 tail=$2; shift 2
    gst-launch-1.0 -q filesrc location="$photo" ! pngdec ! videoconvert ! \
      video/x-raw,format=RGBA ! quadcut backend=cpu plate-location="$tmp/plate.png" \
      sigma-l=12 feather=2 "$@" ! $tail ! videoconvert ! video/x-raw,format=RGB ! pngenc ! \
      filesink location="docs/images/$name.png"
    echo "wrote docs/images/$name.png"
  }
  quadcut quadcut-bgmatting "videoscale ! video/x-raw,width=400,height=225" \
    background-location="$seg/cdnet-highway/input/in000600.jpg"
  quadcut quadcut-leaves "videocrop left=600 top=120 right=920 bottom=735" output=debug
  gst-launch-1.0 -q imagesequencesrc location="$seg/cdnet-highway/input/in%06d.jpg" \
    start-index=1 stop-index=600 framerate=30/1 ! jpegdec ! videoconvert ! \
    video/x-raw,format=RGBA ! tee name=t \
    t. ! queue ! comp.sink_0 \
    t. ! queue ! quadcut backend=cpu learn-frames=200 learn-step=1 plate-update-rate=1 \
      output=mask ! comp.sink_1 \
    compositor name=comp sink_1::xpos=320 ! videoconvert ! video/x-raw,format=RGB ! pngenc ! \
    multifilesink location="$tmp/cdnet_%03d.png"
  cp "$tmp/cdnet_599.png" docs/images/quadcut-cdnet.png
  echo "wrote docs/images/quadcut-cdnet.png"
else
  echo "readme-images.sh: $seg absent: quadcut pictures not made" >&2
fi
