/**
 * The session's spend: pricing each attempt into `cost:updated`, the
 * pre-egress admission of every provider attempt (the host's hook first,
 * then the cost cap), and usage coverage: each admitted attempt is told
 * to the host as pending before it leaves and settled after it. An
 * attempt whose provider sent no token counts is not free: its tokens are
 * unknown, and it is charged the estimate the cap admitted it at (the
 * request's input estimate plus its output reservation, an upper bound),
 * flagged `usageUnknown` on its event and its spend row.
 *
 * @module
 */
import type { Admission, AttemptReport, PlanEntry } from "../llm/chain.ts";
import { priceUsage } from "../llm/cost.ts";
import { estimateTokens } from "../llm/estimate.ts";
import type { LlmRequest } from "../llm/provider.ts";
import type { Usage } from "../llm/chunk.ts";
import { type BudgetGovernor, createBudgetGovernor } from "./budget.ts";
import { reservationOf } from "./window/measure.ts";
import type { SessionDeps } from "./deps.ts";
import { HookRefusal, sessionError } from "./turn_errors.ts";
import type { CostEntry } from "../schema/turn.ts";

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
  | "ids"
  | "invocationStarted"
  | "invocationSettled"
>;

/**
 * Running totals of priced attempts: spend, prompt-cache tokens, and how
 * many attempts had no price or no reported usage.
 */
export interface SpendFigures {
  /** Realised spend in micro-cents. */
  costMicrocents: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens: number;
  /** Attempts whose model had no price. */
  unpricedCalls: number;
  /** Attempts whose provider reported no usage (cost estimated). */
  usageUnknownCalls: number;
}

/** An admitted attempt: what its estimate is computed from. */
interface Admitted {
  plan: readonly PlanEntry[];
  provider: string;
  model: string;
  request: LlmRequest;
}

/** The attempt admitted last and not yet reported. */
interface OpenInvocation {
  id: string;
  provider: string;
  model: string;
}

type Coverage = Parameters<
  NonNullable<SessionDeps["invocationSettled"]>
>[0]["coverage"];

/**
 * Realised spend and admission of one session.
 */
