#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run by tools/gpu/suite.sh: the Middlebury table of every flow method on CUDA
# (EPE, angular error, % off by > 1/3/5 px, time per pair).
B=${B:-.devbuild}
M=${CV_SHARED_MEDIA:-.devmedia}/optflow/middlebury
[ -d "$M" ] || { echo "SKIP flow eval: no $M"; exit 0; }
for method in "--method lk" "--method lk --refine" "--method blockmatch" "--method blockmatch --refine"; do
  echo "=== cv-flow --backend cuda $method --repeat 20"
  "$B/tools/cv-flow" --backend cuda $method --repeat 20 --eval "$M"
done
