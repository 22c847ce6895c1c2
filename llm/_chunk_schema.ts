/**
 * The strict zod schemas of the chunk seam's wire values: unknown chunk
 * types and fields are refused, and an error's `retryable` must match its
 * kind. Cassettes and the test servers validate with them.
 *
 * @module
 */
import { z } from "../schema/zod.ts";
import {
  isRetryableKind,
  LLM_ERROR_KINDS,
  type LlmError,
  type StreamChunk,
  type Usage,
} from "./chunk.ts";
import type { Holds, Same } from "../schema/type_equal.ts";

const count = z.number().check(
  z.int(),
  z.minimum(0),
  z.maximum(Number.MAX_SAFE_INTEGER),
);

const usageInferred = z.strictObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: z.exactOptional(count),
  cacheWriteTokens: z.exactOptional(count),
  cacheWrite1hTokens: z.exactOptional(count),
  reasoningTokens: z.exactOptional(count),
  costMicrocents: z.exactOptional(count),
});

/**
 * Strict usage schema.
 */
export const usageSchema: z.ZodMiniType<Usage> = usageInferred;

const llmErrorInferred = z.strictObject({
  kind: z.enum(LLM_ERROR_KINDS),
  retryable: z.boolean(),
  provider: z.string().check(z.minLength(1)),
  message: z.string(),
  code: z.exactOptional(z.string()),
  status: z.exactOptional(
    z.number().check(z.int(), z.minimum(100), z.maximum(599)),
  ),
  retryAfterMs: z.exactOptional(count),
  requestId: z.exactOptional(z.string()),
}).check(z.refine((e) => e.retryable === isRetryableKind(e.kind), {
  message: "retryable must match the error kind",
  path: ["retryable"],
}));

/**
 * Strict error schema; `retryable` must match the kind.
 */
export const llmErrorSchema: z.ZodMiniType<LlmError> = llmErrorInferred;

const id = z.string().check(z.minLength(1));

const streamChunkInferred = z
  .discriminatedUnion(
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
        signature: z.exactOptional(z.string()),
        redacted: z.exactOptional(z.boolean()),
      }),
      z.strictObject({
        type: z.literal("tool_call_start"),
        id,
        name: z.string().check(z.minLength(1)),
      }),
      z.strictObject({
        type: z.literal("tool_call_delta"),
        id,
        argsJsonDelta: z.string(),
      }),
      z.strictObject({
        type: z.literal("tool_call_end"),
        id,
        signature: z.exactOptional(z.string()),
      }),
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
        contextExceeded: z.exactOptional(z.literal(true)),
        usageUnknown: z.exactOptional(z.literal(true)),
      }),
      z.strictObject({ type: z.literal("error"), error: llmErrorSchema }),
    ],
    {
      error: (issue) =>
        issue.code === "invalid_union" ? "unknown chunk type" : undefined,
    },
  );

/**
 * Strict schema of one {@linkcode StreamChunk}: unknown types and fields are
 * refused.
 */
export const streamChunkSchema: z.ZodMiniType<StreamChunk> =
  streamChunkInferred;

// Each written-out type equals what its schema infers.
type _usageInferredCheck = Holds<Same<z.infer<typeof usageInferred>, Usage>>;
type _llmErrorInferredCheck = Holds<
  Same<z.infer<typeof llmErrorInferred>, LlmError>
>;
type _streamChunkInferredCheck = Holds<
  Same<z.infer<typeof streamChunkInferred>, StreamChunk>
>;
