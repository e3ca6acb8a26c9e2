# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced (POSIX sh) by tools/dev/meshseg-eval.sh and tools/dev/meshseg-backends.sh, after
# they set $root (the checkout).
# meshseg_find BUILD_DIR NAME: sets $build (BUILD_DIR; when empty, build-cuda if it has
# meshseg, else build) and $meshseg (its tools/meshseg); exits 1, naming NAME, when that
# is not built.
meshseg_find () {
  build=$1
  if [ -z "$build" ]; then
    if [ -x "$root/build-cuda/tools/meshseg" ]; then build=$root/build-cuda; else build=$root/build; fi
  fi
  meshseg=$build/tools/meshseg
  if [ ! -x "$meshseg" ]; then
    echo "$2: $meshseg not built" >&2
    exit 1
  fi
}
