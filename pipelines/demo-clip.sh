#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job: optical flow of the project's synthetic clip (media/, generated with
# known motion), drawn with the Middlebury colour wheel, written to out/flow.webm and
# out/flow_NNN.png, with the accuracy against the clip's ground truth printed; then
# moctracker, cvdmosaic and quadcut on the project's clips (out/moctracker.webm,
# out/cvdmosaic.webm, out/quadcut.webm).
#   pipelines/demo-clip.sh [BUILD_DIR]      (OUT_DIR=... writes elsewhere than out/)
# NUM=N: the first N frames of each clip (all 48 by default); frames and rate of each
# pipeline on stderr every PROGRESS s (5) and at its end.
set -euo pipefail
BUILD_DIR=${1:-${BUILD_DIR:-build}}
source "$(dirname "$0")/common.sh"
build=$cv_build
out=$cv_out
# the last frame index of a 48-frame clip that NUM allows
last=$(( ${NUM:-48} < 48 ? ${NUM:-48} - 1 : 47 ))
clip=$build/media/clip
[ -f "$clip/frame_000.png" ] || "$build/tools/cv-mkclip" "$clip" --frames 48 --size 640x360
rm -f "$out"/flow_*.png "$out"/flow.webm
cv_launch \
  imagesequencesrc location="$clip/frame_%03d.png" start-index=0 stop-index=$last \
  framerate=12/1 ! pngdec ! \
  videoconvert ! video/x-raw,format=RGBA ! cudaflowlk visualize=color max-magnitude=4 ! \
  $(cv_counter) ! tee name=t \
  t. ! queue ! videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location="$out"/flow.webm \
  t. ! queue ! videoconvert ! pngenc ! multifilesink location="$out"/flow_%03d.png
echo "demo: wrote $out/flow.webm and $(ls "$out"/flow_*.png | wc -l) PNGs"
# accuracy of the same flow on one pair, against the clip's exact ground truth
"$build/tools/cv-flow" "$clip/frame_010.png" "$clip/frame_011.png" \
  --truth "$clip/flow_010.flo" --vis "$out"/clip_flow_010.png
# moctracker on the project's moving-objects clip (media/objects: 8 discs of unique
# colours with exact ground truth in objects.csv): boxes, centroids, trajectories and
# labels drawn, to out/moctracker.webm and its last frame to out/moctracker_last.png
objs=$build/media/objects
if [ -f "$objs/objects.csv" ]; then
  rm -f "$out"/moctracker.webm "$out"/moctracker_last.png
  # the objects line from the first frame's colours in the ground truth
  line=$(awk -F, 'NR > 1 && $1 == 0 { printf "%sball%d:#%02x%02x%02x:30", (n++ ? ";" : ""), $2, $3, $4, $5 }' \
    "$objs/objects.csv")
  cv_launch \
    imagesequencesrc location="$objs/frame_%03d.png" start-index=0 stop-index=$last \
    framerate=12/1 ! pngdec ! \
    videoconvert ! video/x-raw,format=RGBA ! moctracker objects="\"$line\"" draw=all ! \
    $(cv_counter) ! tee name=m \
    m. ! queue ! videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location="$out"/moctracker.webm \
    m. ! queue ! videoconvert ! pngenc ! multifilesink location="$out"/moctracker_last.png
  echo "demo: wrote $out/moctracker.webm and $out/moctracker_last.png"
fi
# cvdmosaic on the flow clip: 2000 cells that follow the content (advect=flow: each
# frame the sites first move with the clip's Lucas-Kanade flow), to out/cvdmosaic.webm
rm -f "$out"/cvdmosaic.webm
cv_launch \
  imagesequencesrc location="$clip/frame_%03d.png" start-index=0 stop-index=$last \
  framerate=12/1 ! pngdec ! \
  videoconvert ! video/x-raw,format=RGBA ! \
  cvdmosaic sites=2000 iterations=2 density=gradient advect=flow ! $(cv_counter) ! \
  videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location="$out"/cvdmosaic.webm
echo "demo: wrote $out/cvdmosaic.webm"
# quadcut (plugin cudavisiongpl, when built): the project's foreground clip segmented
# against its plate; the masks to out/quadcut_mask_NNN.png, the composite over a solid
# colour to out/quadcut.webm (shadow-depth 0.6: the clip's shadow takes 45 % of the light)
fg=$build/media/foreground
if [ -f "$build/gst/libgstcudavisiongpl.so" ] && [ -f "$fg/plate.png" ]; then
  rm -f "$out"/quadcut_mask_*.png "$out"/quadcut.webm
  qc="quadcut plate-location=$fg/plate.png shadow-depth=0.6 feather=1"
  cv_launch \
    imagesequencesrc location="$fg/frame_%03d.png" start-index=0 stop-index=$last \
    framerate=12/1 ! pngdec ! \
    videoconvert ! video/x-raw,format=RGBA ! $(cv_counter) ! tee name=q \
    q. ! queue ! $qc output=mask ! videoconvert ! pngenc ! \
      multifilesink location="$out"/quadcut_mask_%03d.png \
    q. ! queue ! $qc background-color=0x2040ff ! videoconvert ! vp8enc deadline=1 ! webmmux ! \
      filesink location="$out"/quadcut.webm
  echo "demo: wrote $out/quadcut.webm and $(ls "$out"/quadcut_mask_*.png | wc -l) quadcut masks"
else
  echo "demo: quadcut skipped (no GPL plugin or no $fg)"
fi
