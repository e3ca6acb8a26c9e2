# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the pipeline scripts: the plugin path of the build, and a video sink that
# works headless.
#   cv_sink NAME   prints the sink part of a launch line: $SINK when set; a window
#                  (autovideosink) when a display exists; otherwise out/NAME.webm (a
#                  machine without a display crashes autovideosink's DirectFB fallback;
#                  OUT_DIR=... writes elsewhere).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cv_build=${BUILD_DIR:-build}
[[ $cv_build = /* ]] || cv_build=$PWD/$cv_build
export GST_PLUGIN_PATH="$cv_build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

cv_sink () {
  if [ -n "${SINK:-}" ]; then
    echo "$SINK"
  elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "videoconvert ! autovideosink"
  else
    local dir=${OUT_DIR:-out}
    mkdir -p "$dir"
    echo "no display: writing $dir/$1.webm (set SINK=... to choose)" >&2
    echo "videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$dir/$1.webm"
  fi
}
