#!/usr/bin/env python3
"""Patch replay: real commits re-enacted as multi-file patches given to
`indus-tool apply_patch`, to `git apply` and to codex's `apply_patch`.

What it measures: how often `apply_patch` turns a commit's parent into exactly the
commit, when the whole commit is handed over as one patch -- as the unified diff git
prints, as codex's `*** Begin Patch` envelope, and as that envelope carrying the
small slips models make in the lines a patch quotes from the file (stray trailing
spaces, tabs vs spaces, lost indentation, curly quotes).

Commits: for each --repo (an ordinary clone or a bare mirror: everything goes through
`git --git-dir`, nothing is checked out), the newest --commits N (40) non-merge
commits of HEAD's first-parent history, C against its parent P, that change at least
2 text files (a content change or a rename; a mode-only change does not count).
Commits touching a binary file (a NUL byte, or git printing "Binary files ...
differ"), a submodule, a symlink (or a type change), a non-UTF-8 file, a file over
1 MiB, or a path holding a tab or newline are passed over (and counted by reason on
the repository's header line); so are root commits.

The tree: each call gets a fresh temp directory holding only the paths the commit
touches (old and new paths of renames included), as P has them (exec bit included);
the expected tree is those paths as C has them (absent when deleted or renamed away).
After the call the whole directory is compared with the expected tree, file by file,
so a stray file (a backup, a .rej) counts as a mismatch; file modes are not compared.

Classes (rows of the table):

  unified         `git diff --no-color --no-ext-diff --no-textconv -M -U3
                  --diff-algorithm=myers P C`: the full commit diff with `diff --git`
                  headers, new/deleted file modes, renames (similarity index, rename
                  from/to), `\\ No newline at end of file`. Peer: `git apply PATCH` run
                  in the temp dir (not a git repository: GIT_CEILING_DIRECTORIES
                  stops discovery at the temp root, so git apply works as a plain patch
                  applier).
  envelope        the same commit written as a codex envelope by this script: an added
                  file is `*** Add File: P` and every line prefixed `+`; a deleted one
                  `*** Delete File: P`; a modified one `*** Update File: P`, a renamed
                  one `*** Update File: OLD` + `*** Move to: NEW`, then per hunk of the
                  diff above a line `@@` (or `@@ ANCHOR`, see --anchors) and the hunk's
                  lines as git printed them (' ', '-', '+'), followed by
                  `*** End of File` when the hunk's old side ends at the old file's last
                  line. The format has no `\\ No newline at end of file`: a file that
                  lacks a final newline before and after is written as it is (the
                  marker dropped; an applier keeps the file's state), but a commit
                  that adds or drops a final newline, or adds a file without one,
                  cannot be said and is n/a for every envelope class. A pure rename
                  is an Update with no hunk. Peer: codex's apply_patch with the same
                  envelope.
  trailing-space  the envelope with every context (' ') and removed ('-') line of every
                  hunk slipped (added lines never): lines with trailing blanks lose them,
                  other non-empty lines gain one space
  tabs            leading tabs become 4 spaces in a file indented mostly with tabs,
                  leading groups of 4 spaces become tabs otherwise (lossy when an
                  added line is already indented in the slipped style)
  dedent          per hunk, the common leading whitespace of its non-blank context and
                  removed lines is cut from them
  first-line      per hunk, the first non-blank context-or-removed line loses its
                  indentation
  typography      ' -> U+2019, " -> U+201D, " - " -> " U+2013 "
  dedent-all      dedent applied to every line of the hunk (context, removed and added
                  alike, the prefix still taken from the context and removed lines): a
                  model writing the whole hunk one level too shallow. A hunk with an
                  added non-blank line outside that prefix would be lossy (nothing could
                  restore it): such a commit is n/a (counted as `lossy` in n/a).

A slipped commit whose slipped hunk (its context and removed lines) stands verbatim,
as whole lines, at another place of its file is n/a for that class too (counted as
`slip stands elsewhere`): an exact match there is the right reading for any
applier, so it proves nothing.

A context line is one line of the envelope: its slip is applied once and the same
text stands for both sides. A slip that leaves a commit's envelope unchanged (nothing
to slip) makes that commit n/a for that class. Slips are given to indus-tool and
codex only (git apply takes no envelope).

--anchors (default `on`): git's hunk header carries, after the second `@@`, the
"function context" -- the nearest line before the hunk that starts with a letter, `_`
or `$` (or a diff driver's match), trailing blanks cut, truncated to 80 bytes, and
repeated from the previous hunk when none lies between. codex reads `@@ ANCHOR` as "the
next line matching ANCHOR, searched from the end of the previous hunk; the hunk comes
after it". `on` writes git's text when that line lies after the previous hunk's old
side and no line with the same text comes between (the whole line, indentation cut,
when git truncated it), a bare `@@` otherwise (the repeated and the out-of-reach
ones); `raw` always writes git's text as printed; `off` writes bare `@@` lines. The
header line counts anchors written and dropped. (With `raw`, codex 0.169.0 applied the
unslipped envelope of 3 of this repository's newest 40 commits and 32 of ripgrep's,
against 40 and 40 with `on`: it refuses an anchor git truncated or repeated from an
earlier hunk, and applies a hunk after a later copy of a repeated anchor line -- git's
text is not an anchor in codex's sense.)

Two notes under the table, for reading wrong envelope results: `ambiguous envelopes`
counts commits with a hunk whose context and removed lines occur (exactly) more than
once from where a reader may search (the previous hunk's end, or past the anchor line)
-- the envelope has no line numbers, so it does not say which copy is meant -- and
names those where the first copy is not the real place (a first-match reader such as
codex then edits the wrong copy, unless the copies are interchangeable); `CR-holding
files` names commits touching a file with a CR (codex reads its patch with
str::lines, which drops the CR of every CRLF line). Wrong and refused cases shown by
--show-wrong/--show-refused carry the same notes.

Outcome per (class, tool, commit): `identical` (exit 0 and the tree equals the
expected one), `refused` (exit 1 and the tree unchanged from P), `wrong` (exit 0 with a
mismatch, or exit 1 with the tree changed: a partial apply is wrong, for the peers
too), `crashed` (any other exit, or no answer within 60 s). A wrong codex result that
differs only by a final newline codex added (it always ends a file with one) is also
counted as `eol`.

Ambiguous envelopes are counted apart: a hunk whose lines occur more than once where
it may stand can only be guessed, and indus-tool refuses to guess (codex takes the
first copy). Per class, `ambiguous` counts the applicable commits whose envelope has
such a hunk; identical, refused, wrong and crashed, and the percentage, are over the
other applicable commits, and each tool's `on ambiguous` gives its
identical/refused/wrong-or-crashed on the ambiguous ones. The unified class has line
numbers: nothing in it is ambiguous.

Output: per repository a markdown table, one row per class: commits, n/a, ambiguous, then
indus-tool's, git apply's (unified only, `—` elsewhere) and codex's (envelope classes
only) identical (percent of the applicable commits that are not ambiguous) / refused /
wrong / crashed / on ambiguous.

Tools: indus-tool is $INDUS (default target/<host>/release/indus-tool under the repository
top), run as `indus-tool apply_patch PATCHFILE` with the patch file outside the tree.
git apply is `git` from PATH. codex is --codex (default /work/scratch/codex/apply_patch;
when that is missing, bench/codex_peer.py's install into its cache dir), reached via a
symlink named `apply_patch` (the multi-call binary dispatches on argv[0]) and given the
envelope on stdin (the same as `apply_patch "<envelope>"`, without Linux's 128 KiB
limit on one argument). --no-peer leaves both peers out. Calls run on a pool of 2.

--keep keeps the temp root (printed at the end): per commit a directory holding
`unified.diff` and `envelope-<class>.txt` (the exact texts given), and per call a
directory with `tree/` (the result), `patch` (what the tool got) and, for a call that
was not identical, `expected/` (C's files) and `outcome.txt`. --show-wrong N prints
the first N wrong or crashed indus-tool calls per class with the diff of expected vs
got (--show-peer: the peers' too; --show-refused N: refused calls and their messages).

Exit status: 0 when no indus-tool call was wrong or crashed, 1 otherwise, 2 on a
usage error (of this script, a missing binary, or indus-tool answering exit 2).

Usage: bench/patch-replay.py [--repo PATH]... [--commits N] [--no-peer] [--codex PATH]
                             [--anchors on|raw|off] [--show-wrong N] [--show-refused N]
                             [--show-peer] [--keep]
e.g.   bench/patch-replay.py --repo . --repo /work/.mirror/BurntSushi+ripgrep/repo
       INDUS=/bin/false bench/patch-replay.py --commits 10   # the peers' figures only
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
from gitpairs import Repo, pathspecs, split_lines  # noqa: E402
import codex_peer  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CODEX = "/work/scratch/codex/apply_patch"
SLIPS = ["trailing-space", "tabs", "dedent", "first-line", "typography", "dedent-all"]
ENVELOPE_CLASSES = ["envelope"] + SLIPS
CLASSES = ["unified"] + ENVELOPE_CLASSES
TOOLS = ["indus", "git", "codex"]
TOOL_NAMES = {"indus": "indus", "git": "git apply", "codex": "codex"}
OUTCOMES = ["identical", "refused", "wrong", "crashed"]
CALL_TIMEOUT = 60
MAX_BYTES = 1 << 20
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


def tools_of(cls):
    return ["indus", "git"] if cls == "unified" else ["indus", "codex"]


# ---------------------------------------------------------------- reading commits

def git_text(repo, *args):
    return repo.git("-c", "core.quotePath=false", *args)


# git pathspecs of --glob (bench/gitpairs.py's `pathspecs`): the commits, their
# files and their diffs are those paths only.
PATHSPECS = []


def diff_tree(repo, parent, commit):
    """[(status, old_mode, new_mode, old_sha, new_sha, old_path, new_path)] with -M."""
    raw = repo.git("diff-tree", "-r", "-z", "-M", "--no-commit-id", parent, commit,
                   "--", *PATHSPECS)
    parts = raw.split(b"\0")
    out, i = [], 0
    while i < len(parts):
        meta = parts[i]
        if not meta.startswith(b":"):
            i += 1
            continue
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].decode().split(" ")
        if status[0] in "RC":
            old_p, new_p = parts[i + 1], parts[i + 2]
            i += 3
        else:
            old_p = new_p = parts[i + 1]
            i += 2
        dec = lambda b: b.decode("utf-8", "surrogateescape")  # noqa: E731
        out.append((status[0], old_mode, new_mode, old_sha, new_sha, dec(old_p), dec(new_p)))
    return out


def unified_diff(repo, parent, commit):
    return git_text(repo, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M",
                    "-U3", "--diff-algorithm=myers", "--src-prefix=a/", "--dst-prefix=b/",
                    "--no-relative", parent, commit, "--", *PATHSPECS)


def split_sections(diff_text):
    """The unified diff cut at its `diff --git` lines (body lines never start so)."""
    sections, cur = [], None
    for line in diff_text.split("\n"):
        if line.startswith("diff --git "):
            cur = [line]
            sections.append(cur)
        elif cur is not None:
            cur.append(line)
    return sections


def parse_hunks(section):
    """[(old_start, old_count, new_start, new_count, func, [(tag, text)])] of one file's
    section, read by the counts of each header."""
    hunks, i = [], 0
    while i < len(section):
        m = HUNK_RE.match(section[i])
        if not m:
            i += 1
            continue
        a, b, c, d = (int(g) if g is not None else 1 for g in m.groups()[:4])
        func = m.group(5)
        i += 1
        lines, old_left, new_left = [], b, d
        while i < len(section) and (old_left > 0 or new_left > 0
                                    or section[i].startswith("\\")):
            line = section[i]
            tag, text = (line[0], line[1:]) if line else (" ", "")
            if tag == " ":
                old_left -= 1
                new_left -= 1
            elif tag == "-":
                old_left -= 1
            elif tag == "+":
                new_left -= 1
            elif tag != "\\":
                raise ValueError(f"unexpected line in hunk: {line[:60]!r}")
            lines.append((tag, text))
            i += 1
        hunks.append((a, b, c, d, func, lines))
    return hunks


def indents_with_tabs(lines):
    tabs = sum(1 for l in lines if l.startswith("\t"))
    spaces = sum(1 for l in lines if l.startswith(" ") and l.strip())
    return tabs > spaces


def place_anchor(old_lines, hunk_start0, prev_end0, func, mode):
    """The anchor text for a hunk (None for a bare `@@`), and whether git printed one.
    hunk_start0: 0-based index of the hunk's first old line; prev_end0: 0-based index
    after the previous hunk's old side."""
    if mode == "off" or not func:
        return None
    if mode == "raw":
        return func
    want = func.strip()
    for j in range(min(hunk_start0, len(old_lines)) - 1, -1, -1):
        s = old_lines[j].rstrip("\n").strip()
        if want and s.startswith(want):
            if j < prev_end0:
                return None  # codex searches from the previous hunk's end: out of reach
            text = func if s == want else s
            if any(old_lines[i].strip() == text.strip() for i in range(prev_end0, j)):
                return None  # the search from there would stop at an earlier copy
            return text
    return None


