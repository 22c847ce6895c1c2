/**
 * Reading rows that hold integers at the 64-bit limits: `node:sqlite`
 * throws a `RangeError` for an integer a JavaScript number cannot hold.
 * The reads that met one run again with big integers, every safe one
 * turned back into a number, so the row's codec names the column (and a
 * message its row) as damaged instead of the error escaping unnamed.
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";

/**
 * Whether `error` is `node:sqlite`'s refusal of an integer a JavaScript
 * number cannot hold.
 *
 * @param error Anything thrown.
 * @returns `true` for that refusal.
 */
export function isOutOfRange(error: unknown): boolean {
  return error instanceof RangeError &&
    (error as { code?: unknown }).code === "ERR_OUT_OF_RANGE";
}

function narrowed(value: unknown): unknown {
  if (typeof value !== "bigint") return value;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}

function narrowRow(row: unknown): unknown {
  if (Array.isArray(row)) return row.map(narrowed);
  if (typeof row !== "object" || row === null) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = narrowed(v);
  return out;
}

/**
 * Runs `read` on `statement` with big integers on: every integer a number
 * holds comes back as a number, the others as `bigint` (which the codecs
 * refuse, naming the column).
 *
 * @param statement A prepared statement.
 * @param read The read (`get` or `all` with its parameters).
 * @returns The rows read.
 */
export function readWide<T>(
  statement: StatementSync,
  read: (s: StatementSync) => T,
): T {
  statement.setReadBigInts(true);
  try {
    const rows = read(statement);
    return (Array.isArray(rows) ? rows.map(narrowRow) : narrowRow(rows)) as T;
  } finally {
    statement.setReadBigInts(false);
  }
}
