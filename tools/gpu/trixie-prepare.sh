#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GStreamer 1.26 (Debian trixie) on the GPU machine, which runs another distribution
# (Ubuntu, glibc 2.39: trixie's libraries cannot travel loose like the 1.22 bundle).
# On this machine, as root, from the checkout root, after `tools/setup.sh test-trixie`
# made build-trixie/root: builds the project with CUDA against 1.26 inside that root
# (build-trixie/build126, sm_90 + PTX), then packs a minimal trixie root holding only
# what that build (tests and tools included), gst-launch-1.0/gst-inspect-1.0, nvcodec
# and a few plugins need at run time (about 25 MB xz):
#   bash tools/gpu/trixie-prepare.sh      -> .gstrt126/root126.tar.xz (carry ".gstrt126")
# On the GPU machine, tools/gpu/trixie-run.sh 'COMMAND' runs COMMAND in it.
set -euo pipefail
C=$(git rev-parse --show-toplevel); R=$C/build-trixie/root
[ -d "$R/usr" ] || { echo "no $R: run tools/setup.sh test-trixie first" >&2; exit 1; }
cuda=$(readlink -f /usr/local/cuda)
mnt() { mkdir -p "$2"; mountpoint -q "$2" || mount "${@:3}" "$1" "$2"; }
mnt proc $R/proc -t proc; mnt /dev $R/dev --bind; mnt $C $R/src --bind; mnt $cuda $R/usr/local/cuda --bind
trap 'for m in usr/local/cuda src dev proc; do umount -l $R/$m 2>/dev/null || true; done' EXIT
in_root() { chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 bash -c "$1"; }
B=/src/build-trixie/build126
in_root "cd /src && { [ -f $B/build.ninja ] || meson setup $B -Dbuildtype=release -Dcuda=enabled \
  -Dcuda-arch=sm_90,compute_90 >/tmp/setup126.log 2>&1 || { tail -30 /tmp/setup126.log; exit 1; }; } \
  && ninja -C $B >/tmp/ninja126.log 2>&1 || { tail -30 /tmp/ninja126.log; exit 1; }"
P=/usr/lib/x86_64-linux-gnu/gstreamer-1.0; plugins=""
for p in coreelements videotestsrc videoconvertscale app nvcodec imagefreeze multifile png rawparse \
    videoparsersbad isomp4 typefindfunctions playback debug videofilter videorate compositor autodetect \
    matroska analyticsoverlay pbtypes; do
  if [ -f $R$P/libgst$p.so ]; then plugins="$plugins $P/libgst$p.so"; fi
done
tools="/usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 /usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"
base="$(in_root 'dpkg -L bash coreutils grep sed mawk findutils diffutils libc-bin' | grep -E '^/(usr/)?s?bin/' | tr '\n' ' ')"
base="$base $(in_root 'dpkg -L libc6' | grep -E '\.so' | tr '\n' ' ')"   # libcuda needs libdl.so.2
elfs=$(cd $R && find src/build-trixie/build126 -type f \( -name '*.so*' -o -perm -u+x \) ! -path '*.p/*' \
  ! -path '*meson-*' ! -name '*.o' -printf '/%p ')
list=$(mktemp); for f in $tools $plugins $base $elfs; do echo "$f" >> $list; done
in_root "for f in $tools $plugins $base $elfs; do ldd \$f 2>/dev/null; done" \
  | awk '/=> \//{print $3} /^\s*\/lib64\//{print $1}' | grep -v -E 'libcuda\.so|libnvidia' | sort -u >> $list
echo /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 >> $list
O=$(mktemp -d); mkdir -p $O/usr/lib $O/usr/bin $O/usr/sbin $O/usr/lib64
for l in bin lib lib64 sbin; do if [ -L $R/$l ]; then cp -a $R/$l $O/; fi; done
sort -u $list | while read -r f; do
  if [ -e "$R$f" ] || [ -L "$R$f" ]; then
    (cd $R && cp -a --parents "${f#/}" $O/); t=$(readlink -f "$R$f"); t=${t#$R}
    if [ "$t" != "$f" ] && [ -e "$R$t" ]; then (cd $R && cp -a --parents "${t#/}" $O/); fi
  fi
done
mkdir -p $O/dev $O/proc $O/tmp $O/out $O/srcroot $O/usr/local/nvidia $O/usr/local/cuda $O/etc
cp $R/etc/passwd $R/etc/group $O/etc/
mkdir -p $O$B/media && cp -r $R$B/media/objects $R$B/media/objects.h264 $R$B/media/body.* $O$B/media/ 2>/dev/null || true   # the small media the tests name
find $O -type f \( -name '*.so*' -o -perm -u+x \) -exec strip --strip-debug {} \; 2>/dev/null || true
mkdir -p $C/.gstrt126; tar -C $O -cJf $C/.gstrt126/root126.tar.xz .; rm -rf $O $list
grep -qx '/.gstrt126/' $C/.git/info/exclude 2>/dev/null || echo '/.gstrt126/' >> $C/.git/info/exclude
echo "ready: $(du -sh $C/.gstrt126/root126.tar.xz | cut -f1) (carry .gstrt126; build at $B inside the root)"