def hunk_ambiguous(old_lines, start0, anchor, pattern, true0):
    """None, "ambiguous" or "first-match misplaces": whether the hunk's old side
    (context and removed lines) occurs more than once in the old file from `start0` on
    (after the anchor line when there is one) -- the envelope then does not say where
    the hunk goes, it carries no line numbers -- and whether the first occurrence is
    not the hunk's real place (0-based `true0`), so that a reader taking the first
    match, as codex does, puts it elsewhere."""
    lines = [l.rstrip("\n") for l in old_lines]
    if anchor is not None:
        for i in range(start0, len(lines)):
            if lines[i].strip() == anchor.strip():
                start0 = i + 1
                break
    n = len(pattern)
    if n == 0:
        return None
    first = pattern[0]
    hits = [i for i in range(start0, len(lines) - n + 1)
            if lines[i] == first and lines[i:i + n] == pattern]
    if len(hits) < 2:
        return None
    return "ambiguous" if hits[0] == true0 else "first-match misplaces"


class Commit:
    """One replayable commit: its files before and after, its unified diff and the
    parts its envelope is built from."""

    def __init__(self, sha, parent):
        self.sha, self.parent = sha, parent
        self.before, self.after, self.modes = {}, {}, {}
        self.unified = ""
        self.ops = []          # envelope operations, see build_ops
        self.env_na = None     # why the envelope classes are n/a, or None
        self.anchors = [0, 0]  # written, dropped (git printed one)
        self.nfiles = 0
        self.nhunks = 0
        self.ambiguous = []    # "path@line" of hunks the envelope does not place
        self.misplaced = []    # the ambiguous ones whose first match is elsewhere
        self.has_cr = False    # a touched file holds a CR


