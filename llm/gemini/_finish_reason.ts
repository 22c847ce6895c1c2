/**
 * Gemini `finishReason` → canonical stop reason.
 *
 * @module
 */
import type { StopReason } from "../chunk.ts";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

const FAILED_CALLS = new Set([
  "MALFORMED_FUNCTION_CALL",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
]);

/**
 * Maps a finish reason: `STOP` → `stop`, or `tool_use` when the response
 * made function calls; `MAX_TOKENS` → `length`; `SAFETY`, `RECITATION`,
 * `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII` and the image filters →
 * `content_filter`; `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`,
 * `TOO_MANY_TOOL_CALLS` → `error` (the model's call could not be made);
 * `LANGUAGE`, `OTHER`, unspecified and unknown values → `stop` (or
 * `tool_use` with calls).
 *
 * @param reason The wire value.
 * @param toolCalls Whether the response made function calls.
 * @returns The canonical reason.
 */
export function mapGeminiFinishReason(
  reason: string,
  toolCalls: boolean,
): StopReason {
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  if (FAILED_CALLS.has(reason)) return "error";
  return toolCalls ? "tool_use" : "stop";
}
