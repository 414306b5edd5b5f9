#!/usr/bin/env python3
"""What a model is shown: a realistic 13-call agent task through each face of
indus-tool, bytes per call and in total, and the tool list's bytes per profile.

The task runs on a fresh copy of a ripgrep checkout (--repo; .ci/run does not run
this, it needs the checkout): find a definition, read a window, an ambiguous edit
(refused), a 3-place `edits` call, a 3-file patch, a shell check, a checklist, a
background job started, polled and listed, a search that finds nothing, a missing
file, and a rewind of the turn that made the 3-place edit.

Faces, each on its own copy of the repository:

- mcp: `indus-tool --checkpoint mcp --no-gate` driven by the official Python MCP SDK
  (pip `mcp`); shown = the bytes of the result's text content items, which a model
  reads (structuredContent is counted apart: a client reads it, a model does not);
  each call carries `_meta.turn`, and the rewind is the `checkpoint_rewind` tool.
- batch: one long-lived `indus-tool --checkpoint --format text batch`; shown = the
  bytes of each answer's `text`. `batch json` is the same with `--format json`: the
  bytes of each answer's `output` as compact JSON (what a program parses).
- call: one `indus-tool --checkpoint call --format text` process per call; shown =
  `text`.

A binary without the checkpoint tools (--before, an older build) rewinds through the
command line (`indus-tool checkpoint rewind`), its stdout counted as shown; a face it
does not have (`--format text batch`) is reported as such, never guessed.

The tool list: `indus-tool --profile P schema --for mcp` compact, per profile: whole,
without the outputSchemas (`mcp --no-output-schemas`), and as a model is shown it
(name, description, inputSchema: what hosts send to a model API). Bars: the default
profile's list as a model is shown it and without outputSchemas 14 KB, grep's 2.5 KB,
the task's 4,500 bytes.

Usage: bench/agent-face.py --repo RIPGREP_CHECKOUT [--bin BIN] [--before BIN] [--json]

The MCP face needs the SDK: run with a python that has `mcp` (target/mcp-peers/venv,
which .ci/run creates); without it, the script makes target/agent-face-venv itself.
"""

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BIN = os.path.join(TOP, "target/x86_64-unknown-linux-gnu/release/indus-tool")

PATCH = """*** Begin Patch
*** Add File: notes/a.md
+# A
+first note
*** Add File: notes/b.md
+# B
+second note
*** Update File: crates/core/search.rs
@@
-    fn search_path(&mut self, path: &Path) -> io::Result<SearchResult> {
+    /// Searches one file.
+    fn search_path(&mut self, path: &Path) -> io::Result<SearchResult> {
*** End Patch
"""

# (turn, tool, input). The rewind of turn t4 (the 3-place edit) ends the task.
TASK = [
    ("t1", "grep", {"pattern": "fn search_path", "path": "crates/core"}),
    ("t2", "read", {"path": "crates/core/search.rs", "offset": 60, "limit": 40}),
    ("t3", "edit", {"path": "crates/core/search.rs", "oldText": "Ok(SearchResult {",
                    "newText": "Ok(SearchResult::new {"}),
    ("t4", "edit", {"path": "crates/core/search.rs", "edits": [
        {"oldText": "self.config.preprocessor_globs = globs;",
         "newText": "self.config.preprocessor_globs = globs; // set"},
        {"oldText": "self.config.search_zip = yes;",
         "newText": "self.config.search_zip = yes; // set"},
        {"oldText": "let config = self.config.clone();",
         "newText": "let config = self.config.clone(); // copied"},
    ]}),
    ("t5", "apply_patch", {"patch": PATCH}),
    ("t6", "bash", {"command": "grep -c '// set' crates/core/search.rs"}),
    ("t7", "todo_set", {"items": [
        {"id": "1", "text": "find search_path", "status": "done"},
        {"id": "2", "text": "mark the config setters", "status": "active"},
        {"id": "3", "text": "run the tests", "status": "pending"},
    ]}),
    ("t8", "process", {"action": "start", "command": "sleep 0.2; echo built"}),
    ("t9", "process", {"action": "poll", "id": "$JOB"}),
    ("t10", "process", {"action": "list"}),
    ("t11", "grep", {"pattern": "no_such_symbol_anywhere", "path": "crates"}),
    ("t12", "read", {"path": "crates/core/nope.rs"}),
    ("t13", "checkpoint_rewind", {"turn": "t4"}),
]


