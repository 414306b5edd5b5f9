#!/usr/bin/env python3
"""Edit replay: real commits re-enacted as `indus-tool edit` calls.

What it measures: how often `edit` turns a file's old state into exactly the state a
real commit produced, when it is called the way a careful model would call it, and
when that call carries the small mistakes models make (stray trailing spaces, tabs vs
spaces, lost indentation, a copied `read` gutter, curly quotes).

How: for each of the newest N non-merge commits of each repository (bare mirrors
allowed: everything goes through `git --git-dir`, nothing is checked out) and each
modified (status M) text file -- binary, non-UTF-8, over-1-MB and CR-containing
files are left out -- the parent's blob is `old` and the commit's blob is `new`. The
line hunks between them come from `git diff -U0 --diff-algorithm=myers` on the two
blobs. Hunk k is replayed on `old` with hunks 1..k-1 already applied; the expected
result has hunks 1..k applied. Its edit call is built from whole lines: oldText = the
hunk's removed lines plus c context lines on each side, newText = the same context
plus the added lines, where c starts at 0 (1 for a pure insertion) and grows by one
up to 8 until oldText is non-blank and occurs exactly once in the current state;
hunks that never get there are skipped. The next hunk always starts from the
expected state, so one bad edit does not spoil the rest of the file.

Every hunk is tried once unperturbed (class `exact`) and once per perturbation class:

  trailing-space  lines with trailing blanks lose them, other non-empty lines gain
                  one space (both texts)
  tabs            leading tabs become 4 spaces in a tab-indented file, leading groups
                  of 4 spaces become tabs otherwise (both texts)
  dedent          oldText's common leading whitespace removed from oldText's lines
  first-line      oldText's first line loses its indentation (oldText of 2+ lines,
                  another of them non-blank, with an indented first line)
  gutter          every line prefixed by a `read` gutter, f"{n:>6}\\t", numbered from
                  the real line number of oldText's first line (both texts)
  typography      ' -> U+2019, " -> U+201D, " - " -> " U+2013 " on the context lines
                  (the lines around the hunk, present unchanged in both texts)

The two indentation slips are replayed in two conventions for newText, reported as
separate classes (`dedent/old-frame`, `dedent/file-indent`, `first-line/...`); the
expected result is the same real next revision in both:

  old-frame       newText written in oldText's frame: dedent also removes the prefix
                  from the newText lines that start with it, first-line also cuts
                  newText's first line
  file-indent     newText keeps the file's real indentation (the replacement a model
                  writes after reading the file; the convention codex's apply_patch,
                  opencode and Claude Code assume); only oldText carries the slip

A class counts for a hunk only when it changes oldText and the changed oldText does
not stand verbatim anywhere in the file but inside the hunk's own oldText; otherwise
the hunk is `n/a` for that class: an exact match elsewhere is the right reading for
any tool, so it proves nothing. (The occurrence inside the hunk's own place does not
make it n/a: cutting the first line's indentation always leaves such a substring, and
a tool that matches it there replaces text mid-line. --na-anywhere makes that one n/a
too.)

Files: every modified text file, or with --glob only those (and then the newest N
commits are the newest that touch such a file) whose path (or name, for a
glob without `/`) matches one of the globs (fnmatch: `*.go`, `src/*.py`), so one
language of a mixed repository can be replayed alone. A tab-indented file takes every
slip in tabs: its dedent and first-line cuts remove tabs, its `tabs` slip writes 4
spaces for each tab.

Each call gets a fresh temp directory holding the current state and a JSON input
file (`edit --json @FILE`); afterwards the file is compared with the expected state:
identical (exit 0, bytes equal), refused (exit 1, file untouched), wrong (exit 0 with
other bytes, or exit 1 with the file changed), crash (any other exit or a timeout).
A perturbation that destroys what the real edit needs (see lossy(): an added line's
own trailing spaces, a newText line less indented than the dedented frame can say)
leaves a call that no longer describes the commit, so no tool could be right; such
hunks are set aside for that class and counted in the `n/a lossy` column (a
file-indent newText is the real one: never lossy). A wrong edit that wrote newText
exactly as given in place of oldText's one occurrence (the slip carried into the
file, at the right place) is also counted as `verbatim`.
When the edit's JSON result carries a `match` key (which matching stage found
oldText), it is tallied per class. Calls run on a pool of 2 threads.

Peer column: the same call, on the same state, given to codex's `apply_patch` (the
native binary of the npm package @openai/codex, installed on first use into
--codex-dir, default ~/.cache/indus-tool-bench/codex; SKIPPED without npm or with
--no-peer). How the binary is found, invoked, and the edit written as a patch: see
bench/codex_peer.py. Its outcomes are classified the same way (exit 1 and the file
untouched: refused); `eol` counts its wrong edits that differ only by the final
newline it adds to a file without one. Its results never change the exit status.

Output: per repository, a markdown table: one row per class, the hunks tried, the
n/a counts, then indus-tool's and codex's identical / refused / wrong / crash.

Exit status: 0 when no class has a wrong or crashed indus-tool edit, 1 otherwise, 2
on a bench problem (missing binary, or a tool answered a usage error: exit 2).

Usage: bench/edit-replay.py [--repo PATH]... [--commits N] [--glob GLOB]...
                            [--per-class-files K]
                            [--show-wrong N] [--show-refused N] [--show-peer]
                            [--na-anywhere] [--json] [--no-peer] [--codex-dir DIR]
                            [--codex-bin PATH] [--codex-envelope context|minus-plus]
Binary: $INDUS, default target/<host>/release/indus-tool under the repository top.
"""
import argparse
import concurrent.futures as cf
import difflib
import fnmatch
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
from gitpairs import Repo, split_lines, text_skip_reason  # noqa: E402
import codex_peer  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The two indentation slips are replayed in two conventions for newText (see the
# docstring): "old-frame" perturbs newText like oldText, "file-indent" leaves it alone.
CLASSES = ["exact", "trailing-space", "tabs", "dedent/old-frame", "dedent/file-indent",
           "first-line/old-frame", "first-line/file-indent", "gutter", "typography"]
TOOLS = ["indus-tool", "codex"]
MAX_CONTEXT = 8
CALL_TIMEOUT = 60
HUNK_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


# ---------------------------------------------------------------- hunks and calls

def hunks_of(repo, old_sha, new_sha):
    """[(old_start, old_len, new_start, new_len)] as 0-based line indexes."""
    out = repo.git("diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv",
                   "--diff-algorithm=myers", old_sha, new_sha)
    hunks = []
    for line in out.split(b"\n"):
        m = HUNK_RE.match(line)
        if not m:
            continue
        a, b, c, d = (int(g) if g is not None else 1 for g in m.groups())
        os_ = a if b == 0 else a - 1  # a pure insertion names the line before it
        ns_ = c if d == 0 else c - 1
        hunks.append((os_, b, ns_, d))
    return hunks


def occurs_once(text, needle):
    i = text.find(needle)
    return i >= 0 and text.find(needle, i + 1) < 0


def occurs_elsewhere(text, needle, own_at, own_len):
    """Whether needle occurs in text anywhere but inside [own_at, own_at + own_len),
    the hunk's own oldText: there an exact match is what any tool takes, rightly.
    (Cutting the first line's indentation always leaves the slipped text inside the
    hunk's own place; a tool that matches it there replaces text mid-line.)"""
    i = text.find(needle)
    while i >= 0:
        if not (own_at <= i and i + len(needle) <= own_at + own_len):
            return True
        i = text.find(needle, i + 1)
    return False


def path_selected(path, globs):
    """Whether a file takes part: no --glob, or its path (a glob holding `/`) or its
    name (one without) matches one of them."""
    if not globs:
        return True
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(path if "/" in g else name, g) for g in globs)


