import assert from "node:assert/strict";
import {
  geminiParameters,
  toGeminiSchema,
} from "../../../llm/gemini/_schema.ts";
import { z } from "../../../schema/zod.ts";

Deno.test("toGeminiSchema() converts JSON Schema to the subset Gemini accepts", async (t) => {
  const table: Array<[string, unknown, unknown]> = [
    [
      "object: types upper-cased, $schema and additionalProperties dropped",
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          path: { type: "string", description: "File path" },
          lines: { type: "integer", minimum: 1, exclusiveMaximum: 500 },
        },
        required: ["path", "ghost"],
        additionalProperties: false,
      },
      {
        type: "OBJECT",
        properties: {
          path: { type: "STRING", description: "File path" },
          lines: { type: "INTEGER", minimum: 1 },
        },
        required: ["path"],
      },
    ],
    [
      "const → a one-value enum",
      { const: "read" },
      { enum: ["read"], type: "STRING" },
    ],
    [
      "string enum kept; a numeric enum dropped, its type kept",
      {
        type: "object",
        properties: {
          mode: { type: "string", enum: ["a", "b"] },
          level: { type: "integer", enum: [1, 2] },
        },
      },
      {
        type: "OBJECT",
        properties: {
          mode: { type: "STRING", enum: ["a", "b"] },
          level: { type: "INTEGER" },
        },
      },
    ],
    [
      "a type list with null: nullable",
      { type: ["string", "null"], format: "date-time" },
      { nullable: true, type: "STRING", format: "date-time" },
    ],
    [
      "formats Gemini does not take are dropped",
      { type: "string", format: "uri", pattern: "^h" },
      { pattern: "^h", type: "STRING" },
    ],
    [
      "several types: anyOf",
      { type: ["string", "number"] },
      { anyOf: [{ type: "STRING" }, { type: "NUMBER" }] },
    ],
    [
      "oneOf → anyOf; a null alternative → nullable; one left is inlined",
      { oneOf: [{ type: "string" }, { type: "null" }], description: "d" },
      { type: "STRING", description: "d", nullable: true },
    ],
    [
      "anyOf of two objects",
      {
        anyOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { type: "object", properties: { b: { type: "boolean" } } },
        ],
      },
      {
        anyOf: [
          { type: "OBJECT", properties: { a: { type: "STRING" } } },
          { type: "OBJECT", properties: { b: { type: "BOOLEAN" } } },
        ],
      },
    ],
    [
      "allOf merged",
      {
        allOf: [
          {
            type: "object",
            properties: { a: { type: "string" } },
            required: ["a"],
          },
          { properties: { b: { type: "number" } }, required: ["b"] },
        ],
      },
      {
        type: "OBJECT",
        properties: { a: { type: "STRING" }, b: { type: "NUMBER" } },
        required: ["a", "b"],
      },
    ],
    [
      "arrays: items converted, bounds as strings, a tuple's first item",
      {
        type: "array",
        items: [{ type: "string" }, { type: "number" }],
        minItems: 1,
        maxItems: 3,
        uniqueItems: true,
      },
      {
        type: "ARRAY",
        minItems: "1",
        maxItems: "3",
        items: { type: "STRING" },
      },
    ],
    [
      "an array without items gets string items",
      { type: "array" },
      { type: "ARRAY", items: { type: "STRING" } },
    ],
    [
      "local $refs inlined",
      {
        type: "object",
        properties: { p: { $ref: "#/$defs/point" } },
        $defs: {
          point: {
            type: "object",
            properties: { x: { type: "number" } },
            required: ["x"],
          },
        },
      },
      {
        type: "OBJECT",
        properties: {
          p: {
            type: "OBJECT",
            properties: { x: { type: "NUMBER" } },
            required: ["x"],
          },
        },
      },
    ],
    [
      "not, if/then and patternProperties dropped",
      {
        type: "object",
        not: { required: ["x"] },
        if: {},
        then: {},
        patternProperties: { "^x": {} },
        properties: { s: { type: "string", minLength: 2, maxLength: 9 } },
      },
      {
        type: "OBJECT",
        properties: { s: { type: "STRING", minLength: "2", maxLength: "9" } },
      },
    ],
    ["not an object: an unconstrained value", "string", {}],
  ];
  for (const [name, input, expected] of table) {
    await t.step(name, () => {
      assert.deepEqual(toGeminiSchema(input), expected);
    });
  }
});

Deno.test("toGeminiSchema() ends on a self-referencing schema", () => {
  const schema = {
    type: "object",
    properties: { next: { $ref: "#" } },
    $defs: {},
  };
  // `#` is not a $defs reference: the property is an unconstrained value.
  assert.deepEqual(toGeminiSchema(schema), {
    type: "OBJECT",
    properties: { next: {} },
  });
  const cyclic = {
    $defs: {
      node: {
        type: "object",
        properties: { child: { $ref: "#/$defs/node" } },
      },
    },
    $ref: "#/$defs/node",
  };
  let depth = 0;
  let cursor: unknown = toGeminiSchema(cyclic);
  while (
    typeof cursor === "object" && cursor !== null && "properties" in cursor
  ) {
    cursor = (cursor as { properties: { child: unknown } }).properties.child;
    depth++;
    assert.ok(depth < 100, "the conversion is depth-bounded");
  }
  assert.ok(depth > 1);
});

Deno.test("geminiParameters() converts a zod tool schema and leaves out an empty one", () => {
  const schema = z.toJSONSchema(
    z.strictObject({
      path: z.string().check(z.minLength(1)),
      mode: z.optional(z.enum(["text", "bytes"])),
      limit: z.optional(z.nullable(z.number())),
    }),
  );
  assert.deepEqual(geminiParameters(schema), {
    type: "OBJECT",
    properties: {
      path: { type: "STRING", minLength: "1" },
      mode: { type: "STRING", enum: ["text", "bytes"] },
      limit: { type: "NUMBER", nullable: true },
    },
    required: ["path"],
  });
  assert.equal(geminiParameters({ type: "object", properties: {} }), undefined);
  assert.equal(geminiParameters({ type: "object" }), undefined);
});
