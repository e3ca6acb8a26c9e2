#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What an application developer does with an installation: `meson install --destdir`
# into a temporary folder, then, with PKG_CONFIG_PATH into it only,
#   - pkg-config cudavision-1.0 gives its include and library folders;
#   - examples/flow_tracks.c compiles against the installed header and library, and
#     runs on the installed plugins (GST_PLUGIN_PATH = the .pc's pluginsdir): the
#     flow meta on every frame, the tracked ball in the ROI metas and the messages,
#     and the mean flow inside the ball's box equal to its tracked velocity;
#   - the installed typelib reads the flow meta from Python (flow_mean.py), when
#     PyGObject is there;
#   - bin/ holds the programs users run (BINS, from tools/meson.build), no others: no
#     benchmark, evaluation, cv-soak or cv-pipeline-bench; they run, and meshseg, when
#     installed, answers --help and segments a generated mesh.
#   tests/examples/install.sh SOURCE_ROOT BUILD_ROOT CC MESON "BINS"
set -euo pipefail
src=$1 build=$2 cc=$3 meson=$4 bins=$5
source "$src/tests/examples/common.sh"
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

"$meson" install -C "$build" --no-rebuild --destdir "$dest" --quiet >"$dest/install.log" 2>&1 \
  || { cat "$dest/install.log"; fail "meson install --destdir failed"; }
pc=$(find "$dest" -name cudavision-1.0.pc)
[ -n "$pc" ] || fail "no cudavision-1.0.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs cudavision-1.0) || fail "pkg-config cudavision-1.0 failed"
incdir=$(pkg-config --variable=includedir cudavision-1.0)
libdir=$(pkg-config --variable=libdir cudavision-1.0)
pluginsdir=$(pkg-config --variable=pluginsdir cudavision-1.0)
# a build configured by tools/setup.sh install names GStreamer's own plugin folder
case "$pluginsdir" in "$dest"/*) ;; *) pluginsdir=$dest$pluginsdir ;; esac
case "$incdir" in "$dest"/*) ;; *) fail "includedir $incdir is not in the destdir" ;; esac
[ -f "$incdir/cudavision-1.0/cudavision/gstcvflowmeta.h" ] \
  || fail "no include/cudavision-1.0/cudavision/gstcvflowmeta.h"
[ -e "$libdir/libgstcudavision-1.0.so" ] || fail "no $libdir/libgstcudavision-1.0.so"
[ -e "$pluginsdir/libgstcudavision.so" ] || fail "no plugin in pluginsdir $pluginsdir"
ok "pkg-config: $flags"

# the C example, built as an application builds it
"$cc" -Wall -Wextra -Werror -o "$dest/flow_tracks" "$src/examples/flow_tracks.c" $flags -lm \
  || fail "examples/flow_tracks.c does not build against the installed cudavision-1.0"
ok "flow_tracks.c builds against the installed .pc"

export GST_PLUGIN_PATH=$pluginsdir
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
run_example "$dest/flow_tracks" 6 >"$dest/out" 2>"$dest/err" || { cat "$dest/out" "$dest/err"; fail "flow_tracks failed"; }
grep -q '^flow_tracks: 6 frames$' "$dest/out" || { cat "$dest/out"; fail "flow_tracks: not 6 frames"; }
grep -q '^frame 0 flow grid 160x120 cell 1x1 first mean +0.000 +0.000$' "$dest/out" \
  || { cat "$dest/out"; fail "frame 0: not the zero first field"; }
[ "$(grep -c '^frame [1-5] flow grid 160x120 cell 1x1 valid ' "$dest/out")" -eq 5 ] \
  || { cat "$dest/out"; fail "frames 1-5: not valid fields"; }
[ "$(grep -c '^frame [0-5] track ball id 0 box ' "$dest/out")" -eq 6 ] \
  || { cat "$dest/out"; fail "the ball's ROI meta is not on the 6 frames"; }
[ "$(grep -c '^message frame [0-5] time .* object ball present box ' "$dest/out")" -eq 6 ] \
  || { cat "$dest/out"; fail "not 6 moctracker messages with the ball present"; }
# "frame F track ball id 0 box X,Y WxH centroid CX CY velocity valid VX VY flow-in-box FU FV"
awk '$3 == "track" && $13 == "velocity" && $14 == "valid" && $17 == "flow-in-box" {
      n++; du = $18 - $15; dv = $19 - $16
      if (du < -0.3 || du > 0.3 || dv < -0.3 || dv > 0.3) { print "differs: " $0; bad = 1 }
    }
    END { if (n != 5) { print n " frames with a velocity, want 5"; bad = 1 } exit bad }' "$dest/out" \
  || { cat "$dest/out"; fail "the mean flow in the ball's box is not its velocity"; }
ok "flow_tracks on the installed plugins: 6 frames, flow in the ball's box = its velocity within 0.3 px"

# the same results from the analytics relation meta, where cudavision-1.0.pc says it
# was built with gstreamer-analytics-1.0 (GStreamer 1.24+): boxes, names and ids of the
# ROI metas, no track lost; on 1.26+ the flow mtd's grid and mean = the flow meta's
if grep -q '^flow_tracks: analytics metas not read' "$dest/out"; then
  skip "built without gstreamer-analytics-1.0" "analytics read-out"
else
  grep '^frame [0-9]* track ' "$dest/out" | awk '{ print $2, $4, $6, $8, $9, "no" }' >"$dest/roi"
  grep '^frame [0-9]* analytics track ' "$dest/out" | awk '{ print $2, $5, $7, $9, $10, $12 }' >"$dest/od"
  [ "$(wc -l <"$dest/od")" -eq 6 ] && cmp -s "$dest/roi" "$dest/od" \
    || { cat "$dest/out"; fail "flow_tracks: the analytics tracks are not the ROI metas"; }
  ok "flow_tracks: OD + tracking mtds = ROI metas on 6 frames (box, name, id, not lost)"
  if grep -q '^flow_tracks: analytics metas: tracks and flow$' "$dest/out"; then
    grep '^frame [0-9]* flow grid ' "$dest/out" >"$dest/fm"
    grep '^frame [0-9]* analytics flow grid ' "$dest/out" | sed 's/ analytics / /' >"$dest/fa"
    [ "$(wc -l <"$dest/fa")" -eq 6 ] && cmp -s "$dest/fm" "$dest/fa" \
      || { cat "$dest/out"; fail "flow_tracks: the flow mtd is not the flow meta"; }
    ok "flow_tracks: GstCvFlowMtd grid, cell, validity and mean = GstCvFlowMeta's on 6 frames"
  else
    skip "GStreamer too old" "the flow mtd (GStreamer 1.26)"
  fi
fi

# bin/: the programs users run, each answering --version, and nothing else
bindir=$(dirname "$(find "$dest" -path "*/bin/cv-flow")")
[ -d "$bindir" ] || fail "no bin/cv-flow installed"
have=$(ls "$bindir" | sort | tr '\n' ' ')
want=$(tr ' ' '\n' <<<"$bins" | grep . | sort | tr '\n' ' ')
[ "$have" = "$want" ] || fail "bin/ holds '$have', want '$want'"
for t in $bins; do
  "$bindir/$t" --version >/dev/null || fail "bin/$t --version fails"
