/**
 * The wait a provider asked for: `retry-after-ms`, else
 * `retry-after` as seconds or an HTTP date. `x-should-retry` is ignored:
 * retry policy depends on the error kind alone.
 *
 * @module
 */

/** Longest wait we record (a day); anything longer is nonsense. */
const MAX_MS = 86_400_000;

/**
 * Reads the requested wait from response headers.
 *
 * @param headers The response headers.
 * @param now Epoch ms, to turn an HTTP date into a wait; without it an HTTP
 *   date is ignored.
 * @returns The wait in whole ms (≥ 0), or `undefined` when absent or
 *   unreadable.
 */
export function retryAfterMs(
  headers: Headers,
  now?: () => number,
): number | undefined {
  const ms = numeric(headers.get("retry-after-ms"), 1);
  if (ms !== undefined) return ms;
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = numeric(raw, 1000);
  if (seconds !== undefined) return seconds;
  if (now === undefined) return undefined;
  const at = Date.parse(raw.trim());
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil(at - now())), MAX_MS);
}

function numeric(raw: string | null, scale: number): number | undefined {
  if (raw === null) return undefined;
  const text = raw.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const value = Math.ceil(Number(text) * scale);
  return Number.isFinite(value) ? Math.min(value, MAX_MS) : undefined;
}
