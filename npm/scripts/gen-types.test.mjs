// The JSON Schema -> TypeScript conversion of gen-types.mjs on the keywords the
// toolbox's schemas do not all use yet (run by tests/it/npm_package.rs: node --test).

import assert from "node:assert/strict";
import { test } from "node:test";

import { generate, toType } from "./gen-types.mjs";

test("primitives, enums, const and nullable type arrays", () => {
  assert.equal(toType({ type: "string" }), "string");
  assert.equal(toType({ type: "integer", minimum: 0 }), "number");
  assert.equal(toType({ type: ["integer", "null"] }), "number | null");
  assert.equal(toType({ type: "string", nullable: true }), "string | null");
  assert.equal(toType({ type: "string", enum: ["a", "b"] }), '"a" | "b"');
  assert.equal(toType({ const: 3 }), "3");
  assert.equal(toType({ type: "null" }), "null");
  assert.equal(toType({}), "unknown");
});

test("arrays, unions and maps", () => {
  assert.equal(toType({ type: "array", items: { type: "string" } }), "string[]");
  assert.equal(toType({ type: "array", items: { type: ["string", "null"] } }), "Array<string | null>");
  assert.equal(toType({ oneOf: [{ type: "string" }, { type: "array", items: { type: "number" } }] }), "string | number[]");
  assert.equal(toType({ anyOf: [{ type: "boolean" }, { type: "null" }] }), "boolean | null");
  assert.equal(toType({ type: "object" }), "Record<string, unknown>");
  assert.equal(toType({ type: "object", additionalProperties: false }), "Record<string, never>");
  assert.equal(toType({ type: "object", additionalProperties: { type: "integer" } }), "Record<string, number>");
});

test("objects: required, optional, quoted keys, an index signature, deprecated inputs left out", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "string", description: "The a." },
      "b-c": { type: "boolean" },
      old: { type: "string", deprecated: true },
    },
    required: ["a"],
    additionalProperties: { type: "string" },
  };
  assert.equal(
    toType(schema, { input: true }),
    '{\n  /** The a. */\n  a: string;\n  "b-c"?: boolean;\n  [key: string]: string;\n}',
  );
  assert.match(toType(schema, { input: false }), /old\?: string;/);
});

test("an unknown keyword stops the generator", () => {
  assert.throws(() => toType({ $ref: "#/$defs/x" }, { where: "t.parameters" }), /t\.parameters: unsupported JSON Schema keyword "\$ref"/);
});

test("a tool whose method would shadow the Toolbox's own is refused", () => {
  const tool = (name) => ({ name, description: "", parameters: { type: "object", properties: {} } });
  assert.throws(() => generate([tool("close")], new Set(["close"])), /shadow/);
  assert.throws(() => generate([tool("a-b"), tool("a_b")], new Set()), /two tools/);
  assert.match(generate([tool("bg-process")], new Set()), /bg_process\(input\?: BgProcessInput/);
});
