#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks that meshseg's CPU and CUDA backends segment every mesh the same: for each
# MESH_DIR/off/*.off, meshseg with its defaults on `-b cpu` (Dijkstra rows on demand)
# and on `-b cuda` (the tiled Floyd-Warshall's full matrix on the device), the two
# label files compared byte for byte. The dual graph's weights are rounded so that both
# APSPs are exact (docs/meshseg.md), so every mesh should print "same".
#
# usage: tools/dev/meshseg-backends.sh [-b BUILD_DIR] [MESH_DIR...]
#   MESH_DIR: folders with off/*.off; default: psb and psb-train under the shared media
#     (CV_SHARED_MEDIA or ../shared/media); skips (exit 0) when none exists.
#   BUILD_DIR: default build-cuda when it has meshseg, else build.
# Exit status: 0 when every mesh agrees, 1 when one differs or fails, 77 (skip) when
# the build has no CUDA device to run on.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
media=${CV_SHARED_MEDIA:-$root/../shared/media}
build=
while getopts b: opt; do
  case $opt in
    b) build=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [MESH_DIR...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
. "$root/tools/dev/meshseg-common.sh"
meshseg_find "$build" meshseg-backends
if [ $# -eq 0 ]; then
  for d in "$media/mesh/psb" "$media/mesh/psb-train"; do
    [ -d "$d/off" ] && set -- "$@" "$d"
  done
  [ $# -gt 0 ] || { echo "SKIP meshseg-backends: no PSB meshes under $media/mesh"; exit 0; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0 failed=0
for dir in "$@"; do
  for off in "$dir"/off/*.off; do
    [ -f "$off" ] || continue
    id=$(basename "$off" .off)
    if ! "$meshseg" -q -b cuda --json -o "$tmp/cuda.seg" "$off" > "$tmp/cuda.json" 2> "$tmp/err"; then
      if grep -q "CC_ERROR_NO_DEVICE\|no CUDA kernels" "$tmp/err" && [ $same -eq 0 ] && [ $differ -eq 0 ]; then
        echo "SKIP meshseg-backends: $(head -n 1 "$tmp/err")"
        exit 77
      fi
      echo "$id FAILED on cuda: $(head -n 1 "$tmp/err")"; failed=$((failed + 1)); continue
    fi
    if ! "$meshseg" -q -b cpu --json -o "$tmp/cpu.seg" "$off" > "$tmp/cpu.json" 2> "$tmp/err"; then
      echo "$id FAILED on cpu: $(head -n 1 "$tmp/err")"; failed=$((failed + 1)); continue
    fi
    segs() { sed -n 's/.*"segments":\([0-9]*\).*/\1/p' "$1"; }
    ms() { sed -n 's/.*"total_ms":\([^,}]*\).*/\1/p' "$1"; }
    if cmp -s "$tmp/cpu.seg" "$tmp/cuda.seg"; then
      same=$((same + 1)); verdict=same
    else
      differ=$((differ + 1)); verdict=DIFFERS
    fi
    echo "$id $verdict: cpu $(segs "$tmp/cpu.json") segments ($(ms "$tmp/cpu.json") ms), cuda $(segs "$tmp/cuda.json") segments ($(ms "$tmp/cuda.json") ms)"
  done
done
echo "meshes: $same same, $differ differ, $failed failed"
[ $differ -eq 0 ] && [ $failed -eq 0 ]
