/**
 * The one streaming chunk union every provider yields (llm.md §3–§5), with
 * its strict zod schema (used to validate cassettes).
 *
 * @module
 */
import { z } from "zod";
import { isRetryableKind, LLM_ERROR_KINDS } from "./chunk_check.ts";

/**
 * Canonical provider stop reasons.
 *
 * @example Value
 * ```ts
 * import type { StopReason } from "@relavium/session/llm";
 * const s: StopReason = "tool_use";
 * ```
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
 *
 * @example Value
 * ```ts
 * import type { Usage } from "@relavium/session/llm";
 * const u: Usage = { inputTokens: 12, outputTokens: 4 };
 * ```
 */
export interface Usage {
  /** Uncached input tokens (net of cache reads and writes). */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens?: number;
  /** Reasoning tokens (≤ output; observability only). */
  reasoningTokens?: number;
  /** Cost of these tokens, when priced (llm.md §7). */
  costMicrocents?: number;
}

/**
 * Classified provider error kinds.
 *
 * @example Value
 * ```ts
 * import type { LlmErrorKind } from "@relavium/session/llm";
 * const k: LlmErrorKind = "rate_limit";
 * ```
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
 * `kind` (see {@linkcode isRetryableKind}); `message` is never shown to
 * users or stored.
 *
 * @example Value
 * ```ts
 * import type { LlmError } from "@relavium/session/llm";
 * const e: LlmError = { kind: "rate_limit", retryable: true, provider: "anthropic", message: "slow down", retryAfterMs: 1000 };
 * ```
 */
export interface LlmError {
  /** The classified kind; retry policy depends on it alone. */
  kind: LlmErrorKind;
  /** Derived from `kind`, never set independently. */
  retryable: boolean;
  /** The provider id that failed. */
  provider: string;
  /** Scrubbed diagnostic text; never shown to users or stored. */
  message: string;
  /** Provider error code, scrubbed (e.g. `possible_context_overflow`). */
  code?: string;
  /** HTTP status, when there was a response. */
  status?: number;
  /** From a `retry-after` header, when the provider sent one. */
  retryAfterMs?: number;
}

/**
 * The streaming chunk union. Exactly one terminal (`stop` | `error`), last.
 *
 * @example Value
 * ```ts
 * import type { StreamChunk } from "@relavium/session/llm";
 * const c: StreamChunk = { type: "text_delta", text: "Hi" };
 * ```
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
  | { type: "tool_call_end"; id: string }
  | {
    type: "stop";
    stopReason: StopReason;
    usage: Usage;
    contextExceeded?: true;
  }
  | { type: "error"; error: LlmError };

export { isRetryableKind } from "./chunk_check.ts";

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * Strict usage schema.
 *
 * @example Validate
 * ```ts
 * import { usageSchema } from "./chunk.ts";
 * import assert from "node:assert/strict";
 * assert.ok(usageSchema.safeParse({ inputTokens: 1, outputTokens: 2 }).success);
 * ```
 */
export const usageSchema: z.ZodType<Usage> = z.strictObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count.exactOptional(),
  cacheWriteTokens: count.exactOptional(),
  reasoningTokens: count.exactOptional(),
  costMicrocents: count.exactOptional(),
});

/**
 * Strict error schema; `retryable` must match the kind.
 *
 * @example Validate
 * ```ts
 * import { llmErrorSchema } from "./chunk.ts";
 * import assert from "node:assert/strict";
 * const bad = { kind: "auth", retryable: true, provider: "openai", message: "x" };
 * assert.equal(llmErrorSchema.safeParse(bad).success, false);
 * ```
 */
export const llmErrorSchema: z.ZodType<LlmError> = z.strictObject({
  kind: z.enum(LLM_ERROR_KINDS),
  retryable: z.boolean(),
  provider: z.string().min(1),
  message: z.string(),
  code: z.string().exactOptional(),
  status: z.number().int().min(100).max(599).exactOptional(),
  retryAfterMs: count.exactOptional(),
}).refine((e) => e.retryable === isRetryableKind(e.kind), {
  message: "retryable must match the error kind",
  path: ["retryable"],
});

const id = z.string().min(1);

/**
 * Strict schema of one {@linkcode StreamChunk}: unknown types and fields are
 * refused.
 *
 * @example Validate
 * ```ts
 * import { streamChunkSchema } from "./chunk.ts";
 * import assert from "node:assert/strict";
 * assert.ok(streamChunkSchema.safeParse({ type: "text_delta", text: "x" }).success);
 * assert.equal(streamChunkSchema.safeParse({ type: "text_delta", text: "x", extra: 1 }).success, false);
 * ```
 */
export const streamChunkSchema: z.ZodType<StreamChunk> = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("text_delta"), text: z.string() }),
    z.strictObject({ type: z.literal("reasoning_start"), id }),
    z.strictObject({
      type: z.literal("reasoning_delta"),
      id,
      text: z.string(),
    }),
    z.strictObject({
      type: z.literal("reasoning_end"),
      id,
      signature: z.string().exactOptional(),
      redacted: z.boolean().exactOptional(),
    }),
    z.strictObject({
      type: z.literal("tool_call_start"),
      id,
      name: z.string().min(1),
    }),
    z.strictObject({
      type: z.literal("tool_call_delta"),
      id,
      argsJsonDelta: z.string(),
    }),
    z.strictObject({ type: z.literal("tool_call_end"), id }),
    z.strictObject({
      type: z.literal("stop"),
      stopReason: z.enum([
        "stop",
        "length",
        "tool_use",
        "content_filter",
        "error",
      ]),
      usage: usageSchema,
      contextExceeded: z.literal(true).exactOptional(),
    }),
    z.strictObject({ type: z.literal("error"), error: llmErrorSchema }),
  ],
);
