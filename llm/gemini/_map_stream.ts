/**
 * Gemini `streamGenerateContent?alt=sse` events → chunks.
 *
 * @module
 */
import type { LlmError, StreamChunk, Usage } from "../chunk.ts";
import type { SseEvent } from "../sse.ts";
import type { StreamMapper } from "../_http_stream.ts";
import { makeLlmError } from "../errors.ts";
import {
  countField,
  isObject,
  type JsonObject,
  objectField,
  parseJson,
  stringField,
} from "../_wire_json.ts";
import { mapGeminiFinishReason } from "./_finish_reason.ts";
import { GENERATED_CALL_ID_PREFIX, UNSIGNED_CALL } from "./_lower_messages.ts";
import { geminiUsage } from "./_usage.ts";

function signatureOf(part: JsonObject): string | undefined {
  return stringField(part, "thoughtSignature") || undefined;
}

/**
 * Creates the mapper of one Gemini stream. Each event is a
 * `GenerateContentResponse`; the first candidate's parts are read in
 * order: a `thought: true` part → reasoning (`reasoning_start` once per
 * block, `reasoning_delta`), a signed thought part closing its block
 * with the signature on `reasoning_end`; a `functionCall` part → one
 * whole call (`tool_call_start`, its `args` as one JSON
 * `tool_call_delta`, `tool_call_end` with the part's `thoughtSignature`,
 * or an empty signature when Gemini gave none),
 * its id Gemini's or, without one, `gemini_call_<responseId>_<n>`
 * (`gemini_call_<n>` without a `responseId`); a text part →
 * `text_delta`, and its `thoughtSignature` (Gemini may put one on a
 * text part, often an empty one at the end) → a redacted reasoning block
 * carrying it, so it goes back on that text. A non-thought part ends an
 * open reasoning block. `usageMetadata` from any event is kept (the last
 * wins); `finishReason` is mapped at the end of the stream (`tool_use`
 * when calls were made); a `promptFeedback.blockReason` without
 * candidates is `content_filter`. An `{"error": …}` event is an `error`;
 * data that is not JSON is `transport`; end of stream before any finish
 * reason (or block) is truncation. Without usage the stop has
 * `usageUnknown`.
 *
 * @param provider The provider id.
 * @param streamError Classifies an error event's data (scrub, downgrade).
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
  let blocked = false;
  let usage: Usage | undefined;

  function closeReasoning(out: StreamChunk[], signature?: string): void {
    if (reasoning === undefined) return;
    const end: StreamChunk = { type: "reasoning_end", id: reasoning };
    if (signature !== undefined) end.signature = signature;
    out.push(end);
    reasoning = undefined;
  }

  function openReasoning(out: StreamChunk[]): string {
    if (reasoning !== undefined) return reasoning;
    reasoning = `reasoning_${blocks++}`;
    out.push({ type: "reasoning_start", id: reasoning });
    return reasoning;
  }

  function thought(part: JsonObject, out: StreamChunk[]): void {
    const id = openReasoning(out);
    const text = stringField(part, "text") ?? "";
    if (text !== "") out.push({ type: "reasoning_delta", id, text });
    const signature = signatureOf(part);
    if (signature !== undefined) closeReasoning(out, signature);
  }

  function call(
    fc: JsonObject,
    part: JsonObject,
    responseId: string | undefined,
    out: StreamChunk[],
  ): void {
    closeReasoning(out);
    const n = calls++;
    const id = stringField(fc, "id") ||
      (responseId === undefined
        ? `${GENERATED_CALL_ID_PREFIX}${n}`
        : `${GENERATED_CALL_ID_PREFIX}${responseId}_${n}`);
    const name = stringField(fc, "name") ?? "";
    out.push({ type: "tool_call_start", id, name });
    const args = isObject(fc["args"]) ? fc["args"] : {};
    out.push({
      type: "tool_call_delta",
      id,
      argsJsonDelta: JSON.stringify(args),
    });
    // Gemini's own call keeps a signature, empty when it gave none.
    out.push({
      type: "tool_call_end",
      id,
      signature: signatureOf(part) ?? UNSIGNED_CALL,
    });
  }

  function text(part: JsonObject, out: StreamChunk[]): void {
    closeReasoning(out);
    const value = stringField(part, "text") ?? "";
    if (value !== "") out.push({ type: "text_delta", text: value });
    const signature = signatureOf(part);
    if (signature === undefined) return;
    const id = `reasoning_${blocks++}`;
    out.push(
      { type: "reasoning_start", id },
      { type: "reasoning_end", id, signature, redacted: true },
    );
  }

  function candidate(
    c: unknown,
    responseId: string | undefined,
    out: StreamChunk[],
  ): void {
    const parts = objectField(c, "content")?.["parts"];
    for (const part of Array.isArray(parts) ? parts : []) {
      if (!isObject(part)) continue;
      const fc = objectField(part, "functionCall");
      if (part["thought"] === true) thought(part, out);
      else if (fc !== undefined) call(fc, part, responseId, out);
      else if (typeof part["text"] === "string" || signatureOf(part)) {
        text(part, out);
      }
    }
    const reason = stringField(c, "finishReason");
    if (reason !== undefined && reason !== "") {
      finish = reason;
      closeReasoning(out);
    }
  }

  function stop(): StreamChunk {
    const chunk: StreamChunk = {
      type: "stop",
      stopReason: finish === undefined
        ? "content_filter"
        : mapGeminiFinishReason(finish, calls > 0),
      usage: usage ?? { inputTokens: 0, outputTokens: 0 },
    };
    if (usage === undefined) chunk.usageUnknown = true;
    return chunk;
  }

  return {
    event(ev: SseEvent, out: StreamChunk[]): void {
      const data = parseJson(ev.data);
      if (!isObject(data)) {
        out.push({
          type: "error",
          error: makeLlmError(
            "transport",
            provider,
            "Stream refused: malformed chunk data",
          ),
        });
        return;
      }
      if (data["error"] !== undefined && data["error"] !== null) {
        out.push({ type: "error", error: streamError(data, ev.data) });
        return;
      }
      const candidates = data["candidates"];
      if (Array.isArray(candidates) && finish === undefined) {
        const first = candidates.length === 1 &&
            (countField(candidates[0], "index") ?? 0) === 0
          ? candidates[0]
          : candidates.find((c) => (countField(c, "index") ?? 0) === 0);
        const responseId = stringField(data, "responseId") || undefined;
        if (first !== undefined) candidate(first, responseId, out);
      }
      const feedback = objectField(data, "promptFeedback");
      if (stringField(feedback, "blockReason") !== undefined) blocked = true;
      usage = geminiUsage(data["usageMetadata"]) ?? usage;
    },
    end(out: StreamChunk[]): void {
      if (finish === undefined && !blocked) {
        out.push({
          type: "error",
          error: makeLlmError(
            "transport",
            provider,
            "Stream ended before a finishReason: truncated",
          ),
        });
        return;
      }
      closeReasoning(out);
      out.push(stop());
    },
  };
}
