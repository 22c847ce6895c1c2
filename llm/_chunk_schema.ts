/**
 * The strict zod schemas of the chunk seam's wire values: unknown chunk
 * types and fields are refused, and an error's `retryable` must match its
 * kind. Cassettes and the test servers validate with them.
 *
 * @module
 */
import { z } from "zod";
import {
  isRetryableKind,
  LLM_ERROR_KINDS,
  type LlmError,
  type StreamChunk,
  type Usage,
} from "./chunk.ts";

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * Strict usage schema.
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
  {
    error: (issue) =>
      issue.code === "invalid_union" ? "unknown chunk type" : undefined,
  },
);
