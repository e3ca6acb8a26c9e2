#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One pipelines/ script or examples/ program run as a user runs it (README, the
# script's own header), with a few frames, on a machine with no display (the CPU
# backend when there is no GPU): exit 0 and the output it promises (a WebM of that many
# frames, PNGs, the per-frame lines), and the progress totals. One meson test per
# program (as-user-NAME), so that meson gives each its own result and time
# (examples/flow_tracks.c is built against the installed cudavision-1.0.pc, as
# docs/api.md says, by examples-install). A program
# that needs what the machine lacks (a GPU, a camera, the shared media) is run anyway
# where it must refuse (exit 1 and its one-line reason are checked), then reported
# skipped (77), never passed.
#   tests/pipelines/as-user.sh SOURCE_ROOT BUILD_ROOT NAME
set -euo pipefail
src=$1 build=$2 name=$3
source "$src/tests/examples/common.sh"   # fail, ok, run_example, find_python
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/out   # OUT_DIR of the scripts
media=${CV_SHARED_MEDIA:-$src/../shared/media}
skip () { echo "SKIP: $*"; exit 77; }

# run NAME.sh [ARGS...]: the script with no display, writing into $out; its stdout and
# stderr in $dir/log; the exit status in $rc
run () {
  local script=$1; shift
  rc=0
  env -u DISPLAY -u WAYLAND_DISPLAY -u SINK BUILD_DIR="$build" OUT_DIR="$out" PROGRESS=1 \
    bash "$src/pipelines/$script" "$@" >"$dir/log" 2>&1 || rc=$?
  echo "--- pipelines/$script $* (NUM=${NUM:-}): exit $rc"
  cat "$dir/log"
}
# frames FILE.webm WxH: the frames of that size the WebM decodes to (WxH "any": of
# the size of its first frame, whatever it is)
frames () {
  local caps=video/x-raw
  [ "$2" = any ] || caps="video/x-raw,width=${2%x*},height=${2#*x}"
  gst-launch-1.0 filesrc location="$1" ! matroskademux ! vp8dec ! "$caps" ! \
    fakesink name=s silent=false -v 2>&1 | grep -c 'chain   ' || true
}
# expect_webm FILE WxH N: the WebM is there and decodes to N frames of WxH
expect_webm () {
  [ -s "$1" ] || fail "no $1"
  local n
  n=$(frames "$1" "$2")
  [ "$n" -eq "$3" ] || fail "$1: $n frames of $2 decoded, want $3"
}
# expect_total WHO N: the progress totals line "WHO: N frames in S s, R fps"
expect_total () {
  grep -Eq "^$1: $2 frames in [0-9]+ s, [0-9]+\.[0-9] fps$" "$dir/log" \
    || fail "no totals line '$1: $2 frames in ...'"
}
# file_total WHO N: the frames of a decoded file's run with NUM=N, from its totals line,
# in $n: at least N; a decoder with frames ready when the limit's end of stream comes
# (identity eos-after) may deliver a few more: at most N + 3
file_total () {
  n=$(sed -n "s/^$1: \([0-9]*\) frames in [0-9]* s, .*/\1/p" "$dir/log")
  [ -n "$n" ] && [ "$n" -ge "$2" ] && [ "$n" -le $(($2 + 3)) ] \
    || fail "$1: '$n' frames with NUM=$2"
}
# a small video file (10 frames of videotestsrc's ball, VP8 in WebM)
make_video () {
  gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=10 ! \
    video/x-raw,width=160,height=120,framerate=30/1 ! vp8enc deadline=1 ! webmmux ! \
    filesink location="$1" || fail "could not write $1"
}
python_or_skip () {
  find_python
  [ -n "$py" ] || skip "no python3 with PyGObject (python3-gi)"
  [ -f "$build/gst/GstCudaVision-1.0.typelib" ] \
    || skip "no GstCudaVision-1.0.typelib (-Dintrospection=disabled)"
}
export GST_PLUGIN_PATH=$build/gst

