#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, from the checkout root, carrying .devpack and .gstrt126:
#   bash tools/gpu/both.sh 'COMMAND'
# runs COMMAND (a tools/gpu script with its variables, e.g. 'TESTS_ONLY=1 bash
# tools/gpu/suite.sh') first on GStreamer 1.22 (the bundle in .devpack) and then on
# 1.26 (the trixie root, tools/gpu/trixie-run.sh), with $OUT/122 and $OUT/126 as each
# one's OUT; each run's output also goes to OUT/<version>/console.txt. PARALLEL=1 runs
# the two at once and prints each console when both are done (about half the time for
# the test programs, which leave most of the GPU and the 16 cores idle; never for
# timings, which would measure each other). Exit status: non-zero when either run
# failed.
set -uo pipefail
OUT=${OUT:-/tmp/out}
cmd=${1:?usage: tools/gpu/both.sh COMMAND}
mkdir -p "$OUT/122" "$OUT/126"
if [ "${PARALLEL:-0}" = 1 ]; then
  # the bundle unpacked once before the two start (tools/gpu/env.sh)
  ( source tools/gpu/env.sh ) > /dev/null 2>&1
  OUT="$OUT/122" bash -c "$cmd" > "$OUT/122/console.txt" 2>&1 &
  p1=$!
  OUT="$OUT/126" bash tools/gpu/trixie-run.sh "$cmd" > "$OUT/126/console.txt" 2>&1 &
  p2=$!
  wait $p1; r1=$?
  wait $p2; r2=$?
  echo "=== GStreamer 1.22 (bookworm bundle)"; cat "$OUT/122/console.txt"
  echo "=== GStreamer 1.26 (trixie root)"; cat "$OUT/126/console.txt"
else
  echo "=== GStreamer 1.22 (bookworm bundle)"
  OUT="$OUT/122" bash -c "$cmd" 2>&1 | tee "$OUT/122/console.txt"
  r1=${PIPESTATUS[0]}
  echo "=== GStreamer 1.26 (trixie root)"
  OUT="$OUT/126" bash tools/gpu/trixie-run.sh "$cmd" 2>&1 | tee "$OUT/126/console.txt"
  r2=${PIPESTATUS[0]}
fi
echo "exit: 1.22 $r1, 1.26 $r2"
[ "$r1" = 0 ] && [ "$r2" = 0 ]
