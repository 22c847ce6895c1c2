/**
 * Anthropic Messages SSE events → chunks.
 *
 * @module
 */
import type { LlmError, StreamChunk } from "../chunk.ts";
import type { SseEvent } from "../sse.ts";
import type { StreamMapper } from "../_http_stream.ts";
import { makeLlmError } from "../errors.ts";
import {
  countField,
  isObject,
  objectField,
  parseJson,
  stringField,
} from "../_wire_json.ts";
import { mapAnthropicStopReason } from "./_stop_reason.ts";
import {
  anthropicCounters,
  anthropicUsage,
  mergeAnthropicUsage,
} from "./_usage.ts";

type Block =
  | { kind: "text" }
  | { kind: "tool"; id: string }
  | { kind: "reasoning"; id: string; signature: string; redacted: boolean }
  | { kind: "ignored" };

/**
 * Creates the mapper of one Anthropic stream: `message_start` usage (input,
 * cache read, cache creation by TTL); content blocks `text` (a non-empty
 * initial text is a `text_delta`), `tool_use` (`tool_call_start`),
 * `thinking` and `redacted_thinking` (`reasoning_start`; a redacted
 * block's `data` is its `reasoning_end` signature, replayed unchanged);
 * deltas `text_delta`, `input_json_delta`, `thinking_delta`,
 * `signature_delta` (kept for the block's end); `content_block_stop` →
 * `tool_call_end` / `reasoning_end`; a block started again at an open
 * index first ends the open one; `message_delta` → stop reason and
 * cumulative usage; `message_stop` → `stop`; `error` → `error`; `ping` and
 * unknown events are ignored. A second `message_start` with the same id is
 * a repeat (its usage merged); a different one before any content block
 * replaces the first, after one it is a `transport` error (two messages
 * spliced into one stream: never a call left open or two thinking blocks
 * under one signature). Data that is not JSON is a `transport` error. End
 * of stream without a `message_delta` is truncation (`transport`); after
 * one, a missing `message_stop` is tolerated. A stream that reported no
 * token count at all stops with `usageUnknown`.
 *
 * @param provider The provider id.
 * @param streamError Classifies an `error` event's data (scrub,
 *   downgrade).
 * @returns The mapper.
 */
