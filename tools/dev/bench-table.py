#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print the README's performance table (markdown) from bench/results/*.json.

    tools/dev/bench-table.py [--results DIR] [--check FILE]

Each results file holds one benchmark on one date and machine:
{"benchmark", "date", "machine", "command", "method", ["notes"], "results": [records]}
where a record is a JSON object as the bench tools print it (flow-bench,
blockmatch-refine-bench, apsp-bench, cv-pipeline-bench, ...). A row of the table
names a benchmark and the fields its records must have; when several files hold the
same benchmark, the newest date wins (a new run supersedes an old one by adding a
file, not by editing one). --check FILE exits 1 when FILE does not contain the
generated table verbatim (e.g. README.md after a new results file).
"""

import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(results_dir):
    newest = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*.json"))):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for key in ("benchmark", "date", "machine", "results"):
            if key not in doc:
                sys.exit(f"{path}: no \"{key}\"")
        old = newest.get(doc["benchmark"])
        if old is None or doc["date"] >= old["date"]:
            doc["path"] = path
            newest[doc["benchmark"]] = doc
    return newest


class Table:
    def __init__(self, benches):
        self.benches = benches

    def rec(self, bench, **match):
        doc = self.benches.get(bench)
        if doc is None:
            sys.exit(f"no results file for benchmark {bench!r}")
        hits = [r for r in doc["results"]
                if all(r.get(k) == v for k, v in match.items())]
        if len(hits) != 1:
            sys.exit(f"{doc['path']}: {len(hits)} records match {match}, need 1")
        return hits[0]

    def val(self, bench, field, **match):
        return self.rec(bench, **match)[field]


def num(x, digits):
    """x rounded to digits decimals, thousands separated."""
    return f"{x:,.{digits}f}"


def rng(r, digits):
    """A record's kernel_ms_min..kernel_ms_max as 'a-b' (one value if equal)."""
    a, b = num(r["kernel_ms_min"], digits), num(r["kernel_ms_max"], digits)
    return a if a == b else f"{a}-{b}"


