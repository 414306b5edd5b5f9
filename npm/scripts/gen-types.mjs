#!/usr/bin/env node
// Writes npm/src/tools.ts from a built binary's tool descriptors:
//
//   node npm/scripts/gen-types.mjs BINARY           (re)write src/tools.ts
//   node npm/scripts/gen-types.mjs BINARY --check   exit 1 if the committed file differs
//
// The descriptors come from `BINARY --checkpoint schema` (every tool, the checkpoint
// tools included); `BINARY schema` tells which tools exist only under --checkpoint.
// Both run with the INDUS_* variables removed and a fresh, empty HOME and project
// folder, so the host's configuration (grafted MCP servers, a profile) cannot leak in.
//
// The JSON Schema -> TypeScript conversion is written here by hand rather than taken
// from json-schema-to-typescript: the package has no runtime dependencies and this
// script wants none either, and the schemas are the toolbox's own, using a small,
// known set of keywords (docs/json.md "Output schemas"). A keyword it does not know
// ($ref, ...) stops it with an error instead of producing a loose type.

import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OUT = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "tools.ts");

function schemaOf(binary, args) {
  const scratch = mkdtempSync(join(tmpdir(), "indus-gen-types-"));
  try {
    const home = join(scratch, "home");
    const project = join(scratch, "project");
    mkdirSync(home);
    mkdirSync(project);
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("INDUS_")),
    );
    env.HOME = home;
    env.XDG_CONFIG_HOME = join(home, ".config");
    env.XDG_STATE_HOME = join(home, ".local", "state");
    const text = execFileSync(binary, ["--profile", "all", ...args, "schema"], {
      cwd: project,
      env,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    return JSON.parse(text);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const pascal = (name) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");

const methodName = (name) => name.replace(/-/g, "_");

const isIdent = (k) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k);
const key = (k) => (isIdent(k) ? k : JSON.stringify(k));

function jsdoc(text, indent) {
  if (!text) return "";
  const lines = String(text).replace(/\*\//g, "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? " " + l : ""}`).join("\n")}\n${indent} */\n`;
}

const KNOWN = new Set([
  "type", "properties", "required", "items", "enum", "const", "description",
  "additionalProperties", "oneOf", "anyOf", "allOf", "deprecated", "nullable",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern",
  "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "format",
  "default", "examples", "title", "$schema",
]);

const PRIMITIVE = {
  string: "string",
  integer: "number",
  number: "number",
  boolean: "boolean",
  null: "null",
};

const union = (types) => {
  const seen = [...new Set(types)];
  return seen.length === 1 ? seen[0] : seen.map((t) => (/[|&]/.test(t) && !t.startsWith("{") ? `(${t})` : t)).join(" | ");
};

// `input`: a tool's parameters, where deprecated properties are left out.
export function toType(schema, { input = false, indent = "", where = "schema" } = {}) {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  for (const k of Object.keys(schema)) {
    if (!KNOWN.has(k)) throw new Error(`${where}: unsupported JSON Schema keyword "${k}"`);
  }
  const sub = (s, w) => toType(s, { input, indent, where: `${where}${w}` });
  if ("const" in schema) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((v) => JSON.stringify(v)));
  if (schema.oneOf) return union(schema.oneOf.map((s, i) => sub(s, `.oneOf[${i}]`)));
  if (schema.anyOf) return union(schema.anyOf.map((s, i) => sub(s, `.anyOf[${i}]`)));
  if (schema.allOf) return schema.allOf.map((s, i) => sub(s, `.allOf[${i}]`)).join(" & ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) {
    if (schema.properties || schema.additionalProperties !== undefined) types.push("object");
    else if (schema.items) types.push("array");
    else return "unknown";
  }
  const out = types.map((t) => {
    if (t in PRIMITIVE) return PRIMITIVE[t];
    if (t === "array") {
      const item = toType(schema.items, { input, indent, where: `${where}.items` });
      return /[|&\s]/.test(item) && !item.startsWith("{") ? `Array<${item}>` : `${item}[]`;
    }
    if (t === "object") return objectType(schema, { input, indent, where });
    throw new Error(`${where}: unsupported type "${t}"`);
  });
  if (schema.nullable === true) out.push("null");
  return union(out);
}

function objectType(schema, { input, indent, where }) {
  const props = Object.entries(schema.properties ?? {}).filter(
    ([, s]) => !(input && s && s.deprecated === true),
  );
  const extra = schema.additionalProperties;
  // An object schema without properties is a map (closed: an empty record).
  if (props.length === 0) {
    if (extra === false) return "Record<string, never>";
    if (extra === undefined || extra === true) return "Record<string, unknown>";
    return `Record<string, ${toType(extra, { input, indent, where: `${where}.additionalProperties` })}>`;
  }
  const required = new Set(schema.required ?? []);
  const inner = indent + "  ";
  let body = "{\n";
  for (const [name, s] of props) {
    body += jsdoc(s.description, inner);
    const t = toType(s, { input, indent: inner, where: `${where}.${name}` });
    body += `${inner}${key(name)}${required.has(name) ? "" : "?"}: ${t};\n`;
  }
  // Our objects with properties are closed unless they say otherwise.
  if (extra && extra !== false && extra !== undefined) {
    const t = extra === true ? "unknown" : toType(extra, { input, indent: inner, where: `${where}.additionalProperties` });
    body += `${inner}[key: string]: ${t};\n`;
  }
  return `${body}${indent}}`;
}

function declare(name, schema, { input, where, doc }) {
  const t = toType(schema, { input, indent: "", where });
  const header = jsdoc(doc, "");
  return t.startsWith("{\n")
    ? `${header}export interface ${name} ${t}\n`
    : `${header}export type ${name} = ${t};\n`;
}

export function generate(descriptors, plainNames) {
  const names = descriptors.map((d) => d.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i || names.findIndex((m) => methodName(m) === methodName(n)) !== i);
  if (dup) throw new Error(`two tools map to the method ${methodName(dup)}`);
  // The Toolbox's own members (src/index.ts); its internals are #private.
  const taken = names.find((n) => ["call", "close", "pid", "binary", "typedCall", "constructor"].includes(methodName(n)));
  if (taken) throw new Error(`the tool ${taken} would shadow the Toolbox's own ${methodName(taken)}`);

  let out = `// GENERATED by npm/scripts/gen-types.mjs from \`indus-tool --checkpoint schema\`.
// Do not edit by hand: after a tool's schema changes, run
//   node npm/scripts/gen-types.mjs target/x86_64-unknown-linux-gnu/debug/indus-tool
// (tests/it/npm_package.rs checks that this file is what the schema gives).

import type { CallOptions } from "./index.js";
`;
  const methods = [];
  for (const d of descriptors) {
    const base = pascal(d.name);
    const only = plainNames.has(d.name) ? "" : "\n\nOnly with the toolbox's `checkpoint: true` option.";
    out += `\n// ${d.name}\n\n`;
    out += declare(`${base}Input`, d.parameters, {
      input: true,
      where: `${d.name}.parameters`,
      doc: `Input of \`${d.name}\`.`,
    });
    let outType = "unknown";
    if (d.outputSchema) {
      out += "\n" + declare(`${base}Output`, d.outputSchema, {
        input: false,
        where: `${d.name}.outputSchema`,
        doc: `The \`output\` of a successful \`${d.name}\` call.${d.outputSchema.description ? "\n\n" + d.outputSchema.description : ""}`,
      });
      outType = `${base}Output`;
    }
    const optional = (d.parameters.required ?? []).length === 0 ? "?" : "";
    methods.push(
      jsdoc(`${d.description}${only}\n\n@throws {ToolError} when the tool reports an error.`, "  ") +
        `  ${methodName(d.name)}(input${optional}: ${base}Input, options?: CallOptions): Promise<${outType}> {\n` +
        `    return this.typedCall(${JSON.stringify(d.name)}, input ?? {}, options);\n  }\n`,
    );
  }
  out += `\n/** Every tool's name. */\nexport type ToolName =\n${names.map((n) => `  | ${JSON.stringify(n)}`).join("\n")};\n`;
  out += `\n/** One typed method per tool (name: the tool's with - as _); the Toolbox extends this. */
export abstract class ToolMethods {
  /** Call \`name\`; resolve with the outcome's output, throw ToolError when is_error. */
  protected abstract typedCall<T>(name: string, input: object, options: CallOptions | undefined): Promise<T>;

${methods.join("\n")}}
`;
  return out;
}

function main() {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const [binary] = args.filter((a) => a !== "--check");
  if (!binary) {
    console.error("usage: node npm/scripts/gen-types.mjs BINARY [--check]");
    process.exit(2);
  }
  const all = schemaOf(binary, ["--checkpoint"]);
  const plain = new Set(schemaOf(binary, []).map((d) => d.name));
  const text = generate(all, plain);
  if (!check) {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT} (${all.length} tools)`);
    return;
  }
  let old = "";
  try {
    old = readFileSync(OUT, "utf8");
  } catch {}
  if (old === text) return;
  const a = old.split("\n");
  const b = text.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  console.error(
    `${OUT} is not what \`${binary} --checkpoint schema\` gives; first difference at line ${i + 1}:\n` +
      `- ${a[i] ?? "(end of file)"}\n+ ${b[i] ?? "(end of file)"}\n` +
      `Run: node npm/scripts/gen-types.mjs ${binary}`,
  );
  process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