def leading_ws(line):
    return line[: len(line) - len(line.lstrip(" \t"))]


def indents_with_tabs(state_lines):
    tabs = sum(1 for l in state_lines if l.startswith("\t"))
    spaces = sum(1 for l in state_lines if l.startswith(" ") and l.strip())
    return tabs > spaces


def p_trailing_space(old, new, ctx):
    def one(line):
        body, nl = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        if body.endswith((" ", "\t")):
            body = body.rstrip(" \t")
        elif body:
            body += " "
        return body + nl
    return ("".join(map(one, split_lines(old))), "".join(map(one, split_lines(new))))


def p_tabs(old, new, ctx):
    tabs = ctx["tabs"]

    def one(line):
        ws = leading_ws(line)
        ws2 = ws.replace("\t", "    ") if tabs else ws.replace("    ", "\t")
        return ws2 + line[len(ws):]
    return ("".join(map(one, split_lines(old))), "".join(map(one, split_lines(new))))


def p_dedent(old, new, ctx):
    lines = split_lines(old)
    prefix = os.path.commonprefix([leading_ws(l) for l in lines if l.strip()])
    if not prefix:
        return None

    def one(line):
        return line[len(prefix):] if line.startswith(prefix) else line
    return ("".join(map(one, lines)), "".join(map(one, split_lines(new))))


