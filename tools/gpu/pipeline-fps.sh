#!/usr/bin/env bash
# Whole-pipeline throughput at 1080p: cudaupload -> [element] -> cudadownload -> fakesink,
# with and without the element. Each pipeline runs twice, with N1 and N2 frames; the
# per-frame time is (t2 - t1) / (N2 - N1), so start-up (CUDA context, module load,
# allocations) cancels out. The element's cost is the difference to its baseline.
set -uo pipefail
N1=${N1:-200}
N2=${N2:-600}
elapsed () {   # frames, pipeline tail...
  local n=$1; shift
  local src="videotestsrc num-buffers=$n pattern=ball motion=sweep ! video/x-raw,format=NV12,width=1920,height=1080,framerate=1000/1"
  local t0=$(date +%s.%N)
  gst-launch-1.0 -q $src ! "$@" ! fakesink sync=false > /tmp/pipe.log 2>&1 || { echo FAIL; return; }
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b - a}'
}
run () {
  local label=$1; shift
  local t1=$(elapsed "$N1" "$@") t2=$(elapsed "$N2" "$@")
  if [ "$t1" = FAIL ] || [ "$t2" = FAIL ]; then echo "$label: FAILED"; tail -5 /tmp/pipe.log; return; fi
  awk -v l="$label" -v t1="$t1" -v t2="$t2" -v n1="$N1" -v n2="$N2" 'BEGIN{
    ms = 1000 * (t2 - t1) / (n2 - n1); printf "%-44s %7.1f fps  %7.3f ms/frame\n", l, 1000 / ms, ms}'
}
run "upload+download (baseline)" cudaupload ! cudadownload
run "upload+cudaflowlk+download" cudaupload ! cudaflowlk ! cudadownload
run "upload+cudaflowlk color+download" cudaupload ! cudaflowlk visualize=color ! cudadownload
run "upload+cudablockmatch+download" cudaupload ! cudablockmatch ! cudadownload
run "upload+cudaflowlk refine+download" cudaupload ! cudaflowlk refine=variational ! cudadownload
run "system memory identity (baseline)" identity
run "system memory cudaflowlk (backend cuda)" cudaflowlk backend=cuda
