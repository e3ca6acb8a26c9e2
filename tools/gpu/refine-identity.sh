#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# On the GPU machine: checks that a change of the refinement keeps its results and
# time. Reference binaries (cv-flow, blockmatch-refine-bench of the build to compare
# against) in .devcarry/before/ (packed as .devcarry/before.tar.xz), those of the tree
# in .devbuild/tools and .devbuild/bench: .flo outputs compared with cmp, and the 1080p
# refinement kernel time of both.
set -u
[ -d .devcarry/before ] || tar -C .devcarry -xJf .devcarry/before.tar.xz
OLD=.devcarry/before; NEW=.devbuild/tools; NEWBENCH=.devbuild/bench
M=.devmedia/optflow/middlebury
$NEW/cv-mkclip /tmp/clip1080 --frames 2 --size 1920x1080 >/dev/null
same=0; diff=0
pairs=""
for s in Dimetrodon Grove2 RubberWhale Venus; do pairs="$pairs $M/$s/frame10.png,$M/$s/frame11.png,$s"; done
pairs="$pairs /tmp/clip1080/frame_000.png,/tmp/clip1080/frame_001.png,clip1080"
for p in $pairs; do
  IFS=, read a b name <<<"$p"
  for m in lk blockmatch; do
    for extra in "" "--alpha 5000" "--inner 29"; do
      tag="$name-$m-$(echo $extra | tr -d ' -')"
      $OLD/cv-flow --backend cuda --method $m --refine variational $extra "$a" "$b" -o /tmp/old-$tag.flo >/dev/null 2>&1 || echo "old failed: $tag"
      $NEW/cv-flow --backend cuda --method $m --refine variational $extra "$a" "$b" -o /tmp/new-$tag.flo >/dev/null 2>&1 || echo "new failed: $tag"
      if cmp -s /tmp/old-$tag.flo /tmp/new-$tag.flo; then same=$((same+1)); else diff=$((diff+1)); echo "DIFFERS: $tag"; fi
    done
  done
done
echo "refine identity: $same identical, $diff different (of $((same+diff)) .flo outputs)"
for i in 1 2 3; do
  echo "--- old"; $OLD/blockmatch-refine-bench --algorithm refine --size 1920x1080 --repeat 50
  echo "--- new"; $NEWBENCH/blockmatch-refine-bench --algorithm refine --size 1920x1080 --repeat 50
done
$NEWBENCH/blockmatch-refine-bench --algorithm refine --size 1920x1080 --repeat 50 --precision fp32