def p_first_line(old, new, ctx):
    lines = split_lines(old)
    # The class is a first line without the indentation "its other lines imply":
    # there must be another non-blank line to imply it. (One line and blank ones
    # cut this way is indistinguishable from a dedented one-line snippet.)
    if (len(lines) < 2 or not lines[0].strip() or not leading_ws(lines[0])
            or not any(l.strip() for l in lines[1:])):
        return None
    nlines = split_lines(new)
    if nlines:
        nlines[0] = nlines[0].lstrip(" \t")
    return (lines[0].lstrip(" \t") + "".join(lines[1:]), "".join(nlines))


def p_gutter(old, new, ctx):
    start = ctx["first_line_no"]

    def num(lines):
        return "".join(f"{start + i:>6}\t{l}" for i, l in enumerate(lines))
    return (num(split_lines(old)), num(split_lines(new)))


def p_typography(old, new, ctx):
    def curly(s):
        return s.replace("'", "\u2019").replace('"', "\u201d").replace(" - ", " \u2013 ")
    # The context lines: the first `lead` and last `trail` lines of both texts.
    lead, trail = ctx["lead"], ctx["trail"]

    def apply(lines):
        n = len(lines)
        return "".join(curly(l) if i < lead or i >= n - trail else l
                       for i, l in enumerate(lines))
    return (apply(split_lines(old)), apply(split_lines(new)))


def file_indent(perturb):
    """The file-indent convention of an indentation slip: oldText perturbed, newText as
    the file has it (the replacement a model writes after reading the file)."""
    def p(old, new, ctx):
        r = perturb(old, new, ctx)
        return None if r is None else (r[0], new)
    return p


def lossy(cls, old, new, ctx):
    """Whether the perturbation of (old, new) lost something no tool can restore from
    the call and the file, so that the expected bytes are not derivable: an added
    line's own trailing whitespace (trailing-space), a line whose whitespace alone
    the commit changed (trailing-space, tabs), a whitespace-only line of oldText
    that the slip empties while the commit's blank lines lack its whitespace
    (trailing-space and dedent, both conventions), a newText line outside the
    common prefix or a whitespace-only line inside it (dedent), a newText first line
    indented unlike oldText's (first-line), indentation already mixing tabs and spaces
    (tabs), context already holding curly quotes or dashes (typography). Such wrong
    hunks are not run for that class; the table counts them as `n/a lossy`.
    Otherwise a file-indent newText is the real one, never lossy."""
    olines, nlines = split_lines(old), split_lines(new)
    if cls.split("/")[0] in ("trailing-space", "dedent"):
        # A whitespace-only line of oldText ("  ") that the slip empties, where the
        # commit wrote its blank lines without that whitespace: the change the
        # commit made to it is whitespace the slip erased, in either convention.
        ws_only = {l for l in olines if l.strip() == "" and l.strip("\n") != ""}
        blanks = [l for l in nlines if l.strip() == ""]
        if any(w not in nlines for w in ws_only) and blanks:
            return True
    # The commit changed a line's whitespace alone (trailing blanks stripped, tabs
    # turned to spaces): the slip of that same whitespace leaves a call that no
    # longer says it.
    base_cls = cls.split("/")[0]
    removed = [l for l in olines if l not in nlines]
    added = [l for l in nlines if l not in olines]
    if base_cls == "trailing-space" and (
            {l.rstrip() for l in removed} & {l.rstrip() for l in added}):
        return True
    if base_cls == "tabs" and ({l.strip() for l in removed if l.strip()}
                               & {l.strip() for l in added if l.strip()}):
        return True
    if cls.endswith("/file-indent"):
        return False
    cls = cls.split("/")[0]
    if cls == "trailing-space":
        oset = set(olines)
        return any(l.rstrip("\n") != l.rstrip("\n").rstrip(" \t") and l not in oset
                   for l in nlines)
    if cls == "dedent":
        prefix = os.path.commonprefix([leading_ws(l) for l in olines if l.strip()])
        return any((l.strip() and not l.startswith(prefix))
                   or (not l.strip() and l.startswith(prefix)) for l in nlines)
    if cls == "first-line":
        return bool(nlines) and leading_ws(nlines[0]) != leading_ws(olines[0])
    if cls == "tabs":
        already = " " if ctx["tabs"] else "\t"
        return any(already in leading_ws(l) for l in olines + nlines)
    if cls == "typography":
        ctx_lines = olines[: ctx["lead"]] + olines[len(olines) - ctx["trail"]:]
        return any(ch in l for l in ctx_lines for ch in ("\u2019", "\u201d", " \u2013 "))
    return False


