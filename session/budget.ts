/**
 * The budget governor: pre-egress admission of
 * every provider attempt, main and summariser, against the session's cost
 * cap, priced at the attempt model's full uncached input rate plus its
 * output rate over the output reservation.
 *
 * @module
 */
import type { Admission } from "../llm/chain.ts";
import type { ModelCatalog } from "../llm/catalog.ts";
import { sessionError } from "./turn_errors.ts";

/**
 * What to do when an attempt could exceed the cap. Sessions have no pause
 * gate: `pause_for_approval` refuses like `fail`.
 */
export type OnExceed = "fail" | "pause_for_approval" | "warn";

/**
 * A notice the host shows (stderr in the CLI); never an event.
 */
export type BudgetNotice =
  | {
    kind: "over_cap";
    capMicrocents: number;
    projectedMicrocents: number;
    message: string;
  }
  | { kind: "unpriced"; model: string; message: string };

/**
 * The session's cost cap (`[chat].max_cost_microcents`, `on_exceed`,
 * `strict_cost_cap`).
 */
export interface BudgetPolicy {
  /** The cap in micro-cents; `0` (or less) means no cap. */
  maxCostMicrocents: number;
  /** Default `pause_for_approval` (which refuses, like `fail`). */
  onExceed?: OnExceed;
  /** Refuse attempts on models without a price. Default `false`. */
  strictCostCap?: boolean;
  /**
   * Receives each notice once: the first over-cap attempt under `warn`,
   * and once per unpriced model.
   */
  onNotice?(notice: BudgetNotice): void;
}

/**
 * One attempt to admit.
 */
export interface BudgetAttempt {
  /** The attempt's model (priced through the catalog). */
  model: string;
  /** Estimated input tokens of the request. */
  inputTokens: number;
  /** Output reservation of the attempt. */
  reservationTokens: number;
}

/**
 * The governor of one session.
 */
export interface BudgetGovernor {
  /** Admits or refuses one attempt (no state besides the notices). */
  admit(attempt: BudgetAttempt): Admission;
}

/**
 * The worst-case projected spend of an attempt:
 * `spent + round(input·inputRate/1e6) + round(reservation·outputRate/1e6)`.
 *
 * @param spent Realised session spend so far (micro-cents).
 * @param attempt Token estimate and reservation.
 * @param rates Input (uncached) and output rates, µ¢ per million tokens.
 * @returns The projected spend in micro-cents.
 */
export function projectedSpend(
  spent: number,
  attempt: BudgetAttempt,
  rates: { inputPerMtokMicrocents: number; outputPerMtokMicrocents: number },
): number {
  return spent +
    Math.round(attempt.inputTokens * rates.inputPerMtokMicrocents / 1e6) +
    Math.round(attempt.reservationTokens * rates.outputPerMtokMicrocents / 1e6);
}

/**
 * The refusal message of the cap (it names the cap).
 *
 * @param cap The cap in micro-cents.
 * @returns The fixed message.
 */
export function budgetRefusalMessage(cap: number): string {
  return `Request refused: it could exceed the session's cost cap of ${cap} micro-cents`;
}

/**
 * Checks a budget policy.
 *
 * @param policy The policy, or `undefined`.
 * @throws {TypeError} On a cap that is not a safe integer or an unknown
 * `onExceed`.
 */
export function checkBudgetPolicy(policy: BudgetPolicy | undefined): void {
  if (policy === undefined) return;
  if (!Number.isSafeInteger(policy.maxCostMicrocents)) {
    throw new TypeError("Invalid budget: maxCostMicrocents must be an integer");
  }
  const o = policy.onExceed;
  if (
    o !== undefined && o !== "fail" && o !== "pause_for_approval" &&
    o !== "warn"
  ) {
    throw new TypeError("Invalid budget: unknown onExceed");
  }
}

/**
 * Creates the governor of one session. Under a cap ≤ 0 every attempt is
 * admitted and nothing is noticed. An unpriced model is admitted with one
 * notice per model, or refused under `strictCostCap`. A priced attempt
 * whose projected spend exceeds the cap is refused (`budget_exceeded`,
 * naming the cap) under `fail`/`pause_for_approval`, and admitted with one
 * notice under `warn`.
 *
 * @param policy The cap and what to do when it would be exceeded.
 * @param deps The catalog and the session's realised spend.
 * @returns The governor.
 */
export function createBudgetGovernor(
  policy: BudgetPolicy,
  deps: { catalog?: ModelCatalog; spent(): number },
): BudgetGovernor {
  const cap = policy.maxCostMicrocents;
  const noticedModels = new Set<string>();
  let warned = false;
  const refuse = (message: string): Admission => ({
    allow: false,
    error: sessionError("budget_exceeded", message),
  });
  return {
    admit(attempt: BudgetAttempt): Admission {
      if (cap <= 0) return { allow: true };
      const info = deps.catalog?.lookup(attempt.model);
      if (info === undefined) {
        if (policy.strictCostCap === true) {
          return refuse(
            `Request refused: ${attempt.model} has no price and the session's cost cap of ${cap} micro-cents is strict`,
          );
        }
        if (!noticedModels.has(attempt.model)) {
          noticedModels.add(attempt.model);
          policy.onNotice?.({
            kind: "unpriced",
            model: attempt.model,
            message: `cost cap will not apply to ${attempt.model}`,
          });
        }
        return { allow: true };
      }
      const projected = projectedSpend(deps.spent(), attempt, info);
      if (projected <= cap) return { allow: true };
      if (policy.onExceed === "warn") {
        if (!warned) {
          warned = true;
          policy.onNotice?.({
            kind: "over_cap",
            capMicrocents: cap,
            projectedMicrocents: projected,
            message:
              `The session may exceed its cost cap of ${cap} micro-cents; continuing (on_exceed = warn)`,
          });
        }
        return { allow: true };
      }
      return refuse(budgetRefusalMessage(cap));
    },
  };
}
