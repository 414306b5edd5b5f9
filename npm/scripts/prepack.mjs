#!/usr/bin/env node
// `npm pack` / `npm publish` run this first: it puts the binary into vendor/ and
// compiles src/*.ts into dist/ (js and .d.ts), the two things the package ships
// that git does not hold.
//
// The binary: env INDUS_TOOL_BINARY if set, else the repository's shipping build,
// target/x86_64-unknown-linux-gnu/dist/indus-tool (`cargo build --locked --profile dist`).
// This script builds nothing with cargo.

import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(pkg, "..");
const TRIPLE = "x86_64-unknown-linux-gnu";

function fail(message) {
  console.error(`prepack: ${message}`);
  process.exit(1);
}

const source = process.env.INDUS_TOOL_BINARY
  ? resolve(process.env.INDUS_TOOL_BINARY)
  : join(repo, "target", TRIPLE, "dist", "indus-tool");
if (!existsSync(source)) {
  fail(
    process.env.INDUS_TOOL_BINARY
      ? `INDUS_TOOL_BINARY names ${source}, which does not exist.`
      : `no binary at ${source}. Build the shipping binary first with ` +
          "`cargo build --locked --profile dist` in the repository, " +
          "or set INDUS_TOOL_BINARY to an x86_64 Linux indus-tool.",
  );
}
const target = join(pkg, "vendor", TRIPLE, "indus-tool");
mkdirSync(dirname(target), { recursive: true });
copyFileSync(source, target);
chmodSync(target, 0o755);

// The binary must be the release this package is: its --version is checked where
// it can run.
const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
if (process.platform === "linux" && process.arch === "x64") {
  const said = execFileSync(target, ["--version"], { encoding: "utf8" }).trim();
  if (said !== `indus-tool ${version}`) {
    fail(`${source} says "${said}", but the package is version ${version}.`);
  }
}

const tsc = join(pkg, "node_modules", ".bin", "tsc");
if (!existsSync(tsc)) {
  fail(`no TypeScript compiler at ${tsc}: run \`npm ci\` (or \`npm install\`) in ${pkg} first.`);
}
rmSync(join(pkg, "dist"), { recursive: true, force: true });
execFileSync(tsc, ["-p", join(pkg, "tsconfig.json")], { stdio: "inherit" });
console.error(`prepack: vendor/${TRIPLE}/indus-tool from ${source}; dist/ compiled`);
