// The TypeScript client (npm package indus-tool) against a real `indus-tool batch`,
// run by tests/it/npm_package.rs as `node --test` from a folder the packed package is
// installed in (so `import "indus-tool"` is the installed copy). The binary is
// INDUS_TOOL_BIN (the test sets it to the build under test), and the shipped one
// where a test says so. Each test works in a temp tree of its own.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { Toolbox, ToolboxError, ToolError, binaryPath, unsupportedPlatformMessage } from "indus-tool";

function tree(files = {}) {
  const dir = mkdtempSync(join(tmpdir(), "indus-ts-client-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function withToolbox(files, body, options = {}) {
  const dir = tree(files);
  const tb = new Toolbox({ cwd: dir, session: "ts-client", ...options });
  try {
    await body(tb, dir);
  } finally {
    await tb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Process ids whose command line holds `marker` (pgrep -f), this test's own excluded. */
function processesWith(marker) {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" })
      .split("\n")
      .filter((pid) => pid && Number(pid) !== process.pid);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function until(limitMs, done) {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return done();
}

test("read and grep give the typed records", async () => {
  await withToolbox({ "a.txt": "alpha\nbeta\ngamma beta\n" }, async (tb) => {
    const read = await tb.read({ path: "a.txt" });
    assert.deepEqual(read.lines, ["alpha", "beta", "gamma beta"]);
    assert.equal(read.totalLines, 3);
    assert.match(read.sha256, /^[0-9a-f]{64}$/);

    const found = await tb.grep({ pattern: "beta", path: "a.txt" });
    assert.equal(found.count, 2);
    assert.deepEqual(
      found.rows.map((r) => [r.line, r.text]),
      [
        [2, "beta"],
        [3, "gamma beta"],
      ],
    );
  });
});

test("call() gives the outcome; a tool's failure is an outcome, a typed method's a ToolError", async () => {
  await withToolbox({}, async (tb) => {
    const outcome = await tb.call("read", { path: "missing.txt" });
    assert.equal(outcome.is_error, true);
    assert.equal(typeof outcome.id, "string");
    assert.match(outcome.output, /missing\.txt/);

    const unknown = await tb.call("no_such_tool", {});
    assert.equal(unknown.is_error, true);

    await assert.rejects(tb.read({ path: "missing.txt" }), (err) => {
      assert.ok(err instanceof ToolError);
      assert.equal(err.tool, "read");
      assert.equal(err.outcome.is_error, true);
      assert.equal(err.message, err.outcome.output);
      return true;
    });
  });
});

test("an edit of three places, then apply_patch", async () => {
  const text = "let x = old;\nf(old);\nreturn old;\n";
  await withToolbox({ "code.txt": text }, async (tb, dir) => {
    // batch keeps the read-before-edit gate on: read first, as an agent would.
    await tb.read({ path: "code.txt" });
    const edit = await tb.edit({ path: "code.txt", oldText: "old", newText: "new", replaceAll: true });
    assert.equal(edit.replacements, 3);
    assert.match(edit.diff, /^\+f\(new\);$/m);
    assert.equal(readFileSync(join(dir, "code.txt"), "utf8"), "let x = new;\nf(new);\nreturn new;\n");

    const patch = [
      "*** Begin Patch",
      "*** Update File: code.txt",
      "@@",
      " let x = new;",
      "-f(new);",
      "+g(new);",
      "*** Add File: added.txt",
      "+hello",
      "*** End Patch",
    ].join("\n");
    const applied = await tb.apply_patch({ patch });
    assert.equal(applied.applied, true);
    assert.deepEqual(
      applied.files.map((f) => [f.path, f.status]).sort(),
      [
        ["added.txt", "added"],
        ["code.txt", "modified"],
      ],
    );
    assert.equal(readFileSync(join(dir, "code.txt"), "utf8"), "let x = new;\ng(new);\nreturn new;\n");
    assert.equal(readFileSync(join(dir, "added.txt"), "utf8"), "hello\n");
  });
});

test("a background job started and polled until it is done", async () => {
  await withToolbox({}, async (tb) => {
    const started = await tb.bg_process({
      action: "start",
      command: "for i in 1 2 3; do echo line$i; sleep 0.1; done",
    });
    assert.equal(started.status, "running");
    let job;
    const done = await until(10_000, async () => {
      job = await tb.bg_process({ action: "poll", id: started.id });
      return job.status !== "running";
    });
    assert.ok(done, `the job still runs: ${JSON.stringify(job)}`);
    assert.equal(job.status, "exited");
    assert.equal(job.exitCode, 0);
    assert.equal(job.stdout, "line1\nline2\nline3\n");
  });
});

test("an aborted call rejects at once and its command is stopped", async () => {
  await withToolbox({}, async (tb) => {
    // A sleep no other process has: its length is the marker pgrep looks for.
    const marker = `30.${process.pid}${Date.now() % 1000}`;
    const controller = new AbortController();
    const call = tb.bash({ command: `sleep ${marker}; echo done` }, { signal: controller.signal });
    assert.ok(await until(5000, () => processesWith(marker).length > 0), "the sleep never started");

    const t0 = Date.now();
    controller.abort();
    await assert.rejects(call, (err) => err.name === "AbortError");
    assert.ok(Date.now() - t0 < 2000);
    assert.ok(
      await until(2000, () => processesWith(marker).length === 0),
      `the cancelled command still runs: ${processesWith(marker)}`,
    );

    // The toolbox goes on answering.
    assert.equal((await tb.bash({ command: "echo after" })).stdout, "after\n");
    // A signal already aborted: no call at all.
    await assert.rejects(tb.time({}, { signal: AbortSignal.abort() }), (err) => err.name === "AbortError");
  });
});

test("ten calls at once each get their own answer", async () => {
  await withToolbox({}, async (tb) => {
    const calls = Array.from({ length: 10 }, (_, i) =>
      tb.bash({ command: `sleep 0.0${9 - i}; echo call-${i}` }),
    );
    const answers = await Promise.all(calls);
    assert.deepEqual(
      answers.map((a) => a.stdout),
      Array.from({ length: 10 }, (_, i) => `call-${i}\n`),
    );
  });
});

test("jobs runs calls at once; a turn reaches the checkpoint", async () => {
  await withToolbox({}, async (tb) => {
    const t0 = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => tb.bash({ command: `sleep 0.5; echo ${i}` })),
    );
    assert.deepEqual(answers.map((a) => a.stdout), ["0\n", "1\n", "2\n", "3\n"]);
    assert.ok(Date.now() - t0 < 1900, `four 0.5 s calls took ${Date.now() - t0} ms`);
  }, { jobs: 4 });
  await withToolbox({}, async (tb, dir) => {
    await tb.write({ path: "t.txt", content: "one\n" }, { turn: "t1" });
    const nodes = await tb.checkpoint_list({});
    assert.ok(JSON.stringify(nodes).includes("t1"), JSON.stringify(nodes));
    assert.equal(readFileSync(join(dir, "t.txt"), "utf8"), "one\n");
  }, { checkpoint: true });
});

test("a line batch cannot read is answered to its call, not left waiting", async () => {
  await withToolbox({}, async (tb) => {
    const outcome = await tb.call("read", { path: "\ud800" });
    assert.equal(outcome.is_error, true);
    assert.match(String(outcome.output), /not a JSON ToolCall/);
    assert.equal((await tb.ls({})).count, 0);
  });
});

test("a call over the batch limit is answered, not left waiting", async () => {
  await withToolbox({}, async (tb, dir) => {
    const outcome = await tb.call("write", { path: "big.txt", content: "x".repeat(65 * 1024 * 1024) });
    assert.equal(outcome.is_error, true);
    assert.match(String(outcome.output), /over the batch limit of 64 MiB/);
    assert.equal(existsSync(join(dir, "big.txt")), false);
  });
});

test("a killed toolbox process fails its calls in flight and is restarted at the next call", async () => {
  await withToolbox({}, async (tb) => {
    assert.equal(tb.pid, undefined, "started before the first call");
    await tb.time();
    const first = tb.pid;
    assert.ok(first);
    const inFlight = tb.bash({ command: "sleep 3" });
    await new Promise((r) => setTimeout(r, 200));
    process.kill(first, "SIGKILL");
    await assert.rejects(inFlight, (err) => {
      assert.ok(err instanceof ToolboxError);
      assert.match(err.message, /killed by SIGKILL/);
      return true;
    });
    const out = await tb.bash({ command: "echo again" });
    assert.equal(out.stdout, "again\n");
    assert.ok(tb.pid && tb.pid !== first);
  });
});

test("close() ends the process; a closed toolbox refuses calls", async () => {
  const dir = tree();
  const tb = new Toolbox({ cwd: dir });
  try {
    await tb.time();
    const pid = tb.pid;
    await tb.close();
    assert.equal(tb.pid, undefined);
    assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
    await assert.rejects(tb.time(), ToolboxError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a binary that cannot start is a ToolboxError", async () => {
  const tb = new Toolbox({ binary: "/nonexistent/indus-tool" });
  await assert.rejects(tb.time(), (err) => {
    assert.ok(err instanceof ToolboxError);
    assert.match(err.message, /cannot start \/nonexistent\/indus-tool/);
    return true;
  });
  await tb.close();
});

test("the binary the package ships answers through the default path", async () => {
  const shipped = binaryPath();
  assert.ok(existsSync(shipped), shipped);
  await withToolbox({}, async (tb) => {
    const now = await tb.time();
    assert.equal(typeof now.unix_millis, "number");
  }, { binary: shipped });
  assert.throws(() => binaryPath({ platform: "darwin", arch: "arm64" }), {
    message: unsupportedPlatformMessage("darwin", "arm64"),
  });
});
