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
 */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/**
 * Builds a failed {@linkcode Result}.
 *
 * @param error The expected failure.
 * @returns `{ ok: false, error }`.
 */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
