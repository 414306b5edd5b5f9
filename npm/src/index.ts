// The TypeScript client of `indus-tool batch`: one long-lived process per Toolbox,
// JSON lines in and out (docs/json.md "batch"). The contract it follows is shared with
// the Python client: the same options, ids, outcomes, errors and cancellation.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";

import { binaryPath } from "./platform.js";
import { ToolMethods } from "./tools.js";

export * from "./tools.js";
export { binaryPath, targetTriple, unsupportedPlatformMessage } from "./platform.js";

export interface ToolboxOptions {
  /** The folder the tools resolve paths against (`--cwd`). */
  cwd?: string;
  /** The deck profile exposing the tools (`--profile`: authoring, survey, all, buddy). */
  profile?: string;
  /** The session keying the checklist, read-state and jobs (`--session`). */
  session?: string;
  /** Record checkpoints of the calls' file changes (`--checkpoint`). */
  checkpoint?: boolean;
  /** Confine every path a tool touches to this folder (`--root`). */
  root?: string;
  /**
   * The indus-tool binary. Default: env INDUS_TOOL_BIN, else the one this package
   * ships for this platform, else `indus-tool` on PATH.
   */
  binary?: string;
  /** Variables added to (or replacing) the environment the process inherits. */
  env?: Record<string, string>;
  /** More global options, put before `batch` as they are. */
  args?: string[];
  /**
   * Run up to this many calls at once (`batch --jobs N`); answers then come as calls
   * finish. Default: one at a time, in the order sent.
   */
  jobs?: number;
}

export interface CallOptions {
  /** Aborting it cancels the call: the toolbox stops it and the promise rejects. */
  signal?: AbortSignal;
  /** The checkpoint turn this call's changes belong to (the ToolCall's "turn"; with `checkpoint`). */
  turn?: string;
}

/** One answer of batch, as it wrote it. */
export interface ToolOutcome<T = unknown> {
  id: string;
  /** The tool's record (or list) on success; an error's message string (a failed `bash` keeps its record). */
  output: T;
  is_error: boolean;
}

/** The toolbox process could not be started, died, or the Toolbox is closed. */
export class ToolboxError extends Error {
  override name = "ToolboxError";
}

/** A typed method's tool answered with is_error true; `outcome` is the whole answer. */
export class ToolError extends Error {
  override name = "ToolError";
  constructor(
    readonly tool: string,
    readonly outcome: ToolOutcome,
  ) {
    super(typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output));
  }
}

// close(): how long batch may take to answer what is in flight once its stdin ends,
// then how long after SIGTERM (which cancels calls and kills bash process groups)
// before SIGKILL.
const CLOSE_GRACE_MS = 5000;
const TERM_GRACE_MS = 2000;
const STDERR_TAIL_LINES = 20;

interface Pending {
  resolve(outcome: ToolOutcome): void;
  reject(error: unknown): void;
}

function defaultBinary(): string {
  if (process.env.INDUS_TOOL_BIN) return process.env.INDUS_TOOL_BIN;
  try {
    const shipped = binaryPath();
    if (existsSync(shipped)) return shipped;
  } catch {
    // No binary shipped for this platform: fall back to PATH.
  }
  return "indus-tool";
}

// Every process still running, so that the whole set is ended when Node exits (the
// 'exit' event allows synchronous work only: a signal, no waiting).
const live = new Set<BatchProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const p of live) p.child.kill("SIGTERM");
  });
}

type Refable = { ref?(): void; unref?(): void };

