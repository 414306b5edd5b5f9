"""The peer column of bench/edit-replay.py: codex's `apply_patch`.

Where the binary comes from: the npm package @openai/codex ships a JS launcher
(bin/codex.js) and, as an optional platform package (npm alias
@openai/codex-linux-x64 = @openai/codex@<version>-linux-x64, and so on), the native
binary at node_modules/@openai/codex-<platform>/vendor/<target triple>/bin/codex.
That one multi-call binary dispatches on argv[0] (the codex-rs `arg0` crate): called
as `apply_patch` (or `applypatch`) it is the standalone apply_patch tool of the
codex-rs `apply-patch` crate, which reads the patch from its single argument or, with
no argument, from stdin, applies it relative to its working directory, prints
"Success. Updated the following files:" and exits 0, or prints the error to stderr
and exits 1 (2 on a usage error). `codex --codex-run-as-apply-patch PATCH` is the
same entry point by flag; this module uses a symlink named `apply_patch` next to the
install and feeds the patch on stdin (an argument is capped at 128 KiB by Linux).

Install: `npm install --prefix DIR @openai/codex` once, DIR defaulting to
$XDG_CACHE_HOME (or ~/.cache)/indus-tool-bench/codex; an existing install there (or
a binary given outright) is reused. Without npm the column is skipped with a reason.

The call: one `*** Update File:` hunk with an empty `@@` header carrying the same
(oldText, newText) pair indus-tool gets, perturbation included, in one of two forms:

  context     (default) the hunk's leading and trailing context lines -- the lines
              the bench added around the change, when the class left them equal in
              both texts -- as ` ` lines, the rest of oldText as `-` lines and of
              newText as `+` lines: the way codex's own tool instructions have a
              model write a patch.
  minus-plus  every oldText line as `-`, every newText line as `+`.

Unperturbed, both give identical results on every hunk tried. Perturbed, they do
not: apply_patch 0.169.0 keeps the file's own text for a ` ` line it matched
loosely (trimmed or punctuation-normalised) but writes `+` lines as given, so a slip
on a context line survives minus-plus and is repaired by context (observed, e.g. a
curly-quoted context line). Where oldText and newText differ on the context lines
(the file-indent conventions), context falls back to `-`/`+` for them. apply_patch
also (1) takes the first loose match in the file, not a unique one, and (2) always
ends the file with a newline.
"""
import atexit
import glob
import json
import os
import shutil
import subprocess
import tempfile

CALL_TIMEOUT = 60


def default_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "indus-tool-bench", "codex")


def _find_binary(prefix):
    pats = [
        "node_modules/@openai/codex-*/vendor/*/bin/codex",     # 0.1xx: platform package
        "node_modules/@openai/codex/vendor/*/codex/codex",     # older: vendored in the main package
        "node_modules/@openai/codex/vendor/*/bin/codex",
    ]
    for pat in pats:
        for p in sorted(glob.glob(os.path.join(prefix, pat))):
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    return None


def _version(prefix, binary):
    """The package version, from package.json files only: running `codex --version`
    would create ~/.codex (the apply_patch entry point writes nothing there)."""
    for p in (os.path.join(prefix, "node_modules/@openai/codex/package.json") if prefix else "",
              os.path.join(os.path.dirname(os.path.dirname(binary)), "codex-package.json")):
        try:
            with open(p) as f:
                v = json.load(f).get("version")
            if v:
                return v
        except (OSError, ValueError):
            pass
    return None


