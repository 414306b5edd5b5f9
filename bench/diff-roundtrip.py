#!/usr/bin/env python3
"""Diff round trip: every real revision pair's `indus-tool diff` applies exactly.

What it measures: whether the unified diff `indus-tool diff OLD NEW` prints for real
file revisions is a patch that the two patch tools in common use apply to OLD to get
NEW back, byte for byte, with the line numbers it states.

How: for each non-merge commit of each repository (all of the project's own commits
by default, the newest 300 of any other; bare mirrors allowed, everything goes
through `git --git-dir` and nothing is checked out) and each modified (status M)
text file -- binary, non-UTF-8 and over-1-MB files are left out, CRLF files stay in
-- the parent's blob and the commit's blob are written to a temp directory and
diffed with `$INDUS diff -U<context> before after` (exit 1 expected). The output is
then applied twice:

  GNU patch   `patch --batch --fuzz=0 --no-backup-if-mismatch --reject-file=- -i
              DIFF -o OUT COPY_OF_OLD` (the file operand, so header names do not
              matter);
  git apply   the `---`/`+++` header lines rewritten to `a/f` and `b/f`, OLD put at
              `f` in an empty directory outside any repository, `git apply -v
              --unsafe-paths --whitespace=nowarn` (plus --unidiff-zero for -U0).

A pair is ok when the diff exits 1, both tools succeed without reporting a hunk
applied at an offset (a wrong line number), and both results equal NEW. Failures are
counted per kind and the first few are printed (commit, path, the tool's message,
the first failing hunk header, and a short expected-vs-got diff for a mismatch).

Exit status: 0 when every pair is ok, 1 on any failure, 2 when the bench cannot run
(no `patch`, no binary, or the binary answered a usage error).

Usage: bench/diff-roundtrip.py [--repo PATH]... [--commits N] [--context N]
                               [--show-failures N] [--json]
Binary: $INDUS, default target/<host>/release/indus-tool under the repository top.
"""
import argparse
import concurrent.futures as cf
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitpairs import Repo, text_skip_reason  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["diff-error", "patch-fail", "patch-offset", "patch-mismatch",
         "git-fail", "git-offset", "git-mismatch"]
TIMEOUT = 60
HUNK_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def hunk_headers(diff):
    return [l for l in diff.split(b"\n") if l.startswith(b"@@ ")]


def hunk_by_number(diff, n):
    hs = hunk_headers(diff)
    return hs[n - 1].decode("utf-8", "replace") if 0 < n <= len(hs) else None


def hunk_by_old_line(diff, line):
    for h in hunk_headers(diff):
        m = HUNK_RE.match(h)
        if m and int(m.group(1)) == line:
            return h.decode("utf-8", "replace")
    return None


def git_headers(diff):
    """The diff with its file header lines (those before the first @@) renamed."""
    at = diff.find(b"\n@@ ")
    head, body = (diff[: at + 1], diff[at + 1:]) if at >= 0 else (b"", diff)
    out = []
    for line in head.split(b"\n")[:-1]:
        if line.startswith(b"--- "):
            line = b"--- a/f"
        elif line.startswith(b"+++ "):
            line = b"+++ b/f"
        out.append(line + b"\n")
    return b"".join(out) + body


