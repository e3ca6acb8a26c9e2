#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Run by tools/gpu/suite.sh on the GPU machine: meshseg (APSP on the GPU) with its
# defaults over the PSB meshes of $CV_SHARED_MEDIA (psb and psb-train, 44 meshes):
# per-category Rand Index error and time per mesh; the CPU and CUDA labels of every
# mesh compared (equal by construction); then the largest APSP sizes that
# fit, capped to keep the run within minutes.
B=${B:-.devbuild}
echo "=== meshseg PSB (tools/dev/meshseg-eval.sh)"
bash tools/dev/meshseg-eval.sh -d -b "$B"
echo "=== meshseg CPU against CUDA labels (tools/dev/meshseg-backends.sh: every mesh 'same')"
sh tools/dev/meshseg-backends.sh -b "$B" || echo "meshseg-backends: exit status $?"
echo "=== apsp largest fit (capped at 65536 nodes)"
for v in directed undirected; do
  timeout 300 "$B/bench/apsp-bench" --variant "$v" --sizes "" --largest --cap 65536 --check 2
done