done
for t in cv-soak cv-pipeline-bench flow-bench quadcut-eval cvd-flicker; do
  [ ! -e "$bindir/$t" ] || fail "development program bin/$t is installed"
done
ok "bin/ holds $bins (each runs --version); no cv-soak, cv-pipeline-bench, benchmark or evaluation"

# meshseg (GPL, with the GPL parts): its manual (--help, exit 0) and a segmentation of
# cv-mkmesh's sphere with five arms (320 faces, 6 parts; Rand Index error 0.0135
# against the exact parts on 2026-11-27)
case " $bins " in
  *" meshseg "*)
    "$bindir/meshseg" --help >"$dest/help" 2>&1 || fail "meshseg --help: exit $?"
    for o in --segments --max-segments --backend --seg --eval --json --quiet; do
      grep -q -- "$o" "$dest/help" || fail "meshseg --help does not describe $o"
    done
    for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES LICENCE; do
      grep -qx "$s" "$dest/help" || fail "meshseg --help has no $s section"
    done
    "$bindir/cv-mkmesh" "$dest/arms.off" --seg "$dest/arms.seg" --freq 4 >/dev/null \
      || fail "cv-mkmesh failed"
    "$bindir/meshseg" -q --json --eval "$dest/arms.seg" "$dest/arms.off" >"$dest/ms.json" \
      || { cat "$dest/ms.json"; fail "installed meshseg failed on a generated mesh"; }
    awk -F'"rand_index_error":' 'NF == 2 { split($2, v, /[,}]/); e = v[1] + 0; found = 1 }
        END { exit !(found && e <= 0.05) }' "$dest/ms.json" \
      || { cat "$dest/ms.json"; fail "meshseg: no Rand Index error <= 0.05"; }
    grep -q '"faces":320,' "$dest/ms.json" || { cat "$dest/ms.json"; fail "meshseg: not 320 faces"; }
    ok "bin/meshseg: --help is its manual (sections, options); segments a 320-face mesh (Rand Index error <= 0.05)"
    ;;
  *) skip "meshseg not installed (not built, or -Dgpl=disabled)" "bin/meshseg" ;;
esac

# Python through the installed typelib
typelib=$(find "$dest" -name GstCudaVision-1.0.typelib)
find_python
if [ -n "$typelib" ] && [ -n "$py" ]; then
  GI_TYPELIB_PATH=$(dirname "$typelib") BUILD_DIR=/nonexistent \
    run_example "$py" "$src/examples/flow_mean.py" --frames 3 >"$dest/py" 2>"$dest/err" \
    || { cat "$dest/py" "$dest/err"; fail "flow_mean.py on the installation failed"; }
  [ "$(grep -c '^frame [12] grid 160x120 valid mean ' "$dest/py")" -eq 2 ] \
    || { cat "$dest/py"; fail "flow_mean.py on the installation: no valid frames"; }
  ok "flow_mean.py reads the flow meta through the installed typelib"
else
  skip "no typelib or no PyGObject" "Python through the installed typelib"
fi
summary examples-install
