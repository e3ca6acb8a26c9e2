#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The skipped test cases of a `meson test` run, one line per program and a total.

usage: tests/skip-summary.py [BUILD_DIR | TESTLOG.json]

Reads meson's log (BUILD_DIR/meson-logs/testlog*.json, the newest; a setup's run
writes testlog-SETUP.json) and each program's line from tests/common/cv_test_skip.h,

  cv-test core-refine: 4 of 11 cases skipped (3 no CUDA device, 1 no shared media)

and meson's SKIP results (exit 77: a program where nothing ran, e.g. a shell test
whose tools are missing). Prints nothing about programs that skipped nothing. Exits 0
whatever it finds (a report, not a gate); 2 when there is no log.
"""
import glob
import json
import os
import re
import sys

LINE = re.compile(r"^cv-test (\S+): (?:(\d+) of (\d+) cases skipped(.*)|all cases skipped(.*))$")
PART = re.compile(r"; (\d+) parts? of (?:a case|cases) skipped (\([^)]*\))")


def find_log(arg):
    if arg.endswith(".json"):
        return arg
    logs = glob.glob(os.path.join(arg, "meson-logs", "testlog*.json"))
    return max(logs, key=os.path.getmtime) if logs else None


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else "build"
    log = find_log(arg)
    if not log or not os.path.exists(log):
        print(f"skip-summary: no meson test log under {arg}")
        return 2
    rows = []          # (name, skipped, total, text)
    n_programs = n_cases = n_skipped = n_partly = n_whole = 0
    with open(log, encoding="utf-8", errors="replace") as f:
        for raw in f:
            try:
                t = json.loads(raw)
            except ValueError:
                continue
            n_programs += 1
            # "cudavision:core / core-apsp": the test's own name
            name, result = t.get("name", "?").split(" / ")[-1], t.get("result", "?")
            found = False
            for line in (t.get("stdout") or "").splitlines():
                m = LINE.match(line.strip())
                if not m:
                    continue
                found = True
                if m.group(5) is not None:            # a program with no case built
                    n_whole += 1
                    rows.append((name, "all", "?", "all cases skipped" + m.group(5)))
                    continue
                skipped, total, rest = int(m.group(2)), int(m.group(3)), m.group(4)
                n_cases += total
                n_skipped += skipped
                p = PART.search(rest)
                if p:
                    n_partly += int(p.group(1))
                if skipped == total:
                    n_whole += 1
                if skipped or p:
                    rows.append((name, skipped, total, line.split(": ", 1)[1]))
            if not found and result == "SKIP":
                n_whole += 1
                why = next((l for l in (t.get("stdout") or "").splitlines()
                            if l.startswith("SKIP")), "SKIP (exit 77)")
                rows.append((name, "all", "-", why))
    print(f"skipped test cases ({os.path.relpath(log)}):")
    width = max((len(r[0]) for r in rows), default=10)
    for name, _, _, text in sorted(rows):
        print(f"  {name:<{width}}  {text}")
    print(f"total: {n_skipped} of {n_cases} cases skipped, and {n_partly} parts of cases; "
          f"{n_whole} of {n_programs} test programs skipped whole")
    return 0


if __name__ == "__main__":
    sys.exit(main())
