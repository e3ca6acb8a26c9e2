#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regenerates the README's pictures (CPU backend), by section:
#   tools/dev/readme-images.sh [BUILD_DIR [SECTION...]]   SECTION: flowlk epic quadcut
#                                                     meshseg moctracker cvdmosaic
#                                                     (default: all)
# flowlk: the cudaflowlk pictures from the project's own clip (frames 19 -> 20 of
# build/media/clip):
#   docs/images/cudaflowlk-color.png   visualize=color max-magnitude=4
#   docs/images/cudaflowlk-arrows.png  visualize=arrows arrow-spacing=24 max-magnitude=1.5
#                                      (an arrow 24 px long = 1.5 px of motion per frame)
set -euo pipefail
export BUILD_DIR=${1:-${BUILD_DIR:-build}}
sections=" ${*:2} "
want () {  # SECTION: whether to make it
  [ "$sections" = "  " ] || [[ $sections == *" $1 "* ]]
}
source "$(dirname "$0")/../../pipelines/common.sh"   # the repo root, the plugin path
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
if want flowlk; then
  draw cudaflowlk-color visualize=color max-magnitude=4
  draw cudaflowlk-arrows visualize=arrows arrow-spacing=24 max-magnitude=1.5
fi

# epic: a generated large-motion pair (cv-mkpairs --procedural, 640x272, motions up to
# 120 px, seed 7), CPU backend:
#   docs/images/cudaflowepic-frame.png  frame 1
#   docs/images/cudaflowepic-color.png  cv-flow --method epic, Middlebury colours
#   docs/images/cudaflowepic-lk.png     cv-flow --method lk --refine (for contrast)
if want epic; then
  "$build/tools/cv-mkpairs" "$tmp/pairs" --count 1 --size 640x272 --max-motion 120 \
    --seed 7 --procedural >/dev/null
  pair=$tmp/pairs/pair_000
  cp "$pair/frame10.png" docs/images/cudaflowepic-frame.png
  "$build/tools/cv-flow" --method epic --backend cpu "$pair/frame10.png" "$pair/frame11.png" \
    --truth "$pair/flow10.flo" --vis docs/images/cudaflowepic-color.png
  "$build/tools/cv-flow" --method lk --refine --backend cpu "$pair/frame10.png" \
    "$pair/frame11.png" --truth "$pair/flow10.flo" --vis docs/images/cudaflowepic-lk.png
  echo "wrote docs/images/cudaflowepic-{frame,color,lk}.png"
fi

# quadcut (plugin cudavisiongpl), CPU backend, from ../shared/media/segmentation
# (skipped when absent):
#   docs/images/quadcut-bgmatting.png  bgmatting 1000_img over CDnet frame 600, back.png
#                                      aligned by quadcut-eval --align, 400x225
#   docs/images/quadcut-leaves.png     output=debug on the same photo, a 400x225 crop at
#                                      full resolution (leaf edges by level, seeds red)
#   docs/images/quadcut-cdnet.png      CDnet highway frame 600 and the element's mask
#                                      (plate learned from frames 1..200, step 1)
seg=${CV_SHARED_MEDIA:-../shared/media}/segmentation
if ! want quadcut; then
  :
elif [ -f "$seg/bgmatting/back.png" ] && [ -d "$seg/cdnet-highway/input" ]; then
  photo=$seg/bgmatting/1000_img.png
  "$build/tools/dev/quadcut-eval" --align "$seg/bgmatting/back.png" --frame "$photo" \
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

# meshseg with its defaults on the CPU backend, drawn by --render at 480x360 (a colour a
# segment; the paler a face, the less certain its membership before the minimum cut):
#   docs/images/meshseg-{ant,hand,octopus}.png  PSB 92, 200 and 125 of
#                                               ../shared/media/mesh/psb (skipped when absent)
#   docs/images/meshseg-body.png               the project's body (build/media/body.off),
#                                               its JSON line (segments, Rand Index error
#                                               against the exact parts) printed
psb=${CV_SHARED_MEDIA:-../shared/media}/mesh/psb/off
if ! want meshseg; then
  :
elif [ -d "$psb" ]; then
  for m in ant:92 hand:200 octopus:125; do
    "$build/tools/meshseg" -q -b cpu "$psb/${m#*:}.off" --render-size 480x360 \
      --render "docs/images/meshseg-${m%%:*}.png"
    echo "wrote docs/images/meshseg-${m%%:*}.png"
  done