PERTURB = {
    "trailing-space": p_trailing_space,
    "tabs": p_tabs,
    "dedent/old-frame": p_dedent,
    "dedent/file-indent": file_indent(p_dedent),
    "first-line/old-frame": p_first_line,
    "first-line/file-indent": file_indent(p_first_line),
    "gutter": p_gutter,
    "typography": p_typography,
}


def replay_file(old_text, new_text, hunks):
    """Yields per hunk: ('skip', reason) or ('call', state, expected, oldText, newText, ctx)."""
    old, new = split_lines(old_text), split_lines(new_text)
    for os_, olen, ns_, nlen in hunks:
        state_lines = new[:ns_] + old[os_:]
        state = "".join(state_lines)
        expected = "".join(new[: ns_ + nlen] + old[os_ + olen:])
        removed, added = old[os_: os_ + olen], new[ns_: ns_ + nlen]
        c = 0 if olen else 1
        found = None
        while c <= MAX_CONTEXT:
            before = state_lines[max(0, ns_ - c): ns_]
            after = state_lines[ns_ + olen: ns_ + olen + c]
            old_t = "".join(before + removed + after)
            if old_t.strip() and occurs_once(state, old_t):
                found = (before, after, old_t)
                break
            c += 1
        if found is None:
            blank = not "".join(removed).strip() and not "".join(
                state_lines[max(0, ns_ - MAX_CONTEXT): ns_ + olen + MAX_CONTEXT]).strip()
            yield ("skip", "all-blank" if blank else "never unique")
            continue
        before, after, old_t = found
        new_t = "".join(before + added + after)
        ctx = {"first_line_no": ns_ - len(before) + 1, "tabs": indents_with_tabs(state_lines),
               "lead": len(before), "trail": len(after)}
        yield ("call", state, expected, old_t, new_t, ctx)


# ---------------------------------------------------------------- running the binary

def short_diff(expected, got, limit=40):
    lines = list(difflib.unified_diff(split_lines(expected), split_lines(got),
                                      "expected", "got", n=1))
    out = []
    for l in lines[:limit]:
        if l.startswith(("---", "+++", "@@")):
            out.append(l.rstrip("\n"))
        else:
            out.append(l[0] + repr(l[1:]))
    if len(lines) > limit:
        out.append(f"... ({len(lines) - limit} more diff lines)")
    return "\n".join(out)


def verbatim(state, old_t, new_t, got):
    """Whether `got` is the state with oldText's one occurrence replaced by newText as
    given (perturbation included): the slip applied literally, at the right place.
    A final newline added to a file without one is allowed (apply_patch adds it)."""
    if old_t not in state:
        return False
    lit = state.replace(old_t, new_t, 1).encode()
    return got == lit or (not lit.endswith(b"\n") and got == lit + b"\n")


def run_edit(indus, tmproot, name, state, expected, old_t, new_t, literal=None):
    d = tempfile.mkdtemp(dir=tmproot)
    try:
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(state.encode())
        jpath = os.path.join(d, ".input.json")
        with open(jpath, "w") as f:
            json.dump({"path": name, "oldText": old_t, "newText": new_t}, f)
        try:
            p = subprocess.run(
                [indus, "--format", "json", "--cwd", d, "edit", "--json", "@" + jpath],
                capture_output=True, timeout=CALL_TIMEOUT,
            )
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p, rc = None, "timeout"
        with open(path, "rb") as f:
            got = f.read()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    stdout = p.stdout.decode("utf-8", "replace") if p else ""
    stderr = p.stderr.decode("utf-8", "replace") if p else ""
    traces = []
    if "frame-trace " in stderr:
        kept = []
        for line in stderr.split("\n"):
            if line.startswith("frame-trace "):
                traces.append(frame_truth(json.loads(line[len("frame-trace "):]), state,
                                          expected))
            else:
                kept.append(line)
        stderr = "\n".join(kept)
    match, message = None, ""
    try:
        res = json.loads(stdout)
        out = res.get("output")
        if isinstance(out, str):
            message = out
        elif isinstance(out, list):
            for item in out:
                if item.get("kind") == "json" and isinstance(item.get("value"), dict):
                    match = item["value"].get("match")
                elif item.get("kind") == "text":
                    message = item.get("text", "")
    except (ValueError, AttributeError):
        message = (stdout + stderr).strip()[:300]
    exp_b = expected.encode()
    if rc == 0:
        status = "identical" if got == exp_b else "wrong"
    elif rc == 1:
        status = "refused" if got == state.encode() else "wrong"
        if status == "wrong":
            message = "exit 1 but the file changed: " + message
    elif rc == 2:
        status = "usage"
        message = (stderr or stdout).strip()[:500]
    else:
        status = "crash"
        message = f"exit {rc}: " + (stderr or stdout).strip()[-500:]
    detail = None
    if status == "wrong":
        detail = short_diff(expected, got.decode("utf-8", "replace"))
        if literal and verbatim(state, *literal, got):
            status = "wrong-verbatim"
    return status, match, message, detail, traces


