#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# quadcut (plugin cudavisiongpl, GPL) on the shared media and on a camera.
#   pipelines/quadcut.sh [cdnet] [bgmatting] [active]   all three without arguments
#   CAMERA=1 pipelines/quadcut.sh               a virtual background from a camera
# cdnet:     CDnet highway (../shared/media/segmentation/cdnet-highway), the plate
#            learned by the element from the first 200 frames (1 level a frame), kept
#            up to date where the cut is background (docs/quadcut.md: F 0.947 on
#            frames 470..699 that way); the mask, side by side with the
#            frame: a window, or out/quadcut-cdnet.webm without a display (SINK=...).
# bgmatting: the four photos of ../shared/media/segmentation/bgmatting with back.png as
#            the plate, over a new background (CDnet frame 600, or BACKGROUND=FILE):
#            out/quadcut-bgmatting-NNNN.png. The camera moved between back.png and the
#            photos: the plate is first moved onto each photo by a global shift
#            (quadcut-eval --align; docs/quadcut.md gives what the misalignment costs).
# active:    the project's alternating lit / unlit clip (build/media/foreground-active,
#            cv-mkclip --foreground active), mode=active-illumination: the mask beside
#            the frames, out/quadcut-active.webm without a display.
# camera:    stay out of the picture for the first 60 frames (the plate is learned),
#            then the background is blurred (BACKGROUND=FILE: replaced by an image).
# Without the shared media a part prints why and is skipped (exit 0). Files go to
# out/, or to OUT_DIR when set. NUM=N: the first N frames of cdnet and active (LAST:
# the last frame's index), of the camera (300 with no display, else until Ctrl-C);
# frames and rate on stderr every PROGRESS s (5).
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ -f "$cv_build/gst/libgstcudavisiongpl.so" ] || {
  echo "quadcut.sh: $cv_build/gst/libgstcudavisiongpl.so not built (libmaxflow-dev, -Dgpl)" >&2
  exit 1
}
if [ -n "${CAMERA:-}" ]; then
  if [ -n "${BACKGROUND:-}" ]; then bg="background-location=$BACKGROUND"; else
    bg="background=blur blur-radius=25"; fi
  device=$(cv_camera)
  num=$(cv_frames 300)
  cv_launch v4l2src device="$device" ${num:+num-buffers=$num} ! videoconvert ! \
    video/x-raw,format=RGBA ! quadcut learn-frames=60 plate-update-rate=1 $bg ! \
    $(cv_counter) ! $(cv_sink quadcut-camera)
  exit
fi
media=${CV_SHARED_MEDIA:-../shared/media}/segmentation
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(cdnet bgmatting active)
for part in "${parts[@]}"; do
  case $part in
    cdnet)
      clip=$media/cdnet-highway
      if [ ! -d "$clip/input" ]; then
        echo "quadcut.sh: $clip not found: CDnet part skipped" >&2; continue
      fi
      # the mask (right) beside the frame (left)
      cv_launch imagesequencesrc location="$clip/input/in%06d.jpg" start-index=1 \
        stop-index=${LAST:-${NUM:-699}} framerate=30/1 ! jpegdec ! videoconvert ! \
        video/x-raw,format=RGBA ! tee name=t \
        t. ! queue ! comp.sink_0 \
        t. ! queue ! quadcut learn-frames=200 learn-step=1 plate-update-rate=1 \
          output=mask ! comp.sink_1 \
        compositor name=comp sink_1::xpos=320 ! video/x-raw,width=640,height=240 ! \
        $(cv_counter) ! $(cv_sink quadcut-cdnet)
      ;;
    bgmatting)
      dir=$media/bgmatting
      if [ ! -f "$dir/back.png" ]; then
        echo "quadcut.sh: $dir not found: bgmatting part skipped" >&2; continue
      fi
      back=${BACKGROUND:-$media/cdnet-highway/input/in000600.jpg}
      if [ -f "$back" ]; then bg="background-location=$back"; else
        bg="background=blur blur-radius=40"; fi
      for photo in "$dir"/*_img.png; do
        n=$(basename "$photo" _img.png)
        "$cv_build/tools/dev/quadcut-eval" --align "$dir/back.png" --frame "$photo" \
          --aligned "$cv_out/quadcut-plate-$n.png"
        # sigma-l 12: the photos' exposure and the parallax the shift leaves differ
        # more from the plate than sensor noise does
        gst-launch-1.0 -q filesrc location="$photo" ! pngdec ! videoconvert ! \
          video/x-raw,format=RGBA ! quadcut plate-location="$cv_out/quadcut-plate-$n.png" \
          sigma-l=12 feather=2 $bg ! videoconvert ! pngenc ! \
          filesink location="$cv_out/quadcut-bgmatting-$n.png"
        echo "wrote $cv_out/quadcut-bgmatting-$n.png"
      done
      ;;
    active)
      clip=$cv_build/media/foreground-active
      [ -f "$clip/frame_000.png" ] || "$cv_build/tools/cv-mkclip" "$clip" --frames 48 \
        --size 640x360 --foreground active
      cv_launch imagesequencesrc location="$clip/frame_%03d.png" start-index=0 \
        stop-index=${LAST:-$(( ${NUM:-48} - 1 ))} framerate=12/1 ! pngdec ! videoconvert ! \
        video/x-raw,format=RGBA ! tee name=t \
        t. ! queue ! comp.sink_0 \
        t. ! queue ! quadcut mode=active-illumination sigma-l=4 output=mask ! comp.sink_1 \
        compositor name=comp sink_1::xpos=640 ! video/x-raw,width=1280,height=360 ! \
        $(cv_counter) ! $(cv_sink quadcut-active)
      ;;
    *)
      echo "quadcut.sh: unknown part '$part' (cdnet, bgmatting, active)" >&2; exit 2 ;;
  esac
done
