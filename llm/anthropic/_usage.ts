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
  /** `cache_creation_input_tokens` (both TTLs). */
  cacheWrite: number;
  /** `cache_creation.ephemeral_1h_input_tokens`. */
  cacheWrite1h: number;
  /** `output_tokens_details.thinking_tokens`, when reported. */
  thinking: number;
  /** Whether any usage count was reported at all. */
  seen: boolean;
}

/**
 * Fresh counters: nothing reported yet.
 *
 * @returns Zero counters with `seen` false.
 */
export function anthropicCounters(): AnthropicCounters {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    thinking: 0,
    seen: false,
  };
}

/**
 * Merges a wire `usage` object into the counters: each field present
 * replaces the previous value (later events carry cumulative totals). The
 * `cache_creation` breakdown gives the 1-hour part of the writes; without a
 * `cache_creation_input_tokens` total the writes are its two TTLs summed.
 *
 * @param counters The counters to update (mutated).
 * @param usage The wire `usage` object (anything; non-objects are ignored).
 */
export function mergeAnthropicUsage(
  counters: AnthropicCounters,
  usage: unknown,
): void {
  const input = countField(usage, "input_tokens");
  const output = countField(usage, "output_tokens");
  if (input !== undefined || output !== undefined) counters.seen = true;
  counters.input = input ?? counters.input;
  counters.output = output ?? counters.output;
  counters.cacheRead = countField(usage, "cache_read_input_tokens") ??
    counters.cacheRead;
  const ttl = objectField(usage, "cache_creation");
  const oneHour = countField(ttl, "ephemeral_1h_input_tokens");
  const fiveMin = countField(ttl, "ephemeral_5m_input_tokens");
  const byTtl = oneHour === undefined && fiveMin === undefined
    ? undefined
    : (oneHour ?? 0) + (fiveMin ?? 0);
  counters.cacheWrite = countField(usage, "cache_creation_input_tokens") ??
    byTtl ?? counters.cacheWrite;
  counters.cacheWrite1h = oneHour ?? counters.cacheWrite1h;
  const details = objectField(usage, "output_tokens_details");
  counters.thinking = countField(details, "thinking_tokens") ??
    counters.thinking;
}

/**
 * The canonical usage of the counters; zero cache and reasoning classes are
 * omitted, reasoning is capped at the output and the 1-hour writes at the
 * writes.
 *
 * @param c The counters.
 * @returns The usage.
 */
export function anthropicUsage(c: AnthropicCounters): Usage {
  const usage: Usage = { inputTokens: c.input, outputTokens: c.output };
  if (c.cacheRead > 0) usage.cacheReadTokens = c.cacheRead;
  if (c.cacheWrite > 0) usage.cacheWriteTokens = c.cacheWrite;
  const oneHour = Math.min(c.cacheWrite1h, c.cacheWrite);
  if (oneHour > 0) usage.cacheWrite1hTokens = oneHour;
  if (c.thinking > 0) usage.reasoningTokens = Math.min(c.thinking, c.output);
  return usage;
}