def rows(t):
    hd, uhd = dict(width=1920, height=1080), dict(width=3840, height=2160)

    def lk(size):
        return t.val("flow-kernels", "kernel_ms", algorithm="flow_lk",
                     backend="cuda", fb_check=False, **size)

    def bm(size):
        return t.val("flow-kernels", "kernel_ms", algorithm="blockmatch",
                     backend="cuda", **size)

    def refine(size, algorithm="refine"):
        return t.val("refine", "kernel_ms", run=1, algorithm=algorithm,
                     backend="cuda", **({"fb_check": False} if algorithm == "flow_lk" else {}),
                     **size)

    # the fast default of 2026-12-02, timed on the H200 lent that day (no H100 was)
    def epic(size):
        return t.val("epicflow-h200", "kernel_ms", algorithm="epic", preset="fast",
                     match_step=5, cell=5, k=24, outer=3, inner=10, omega=1.8, kappa=5,
                     refine_levels=2, geodesic="cooperative sweeps", scene="pair",
                     robust=5, rep=1, **size)

    def apsp(variant):
        return t.val("apsp", "kernel_ms", variant=variant, nodes=20480)

    def moct(size, n):
        return t.val("moctracker", "kernel_ms", backend="cuda", objects=n, **size)

    def moct_cpu(size, n):
        return t.rec("moctracker", backend="cpu", objects=n, **size)

    def lloyd(size, sites, start):
        return t.val("cvdmosaic", "total_ms", backend="cuda", centroid="privatized",
                     start=start, sites=sites, **size)

    def qc(size, backend="cuda"):
        return t.val("quadcut", "end_to_end_ms", backend=backend, input="cdnet",
                     certain=4, **({"threads": 16} if backend == "cpu" else {}), **size)

    ocv1 = t.val("moctracker", "kernel_ms", backend="opencv-cpu", objects=1)
    ocv128 = t.val("moctracker", "kernel_ms", backend="opencv-cpu", objects=128)
    cvd_pipe = t.rec("cvdmosaic", pipeline="cuda: upload ! cvdmosaic sites=20000 iterations=2 ! download")
    qc_pipe = t.rec("quadcut", pipeline="cuda: upload ! quadcut ! download")
    qc_share = t.val("quadcut", "nodes_share", backend="cuda", input="cdnet", certain=4, **hd)
    mesh = t.rec("meshseg", backend="cuda")

    return [
        ("cudaflowlk (5 levels, 3 iterations, 9x9)",
         f"{num(lk(hd), 3)} ms", f"{num(lk(uhd), 3)} ms", "≤ 1.0 / ≤ 4 ms"),
        ("cudablockmatch (16x16, radius 16, 4 levels)",
         f"{num(bm(hd), 3)} ms", f"{num(bm(uhd), 3)} ms", "≤ 0.5 ms"),
        ("variational refinement (3 levels, 5 x 30)",
         f"{num(refine(hd), 2)} ms", f"{num(refine(uhd), 2)} ms", "≤ 2 ms"),
        ("LK + refinement",
         f"{num(refine(hd) + refine(hd, 'flow_lk'), 2)} ms",
         f"{num(refine(uhd) + refine(uhd, 'flow_lk'), 2)} ms", "≤ 3 ms"),
        ("cudaflowepic, EpicFlow with the confidence, on an H200 (1024x436: "
         f"{num(epic(dict(width=1024, height=436)), 2)} ms, target ≤ 1.2 ms)",
         f"{num(epic(hd), 2)} ms", "", "≤ 4 ms"),
        ("APSP 20,480 nodes, directed / undirected",
         f"{num(apsp('directed'), 0)} / {num(apsp('undirected'), 0)} ms", "", "≤ 1 s"),
        ("moctracker reduction, 1 / 128 / 1024 objects",
         " / ".join(num(moct(hd, n), 4) for n in (1, 128, 1024)) + " ms",
         " / ".join(num(moct(uhd, n), 4) for n in (1, 128, 1024)) + " ms",
         "≤ 0.2 ms at 4K, 128; 1024 ≤ 1.5x 1"),
        ("moctracker, CPU backend, 16 threads of the GPU machine, 1 / 128 objects "
         f"(peer: OpenCV inRange + moments per colour, {num(ocv1, 1)} / {num(ocv128, 0)} ms at 1080p)",
         " / ".join(rng(moct_cpu(hd, n), 1) for n in (1, 128)) + " ms",
         " / ".join(rng(moct_cpu(uhd, n), 1) for n in (1, 128)) + " ms", ""),
        ("cvdmosaic Lloyd iteration, 20k sites (1080p) / 100k (4K), 1+JFA+2, warm start / cold",
         f"{num(lloyd(hd, 20000, 'warm'), 3)} / {num(lloyd(hd, 20000, 'cold'), 3)} ms",
         f"{num(lloyd(uhd, 100000, 'warm'), 3)} / {num(lloyd(uhd, 100000, 'cold'), 3)} ms",
         "≤ 0.3 / ≤ 1 ms"),
        ("cvdmosaic pipeline, `sites=20000 iterations=2`",
         f"{num(cvd_pipe['fps'], 0)} fps", "", "≥ 400 fps"),
        ("quadcut, end to end (device frame to composite written; `quadcut-bench --cdnet`, "
         f"leaves {num(100 * qc_share, 1)} % of pixels)",
         f"{num(qc(hd), 2)} ms", f"{num(qc(uhd), 2)} ms", "≤ 4 ms"),
        ("quadcut, CPU backend, 16 threads of the GPU machine",
         f"{num(qc(hd, 'cpu'), 1)} ms", f"{num(qc(uhd, 'cpu'), 1)} ms", ""),
        ("quadcut pipeline, `cudaupload ! quadcut ! cudadownload` (RGBA)",
         f"{num(qc_pipe['fps'], 0)} fps (element {num(qc_pipe['element_median_ms'], 2)} ms)",
         "", "≥ 200 fps"),
        (f"meshseg, {mesh['meshes']} PSB meshes (APSP on the GPU)",
         f"{num(mesh['total_s'], 1)} s in all", "", "≤ 60 s"),
    ]


def table(benches):
    lines = ["| algorithm | 1920x1080 | 3840x2160 | target |", "|---|---|---|---|"]
    lines += ["|" + "".join(f" {c} |" if c else " |" for c in r)
              for r in rows(Table(benches))]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--check", metavar="FILE",
                    help="exit 1 unless FILE contains the generated table")
    args = ap.parse_args()
    out = table(load(args.results))
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            if out not in f.read():
                sys.stdout.write(out)
                sys.exit(f"{args.check}: its performance table differs from the one above")
        return
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
