#!/usr/bin/env bash
# Whole-pipeline throughput at 1080p: cudaupload -> [element] -> cudadownload -> fakesink,
# with and without the element; the difference per frame is what the element adds.
set -uo pipefail
N=${FRAMES:-600}
src="videotestsrc num-buffers=$N pattern=ball motion=sweep ! video/x-raw,format=NV12,width=1920,height=1080,framerate=1000/1"
run () {
  local label=$1; shift
  local t0=$(date +%s.%N)
  gst-launch-1.0 -q $src ! "$@" ! fakesink sync=false > /tmp/pipe.log 2>&1 || { echo "$label: FAILED"; tail -5 /tmp/pipe.log; return; }
  awk -v n="$N" -v t0="$t0" -v t1="$(date +%s.%N)" -v l="$label" \
    'BEGIN{t=t1-t0; printf "%-44s %7.1f fps  %7.3f ms/frame\n", l, n/t, 1000*t/n}'
}
run "upload+download (baseline)" cudaupload ! cudadownload
run "upload+cudaflowlk+download" cudaupload ! cudaflowlk ! cudadownload
run "upload+cudaflowlk color+download" cudaupload ! cudaflowlk visualize=color ! cudadownload
run "system memory cudaflowlk (backend cuda)" cudaflowlk backend=cuda
run "system memory identity (baseline)" identity
