/**
 * Zod-free exact check of a {@linkcode SessionContext}: accepts exactly
 * what `sessionContextSchema` (the contract, in `context.ts`) accepts, so
 * the store can check the context it writes and reads without loading
 * zod. `parseSessionContext` still gives the detailed issues.
 * tests/schema/context_check_test.ts holds the two equal.
 *
 * @module
 */
import type { SessionContext } from "./context.ts";
import {
  isNonEmpty,
  isObject,
  isPositiveInt,
  onlyKeys,
  optional,
} from "./_checks.ts";

const KEYS = [
  "workingDir",
  "activeFile",
  "selection",
  "gitRef",
  "fsScopeTier",
  "variables",
];
const TIERS: readonly unknown[] = ["sandboxed", "project", "full"];

function isSelection(v: unknown): boolean {
  if (!isObject(v) || !onlyKeys(v, ["file", "startLine", "endLine"])) {
    return false;
  }
  const { startLine, endLine } = v;
  return isNonEmpty(v["file"]) && isPositiveInt(startLine) &&
    isPositiveInt(endLine) &&
    startLine <= endLine;
}

/**
 * zod's `isPlainObject` (what `z.record` accepts): an object whose
 * constructor looks like `Object`'s, or that has none.
 *
 * @param v Any value.
 * @returns Whether zod would take `v` as a record.
 *
 * @example
 * ```ts
 * import { isPlainObject } from "./context_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isPlainObject(Object.create(null)), true);
 * assert.equal(isPlainObject(new Map()), false);
 * ```
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const ctor = (v as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== "function") return true;
  const proto: unknown = ctor.prototype;
  return isObject(proto) && Object.hasOwn(proto, "isPrototypeOf");
}

/**
 * What `z.record(z.string(), z.string())` accepts: a plain object whose
 * string-keyed values are strings and that has no enumerable symbol key;
 * an own `__proto__` key is skipped (zod leaves it out of its output).
 *
 * @param v Any value.
 * @returns Whether zod's string record accepts `v`.
 *
 * @example
 * ```ts
 * import { isStringRecord } from "./context_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isStringRecord({ a: "b" }), true);
 * assert.equal(isStringRecord({ a: 1 }), false);
 * ```
 */
export function isStringRecord(v: unknown): v is Record<string, string> {
  if (!isPlainObject(v)) return false;
  for (const key of Object.getOwnPropertySymbols(v)) {
    if (Object.prototype.propertyIsEnumerable.call(v, key)) return false;
  }
  for (const key of Object.keys(v)) {
    if (key !== "__proto__" && typeof v[key] !== "string") return false;
  }
  return true;
}

/**
 * Exactly `sessionContextSchema`'s acceptance, without zod.
 *
 * @param v Any value.
 * @returns Whether `v` is a valid {@linkcode SessionContext}.
 *
 * @example
 * ```ts
 * import { isSessionContext } from "./context_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isSessionContext({ workingDir: "/w", fsScopeTier: "sandboxed" }), true);
 * assert.equal(isSessionContext({ workingDir: "/w", fsScopeTier: "open" }), false);
 * ```
 */
export function isSessionContext(v: unknown): v is SessionContext {
  return isObject(v) && onlyKeys(v, KEYS) && isNonEmpty(v["workingDir"]) &&
    TIERS.includes(v["fsScopeTier"]) &&
    optional(v, "activeFile", isNonEmpty) &&
    optional(v, "selection", isSelection) &&
    optional(v, "gitRef", isNonEmpty) &&
    optional(v, "variables", isStringRecord);
}
