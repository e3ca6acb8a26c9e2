#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""flow-peers.py: OpenCV's non-learned optical flow methods on cv-flow --eval folders.

    tools/dev/flow-peers.py DIR [DIR ...] [--methods dis,deepflow,rlof-ric,sparsetodense]
                            [--threads N]

Every DIR holds pairs in the Sintel/Middlebury layout (NAME/frame10.png, frame11.png,
flow10.flo), as `cv-flow --method epic --eval DIR` and `cv-mkpairs` use. For each
method, one table per DIR with the columns of `cv-flow --eval` (sequence, EPE,
AE(deg), >1px%, >3px%, >5px%, time(ms)) and a mean row; then one compact table
"EPE per pair" with a column per method, so the pairs compare at a glance.

The methods (OpenCV 4.6 with the contrib `optflow` module, default parameters
otherwise):
  dis            cv2.DISOpticalFlow_create(DISOPTICAL_FLOW_PRESET_MEDIUM), grey frames
  deepflow       cv2.optflow.createOptFlow_DeepFlow(), grey frames
  rlof-ric       cv2.optflow.calcOpticalFlowDenseRLOF(..., interp_type=INTERP_RIC),
                 colour frames
  sparsetodense  cv2.optflow.calcOpticalFlowSparseToDense (PyrLK matches + EPIC-style
                 interpolation), colour frames
A method the installed OpenCV lacks is reported and skipped.

EPE, AE and the outlier shares are cc_flow_compare's: over the pixels whose ground
truth is finite and below 1e9 in magnitude (occluded pixels included); the angular
error is the angle between (u, v, 1) and (u_gt, v_gt, 1). time(ms) is the flow call
alone (frames already loaded and converted), one run, OpenCV's default thread count
unless --threads is given.

