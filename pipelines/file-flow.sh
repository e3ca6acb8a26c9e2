#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Any video file -> decode -> cudaflowlk (colour) -> window; OUT=file.webm (or no
# display: out/file-flow.webm, or OUT_DIR) to write it.
#   pipelines/file-flow.sh video.mp4
# Progress on stderr every PROGRESS seconds (default 5; 0: none): frames done, their
# rate and the stream position ("file-flow: 240 frames, 1.3 fps, at 0:00:08.0"), and
# a last line with the totals: a 795-frame clip takes minutes on the CPU.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 VIDEO_FILE" >&2; exit 2; }
input=$(realpath "$1")
source "$(dirname "$0")/common.sh"
[ -n "${OUT:-}" ] && SINK="videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$OUT"
every=${PROGRESS:-5}

# microseconds since the epoch (bash 5's EPOCHREALTIME, whatever its decimal mark)
now_us () { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }
rate () { local n=$1 us=$(( $(now_us) - t0 )); [ $us -gt 0 ] || us=1
  printf '%d.%d' $(( n * 1000000 / us )) $(( n * 10000000 / us % 10 )); }

# gst-launch -v reports each buffer through the element named progress (identity
# silent=false); its lines are counted, not shown; other -v property notices are
# dropped; everything else (errors, warnings, state messages) passes through.
progress () {
  local n=0 last=$SECONDS pts=? line
  t0=$(now_us)
  while IFS= read -r line; do
    case $line in
      */GstIdentity:progress:\ last-message\ =\ chain*)
        n=$((n + 1))
        pts=${line#*pts: }; pts=${pts%%,*}; pts=${pts%????????}
        if [ "$every" -gt 0 ] && [ $((SECONDS - last)) -ge "$every" ]; then
          last=$SECONDS
          echo "file-flow: $n frames, $(rate $n) fps, at $pts" >&2
        fi ;;
      /GstPipeline*) ;;
      *) printf '%s\n' "$line" ;;
    esac
  done
  echo "file-flow: $n frames in $(( ($(now_us) - t0) / 1000000 )) s, $(rate $n) fps" >&2
}

gst-launch-1.0 -v filesrc location="$input" ! decodebin ! videoconvert ! \
  video/x-raw,format=I420 ! cudaflowlk visualize=${VIS:-color} ! \
  identity name=progress silent=false ! $(cv_sink file-flow) 2>&1 | progress
