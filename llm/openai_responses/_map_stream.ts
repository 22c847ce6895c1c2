/**
 * The Responses API stream (`event:` names, `data:` objects with a
 * `type`) to chunks.
 *
 * @module
 */
import type {
  LlmError,
  LlmErrorKind,
  StopReason,
  StreamChunk,
  Usage,
} from "../chunk.ts";
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
import { reasoningSignature } from "./_request_body.ts";

/** Kinds of the error codes a stream's `error` or `response.failed` carries. */
const CODE_KINDS: Readonly<Record<string, LlmErrorKind>> = {
  rate_limit_exceeded: "rate_limit",
  server_error: "overloaded",
  server_is_overloaded: "overloaded",
  context_length_exceeded: "context_overflow",
  invalid_prompt: "bad_request",
  invalid_request_error: "bad_request",
  insufficient_quota: "auth",
  invalid_api_key: "auth",
};

/**
 * Our usage from a response's `usage`: input net of
 * `input_tokens_details.cached_tokens` (cache reads), output with its
 * `output_tokens_details.reasoning_tokens`.
 *
 * @param usage The wire usage.
 * @returns The usage, or `undefined` without one.
 */
export function responsesUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const input = countField(usage, "input_tokens") ?? 0;
  const output = countField(usage, "output_tokens") ?? 0;
  const cached = Math.min(
    countField(objectField(usage, "input_tokens_details"), "cached_tokens") ??
      0,
    input,
  );
  const reasoning = Math.min(
    countField(
      objectField(usage, "output_tokens_details"),
      "reasoning_tokens",
    ) ??
      0,
    output,
  );
  const out: Usage = { inputTokens: input - cached, outputTokens: output };
  if (cached > 0) out.cacheReadTokens = cached;
  if (reasoning > 0) out.reasoningTokens = reasoning;
  return out;
}

interface CallState {
  callId: string;
  sentArgs: boolean;
}

/**
 * Creates the mapper of one call. `output_item.added` opens a reasoning
 * block (its summary deltas are reasoning text) or a function call (keyed
 * by its `call_id`; argument deltas stream into it); `output_item.done`
 * closes them (a reasoning item's id and `encrypted_content` become its
 * signature; a call's whole `arguments` are sent when no delta came).
 * Text deltas are text; a refusal is text that marks `content_filter`.
 * `response.completed` is the `stop` (`tool_use` after a call), with the
 * usage (`usageUnknown` without one); `response.incomplete` stops with
 * `length` for `max_output_tokens` and `content_filter` for a filter;
 * `response.failed` and `error` events are classified errors by their
 * code; data that is not JSON is `transport`; an end without a terminal
 * event is a truncated stream.
 *
 * @param provider The provider id.
 * @param redact Removes the key from provider text.
 * @returns The mapper.
 */