def load_commit(repo, sha, parent, anchors):
    """A Commit, or (None, reason) when it is passed over."""
    entries = diff_tree(repo, parent, sha)
    if not entries:
        return None, "empty"
    cm = Commit(sha, parent)
    cm.repo = repo.name
    text_files = 0
    for st, om, nm, osha, nsha, op, np_ in entries:
        for mode in (om, nm):
            if mode == "160000":
                return None, "submodule"
            if mode == "120000":
                return None, "symlink"
        if st == "T":
            return None, "type change"
        if any(ch in p for p in (op, np_) for ch in "\t\n"):
            return None, "odd path"
        if st in "MR" and (osha != nsha or op != np_) or st in "AD":
            text_files += 1
        for side, m, s, p in (("before", om, osha, op), ("after", nm, nsha, np_)):
            if set(s) == {"0"}:
                continue
            data = repo.blob(s)
            if len(data) > MAX_BYTES:
                return None, "over 1 MiB"
            if b"\0" in data:
                return None, "binary"
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None, "not UTF-8"
            getattr(cm, side)[p] = data
            cm.has_cr = cm.has_cr or b"\r" in data
            if side == "before":
                cm.modes[p] = m
    if text_files < 2:
        return None, "fewer than 2 files"
    cm.nfiles = text_files
    cm.unified = unified_diff(repo, parent, sha).decode("utf-8", "surrogateescape")
    sections = split_sections(cm.unified)
    if len(sections) != len(entries):
        return None, "diff sections"
    for sec in sections:
        if any(l.startswith(("Binary files ", "GIT binary patch")) for l in sec[:8]):
            return None, "binary"
    try:
        build_ops(cm, entries, sections, anchors)
    except ValueError:
        return None, "diff parse"
    return cm, None