def frame_truth(rec, state, expected):
    """A frame-trace record (a build with `--features frame-trace`) with `truth`: which
    of the two readings, written in, gives the expected file ("old", "file", or
    "neither"). Offsets are bytes of the file's text, a final newline added when it
    has none (the engine's view)."""
    hay = state.encode()
    exp = expected.encode()
    if hay and not hay.endswith(b"\n"):
        hay += b"\n"
        if not exp.endswith(b"\n"):
            exp += b"\n"
    s, e = rec["start"], rec["end"]
    truth = "neither"
    for frame, key in (("old", "old_text"), ("file", "file_text")):
        if hay[:s] + rec[key].encode() + hay[e:] == exp:
            truth = frame
    rec["truth"] = truth
    return rec


# ---------------------------------------------------------------- the run

def new_stats():
    return {c: {"hunks": 0, "identical": 0, "refused": 0, "wrong": 0, "wrong_verbatim": 0,
                "lossy": 0, "crash": 0, "na": 0, "match": {}} for c in CLASSES}


def new_peer_stats():
    return {c: {"hunks": 0, "identical": 0, "refused": 0, "wrong": 0, "wrong_verbatim": 0,
                "wrong_eol": 0, "crash": 0} for c in CLASSES}


def run_codex(peer, envelope_form, tmproot, name, state, expected, o2, n2, lead, trail,
              real_old):
    status, message, extra, got = codex_peer.run(peer["apply_patch"], tmproot, name, state,
                                                 expected, o2, n2, lead, trail, envelope_form)
    detail = None
    if status == "wrong" and got is not None:
        detail = short_diff(expected, got)
        if extra != "eol" and verbatim(state, real_old, n2, got.encode()):
            extra = "verbatim"
    return status, extra, message, detail