else
  echo "readme-images.sh: $psb absent: meshseg PSB pictures not made" >&2
fi
if want meshseg; then
  "$build/tools/meshseg" -q --json -b cpu "$build/media/body.off" --eval "$build/media/body.seg" \
    --render-size 480x360 --render docs/images/meshseg-body.png
  echo "wrote docs/images/meshseg-body.png"
fi

# moctracker: frame 5 of the project's objects clip (build/media/objects), one object
# per palette colour, boxes, trajectories, centroids and labels:
#   docs/images/moctracker-objects.png
if want moctracker; then
  objects="black:#000000:40;blue:#0000fa:40;green:#00fa00:40;cyan:#00fafa:40"
  objects="$objects;red:#fa0000:40;magenta:#fa00fa:40;yellow:#fafa00:40;white:#fafafa:40"
  gst-launch-1.0 -q imagesequencesrc location="$build/media/objects/frame_%03d.png" \
    start-index=0 stop-index=5 framerate=12/1 ! pngdec ! videoconvert ! \
    video/x-raw,format=RGBA ! moctracker backend=cpu objects="$objects" \
    draw=boxes+trajectories+centroids+labels ! videoconvert ! video/x-raw,format=RGB ! \
    pngenc ! multifilesink location="$tmp/objects_%d.png"
  cp "$tmp/objects_5.png" docs/images/moctracker-objects.png
  echo "wrote docs/images/moctracker-objects.png"
fi

# cvdmosaic: the last frame of each picture of ../shared/media/mosaic scaled to 400 px
# wide, through imagefreeze (12 frames: settling on the first, then 2 iterations a
# frame), in each style, and frame 47 of the project's clip (build/media/clip, scaled to
# 480x270: drifting background, a moving square, a turning disc) without and with
# advect=flow. PNG-8 (pngquant, 256 colours, no dithering) when pngquant is installed:
#   docs/images/cvdmosaic-{fruits,baboon,starry_night}-{cells,stipple,outline}.png
#     cells:   density=gradient sites=2000
#     stipple: density=dark sites=4000
#     outline: density=gradient sites=2000
#   docs/images/cvdmosaic-clip-{still,flow}.png  cells, gradient, 1500 sites
shrink () {  # IN OUT
  if command -v pngquant >/dev/null; then
    pngquant --nofs --speed 1 --force --output "$2" 256 "$1"
  else
    cp "$1" "$2"
  fi
  echo "wrote $2 ($(stat -c %s "$2") bytes)"
}
mosaic_dir=${CV_SHARED_MEDIA:-../shared/media}/mosaic
if ! want cvdmosaic; then
  :
elif [ -d "$mosaic_dir" ]; then
  for picture in fruits baboon starry_night; do
    for style in cells stipple outline; do
      case $style in
        stipple) props="density=dark sites=4000" ;;
        *) props="density=gradient sites=2000" ;;
      esac
      gst-launch-1.0 -q filesrc location="$mosaic_dir/$picture.jpg" ! jpegdec ! videoconvert ! \
        videoscale ! video/x-raw,width=400,pixel-aspect-ratio=1/1 ! \
        imagefreeze num-buffers=12 ! video/x-raw,format=RGBA,framerate=30/1 ! \
        cvdmosaic backend=cpu style=$style $props ! videoconvert ! video/x-raw,format=RGB ! \
        pngenc ! multifilesink location="$tmp/mosaic_%02d.png"
      shrink "$tmp/mosaic_11.png" "docs/images/cvdmosaic-$picture-$style.png"
    done
  done
else
  echo "readme-images.sh: $mosaic_dir absent: cvdmosaic pictures of it not made" >&2
fi
if want cvdmosaic; then
  for advect in none flow; do
    gst-launch-1.0 -q imagesequencesrc location="$build/media/clip/frame_%03d.png" \
      start-index=0 stop-index=47 framerate=12/1 ! pngdec ! videoconvert ! videoscale ! \
      video/x-raw,format=RGBA,width=480,height=270 ! \
      cvdmosaic backend=cpu style=cells density=gradient sites=1500 advect=$advect ! \
      videoconvert ! video/x-raw,format=RGB ! pngenc ! multifilesink location="$tmp/clip_%02d.png"
    name=$([ $advect = flow ] && echo flow || echo still)
    shrink "$tmp/clip_47.png" "docs/images/cvdmosaic-clip-$name.png"
  done
fi
