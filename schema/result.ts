/**
 * The typed result shape used for every expected failure in this package.
 *
 * @module
 */

/**
 * A value or an expected failure, never a throw.
 */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/**
 * Builds a successful {@linkcode Result}.
 *
 * @param value The value.
 * @returns `{ ok: true, value }`.
 *
 * @example Wrap a value
 * ```ts
 * import { ok } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * assert.deepEqual(ok(3), { ok: true, value: 3 });
 * ```
 */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/**
 * Builds a failed {@linkcode Result}.
 *
 * @param error The expected failure.
 * @returns `{ ok: false, error }`.
 *
 * @example Wrap an error
 * ```ts
 * import { err } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * assert.deepEqual(err("nope"), { ok: false, error: "nope" });
 * ```
 */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
