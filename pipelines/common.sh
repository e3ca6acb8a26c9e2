# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the pipeline scripts: the plugin path of the build, the output folder, and
# a video sink that works headless.
#   $cv_out        where the scripts write: $OUT_DIR, or out/ (created)
#   cv_sink NAME   prints the sink part of a launch line: $SINK when set; a window
#                  (autovideosink) when a display exists; otherwise $cv_out/NAME.webm (a
#                  machine without a display crashes autovideosink's DirectFB fallback)
#   cv_camera      the camera device ($DEVICE, or /dev/video0), or exits 1 saying none
#                  is there (before anything is written)
#   cv_frames N    the frames to run: $NUM when set; else N when nothing is watched (no
#                  display and no SINK: the output is a file), said on stderr, so that a
#                  headless run of an endless source ends; else none (empty)
#   cv_limit N     the launch-line fragment that ends a file's stream after N frames
#                  ("identity eos-after=N+1 !"; empty for an empty N): a decoder that
#                  has more frames ready then may still deliver a few (GStreamer 1.22's
#                  identity passes what follows the buffer it refused); the totals
#                  line gives the count
#   cv_counter     the launch-line fragment that counts the frames (an identity named
#                  progress), put after the element; for cv_launch
#   cv_launch ...  gst-launch-1.0 -e (Ctrl-C ends the files cleanly) with the arguments,
#                  printing on stderr every PROGRESS seconds (default 5; 0: none) the
#                  frames done, their rate and the stream position ("NAME: 240 frames,
#                  1.3 fps, at 0:00:08.0") and a last line with the totals ("NAME: 240
#                  frames in 185 s, 1.3 fps"); gst-launch's own messages pass through
# A file the run left empty (a pipeline that failed before its first frame) is removed
# at exit.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cv_build=${BUILD_DIR:-build}
[[ $cv_build = /* ]] || cv_build=$PWD/$cv_build
export GST_PLUGIN_PATH="$cv_build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
cv_out=${OUT_DIR:-out}
mkdir -p "$cv_out"
cv_started=$(mktemp)
trap 'find "$cv_out" -maxdepth 1 -type f -size 0 -newer "$cv_started" -delete 2>/dev/null;
  rm -f "$cv_started"' EXIT

cv_camera () {
  local dev=${DEVICE:-/dev/video0}
  if [ ! -c "$dev" ]; then
    echo "$(basename "$0"): no camera at $dev (DEVICE=/dev/videoN picks another)" >&2
    exit 1
  fi
  echo "$dev"
}

cv_sink () {
  if [ -n "${SINK:-}" ]; then
    echo "$SINK"
  elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "videoconvert ! autovideosink"
  else
    echo "no display: writing $cv_out/$1.webm (set SINK=... to choose)" >&2
    echo "videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$cv_out/$1.webm"
  fi
}

cv_frames () {
  if [ -n "${NUM:-}" ]; then
    echo "$NUM"
  elif [ -z "${SINK:-}${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "no display: $1 frames (NUM=N for another count)" >&2
    echo "$1"
  fi
}

cv_limit () {
  [ -z "${1:-}" ] || echo "identity eos-after=$(($1 + 1)) !"
}

cv_counter () {
  echo "identity name=progress silent=false"
}

# microseconds since the epoch (bash 5's EPOCHREALTIME, whatever its decimal mark)
cv_now_us () { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }
cv_rate () { local n=$1 us=$(( $(cv_now_us) - cv_t0 )); [ $us -gt 0 ] || us=1
  printf '%d.%d' $(( n * 1000000 / us )) $(( n * 10000000 / us % 10 )); }

# gst-launch -v reports each buffer through the identity named progress; its lines are
# counted, not shown; the other -v property notices are dropped; everything else
# (errors, warnings, state messages) passes through.
cv_progress () {
  local name=$1 every=${PROGRESS:-5} n=0 last=$SECONDS pts=? line
  cv_t0=$(cv_now_us)
  while IFS= read -r line; do
    case $line in
      */GstIdentity:progress:\ last-message\ =\ chain*)
        n=$((n + 1))
        pts=${line#*pts: }; pts=${pts%%,*}; pts=${pts%????????}
        if [ "$every" -gt 0 ] && [ $((SECONDS - last)) -ge "$every" ]; then
          last=$SECONDS
          echo "$name: $n frames, $(cv_rate $n) fps, at $pts" >&2
        fi ;;
      /GstPipeline*) ;;
      *) printf '%s\n' "$line" ;;
    esac
  done
  echo "$name: $n frames in $(( ($(cv_now_us) - cv_t0) / 1000000 )) s, $(cv_rate $n) fps" >&2
}

cv_launch () {
  gst-launch-1.0 -e -v "$@" 2>&1 | cv_progress "$(basename "$0" .sh)"
}