def replay_repo(repo, args, indus, peer, pool, tmproot, cases, log, trace_out):
    stats = new_stats()
    pstats = new_peer_stats() if peer else None
    totals = {"commits": 0, "files": 0, "hunks": 0, "skipped_files": {}, "skipped_hunks": {}}
    class_files = {c: 0 for c in CLASSES}
    pending = []
    seq = 0

    def record(fut, tool, cls, meta):
        if tool == "codex":
            status, extra, message, detail = fut.result()
            st = pstats[cls]
            st["hunks"] += 1
            if status == "usage":
                cases.append((meta["seq"], "usage", cls, meta, message, None, None, tool))
                st["crash"] += 1
                return
            st[status] += 1
            if extra == "eol":
                st["wrong_eol"] += 1
            elif extra == "verbatim":
                st["wrong_verbatim"] += 1
            if status in ("wrong", "crash", "refused"):
                note = {"eol": "only a final newline added",
                        "verbatim": "newText applied verbatim at oldText's place"}.get(extra)
                cases.append((meta["seq"], status, cls, meta, message, detail, note, tool))
            return
        status, match, message, detail, traces = fut.result()
        for t in traces:
            t.update(repo=repo.name, cls=cls, commit=meta["commit"], path=meta["path"],
                     old=meta["old"], new=meta["new"], status=status)
            trace_out.append(t)
        st = stats[cls]
        if status == "usage":
            cases.append((meta["seq"], "usage", cls, meta, message, None, match, tool))
            st["crash"] += 1
            st["hunks"] += 1
            return
        st["hunks"] += 1
        if status == "wrong-verbatim":
            st["wrong_verbatim"] += 1
            status = "wrong"
            message = "(newText applied verbatim at oldText's place) " + message
        st[status] += 1
        if match is not None and status in ("identical", "wrong"):
            m = st["match"].setdefault(match, {"identical": 0, "wrong": 0})
            m[status] += 1
        if status in ("wrong", "crash", "refused"):
            cases.append((meta["seq"], status, cls, meta, message, detail, match, tool))

    def drain(limit):
        nonlocal pending
        while len(pending) > limit:
            done, _ = cf.wait([p[0] for p in pending], return_when=cf.FIRST_COMPLETED)
            keep = []
            for f, tool, cls, meta in pending:
                if f in done:
                    record(f, tool, cls, meta)
                else:
                    keep.append((f, tool, cls, meta))
            pending = keep

    commits = repo.commits(args.commits, args.glob)
    for ci, commit in enumerate(commits):
        totals["commits"] += 1
        for old_sha, new_sha, path in repo.modified(commit):
            if not path_selected(path, args.glob):
                continue
            old_b, new_b = repo.blob(old_sha), repo.blob(new_sha)
            why = text_skip_reason(old_b, new_b, allow_cr=False)
            if why:
                totals["skipped_files"][why] = totals["skipped_files"].get(why, 0) + 1
                continue
            active = [c for c in CLASSES
                      if args.per_class_files is None or class_files[c] < args.per_class_files]
            if not active:
                continue
            totals["files"] += 1
            used = set()
            name = os.path.basename(path) or "file"
            for item in replay_file(old_b.decode(), new_b.decode(),
                                    hunks_of(repo, old_sha, new_sha)):
                totals["hunks"] += 1
                if item[0] == "skip":
                    totals["skipped_hunks"][item[1]] = totals["skipped_hunks"].get(item[1], 0) + 1
                    continue
                _, state, expected, old_t, new_t, ctx = item
                for cls in active:
                    if cls == "exact":
                        o2, n2 = old_t, new_t
                    else:
                        r = PERTURB[cls](old_t, new_t, ctx)
                        if r is None or r[0] == old_t or (
                                r[0] in state if args.na_anywhere
                                else occurs_elsewhere(state, r[0], state.find(old_t),
                                                      len(old_t))):
                            stats[cls]["na"] += 1
                            continue
                        o2, n2 = r
                    if cls != "exact" and lossy(cls, old_t, new_t, ctx):
                        # The perturbed call no longer says what the commit did.
                        stats[cls]["lossy"] += 1
                        continue
                    used.add(cls)
                    seq += 1
                    meta = {"seq": seq, "commit": commit[:12], "path": path,
                            "old": o2, "new": n2, "lossy": False}
                    fut = pool.submit(run_edit, indus, tmproot, name, state, expected, o2, n2,
                                      (old_t, n2))
                    pending.append((fut, "indus-tool", cls, meta))
                    if peer:
                        fut = pool.submit(run_codex, peer, args.codex_envelope, tmproot, name,
                                          state, expected, o2, n2, ctx["lead"], ctx["trail"],
                                          old_t)
                        pending.append((fut, "codex", cls, meta))
                    drain(8)
            for c in used:
                class_files[c] += 1
        if log and (ci + 1) % 25 == 0:
            print(f"  {repo.name}: {ci + 1}/{len(commits)} commits", file=sys.stderr)
    drain(0)
    for group in (stats, pstats or {}):
        for st in group.values():
            st["identical_pct"] = (round(100.0 * st["identical"] / st["hunks"], 2)
                                   if st["hunks"] else None)
    return stats, pstats, totals


def fmt_match(m):
    parts = []
    for stage, n in sorted(m.items(), key=lambda kv: -(kv[1]["identical"] + kv[1]["wrong"])):
        s = f"{stage} {n['identical'] + n['wrong']}"
        if n["wrong"]:
            s += f" ({n['wrong']} wrong)"
        parts.append(s)
    return ", ".join(parts) or "-"


