"""Revision pairs from real git history, shared by bench/edit-replay.py and
bench/diff-roundtrip.py.

A repository is read only through git plumbing with `--git-dir`, so bare mirrors
work as well as ordinary clones and nothing is ever checked out: `git log` lists the
commits (newest first, merges left out), `git diff-tree -r --no-renames` lists each
commit's changes against its first parent, and one long-lived `git cat-file --batch`
reads the blobs. Only status-M regular files (mode 100644/100755 on both sides, blob
changed) are yielded; `text_skip_reason` says why a pair is not a text pair.
"""
import os
import subprocess

MAX_BYTES = 1 << 20  # files larger than 1 MB (either side) are left out


def pathspecs(globs):
    """git pathspecs for file globs: one without `/` matches a file's name in any
    folder (`*.go`), one with `/` the path from the top (`src/*.py`)."""
    return [f":(glob){g}" if "/" in g else f":(glob)**/{g}" for g in globs]


class Repo:
    def __init__(self, path, name=None):
        out = subprocess.run(
            ["git", "-C", path, "rev-parse", "--absolute-git-dir"],
            check=True, capture_output=True, text=True,
        )
        self.gitdir = out.stdout.strip()
        self.path = path
        if name is None:
            base = os.path.basename(os.path.normpath(self.gitdir))
            parent = os.path.basename(os.path.dirname(os.path.normpath(self.gitdir)))
            name = parent if base in ("repo", ".git") else base
            if name.endswith(".git"):
                name = name[:-4]
        self.name = name
        self._cat = None

    def git(self, *args):
        return subprocess.run(
            ["git", "--git-dir", self.gitdir, *args],
            check=True, capture_output=True,
        ).stdout

    def commits(self, n=None, globs=None):
        """Non-merge commits reachable from HEAD, newest first; at most n; with
        globs, only those touching a path they match (see `pathspecs`)."""
        args = ["log", "--no-merges", "--format=%H"]
        if n is not None:
            args.append(f"-n{n}")
        if globs:
            args += ["--", *pathspecs(globs)]
        return self.git(*args).decode().split()

    def modified(self, commit):
        """(old_blob, new_blob, path) for each status-M regular file of `commit`
        against its first parent; empty for a root commit."""
        raw = self.git("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", commit)
        parts = raw.split(b"\0")
        out = []
        i = 0
        while i + 1 < len(parts):
            meta, path = parts[i], parts[i + 1]
            i += 2
            if not meta.startswith(b":"):
                continue
            old_mode, new_mode, old_sha, new_sha, status = meta[1:].decode().split(" ")
            if status != "M" or old_sha == new_sha:
                continue
            if not (old_mode.startswith("100") and new_mode.startswith("100")):
                continue  # symlinks, submodules
            out.append((old_sha, new_sha, path.decode("utf-8", "surrogateescape")))
        return out

    def blob(self, sha):
        if self._cat is None:
            self._cat = subprocess.Popen(
                ["git", "--git-dir", self.gitdir, "cat-file", "--batch"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            )
        self._cat.stdin.write(sha.encode() + b"\n")
        self._cat.stdin.flush()
        header = self._cat.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise RuntimeError(f"cat-file: unexpected answer for {sha}: {header!r}")
        size = int(header[2])
        data = self._cat.stdout.read(size)
        self._cat.stdout.read(1)  # the newline after the contents
        return data

    def close(self):
        if self._cat is not None:
            self._cat.stdin.close()
            self._cat.wait()
            self._cat = None


def text_skip_reason(old, new, allow_cr):
    """None when (old, new) is a pair of UTF-8 text files of at most 1 MB, else why not."""
    if len(old) > MAX_BYTES or len(new) > MAX_BYTES:
        return "over 1 MB"
    if b"\0" in old or b"\0" in new:
        return "binary"
    try:
        old.decode("utf-8")
        new.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if not allow_cr and (b"\r" in old or b"\r" in new):
        return "has CR"
    return None


def split_lines(text):
    """Lines split on \\n only, each keeping its \\n (str.splitlines would also split
    on \\v, \\f, U+2028 and others)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
