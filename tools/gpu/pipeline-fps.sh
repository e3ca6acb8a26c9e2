#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Whole-pipeline throughput at 1080p NV12 and the time each element holds a frame
# (cv-pipeline-bench: buffer probes, median after 30 warm-up frames). The source is
# one videotestsrc frame repeated by imagefreeze, so it costs almost nothing and the
# pipeline's time is upload + element + download.
# FRAMES (default 600) frames a pipeline; ONLY, an extended regex over the pipelines'
# names, runs those alone (e.g. ONLY='quadcut|baseline').
set -uo pipefail
B=${B:-.devbuild}
N=${FRAMES:-600}
cm="video/x-raw(memory:CUDAMemory)"
src="videotestsrc num-buffers=1 pattern=ball ! video/x-raw,format=NV12,width=1920,height=1080,framerate=1000/1 ! imagefreeze num-buffers=$N"
only () { echo "$1" | grep -Eq "${ONLY:-.}"; }
bench () { only "$1" || return 0; "$B/bench/cv-pipeline-bench" "$src ! $2 ! fakesink name=sink sync=false" "$1" || echo "{\"pipeline\":\"$1\",\"error\":true}"; }
bench "cuda baseline: upload ! identity ! download" "cudaupload ! $cm ! identity name=e ! cudadownload"
bench "cuda: upload ! cudaflowlk ! download" "cudaupload ! $cm ! cudaflowlk name=e ! cudadownload"
bench "cuda: upload ! cudaflowlk visualize=color ! download" "cudaupload ! $cm ! cudaflowlk name=e visualize=color ! cudadownload"
bench "cuda: upload ! cudaflowlk refine=variational ! download" "cudaupload ! $cm ! cudaflowlk name=e refine=variational ! cudadownload"
bench "cuda: upload ! cudablockmatch ! download" "cudaupload ! $cm ! cudablockmatch name=e ! cudadownload"
# cudaflowepic (EpicFlow): imagefreeze repeats one frame, so the pairs are identical
# (every stage still runs in full; the target is >= 100 fps)
bench "cuda: upload ! cudaflowepic ! download" "cudaupload ! $cm ! cudaflowepic name=e ! cudadownload"
bench "system baseline: identity" "identity name=e"
bench "system: cudaflowlk backend=cuda" "cudaflowlk name=e backend=cuda"
bench "cuda: upload ! cudaflowlk fb-check ! download" "cudaupload ! $cm ! cudaflowlk name=e fb-check=true ! cudadownload"
bench "cuda: upload ! cudaflowlk ! download (no probe baseline)" "cudaupload ! $cm ! cudaflowlk ! identity name=e ! cudadownload"
# moctracker with 128 objects (palette colours; the content matters little: one pass
# over the pixels whatever it holds) and boxes drawn
OBJ128=${TMPDIR:-/tmp}/moct128.txt
for i in $(seq 0 127); do printf 'o%d #%02x%02x%02x 20\n' $i $(( (i * 37) % 256 )) $(( (i * 91 + 64) % 256 )) $(( (i * 53 + 128) % 256 )); done > "$OBJ128"
bench "cuda: upload ! moctracker 128 objects draw=boxes ! download" "cudaupload ! $cm ! moctracker name=e objects-file=$OBJ128 draw=boxes ! cudadownload"
bench "cuda: upload ! moctracker 128 objects (no drawing) ! download" "cudaupload ! $cm ! moctracker name=e objects-file=$OBJ128 ! cudadownload"
# cvdmosaic: 20k sites, 2 Lloyd iterations a frame, cells style (the target is >= 400 fps)
bench "cuda: upload ! cvdmosaic sites=20000 iterations=2 ! download" "cudaupload ! $cm ! cvdmosaic name=e backend=cuda sites=20000 iterations=2 ! cudadownload"
bench "cuda: upload ! cvdmosaic sites=20000 iterations=2 style=stipple ! download" "cudaupload ! $cm ! cvdmosaic name=e backend=cuda sites=20000 iterations=2 style=stipple ! cudadownload"
bench "cuda: upload ! cvdmosaic sites=20000 iterations=2 advect=flow ! download" "cudaupload ! $cm ! cvdmosaic name=e backend=cuda sites=20000 iterations=2 advect=flow ! cudadownload"
# quadcut (plugin cudavisiongpl) at 1080p on a frame of the synthetic foreground clip
# against its plate (realistic leaves: a textured plate, an object and its shadow),
# composite over a colour and the alpha output; the target is >= 200 fps
FG=${TMPDIR:-/tmp}/quadcut-fg-1080
"$B/tools/cv-mkclip" "$FG" --frames 2 --size 1920x1080 --foreground plain >/dev/null
fgsrc="filesrc location=$FG/frame_000.png ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=$N"
qc="quadcut name=e plate-location=$FG/plate.png shadow-depth=0.6"
qbench () { only "$1" || return 0; "$B/bench/cv-pipeline-bench" "$fgsrc ! $2 ! fakesink name=sink sync=false" "$1" || echo "{\"pipeline\":\"$1\",\"error\":true}"; }
qbench "cuda baseline (RGBA 1080p): upload ! identity ! download" "cudaupload ! $cm ! identity name=e ! cudadownload"
qbench "cuda: upload ! quadcut (composite) ! download" "cudaupload ! $cm ! $qc ! cudadownload"
qbench "cuda: upload ! quadcut output=alpha ! download" "cudaupload ! $cm ! $qc output=alpha ! cudadownload"
