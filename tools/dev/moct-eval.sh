#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The billiard evaluation of the multi-object chromatic tracker (docs/moctracker.md,
# "Calibration and billiard evaluation") over every clip of MEDIA_DIR/tracking
# (game*_clip*: the six shared clips): one JSON document on stdout, {"clips": [...],
# "totals": {...}}: per clip the output of `moct-billiard --json` (per ball and per
# class: tracked / lost / pocketed, IoU and centroid error at the last frame), then
# totals per class.
#   tools/dev/moct-eval.sh [BUILD_DIR] [MEDIA_DIR] [-- moct-billiard options...]
#   (defaults: build, ../shared/media)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
media=../shared/media
if [ $# -gt 0 ] && [ "$1" != "--" ]; then build=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then media=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
if [ ! -d "$media/tracking" ]; then
  echo "moct-eval: no $media/tracking (the shared media are not here)" >&2
  exit 1
fi
if [ ! -x "$build/tools/dev/moct-billiard" ]; then
  echo "moct-eval: no $build/tools/dev/moct-billiard (build it: ninja -C $build tools/dev/moct-billiard)" >&2
  exit 1
fi
clips=()
for d in "$media"/tracking/game*_clip*/; do
  [ -d "$d" ] && clips+=("${d%/}")
done
if [ ${#clips[@]} -eq 0 ]; then
  echo "moct-eval: no game*_clip* folders in $media/tracking" >&2
  exit 1
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for c in "${clips[@]}"; do
  echo "moct-eval: $(basename "$c")" >&2
  "$build/tools/dev/moct-billiard" "$c" --json "$@" >> "$tmp"
done
# totals per class: sums of the clips' class counts; IoU and centroid error are
# means over the tracked balls
awk '
  { lines[NR] = $0 }
  END {
    split("cue eight solid stripe", names, " ")
    printf "{\"clips\":["
    for (i = 1; i <= NR; i++) printf "%s%s", (i > 1 ? "," : ""), lines[i]
    printf "],\"totals\":{"
    for (k = 1; k <= 4; k++) {
      n = names[k]; b = t = l = p = o = si = se = 0; mx = 0
      for (i = 1; i <= NR; i++) {
        s = lines[i]
        j = index(s, "\"" n "\":{\"balls\":")
        if (!j) continue
        s = substr(s, j + length(n) + 3)
        s = substr(s, 1, index(s, "}"))
        gsub(/[{}"]/, "", s)
        m = split(s, kv, ",")
        for (q = 1; q <= m; q++) { split(kv[q], x, ":"); v[x[1]] = x[2] }
        b += v["balls"]; t += v["tracked"]; l += v["lost"]; p += v["pocketed"]
        o += v["on_other_class"]
        si += v["mean_iou"] * v["tracked"]; se += v["mean_centroid_error"] * v["tracked"]
        if (v["max_centroid_error"] + 0 > mx) mx = v["max_centroid_error"] + 0
      }
      printf "%s\"%s\":{\"balls\":%d,\"tracked\":%d,\"lost\":%d,\"pocketed\":%d,", \
        (k > 1 ? "," : ""), n, b, t, l, p
      printf "\"on_other_class\":%d,\"mean_iou\":%.4f,\"mean_centroid_error\":%.4f,", \
        o, (t ? si / t : 0), (t ? se / t : 0)
      printf "\"max_centroid_error\":%.4f}", mx
    }
    printf "}}\n"
  }' "$tmp"