Dependency: python3-opencv (Debian bookworm: OpenCV 4.6 with contrib, `apt-get install
python3-opencv`), run with Debian's /usr/bin/python3. An evaluation dependency for
developers only: neither the plugin nor CI's build uses it. Not installed.
"""
import argparse
import os
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("flow-peers.py: no cv2 module: apt-get install python3-opencv and run with "
             "/usr/bin/python3")

FLO_MAGIC = 202021.25


def read_flo(path):
    """Middlebury .flo: float 202021.25, int32 width, height, then w*h*2 float32."""
    with open(path, "rb") as f:
        magic = np.fromfile(f, np.float32, 1)
        if magic.size != 1 or magic[0] != np.float32(FLO_MAGIC):
            raise ValueError("%s: not a .flo file" % path)
        w, h = (int(v) for v in np.fromfile(f, np.int32, 2))
        data = np.fromfile(f, np.float32, w * h * 2)
    if data.size != w * h * 2:
        raise ValueError("%s: truncated" % path)
    return data.reshape(h, w, 2)


def compare(est, gt):
    """cc_flow_compare: EPE, AE (deg), shares over 1, 3, 5 px."""
    gu, gv = gt[..., 0].astype(np.float64), gt[..., 1].astype(np.float64)
    valid = np.isfinite(gu) & np.isfinite(gv) & (np.abs(gu) < 1e9) & (np.abs(gv) < 1e9)
    gu, gv = gu[valid], gv[valid]
    eu, ev = est[..., 0][valid].astype(np.float64), est[..., 1][valid].astype(np.float64)
    ok = np.isfinite(eu) & np.isfinite(ev)
    eu, ev = np.where(ok, eu, 0.0), np.where(ok, ev, 0.0)
    d = np.where(ok, np.hypot(eu - gu, ev - gv), np.hypot(gu, gv) + 1e3)
    c = (1.0 + eu * gu + ev * gv) / (np.sqrt(1.0 + eu * eu + ev * ev)
                                      * np.sqrt(1.0 + gu * gu + gv * gv))
    ang = np.where(ok, np.degrees(np.arccos(np.clip(c, -1.0, 1.0))), 180.0)
    return (d.mean(), ang.mean(), 100 * (d > 1).mean(), 100 * (d > 3).mean(),
            100 * (d > 5).mean())


def m_dis(a, b):
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    ga, gb = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)
    t = time.perf_counter()
    return dis.calc(ga, gb, None), time.perf_counter() - t


def m_deepflow(a, b):
    df = cv2.optflow.createOptFlow_DeepFlow()
    ga, gb = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)
    t = time.perf_counter()
    return df.calc(ga, gb, None), time.perf_counter() - t


def m_rlof_ric(a, b):
    t = time.perf_counter()
    f = cv2.optflow.calcOpticalFlowDenseRLOF(a, b, None, interp_type=cv2.optflow.INTERP_RIC)
    return f, time.perf_counter() - t


def m_sparsetodense(a, b):
    t = time.perf_counter()
    f = cv2.optflow.calcOpticalFlowSparseToDense(a, b, None)
    return f, time.perf_counter() - t


METHODS = [
    ("dis", "DIS-medium", m_dis, lambda: hasattr(cv2, "DISOpticalFlow_create")),
    ("deepflow", "DeepFlow", m_deepflow,
     lambda: hasattr(cv2, "optflow") and hasattr(cv2.optflow, "createOptFlow_DeepFlow")),
    ("rlof-ric", "RLOF+RIC", m_rlof_ric,
     lambda: hasattr(cv2, "optflow") and hasattr(cv2.optflow, "calcOpticalFlowDenseRLOF")
     and hasattr(cv2.optflow, "INTERP_RIC")),
    ("sparsetodense", "SparseToDense", m_sparsetodense,
     lambda: hasattr(cv2, "optflow")
     and hasattr(cv2.optflow, "calcOpticalFlowSparseToDense")),
]

HEAD = "%-14s %8s %8s %7s %7s %7s %9s" % ("sequence", "EPE", "AE(deg)", ">1px%", ">3px%",
                                           ">5px%", "time(ms)")
ROW = "%-14s %8.3f %8.2f %7.2f %7.2f %7.2f %9.2f"


def pairs_of(d):
    names = sorted(n for n in os.listdir(d)
                   if os.path.isfile(os.path.join(d, n, "flow10.flo")))
    if not names:
        sys.exit("flow-peers.py: no NAME/flow10.flo under %s" % d)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    ap.add_argument("--methods", default=",".join(m[0] for m in METHODS),
                    help="comma-separated subset of %s" % ", ".join(m[0] for m in METHODS))
    ap.add_argument("--threads", type=int, default=-1,
                    help="cv2.setNumThreads (default: OpenCV's own)")
    args = ap.parse_args()
    if args.threads >= 0:
        cv2.setNumThreads(args.threads)
    wanted = args.methods.split(",")
    unknown = [w for w in wanted if w not in [m[0] for m in METHODS]]
    if unknown:
        sys.exit("flow-peers.py: unknown method %s" % ", ".join(unknown))
    methods = []
    for key, label, fn, have in METHODS:
        if key not in wanted:
            continue
        if not have():
            print("%s: not in this OpenCV (%s): skipped" % (label, cv2.__version__))
            continue
        methods.append((key, label, fn))
    print("OpenCV %s, %d threads" % (cv2.__version__, cv2.getNumThreads()))
    epe = {}     # (dir, pair) -> {label: epe}
    for d in args.dirs:
        names = pairs_of(d)
        data = []
        for n in names:
            a = cv2.imread(os.path.join(d, n, "frame10.png"), cv2.IMREAD_COLOR)
            b = cv2.imread(os.path.join(d, n, "frame11.png"), cv2.IMREAD_COLOR)
            if a is None or b is None:
                sys.exit("flow-peers.py: cannot read the frames of %s/%s" % (d, n))
            data.append((n, a, b, read_flo(os.path.join(d, n, "flow10.flo"))))
        for key, label, fn in methods:
            print("\nmethod %s, %s" % (label, d))
            print(HEAD)
            rows = []
            for n, a, b, gt in data:
                flow, sec = fn(a, b)
                m = compare(flow, gt)
                rows.append(m + (1000 * sec,))
                print(ROW % ((n,) + rows[-1]))
                epe.setdefault((d, n), {})[label] = (m[0], 1000 * sec)
                sys.stdout.flush()
            print(ROW % (("mean",) + tuple(np.mean(rows, axis=0))))
    labels = [m[1] for m in methods]
    print("\nEPE per pair (time ms in brackets)")
    print("%-40s" % "pair" + "".join(" %22s" % l for l in labels))
    for d in args.dirs:
        for n in pairs_of(d):
            cells = epe[(d, n)]
            print("%-40s" % (os.path.basename(os.path.normpath(d)) + "/" + n)
                  + "".join(" %22s" % ("%.3f (%.0f)" % cells[l]) for l in labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
