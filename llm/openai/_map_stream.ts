/**
 * OpenAI `chat.completion.chunk` SSE events → chunks.
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
  objectField,
  parseJson,
  stringField,
} from "../_wire_json.ts";
import { mapOpenAiFinishReason } from "./_finish_reason.ts";
import { openAiUsage } from "./_usage.ts";

interface CallState {
  id: string | undefined;
  name: string | undefined;
  started: boolean;
  pending: string;
  /** Every argument fragment so far (for the index-less split rule). */
  args: string;
  /** Gemini's `extra_content.google.thought_signature`, when sent. */
  signature: string | undefined;
}

function completeJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function thoughtSignature(tc: unknown): string | undefined {
  const google = objectField(objectField(tc, "extra_content"), "google");
  return stringField(google, "thought_signature") || undefined;
}

const REASONING_ID = "reasoning_0";
/** The key of the one call a legacy `function_call` stream carries. */
const LEGACY_INDEX = 0;

/**
 * Creates the mapper of one Chat Completions stream: `content` →
 * `text_delta`; `reasoning_content` (or `reasoning`) → `reasoning_start`
 * once + `reasoning_delta`; `tool_calls` accumulated by `index` (a call
 * starts once its name is known, with its id or a synthesised `call_<n>`;
 * whole calls in one fragment and repeated ids and names are tolerated; a
 * new id at a used index opens a new call). A fragment without `index`
 * goes by its `id` (a known id continues its call, a new one opens a call)
 * and, without an id too, continues the latest call unless it opens a new
 * one: it is not the first entry of its `tool_calls` array, or it carries a
 * `function.name` while the latest call is named and has a different name
 * or arguments that already parse as complete JSON. A legacy
 * `delta.function_call` (`name`, `arguments`) is one tool call. A call's
 * `extra_content.google.thought_signature` (Gemini) rides on its
 * `tool_call_end`. A non-empty `refusal` marks `content_filter`; a
 * non-null `finish_reason` closes open calls (index order) and the
 * reasoning; usage from any chunk is kept (the last wins), and a stream
 * that carried none stops with `usageUnknown`; `[DONE]`, or end of stream
 * after a finish reason, gives `stop`. A `{"error": …}` payload is an
 * `error`; data that is not JSON is `transport`; no finish reason before
 * the end is truncation.
 *
 * @param provider The provider id.
 * @param streamError Classifies an error payload (dialect, scrub,
 *   downgrade).
 * @returns The mapper.
 */
