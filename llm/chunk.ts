/**
 * The one streaming chunk union every provider yields, its usage and error
 * values, and the retry rule of error kinds. No zod here: the schemas are
 * in `_chunk_schema.ts`, loaded only by what validates chunks.
 *
 * @module
 */

/**
 * Canonical provider stop reasons.
 */
export type StopReason =
  | "stop"
  | "length"
  | "tool_use"
  | "content_filter"
  | "error";

/**
 * Token usage of one attempt. Classes are disjoint: `inputTokens` excludes
 * cache reads and writes.
 */
export interface Usage {
  /** Uncached input tokens (net of cache reads and writes). */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache (every TTL together). */
  cacheWriteTokens?: number;
  /**
   * The part of `cacheWriteTokens` written with the 1-hour TTL (priced at
   * the 1-hour write rate; the rest at the 5-minute rate).
   */
  cacheWrite1hTokens?: number;
  /** Reasoning tokens (≤ output; observability only). */
  reasoningTokens?: number;
  /** Cost of these tokens in microcents, when priced. */
  costMicrocents?: number;
}

/**
 * Classified provider error kinds.
 */
export type LlmErrorKind =
  | "rate_limit"
  | "overloaded"
  | "timeout"
  | "transport"
  | "auth"
  | "bad_request"
  | "content_filter"
  | "cancelled"
  | "unknown"
  | "context_overflow";

/**
 * A classified, scrubbed provider error. `retryable` is derived from
 * `kind` (see {@linkcode isRetryableKind}). `message` is meant for people:
 * the provider's own words (or the transport's cause, with the URL), scrubbed
 * of keys and bounded; the session error a turn ends with carries it.
 */
export interface LlmError {
  /** The classified kind; retry policy depends on it alone. */
  kind: LlmErrorKind;
  /** Derived from `kind`, never set independently. */
  retryable: boolean;
  /** The provider id that failed. */
  provider: string;
  /**
   * What went wrong, scrubbed of secrets and bounded: the provider's own
   * error text, or for a failed connection the URL and its cause
   * (`Could not connect to <url>: connection refused`). Shown to people
   * in the turn's session error.
   */
  message: string;
  /** Provider error code, scrubbed (e.g. `possible_context_overflow`). */
  code?: string;
  /** HTTP status, when there was a response. */
  status?: number;
  /** From a `retry-after` header, when the provider sent one. */
  retryAfterMs?: number;
  /** The provider's request id (`request-id` / `x-request-id` header). */
  requestId?: string;
}

/**
 * The streaming chunk union. Exactly one terminal (`stop` | `error`), last.
 * A `reasoning_end`'s `signature` is the provider's opaque token for
 * replaying the block: a thinking block's signature or, when `redacted`,
 * the redacted block's encrypted data. A `tool_call_end`'s `signature` is
 * an opaque token the provider wants back with the call (Gemini's thought
 * signature). A `stop` with `usageUnknown` carried no usage: its `usage`
 * is zeros standing for "not reported", never a measurement.
 */
export type StreamChunk =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_start"; id: string }
  | { type: "reasoning_delta"; id: string; text: string }
  | {
    type: "reasoning_end";
    id: string;
    signature?: string;
    redacted?: boolean;
  }
  | { type: "tool_call_start"; id: string; name: string }
  | { type: "tool_call_delta"; id: string; argsJsonDelta: string }
  | { type: "tool_call_end"; id: string; signature?: string }
  | {
    type: "stop";
    stopReason: StopReason;
    usage: Usage;
    contextExceeded?: true;
    usageUnknown?: true;
  }
  | { type: "error"; error: LlmError };

/**
 * Every {@linkcode LlmErrorKind}.
 */
export const LLM_ERROR_KINDS: readonly [LlmErrorKind, ...LlmErrorKind[]] = [
  "rate_limit",
  "overloaded",
  "timeout",
  "transport",
  "auth",
  "bad_request",
  "content_filter",
  "cancelled",
  "unknown",
  "context_overflow",
];

const RETRYABLE: ReadonlySet<LlmErrorKind> = new Set([
  "rate_limit",
  "overloaded",
  "timeout",
  "transport",
]);

/**
 * Whether an error kind is retryable: a later attempt may succeed.
 *
 * @param kind The error kind.
 * @returns `true` for `rate_limit`, `overloaded`, `timeout`, `transport`.
 */
export function isRetryableKind(kind: LlmErrorKind): boolean {
  return RETRYABLE.has(kind);
}