export class SpendLedger {
  #spent = 0;
  #deps: LedgerDeps;
  #nodeId: string;
  #isCancelled: () => boolean;
  #turnNumber: (() => number) | undefined;
  #budget: BudgetGovernor | undefined;
  #open: OpenInvocation | undefined;
  /**
   * The attempt admitted and not yet reported: what an unknown usage is
   * estimated from. Dropped at its report, so the ledger, which lives as
   * long as the session, does not hold a finished request (and its
   * history-sized messages array) until the next admission.
   */
  #admitted: Admitted | undefined;
  #unaccounted = 0;
  #figures: SpendFigures = {
    costMicrocents: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    unpricedCalls: 0,
    usageUnknownCalls: 0,
  };

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
    /** The current turn's number if its next call engages it. */
    turnNumber?: () => number;
  }) {
    const deps = options.deps;
    this.#deps = deps;
    this.#nodeId = options.nodeId;
    this.#isCancelled = options.isCancelled;
    this.#turnNumber = options.turnNumber;
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
   * Running figures of the attempts priced by this ledger (not restored
   * ones): a copy, so a caller can take the difference over a piece of
   * work.
   */
  get figures(): SpendFigures {
    return { ...this.#figures };
  }

  /**
   * Provider calls whose usage is unknown: adopted from earlier runs, plus
   * this run's attempts whose settlement the host could not take.
   */
  get unaccountedCalls(): number {
    return this.#unaccounted;
  }

  /**
   * Restores the spend of a resumed session.
   *
   * @param microcents The stored realised spend.
   * @param unaccountedCalls Calls of earlier runs left pending.
   */
  restore(microcents: number, unaccountedCalls = 0): void {
    this.#spent = microcents;
    this.#unaccounted = unaccountedCalls;
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
    if (!hook.allow) return hook;
    this.#admitted = {
      plan,
      provider: entry.provider,
      model: entry.model,
      request,
    };
    const admission = this.#budgetAdmit(plan, entry, request);
    return admission.allow ? this.#journal(purpose, entry) : admission;
  }

  #budgetAdmit(
    plan: readonly PlanEntry[],
    entry: { provider: string; model: string },
    request: LlmRequest,
  ): Admission {
    if (this.#budget === undefined) return { allow: true };
    return this.#budget.admit({
      model: entry.model,
      ...this.#estimate(kindOf(plan, entry), entry.model, request),
    });
  }

  /** The token estimate an attempt is admitted at. */
  #estimate(
    kind: WireKind,
    model: string,
    request: LlmRequest,
  ): { inputTokens: number; reservationTokens: number } {
    return {
      inputTokens: estimateTokens(request),
      reservationTokens: reservationOf(
        this.#deps,
        { kind, model },
        request.maxTokens,
      ),
    };
  }

  /**
   * The usage an attempt without token counts is charged at: the estimate
   * of its admission `a` (when it is this attempt's), else nothing known.
   */
  #assumedUsage(report: AttemptReport, a: Admitted | undefined): Usage {
    if (
      a === undefined || a.provider !== report.provider ||
      a.model !== report.model
    ) {
      return { inputTokens: 0, outputTokens: 0 };
    }
    const e = this.#estimate(kindOf(a.plan, a), a.model, a.request);
    return { inputTokens: e.inputTokens, outputTokens: e.reservationTokens };
  }

  /**
   * Tells the host an admitted attempt is about to leave. An attempt
   * admitted before and never reported (its consumer stopped reading
   * mid-call) stays pending with the host: it is counted unaccounted.
   */
  #journal(
    purpose: "turn" | "summary",
    entry: { provider: string; model: string },
  ): Admission {
    const started = this.#deps.invocationStarted;
    if (started === undefined) return { allow: true };
    if (this.#open !== undefined) {
      this.#open = undefined;
      this.#unaccounted++;
    }
    const id = this.#deps.ids();
    try {
      const turnNumber = purpose === "turn" ? this.#turnNumber?.() : undefined;
      started({
        id,
        purpose,
        provider: entry.provider,
        model: entry.model,
        ...(turnNumber === undefined ? {} : { turnNumber }),
      });
    } catch (error) {
      return {
        allow: false,
        error: error instanceof HookRefusal ? error.refusal : sessionError(
          "internal",
          "Cannot record the provider call before sending it; nothing was sent",
        ),
      };
    }
    this.#open = { id, provider: entry.provider, model: entry.model };
    return { allow: true };
  }

  /** Settles the open invocation when `report` is its attempt's. */
  #settle(
    report: AttemptReport,
    coverage: Coverage,
    usage: { inputTokens: number; outputTokens: number },
    costMicrocents: number,
  ): void {
    const open = this.#open;
    if (
      open === undefined || open.provider !== report.provider ||
      open.model !== report.model
    ) return;
    this.#open = undefined;
    try {
      this.#deps.invocationSettled?.({
        id: open.id,
        coverage,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        costMicrocents,
      });
    } catch {
      this.#unaccounted++;
    }
  }

  /**
   * Settles the attempt's invocation with the host, then prices it and
   * emits its `cost:updated` (skipped and usage-less attempts emit
   * nothing). A skipped attempt settles as `not_sent`; one that ended
   * without usage (a failure) as `no_usage`, zero; after a cancel the
   * spend is settled with the host but no event is emitted. The spend row
   * goes to `keep` before any host callback runs, so a throwing sink or
   * `updateCost` never loses it.
   *
   * @param report The chain's attempt report.
   * @param keep Receives the priced spend row first.
   */
  record(report: AttemptReport, keep: (spent: CostEntry) => void): void {
    const admitted = this.#admitted;
    this.#admitted = undefined;
    const none = { inputTokens: 0, outputTokens: 0 };
    if (report.outcome === "skipped") {
      // Only these skips follow an admission: the others come before it.
      const r = report.skipReason;
      if (r === "no_key" || r === "cancelled") {
        this.#settle(report, "not_sent", none, 0);
      }
      return;
    }
    if (report.usage === undefined) {
      this.#settle(report, "no_usage", none, 0);
      return;
    }
    const unknown = report.usageKnown === false;
    const usage: Usage = unknown ? none : report.usage;
    const info = this.#deps.catalog?.lookup(report.model);
    const price = priceUsage(
      unknown ? this.#assumedUsage(report, admitted) : usage,
      info,
    );
    this.#settle(
      report,
      unknown ? "no_usage" : price.priced ? "priced" : "unpriced",
      usage,
      price.costMicrocents,
    );
    if (this.#isCancelled()) return;
    this.#spent += price.costMicrocents;
    const f = this.#figures;
    f.costMicrocents += price.costMicrocents;
    f.cacheReadTokens += usage.cacheReadTokens ?? 0;
    f.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    if (!price.priced) f.unpricedCalls++;
    if (unknown) f.usageUnknownCalls++;
    const details = {
      ...(nonZero(usage.cacheReadTokens)
        ? { cacheReadTokens: usage.cacheReadTokens }
        : {}),
      ...(nonZero(usage.cacheWriteTokens)
        ? { cacheWriteTokens: usage.cacheWriteTokens }
        : {}),
      ...(unknown ? { usageUnknown: true as const } : {}),
    };
    keep({
      model: report.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costMicrocents: price.costMicrocents,
      priced: price.priced,
      ...details,
      ...(price.cacheReadMicrocents === undefined
        ? {}
        : { cacheReadMicrocents: price.cacheReadMicrocents }),
      ...(price.cacheWriteMicrocents === undefined
        ? {}
        : { cacheWriteMicrocents: price.cacheWriteMicrocents }),
    });
    this.#deps.emit({
      type: "cost:updated",
      nodeId: this.#nodeId,
      model: report.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costMicrocents: price.costMicrocents,
      cumulativeCostMicrocents: this.#spent,
      attemptNumber: report.attemptNumber,
      priced: price.priced,
      ...details,
      ...(this.#unaccounted > 0 ? { unaccountedCalls: this.#unaccounted } : {}),
    });
    this.#deps.updateCost?.(this.#spent);
  }
}

type WireKind = PlanEntry["provider"]["kind"];

/** The wire family of the plan entry an attempt uses. */
function kindOf(
  plan: readonly PlanEntry[],
  entry: { provider: string; model: string },
): WireKind {
  const planned = plan.find((e) =>
    e.provider.id === entry.provider && e.model === entry.model
  );
  return planned?.provider.kind ?? "openai-compatible";
}

function nonZero(n: number | undefined): n is number {
  return n !== undefined && n > 0;
}
