#!/usr/bin/env bash
# On the GPU machine (device `run`), from the checkout root, carrying
# .devpack (build + libraries), .devmedia and .gstrt:  bash tools/gpu/suite.sh
# Runs every test binary (CUDA paths included), the benchmarks and real pipelines;
# writes logs and JSON under $OUT. EXTRA=0 skips tools/gpu/extra-*.sh,
# TESTS_ONLY=1 runs the test programs alone.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .gstrt/env.sh
mkdir -p /tmp/devlibs && tar -C /tmp/devlibs -xJf .devpack/libs.tar.xz
[ -d .devbuild ] || tar -xJf .devpack/build.tar.xz
export LD_LIBRARY_PATH="/tmp/devlibs:$LD_LIBRARY_PATH"
B=.devbuild
# the test programs hold the absolute path of the build they came from
bp=$(cat $B/BUILD_PATH 2>/dev/null || true)
if [ -n "$bp" ] && [ ! -e "$bp" ]; then mkdir -p "$(dirname "$bp")" && ln -s "$PWD/$B" "$bp"; fi
export GST_PLUGIN_PATH="$PWD/$B/gst"
export GST_PLUGIN_PATH_1_0="$PWD/$B/gst"
export CV_SOURCE_ROOT="$PWD" CV_SHARED_MEDIA="$PWD/.devmedia"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
gst-inspect-1.0 cudavision 2>&1 | grep -E "^  [a-z]" | head
fails=0
echo "=== tests"
for t in $(find $B/tests -maxdepth 2 -type f -name 'test-*' -perm -u+x | sort); do
  name=$(basename "$t")
  start=$(date +%s.%N)
  if timeout 300 "$t" > "$OUT/$name.log" 2>&1; then r=PASS; else r=FAIL; fails=$((fails+1)); fi
  printf '%-36s %s %6.1fs  %s\n' "$name" "$r" "$(awk "BEGIN{print $(date +%s.%N) - $start}")" \
    "$(grep -E '^[0-9]+%: Checks' "$OUT/$name.log" | tail -1)"
  [ $r = FAIL ] && grep -E ':F:|:E:|rror' "$OUT/$name.log" | head -5
done
grep -h -E "GPU vs CPU|on cuda|CUDA memory|mean EPE|SKIP" "$OUT"/test-*.log | head -60
# TESTS_ONLY=1 stops after the test programs
if [ "${TESTS_ONLY:-0}" = 1 ]; then echo "test binaries failed: $fails"; exit 0; fi
echo "=== benchmarks"
for bench in $B/tools/*-bench; do
  [ -x "$bench" ] && timeout 300 "$bench" 2>&1 | tee -a "$OUT/bench.json"
done
echo "=== pipelines"
bash tools/gpu/pipeline-fps.sh 2>&1 | tee "$OUT/pipelines.txt"
# EXTRA=0 leaves out the long evaluations (Middlebury table, meshseg, largest APSP)
[ "${EXTRA:-1}" = 1 ] && for extra in tools/gpu/extra-*.sh; do
  [ -f "$extra" ] && bash "$extra" 2>&1 | tee -a "$OUT/extra.txt"
done
echo "test binaries failed: $fails"
