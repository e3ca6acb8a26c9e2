#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine, from the checkout root, carrying .devpack and .gstrt126:
#   bash tools/gpu/both.sh 'COMMAND'
# runs COMMAND (a tools/gpu script with its variables, e.g. 'TESTS_ONLY=1 bash
# tools/gpu/suite.sh') first on GStreamer 1.22 (the bundle in .devpack) and then on
# 1.26 (the trixie root, tools/gpu/trixie-run.sh), with $OUT/122 and $OUT/126 as each
# one's OUT; each run's output also goes to OUT/<version>/console.txt. Exit status:
# non-zero when either run failed.
set -uo pipefail
OUT=${OUT:-/tmp/out}
cmd=${1:?usage: tools/gpu/both.sh COMMAND}
mkdir -p "$OUT/122" "$OUT/126"
echo "=== GStreamer 1.22 (bookworm bundle)"
OUT="$OUT/122" bash -c "$cmd" 2>&1 | tee "$OUT/122/console.txt"
r1=${PIPESTATUS[0]}
echo "=== GStreamer 1.26 (trixie root)"
OUT="$OUT/126" bash tools/gpu/trixie-run.sh "$cmd" 2>&1 | tee "$OUT/126/console.txt"
r2=${PIPESTATUS[0]}
echo "exit: 1.22 $r1, 1.26 $r2"
[ "$r1" = 0 ] && [ "$r2" = 0 ]
