/**
 * Anthropic usage → canonical usage: `input_tokens` is already
 * net of cache reads and writes; `output_tokens` in `message_delta` is
 * cumulative.
 *
 * @module
 */
import type { Usage } from "../chunk.ts";
import { countField, objectField } from "../_wire_json.ts";

/**
 * Raw counters gathered from `message_start` and `message_delta`.
 */
export interface AnthropicCounters {
  /** `input_tokens` (net). */
  input: number;
  /** `output_tokens` (cumulative, latest wins). */
  output: number;
  /** `cache_read_input_tokens`. */
  cacheRead: number;
  /** `cache_creation_input_tokens`. */
  cacheWrite: number;
  /** `output_tokens_details.thinking_tokens`, when reported. */
  thinking: number;
}

/**
 * Merges a wire `usage` object into the counters: each field present
 * replaces the previous value (later events carry cumulative totals).
 *
 * @param counters The counters to update (mutated).
 * @param usage The wire `usage` object (anything; non-objects are ignored).
 */
export function mergeAnthropicUsage(
  counters: AnthropicCounters,
  usage: unknown,
): void {
  counters.input = countField(usage, "input_tokens") ?? counters.input;
  counters.output = countField(usage, "output_tokens") ?? counters.output;
  counters.cacheRead = countField(usage, "cache_read_input_tokens") ??
    counters.cacheRead;
  counters.cacheWrite = countField(usage, "cache_creation_input_tokens") ??
    counters.cacheWrite;
  const details = objectField(usage, "output_tokens_details");
  counters.thinking = countField(details, "thinking_tokens") ??
    counters.thinking;
}

/**
 * The canonical usage of the counters; zero cache and reasoning classes are
 * omitted, reasoning is capped at the output.
 *
 * @param c The counters.
 * @returns The usage.
 */
export function anthropicUsage(c: AnthropicCounters): Usage {
  const usage: Usage = { inputTokens: c.input, outputTokens: c.output };
  if (c.cacheRead > 0) usage.cacheReadTokens = c.cacheRead;
  if (c.cacheWrite > 0) usage.cacheWriteTokens = c.cacheWrite;
  if (c.thinking > 0) usage.reasoningTokens = Math.min(c.thinking, c.output);
  return usage;
}
