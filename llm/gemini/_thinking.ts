/**
 * Reasoning effort → Gemini `thinkingConfig`, from the model's catalog
 * flags.
 *
 * @module
 */
import type { ModelInfo } from "../catalog.ts";
import type { LlmRequest } from "../provider.ts";

/** Thinking budgets per effort tier (models without thinking levels). */
const BUDGETS = { low: 1024, medium: 8192, high: 24576, max: 32768 } as const;
/** The smallest budget of a model whose thinking cannot be disabled. */
const MIN_BUDGET = 128;
/** Levels from lowest to highest, as the catalog spells them. */
const LEVEL_ORDER = ["minimal", "low", "medium", "high"] as const;

/** A `thinkingConfig` value. */
export interface GeminiThinkingConfig {
  /** Thought summaries streamed as `thought: true` parts. */
  includeThoughts?: boolean;
  /** `MINIMAL` | `LOW` | `MEDIUM` | `HIGH` (Gemini 3 and later). */
  thinkingLevel?: string;
  /** Tokens, `0` disables (models without levels). */
  thinkingBudget?: number;
}

function levels(info: ModelInfo | undefined): string[] {
  const tiers = info?.effortTiers ?? [];
  return LEVEL_ORDER.filter((l) => tiers.includes(l));
}

function level(
  effort: Exclude<LlmRequest["reasoningEffort"], undefined>,
  listed: readonly string[],
): string {
  if (effort === "off") return listed[0] ?? "low";
  if (effort === "max") return listed[listed.length - 1] ?? "high";
  if (listed.includes(effort)) return effort;
  // An unlisted `medium` (or `low`): the next level up that is listed.
  const rank = LEVEL_ORDER.indexOf(effort);
  return listed.find((l) => LEVEL_ORDER.indexOf(l as "low") > rank) ??
    listed[listed.length - 1] ?? effort;
}

/**
 * The `thinkingConfig` of a request, or `undefined` when none is sent:
 * - a model the catalog says does not reason: none;
 * - no effort: thoughts included for a model the catalog lists as
 *   reasoning (it thinks at its default), else none;
 * - models with thinking levels (`effortTiers` of `minimal`…`high`):
 *   `thinkingLevel` upper-cased; `off` is the lowest listed level, `max`
 *   the highest, an unlisted tier the next listed one up;
 * - other models: `thinkingBudget` (1,024 / 8,192 / 24,576 / 32,768 for
 *   low … max); `off` is `0`, or the 128-token minimum where thinking
 *   cannot be disabled (`thinkingOff: "never"`).
 * Thoughts are included whenever the model thinks.
 *
 * @param effort The request's effort tier.
 * @param info The model's catalog entry (`undefined` = unknown model).
 * @returns The config, or `undefined`.
 */
export function geminiThinking(
  effort: LlmRequest["reasoningEffort"],
  info: ModelInfo | undefined,
): GeminiThinkingConfig | undefined {
  if (info?.reasoning === false) return undefined;
  if (effort === undefined) {
    return info?.reasoning === true ? { includeThoughts: true } : undefined;
  }
  const listed = levels(info);
  if (listed.length > 0) {
    return {
      includeThoughts: true,
      thinkingLevel: level(effort, listed).toUpperCase(),
    };
  }
  if (effort === "off") {
    return info?.thinkingOff === "never"
      ? { includeThoughts: true, thinkingBudget: MIN_BUDGET }
      : { thinkingBudget: 0 };
  }
  return { includeThoughts: true, thinkingBudget: BUDGETS[effort] };
}
