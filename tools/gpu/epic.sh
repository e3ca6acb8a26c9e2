#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine (device `run`), from the checkout root, carrying .devpack and
# .gstrt (tools/gpu/build-for-gpu.sh):  bash tools/gpu/epic.sh
# The EpicFlow checks of docs/epicflow.md in one run: its four test programs
# (core-match, core-interp, core-epic, element-cudaflowepic), then
# flow-bench --epic (each preset), the pipeline rates (a moving 1080p clip: cv-mkclip, raw NV12
# through filesrc; one repeated frame; 8 branches in one process), then, once nothing
# is timed any more, compute-sanitizer memcheck, racecheck and synccheck over the four
# programs (CV_TEST_QUICK=1, 15 at once) and a CUDA-memory cudaflowepic pipeline under
# each tool. Logs and JSON under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source tools/gpu/env.sh
export OMP_WAIT_POLICY=passive CK_FORK=no
cm="video/x-raw(memory:CUDAMemory)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
progs="core-match core-interp core-epic element-cudaflowepic"
echo "=== tests"
for p in $progs; do
  t0=$(date +%s.%N)
  bin=$B/tests/test-$p; [ -x "$bin" ] || bin=$B/tests/elements/test-$p
  if timeout 300 "$bin" > "$OUT/test-$p.log" 2>&1; then r=PASS; else r=FAIL; fi
  printf '%-24s %s %6.1fs  %s\n' "$p" "$r" "$(awk "BEGIN{print $(date +%s.%N) - $t0}")" "$(grep -E '^[0-9]+%: Checks' "$OUT/test-$p.log" | tail -1)"
  grep -hE "CUDA vs CPU|:F:|:E:|SKIP" "$OUT/test-$p.log" | head -6
done
echo "=== flow-bench --epic"
timeout 200 "$B/bench/flow-bench" --epic --no-cpu --runs 30 2>&1 | tee "$OUT/bench-epic.json"
# the other two presets (cudaflowepic preset=, cc_epic_params_preset)
for preset in balanced accurate; do
  timeout 200 "$B/bench/flow-bench" --epic --no-cpu --runs 30 --preset $preset 2>&1 | tee -a "$OUT/bench-epic.json"
done
[ -n "${EPIC_BENCH_EXTRA:-}" ] && timeout 200 "$B/bench/flow-bench" --epic --no-cpu --runs 30 $EPIC_BENCH_EXTRA 2>&1 | tee -a "$OUT/bench-epic.json"
echo "=== pipelines (1080p NV12)"
clip=/tmp/epic-clip
"$B/tools/cv-mkclip" $clip --frames 60 --size 1920x1080 > /dev/null
gst-launch-1.0 -q multifilesrc location=$clip/frame_%03d.png index=0 stop-index=59 caps=image/png,framerate=30/1 ! pngdec ! videoconvert ! \
  video/x-raw,format=NV12 ! filesink location=$clip/one.nv12
for i in $(seq 10); do cat $clip/one.nv12; done > $clip/clip.nv12
raw="filesrc location=$clip/clip.nv12 ! rawvideoparse width=1920 height=1080 format=nv12 framerate=1000/1"
pb () { "$B/bench/cv-pipeline-bench" "$2 ! fakesink name=sink sync=false" "$1" || echo "{\"pipeline\":\"$1\",\"error\":true}"; }
{
  pb "moving clip: upload ! identity ! download" "$raw ! cudaupload ! $cm ! identity name=e ! cudadownload"
  pb "moving clip: upload ! cudaflowepic ! download" "$raw ! cudaupload ! $cm ! cudaflowepic name=e ! cudadownload"
  pb "moving clip: upload ! cudaflowepic visualize=color ! download" "$raw ! cudaupload ! $cm ! cudaflowepic name=e visualize=color ! cudadownload"
  pb "moving clip: upload ! cudaflowepic preset=fast ! download" "$raw ! cudaupload ! $cm ! cudaflowepic name=e preset=fast ! cudadownload"
  ONLY=cudaflowepic FRAMES=600 bash tools/gpu/pipeline-fps.sh
  ONLY='^(identity|cudaflowepic)$' bash tools/gpu/multistream-fps.sh
} 2>&1 | tee "$OUT/pipelines.json"
# real clips (no ground truth), as PNG frames under CLIPS (default .devclips/NAME/*.png):
# per pair the time and the share of confident pixels, through the video mode
for d in "${CLIPS:-.devclips}"/*/; do
  [ -d "$d" ] || continue
  echo "=== clip $(basename "$d")"
  timeout 120 "$B/tools/dev/epic-eval" --backend cuda --sequence "$d"*.png 2>&1 | tail -3
done
[ "${SANITIZE:-1}" = 1 ] || exit 0   # SANITIZE=0: the timings alone
echo "=== compute-sanitizer (quick variants)"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
( export CV_TEST_QUICK=1
  for tool in memcheck racecheck synccheck; do
    for p in $progs; do
      bin=$B/tests/test-$p; [ -x "$bin" ] || bin=$B/tests/elements/test-$p
      ( timeout 420 "$cs" --tool $tool --error-exitcode 99 --print-limit 20 "$bin" > "$OUT/san-$tool-$p.log" 2>&1
        echo "$tool $p rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-$p.log" | tail -1)" > "$OUT/san-$tool-$p.line" ) &
    done
    ( timeout 420 "$cs" --tool $tool --error-exitcode 99 --print-limit 20 gst-launch-1.0 -q videotestsrc pattern=ball num-buffers=${SAN_FRAMES:-6} ! \
        video/x-raw,format=NV12,width=320,height=240 ! cudaupload ! "$cm" ! cudaflowepic ! cudadownload ! fakesink > "$OUT/san-$tool-pipeline.log" 2>&1
      echo "$tool pipeline-cudaflowepic rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-pipeline.log" | tail -1)" > "$OUT/san-$tool-pipeline.line" ) &
  done
  wait )
echo "=== sanitizer"
cat "$OUT"/san-*.line
