/**
 * Zod-free exact checks of the seam's wire values ({@linkcode StreamChunk},
 * {@linkcode Usage}, {@linkcode LlmError}): each accepts exactly what the
 * strict schemas of `chunk.ts` accept (tests/llm/chunk_check_test.ts
 * holds them equal over a corpus of valid values and single-field
 * mutations). The schemas stay the contract and produce the error
 * messages; these checks let a hot path (a cassette read by a one-shot
 * `agent run`) accept valid input without loading zod.
 *
 * @module
 */
import type { LlmError, LlmErrorKind, StreamChunk, Usage } from "./chunk.ts";
import {
  isCount,
  isNonEmpty,
  isObject,
  onlyKeys,
  optional,
} from "../schema/_checks.ts";

const RETRYABLE: ReadonlySet<LlmErrorKind> = new Set([
  "rate_limit",
  "overloaded",
  "timeout",
  "transport",
]);

/**
 * Every {@linkcode LlmErrorKind}, in the spec's order.
 *
 * @example
 * ```ts
 * import { LLM_ERROR_KINDS } from "./chunk_check.ts";
 * import assert from "node:assert/strict";
 * assert.ok(LLM_ERROR_KINDS.includes("context_overflow"));
 * ```
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

const ERROR_KINDS: ReadonlySet<unknown> = new Set(LLM_ERROR_KINDS);

const STOP_REASONS: ReadonlySet<unknown> = new Set([
  "stop",
  "length",
  "tool_use",
  "content_filter",
  "error",
]);

/**
 * Whether an error kind is retryable (llm.md §5).
 *
 * @param kind The error kind.
 * @returns `true` for `rate_limit`, `overloaded`, `timeout`, `transport`.
 *
 * @example Check
 * ```ts
 * import { isRetryableKind } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.equal(isRetryableKind("overloaded"), true);
 * assert.equal(isRetryableKind("auth"), false);
 * ```
 */
export function isRetryableKind(kind: LlmErrorKind): boolean {
  return RETRYABLE.has(kind);
}

const USAGE_KEYS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
  "costMicrocents",
];

/**
 * Exactly `usageSchema`'s acceptance, without zod.
 *
 * @param v Any value.
 * @returns Whether `v` is a valid {@linkcode Usage}.
 *
 * @example
 * ```ts
 * import { isUsage } from "./chunk_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isUsage({ inputTokens: 3, outputTokens: 1 }), true);
 * assert.equal(isUsage({ inputTokens: 3, outputTokens: 1.5 }), false);
 * ```
 */
export function isUsage(v: unknown): v is Usage {
  return isObject(v) && onlyKeys(v, USAGE_KEYS) &&
    isCount(v["inputTokens"]) && isCount(v["outputTokens"]) &&
    optional(v, "cacheReadTokens", isCount) &&
    optional(v, "cacheWriteTokens", isCount) &&
    optional(v, "reasoningTokens", isCount) &&
    optional(v, "costMicrocents", isCount);
}

const ERROR_KEYS = [
  "kind",
  "retryable",
  "provider",
  "message",
  "code",
  "status",
  "retryAfterMs",
];

function isStatus(v: unknown): boolean {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 100 &&
    v <= 599;
}

/**
 * Exactly `llmErrorSchema`'s acceptance (incl. `retryable` matching the
 * kind), without zod.
 *
 * @param v Any value.
 * @returns Whether `v` is a valid {@linkcode LlmError}.
 *
 * @example
 * ```ts
 * import { isLlmError } from "./chunk_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isLlmError({ kind: "auth", retryable: false, provider: "openai", message: "no" }), true);
 * assert.equal(isLlmError({ kind: "auth", retryable: true, provider: "openai", message: "no" }), false);
 * ```
 */
export function isLlmError(v: unknown): v is LlmError {
  return isObject(v) && onlyKeys(v, ERROR_KEYS) &&
    ERROR_KINDS.has(v["kind"]) && typeof v["retryable"] === "boolean" &&
    isNonEmpty(v["provider"]) && typeof v["message"] === "string" &&
    optional(v, "code", (c) => typeof c === "string") &&
    optional(v, "status", isStatus) &&
    optional(v, "retryAfterMs", isCount) &&
    v["retryable"] === isRetryableKind(v["kind"] as LlmErrorKind);
}

/**
 * Exactly `streamChunkSchema`'s acceptance, without zod.
 *
 * @param v Any value.
 * @returns Whether `v` is a valid {@linkcode StreamChunk}.
 *
 * @example
 * ```ts
 * import { isStreamChunk } from "./chunk_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isStreamChunk({ type: "text_delta", text: "hi" }), true);
 * assert.equal(isStreamChunk({ type: "text_delta", text: "hi", extra: 1 }), false);
 * ```
 */
export function isStreamChunk(v: unknown): v is StreamChunk {
  if (!isObject(v)) return false;
  switch (v["type"]) {
    case "text_delta":
      return onlyKeys(v, ["type", "text"]) && typeof v["text"] === "string";
    case "reasoning_start":
    case "tool_call_end":
      return onlyKeys(v, ["type", "id"]) && isNonEmpty(v["id"]);
    case "reasoning_delta":
      return onlyKeys(v, ["type", "id", "text"]) && isNonEmpty(v["id"]) &&
        typeof v["text"] === "string";
    case "reasoning_end":
      return onlyKeys(v, ["type", "id", "signature", "redacted"]) &&
        isNonEmpty(v["id"]) &&
        optional(v, "signature", (s) => typeof s === "string") &&
        optional(v, "redacted", (r) => typeof r === "boolean");
    case "tool_call_start":
      return onlyKeys(v, ["type", "id", "name"]) && isNonEmpty(v["id"]) &&
        isNonEmpty(v["name"]);
    case "tool_call_delta":
      return onlyKeys(v, ["type", "id", "argsJsonDelta"]) &&
        isNonEmpty(v["id"]) &&
        typeof v["argsJsonDelta"] === "string";
    case "stop":
      return onlyKeys(v, ["type", "stopReason", "usage", "contextExceeded"]) &&
        STOP_REASONS.has(v["stopReason"]) && isUsage(v["usage"]) &&
        optional(v, "contextExceeded", (c) => c === true);
    case "error":
      return onlyKeys(v, ["type", "error"]) && isLlmError(v["error"]);
    default:
      return false;
  }
}
