/**
 * OpenAI `finish_reason` → canonical stop reason.
 *
 * @module
 */
import type { StopReason } from "../chunk.ts";

/**
 * Maps a finish reason given what the stream carried: a refusal or
 * `content_filter` → `content_filter`; `length` → `length`; `tool_calls`,
 * `function_call` or any accumulated call → `tool_use`; `stop` and unknown
 * values → `stop`.
 *
 * @param finish The wire value.
 * @param seen Whether the stream carried tool calls or a refusal.
 * @returns The canonical reason.
 */
export function mapOpenAiFinishReason(
  finish: string,
  seen: { toolCalls: boolean; refusal: boolean },
): StopReason {
  if (seen.refusal || finish === "content_filter") return "content_filter";
  if (finish === "length") return "length";
  if (finish === "tool_calls" || finish === "function_call" || seen.toolCalls) {
    return "tool_use";
  }
  return "stop";
}
