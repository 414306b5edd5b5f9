#!/usr/bin/env python3
"""Frame witnesses against real history: how often each witness that decides the
frame of `newText` (see src/tools/files/matching/frame.rs) speaks, and how often
what it says is the reading that gave the real next revision.

Input: the JSON lines `bench/edit-replay.py --trace FILE` appends (a binary built
with `cargo build --release --features frame-trace`): one per frame decision where
the two readings (newText in oldText's frame, or as written) give different files,
with each witness's say ("old", "file" or "-") and `truth`, the reading that gives
the expected file ("neither" when none does).

Output: per witness, how often it said old / file, and of those how many were
right and wrong (truth the other reading); then the decisions taken (right, wrong,
refused) overall. A witness with a wrong say on real history cannot decide alone.

Usage: bench/frame-witnesses.py TRACE.jsonl [--repos a,b] [--show WITNESS]
"""
import argparse
import collections
import json
import sys

WITNESSES = ["copies", "weak", "first", "first_unlike", "base", "brackets_raw", "between", "edge", "versions",
             "layout", "minimal", "inferred", "decided"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--repos", help="only these repositories (comma-separated)")
    ap.add_argument("--show", metavar="WITNESS", help="print the records where it was wrong")
    args = ap.parse_args()
    recs = [json.loads(l) for l in open(args.trace) if l.strip()]
    if args.repos:
        keep = set(args.repos.split(","))
        recs = [r for r in recs if r["repo"] in keep]
    decisive = [r for r in recs if r["truth"] in ("old", "file")]
    print(f"{len(recs)} decisions, {len(decisive)} with one right reading "
          f"({len(recs) - len(decisive)} neither)")
    print(f"{'witness':<14} {'spoke':>6} {'right':>6} {'wrong':>6}")
    for w in WITNESSES:
        said = [r for r in decisive if r.get(w, "-") != "-"]
        right = sum(1 for r in said if r[w] == r["truth"])
        print(f"{w:<14} {len(said):>6} {right:>6} {len(said) - right:>6}")
    print("copies split:", sum(1 for r in decisive if r["copies_split"]))
    if args.show:
        for r in decisive:
            if r.get(args.show, "-") not in ("-", r["truth"]):
                print("---", r["repo"], r["cls"], r["commit"], r["path"], "truth", r["truth"],
                      {w: r.get(w) for w in WITNESSES if r.get(w, "-") != "-"},
                      "possible", r["possible"], "plausible", r["plausible"],
                      "fits", r["fit_old"], r["fit_file"])
                print("  oldText:", json.dumps(r["old"])[:600])
                print("  newText:", json.dumps(r["new"])[:600])
    return 0


if __name__ == "__main__":
    sys.exit(main())
