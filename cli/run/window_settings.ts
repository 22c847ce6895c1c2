/**
 * Context-management settings of the config mapped onto the session
 * : `[chat].max_messages` → `maxMessages`, `auto_compact` →
 * `autoCompact`, `compact_threshold` → `compactThreshold`,
 * `[defaults].max_tokens_estimate` → `maxTokensEstimate`, and the cost cap
 * (`max_cost_microcents`, `on_exceed`, `strict_cost_cap`) → `budget`, only
 * when the cap is positive. The governor's notices go to stderr, never to
 * the event stream.
 *
 * @module
 */
import type { SessionSettings } from "../../session/deps.ts";
import type { BudgetNotice } from "../../session/budget.ts";
import type { LoadedConfig } from "../config/config.ts";

/**
 * The session deps the config decides for context management.
 */
export type ContextDeps = Pick<
  SessionSettings,
  | "maxMessages"
  | "autoCompact"
  | "compactThreshold"
  | "maxTokensEstimate"
  | "budget"
>;

/**
 * Maps the resolved config onto the session's context-management deps.
 * The values were validated when the config loaded (a threshold outside
 * (0, 1] never gets here). No positive cap ⇒ no `budget` (no governor, no
 * unpriced-model notice).
 *
 * @param config The loaded config.
 * @returns The deps to spread into the session's deps.
 */
export function contextDeps(config: LoadedConfig): ContextDeps {
  const { chat, defaults } = config.resolved;
  const cap = chat.maxCostMicrocents.value;
  return {
    ...(chat.maxMessages === undefined
      ? {}
      : { maxMessages: chat.maxMessages.value }),
    autoCompact: chat.autoCompact.value,
    compactThreshold: chat.compactThreshold.value,
    ...(defaults.maxTokensEstimate === undefined
      ? {}
      : { maxTokensEstimate: defaults.maxTokensEstimate.value }),
    ...(cap > 0
      ? {
        budget: {
          maxCostMicrocents: cap,
          onExceed: chat.onExceed.value,
          strictCostCap: chat.strictCostCap.value,
        },
      }
      : {}),
  };
}

/**
 * The stderr line of a budget notice.
 *
 * @param notice The governor's notice.
 * @returns One line, without the newline.
 */
export function budgetNoticeLine(notice: BudgetNotice): string {
  switch (notice.kind) {
    case "unpriced":
      return `notice: ${notice.model} has no price, so the session cost cap does not apply to it (strict_cost_cap = true refuses it instead)`;
    case "over_cap":
      return `warning: ${notice.message}`;
    default: {
      const never: never = notice;
      return never;
    }
  }
}

/**
 * Routes the governor's notices (when there is a governor) to `write`,
 * one line each.
 *
 * @param deps The session deps.
 * @param write Where lines go (stderr).
 * @returns The deps with `budget.onNotice` set; unchanged without a cap.
 */
export function withBudgetNotices(
  deps: SessionSettings,
  write: (text: string) => void,
): SessionSettings {
  const budget = deps.budget;
  if (budget === undefined) return deps;
  return {
    ...deps,
    budget: {
      ...budget,
      onNotice: (n) => write(`${budgetNoticeLine(n)}\n`),
    },
  };
}
