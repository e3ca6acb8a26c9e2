#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Multi-stream throughput: BRANCHES (default 8) independent 1080p NV12 branches
#   videotestsrc num-buffers=1 ! imagefreeze num-buffers=N ! cudaupload ! ELEMENT ! fakesink
# in one gst-launch-1.0 process, total frames per second over all branches; and
# two-element chains in CUDA memory (cudaupload ! A ! B ! cudadownload) in one branch,
# with and without queues between them.
# Each figure is (frames of a 2N run - frames of an N run) / (time difference), so
# process start, plugin loading and CUDA initialisation cancel out.
# FRAMES (default 2000) is N (divided by the third argument for slow elements); ONLY, an extended regex over the names, runs those alone.
# Prints one JSON object per line.
set -uo pipefail
K=${BRANCHES:-8}
cm="video/x-raw(memory:CUDAMemory)"
caps="video/x-raw,format=NV12,width=1920,height=1080,framerate=1000/1"
OBJ128=${TMPDIR:-/tmp}/moct128-ms.txt
for i in $(seq 0 127); do printf 'o%d #%02x%02x%02x 20\n' $i $(( (i * 37) % 256 )) $(( (i * 91 + 64) % 256 )) $(( (i * 53 + 128) % 256 )); done > "$OBJ128"

only () { echo "$1" | grep -Eq "${ONLY:-.}"; }
# seconds one gst-launch-1.0 run takes
timed () {
  local t0 t1
  t0=$(date +%s.%N)
  gst-launch-1.0 -q "$@" >/dev/null 2>"${TMPDIR:-/tmp}/ms-err.txt" || { echo FAIL; return; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }'
}
# branches NAME ELEMENT: K branches of ELEMENT
branches () {
  local name=$1 el=$2 N=$(( ${FRAMES:-2000} / ${3:-1} )) t1 t2
  only "$name" || return 0
  build () {
    local frames=$1 s="" b
    for b in $(seq 1 "$K"); do
      s="$s videotestsrc num-buffers=1 pattern=ball ! $caps ! imagefreeze num-buffers=$frames ! cudaupload ! $cm ! $el ! fakesink sync=false"
    done
    echo "$s"
  }
  # shellcheck disable=SC2046
  t1=$(timed $(build "$N")); t2=$(timed $(build $((2 * N))))
  if [ "$t1" = FAIL ] || [ "$t2" = FAIL ]; then
    printf '{"name":"%s","branches":%d,"error":"%s"}\n' "$name" "$K" "$(head -c 200 "${TMPDIR:-/tmp}/ms-err.txt" | tr '"\n' "' ")"
    return 0
  fi
  printf '{"name":"%s","branches":%d,"frames_per_branch":%d,"total_fps":%.0f}\n' \
    "$name" "$K" "$N" "$(awk -v k="$K" -v n="$N" -v a="$t1" -v b="$t2" 'BEGIN { print k * n / (b - a) }')"
}
# chain NAME PIPE: one branch, upload ! PIPE ! download
chain () {
  local name=$1 p=$2 N=$(( ${FRAMES:-2000} / ${3:-1} )) t1 t2
  only "$name" || return 0
  mk () { echo "videotestsrc num-buffers=1 pattern=ball ! $caps ! imagefreeze num-buffers=$1 ! cudaupload ! $cm ! $p ! cudadownload ! fakesink sync=false"; }
  # shellcheck disable=SC2046
  t1=$(timed $(mk "$N")); t2=$(timed $(mk $((2 * N))))
  if [ "$t1" = FAIL ] || [ "$t2" = FAIL ]; then
    printf '{"name":"%s","error":"%s"}\n' "$name" "$(head -c 200 "${TMPDIR:-/tmp}/ms-err.txt" | tr '"\n' "' ")"
    return 0
  fi
  printf '{"name":"%s","branches":1,"frames":%d,"fps":%.0f}\n' "$name" "$N" "$(awk -v n="$N" -v a="$t1" -v b="$t2" 'BEGIN { print n / (b - a) }')"
}

branches identity "identity"
branches cudaflowlk "cudaflowlk"
branches cudaflowlk-refine "cudaflowlk refine=variational" 6
branches cudablockmatch "cudablockmatch"
branches moctracker "moctracker objects-file=$OBJ128"
branches cvdmosaic "cvdmosaic backend=cuda" 2
branches quadcut "quadcut"
branches cudaflowepic "cudaflowepic" 10
${EXTRA_BRANCHES:+branches extra "$EXTRA_BRANCHES"}
chain chain-identity "identity ! identity"
chain chain-cudaflowlk "cudaflowlk"
chain chain-cudaflowlk-x2 "cudaflowlk ! cudaflowlk"
# the same with a queue before, between and after: one streaming thread per element,
# so upload, both elements and the download overlap across frames
chain chain-cudaflowlk-x2-queued "queue ! cudaflowlk ! queue ! cudaflowlk ! queue"
chain chain-cudablockmatch-x2 "cudablockmatch ! cudablockmatch"
chain chain-flowlk-moct "cudaflowlk ! moctracker objects-file=$OBJ128"