def build_ops(cm, entries, sections, anchors):
    """The envelope's operations, unslipped:
    ("add", path, [lines]) | ("delete", path) |
    ("update", path, move_to or None, [chunk], tabs) with chunk =
    {"anchor": str|None, "lines": [(tag, text)], "eof": bool}."""
    for (st, om, nm, osha, nsha, op, np_), sec in zip(entries, sections):
        if st == "A":
            text = cm.after[np_].decode()
            if text and not text.endswith("\n"):
                cm.env_na = "no final newline"
            cm.ops.append(("add", np_, [l.rstrip("\n") for l in split_lines(text)]))
            continue
        if st == "D":
            cm.ops.append(("delete", op))
            continue
        hunks = parse_hunks(sec)
        if st == "M" and not hunks:
            continue  # a mode-only change: nothing an envelope says
        old_text = cm.before[op].decode()
        old_lines = split_lines(old_text)
        chunks, prev_end0 = [], 0
        for a, b, c, d, func, lines in hunks:
            cm.nhunks += 1
            if any(tag == "\\" for tag, _ in lines) and (
                    cm.before[op].endswith(b"\n") != cm.after[np_].endswith(b"\n")):
                # The envelope cannot say "add (or drop) the final newline"; a file
                # that lacks one before and after is said (the state is kept).
                cm.env_na = "final newline changed"
            start0 = a - 1 if b else a
            anchor = place_anchor(old_lines, start0, prev_end0, func, anchors)
            if func:
                cm.anchors[0 if anchor is not None else 1] += 1
            amb = hunk_ambiguous(old_lines, prev_end0, anchor,
                                 [x for t, x in lines if t in " -"], start0)
            if amb:
                cm.ambiguous.append(f"{op}@{a}")
            if amb == "first-match misplaces":
                cm.misplaced.append(f"{op}@{a}")
            chunks.append({"anchor": anchor, "start0": start0,
                           "lines": [(t, x) for t, x in lines if t != "\\"],
                           "eof": b > 0 and a + b - 1 == len(old_lines)})
            prev_end0 = start0 + b
        tabs = indents_with_tabs(old_lines)
        cm.ops.append(("update", op, np_ if np_ != op else None, chunks, tabs))


def render(ops):
    out = ["*** Begin Patch"]
    for op in ops:
        if op[0] == "add":
            out.append(f"*** Add File: {op[1]}")
            out += ["+" + l for l in op[2]]
        elif op[0] == "delete":
            out.append(f"*** Delete File: {op[1]}")
        else:
            _, path, move, chunks, _ = op
            out.append(f"*** Update File: {path}")
            if move:
                out.append(f"*** Move to: {move}")
            for ch in chunks:
                out.append("@@" if ch["anchor"] is None else "@@ " + ch["anchor"])
                out += [t + x for t, x in ch["lines"]]
                if ch["eof"]:
                    out.append("*** End of File")
    out.append("*** End Patch")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- slips

def leading_ws(s):
    return s[: len(s) - len(s.lstrip(" \t"))]


def s_trailing_space(text, tabs):
    if text.endswith((" ", "\t")):
        return text.rstrip(" \t")
    return text + " " if text else text


def s_tabs(text, tabs):
    ws = leading_ws(text)
    return (ws.replace("\t", "    ") if tabs else ws.replace("    ", "\t")) + text[len(ws):]


def s_typography(text, tabs):
    return text.replace("'", "\u2019").replace('"', "\u201d").replace(" - ", " \u2013 ")


LINE_SLIPS = {"trailing-space": s_trailing_space, "tabs": s_tabs, "typography": s_typography}


def slip_chunk(cls, lines, tabs):
    """(new lines, lossy) for one hunk's [(tag, text)]."""
    if cls in LINE_SLIPS:
        f = LINE_SLIPS[cls]
        # The tabs slip writes the context in the style an added line already
        # has (spaces in a tab-indented file, or the other way): whether the
        # added line's own indentation was slipped too no longer shows. Lossy.
        other = " " if tabs else "\t"
        lossy = cls == "tabs" and any(t == "+" and other in leading_ws(x) for t, x in lines)
        return [(t, x if t == "+" else f(x, tabs)) for t, x in lines], lossy
    if cls == "first-line":
        out, done = [], False
        for t, x in lines:
            if not done and t != "+" and x.strip():
                x, done = x.lstrip(" \t"), True
            out.append((t, x))
        return out, False
    if cls in ("dedent", "dedent-all"):
        prefix = os.path.commonprefix([leading_ws(x) for t, x in lines
                                       if t != "+" and x.strip()])
        if not prefix:
            return lines, False
        # An added line outside the prefix, or an added line of blanks alone
        # (which the cut shortens, and no reading can lengthen again).
        lossy = cls == "dedent-all" and any(
            t == "+" and ((x.strip() and not x.startswith(prefix))
                          or (not x.strip() and x.startswith(prefix) and x))
            for t, x in lines)
        return [(t, x[len(prefix):] if (t != "+" or cls == "dedent-all")
                 and x.startswith(prefix) else x) for t, x in lines], lossy
    raise KeyError(cls)


