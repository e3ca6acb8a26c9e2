# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the pipeline scripts: the plugin path of the build, the output folder, and
# a video sink that works headless.
#   $cv_out        where the scripts write: $OUT_DIR, or out/ (created)
#   cv_sink NAME   prints the sink part of a launch line: $SINK when set; a window
#                  (autovideosink) when a display exists; otherwise $cv_out/NAME.webm (a
#                  machine without a display crashes autovideosink's DirectFB fallback)
#   cv_camera      the camera device ($DEVICE, or /dev/video0), or exits 1 saying none
#                  is there (before anything is written)
# A file the run left empty (a pipeline that failed before its first frame) is removed
# at exit.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cv_build=${BUILD_DIR:-build}
[[ $cv_build = /* ]] || cv_build=$PWD/$cv_build
export GST_PLUGIN_PATH="$cv_build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
cv_out=${OUT_DIR:-out}
mkdir -p "$cv_out"
cv_started=$(mktemp)
trap 'find "$cv_out" -maxdepth 1 -type f -size 0 -newer "$cv_started" -delete 2>/dev/null;
  rm -f "$cv_started"' EXIT

cv_camera () {
  local dev=${DEVICE:-/dev/video0}
  if [ ! -c "$dev" ]; then
    echo "$(basename "$0"): no camera at $dev (DEVICE=/dev/videoN picks another)" >&2
    exit 1
  fi
  echo "$dev"
}

cv_sink () {
  if [ -n "${SINK:-}" ]; then
    echo "$SINK"
  elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "videoconvert ! autovideosink"
  else
    echo "no display: writing $cv_out/$1.webm (set SINK=... to choose)" >&2
    echo "videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$cv_out/$1.webm"
  fi
}
