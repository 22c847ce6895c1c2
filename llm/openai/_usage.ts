/**
 * OpenAI Chat usage → canonical usage: `prompt_tokens` is
 * gross, so `input = prompt − cache reads − cache writes`.
 *
 * @module
 */
import type { Usage } from "../chunk.ts";
import { countField, isObject, objectField } from "../_wire_json.ts";

/**
 * Converts a wire `usage` object. Cache reads come from
 * `prompt_tokens_details.cached_tokens` or DeepSeek's
 * `prompt_cache_hit_tokens`; cache writes from
 * `prompt_tokens_details.cache_write_tokens`. DeepSeek's
 * `prompt_cache_miss_tokens` are uncached input (DeepSeek bills no write
 * class): they only stand in for a missing `prompt_tokens` (hits + misses).
 * Reasoning tokens come from `completion_tokens_details.reasoning_tokens`
 * (capped at the output). Each class is capped so the classes stay
 * disjoint and within the prompt; zero cache and reasoning classes are
 * omitted.
 *
 * @param usage The wire `usage` (anything).
 * @returns The usage, or `undefined` when `usage` is not an object.
 */
export function openAiUsage(usage: unknown): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const details = objectField(usage, "prompt_tokens_details");
  const hit = countField(usage, "prompt_cache_hit_tokens");
  const miss = countField(usage, "prompt_cache_miss_tokens");
  const prompt = countField(usage, "prompt_tokens") ??
    (hit === undefined && miss === undefined ? 0 : (hit ?? 0) + (miss ?? 0));
  const output = countField(usage, "completion_tokens") ?? 0;
  const cached = Math.min(
    countField(details, "cached_tokens") ?? hit ?? 0,
    prompt,
  );
  const written = Math.min(
    countField(details, "cache_write_tokens") ?? 0,
    prompt - cached,
  );
  const reasoning = Math.min(
    countField(
      objectField(usage, "completion_tokens_details"),
      "reasoning_tokens",
    ) ?? 0,
    output,
  );
  const out: Usage = {
    inputTokens: prompt - cached - written,
    outputTokens: output,
  };
  if (cached > 0) out.cacheReadTokens = cached;
  if (written > 0) out.cacheWriteTokens = written;
  if (reasoning > 0) out.reasoningTokens = reasoning;
  return out;
}
