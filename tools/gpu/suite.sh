#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine (device `run`), from the checkout root, carrying
# .devpack (build + libraries), .devmedia and .gstrt:  bash tools/gpu/suite.sh
# Runs every test binary (CUDA paths included), the benchmarks and real pipelines;
# writes logs and JSON under $OUT. EXTRA=0 skips tools/gpu/extra-*.sh,
# TESTS_ONLY=1 runs the test programs alone.
# SANITIZE=1: instead, every test binary and one CUDA-memory pipeline per element
# under compute-sanitizer (memcheck, racecheck, initcheck, synccheck), each run capped
# (SANITIZE_CAP seconds, default 120; racecheck of the refinement binaries
# SANITIZE_RACE_CAP, default 300, as it takes more than 150 s). SANITIZE_TOOLS and
# SANITIZE_ONLY (an extended regex over binary names) pick a part, to split the work
# over several device runs; SANITIZE_JOBS (default 1) runs that many at once (the
# sanitizers are mostly CPU-bound: 8 suit the 16-core H100 machine). Prints one line per
# run: errors, TIMEOUT, or "no CUDA call" for a binary that never reaches the driver
# (all its cases skip the GPU or need none). The test programs run with CV_TEST_QUICK=1
# (tests/common/cv_test_quick.h): the same kernels and branches on smaller frames,
# graphs and meshes and fewer iterations, as the sanitizers slow kernels ~100x
# (SANITIZE_QUICK=0 runs them in full). compute-sanitizer waits SANITIZE_LAUNCH_TIMEOUT
# seconds (default 600; its own default is 10) for a program's first CUDA call: with
# 10 s, the programs whose CPU cases come first (core-apsp, core-cvd) reach it too late
# and are never attached ("No attachable process found"), then run into their cap.
# SANITIZE_FRAMES (default 30): frames per sanitized pipeline. Check's own CK_RUN_CASE
# picks one test case of the programs (CK_RUN_CASE=gpu: test-tools-meshseg's CUDA APSP
# of a mesh's dual graph alone, for racecheck).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source tools/gpu/env.sh       # unpacks .devpack, sets B=.devbuild and the paths
# as tests/meson.build: libgomp's spinning at barriers burns the cores the other
# programs need; with SANITIZE_JOBS programs at once, each with a team of every core,
# the CPU cases crawled (core-cvd, core-refine and element-cvdmosaic ran past 470 s
# under memcheck in 17 at once, 2026-11-23). Passive waiting: the same bits.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for p in cudavision cudavisiongpl; do gst-inspect-1.0 $p 2>&1 | grep -E "^  [a-z]" | head; done
if [ "${SANITIZE:-0}" = 1 ]; then
  cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)}
  if [ -z "$cs" ] || [ ! -x "$cs" ]; then
    echo "SANITIZE=1: compute-sanitizer not found (set COMPUTE_SANITIZER=/path/to/it)" >&2
    exit 2
  fi
  "$cs" --version | tail -1
  export CK_FORK=no            # one process per binary: the sanitizer follows it whole
  # the tests' quick variant (docs/reliability.md, "GPU work per program")
  if [ "${SANITIZE_QUICK:-1}" = 1 ]; then export CV_TEST_QUICK=1; else unset CV_TEST_QUICK; fi
  launch_timeout=${SANITIZE_LAUNCH_TIMEOUT:-600}
  echo "CV_TEST_QUICK=${CV_TEST_QUICK:-} launch timeout ${launch_timeout}s"
  tools=${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}
  only=${SANITIZE_ONLY:-.}
  sanitize () {                # tool name cap command...
    local tool=$1 name=$2 cap=$3; shift 3
    local log="$OUT/sanitize-$tool-$name.log" start r
    start=$(date +%s)
    timeout "$cap" "$cs" --tool "$tool" --launch-timeout "$launch_timeout" --error-exitcode 99 \
      --print-limit 20 "$@" > "$log" 2>&1
    r=$?
    local summary
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    case $r in
      0) ;;
      124) summary="TIMEOUT after ${cap}s ${summary}"
           grep -q "No attachable process" "$log" && summary="$summary (never attached)" ;;
      99) summary="ERRORS ${summary}"
          # the first reports ride along in the summary line: a run's logs may not
          # all come back from the device
          summary="$summary