def ensure_sdk():
    try:
        import mcp  # noqa: F401
        return
    except ImportError:
        pass
    venv = os.path.join(TOP, "target/agent-face-venv")
    python = os.path.join(venv, "bin/python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "mcp==2.3.0"], check=True)
    os.execv(python, [python, *sys.argv])


def copy_repo(repo):
    dest = tempfile.mkdtemp(prefix="agent-face-")
    subprocess.run(["git", "clone", "-q", repo, dest], check=True)
    return dest


def has_tool(binary, name):
    out = subprocess.run([binary, "--no-mcp", "--checkpoint", "list"], capture_output=True, text=True)
    return any(line.split()[:1] == [name] for line in out.stdout.splitlines())


def cli_rewind(binary, cwd, turn):
    out = subprocess.run([binary, "--cwd", cwd, "checkpoint", "rewind", turn],
                         capture_output=True, text=True)
    return out.stdout + out.stderr


def job_of(text):
    for word in text.replace('"', " ").split():
        if word.startswith("job-"):
            return word.rstrip(".,:;")
    return "job-1"


def fill(inp, job):
    return json.loads(json.dumps(inp).replace("$JOB", job))


async def mcp_face(binary, repo, checkpoint_tools):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cwd = copy_repo(repo)
    params = StdioServerParameters(
        command=binary, args=["--cwd", cwd, "--no-mcp", "--checkpoint", "mcp", "--no-gate"])
    rows = []
    job = "job-1"
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for turn, name, inp in TASK:
                if name == "checkpoint_rewind" and not checkpoint_tools:
                    text = cli_rewind(binary, cwd, inp["turn"])
                    rows.append((name, len(text.encode()), 0, "cli"))
                    continue
                if name == "process":
                    await asyncio.sleep(0.4 if inp["action"] == "poll" else 0)
                meta = {"turn": turn} if checkpoint_tools else None
                result = await session.call_tool(name, fill(inp, job), meta=meta)
                texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
                shown = sum(len(t.encode()) for t in texts)
                structured = result.structured_content
                extra = len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False).encode()) if structured else 0
                if name == "process" and inp["action"] == "start":
                    job = job_of("\n".join(texts))
                rows.append((name, shown, extra, "error" if result.is_error else ""))
    shutil.rmtree(cwd, ignore_errors=True)
    return rows


class NoFace(Exception):
    """The binary has no such face (an older build: no text face, no turns)."""


def run_calls(binary, cwd, checkpoint_tools, ask, fmt):
    """The task through `ask` (a ToolCall in, the answer's JSON out): one row of
    (tool, bytes shown, 0, note) a call. Raises NoFace when an answer is not
    in `fmt`'s shape."""
    rows = []
    job = "job-1"
    for i, (turn, name, inp) in enumerate(TASK):
        if name == "checkpoint_rewind" and not checkpoint_tools:
            text = cli_rewind(binary, cwd, inp["turn"])
            rows.append((name, len(text.encode()), 0, "cli"))
            continue
        if name == "process" and inp["action"] == "poll":
            time.sleep(0.4)
        call = {"id": str(i + 1), "name": name, "input": fill(inp, job)}
        if checkpoint_tools:
            call["turn"] = turn  # a binary without them refuses the key
        answer = ask(call)
        if fmt == "text":
            if "text" not in answer:
                raise NoFace()
            shown = answer["text"]
        else:
            out = answer["output"]
            shown = out if isinstance(out, str) else json.dumps(out, separators=(",", ":"), ensure_ascii=False)
        if name == "process" and inp["action"] == "start":
            job = job_of(shown)
        rows.append((name, len(shown.encode()), 0, "error" if answer.get("is_error") else ""))
    return rows


