/**
 * Reasoning effort → Anthropic `thinking` / `output_config`.
 *
 * @module
 */
import type { LlmRequest } from "../provider.ts";

/**
 * The thinking fields of a request body.
 */
export interface AnthropicThinking {
  /** The `thinking` parameter. */
  thinking?:
    | { type: "adaptive" }
    | { type: "disabled" }
    | { type: "enabled"; budget_tokens: number };
  /** `output_config.effort` (adaptive models). */
  output_config?: { effort: "low" | "medium" | "high" | "max" };
}

/** Legacy (`enabled`) thinking budgets per effort tier. */
const BUDGETS = { low: 1024, medium: 4096, high: 16384, max: 32768 } as const;
/** The smallest budget the API accepts. */
const MIN_BUDGET = 1024;

/**
 * Whether a Claude model takes adaptive thinking (4.6 and later); older
 * ones take a fixed `budget_tokens`.
 *
 * @param model The model id.
 * @returns `true` for adaptive models.
 */
export function isAdaptiveModel(model: string): boolean {
  const m = /^claude-[a-z]+-(\d+)(?:-(\d+))?/.exec(model);
  if (m === null) return false;
  const major = Number(m[1]);
  const minor = m[2] === undefined || m[2].length > 2 ? 0 : Number(m[2]);
  return major > 4 || (major === 4 && minor >= 6);
}

/**
 * Thinking fields for a request: none without an effort or for a model the
 * catalog says does not reason; `off` → `thinking:{type:"disabled"}`;
 * adaptive models → `thinking:{type:"adaptive"}` + `output_config.effort`
 * (`max` only on Opus, `high` elsewhere); legacy models →
 * `thinking:{type:"enabled", budget_tokens}` with the budget below
 * `max_tokens` (none when that leaves less than 1024).
 *
 * @param model The model id.
 * @param effort The request's effort tier.
 * @param maxTokens The `max_tokens` being sent.
 * @param reasons The catalog's reasoning flag (`undefined` = unknown model).
 * @returns The fields to merge into the body.
 */
export function anthropicThinking(
  model: string,
  effort: LlmRequest["reasoningEffort"],
  maxTokens: number,
  reasons: boolean | undefined,
): AnthropicThinking {
  if (effort === undefined || reasons === false) return {};
  if (effort === "off") return { thinking: { type: "disabled" } };
  if (isAdaptiveModel(model)) {
    const tier = effort === "max" && !model.startsWith("claude-opus")
      ? "high"
      : effort;
    return { thinking: { type: "adaptive" }, output_config: { effort: tier } };
  }
  const budget = Math.min(BUDGETS[effort], maxTokens - 1);
  if (budget < MIN_BUDGET) return {};
  return { thinking: { type: "enabled", budget_tokens: budget } };
}