def _self_test(apply_patch):
    """Applies a one-line patch in a scratch dir; None when it worked, else why not."""
    d = tempfile.mkdtemp(prefix="codex-selftest.")
    try:
        with open(os.path.join(d, "t.txt"), "w") as f:
            f.write("a\n    b\nc\n")
        patch = "*** Begin Patch\n*** Update File: t.txt\n@@\n-    b\n+    B\n*** End Patch\n"
        p = subprocess.run([apply_patch], input=patch.encode(), cwd=d,
                           capture_output=True, timeout=CALL_TIMEOUT)
        with open(os.path.join(d, "t.txt")) as f:
            got = f.read()
        if p.returncode != 0 or got != "a\n    B\nc\n":
            return (f"self-test failed: exit {p.returncode}, file {got!r}, "
                    f"stderr {p.stderr.decode('utf-8', 'replace')[:200]!r}")
        return None
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"self-test failed: {e}"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def setup(prefix=None, binary=None, log=None):
    """Returns (info, None) with info = {"apply_patch", "binary", "version", "prefix"}, or
    (None, reason) when the peer column must be skipped."""
    def say(msg):
        if log:
            print(msg, file=log)
    if binary:
        binary = os.path.abspath(binary)
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            return None, f"no executable codex binary at {binary}"
        version = _version(None, binary)
        link_dir = tempfile.mkdtemp(prefix="codex-link.")  # not inside someone's install
        atexit.register(shutil.rmtree, link_dir, True)
    else:
        prefix = os.path.abspath(prefix or default_dir())
        binary = _find_binary(prefix)
        if binary is None:
            npm = shutil.which("npm")
            if npm is None:
                return None, "npm not found (needed to install @openai/codex)"
            os.makedirs(prefix, exist_ok=True)
            say(f"installing @openai/codex into {prefix} (npm install --prefix) ...")
            p = subprocess.run([npm, "install", "--prefix", prefix, "--no-audit", "--no-fund",
                                "@openai/codex"], capture_output=True, text=True)
            if p.returncode != 0:
                return None, ("npm install @openai/codex failed: "
                              + (p.stderr or p.stdout).strip()[-300:])
            binary = _find_binary(prefix)
            if binary is None:
                return None, (f"@openai/codex installed in {prefix} but no native codex "
                              "binary under node_modules/@openai/codex*/vendor/")
        version = _version(prefix, binary)
        # argv[0] must be `apply_patch`: a symlink of that name, next to the install
        # when writable, else in a temp dir.
        if os.access(prefix, os.W_OK):
            link_dir = prefix
        else:
            link_dir = tempfile.mkdtemp(prefix="codex-link.")
            atexit.register(shutil.rmtree, link_dir, True)
    link = os.path.join(link_dir, "apply_patch")
    if os.path.realpath(link) != os.path.realpath(binary):
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(binary, link)
    why = _self_test(link)
    if why:
        return None, why
    return {"apply_patch": link, "binary": binary, "version": version}, None


def envelope(name, old_t, new_t, lead=0, trail=0, form="minus-plus"):
    """The apply_patch text for replacing old_t by new_t in file `name`."""
    olines = old_t.split("\n")
    nlines = new_t.split("\n")
    # Whole-line texts end with "\n" (the file's last line may not): drop the empty
    # tail. A missing final newline cannot be said in this format.
    if olines and olines[-1] == "":
        olines.pop()
    if nlines and nlines[-1] == "":
        nlines.pop()
    body = []
    if form == "context":
        lead = min(lead, len(olines), len(nlines))
        while lead and olines[:lead] != nlines[:lead]:
            lead -= 1
        trail = min(trail, len(olines) - lead, len(nlines) - lead)
        while trail and olines[len(olines) - trail:] != nlines[len(nlines) - trail:]:
            trail -= 1
        body += [" " + l for l in olines[:lead]]
        body += ["-" + l for l in olines[lead: len(olines) - trail]]
        body += ["+" + l for l in nlines[lead: len(nlines) - trail]]
        body += [" " + l for l in olines[len(olines) - trail:]]
    else:
        body += ["-" + l for l in olines]
        body += ["+" + l for l in nlines]
    return ("*** Begin Patch\n" f"*** Update File: {name}\n" "@@\n"
            + "".join(l + "\n" for l in body) + "*** End Patch\n")


def run(apply_patch, tmproot, name, state, expected, old_t, new_t, lead, trail, form):
    """(status, message, extra) like edit-replay's run_edit: identical / refused (exit 1,
    file untouched) / wrong (exit 0 with other bytes, or exit 1 with the file changed) /
    usage (exit 2: a bench bug) / crash (other exits, signals, timeouts). extra says
    "eol" when the only difference is a final newline apply_patch added."""
    d = tempfile.mkdtemp(dir=tmproot)
    try:
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(state.encode())
        patch = envelope(name, old_t, new_t, lead, trail, form)
        try:
            p = subprocess.run([apply_patch], input=patch.encode(), cwd=d,
                               capture_output=True, timeout=CALL_TIMEOUT)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p, rc = None, "timeout"
        try:
            with open(path, "rb") as f:
                got = f.read()
        except FileNotFoundError:
            got = None
    finally:
        shutil.rmtree(d, ignore_errors=True)
    out = ((p.stderr or b"") + (p.stdout or b"")).decode("utf-8", "replace").strip() if p else ""
    exp_b = expected.encode()
    extra = None
    if rc == 0:
        status = "identical" if got == exp_b else "wrong"
    elif rc == 1:
        status = "refused" if got == state.encode() else "wrong"
        if status == "wrong":
            out = "exit 1 but the file changed: " + out
    elif rc == 2:
        status = "usage"
    else:
        status = "crash"
        out = f"exit {rc}: " + out[-500:]
    if status == "wrong" and got is not None and not exp_b.endswith(b"\n") and got == exp_b + b"\n":
        extra = "eol"
    return status, out[:500], extra, (None if got is None else got.decode("utf-8", "replace"))