def batch_face(binary, repo, fmt, checkpoint_tools):
    cwd = copy_repo(repo)
    proc = subprocess.Popen(
        [binary, "--cwd", cwd, "--no-mcp", "--checkpoint", "--format", fmt, "batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def ask(call):
        proc.stdin.write(json.dumps(call) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"batch ({fmt}) ended early: {proc.stderr.read()}")
        return json.loads(line)

    try:
        rows = run_calls(binary, cwd, checkpoint_tools, ask, fmt)
        proc.stdin.close()
        proc.wait(timeout=30)
        return rows
    except NoFace:
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(cwd, ignore_errors=True)


def call_face(binary, repo, checkpoint_tools):
    cwd = copy_repo(repo)

    def ask(call):
        out = subprocess.run([binary, "--cwd", cwd, "--no-mcp", "--checkpoint", "call", "--format", "text", "-"],
                             input=json.dumps(call), capture_output=True, text=True)
        try:
            return json.loads(out.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            raise NoFace()

    try:
        return run_calls(binary, cwd, checkpoint_tools, ask, "text")
    except NoFace:
        return None
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


def tool_lists(binary):
    out = {}
    for profile in ["all", "authoring", "survey", "buddy"]:
        res = subprocess.run([binary, "--no-mcp", "--profile", profile, "schema", "--for", "mcp"],
                             capture_output=True, text=True, check=True)
        listed = json.loads(res.stdout)
        compact = lambda v: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode())
        tools = listed["tools"]
        out[profile] = {
            "tools": len(tools),
            "list": compact(listed),
            "no_output": compact({"tools": [{k: v for k, v in t.items() if k != "outputSchema"} for t in tools]}),
            "model": sum(compact({k: t[k] for k in ("name", "description", "inputSchema")}) for t in tools),
            "grep": next((compact({k: t[k] for k in ("name", "description", "inputSchema")})
                          for t in tools if t["name"] == "grep"), None),
        }
    return out


def run(binary):
    checkpoint_tools = has_tool(binary, "checkpoint_rewind")
    faces = {
        "mcp": asyncio.run(mcp_face(binary, ARGS.repo, checkpoint_tools)),
        "batch text": batch_face(binary, ARGS.repo, "text", checkpoint_tools),
        "batch json": batch_face(binary, ARGS.repo, "json", checkpoint_tools),
        "call text": call_face(binary, ARGS.repo, checkpoint_tools),
    }
    return {"faces": faces, "lists": tool_lists(binary)}


def report(label, result):
    print(f"== {label}")
    faces = result["faces"]
    names = [name for name in faces if faces[name] is not None]
    print("call".ljust(20) + "".join(n.rjust(12) for n in names))
    for i, (turn, tool, _) in enumerate(TASK):
        row = f"{turn} {tool}".ljust(20)
        for n in names:
            name, shown, _, note = faces[n][i]
            row += (f"{shown}{'*' if note == 'cli' else ''}").rjust(12)
        print(row)
    print("total shown".ljust(20) + "".join(str(sum(r[1] for r in faces[n])).rjust(12) for n in names))
    if faces.get("mcp"):
        print(f"mcp structuredContent (read by clients, not shown): {sum(r[2] for r in faces['mcp'])} bytes")
    for n in faces:
        if faces[n] is None:
            print(f"{n}: this binary has no such face")
    print("tools/list per profile (bytes, compact):")
    for profile, l in result["lists"].items():
        print(f"  {profile:10} {l['tools']:3} tools  list {l['list']:6}  without outputSchema {l.get('no_output', l['list']):6}  as a model is shown {l['model']:6}  grep {l['grep']}")
    if any(r[3] == "cli" for rows in faces.values() if rows for r in rows):
        print("(* the rewind went through the command line: the binary has no checkpoint tools)")


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True, help="a ripgrep checkout (git clone source)")
    parser.add_argument("--bin", default=DEFAULT_BIN)
    parser.add_argument("--before", help="an older indus-tool to compare with")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ARGS = parser.parse_args()
    ensure_sdk()
    results = {}
    if ARGS.before:
        results["before"] = run(ARGS.before)
        report(f"before: {ARGS.before}", results["before"])
    results["after"] = run(ARGS.bin)
    report(f"after: {ARGS.bin}", results["after"])
    after = results["after"]
    mcp_total = sum(r[1] for r in after["faces"]["mcp"])
    lists = after["lists"]["all"]
    bars = [
        ("the task over MCP <= 4500 bytes shown", mcp_total <= 4500, mcp_total),
        ("default tools/list as a model is shown it <= 14000 bytes", lists["model"] <= 14000, lists["model"]),
        ("default tools/list without outputSchema (mcp --no-output-schemas) <= 14000 bytes",
         lists["no_output"] <= 14000, lists["no_output"]),
        ("grep's descriptor as a model is shown it <= 2500 bytes", lists["grep"] <= 2500, lists["grep"]),
    ]
    print(f"info: default tools/list with every outputSchema: {lists['list']} bytes")
    for what, ok, value in bars:
        print(f"{'ok  ' if ok else 'OVER'} {what}: {value}")
    if ARGS.json:
        print(json.dumps(results))
    sys.exit(0 if all(ok for _, ok, _ in bars) else 1)


if __name__ == "__main__":
    main()
