#!/usr/bin/env node
// The `indus-tool` command npm installs: runs the binary this package ships for this
// platform with the same arguments and terminal, and ends as it ended, so scripts can
// branch on its exit status (grep's 1 for no match) as with the binary itself.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";

import { binaryPath } from "../dist/platform.js";

let binary;
try {
  binary = binaryPath();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
if (!existsSync(binary)) {
  console.error(
    `indus-tool: the binary for ${process.platform} on ${process.arch} is missing at ${binary}: ` +
      `this copy of the package was packed without it (its prepack step copies it in). ` +
      `Reinstall the package, or build indus-tool from source (\`cargo install --locked --path .\` ` +
      `in a checkout of its repository; see its README).`,
  );
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
child.on("error", (err) => {
  console.error(`indus-tool: cannot run ${binary}: ${err.message}`);
  process.exit(1);
});

// Signals sent to this process alone (a supervisor's SIGTERM, kill PID) reach the
// binary too; it cancels its calls and exits with 128 + the signal's number.
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of FORWARDED) process.on(signal, forward);

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the parent sees what it would see of the binary.
    for (const s of FORWARDED) process.off(s, forward);
    process.kill(process.pid, signal);
    // A signal Node ignores (SIGPIPE) does not end it: exit as a shell reports it.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 200);
    return;
  }
  process.exit(code ?? 1);
});