/** One `indus-tool batch` process and the calls waiting for its answers. */
class BatchProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pending = new Map<string, Pending>();
  private readonly stderrTail: string[] = [];
  private stderrPartial = "";
  private ended = false;
  private readonly endWaiters: Array<() => void> = [];

  constructor(binary: string, args: string[], env: NodeJS.ProcessEnv, onEnd: () => void) {
    this.child = spawn(binary, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    // A write after the process died fails with EPIPE; 'close' below reports the death.
    this.child.stdin.on("error", () => {});
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (line) =>
      this.answer(line),
    );
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => this.keepStderr(chunk));
    this.child.on("error", (err) => {
      // Only a failed spawn ends it here; otherwise 'close' follows.
      if (this.child.pid === undefined) this.end(`cannot start ${binary}: ${err.message}`, onEnd);
    });
    this.child.on("close", (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with status ${code}`;
      this.end(`${binary} batch (pid ${this.child.pid}) ${how}`, onEnd);
    });
    live.add(this);
    installExitHook();
    this.updateRef();
  }

  send(message: string): void {
    this.child.stdin.write(message + "\n");
  }

  /**
   * Keep Node running only while answers are awaited: an idle toolbox someone forgot
   * to close must not hold the program open (its process is ended at exit instead).
   */
  updateRef(force = false): void {
    const on = force || this.pending.size > 0;
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as Refable[];
    for (const h of handles) (on ? h.ref : h.unref)?.call(h);
  }

  /** Resolves true once the process is gone, false if `ms` passed first. */
  waitEnd(ms: number): Promise<boolean> {
    if (this.ended) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.endWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private answer(line: string): void {
    let outcome: ToolOutcome;
    try {
      outcome = JSON.parse(line);
    } catch {
      return;
    }
    // Answers to cancelled calls (already rejected) and to lines batch could not
    // parse (id null: the client never sends one) are not waited for.
    const id = outcome && typeof outcome === "object" ? String(outcome.id) : "";
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    this.updateRef();
    waiting.resolve(outcome);
  }

  private keepStderr(chunk: string): void {
    const parts = (this.stderrPartial + chunk).split("\n");
    this.stderrPartial = parts.pop() ?? "";
    this.stderrTail.push(...parts);
    this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - STDERR_TAIL_LINES));
  }

  private end(what: string, onEnd: () => void): void {
    if (this.ended) return;
    this.ended = true;
    live.delete(this);
    const tail = [...this.stderrTail, this.stderrPartial].filter((l) => l !== "");
    const message = tail.length ? `${what}; the last lines of its stderr:\n${tail.join("\n")}` : what;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    onEnd();
    for (const p of waiting) p.reject(new ToolboxError(message));
    for (const w of this.endWaiters.splice(0)) w();
  }
}

/**
 * A toolbox: one `indus-tool batch` process, started at the first call, restarted at
 * the next call after it died, ended by {@link close} (or when Node exits).
 *
 * ```ts
 * const tb = new Toolbox({ cwd: "/my/project" });
 * const found = await tb.grep({ pattern: "TODO" });
 * await tb.close();
 * ```
 */
export class Toolbox extends ToolMethods {
  /** The binary this toolbox runs. */
  readonly binary: string;
  readonly #args: string[];
  readonly #env: NodeJS.ProcessEnv;
  #proc: BatchProcess | null = null;
  #lastId = 0;
  #closed = false;

  constructor(options: ToolboxOptions = {}) {
    super();
    this.binary = options.binary ?? defaultBinary();
    const globals: string[] = [];
    // Absolute, so a restarted batch works in the same folder after a chdir.
    if (options.cwd !== undefined) globals.push("--cwd", resolvePath(options.cwd));
    if (options.profile !== undefined) globals.push("--profile", options.profile);
    if (options.session !== undefined) globals.push("--session", options.session);
    if (options.checkpoint) globals.push("--checkpoint");
    if (options.root !== undefined) globals.push("--root", resolvePath(options.root));
    globals.push(...(options.args ?? []));
    // JSON answers whatever INDUS_FORMAT the environment holds.
    this.#args = [...globals, "--format", "json", "batch"];
    if (options.jobs !== undefined) this.#args.push("--jobs", String(options.jobs));
    this.#env = { ...process.env, ...options.env };
  }

  /** The pid of the running batch process, if one runs. */
  get pid(): number | undefined {
    return this.#proc?.child.pid;
  }

  /**
   * Call a tool by name. Resolves with its outcome whether or not the tool failed
   * (is_error); rejects with ToolboxError when the process cannot answer, and with the
   * signal's reason when `signal` aborts (the toolbox then cancels the call).
   */
  call(name: string, input: object = {}, options: CallOptions = {}): Promise<ToolOutcome> {
    const { signal, turn } = options;
    if (this.#closed) return Promise.reject(new ToolboxError("the toolbox is closed"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = String(++this.#lastId);
    let line: string;
    try {
      // The id goes first: batch answers a line it cannot read with the id it opens with.
      line = JSON.stringify(turn === undefined ? { id, name, input } : { id, name, input, turn });
    } catch (err) {
      return Promise.reject(err);
    }
    const proc = this.#running();
    return new Promise<ToolOutcome>((resolve, reject) => {
      const onAbort = () => {
        if (!proc.pending.delete(id)) return;
        proc.send(JSON.stringify({ cancel: id }));
        proc.updateRef();
        reject(signal!.reason);
      };
      proc.pending.set(id, {
        resolve(outcome) {
          signal?.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
        reject(error) {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      proc.updateRef();
      proc.send(line);
    });
  }

  protected async typedCall<T>(name: string, input: object, options: CallOptions | undefined): Promise<T> {
    const outcome = await this.call(name, input, options);
    if (outcome.is_error) throw new ToolError(name, outcome);
    return outcome.output as T;
  }

  /**
   * End the process: its stdin is closed, so it answers the calls in flight and exits;
   * after a grace period it is terminated. Later calls reject with ToolboxError.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const proc = this.#proc;
    if (!proc) return;
    proc.updateRef(true);
    proc.child.stdin.end();
    if (await proc.waitEnd(CLOSE_GRACE_MS)) return;
    proc.child.kill("SIGTERM");
    if (await proc.waitEnd(TERM_GRACE_MS)) return;
    proc.child.kill("SIGKILL");
    await proc.waitEnd(TERM_GRACE_MS);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #running(): BatchProcess {
    if (!this.#proc) {
      const proc: BatchProcess = new BatchProcess(this.binary, this.#args, this.#env, () => {
        if (this.#proc === proc) this.#proc = null;
      });
      this.#proc = proc;
    }
    return this.#proc;
  }
}
