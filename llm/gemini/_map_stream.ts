/**
 * Gemini's `streamGenerateContent?alt=sse` stream to chunks: each event is
 * one `GenerateContentResponse`.
 *
 * @module
 */
import type { LlmError, StopReason, StreamChunk, Usage } from "../chunk.ts";
import type { StreamMapper } from "../_http_stream.ts";
import type { SseEvent } from "../sse.ts";
import { makeLlmError } from "../errors.ts";
import {
  countField,
  isObject,
  objectField,
  parseJson,
  stringField,
} from "../_wire_json.ts";

/** Finish reasons that mean the content was blocked. */
const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
]);

/**
 * Our usage from `usageMetadata`: input is `promptTokenCount` net of
 * `cachedContentTokenCount` (a cache read); output is
 * `candidatesTokenCount` plus `thoughtsTokenCount` (thinking is billed as
 * output), the latter also as reasoning.
 *
 * @param meta The `usageMetadata` object.
 * @returns The usage, or `undefined` when it has no count.
 */
export function geminiUsage(meta: unknown): Usage | undefined {
  if (!isObject(meta)) return undefined;
  const prompt = countField(meta, "promptTokenCount");
  const candidates = countField(meta, "candidatesTokenCount");
  const thoughts = countField(meta, "thoughtsTokenCount");
  if (prompt === undefined && candidates === undefined) return undefined;
  const cached = Math.min(
    countField(meta, "cachedContentTokenCount") ?? 0,
    prompt ?? 0,
  );
  const usage: Usage = {
    inputTokens: (prompt ?? 0) - cached,
    outputTokens: (candidates ?? 0) + (thoughts ?? 0),
  };
  if (cached > 0) usage.cacheReadTokens = cached;
  if (thoughts !== undefined && thoughts > 0) usage.reasoningTokens = thoughts;
  return usage;
}

/**
 * Creates the mapper of one call. Thought parts (`thought: true`) are
 * reasoning, a block closed by the part that carries its
 * `thoughtSignature` or by the first non-thought part; a plain text part
 * with a signature is preceded by an empty reasoning block holding it (so
 * it goes back on that part); a `functionCall` is one complete call (an id
 * from the model, else `call_<n>`), its signature on its `tool_call_end`.
 * `finishReason` is kept (`STOP` with calls ⇒ `tool_use`, `MAX_TOKENS` ⇒
 * `length`, blocked ⇒ `content_filter`, `MALFORMED_FUNCTION_CALL` ⇒ a
 * `bad_request` error); a `promptFeedback.blockReason` without candidates
 * is `content_filter`; the last `usageMetadata` wins. The stream's end
 * gives the `stop` (with `usageUnknown` when no usage came); an end
 * without a finish reason is a truncated `transport` error; an `error`
 * object is classified by `streamError`; data that is not JSON is
 * `transport`.
 *
 * @param provider The provider id.
 * @param streamError Classifies an error object inside the stream.
 * @returns The mapper.
 */
export function createGeminiMapper(
  provider: string,
  streamError: (data: unknown, text: string) => LlmError,
): StreamMapper {
  let reasoning: string | undefined;
  let blocks = 0;
  let calls = 0;
  let finish: string | undefined;
  let usage: Usage | undefined;
  let failed = false;

  function closeReasoning(out: StreamChunk[], signature?: string): void {
    if (reasoning === undefined) return;
    out.push({
      type: "reasoning_end",
      id: reasoning,
      ...(signature === undefined ? {} : { signature }),
    });
    reasoning = undefined;
  }

  function part(p: unknown, out: StreamChunk[]): void {
    if (!isObject(p)) return;
    const signature = stringField(p, "thoughtSignature");
    const call = objectField(p, "functionCall");
    if (call !== undefined) {
      closeReasoning(out);
      const id = stringField(call, "id") ?? `call_${calls}`;
      calls++;
      const args = call["args"];
      out.push(
        { type: "tool_call_start", id, name: stringField(call, "name") ?? "" },
        {
          type: "tool_call_delta",
          id,
          argsJsonDelta: JSON.stringify(isObject(args) ? args : {}),
        },
        {
          type: "tool_call_end",
          id,
          ...(signature === undefined ? {} : { signature }),
        },
      );
      return;
    }
    const text = stringField(p, "text") ?? "";
    if (p["thought"] === true) {
      if (reasoning === undefined) {
        reasoning = `thought_${blocks++}`;
        out.push({ type: "reasoning_start", id: reasoning });
      }
      if (text !== "") {
        out.push({ type: "reasoning_delta", id: reasoning, text });
      }
      if (signature !== undefined) closeReasoning(out, signature);
      return;
    }
    closeReasoning(out);
    if (signature !== undefined) {
      const id = `thought_${blocks++}`;
      out.push(
        { type: "reasoning_start", id },
        { type: "reasoning_end", id, signature },
      );
    }
    if (text !== "") out.push({ type: "text_delta", text });
  }

  return {
    event(ev: SseEvent): StreamChunk[] {
      if (failed) return [];
      const data = parseJson(ev.data);
      if (!isObject(data)) {
        failed = true;
        return [{
          type: "error",
          error: makeLlmError(
            "transport",
            provider,
            "Stream refused: an event's data is not a JSON object",
          ),
        }];
      }
      if (isObject(data["error"])) {
        failed = true;
        return [{ type: "error", error: streamError(data, ev.data) }];
      }
      const out: StreamChunk[] = [];
      const meta = geminiUsage(data["usageMetadata"]);
      if (meta !== undefined) usage = meta;
      const candidates = data["candidates"];
      const first = Array.isArray(candidates) ? candidates[0] : undefined;
      if (first === undefined) {
        const blocked = stringField(
          objectField(data, "promptFeedback"),
          "blockReason",
        );
        if (blocked !== undefined) finish = "SAFETY";
        return out;
      }
      const parts = objectField(first, "content")?.["parts"];
      if (Array.isArray(parts)) { for (const p of parts) part(p, out); }
      const reason = stringField(first, "finishReason");
      if (reason !== undefined && reason !== "FINISH_REASON_UNSPECIFIED") {
        finish = reason;
      }
      return out;
    },
    end(): StreamChunk[] {
      if (failed) return [];
      const out: StreamChunk[] = [];
      closeReasoning(out);
      if (finish === undefined) {
        out.push({
          type: "error",
          error: makeLlmError(
            "transport",
            provider,
            "The stream ended without a finish reason (truncated)",
          ),
        });
        return out;
      }
      if (finish === "MALFORMED_FUNCTION_CALL") {
        out.push({
          type: "error",
          error: makeLlmError(
            "bad_request",
            provider,
            "The model produced a malformed function call",
            { code: "MALFORMED_FUNCTION_CALL" },
          ),
        });
        return out;
      }
      const stopReason: StopReason = FILTERED.has(finish)
        ? "content_filter"
        : finish === "MAX_TOKENS"
        ? "length"
        : calls > 0
        ? "tool_use"
        : "stop";
      out.push({
        type: "stop",
        stopReason,
        usage: usage ?? { inputTokens: 0, outputTokens: 0 },
        ...(usage === undefined ? { usageUnknown: true as const } : {}),
      });
      return out;
    },
  };
}
