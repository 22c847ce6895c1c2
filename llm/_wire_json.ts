/**
 * Narrowing helpers for provider JSON (`unknown` in, typed fields out), so
 * adapters read wire objects without `any` and without throwing.
 *
 * @module
 */

/**
 * A parsed JSON object.
 *
 * @example Value
 * ```ts
 * import type { JsonObject } from "./_wire_json.ts";
 * const o: JsonObject = { type: "ping" };
 * ```
 */
export type JsonObject = Record<string, unknown>;

/**
 * Whether a value is a plain JSON object (not null, not an array).
 *
 * @param value Any value.
 * @returns `true` for objects.
 *
 * @example Check
 * ```ts
 * import { isObject } from "./_wire_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isObject({}), true);
 * assert.equal(isObject([]), false);
 * assert.equal(isObject(null), false);
 * ```
 */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses JSON text, `undefined` when it is not valid JSON.
 *
 * @param text JSON text.
 * @returns The value, or `undefined`.
 *
 * @example Parse
 * ```ts
 * import { parseJson } from "./_wire_json.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseJson('{"a":1}'), { a: 1 });
 * assert.equal(parseJson("{nope"), undefined);
 * ```
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A field of an object, when it is an object.
 *
 * @param o The object (or anything).
 * @param key The field.
 * @returns The nested object, or `undefined`.
 *
 * @example Read
 * ```ts
 * import { objectField } from "./_wire_json.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(objectField({ error: { type: "x" } }, "error"), { type: "x" });
 * assert.equal(objectField({ error: "x" }, "error"), undefined);
 * ```
 */
export function objectField(o: unknown, key: string): JsonObject | undefined {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return isObject(v) ? v : undefined;
}

/**
 * A field of an object, when it is a string.
 *
 * @param o The object (or anything).
 * @param key The field.
 * @returns The string, or `undefined`.
 *
 * @example Read
 * ```ts
 * import { stringField } from "./_wire_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(stringField({ type: "ping" }, "type"), "ping");
 * assert.equal(stringField({ type: 1 }, "type"), undefined);
 * ```
 */
export function stringField(o: unknown, key: string): string | undefined {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

/**
 * A field of an object, when it is a non-negative safe integer (token
 * counts).
 *
 * @param o The object (or anything).
 * @param key The field.
 * @returns The count, or `undefined`.
 *
 * @example Read
 * ```ts
 * import { countField } from "./_wire_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countField({ n: 3 }, "n"), 3);
 * assert.equal(countField({ n: -1 }, "n"), undefined);
 * assert.equal(countField({ n: null }, "n"), undefined);
 * ```
 */
export function countField(o: unknown, key: string): number | undefined {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0
    ? v
    : undefined;
}