def slip_ops(cls, ops, before=None):
    """(slipped ops, lossy, elsewhere): `elsewhere` names a hunk whose slipped old
    side (context and removed lines) stands verbatim, as whole lines, in the file
    (`before`: path -> bytes) at another place than its own -- an exact match there
    is the right reading for any applier, so such a call proves nothing."""
    out, lossy, elsewhere = [], False, None
    for op in ops:
        if op[0] != "update":
            out.append(op)
            continue
        _, path, move, chunks, tabs = op
        new_chunks = []
        file_lines = None
        for ch in chunks:
            lines, l2 = slip_chunk(cls, ch["lines"], tabs)
            lossy = lossy or l2
            new_chunks.append(dict(ch, lines=lines))
            old_side = [x for t, x in lines if t != "+"]
            if before is None or not old_side or old_side == [x for t, x in ch["lines"]
                                                              if t != "+"]:
                continue
            if file_lines is None:
                file_lines = [l.rstrip("\n") for l in
                              split_lines(before[path].decode("utf-8", "replace"))]
            n = len(old_side)
            if any(file_lines[i:i + n] == old_side for i in range(len(file_lines) - n + 1)
                   if i != ch["start0"]):
                elsewhere = elsewhere or f"{path}@{ch['start0'] + 1}"
        out.append(("update", path, move, new_chunks, tabs))
    return out, lossy, elsewhere


def patches_of(cm):
    """{class: patch text or ("n/a", reason)}."""
    res = {"unified": cm.unified}
    base = render(cm.ops)
    for cls in ENVELOPE_CLASSES:
        if cm.env_na:
            res[cls] = ("n/a", cm.env_na)
            continue
        if cls == "envelope":
            res[cls] = base
            continue
        ops, lossy, elsewhere = slip_ops(cls, cm.ops, cm.before)
        text = render(ops)
        if text == base:
            res[cls] = ("n/a", "nothing to slip")
        elif lossy:
            res[cls] = ("n/a", "lossy")
        elif elsewhere:
            res[cls] = ("n/a", "slip stands elsewhere")
        else:
            res[cls] = text
    return res


# ---------------------------------------------------------------- running the tools

