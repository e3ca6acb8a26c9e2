#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Soak: every element N frames (default 10000) through cv-soak, RSS (and, on a GPU
# machine, device memory) sampled every 1000 frames; growth after the warm-up.
#   tools/dev/soak.sh [BUILD_DIR]  environment: FRAMES, SIZE (default 1920x1080),
#                                  MEMORY (system | cuda), BACKEND (cpu | cuda | auto),
#                                  ONLY (a regex over the element lines)
# One JSON line per element on stdout (cv-soak's summary); exit status 1 when an
# element grew by more than 1 MB after the warm-up (LIMIT_KB), 3 when one failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
frames=${FRAMES:-10000}
size=${SIZE:-1920x1080}
memory=${MEMORY:-system}
backend=${BACKEND:-auto}
# on the GPU machine (carrying .devpack and .gstrt): tools/dev/soak.sh .devbuild
[ "$build" = .devbuild ] && source tools/gpu/env.sh
export GST_PLUGIN_PATH_1_0="$PWD/$build/gst"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# the elements with settings that exercise their state across frames
elements=(
  "cudaflowlk backend=$backend visualize=color"
  "cudablockmatch backend=$backend refine=variational visualize=color"
  "cudaflowepic backend=$backend visualize=color"
  "moctracker backend=$backend objects=ball:#ffffff:60 draw=all trajectory-length=64"
  "cvdmosaic backend=$backend advect=flow"
)
# quadcut (GPL plugin cudavisiongpl, when built): a plate learned over the first 50
# frames, then kept up (plate-update-rate) every frame
[ -e "$build/gst/libgstcudavisiongpl.so" ] && elements+=(
  "quadcut backend=$backend mode=plate learn-frames=50 plate-update-rate=1 output=composite")
status=0
for e in "${elements[@]}"; do
  [[ $e =~ ${ONLY:-.} ]] || continue
  "$build/tools/dev/cv-soak" --frames "$frames" --size "$size" --memory "$memory" \
    --limit-kb "${LIMIT_KB:-1024}" "$e" | grep '^{'
  r=${PIPESTATUS[0]}
  [ "$r" -gt "$status" ] && status=$r
done
exit $status
