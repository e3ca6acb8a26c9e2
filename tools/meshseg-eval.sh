#!/bin/sh
# Runs meshseg over the six Princeton Segmentation Benchmark meshes of ../shared/media
# and prints, per mesh, the mean Rand Index error against all its human segmentations
# and the time, then the means. Skips (exit 0) when the shared media are absent.
#
# usage: tools/meshseg-eval.sh [BUILD_DIR] [meshseg options...]
#   BUILD_DIR defaults to build-cuda when it has meshseg, else build-cpu.
#   CV_SHARED_MEDIA overrides the media folder.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
media=${CV_SHARED_MEDIA:-$root/../shared/media}
build=${1:-}
[ $# -gt 0 ] && shift
if [ -z "$build" ]; then
  if [ -x "$root/build-cuda/tools/meshseg" ]; then build=$root/build-cuda; else build=$root/build-cpu; fi
fi
meshseg=$build/tools/meshseg
psb=$media/mesh/psb
if [ ! -d "$psb/off" ]; then
  echo "SKIP meshseg-eval: no PSB meshes at $psb"
  exit 0
fi
if [ ! -x "$meshseg" ]; then
  echo "meshseg-eval: $meshseg not built" >&2
  exit 1
fi
printf '%-6s %7s %4s %9s %11s %10s\n' mesh faces segs RI-error total-ms apsp-ms
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
for id in 9 74 92 125 200 293; do
  off=$psb/off/$id.off
  [ -f "$off" ] || { echo "$id: missing, skipped"; continue; }
  line=$("$meshseg" -q --json --eval-dir "$psb/seg/$id" "$@" "$off" | tail -n 1)
  # pull fields out of the one-line JSON without a JSON tool
  field() { printf '%s\n' "$line" | sed -n "s/.*\"$1\":\\([^,}]*\\).*/\\1/p"; }
  printf '%-6s %7s %4s %9s %11s %10s\n' "$id" "$(field faces)" "$(field segments)" \
    "$(field rand_index_error)" "$(field total_ms)" "$(field apsp_ms)"
  echo "$(field rand_index_error) $(field total_ms)" >> "$summary"
done
awk '{ ri += $1; t += $2; n++ } END { if (n) printf "mean   %7s %4s %9.4f %11.1f   (total %.1f ms over %d meshes)\n", "", "", ri / n, t / n, t, n }' "$summary"
