// A small program using the client's typed methods, type-checked (tsc --noEmit,
// strict) by tests/it/npm_package.rs against the installed package's declarations: the
// records' fields are typed, deprecated parameters are not in the inputs, and a field
// no record has is an error. It is never run.

import { Toolbox, ToolError, ToolboxError, binaryPath } from "indus-tool";
import type { BgProcessOutput, GrepInput, GrepOutput, ReadOutput, ToolName, ToolOutcome } from "indus-tool";

export async function todoReport(project: string, signal?: AbortSignal): Promise<string[]> {
  const tb = new Toolbox({ cwd: project, session: "example", checkpoint: false, env: { LC_ALL: "C" } });
  try {
    const input: GrepInput = { pattern: "TODO", literal: true, outputMode: "content", limit: 50 };
    const found: GrepOutput = await tb.grep(input, { signal });
    const rows: string[] = found.rows.map((row) => `${row.path}:${row.line ?? 0}: ${row.text ?? ""}`);
    const skipped: number = found.skipped.binary + found.skipped.tooLarge + found.skipped.unreadable;

    const page: ReadOutput = await tb.read({ path: "README.md", limit: 20 });
    const next: number | null = page.nextOffset;
    const first: string | undefined = page.lines[0];

    const job: BgProcessOutput = await tb.bg_process({ action: "start", command: "make test" });
    const status: "running" | "exited" | "killed" | "lost" | undefined = job.status;

    const ran = await tb.bash({ command: "git status --short" });
    const code: number | null = ran.exitCode;

    const when = await tb.time();
    const millis: number = when.unix_millis;

    const outcome: ToolOutcome = await tb.call("grep", { pattern: "x", flags: "i" });
    const name: ToolName = "bg-process";

    // @ts-expect-error a deprecated parameter is left out of the typed input
    await tb.grep({ pattern: "x", flags: "i" });
    // @ts-expect-error a required parameter
    await tb.read({ limit: 3 });
    // @ts-expect-error an enum's values only
    await tb.bg_process({ action: "restart" });
    // @ts-expect-error records are closed
    void found.matches;

    return [...rows, `${skipped} ${next} ${first} ${status} ${code} ${millis} ${outcome.is_error} ${name}`];
  } catch (err) {
    if (err instanceof ToolError) return [`${err.tool}: ${err.message}`, String(err.outcome.is_error)];
    if (err instanceof ToolboxError) return [err.message, binaryPath()];
    throw err;
  } finally {
    await tb.close();
  }
}
