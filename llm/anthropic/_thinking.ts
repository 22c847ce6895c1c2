/**
 * Reasoning effort → Anthropic `thinking` / `output_config`, from the
 * model's catalog flags.
 *
 * @module
 */
import type { ModelInfo } from "../catalog.ts";
import type { LlmRequest } from "../provider.ts";

/** An `output_config.effort` value. */
type WireEffort = "low" | "medium" | "high" | "xhigh" | "max";

/**
 * The thinking fields of a request body, and what they mean for the rest
 * of it.
 */
export interface AnthropicThinking {
  /** The `thinking` parameter. */
  thinking?:
    | { type: "adaptive" }
    | { type: "disabled" }
    | { type: "between_tools" }
    | { type: "enabled"; budget_tokens: number };
  /** `output_config.effort` (adaptive models). */
  output_config?: { effort: WireEffort };
  /**
   * Whether the model thinks with these fields (sent or by default): then
   * no sampling parameter is sent and `tool_choice` is auto or none.
   */
  on: boolean;
  /**
   * Tokens `max_tokens` reserves for thinking on top of the answer: the
   * legacy budget, or for adaptive thinking the same allowance per tier.
   */
  reserve: number;
}

/** Legacy (`enabled`) thinking budgets per effort tier. */
const BUDGETS = { low: 1024, medium: 4096, high: 16384, max: 32768 } as const;
/** The smallest budget the API accepts. */
const MIN_BUDGET = 1024;
/** What a model that thinks by default is given on top of the answer. */
const DEFAULT_RESERVE = BUDGETS.high;

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

function isWireEffort(tier: string): tier is WireEffort {
  return ["low", "medium", "high", "xhigh", "max"].includes(tier);
}

/**
 * The `output_config.effort` of a tier: `max` stays `max` where the model
 * lists it, else its next highest (`xhigh`, then `high`); without listed
 * tiers `max` is kept on Opus and `high` elsewhere.
 */
function adaptiveEffort(
  model: string,
  effort: "low" | "medium" | "high" | "max",
  tiers: readonly string[] | undefined,
): WireEffort {
  if (effort !== "max") return effort;
  if (tiers === undefined) {
    return model.startsWith("claude-opus") ? "max" : "high";
  }
  if (tiers.includes("max")) return "max";
  return tiers.includes("xhigh") ? "xhigh" : "high";
}

/** Effort `off` on a model whose thinking cannot be disabled: its lowest tier. */
function lowestEffort(tiers: readonly string[] | undefined): WireEffort {
  const lowest = tiers?.find(isWireEffort);
  return lowest ?? "low";
}

/**
 * Thinking fields for a request, from the model's catalog entry:
 * - no effort: nothing sent; `on` when the model thinks by default;
 * - a model the catalog says does not reason: nothing;
 * - `off`: `thinking:{type:"disabled"}`, or `between_tools` where that is
 *   the model's lowest setting, or (thinking cannot be disabled) no
 *   `thinking` and the lowest effort tier — never a `disabled` the model
 *   refuses;
 * - adaptive models (4.6 and later, or flagged adaptive-only):
 *   `thinking:{type:"adaptive"}` + `output_config.effort`, `max` kept
 *   where listed;
 * - legacy models: `thinking:{type:"enabled", budget_tokens}`; the budget
 *   is fitted by {@linkcode fitThinkingBudget}.
 *
 * @param model The model id.
 * @param effort The request's effort tier.
 * @param info The model's catalog entry (`undefined` = unknown model).
 * @returns The fields and what they imply.
 */
export function anthropicThinking(
  model: string,
  effort: LlmRequest["reasoningEffort"],
  info: ModelInfo | undefined,
): AnthropicThinking {
  const byDefault = info?.thinkingByDefault === true;
  if (info?.reasoning === false) return { on: false, reserve: 0 };
  if (effort === undefined) {
    return { on: byDefault, reserve: byDefault ? DEFAULT_RESERVE : 0 };
  }
  const tiers = info?.effortTiers;
  if (effort === "off") {
    switch (info?.thinkingOff ?? "disabled") {
      case "disabled":
        return { thinking: { type: "disabled" }, on: false, reserve: 0 };
      case "between_tools":
        return {
          thinking: { type: "between_tools" },
          on: true,
          reserve: MIN_BUDGET,
        };
      case "never":
        return {
          output_config: { effort: lowestEffort(tiers) },
          on: true,
          reserve: BUDGETS.low,
        };
    }
  }
  if (info?.adaptiveThinkingOnly === true || isAdaptiveModel(model)) {
    return {
      thinking: { type: "adaptive" },
      output_config: { effort: adaptiveEffort(model, effort, tiers) },
      on: true,
      reserve: BUDGETS[effort],
    };
  }
  const budget = BUDGETS[effort];
  return {
    thinking: { type: "enabled", budget_tokens: budget },
    on: true,
    reserve: budget,
  };
}

/**
 * Fits a legacy thinking budget into the `max_tokens` being sent: the
 * budget stays below `max_tokens` and leaves at least `answer` tokens (or
 * half of `max_tokens`, when the ceiling left less) for the answer; a
 * budget under the API's 1,024 minimum drops thinking altogether.
 *
 * @param think The thinking fields.
 * @param maxTokens The `max_tokens` being sent.
 * @param answer The tokens meant for the answer.
 * @returns The fields with the budget fitted.
 */
export function fitThinkingBudget(
  think: AnthropicThinking,
  maxTokens: number,
  answer: number,
): AnthropicThinking {
  if (think.thinking?.type !== "enabled") return think;
  const kept = Math.min(answer, Math.ceil(maxTokens / 2));
  const budget = Math.min(think.thinking.budget_tokens, maxTokens - kept);
  if (budget < MIN_BUDGET) return { on: false, reserve: 0 };
  return { ...think, thinking: { type: "enabled", budget_tokens: budget } };
}
