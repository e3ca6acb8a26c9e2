# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the example tests: fail/check helpers and a python with PyGObject.
fail () { echo "FAIL: $*"; exit 1; }
passed=0
ok () { passed=$((passed + 1)); echo "ok: $*"; }
# skip REASON WHAT: a check that cannot run here, counted as skipped
skipped=0
skip_reasons=()
skip () { skipped=$((skipped + 1)); skip_reasons+=("$1"); echo "SKIP $2: $1"; }
# summary NAME: the totals, and the line of tests/common/cv_test_skip.h that
# tests/skip-summary.py reads ("cv-test NAME: S of T cases skipped (N reason, ...)")
summary () {
  echo "$passed passed, 0 failed"
  local line="cv-test $1: $skipped of $((passed + skipped)) cases skipped"
  if [ "$skipped" -gt 0 ]; then
    line+=" ($(printf '%s\n' "${skip_reasons[@]}" | sort | uniq -c |
      awk '{ c = $1; sub(/^ *[0-9]+ /, ""); printf "%s%d %s", (n++ ? ", " : ""), c, $0 }'))"
  fi
  echo "$line"
}

# run_example CMD...: runs an example (python3 or the C program), with ASan's runtime
# preloaded and leak detection off in a sanitizer build (tests/examples/meson.build)
run_example () {
  if [ -n "${CV_EXAMPLE_PRELOAD:-}" ]; then
    LD_PRELOAD=$CV_EXAMPLE_PRELOAD ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$@"
  else
    "$@"
  fi
}

# find_python: sets $py to a python3 that imports gi (PATH's, then the system's),
# or empty
find_python () {
  py=""
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import gi' 2>/dev/null; then
      py=$p
      return
    fi
  done
}

# check_flow_vs_tracks FLOW_LOG TRACKS_LOG: flow_mean.py's mean flow of each valid
# frame against tracks.py --meta's velocity of the ball on the same frame: the moving
# ball is the only confident motion, so both measure its displacement (px / frame).
check_flow_vs_tracks () {
  awk '
    FNR == NR && $3 == "grid" && $5 == "valid" { fu[$2] = $7; fv[$2] = $8; next }
    FNR != NR && $4 == "present" && $(NF-2) == "velocity" && $(NF-1) != "none" {
      f = $2; n++
      if (!(f in fu)) { print "frame " f ": no flow line"; bad = 1; next }
      du = fu[f] - $(NF-1); dv = fv[f] - $NF
      if (du < -0.3 || du > 0.3 || dv < -0.3 || dv > 0.3) {
        print "frame " f ": mean flow " fu[f] " " fv[f] " vs velocity " $(NF-1) " " $NF; bad = 1
      }
    }
    END { if (n < 3) { print "only " n " frames compared"; bad = 1 } exit bad }
  ' "$1" "$2"
}
