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
