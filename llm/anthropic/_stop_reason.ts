/**
 * Anthropic `stop_reason` → canonical stop reason.
 *
 * @module
 */
import type { StopReason } from "../chunk.ts";

/**
 * Maps an Anthropic stop reason: `max_tokens` → `length`;
 * `model_context_window_exceeded` → `length` with `contextExceeded`;
 * `tool_use` → `tool_use`; `refusal` → `content_filter`; `end_turn`,
 * `stop_sequence`, `pause_turn`, null and unknown values → `stop`.
 *
 * @param reason The wire value (null or absent when none was sent).
 * @returns The canonical reason and whether the window filled.
 */
export function mapAnthropicStopReason(
  reason: string | undefined,
): { stopReason: StopReason; contextExceeded: boolean } {
  switch (reason) {
    case "max_tokens":
      return { stopReason: "length", contextExceeded: false };
    case "model_context_window_exceeded":
      return { stopReason: "length", contextExceeded: true };
    case "tool_use":
      return { stopReason: "tool_use", contextExceeded: false };
    case "refusal":
      return { stopReason: "content_filter", contextExceeded: false };
    default:
      return { stopReason: "stop", contextExceeded: false };
  }
}
