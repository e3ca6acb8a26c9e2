#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python examples on the build tree (GST_PLUGIN_PATH, GI_TYPELIB_PATH and
# LD_LIBRARY_PATH name build/gst): flow_mean.py's mean flow against tracks.py's
# velocities, tracks.py on the objects clip against its objects.csv (messages and ROI
# metas), camera_effect.py in its fallbacks (no camera: --file, else videotestsrc) with
# a frame limit; flow_mean.py on cudaflowepic.
# Skips (77) without PyGObject.
#   tests/examples/python.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail
src=$1 build=$2
source "$src/tests/examples/common.sh"
find_python
[ -n "$py" ] || { echo "SKIP: no python3 with PyGObject (python3-gi)"; exit 77; }
"$py" -c 'import gi; gi.require_version("Gst", "1.0"); from gi.repository import Gst' 2>/dev/null \
  || { echo "SKIP: no GStreamer introspection data (gir1.2-gstreamer-1.0)"; exit 77; }
[ -f "$build/gst/GstCudaVision-1.0.typelib" ] \
  || { echo "SKIP: no GstCudaVision-1.0.typelib (-Dintrospection=disabled)"; exit 77; }
export GST_PLUGIN_PATH=$build/gst GI_TYPELIB_PATH=$build/gst BUILD_DIR=$build
export LD_LIBRARY_PATH=$build/gst${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# flow_mean.py: 8 frames of the moving ball; the first is not valid (zero flow)
run_example "$py" "$src/examples/flow_mean.py" --frames 8 >"$dir/flow" 2>"$dir/err" \
  || { cat "$dir/flow" "$dir/err"; fail "flow_mean.py failed"; }
grep -q '^flow_mean: 8 frames$' "$dir/flow" || { cat "$dir/flow"; fail "flow_mean.py: not 8 frames"; }
grep -q '^frame 0 grid 160x120 first mean +0.000 +0.000 px (0 confident cells)$' "$dir/flow" \
  || { cat "$dir/flow"; fail "flow_mean.py: frame 0 is not the zero first field"; }
[ "$(grep -c '^frame [1-7] grid 160x120 valid ' "$dir/flow")" -eq 7 ] \
  || { cat "$dir/flow"; fail "flow_mean.py: frames 1-7 not valid 160x120 fields"; }
ok "flow_mean.py: 8 frames, frame 0 zero, 1-7 valid"

# tracks.py --meta on the same source: the ball's velocity is the mean flow
run_example "$py" "$src/examples/tracks.py" --frames 8 --meta >"$dir/tracks" 2>"$dir/err" \
  || { cat "$dir/tracks" "$dir/err"; fail "tracks.py --meta failed"; }
[ "$(grep -c '^frame [0-7] ball present ' "$dir/tracks")" -eq 8 ] \
  || { cat "$dir/tracks"; fail "tracks.py --meta: the ball is not present in 8 frames"; }
check_flow_vs_tracks "$dir/flow" "$dir/tracks" \
  || { cat "$dir/flow" "$dir/tracks"; fail "flow_mean.py's mean flow is not the ball's velocity"; }
ok "flow_mean.py's mean flow = tracks.py's velocity within 0.3 px (frames 1-7)"

# cudaflowepic's meta read the same way (docs/api.md): its mean flow is the ball's
# velocity too
run_example "$py" "$src/examples/flow_mean.py" --frames 4 --element cudaflowepic >"$dir/epic" 2>"$dir/err" \
  || { cat "$dir/epic" "$dir/err"; fail "flow_mean.py --element cudaflowepic failed"; }
grep -q '^frame 0 grid 160x120 first mean +0.000 +0.000 px (0 confident cells)$' "$dir/epic" \
  && [ "$(grep -c '^frame [1-3] grid 160x120 valid ' "$dir/epic")" -eq 3 ] \
  || { cat "$dir/epic"; fail "flow_mean.py --element cudaflowepic: not frame 0 zero, 1-3 valid"; }
grep '^frame [0-3] ' "$dir/tracks" >"$dir/tracks4"
check_flow_vs_tracks "$dir/epic" "$dir/tracks4" \
  || { cat "$dir/epic" "$dir/tracks4"; fail "cudaflowepic's mean flow is not the ball's velocity"; }
ok "flow_mean.py --element cudaflowepic: frame 0 zero, frames 1-3 = tracks.py's velocity within 0.3 px"

# tracks.py on the generated objects clip: every object of every frame as objects.csv
clip=$build/media/objects
for mode in message meta; do
  flag=""
  [ $mode = meta ] && flag=--meta
  run_example "$py" "$src/examples/tracks.py" --frames 6 --clip "$clip" $flag >"$dir/clip-$mode" 2>"$dir/err" \
    || { cat "$dir/clip-$mode" "$dir/err"; fail "tracks.py --clip ($mode) failed"; }
  awk -F, -v mode=$mode '
    FNR == NR { if (FNR > 1 && $1 < 6) { want[$1 " obj" $2] = $0; if ($6 > 0) present++ } next }
    $1 == "frame" && $3 ~ /^obj/ {
      key = $2 " " $3; n++
      if (!(key in want)) { print "unexpected: " $0; bad = 1; next }
      split(want[key], c, ",")
      if (c[6] == 0) { if ($4 != "absent") { print "not absent: " $0; bad = 1 }; next }
      seen++
      split($6, xy, ","); split($7, wh, "x")
      if ($4 != "present" || $12 != c[6] || xy[1] != c[9] || xy[2] != c[10] \
          || wh[1] != c[11] - c[9] + 1 || wh[2] != c[12] - c[10] + 1 \
          || ($9 - c[7]) ^ 2 > 1e-4 || ($10 - c[8]) ^ 2 > 1e-4) {
        print "differs from objects.csv (" want[key] "): " $0; bad = 1
      }
    }
    END {
      if (seen != present) { print mode ": " seen " present objects, objects.csv has " present; bad = 1 }
      exit bad
    }
  ' "$clip/objects.csv" FS=' ' "$dir/clip-$mode" \
    || { cat "$dir/clip-$mode"; fail "tracks.py --clip ($mode) differs from objects.csv"; }
  ok "tracks.py --clip ($mode): 6 frames x 8 objects as objects.csv (mass, box, centroid)"
done

# the analytics relation meta (GStreamer 1.24+, docs/analytics.md): tracks.py
# --analytics gives the boxes of the ROI metas (--meta), each related to a track whose
# id is the object's index (the ROI meta's id), and a lost track on the frame after an
# object leaves; flow_mean.py --analytics finds the cv-flow mtd on every frame (1.26+)
if ! grep -q '^#define CV_HAVE_ANALYTICS 1' "$build/gst/gstcvconfig.h"; then
  skip "built without gstreamer-analytics-1.0" "analytics read-out"
elif ! "$py" -c 'import gi; gi.require_version("GstAnalytics", "1.0")' 2>/dev/null; then
  skip "no GstAnalytics-1.0 typelib (gir1.2-gst-plugins-bad-1.0)" "analytics read-out"
else
  run_example "$py" "$src/examples/tracks.py" --frames 6 --clip "$clip" --analytics \
    >"$dir/clip-analytics" 2>"$dir/err" \
    || { cat "$dir/clip-analytics" "$dir/err"; fail "tracks.py --clip --analytics failed"; }
  # objects.csv (index of each object, present per frame), tracks.py --meta, --analytics
  awk -F, '
    FILENAME == ARGV[1] {
      if (FNR == 1) next
      if ($1 == 0) idx["obj" $2] = n_obj++
      if ($1 < 6) pres[$1 " " idx["obj" $2]] = ($6 > 0)
      next
    }
    FILENAME == ARGV[3] && FNR == 1 {
      for (f = 1; f < 6; f++) for (i = 0; i < n_obj; i++)
        if (pres[(f - 1) " " i] && !pres[f " " i]) want_lost++
    }
    FILENAME == ARGV[3] && $1 == "frame" && $3 ~ /^obj/ { meta[$2 " " $3] = $6 " " $7; n_meta++; next }
    FILENAME == ARGV[4] && $1 == "frame" && $3 ~ /^obj/ {
      key = $2 " " $3; n++
      if (meta[key] != $6 " " $7 || $8 != "id" || $9 != idx[$3] || $11 != "no") {
        print "differs from the ROI meta (" meta[key] ", id " idx[$3] "): " $0; bad = 1
      }
      next
    }
    FILENAME == ARGV[4] && $1 == "frame" && $3 == "lost" {
      lost++
      if (!pres[($2 - 1) " " $5] || pres[$2 " " $5]) { print "not a leaving object: " $0; bad = 1 }
    }
    END {
      if (n != n_meta || n == 0) { print n " analytics boxes, " n_meta " ROI metas"; bad = 1 }
      if (lost != want_lost) { print lost " lost tracks, objects.csv has " want_lost " leaving"; bad = 1 }
      print "analytics: " n " boxes = ROI metas, " lost " lost tracks" > "/dev/stderr"
      exit bad
    }
  ' "$clip/objects.csv" FS=' ' "$dir/clip-meta" "$dir/clip-analytics" \
    || { cat "$dir/clip-meta" "$dir/clip-analytics"; fail "tracks.py --analytics differs from the ROI metas"; }
  ok "tracks.py --clip --analytics: the OD mtds' boxes and types = the ROI metas, track id = ROI id, lost tracks as objects.csv"
  run_example "$py" "$src/examples/flow_mean.py" --frames 8 --analytics >"$dir/flow-an" 2>"$dir/err" \
    || { cat "$dir/flow-an" "$dir/err"; fail "flow_mean.py --analytics failed"; }
  cmp -s <(grep -v analytics "$dir/flow-an") "$dir/flow" \
    || { cat "$dir/flow" "$dir/flow-an"; fail "flow_mean.py --analytics: another mean flow"; }
  if "$py" -c 'import sys; sys.path.insert(0, "'"$src"'/examples"); import cvexample; sys.exit(cvexample.Gst.version() < (1, 26))' 2>/dev/null; then
    [ "$(grep -c '^frame [0-7] analytics cv-flow mtd id [0-9]*$' "$dir/flow-an")" -eq 8 ] \
      || { cat "$dir/flow-an"; fail "flow_mean.py --analytics: not one cv-flow mtd on each of 8 frames"; }
    ok "flow_mean.py --analytics: one cv-flow mtd on each of 8 frames (vectors: GstCvFlowMeta)"
  else
    skip "GStreamer too old" "the cv-flow mtd (GStreamer 1.26)"
  fi
fi

# camera_effect.py without a camera: the test source, 4 frames, every effect built
effects=(mosaic stipple)
run_example gst-inspect-1.0 quadcut >/dev/null 2>&1 && effects+=(quadcut)
for e in "${effects[@]}"; do
  run_example "$py" "$src/examples/camera_effect.py" --no-camera --effect $e --frames 4 --sink fakesink \
    >"$dir/cam" 2>"$dir/err" || { cat "$dir/cam" "$dir/err"; fail "camera_effect.py --effect $e failed"; }
  grep -q '^camera_effect: videotestsrc (no camera) through ' "$dir/cam" \
    && grep -q '^camera_effect: 4 frames$' "$dir/cam" \
    || { cat "$dir/cam"; fail "camera_effect.py --effect $e: not 4 frames of the fallback"; }
  ok "camera_effect.py --effect $e: fallback source, 4 frames"
done

# without a camera and with --file: the file (a 10-frame AVI made here), 4 frames
if gst-inspect-1.0 --exists jpegenc && gst-inspect-1.0 --exists avimux; then
  gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=10 ! video/x-raw,width=160,height=120 \
    ! jpegenc ! avimux ! filesink location="$dir/ball.avi" >/dev/null 2>&1 || fail "could not write ball.avi"
  run_example "$py" "$src/examples/camera_effect.py" --no-camera --file "$dir/ball.avi" --effect mosaic \
    --frames 4 --sink fakesink >"$dir/cam" 2>"$dir/err" || { cat "$dir/cam" "$dir/err"; fail "camera_effect.py --file failed"; }
  grep -q "^camera_effect: file $dir/ball.avi through cvdmosaic\$" "$dir/cam" \
    && grep -q '^camera_effect: 4 frames$' "$dir/cam" \
    || { cat "$dir/cam"; fail "camera_effect.py --file: not 4 frames of the file"; }
  ok "camera_effect.py --file: the file without a camera, 4 frames"
else
  skip "a GStreamer element is missing" "camera_effect.py --file (jpegenc, avimux)"
fi
summary examples-python
