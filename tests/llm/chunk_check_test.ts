import assert from "node:assert/strict";
import { isStreamChunk } from "../../llm/chunk_check.ts";
import { streamChunkSchema } from "../../llm/chunk.ts";
import { assertSameAcceptance } from "../schema/_mutations.ts";

const BASES: unknown[] = [
  { type: "text_delta", text: "hi" },
  { type: "reasoning_start", id: "r" },
  { type: "reasoning_delta", id: "r", text: "t" },
  { type: "reasoning_end", id: "r", signature: "sig", redacted: false },
  { type: "tool_call_start", id: "c", name: "read_file" },
  { type: "tool_call_delta", id: "c", argsJsonDelta: "{}" },
  { type: "tool_call_end", id: "c" },
  {
    type: "stop",
    stopReason: "tool_use",
    usage: {
      inputTokens: 3,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 2,
      reasoningTokens: 1,
      costMicrocents: 9,
    },
    contextExceeded: true,
  },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 0, outputTokens: 0 },
  },
  {
    type: "error",
    error: {
      kind: "rate_limit",
      retryable: true,
      provider: "openai",
      message: "slow down",
      code: "429",
      status: 429,
      retryAfterMs: 100,
    },
  },
  {
    type: "error",
    error: {
      kind: "context_overflow",
      retryable: false,
      provider: "p",
      message: "",
    },
  },
];

Deno.test("isStreamChunk() accepts exactly what streamChunkSchema accepts", () => {
  assertSameAcceptance(BASES, isStreamChunk, streamChunkSchema, {
    accepted: 50,
    refused: 500,
  });
});

Deno.test("isStreamChunk() sees inherited keys as zod's strict objects do", () => {
  const v = Object.assign(Object.create({ extra: 1 }), {
    type: "text_delta",
    text: "x",
  });
  assert.equal(isStreamChunk(v), false);
  assert.equal(streamChunkSchema.safeParse(v).success, false);
});
