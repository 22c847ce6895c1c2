/**
 * The bounds of one provider call: first-byte and idle timeouts and the
 * response size bound, their defaults, and how configured values are
 * checked. The CLI's config reads the defaults from here.
 *
 * @module
 */
import type { HttpProviderOptions } from "./http.ts";

/**
 * The three bounds of one call, resolved.
 */
export interface StreamLimits {
  /**
   * Ms from sending the request until the first content (first-byte
   * timeout).
   */
  firstByteTimeoutMs: number;
  /** Longest gap between two content events, in ms (idle timeout). */
  idleTimeoutMs: number;
  /** Most bytes of one response body. */
  maxResponseBytes: number;
}

/** The options the bounds come from: the HTTP provider options' own. */
export type StreamLimitOptions = Pick<
  HttpProviderOptions,
  "firstByteTimeoutMs" | "idleTimeoutMs" | "maxResponseBytes"
>;

/** Default first-byte timeout: 60 s. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 60_000;
/** Default idle-stream timeout: 300 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
/** Default response size bound: 64 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES: number = 64 * 1024 * 1024;
/** Longest timer a runtime keeps exactly (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

function checked(
  value: number | undefined,
  fallback: number,
  name: string,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw new RangeError(
      `Cannot create the provider: ${name} must be a positive integer of at most ${max}, got ${value}`,
    );
  }
  return value;
}

/**
 * Resolves the bounds of a provider's calls, defaults filled in.
 *
 * @param options The configured bounds.
 * @returns The bounds.
 * @throws {RangeError} When a bound is not a positive integer, or a timeout
 *   is longer than a timer can hold.
 */
export function streamLimits(options: StreamLimitOptions): StreamLimits {
  return {
    firstByteTimeoutMs: checked(
      options.firstByteTimeoutMs,
      DEFAULT_FIRST_BYTE_TIMEOUT_MS,
      "firstByteTimeoutMs",
      MAX_TIMER_MS,
    ),
    idleTimeoutMs: checked(
      options.idleTimeoutMs,
      DEFAULT_IDLE_TIMEOUT_MS,
      "idleTimeoutMs",
      MAX_TIMER_MS,
    ),
    maxResponseBytes: checked(
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
      "maxResponseBytes",
      Number.MAX_SAFE_INTEGER,
    ),
  };
}