def short_diff(expected, got, limit=12):
    e = expected.decode("utf-8", "replace").splitlines(keepends=True)
    g = got.decode("utf-8", "replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(e, g, "expected", "got", n=1))
    out = [l.rstrip("\n") if l.startswith(("---", "+++", "@@")) else l[0] + repr(l[1:])
           for l in lines[:limit]]
    if len(lines) > limit:
        out.append(f"... ({len(lines) - limit} more diff lines)")
    return "\n".join(out)


def run(cmd, cwd, env=None, stdin=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=TIMEOUT,
                           stdin=stdin)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b"timed out"


def roundtrip(indus, tmproot, context, old, new):
    """[(kind, message, hunk header, detail)] for one pair; empty when ok."""
    d = tempfile.mkdtemp(dir=tmproot)
    fails = []
    try:
        for name, data in (("before", old), ("after", new), ("copy", old)):
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        rc, diff, err = run([indus, "diff", f"-U{context}", "before", "after"], d)
        if rc != 1 or not diff:
            kind = "usage" if rc == 2 and b"Usage" in err else "diff-error"
            return [(kind, f"exit {rc}: " + (err or diff).decode("utf-8", "replace")[:300],
                     None, None)]
        dpath = os.path.join(d, "diff")
        with open(dpath, "wb") as f:
            f.write(diff)

        # GNU patch
        out = os.path.join(d, "patched")
        rc, so, se = run(["patch", "--batch", "--fuzz=0", "--no-backup-if-mismatch",
                          "--reject-file=-", "-i", dpath, "-o", out, "copy"], d)
        msg = (so + se).decode("utf-8", "replace")
        if rc != 0:
            m = re.search(r"Hunk #(\d+) FAILED", msg)
            fails.append(("patch-fail", msg.strip()[:400],
                          hunk_by_number(diff, int(m.group(1))) if m else None, None))
        elif "offset" in msg or "fuzz" in msg:
            m = re.search(r"Hunk #(\d+) succeeded", msg)
            fails.append(("patch-offset", msg.strip()[:400],
                          hunk_by_number(diff, int(m.group(1))) if m else None, None))
        if rc == 0:
            with open(out, "rb") as f:
                got = f.read()
            if got != new:
                fails.append(("patch-mismatch", "patch applied, result differs", None,
                              short_diff(new, got)))

        # git apply
        g = os.path.join(d, "g")
        os.mkdir(g)
        with open(os.path.join(g, "f"), "wb") as f:
            f.write(old)
        gpath = os.path.join(d, "git.patch")
        with open(gpath, "wb") as f:
            f.write(git_headers(diff))
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=d)
        env.pop("GIT_DIR", None)
        env.pop("GIT_WORK_TREE", None)
        cmd = ["git", "-c", "core.autocrlf=false", "apply", "-v", "--unsafe-paths",
               "--whitespace=nowarn"]
        if context == 0:
            cmd.append("--unidiff-zero")
        rc, so, se = run(cmd + [gpath], g, env=env)
        msg = (so + se).decode("utf-8", "replace")
        if rc != 0:
            m = re.search(r"patch failed: f:(\d+)", msg)
            fails.append(("git-fail", msg.strip()[:400],
                          hunk_by_old_line(diff, int(m.group(1))) if m else None, None))
        else:
            m = re.search(r"Hunk #(\d+) succeeded at \d+ \(offset", msg)
            if m:
                fails.append(("git-offset", msg.strip()[:400],
                              hunk_by_number(diff, int(m.group(1))), None))
            with open(os.path.join(g, "f"), "rb") as f:
                got = f.read()
            if got != new:
                fails.append(("git-mismatch", "git apply succeeded, result differs", None,
                              short_diff(new, got)))
        return fails
    finally:
        shutil.rmtree(d, ignore_errors=True)


def roundtrip_repo(repo, n_commits, args, indus, pool, tmproot, log):
    totals = {"commits": 0, "pairs": 0, "ok": 0, "crlf_pairs": 0, "skipped_files": {},
              **{k: 0 for k in KINDS}, "usage": 0}
    failures = []
    pending = []
    seq = 0

    def record(fut, meta):
        fails = fut.result()
        totals["pairs"] += 1
        if not fails:
            totals["ok"] += 1
        for kind in sorted({f[0] for f in fails}):
            totals[kind] += 1
        if fails:
            failures.append((meta, fails))

    def drain(limit):
        nonlocal pending
        while len(pending) > limit:
            done, _ = cf.wait([f for f, _ in pending], return_when=cf.FIRST_COMPLETED)
            keep = []
            for f, meta in pending:
                if f in done:
                    record(f, meta)
                else:
                    keep.append((f, meta))
            pending = keep

    commits = repo.commits(n_commits)
    for ci, commit in enumerate(commits):
        totals["commits"] += 1
        for old_sha, new_sha, path in repo.modified(commit):
            old, new = repo.blob(old_sha), repo.blob(new_sha)
            why = text_skip_reason(old, new, allow_cr=True)
            if why:
                totals["skipped_files"][why] = totals["skipped_files"].get(why, 0) + 1
                continue
            if b"\r" in old or b"\r" in new:
                totals["crlf_pairs"] += 1
            seq += 1
            meta = {"seq": seq, "commit": commit[:12], "path": path}
            pending.append((pool.submit(roundtrip, indus, tmproot, args.context, old, new), meta))
            drain(8)
        if log and (ci + 1) % 50 == 0:
            print(f"  {repo.name}: {ci + 1}/{len(commits)} commits", file=sys.stderr)
    drain(0)
    failures.sort(key=lambda f: f[0]["seq"])
    return totals, failures



