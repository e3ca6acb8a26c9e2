#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: the CPU backend at 640x480 with 1 thread and all cores.
B=.devbuild/bench
echo "cores: $(nproc)"
for t in 1 0; do
  $B/flow-bench --no-fb-check --runs 3 --threads $t 2>&1 | grep '"backend":"cpu"'
  $B/blockmatch-refine-bench --backend cpu --size 640x480 --repeat 3 --threads $t
done
