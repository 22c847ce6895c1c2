/**
 * OpenAI Chat usage → canonical usage: `prompt_tokens` is
 * gross, so `input = prompt − cached` and `cacheRead = cached`.
 *
 * @module
 */
import type { Usage } from "../chunk.ts";
import { countField, isObject, objectField } from "../_wire_json.ts";

/**
 * Converts a wire `usage` object; cached tokens come from
 * `prompt_tokens_details.cached_tokens` or DeepSeek's
 * `prompt_cache_hit_tokens`; reasoning tokens from
 * `completion_tokens_details.reasoning_tokens` (capped at the output). Zero
 * cache and reasoning classes are omitted.
 *
 * @param usage The wire `usage` (anything).
 * @returns The usage, or `undefined` when `usage` is not an object.
 */
export function openAiUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const prompt = countField(usage, "prompt_tokens") ?? 0;
  const output = countField(usage, "completion_tokens") ?? 0;
  const cachedRaw =
    countField(objectField(usage, "prompt_tokens_details"), "cached_tokens") ??
      countField(usage, "prompt_cache_hit_tokens") ?? 0;
  const cached = Math.min(cachedRaw, prompt);
  const reasoning = Math.min(
    countField(
      objectField(usage, "completion_tokens_details"),
      "reasoning_tokens",
    ) ?? 0,
    output,
  );
  const out: Usage = { inputTokens: prompt - cached, outputTokens: output };
  if (cached > 0) out.cacheReadTokens = cached;
  if (reasoning > 0) out.reasoningTokens = reasoning;
  return out;
}