export function createOpenAiMapper(
  provider: string,
  streamError: (data: unknown, text: string) => LlmError,
): StreamMapper {
  const calls = new Map<number, CallState>();
  let reasoningOpen = false;
  let refusal = false;
  let anyCall = false;
  let finish: string | undefined;
  let usage: Usage | undefined;
  let nextIndex = 0;
  let latest: number | undefined;

  function startIfNamed(
    index: number,
    call: CallState,
    out: StreamChunk[],
  ): void {
    if (call.started || call.name === undefined || call.name === "") return;
    call.started = true;
    anyCall = true;
    call.id ??= `call_${index}`;
    out.push({ type: "tool_call_start", id: call.id, name: call.name });
    if (call.pending !== "") {
      out.push({
        type: "tool_call_delta",
        id: call.id,
        argsJsonDelta: call.pending,
      });
      call.pending = "";
    }
  }

  function fresh(): number {
    return calls.size === 0
      ? nextIndex
      : Math.max(nextIndex, ...calls.keys()) + 1;
  }

  /** The key of the call a fragment belongs to (the split rule above). */
  function keyOf(
    tc: unknown,
    position: number,
    id: string | undefined,
    name: string | undefined,
  ): number {
    const index = countField(tc, "index");
    if (index !== undefined) {
      const call = calls.get(index);
      if (call?.id !== undefined && id !== undefined && id !== call.id) {
        return fresh();
      }
      return index;
    }
    const last = latest === undefined ? undefined : calls.get(latest);
    if (id !== undefined) {
      for (const [key, call] of calls) if (call.id === id) return key;
      if (last !== undefined && last.id === undefined && !last.started) {
        return latest ?? fresh();
      }
      return fresh();
    }
    if (latest === undefined || last === undefined || position > 0) {
      return fresh();
    }
    const opensNew = name !== undefined && last.name !== undefined &&
      (name !== last.name || completeJson(last.args));
    return opensNew ? fresh() : latest;
  }

  function fragment(tc: unknown, position: number, out: StreamChunk[]): void {
    const fn = objectField(tc, "function");
    const id = stringField(tc, "id") || undefined;
    const name = stringField(fn, "name") || undefined;
    const index = keyOf(tc, position, id, name);
    let call = calls.get(index);
    if (call === undefined) {
      call = {
        id: undefined,
        name: undefined,
        started: false,
        pending: "",
        args: "",
        signature: undefined,
      };
      calls.set(index, call);
      nextIndex = Math.max(nextIndex, index);
    }
    latest = index;
    if (!call.started) {
      call.id ??= id;
      call.name ??= name;
    }
    call.signature ??= thoughtSignature(tc);
    const args = stringField(fn, "arguments") ?? "";
    call.args += args;
    startIfNamed(index, call, out);
    if (args === "") return;
    if (call.started && call.id !== undefined) {
      out.push({ type: "tool_call_delta", id: call.id, argsJsonDelta: args });
    } else {
      call.pending += args;
    }
  }

  function finishOpen(out: StreamChunk[]): void {
    for (const index of [...calls.keys()].sort((a, b) => a - b)) {
      const call = calls.get(index);
      if (call?.started === true && call.id !== undefined) {
        const end: StreamChunk = { type: "tool_call_end", id: call.id };
        if (call.signature !== undefined) end.signature = call.signature;
        out.push(end);
      }
    }
    calls.clear();
    latest = undefined;
    if (reasoningOpen) {
      out.push({ type: "reasoning_end", id: REASONING_ID });
      reasoningOpen = false;
    }
  }

  function choice(c: unknown, out: StreamChunk[]): void {
    const delta = objectField(c, "delta");
    const reasoning = stringField(delta, "reasoning_content") ??
      stringField(delta, "reasoning") ?? "";
    if (reasoning !== "") {
      if (!reasoningOpen) {
        reasoningOpen = true;
        out.push({ type: "reasoning_start", id: REASONING_ID });
      }
      out.push({ type: "reasoning_delta", id: REASONING_ID, text: reasoning });
    }
    const content = stringField(delta, "content") ?? "";
    if (content !== "") out.push({ type: "text_delta", text: content });
    if ((stringField(delta, "refusal") ?? "") !== "") refusal = true;
    const toolCalls = isObject(delta) ? delta.tool_calls : undefined;
    if (Array.isArray(toolCalls)) {
      toolCalls.forEach((tc, position) => fragment(tc, position, out));
    }
    const legacy = objectField(delta, "function_call");
    if (legacy !== undefined) {
      fragment({ index: LEGACY_INDEX, function: legacy }, 0, out);
    }
    const reason = stringField(c, "finish_reason");
    if (reason !== undefined && reason !== "") {
      finish = reason;
      finishOpen(out);
    }
  }

  function stop(): StreamChunk {
    const chunk: StreamChunk = {
      type: "stop",
      stopReason: mapOpenAiFinishReason(finish ?? "stop", {
        toolCalls: anyCall,
        refusal,
      }),
      usage: usage ?? { inputTokens: 0, outputTokens: 0 },
    };
    if (usage === undefined) chunk.usageUnknown = true;
    return chunk;
  }

  function truncated(): StreamChunk {
    return {
      type: "error",
      error: makeLlmError(
        "transport",
        provider,
        "Stream ended before a finish_reason: truncated",
      ),
    };
  }

  return {
    event(ev: SseEvent, out: StreamChunk[]): void {
      if (ev.data.trim() === "[DONE]") {
        out.push(finish === undefined ? truncated() : stop());
        return;
      }
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
      if (data.error !== undefined && data.error !== null) {
        out.push({ type: "error", error: streamError(data, ev.data) });
        return;
      }
      const choices = data.choices;
      if (Array.isArray(choices) && finish === undefined) {
        const first = choices.length === 1 &&
            (countField(choices[0], "index") ?? 0) === 0
          ? choices[0]
          : choices.find((c) => (countField(c, "index") ?? 0) === 0);
        if (first !== undefined) choice(first, out);
      }
      if (data.usage !== undefined && data.usage !== null) {
        usage = openAiUsage(data.usage) ?? usage;
      }
    },
    end(out: StreamChunk[]): void {
      out.push(finish === undefined ? truncated() : stop());
    },
  };
}
