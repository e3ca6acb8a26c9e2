#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The billiard evaluation of cv-moct (docs/moctracker.md, "Calibration and billiard
# evaluation") over the three shared clips: one JSON line per clip.
#   tools/moct-eval.sh [BUILD_DIR] [MEDIA_DIR]   (defaults: build, ../shared/media)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
media=${2:-../shared/media}
if [ ! -d "$media/tracking" ]; then
  echo "moct-eval: no $media/tracking (the shared media are not here)" >&2
  exit 1
fi
for g in 1 2 3; do
  "$build/tools/cv-moct" billiard "$media/tracking/game${g}_clip1" --json
done