def table(stats, pstats, peer_note):
    """One markdown table: the class, its hunks and n/a counts, then indus-tool's and
    codex apply_patch's outcomes on the same calls."""
    head = ["class", "hunks", "n/a", "n/a lossy",
            "indus identical", "indus refused", "indus wrong", "indus crash",
            "codex identical", "codex refused", "codex wrong", "codex crash"]
    rows = []
    for c in CLASSES:
        s = stats[c]
        pct = "" if s["identical_pct"] is None else f" ({s['identical_pct']:.1f}%)"
        row = [f"`{c}`", str(s["hunks"]), str(s["na"]), str(s["lossy"]),
               f"{s['identical']}{pct}", str(s["refused"]),
               str(s["wrong"]) + (f" ({s['wrong_verbatim']} verbatim)"
                                  if s["wrong_verbatim"] else ""), str(s["crash"])]
        if pstats is None:
            row += ["SKIPPED"] * 4
        else:
            p = pstats[c]
            assert p["hunks"] == s["hunks"], (c, p["hunks"], s["hunks"])
            ppct = "" if p["identical_pct"] is None else f" ({p['identical_pct']:.1f}%)"
            notes = [f"{p['wrong_verbatim']} verbatim"] if p["wrong_verbatim"] else []
            notes += [f"{p['wrong_eol']} eol"] if p["wrong_eol"] else []
            wrong = str(p["wrong"]) + (f" ({', '.join(notes)})" if notes else "")
            row += [f"{p['identical']}{ppct}", str(p["refused"]), wrong, str(p["crash"])]
        rows.append(row)
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]

    def fmt(r):
        return "| " + " | ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i])
                                 for i, x in enumerate(r)) + " |"
    sep = "|" + "|".join(("-" * (x + 1) + ":") if i else ("-" * (x + 2))
                         for i, x in enumerate(w)) + "|"
    out = [fmt(head), sep] + [fmt(r) for r in rows]
    out.append("")
    out.append("`verbatim`: wrong by writing newText exactly as given (the slip included) "
               "in place of oldText's one occurrence.")
    if peer_note:
        out.append(peer_note)
    matched = [(c, fmt_match(stats[c]["match"])) for c in CLASSES if stats[c]["match"]]
    if matched:
        out.append("")
        out.append("indus-tool matched by stage: " + "; ".join(f"`{c}` {m}" for c, m in matched))
    return "\n".join(out)


def show_text(label, text, limit=20):
    lines = split_lines(text)
    out = [f"    {label} ({len(lines)} lines):"]
    out += [f"      {l!r}" for l in lines[:limit]]
    if len(lines) > limit:
        out.append(f"      ... {len(lines) - limit} more")
    return "\n".join(out)