def materialize(root, files, modes):
    for path, data in files.items():
        p = os.path.join(root, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        if modes.get(path) == "100755":
            os.chmod(p, 0o755)


def snapshot(root):
    got = {}
    for d, dirs, files in os.walk(root):
        # indus-tool's state folder (its journal lives there) is not the tree.
        if d == root and ".indus-process" in dirs:
            dirs.remove(".indus-process")
        for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                got[rel] = ("symlink", os.readlink(p))
            else:
                with open(p, "rb") as f:
                    got[rel] = f.read()
    return got


def tree_diff(expected, got, limit=40):
    out = []
    for path in sorted(set(expected) | set(got)):
        e, g = expected.get(path), got.get(path)
        if e == g:
            continue
        if e is None:
            out.append(f"  {path}: unexpected file ({len(g) if isinstance(g, bytes) else g})")
        elif g is None:
            out.append(f"  {path}: missing")
        elif not isinstance(g, bytes):
            out.append(f"  {path}: {g}")
        else:
            es, gs = e.decode("utf-8", "replace"), g.decode("utf-8", "replace")
            lines = list(difflib.unified_diff(split_lines(es), split_lines(gs),
                                              f"expected/{path}", f"got/{path}", n=1))
            out.append(f"  {path}: differs")
            for l in lines[:limit]:
                out.append("    " + (l.rstrip("\n") if l.startswith(("---", "+++", "@@"))
                                     else l[0] + repr(l[1:])))
            if len(lines) > limit:
                out.append(f"    ... ({len(lines) - limit} more diff lines)")
    return "\n".join(out)


# Frame decisions traced by a binary built with `--features frame-trace` (--trace).
TRACES = []


def take_traces(err, cls, cm):
    """Moves the frame-trace lines of `err` to TRACES, each with `truth`: the reading
    whose text stands in the commit's files while the other's does not ("neither"
    otherwise); returns the rest of `err`."""
    rest = []
    for line in err.split("\n"):
        if not line.startswith("frame-trace "):
            rest.append(line)
            continue
        rec = json.loads(line[len("frame-trace "):])
        found = {k: any(rec[k].encode() in data for data in cm.after.values()
                        if isinstance(data, bytes))
                 for k in ("old_text", "file_text")}
        rec["truth"] = ("old" if found["old_text"] and not found["file_text"] else
                        "file" if found["file_text"] and not found["old_text"] else "neither")
        rec.update(repo=cm.repo, cls=cls, commit=cm.sha[:12], path="", old="", new="")
        TRACES.append(rec)
    return "\n".join(rest)


def run_call(job):
    """Runs one (commit, class, tool) call; returns (outcome, message, detail, extra)."""
    tool, cls, cm, patch, cmd, env, jobdir, keep = job
    tree = os.path.join(jobdir, "tree")
    os.makedirs(tree)
    materialize(tree, cm.before, cm.modes)
    pfile = os.path.join(jobdir, "patch")
    with open(pfile, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(patch)
    argv = {"indus": [cmd, "apply_patch", pfile], "git": [cmd, "apply", pfile],
            "codex": [cmd]}[tool]
    try:
        p = subprocess.run(argv, cwd=tree, env=env, capture_output=True, timeout=CALL_TIMEOUT,
                           input=patch.encode("utf-8", "surrogateescape")
                           if tool == "codex" else None)
        rc = p.returncode
        err = p.stderr.decode("utf-8", "replace")
        if tool == "indus" and "frame-trace " in err:
            err = take_traces(err, cls, cm)
        msg = (err + p.stdout.decode("utf-8", "replace")).strip()
    except subprocess.TimeoutExpired:
        rc, msg = "timeout", f"no answer within {CALL_TIMEOUT} s"
    got = snapshot(tree)
    extra = None
    if rc == 0:
        outcome = "identical" if got == cm.after else "wrong"
    elif rc == 1:
        outcome = "refused" if got == cm.before else "wrong"
        if outcome == "wrong":
            msg = "exit 1 but the tree changed: " + msg
    else:
        outcome = "crashed"
        if rc == 2:
            extra = "usage"
        msg = f"exit {rc}: " + msg[-600:]
    detail = None
    if outcome == "wrong":
        detail = tree_diff(cm.after, got)
        if tool == "codex" and eol_only(cm.after, got):
            extra = "eol"
    if keep:
        if outcome != "identical":
            materialize(os.path.join(jobdir, "expected"), cm.after, {})
            with open(os.path.join(jobdir, "outcome.txt"), "w") as f:
                f.write(f"{TOOL_NAMES[tool]} [{cls}] {cm.sha}: {outcome} (exit {rc})\n{msg}\n"
                        + (f"\n{detail}\n" if detail else ""))
    else:
        shutil.rmtree(jobdir, ignore_errors=True)
    return outcome, msg[:1500], detail, extra


def eol_only(expected, got):
    """Whether got differs from expected only by final newlines added to files."""
    if set(expected) != set(got):
        return False
    diff = [p for p in expected if expected[p] != got[p]]
    return bool(diff) and all(isinstance(got[p], bytes) and got[p] == expected[p] + b"\n"
                              for p in diff)


# ---------------------------------------------------------------- the run

def select_commits(repo, n, anchors, log):
    """Yields Commit objects (at most n); fills `skipped` with reasons."""
    skipped = {}
    proc = subprocess.Popen(["git", "--git-dir", repo.gitdir, "log", "--first-parent",
                             "--no-merges", "--format=%H %P", "HEAD", "--", *PATHSPECS],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    chosen, scanned = [], 0
    try:
        for line in proc.stdout:
            parts = line.split()
            if not parts:
                continue
            scanned += 1
            if len(parts) < 2:
                skipped["root"] = skipped.get("root", 0) + 1
                continue
            cm, why = load_commit(repo, parts[0], parts[1], anchors)
            if cm is None:
                skipped[why] = skipped.get(why, 0) + 1
                continue
            chosen.append(cm)
            if len(chosen) >= n:
                break
    finally:
        proc.stdout.close()
        proc.kill()
        proc.wait()
    return chosen, scanned, skipped


def new_stats():
    return {c: {"na": 0, "na_why": {}, "amb": 0,
                **{t: {**{o: 0 for o in OUTCOMES + ["eol"]}, "amb": {o: 0 for o in OUTCOMES}}
                   for t in TOOLS}} for c in CLASSES}


def replay_repo(repo, args, tools, pool, tmproot, cases):
    t0 = time.monotonic()
    commits, scanned, skipped = select_commits(repo, args.commits, args.anchors, sys.stderr)
    print(f"  {repo.name}: {len(commits)} commits chosen of {scanned} scanned "
          f"({time.monotonic() - t0:.1f} s)", file=sys.stderr)
    stats = new_stats()
    env = {k: v for k, v in os.environ.items()
           if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX")}
    env["GIT_CEILING_DIRECTORIES"] = tmproot
    futs = []
    rdir = tempfile.mkdtemp(dir=tmproot, prefix=re.sub(r"[^\w.-]", "_", repo.name) + ".")
    for ci, cm in enumerate(commits):
        cdir = os.path.join(rdir, cm.sha[:12])
        os.makedirs(cdir)
        patches = patches_of(cm)
        if args.keep:
            with open(os.path.join(cdir, "unified.diff"), "w", encoding="utf-8",
                      errors="surrogateescape") as f:
                f.write(cm.unified)
        for cls in CLASSES:
            patch = patches[cls]
            if isinstance(patch, tuple):
                stats[cls]["na"] += 1
                why = stats[cls]["na_why"]
                why[patch[1]] = why.get(patch[1], 0) + 1
                continue
            if cls != "unified" and cm.ambiguous:
                stats[cls]["amb"] += 1
            if args.keep and cls != "unified":
                with open(os.path.join(cdir, f"envelope-{cls}.txt"), "w", encoding="utf-8",
                          errors="surrogateescape") as f:
                    f.write(patch)
            for tool in tools_of(cls):
                if tool not in tools:
                    continue
                jobdir = os.path.join(cdir, f"{cls}.{tool}")
                os.makedirs(jobdir)
                job = (tool, cls, cm, patch, tools[tool], env, jobdir, args.keep)
                futs.append((pool.submit(run_call, job), ci, tool, cls, cm, jobdir))
    done_commits = set()
    for k, (fut, ci, tool, cls, cm, jobdir) in enumerate(futs):
        outcome, msg, detail, extra = fut.result()
        st = stats[cls][tool]
        if cls != "unified" and cm.ambiguous:
            st["amb"][outcome] += 1
        else:
            st[outcome] += 1
        if extra == "eol" and outcome == "wrong":
            st["eol"] += 1
        if outcome != "identical":
            notes = [extra] if extra else []
            if cls != "unified" and cm.misplaced:
                notes.append("first match misplaces: " + ", ".join(cm.misplaced[:3]))
            elif cls != "unified" and cm.ambiguous:
                notes.append("ambiguous envelope: " + ", ".join(cm.ambiguous[:3]))
            if cm.has_cr:
                notes.append("CR in a file")
            cases.append({"tool": tool, "cls": cls, "commit": cm.sha, "outcome": outcome,
                          "msg": msg, "detail": detail, "extra": extra, "notes": notes,
                          "dir": jobdir if args.keep else None, "seq": k})
        if ci not in done_commits:
            done_commits.add(ci)
            if ci and ci % 10 == 0:
                print(f"  {repo.name}: {ci}/{len(commits)} commits", file=sys.stderr)
    if not args.keep:
        shutil.rmtree(rdir, ignore_errors=True)
    totals = {"commits": len(commits), "scanned": scanned, "skipped": skipped,
              "files": sum(c.nfiles for c in commits), "hunks": sum(c.nhunks for c in commits),
              "anchors": [sum(c.anchors[0] for c in commits), sum(c.anchors[1] for c in commits)],
              "wall": time.monotonic() - t0, "dir": rdir,
              "ambiguous": [(c.sha, c.ambiguous) for c in commits if c.ambiguous],
              "misplaced": [(c.sha, c.misplaced) for c in commits if c.misplaced],
              "cr": [c.sha for c in commits if c.has_cr]}
    return stats, totals


def table(stats, ncommits, tools):
    head = ["class", "commits", "n/a", "ambiguous"]
    for t in TOOLS:
        n = TOOL_NAMES[t]
        head += [f"{n} identical", f"{n} refused", f"{n} wrong", f"{n} crashed",
                 f"{n} on ambiguous"]
    rows = []
    for cls in CLASSES:
        s = stats[cls]
        na = str(s["na"])
        why = [f"{s['na_why'][k]} {k}" for k in ("lossy", "slip stands elsewhere")
               if s["na_why"].get(k)]
        if why:
            na += f" ({', '.join(why)})"
        row = [f"`{cls}`", str(ncommits), na, str(s["amb"]) if cls != "unified" else "—"]
        applicable = ncommits - s["na"] - s["amb"]
        for t in TOOLS:
            if t not in tools_of(cls):
                row += ["—"] * 5
            elif t not in tools:
                row += ["SKIPPED"] * 5
            else:
                o = s[t]
                pct = f" ({100.0 * o['identical'] / applicable:.1f}%)" if applicable else ""
                wrong = str(o["wrong"]) + (f" ({o['eol']} eol)" if o["eol"] else "")
                a = o["amb"]
                amb = (f"{a['identical']}/{a['refused']}/{a['wrong'] + a['crashed']}"
                       if s["amb"] else "—")
                row += [f"{o['identical']}{pct}", str(o["refused"]), wrong, str(o["crashed"]),
                        amb]
        rows.append(row)
    w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]

    def fmt(r):
        return "| " + " | ".join(x.ljust(w[i]) if i == 0 else x.rjust(w[i])
                                 for i, x in enumerate(r)) + " |"
    sep = "|" + "|".join(("-" * (x + 1) + ":") if i else ("-" * (x + 2))
                         for i, x in enumerate(w)) + "|"
    return "\n".join([fmt(head), sep] + [fmt(r) for r in rows])


def show_cases(cases, kinds, per_class, tools_shown):
    shown = {}
    for c in sorted(cases, key=lambda c: c["seq"]):
        key = (c["tool"], c["cls"])
        if c["tool"] not in tools_shown or c["outcome"] not in kinds \
                or shown.get(key, 0) >= per_class:
            continue
        shown[key] = shown.get(key, 0) + 1
        print(f"--- {TOOL_NAMES[c['tool']]}: {c['outcome']} [{c['cls']}] {c['commit'][:12]}"
              + (f" ({'; '.join(c['notes'])})" if c["notes"] else ""))
        if c["msg"]:
            print("    message: " + c["msg"][:600].replace("\n", "\n             "))
        if c["detail"]:
            print(c["detail"])
        if c["dir"]:
            print(f"    dir: {c['dir']}")



def release_binary():
    """The release build: target/<host tuple>/release/indus-tool (the repository
    builds for its host tuple, see .cargo/config.toml)."""
    info = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
    host = next((l.split(": ", 1)[1] for l in info.splitlines() if l.startswith("host: ")), "")
    return os.path.join(TOP, "target", host, "release", "indus-tool")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", help="repository (bare allowed); repeatable; "
                    "default: this one")
    ap.add_argument("--commits", type=int, default=40,
                    help="newest N qualifying first-parent non-merge commits (40)")
    ap.add_argument("--glob", action="append", metavar="GLOB",
                    help="only files whose name (a glob without /) or path matches: the "
                         "commits touching them, each cut down to them; repeatable")
    ap.add_argument("--no-peer", action="store_true", help="leave out git apply and codex")
    ap.add_argument("--codex", metavar="PATH", default=None,
                    help=f"codex's apply_patch (or the codex binary); default {DEFAULT_CODEX}")
    ap.add_argument("--anchors", choices=["on", "raw", "off"], default="on",
                    help="`@@ ANCHOR` lines from git's function context (default on; "
                    "see the docstring)")
    ap.add_argument("--show-wrong", type=int, default=0, metavar="N",
                    help="print the first N wrong/crashed calls of each class")
    ap.add_argument("--show-refused", type=int, default=0, metavar="N",
                    help="print the first N refused calls of each class")
    ap.add_argument("--show-peer", action="store_true",
                    help="--show-wrong/--show-refused print the peers' cases too")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (path printed)")
    ap.add_argument("--trace", metavar="FILE",
                    help="append each frame decision's witnesses and the reading that was "
                         "right, one JSON line each (a binary built with --features "
                         "frame-trace; see bench/frame-witnesses.py)")
    args = ap.parse_args()
    if args.commits < 1:
        ap.error("--commits must be at least 1")
    PATHSPECS[:] = pathspecs(args.glob or [])

    indus = os.environ.get("INDUS") or release_binary()
    if not os.path.isabs(indus) and os.sep in indus:
        indus = os.path.join(TOP, indus)
    if not (os.path.isfile(indus) and os.access(indus, os.X_OK)):
        print(f"patch-replay: no executable binary at {indus} (set INDUS)", file=sys.stderr)
        return 2
    tools = {"indus": indus}
    notes = []
    if args.no_peer:
        notes.append("peers: SKIPPED (--no-peer)")
    else:
        git = shutil.which("git")
        tools["git"] = git
        gv = subprocess.run([git, "--version"], capture_output=True, text=True).stdout.strip()
        cpath = args.codex or (DEFAULT_CODEX if os.path.exists(DEFAULT_CODEX) else None)
        if cpath:
            peer, why = codex_peer.setup(binary=os.path.realpath(cpath), log=sys.stderr)
        else:
            peer, why = codex_peer.setup(log=sys.stderr)
        if peer:
            tools["codex"] = peer["apply_patch"]
            notes.append(f"peers: {gv} (`git apply PATCH`, outside any repository); codex "
                         f"apply_patch {peer['version'] or '(version unknown)'} "
                         f"({peer['binary']}, envelope on stdin)")
        else:
            notes.append(f"peers: {gv}; codex SKIPPED ({why})")
    own = Repo(TOP, name="indus-tool")
    repos = [own]
    if args.repo:
        repos = [Repo(p) for p in args.repo]
        for r in repos:
            if r.gitdir == own.gitdir:
                r.name = own.name
    if args.keep:
        tmproot = tempfile.mkdtemp(prefix="patch-replay.")
    else:
        tmpobj = tempfile.TemporaryDirectory(prefix="patch-replay.")
        tmproot = tmpobj.name
    tmproot = os.path.realpath(tmproot)
    t0 = time.monotonic()
    any_wrong = usage = False
    try:
        with cf.ThreadPoolExecutor(max_workers=2) as pool:
            for repo in repos:
                cases = []
                try:
                    stats, totals = replay_repo(repo, args, tools, pool, tmproot, cases)
                finally:
                    repo.close()
                sk = ", ".join(f"{k} {v}" for k, v in
                               sorted(totals["skipped"].items(), key=lambda kv: -kv[1])) or "none"
                print(f"\n## patch replay: {repo.name} ({repo.gitdir})\n")
                print(f"commits {totals['commits']} (of {totals['scanned']} scanned; passed over: "
                      f"{sk}), files {totals['files']}, hunks {totals['hunks']}, anchors "
                      f"written {totals['anchors'][0]} / dropped {totals['anchors'][1]} "
                      f"(--anchors {args.anchors}); wall {totals['wall']:.1f} s\n")
                print(table(stats, totals["commits"], tools))
                print()
                whys = []
                for cls in CLASSES:
                    if stats[cls]["na_why"]:
                        whys.append(f"`{cls}` " + ", ".join(
                            f"{k} {v}" for k, v in sorted(stats[cls]["na_why"].items())))
                if whys:
                    print("n/a: " + "; ".join(whys))
                amb, mis = totals["ambiguous"], totals["misplaced"]
                if amb:
                    print(f"ambiguous envelopes: {len(amb)} commits (a hunk whose context and "
                          "removed lines occur more than once from where the envelope lets a "
                          f"reader search); in {len(mis)} of them the first match is not the "
                          "hunk's place" + (": " + "; ".join(
                              f"{sha[:12]} {', '.join(h[:2])}" + (" ..." if len(h) > 2 else "")
                              for sha, h in mis[:6]) + (" ..." if len(mis) > 6 else "")
                              if mis else ""))
                if totals["cr"]:
                    print(f"CR-holding files in {len(totals['cr'])} commits: "
                          + ", ".join(x[:12] for x in totals["cr"][:6])
                          + (" ..." if len(totals["cr"]) > 6 else ""))
                for n in notes:
                    print(n)
                print("`eol`: wrong only by a final newline codex added to a file without one.")
                usage_cases = [c for c in cases if c["tool"] == "indus" and c["extra"] == "usage"]
                if usage_cases:
                    usage = True
                    print(f"BENCH PROBLEM: indus-tool answered {len(usage_cases)} calls with "
                          f"exit 2 (usage), first: {usage_cases[0]['msg'][:300]}",
                          file=sys.stderr)
                shown = ["indus"] + (["git", "codex"] if args.show_peer else [])
                if args.show_wrong:
                    show_cases(cases, ("wrong", "crashed"), args.show_wrong, shown)
                if args.show_refused:
                    show_cases(cases, ("refused",), args.show_refused, shown)
                if any(stats[c]["indus"]["wrong"] or stats[c]["indus"]["crashed"]
                       or stats[c]["indus"]["amb"]["wrong"] or stats[c]["indus"]["amb"]["crashed"]
                       for c in CLASSES):
                    any_wrong = True
                if args.keep:
                    print(f"\nkept: {totals['dir']}")
    finally:
        if not args.keep:
            tmpobj.cleanup()
    if args.trace:
        with open(args.trace, "a") as f:
            for t in TRACES:
                f.write(json.dumps(t) + "\n")
        print(f"{len(TRACES)} frame decisions appended to {args.trace}")
    print(f"\ntotal wall time {time.monotonic() - t0:.1f} s")
    return 2 if usage else 1 if any_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
