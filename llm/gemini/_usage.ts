/**
 * Gemini `usageMetadata` → canonical usage.
 *
 * @module
 */
import type { Usage } from "../chunk.ts";
import { countField, isObject } from "../_wire_json.ts";

/**
 * Maps `usageMetadata`: `promptTokenCount` includes
 * `cachedContentTokenCount`, so uncached input is their difference (plus
 * `toolUsePromptTokenCount`) and the cached part is `cacheReadTokens`;
 * output is `candidatesTokenCount` plus `thoughtsTokenCount` (thoughts
 * are billed as output), the thoughts also being `reasoningTokens`.
 *
 * @param metadata The wire object (anything; non-objects give `undefined`).
 * @returns The usage, or `undefined` when no count was reported.
 */
export function geminiUsage(metadata: unknown): Usage | undefined {
  if (!isObject(metadata)) return undefined;
  const prompt = countField(metadata, "promptTokenCount");
  const candidates = countField(metadata, "candidatesTokenCount");
  const thoughts = countField(metadata, "thoughtsTokenCount") ?? 0;
  if (prompt === undefined && candidates === undefined && thoughts === 0) {
    return undefined;
  }
  const cached = Math.min(
    countField(metadata, "cachedContentTokenCount") ?? 0,
    prompt ?? 0,
  );
  const toolUse = countField(metadata, "toolUsePromptTokenCount") ?? 0;
  const usage: Usage = {
    inputTokens: (prompt ?? 0) - cached + toolUse,
    outputTokens: (candidates ?? 0) + thoughts,
  };
  if (cached > 0) usage.cacheReadTokens = cached;
  if (thoughts > 0) usage.reasoningTokens = thoughts;
  return usage;
}
