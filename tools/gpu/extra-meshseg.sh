#!/usr/bin/env bash
# Run by tools/gpu/suite.sh on the GPU machine: meshseg (APSP on the GPU) over the six
# PSB meshes of $CV_SHARED_MEDIA, per-mesh Rand Index error and time, then the mean;
# then the largest APSP sizes that fit, capped to keep the run within minutes.
B=${B:-.devbuild}
echo "=== meshseg PSB (tools/meshseg-eval.sh)"
bash tools/meshseg-eval.sh "$B"
echo "=== apsp largest fit (capped at 65536 nodes)"
for v in directed undirected; do
  timeout 300 "$B/tools/apsp-bench" --variant "$v" --sizes "" --largest --cap 65536 --check 2
done