$(grep -E -A6 "^========= (Error|Warning|Invalid|Race|.*hazard)" "$log" | head -40)" ;;
      *) if grep -q "terminated before first instrumented API call" "$log" &&
            grep -Eq "^100%: Checks" "$log"; then
           summary="no CUDA call (tests pass: $(grep -E '^100%: Checks' "$log" | tail -1))"
         else
           summary="exit $r ${summary}"
         fi ;;
    esac
    printf '%-10s %-36s %5ss  %s\n' "$tool" "$name" "$(( $(date +%s) - start ))" "$summary" \
      > "$OUT/sanitize-$tool-$name.line"
  }
  jobs_max=${SANITIZE_JOBS:-1}
  throttle () { while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 0.5; done; }
  for tool in $tools; do
    for t in $(find $B/tests -maxdepth 2 -type f -name 'test-*' -perm -u+x | sort); do
      name=$(basename "$t")
      echo "$name" | grep -Eq "$only" || continue
      [ "$name" = test-element-generic ] && continue   # backend=cpu only: nothing to see
      cap=${SANITIZE_CAP:-120}
      if [ "$tool" = racecheck ] && echo "$name" | grep -Eq 'refine|blockmatch|flow-lk|cudaflowlk'; then
        cap=${SANITIZE_RACE_CAP:-300}
      fi
      throttle; sanitize "$tool" "$name" "$cap" "$t" &
    done
    for e in "cudaflowlk backend=cuda visualize=color" "cudablockmatch backend=cuda refine=variational" \
        "moctracker backend=cuda objects=ball:#ffffff:60 draw=all" "cvdmosaic backend=cuda advect=flow" \
        "quadcut backend=cuda mode=plate learn-frames=10 plate-update-rate=1 output=composite" \
        "cudaflowepic backend=cuda visualize=color"; do
      name="pipeline-${e%% *}"
      echo "$name" | grep -Eq "$only" || continue
      throttle; sanitize "$tool" "$name" "${SANITIZE_CAP:-120}" gst-launch-1.0 -q videotestsrc pattern=ball \
        num-buffers="${SANITIZE_FRAMES:-30}" ! video/x-raw,format=NV12,width=640,height=480 ! cudaupload ! \
        "video/x-raw(memory:CUDAMemory)" ! $e ! cudadownload ! fakesink &
    done
  done
  wait
  cat "$OUT"/sanitize-*.line
  bad=$(cat "$OUT"/sanitize-*.line | grep -Ec "ERRORS|exit [0-9]")
  echo "sanitizer runs with errors: $bad (logs: $OUT/sanitize-*.log)"
  exit $((bad > 0))
fi

fails=0
echo "=== tests"
for t in $(find $B/tests -maxdepth 2 -type f -name 'test-*' -perm -u+x | sort); do
  name=$(basename "$t")
  start=$(date +%s.%N)
  timeout 300 "$t" > "$OUT/$name.log" 2>&1
  rc=$?
  # 77: nothing could run (tests/common/cv_test_skip.h), e.g. the analytics on 1.22
  if [ $rc = 0 ]; then r=PASS; elif [ $rc = 77 ]; then r=SKIP; else r=FAIL; fi
  # the hand-off test built without the producer's hand-off must fail (meson's
  # should_fail): its failure is the expected result, a pass is the failure
  case "$name" in
    *-removed) case $r in PASS) r="FAIL (passed without the hand-off)";; FAIL) r="XFAIL (as it must)";; esac ;;
  esac
  case $r in FAIL*) fails=$((fails+1));; esac
  printf '%-36s %s %6.1fs  %s\n' "$name" "$r" "$(awk "BEGIN{print $(date +%s.%N) - $start}")" \
    "$(grep -E '^[0-9]+%: Checks|^cv-test' "$OUT/$name.log" | tail -2 | tr '\n' ' ')"
  case $r in FAIL*|XFAIL*) grep -E ':F:|:E:|rror' "$OUT/$name.log" | head -5;; esac
done
grep -h -E "GPU vs CPU|on cuda|CUDA memory|mean EPE|SKIP|hand-off|nvh264dec" "$OUT"/test-*.log | head -80
# TESTS_ONLY=1 stops after the test programs
if [ "${TESTS_ONLY:-0}" = 1 ]; then echo "test binaries failed: $fails"; exit 0; fi
echo "=== benchmarks"
for bench in $B/bench/*-bench; do
  [ -x "$bench" ] && timeout 300 "$bench" 2>&1 | tee -a "$OUT/bench.json"
done
# EpicFlow rows (1024x436 and 1080p with the match / interp / refine split), no CPU row
timeout 300 "$B/bench/flow-bench" --epic --no-cpu 2>&1 | tee -a "$OUT/bench.json"
echo "=== pipelines"
bash tools/gpu/pipeline-fps.sh 2>&1 | tee "$OUT/pipelines.txt"
# EXTRA=0 leaves out the long evaluations (Middlebury table, meshseg, largest APSP)
[ "${EXTRA:-1}" = 1 ] && for extra in tools/gpu/extra-*.sh; do
  [ -f "$extra" ] && bash "$extra" 2>&1 | tee -a "$OUT/extra.txt"
done
echo "test binaries failed: $fails"