def release_binary():
    """The release build: target/<host tuple>/release/indus-tool (the repository
    builds for its host tuple, see .cargo/config.toml)."""
    info = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
    host = next((l.split(": ", 1)[1] for l in info.splitlines() if l.startswith("host: ")), "")
    return os.path.join(TOP, "target", host, "release", "indus-tool")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", help="repository (bare allowed); repeatable")
    ap.add_argument("--commits", type=int, default=None,
                    help="newest N non-merge commits (default: all of the project's own "
                         "repository, 300 of others)")
    ap.add_argument("--context", type=int, default=3, help="diff context lines (3)")
    ap.add_argument("--show-failures", type=int, default=5, metavar="N",
                    help="print the first N failing pairs of each repository (5)")
    ap.add_argument("--json", action="store_true",
                    help="machine-readable summary on stdout (tables go to stderr)")
    args = ap.parse_args()

    if shutil.which("patch") is None:
        print("\n*** diff-roundtrip: GNU patch is not installed (apt-get install patch) ***\n",
              file=sys.stderr)
        return 2
    indus = os.environ.get("INDUS") or release_binary()
    if not os.path.isabs(indus) and os.sep in indus:
        indus = os.path.join(TOP, indus)
    if not (os.path.isfile(indus) and os.access(indus, os.X_OK)):
        print(f"diff-roundtrip: no executable binary at {indus} (set INDUS)", file=sys.stderr)
        return 2
    own = Repo(TOP, name="indus-tool")
    repos = [own]
    if args.repo:
        repos = [Repo(p) for p in args.repo]
        for r in repos:
            if r.gitdir == own.gitdir:
                r.name = own.name
    out = sys.stderr if args.json else sys.stdout
    t0 = time.monotonic()
    summary = {"binary": indus, "context": args.context, "repos": []}
    failed = usage = False
    with tempfile.TemporaryDirectory(prefix="diff-roundtrip.") as tmproot, \
            cf.ThreadPoolExecutor(max_workers=2) as pool:
        for repo in repos:
            n = args.commits if args.commits is not None else (
                None if repo.gitdir == own.gitdir else 300)
            r0 = time.monotonic()
            try:
                totals, failures = roundtrip_repo(repo, n, args, indus, pool, tmproot, True)
            finally:
                repo.close()
            wall = time.monotonic() - r0
            bad = totals["pairs"] - totals["ok"]
            sf = ", ".join(f"{k} {v}" for k, v in sorted(totals["skipped_files"].items())) or "none"
            print(f"\n== diff round trip: {repo.name} ({repo.gitdir}), -U{args.context}", file=out)
            print(f"commits {totals['commits']}, pairs {totals['pairs']} "
                  f"({totals['crlf_pairs']} with CR), skipped files: {sf}; wall {wall:.1f} s",
                  file=out)
            print(f"ok {totals['ok']}, failed {bad}: patch failures "
                  f"{totals['patch-fail'] + totals['patch-offset']} "
                  f"(offset {totals['patch-offset']}), git-apply failures "
                  f"{totals['git-fail'] + totals['git-offset']} (offset {totals['git-offset']}), "
                  f"mismatched output {totals['patch-mismatch'] + totals['git-mismatch']} "
                  f"(patch {totals['patch-mismatch']}, git {totals['git-mismatch']}), "
                  f"diff errors {totals['diff-error']}", file=out)
            if totals["usage"]:
                usage = True
                print(f"BENCH BUG: the binary answered {totals['usage']} diffs with a usage "
                      f"error (exit 2)", file=sys.stderr)
            for meta, fails in failures[: args.show_failures]:
                print(f"--- {meta['path']} @ {meta['commit']}", file=out)
                for kind, msg, hunk, detail in fails:
                    print(f"    {kind}: " + msg.replace("\n", "\n      "), file=out)
                    if hunk:
                        print(f"      first failing hunk: {hunk}", file=out)
                    if detail:
                        print("      " + detail.replace("\n", "\n      "), file=out)
            if bad:
                failed = True
            summary["repos"].append({"repo": repo.name, "gitdir": repo.gitdir,
                                     "wall_s": round(wall, 2), **totals, "failed": bad,
                                     "first_failures": [
                                         {**m, "fails": [{"kind": k, "message": s, "hunk": h}
                                                         for k, s, h, _ in fs]}
                                         for m, fs in failures[:20]]})
    summary["wall_s"] = round(time.monotonic() - t0, 2)
    print(f"\ntotal wall time {summary['wall_s']:.1f} s", file=out)
    if args.json:
        json.dump(summary, sys.stdout, indent=1)
        print()
    return 2 if usage else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