case $name in
  testsrc)
    NUM=3 run testsrc.sh
    [ $rc -eq 0 ] || fail "testsrc.sh: exit $rc"
    expect_total testsrc 3
    expect_webm "$out/testsrc.webm" 640x480 3
    ok "NUM=3 pipelines/testsrc.sh: 3 frames of 640x480 in testsrc.webm"
    ;;
  epic-flow)
    NUM=2 run epic-flow.sh
    [ $rc -eq 0 ] || fail "epic-flow.sh: exit $rc"
    expect_total epic-flow 2
    expect_webm "$out/epic-flow.webm" 640x480 2
    ok "NUM=2 pipelines/epic-flow.sh: 2 frames of 640x480 in epic-flow.webm"
    make_video "$dir/in.webm"
    rm "$out/epic-flow.webm"
    NUM=3 run epic-flow.sh "$dir/in.webm"
    [ $rc -eq 0 ] || fail "epic-flow.sh FILE: exit $rc"
    file_total epic-flow 3
    expect_webm "$out/epic-flow.webm" 160x120 "$n"
    ok "NUM=3 pipelines/epic-flow.sh FILE (10 frames): the first $n"
    ;;
  file-flow)
    make_video "$dir/in.webm"
    NUM=4 run file-flow.sh "$dir/in.webm"
    [ $rc -eq 0 ] || fail "file-flow.sh: exit $rc"
    file_total file-flow 4
    expect_webm "$out/file-flow.webm" 160x120 "$n"
    ok "NUM=4 pipelines/file-flow.sh FILE (10 frames): the first $n"
    ;;
  cuda-memory)
    if ! gst-inspect-1.0 --exists cudaupload; then
      NUM=3 run cuda-memory.sh
      [ $rc -eq 1 ] && [ "$(wc -l <"$dir/log")" -eq 1 ] \
        && grep -q '^cuda-memory.sh: no element cudaupload: needs an NVIDIA GPU' "$dir/log" \
        || fail "without cudaupload: not exit 1 with one line saying why"
      [ -z "$(ls "$out")" ] || fail "without cudaupload it wrote $(ls "$out")"
      skip "no cudaupload (no NVIDIA GPU and driver, or no nvcodec plugin): the one-line refusal checked"
    fi
    NUM=3 run cuda-memory.sh
    [ $rc -eq 0 ] || fail "cuda-memory.sh: exit $rc"
    expect_total cuda-memory 3
    expect_webm "$out/cuda-memory.webm" 1920x1080 3
    ok "NUM=3 pipelines/cuda-memory.sh: 3 frames of 1920x1080"
    ;;
  camera)
    if [ ! -c /dev/video0 ]; then
      NUM=3 run camera.sh
      [ $rc -eq 1 ] && grep -q '^camera.sh: no camera at /dev/video0' "$dir/log" \
        || fail "without a camera: not exit 1 saying so"
      skip "no camera at /dev/video0: the refusal checked"
    fi
    NUM=3 run camera.sh
    [ $rc -eq 0 ] || fail "camera.sh: exit $rc"
    expect_total camera 3
    ok "NUM=3 pipelines/camera.sh: 3 frames of /dev/video0"
    ;;
  cvdmosaic)
    # the README's line (the shared media's fruits), else a picture made here
    args=()
    if [ ! -f "$media/mosaic/fruits.jpg" ]; then
      echo "no $media/mosaic/fruits.jpg: a picture of videotestsrc instead"
      gst-launch-1.0 -q videotestsrc num-buffers=1 ! video/x-raw,width=320,height=240 ! \
        jpegenc ! filesink location="$dir/picture.jpg" || fail "could not write picture.jpg"
      args=("$dir/picture.jpg")
    fi
    NUM=3 CV_SHARED_MEDIA=$media run cvdmosaic.sh "${args[@]}"
    [ $rc -eq 0 ] || fail "cvdmosaic.sh: exit $rc"
    expect_total cvdmosaic 3
    out=$(ls "$out"/cvdmosaic-*.webm)
    [ -s "$out" ] || fail "no cvdmosaic-NAME.webm"
    expect_webm "$out" any 3
    ok "NUM=3 pipelines/cvdmosaic.sh ${args[*]}: 3 frames in $(basename "$out")"
    ;;
  moctracker)
    clip=$media/tracking/game1_clip1
    if [ ! -d "$clip" ]; then
      NUM=3 CV_SHARED_MEDIA=$media run moctracker.sh
      [ $rc -eq 1 ] && grep -q "moctracker.sh: .* not found" "$dir/log" \
        || fail "without the shared media: not exit 1 saying so"
      skip "no $clip (the shared media): the refusal checked"
    fi
    NUM=3 CV_SHARED_MEDIA=$media run moctracker.sh
    [ $rc -eq 0 ] || fail "moctracker.sh: exit $rc"
    [ -s "$out/balls.txt" ] || fail "no balls.txt"
    file_total moctracker 3
    expect_webm "$out/moctracker.webm" any "$n"
    ok "NUM=3 pipelines/moctracker.sh: balls.txt, $n frames in moctracker.webm"
    ;;
  quadcut)
    [ -f "$build/gst/libgstcudavisiongpl.so" ] || skip "no GPL plugin (-Dgpl)"
    NUM=3 CV_SHARED_MEDIA=$media run quadcut.sh
    [ $rc -eq 0 ] || fail "quadcut.sh: exit $rc"
    expect_webm "$out/quadcut-active.webm" 1280x360 3
    if [ -d "$media/segmentation/cdnet-highway/input" ]; then
      expect_webm "$out/quadcut-cdnet.webm" 640x240 3
      ok "cdnet: 3 frames"
    fi
    if [ -f "$media/segmentation/bgmatting/back.png" ]; then
      [ "$(ls "$out"/quadcut-bgmatting-*.png | wc -l)" -eq 4 ] || fail "not 4 bgmatting PNGs"
      ok "bgmatting: 4 pictures"
    fi
    ok "NUM=3 pipelines/quadcut.sh: active 3 frames of 1280x360"
    ;;
  demo-clip)
    NUM=3 run demo-clip.sh "$build"
    [ $rc -eq 0 ] || fail "demo-clip.sh: exit $rc"
    expect_webm "$out/flow.webm" 640x360 3
    [ "$(ls "$out"/flow_*.png | wc -l)" -eq 3 ] || fail "not 3 flow PNGs"
    [ -s "$out/clip_flow_010.png" ] || fail "no clip_flow_010.png"
    grep -Eq '^pair +0\.[0-9]+ ' "$dir/log" || fail "no EPE line under 1 px from cv-flow"
    expect_webm "$out/moctracker.webm" 640x360 3
    [ -s "$out/moctracker_last.png" ] || fail "no moctracker_last.png"
    expect_webm "$out/cvdmosaic.webm" 640x360 3
    if [ -f "$build/gst/libgstcudavisiongpl.so" ]; then
      expect_webm "$out/quadcut.webm" 640x360 3
      [ "$(ls "$out"/quadcut_mask_*.png | wc -l)" -eq 3 ] || fail "not 3 quadcut masks"
    fi
    [ "$(grep -Ec '^demo-clip: 3 frames in [0-9]+ s' "$dir/log")" -ge 3 ] \
      || fail "fewer than 3 progress totals of 3 frames"
    ok "NUM=3 pipelines/demo-clip.sh: flow, moctracker, cvdmosaic (advect=flow), quadcut: 3 frames each"
    ;;
  flow_mean.py|tracks.py)
    python_or_skip
    # from the source tree with nothing set: cvexample.py finds BUILD_DIR's plugins and
    # typelib
    (unset GST_PLUGIN_PATH; export BUILD_DIR=$build
     run_example "$py" "$src/examples/$name" --frames 3) >"$dir/log" 2>&1 \
      || { cat "$dir/log"; fail "$name --frames 3 failed"; }
    cat "$dir/log"
    [ "$(grep -c '^frame [0-2] ' "$dir/log")" -ge 3 ] || fail "not 3 frames"
    ! grep -q '^frame 3 ' "$dir/log" || fail "more than 3 frames"
    ok "python3 examples/$name --frames 3: frames 0-2"
    ;;
  camera_effect.py)
    python_or_skip
    [ ! -c /dev/video0 ] || skip "a camera is there: this case is the fallback without one"
    (unset GST_PLUGIN_PATH DISPLAY WAYLAND_DISPLAY; export BUILD_DIR=$build
     run_example "$py" "$src/examples/camera_effect.py" --effect stipple --frames 3) \
      >"$dir/log" 2>&1 || { cat "$dir/log"; fail "camera_effect.py --effect stipple --frames 3 failed"; }
    cat "$dir/log"
    grep -q '^camera_effect: videotestsrc (no camera) through cvdmosaic$' "$dir/log" \
      && grep -q '^camera_effect: 3 frames$' "$dir/log" || fail "not 3 frames of the fallback"
    ok "python3 examples/camera_effect.py --effect stipple --frames 3 (no camera, no display)"
    ;;
  *)
    fail "unknown program $name" ;;
esac
echo "$passed passed, 0 failed"