export function createAnthropicMapper(
  provider: string,
  streamError: (data: unknown, text: string) => LlmError,
): StreamMapper {
  let counters = anthropicCounters();
  const blocks = new Map<number, Block>();
  let sawDelta = false;
  let stopReason: string | undefined;
  let messageId: string | undefined;
  let started = false;
  let contentSeen = false;

  function close(index: number, out: StreamChunk[]): void {
    const block = blocks.get(index);
    blocks.delete(index);
    if (block === undefined) return;
    if (block.kind === "tool") {
      out.push({ type: "tool_call_end", id: block.id });
    } else if (block.kind === "reasoning") {
      const end: StreamChunk = { type: "reasoning_end", id: block.id };
      if (block.redacted) end.redacted = true;
      if (block.signature !== "") end.signature = block.signature;
      out.push(end);
    }
  }

  function stop(out: StreamChunk[]): void {
    for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
      close(index, out);
    }
    const mapped = mapAnthropicStopReason(stopReason);
    const chunk: StreamChunk = {
      type: "stop",
      stopReason: mapped.stopReason,
      usage: anthropicUsage(counters),
    };
    if (mapped.contextExceeded) chunk.contextExceeded = true;
    if (!counters.seen) chunk.usageUnknown = true;
    out.push(chunk);
  }

  function start(index: number, cb: unknown, out: StreamChunk[]): void {
    if (blocks.has(index)) close(index, out);
    contentSeen = true;
    const type = stringField(cb, "type");
    if (type === "text") {
      blocks.set(index, { kind: "text" });
      const text = stringField(cb, "text") ?? "";
      if (text !== "") out.push({ type: "text_delta", text });
    } else if (type === "tool_use") {
      const id = stringField(cb, "id") || `call_${index}`;
      const name = stringField(cb, "name") ?? "";
      blocks.set(index, { kind: "tool", id });
      out.push({ type: "tool_call_start", id, name });
      const input = objectField(cb, "input");
      if (input !== undefined && Object.keys(input).length > 0) {
        out.push({
          type: "tool_call_delta",
          id,
          argsJsonDelta: JSON.stringify(input),
        });
      }
    } else if (type === "thinking" || type === "redacted_thinking") {
      const id = `thinking_${index}`;
      const redacted = type === "redacted_thinking";
      const signature = stringField(cb, redacted ? "data" : "signature") ??
        "";
      blocks.set(index, { kind: "reasoning", id, signature, redacted });
      out.push({ type: "reasoning_start", id });
      const text = redacted ? "" : stringField(cb, "thinking") ?? "";
      if (text !== "") out.push({ type: "reasoning_delta", id, text });
    } else {
      blocks.set(index, { kind: "ignored" });
    }
  }

  function delta(index: number, d: unknown, out: StreamChunk[]): void {
    const block = blocks.get(index);
    const type = stringField(d, "type");
    if (block === undefined) return;
    if (type === "text_delta" && block.kind === "text") {
      const text = stringField(d, "text") ?? "";
      if (text !== "") out.push({ type: "text_delta", text });
    } else if (type === "input_json_delta" && block.kind === "tool") {
      const json = stringField(d, "partial_json") ?? "";
      if (json !== "") {
        out.push({
          type: "tool_call_delta",
          id: block.id,
          argsJsonDelta: json,
        });
      }
    } else if (type === "thinking_delta" && block.kind === "reasoning") {
      const text = stringField(d, "thinking") ?? "";
      if (text !== "") {
        out.push({ type: "reasoning_delta", id: block.id, text });
      }
    } else if (type === "signature_delta" && block.kind === "reasoning") {
      block.signature += stringField(d, "signature") ?? "";
    }
  }

  function messageStart(message: unknown, out: StreamChunk[]): void {
    const id = stringField(message, "id") || undefined;
    const repeat = started && id !== undefined && id === messageId;
    if (started && !repeat) {
      if (contentSeen || sawDelta) {
        out.push({
          type: "error",
          error: makeLlmError(
            "transport",
            provider,
            "Stream refused: a second message_start began a new message mid-message",
          ),
        });
        return;
      }
      counters = anthropicCounters();
      blocks.clear();
    }
    started = true;
    messageId = id;
    mergeAnthropicUsage(counters, objectField(message, "usage"));
  }

  return {
    event(ev: SseEvent, out: StreamChunk[]): void {
      const data = parseJson(ev.data);
      if (!isObject(data)) {
        if (ev.event === "ping") return;
        out.push({
          type: "error",
          error: makeLlmError(
            "transport",
            provider,
            `Stream refused: malformed data in a ${ev.event} event`,
          ),
        });
        return;
      }
      const index = countField(data, "index") ?? -1;
      switch (stringField(data, "type") ?? ev.event) {
        case "message_start":
          messageStart(data.message, out);
          return;
        case "content_block_start":
          start(index, data.content_block, out);
          return;
        case "content_block_delta":
          delta(index, data.delta, out);
          return;
        case "content_block_stop":
          close(index, out);
          return;
        case "message_delta":
          sawDelta = true;
          stopReason = stringField(data.delta, "stop_reason") ?? stopReason;
          mergeAnthropicUsage(counters, data.usage);
          return;
        case "message_stop":
          stop(out);
          return;
        case "error":
          out.push({ type: "error", error: streamError(data, ev.data) });
          return;
        default:
          return;
      }
    },
    end(out: StreamChunk[]): void {
      if (sawDelta) {
        stop(out);
        return;
      }
      out.push({
        type: "error",
        error: makeLlmError(
          "transport",
          provider,
          "Stream ended before message_delta: truncated",
        ),
      });
    },
  };
}
