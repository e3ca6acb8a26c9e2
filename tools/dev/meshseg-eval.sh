#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Evaluates meshseg on Princeton Segmentation Benchmark meshes over a parameter grid
# and prints, per category: the Rand Index error (mean over the category's meshes, each
# the mean over all its human segmentations), GCE, LCE, segments against the humans'
# mean, the one-segment baseline and the time per mesh; then the training mean (the
# grid's best setting over all meshes) and the leave-one-category-out cross-validated
# mean (for each category, the setting with the lowest mean over the meshes of the
# other categories scores that category's meshes; the mean of those held-out scores).
# Means over categories are means over meshes (each mesh counts once).
#
# usage: tools/dev/meshseg-eval.sh [-b BUILD_DIR] [-g GRID | -d] [-c CACHE_DIR] [-v] [MESH_DIR...]
#   MESH_DIR: folders with off/ID.off and seg/ID/*.seg, ID the PSB number (which gives
#     the category); default: psb and psb-train under the shared media
#     (CV_SHARED_MEDIA or ../shared/media); skips (exit 0) when none exists.
#   BUILD_DIR: default build-cuda when it has meshseg, else build.
#   GRID: one setting (meshseg options) per line; default tools/dev/meshseg-grid.txt.
#   CACHE_DIR: per-mesh results per setting (JSON lines); default
#     BUILD_DIR/meshseg-eval/<hash of the meshseg binary>, so a rebuilt meshseg starts
#     afresh. Each mesh runs the settings it has no result for in one
#     `meshseg --sweep`, on distances computed once, and once with meshseg's defaults
#     alone for the time per mesh.
#   -d: meshseg's defaults only (no grid: the timing run is the one setting; what the
#     GPU machine runs to time the 44 meshes).
#   -v: also the per-mesh table and the grid's mean per setting.
# Extra meshseg options (e.g. -b cpu) go in MESHSEG_OPTS. Runs under nice.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
media=${CV_SHARED_MEDIA:-$root/../shared/media}
build= grid=$root/tools/dev/meshseg-grid.txt cache= verbose=0 defaults=0
while getopts b:g:c:dv opt; do
  case $opt in
    b) build=$OPTARG ;;
    g) grid=$OPTARG ;;
    c) cache=$OPTARG ;;
    d) defaults=1 ;;
    v) verbose=1 ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-g GRID | -d] [-c CACHE_DIR] [-v] [MESH_DIR...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  set --
  for d in "$media/mesh/psb" "$media/mesh/psb-train"; do
    [ -d "$d/off" ] && set -- "$@" "$d"
  done
  if [ $# -eq 0 ]; then
    echo "SKIP meshseg-eval: no PSB meshes under $media/mesh"
    exit 0
  fi
fi
. "$root/tools/dev/meshseg-common.sh"
meshseg_find "$build" meshseg-eval
[ $defaults = 1 ] || [ -f "$grid" ] || { echo "meshseg-eval: no grid file $grid" >&2; exit 1; }
if [ -z "$cache" ]; then
  cache=$build/meshseg-eval/$(sha1sum "$meshseg" | cut -c1-12)
fi
mkdir -p "$cache"
settings=$(mktemp)
missing=$(mktemp)
groups=$(mktemp)
group=$(mktemp)
trap 'rm -f "$settings" "$missing" "$groups" "$group"' EXIT
if [ $defaults = 1 ]; then
  echo "(meshseg defaults)" > "$settings"
else
  grep -v '^[[:space:]]*\(#\|$\)' "$grid" > "$settings"
fi

# one line per mesh for the report: id, folder
meshes=$cache/meshes.txt
: > "$meshes"
for dir in "$@"; do
  [ -d "$dir/off" ] || { echo "meshseg-eval: $dir has no off/ folder" >&2; exit 1; }
  for off in "$dir"/off/*.off; do
    [ -f "$off" ] || continue
    id=$(basename "$off" .off)
    if [ ! -d "$dir/seg/$id" ]; then
      echo "meshseg-eval: $id: no ground truth in $dir/seg/$id, skipped" >&2
      continue
    fi
    echo "$id $dir" >> "$meshes"
    results=$cache/$id.jsonl
    touch "$results"
    # the settings this mesh has no result for yet
    : > "$missing"
    while IFS= read -r s; do
      grep -qF "\"setting\":\"$s\"" "$results" || printf '%s\n' "$s" >> "$missing"
    done < "$settings"
    if [ $defaults = 0 ] && [ -s "$missing" ]; then
      echo "meshseg-eval: $id: $(wc -l < "$missing") setting(s)" >&2
      # settings that change the distances (--alpha, --eta) run in a sweep of their own,
      # one per distinct pair, with those options on its command line
      dual_of() { printf '%s\n' "$1" | grep -o -- '--\(alpha\|eta\) [^ ]*' | tr '\n' ' '; }
      while IFS= read -r s; do dual_of "$s"; echo; done < "$missing" | sort -u > "$groups"
      while IFS= read -r d; do
        : > "$group"
        while IFS= read -r s; do
          [ "$(dual_of "$s")" = "$d" ] && printf '%s\n' "$s" >> "$group"
        done < "$missing"
        # shellcheck disable=SC2086
        nice "$meshseg" ${MESHSEG_OPTS:-} $d --sweep "$group" --eval-dir "$dir/seg/$id" "$off" \
          >> "$results"
      done < "$groups"
    fi
    if [ ! -s "$cache/$id.time" ]; then
      # shellcheck disable=SC2086
      nice "$meshseg" ${MESHSEG_OPTS:-} -q --json --eval-dir "$dir/seg/$id" "$off" \
        > "$cache/$id.time"
    fi
    if [ ! -s "$cache/$id.human" ]; then
      # the humans' segment counts (mean) and the one-segment Rand Index error: the
      # share of face pairs a human puts apart, averaged over the human segmentations
      awk 'FNR == 1 && NR > 1 { flush() }
           function flush(  pairs, same, l, segs) {
             pairs = n * (n - 1) / 2; same = 0; segs = 0
             for (l in c) { same += c[l] * (c[l] - 1) / 2; segs++ }
             ri += pairs > 0 ? 1 - same / pairs : 0; sc += segs; files++
             delete c; n = 0 }
           { c[$1]++; n++ }
           END { flush(); printf "%.4f %.6f\n", sc / files, ri / files }' \
        "$dir/seg/$id"/*.seg > "$cache/$id.human"
    fi
  done
done

# the analysis: one record per (mesh, setting) from the cached JSON lines
for_each_result() {
  while read -r id dir; do
    human=$(cat "$cache/$id.human")
    time_ms=$(sed -n 's/.*"total_ms":\([^,}]*\).*/\1/p' "$cache/$id.time")
    n=0
    while IFS= read -r s; do
      n=$((n + 1))
      if [ $defaults = 1 ]; then
        line=$(cat "$cache/$id.time")
      else
        line=$(grep -F "\"setting\":\"$s\"" "$cache/$id.jsonl" | tail -n 1)
      fi
      f() { printf '%s\n' "$line" | sed -n "s/.*\"$1\":\\([^,}]*\\).*/\\1/p"; }
      echo "$id $n $(f rand_index_error) $(f gce) $(f lce) $(f segments) $human $time_ms $(f faces)"
    done < "$settings"
  done < "$meshes"
}
for_each_result | awk -v verbose="$verbose" -v settings_file="$settings" '
function category(id) {
  if (id <= 260) return int((id - 1) / 20)
  return int((id - 281) / 20) + 13
}
BEGIN {
  split("human cup glasses airplane ant chair octopus table teddy hand plier fish bird armadillo bust mech bearing vase fourleg", name, " ")
  while ((getline line < settings_file) > 0) setting[++S] = line
}
{
  id = $1; s = $2
  ri[id, s] = $3; gce[id, s] = $4; lce[id, s] = $5; segs[id, s] = $6
  if (!(id in cat)) {
    cat[id] = category(id) + 1; human[id] = $7; one[id] = $8; ms[id] = $9; faces[id] = $10
    mesh[++M] = id
  }
}
END {
  if (M == 0) exit
  # training: each setting over all meshes
  best = 0
  for (s = 1; s <= S; s++) {
    t = 0
    for (i = 1; i <= M; i++) t += ri[mesh[i], s]
    train[s] = t / M
    if (!best || train[s] < train[best]) best = s
  }
  # leave one category out
  for (c = 1; c <= 19; c++) {
    pick[c] = 0
    for (s = 1; s <= S; s++) {
      t = 0; n = 0
      for (i = 1; i <= M; i++) if (cat[mesh[i]] != c) { t += ri[mesh[i], s]; n++ }
      v = n ? t / n : 0
      if (!pick[c] || v < pickv) { pick[c] = s; pickv = v }
    }
  }
  if (verbose) {
    printf "%-6s %-9s %6s %5s %6s | RI error per setting 1..%d\n", "mesh", "category", "faces", "human", "1-seg", S
    for (i = 1; i <= M; i++) {
      id = mesh[i]
      printf "%-6s %-9s %6d %5.1f %6.3f |", id, name[cat[id]], faces[id], human[id], one[id]
      for (s = 1; s <= S; s++) printf " %.3f/%d", ri[id, s], segs[id, s]
      printf "\n"
    }
    print ""
    for (s = 1; s <= S; s++) printf "setting %2d: mean RI error %.4f  (%s)\n", s, train[s], setting[s]
    print ""
  }
  printf "%-9s %3s %8s %8s %6s %6s %10s %8s %8s %8s  %s\n", "category", "n", "CV-RI", "train-RI", "GCE", "LCE", "segs/human", "1-seg", "ms/mesh", "setting", "note"
  cv = 0; worse = 0; gce_sum = 0; lce_sum = 0; t_sum = 0; one_sum = 0
  for (c = 1; c <= 19; c++) {
    n = 0; a = 0; b = 0; g = 0; l = 0; sg = 0; h = 0; o = 0; t = 0
    for (i = 1; i <= M; i++) {
      id = mesh[i]
      if (cat[id] != c) continue
      n++; a += ri[id, pick[c]]; b += ri[id, best]; g += gce[id, pick[c]]; l += lce[id, pick[c]]
      sg += segs[id, pick[c]]; h += human[id]; o += one[id]; t += ms[id]
    }
    if (!n) continue
    cv += a; gce_sum += g; lce_sum += l; t_sum += t; one_sum += o
    note = (a > o) ? "worse than one segment" : ""
    if (note != "") worse++
    printf "%-9s %3d %8.4f %8.4f %6.3f %6.3f %4.1f/%4.1f %8.4f %8.0f %8d  %s\n", name[c], n, a / n, b / n, g / n, l / n, sg / n, h / n, o / n, t / n, pick[c], note
  }
  printf "\nmeshes %d, settings %d\n", M, S
  printf "cross-validated mean Rand Index error: %.4f (GCE %.4f, LCE %.4f)\n", cv / M, gce_sum / M, lce_sum / M
  printf "training mean Rand Index error:        %.4f (setting %d: %s)\n", train[best], best, setting[best]
  printf "first setting of the grid:             %.4f (%s)\n", train[1], setting[1]
  printf "one-segment baseline:                  %.4f\n", one_sum / M
  printf "categories worse than one segment:     %d\n", worse
  printf "time per mesh (meshseg defaults):      %.0f ms mean, %.1f s for %d meshes\n", t_sum / M, t_sum / 1000, M
}'