export function createResponsesMapper(
  provider: string,
  redact: (text: string) => string,
): StreamMapper {
  const calls = new Map<string, CallState>();
  const reasoning = new Set<string>();
  let anyCall = false;
  let refused = false;
  let done = false;

  function failure(error: unknown, fallback: LlmErrorKind): StreamChunk {
    done = true;
    const code = stringField(error, "code") ?? stringField(error, "type");
    const message = redact(
      stringField(error, "message") ?? "The response failed",
    );
    const kind = code !== undefined && Object.hasOwn(CODE_KINDS, code)
      ? CODE_KINDS[code] ?? fallback
      : fallback;
    const e: LlmError = makeLlmError(
      kind,
      provider,
      message,
      code === undefined ? {} : { code },
    );
    return { type: "error", error: e };
  }

  function transport(message: string): StreamChunk {
    done = true;
    return {
      type: "error",
      error: makeLlmError("transport", provider, message),
    };
  }

  function stop(
    response: unknown,
    reason: StopReason,
  ): StreamChunk {
    done = true;
    const usage = responsesUsage(objectField(response, "usage"));
    return {
      type: "stop",
      stopReason: reason,
      usage: usage ?? { inputTokens: 0, outputTokens: 0 },
      ...(usage === undefined ? { usageUnknown: true as const } : {}),
    };
  }

  function itemAdded(item: unknown, out: StreamChunk[]): void {
    const type = stringField(item, "type");
    const id = stringField(item, "id") ?? "";
    if (type === "reasoning") {
      reasoning.add(id);
      out.push({ type: "reasoning_start", id });
    } else if (type === "function_call") {
      const callId = stringField(item, "call_id") ?? id;
      calls.set(id, { callId, sentArgs: false });
      anyCall = true;
      out.push({
        type: "tool_call_start",
        id: callId,
        name: stringField(item, "name") ?? "",
      });
    }
  }

  function itemDone(item: unknown, out: StreamChunk[]): void {
    const type = stringField(item, "type");
    const id = stringField(item, "id") ?? "";
    if (type === "reasoning" && reasoning.delete(id)) {
      const encrypted = stringField(item, "encrypted_content");
      out.push({
        type: "reasoning_end",
        id,
        ...(encrypted === undefined
          ? {}
          : { signature: reasoningSignature(id, encrypted) }),
      });
    } else if (type === "function_call") {
      const call = calls.get(id);
      if (call === undefined) return;
      const args = stringField(item, "arguments") ?? "";
      if (!call.sentArgs && args !== "") {
        out.push({
          type: "tool_call_delta",
          id: call.callId,
          argsJsonDelta: args,
        });
      }
      calls.delete(id);
      out.push({ type: "tool_call_end", id: call.callId });
    }
  }

  return {
    event(ev: SseEvent, out: StreamChunk[]): void {
      if (done) return;
      const data = parseJson(ev.data);
      if (!isObject(data)) {
        out.push(
          transport("Stream refused: an event's data is not a JSON object"),
        );
        return;
      }
      const type = stringField(data, "type") ?? ev.event;
      switch (type) {
        case "response.output_item.added":
          itemAdded(data["item"], out);
          break;
        case "response.output_item.done":
          itemDone(data["item"], out);
          break;
        case "response.reasoning_summary_text.delta": {
          const id = stringField(data, "item_id") ?? "";
          const text = stringField(data, "delta") ?? "";
          if (reasoning.has(id) && text !== "") {
            out.push({ type: "reasoning_delta", id, text });
          }
          break;
        }
        case "response.output_text.delta": {
          const text = stringField(data, "delta") ?? "";
          if (text !== "") out.push({ type: "text_delta", text });
          break;
        }
        case "response.refusal.delta": {
          const text = stringField(data, "delta") ?? "";
          refused = true;
          if (text !== "") out.push({ type: "text_delta", text });
          break;
        }
        case "response.function_call_arguments.delta": {
          const call = calls.get(stringField(data, "item_id") ?? "");
          const delta = stringField(data, "delta") ?? "";
          if (call !== undefined && delta !== "") {
            call.sentArgs = true;
            out.push({
              type: "tool_call_delta",
              id: call.callId,
              argsJsonDelta: delta,
            });
          }
          break;
        }
        case "response.completed":
          out.push(stop(
            data["response"],
            refused ? "content_filter" : anyCall ? "tool_use" : "stop",
          ));
          break;
        case "response.incomplete": {
          const reason = stringField(
            objectField(objectField(data, "response"), "incomplete_details"),
            "reason",
          );
          out.push(stop(
            data["response"],
            reason === "content_filter" ? "content_filter" : "length",
          ));
          break;
        }
        case "response.failed":
          out.push(
            failure(
              objectField(objectField(data, "response"), "error"),
              "unknown",
            ),
          );
          break;
        case "error":
          out.push(failure(objectField(data, "error") ?? data, "unknown"));
          break;
        default:
          break;
      }
    },
    end(out: StreamChunk[]): void {
      if (done) return;
      out.push(
        transport("The stream ended before the response completed (truncated)"),
      );
    },
  };
}