def show_cases(cases, kind, per_class, out, tool):
    shown = {}
    for seq, status, cls, meta, message, detail, match, t in sorted(cases, key=lambda c: c[0]):
        if t != tool or status not in kind or shown.get(cls, 0) >= per_class:
            continue
        shown[cls] = shown.get(cls, 0) + 1
        print(f"--- {tool}: {status} [{cls}] {meta['path']} @ {meta['commit']}"
              + (f" (match: {match})" if match else "")
              + (" (lossy perturbation)" if meta["lossy"] else ""), file=out)
        if message:
            print(f"    message: {message[:400]}", file=out)
        print(show_text("oldText", meta["old"]), file=out)
        print(show_text("newText", meta["new"]), file=out)
        if detail:
            print("    expected vs got:", file=out)
            print("\n".join("      " + l for l in detail.split("\n")), file=out)



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
    ap.add_argument("--commits", type=int, default=200, help="newest N non-merge commits (200)")
    ap.add_argument("--glob", action="append", metavar="GLOB",
                    help="replay only files whose path (or name, for a glob without /) "
                         "matches; repeatable (e.g. --glob '*.go')")
    ap.add_argument("--per-class-files", type=int, default=None, metavar="K",
                    help="stop trying a class once it has been applied in K files")
    ap.add_argument("--show-wrong", type=int, default=0, metavar="N",
                    help="print the first N wrong (and crashed) cases of each class")
    ap.add_argument("--show-refused", type=int, default=0, metavar="N",
                    help="print the first N refused cases of each class")
    ap.add_argument("--show-peer", action="store_true",
                    help="--show-wrong/--show-refused print codex's cases too")
    ap.add_argument("--na-anywhere", action="store_true",
                    help="count a class n/a when its oldText occurs anywhere in the file, "
                         "mid-line too (then first-line is always n/a)")
    ap.add_argument("--no-peer", action="store_true", help="leave out the codex column")
    ap.add_argument("--codex-dir", metavar="DIR",
                    default=os.environ.get("EDIT_REPLAY_CODEX_DIR"),
                    help="npm prefix holding (or to receive) @openai/codex; default "
                         "$EDIT_REPLAY_CODEX_DIR or " + codex_peer.default_dir())
    ap.add_argument("--codex-bin", metavar="PATH",
                    default=os.environ.get("EDIT_REPLAY_CODEX_BIN"),
                    help="the native codex binary to use as apply_patch (no npm); default "
                         "$EDIT_REPLAY_CODEX_BIN")
    ap.add_argument("--codex-envelope", choices=["context", "minus-plus"], default="context",
                    help="how the edit is written for apply_patch (see bench/codex_peer.py)")
    ap.add_argument("--trace", metavar="FILE",
                    help="append each frame decision's witnesses and the reading that was "
                         "right, one JSON line each (needs a binary built with "
                         "--features frame-trace; see bench/frame-witnesses.py)")
    ap.add_argument("--json", action="store_true",
                    help="machine-readable summary on stdout (tables go to stderr)")
    args = ap.parse_args()

    indus = os.environ.get("INDUS") or release_binary()
    if not os.path.isabs(indus) and os.sep in indus:
        indus = os.path.join(TOP, indus)
    if not (os.path.isfile(indus) and os.access(indus, os.X_OK)):
        print(f"edit-replay: no executable binary at {indus} (set INDUS)", file=sys.stderr)
        return 2
    out = sys.stderr if args.json else sys.stdout
    peer, peer_skip = None, "--no-peer"
    if not args.no_peer:
        peer, peer_skip = codex_peer.setup(args.codex_dir, args.codex_bin, log=sys.stderr)
    if peer:
        peer_note = (f"codex: apply_patch of @openai/codex {peer['version'] or '(version unknown)'}"
                     f" ({peer['binary']} run as `apply_patch`, patch on stdin, "
                     f"{args.codex_envelope} envelope); `eol`: wrong only by a final newline "
                     "apply_patch added to a file without one")
    else:
        peer_note = f"codex: SKIPPED ({peer_skip})"
    own = Repo(TOP, name="indus-tool")
    repos = [own]
    if args.repo:
        repos = [Repo(p) for p in args.repo]
        for r in repos:
            if r.gitdir == own.gitdir:
                r.name = own.name
    t0 = time.monotonic()
    summary = {"binary": indus, "repos": [],
               "peer": ({"tool": "codex apply_patch", "version": peer["version"],
                         "binary": peer["binary"], "envelope": args.codex_envelope}
                        if peer else {"tool": "codex apply_patch", "skipped": peer_skip})}
    any_wrong = usage = False
    traces = []
    with tempfile.TemporaryDirectory(prefix="edit-replay.") as tmproot, \
            cf.ThreadPoolExecutor(max_workers=2) as pool:
        for repo in repos:
            r0 = time.monotonic()
            cases = []
            try:
                stats, pstats, totals = replay_repo(repo, args, indus, peer, pool, tmproot,
                                                    cases, log=True, trace_out=traces)
            finally:
                repo.close()
            wall = time.monotonic() - r0
            for tool in TOOLS:
                usage_cases = [c for c in cases if c[1] == "usage" and c[7] == tool]
                if usage_cases:
                    usage = True
                    print(f"BENCH BUG: {tool} answered {len(usage_cases)} calls with a usage "
                          f"error (exit 2), first: {usage_cases[0][4]}", file=sys.stderr)
            sf = ", ".join(f"{k} {v}" for k, v in sorted(totals["skipped_files"].items())) or "none"
            sh = ", ".join(f"{k} {v}" for k, v in sorted(totals["skipped_hunks"].items())) or "none"
            print(f"\n## edit replay: {repo.name} ({repo.gitdir})\n", file=out)
            print(f"commits {totals['commits']}, files {totals['files']}, hunks {totals['hunks']}"
                  f"; skipped files: {sf}; skipped hunks: {sh}; wall {wall:.1f} s\n", file=out)
            print(table(stats, pstats, peer_note), file=out)
            tools = ["indus-tool"] + (["codex"] if peer and args.show_peer else [])
            for tool in tools:
                if args.show_wrong:
                    show_cases(cases, ("wrong", "crash", "usage"), args.show_wrong, out, tool)
                if args.show_refused:
                    show_cases(cases, ("refused",), args.show_refused, out, tool)
            if any(s["wrong"] or s["crash"] for s in stats.values()):
                any_wrong = True
            summary["repos"].append({"repo": repo.name, "gitdir": repo.gitdir,
                                     "wall_s": round(wall, 2), **totals, "classes": stats,
                                     "peer_classes": pstats})
    if args.trace:
        with open(args.trace, "a") as f:
            for t in traces:
                f.write(json.dumps(t) + "\n")
        print(f"{len(traces)} frame decisions appended to {args.trace}", file=out)
    summary["wall_s"] = round(time.monotonic() - t0, 2)
    print(f"\ntotal wall time {summary['wall_s']:.1f} s", file=out)
    if args.json:
        json.dump(summary, sys.stdout, indent=1)
        print()
    return 2 if usage else 1 if any_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
