/**
 * The session's spend: pricing each attempt into `cost:updated`, and the
 * pre-egress admission of every provider attempt (the host's hook first,
 * then the cost cap).
 *
 * @module
 */
import type { Admission, AttemptReport, PlanEntry } from "../llm/chain.ts";
import { priceUsage } from "../llm/cost.ts";
import { estimateTokens } from "../llm/estimate.ts";
import type { LlmRequest } from "../llm/provider.ts";
import { type BudgetGovernor, createBudgetGovernor } from "./budget.ts";
import { reservationOf } from "./measure.ts";
import type { SessionDeps } from "./deps.ts";
import type { CostEntry } from "../store/store.ts";

/**
 * The deps a {@linkcode SpendLedger} reads.
 */
export type LedgerDeps = Pick<
  SessionDeps,
  | "catalog"
  | "emit"
  | "preEgress"
  | "updateCost"
  | "budget"
  | "maxTokensEstimate"
>;

/**
 * Realised spend and admission of one session.
 */
export class SpendLedger {
  #spent = 0;
  #deps: LedgerDeps;
  #nodeId: string;
  #isCancelled: () => boolean;
  #budget: BudgetGovernor | undefined;

  /**
   * Builds the ledger; a positive `budget` cap creates the governor.
   *
   * @param options The deps it uses, the `nodeId` of its events, and
   * whether the session was cancelled (no cost event after a cancel).
   */
  constructor(options: {
    deps: LedgerDeps;
    nodeId: string;
    isCancelled(): boolean;
  }) {
    const deps = options.deps;
    this.#deps = deps;
    this.#nodeId = options.nodeId;
    this.#isCancelled = options.isCancelled;
    if (deps.budget !== undefined && deps.budget.maxCostMicrocents > 0) {
      this.#budget = createBudgetGovernor(deps.budget, {
        ...(deps.catalog === undefined ? {} : { catalog: deps.catalog }),
        spent: () => this.#spent,
      });
    }
  }

  /** Session-wide realised spend in micro-cents. */
  get spent(): number {
    return this.#spent;
  }

  /**
   * Restores the spend of a resumed session.
   *
   * @param microcents The stored realised spend.
   */
  restore(microcents: number): void {
    this.#spent = microcents;
  }

  /**
   * Admits a provider attempt: the host's `preEgress` (failure latch)
   * first, then the cost cap, priced with the attempt's model.
   *
   * @param purpose A turn's request or a summariser pass.
   * @param plan The plan (for the entry's wire family).
   * @param entry The attempt's provider and model.
   * @param request The prepared request.
   * @returns The admission.
   */
  admit(
    purpose: "turn" | "summary",
    plan: readonly PlanEntry[],
    entry: { provider: string; model: string },
    request: LlmRequest,
  ): Admission {
    const hook = this.#deps.preEgress?.({
      kind: "provider",
      provider: entry.provider,
      model: entry.model,
      purpose,
      request,
    }) ?? { allow: true };
    if (!hook.allow || this.#budget === undefined) return hook;
    const planned = plan.find((e) =>
      e.provider.id === entry.provider && e.model === entry.model
    );
    const kind = planned?.provider.kind ?? "openai-compatible";
    return this.#budget.admit({
      model: entry.model,
      inputTokens: estimateTokens(request),
      reservationTokens: reservationOf(
        this.#deps,
        { kind, model: entry.model },
        request.maxTokens,
      ),
    });
  }

  /**
   * Prices a settled attempt, hands the spend row to `keep` and then emits
   * its `cost:updated` (skipped and usage-less attempts emit nothing).
   * The row is kept before any host callback runs, so a throwing sink or
   * `updateCost` never loses the spend.
   *
   * @param report The chain's attempt report.
   * @param keep Receives the priced spend row first.
   */
  record(report: AttemptReport, keep: (spent: CostEntry) => void): void {
    if (report.outcome === "skipped" || report.usage === undefined) return;
    if (this.#isCancelled()) return;
    const info = this.#deps.catalog?.lookup(report.model);
    const price = priceUsage(report.usage, info);
    this.#spent += price.costMicrocents;
    keep({
      model: report.model,
      inputTokens: report.usage.inputTokens,
      outputTokens: report.usage.outputTokens,
      costMicrocents: price.costMicrocents,
      priced: price.priced,
    });
    this.#deps.emit({
      type: "cost:updated",
      nodeId: this.#nodeId,
      model: report.model,
      inputTokens: report.usage.inputTokens,
      outputTokens: report.usage.outputTokens,
      costMicrocents: price.costMicrocents,
      cumulativeCostMicrocents: this.#spent,
      attemptNumber: report.attemptNumber,
      priced: price.priced,
    });
    this.#deps.updateCost?.(this.#spent);
  }
}
