/**
 * Runs the compaction primitive: up to four summariser
 * passes through the session's plan, the moment (`session:compacting` →
 * observer → egress → exactly one close), and the all-or-nothing new
 * state. It installs nothing: the outcome carries the steps (state,
 * boundary or spend, closing event) that the session takes. The policy it
 * follows lives in `compaction.ts`.
 *
 * @module
 */
import { createChain, type PlanEntry } from "../../llm/chain.ts";
import type { LlmRequest } from "../../llm/provider.ts";
import type { CompactionReason, SessionError } from "../../schema/event.ts";
import type { CostEntry } from "../../schema/turn.ts";
import {
  COMPACTION_LIMITS,
  COMPACTION_SYSTEM_PROMPT,
  planPass,
  splitForCompaction,
} from "./compaction.ts";
import type { SpendLedger } from "../ledger.ts";
import { sessionError } from "../turn_errors.ts";
import { runSummaryPass } from "./summary_pass.ts";
import { estimateState } from "./projection.ts";
import type { ContextState, WindowStep, WindowView } from "./state.ts";

/**
 * What summariser calls need: the abort signal, the ledger that admits
 * and prices each attempt, and the list its spend rows settle into as
 * attempts end (the session holds the same list, so a cancel mid-way
 * still hands that spend over).
 */
export interface Summariser {
  /** Aborts the work (a cancel aborts it too). */
  signal: AbortSignal;
  /** Admission (latch, then budget) and pricing of each attempt. */
  ledger: SpendLedger;
  /** Spend rows of this compaction, in settle order. */
  spend: CostEntry[];
}

/**
 * One run of the primitive: the state it folds, why, the summariser's
 * request bound, whether the window is unknown (disclosed on
 * `session:compacting`), the pending user of the turn (pre-send,
 * recovery), and the summariser's inputs.
 */
export interface CompactionRun {
  /** The state to fold. */
  state: ContextState;
  /** Signal, ledger and spend list of the summariser calls. */
  summariser: Summariser;
  /** Why it runs. */
  reason: CompactionReason;
  /** Largest summariser request estimate. */
  bound: number;
  /** Disclose an unknown window on `session:compacting`. */
  windowUnknown: boolean;
  /** The first attemptable entry: pass 1 is admitted on it first. */
  entry: PlanEntry;
  /** The heuristic estimate of the request `state` projects to. */
  tokensBefore: number;
  /** The pending user of the turn (pre-send, recovery). */
  pending?: string;
}

/**
 * How a compaction ended. `momentOpened` says whether `session:compacting`
 * was emitted (and so closed by `session:compaction_failed`). `aborted`
 * also covers a cancelled session, which takes no step.
 */
export type CompactionEnd =
  | {
    kind: "compacted";
    /** The new state (also in the steps). */
    state: ContextState;
    summary: string;
    keptMessageCount: number;
    keptTurnCount: number;
    tokensBefore: number;
    tokensAfter: number;
    usage: { input: number; output: number };
  }
  | { kind: "nothing_to_compact" }
  | { kind: "budget_refused"; error: SessionError; momentOpened: boolean }
  | {
    kind: "failed";
    error: SessionError;
    momentOpened: boolean;
    observer?: true;
  }
  | { kind: "aborted"; momentOpened: boolean };

/**
 * A compaction's end and the steps the session takes for it: the new
 * state with its boundary and `session:compacted`, or the spend and
 * `session:compaction_failed` that close an opened moment.
 */
export type CompactionOutcome = CompactionEnd & { steps: WindowStep[] };

const ABORTED: unique symbol = Symbol("aborted");

function untilAborted(signal: AbortSignal): Promise<typeof ABORTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABORTED);
    else {signal.addEventListener("abort", () => resolve(ABORTED), {
        once: true,
      });}
  });
}

/**
 * Runs one compaction. Nothing foldable ⇒ `nothing_to_compact` (no
 * events). Pass 1 is admitted before the moment opens; a refusal there
 * returns with no events. Then `session:compacting` (published at once),
 * the awaited observer, and the passes; each opened moment ends with
 * exactly one `session:compacted` or `session:compaction_failed` step.
 * The new state is in the steps only when every pass succeeded.
 *
 * @param view The next request's parts (plan, tools, deps).
 * @param run The state, why, the request bound, disclosure, the pending
 * user and the summariser's inputs.
 * @returns The outcome and its steps.
 */
export async function runCompaction(
  view: WindowView,
  run: CompactionRun,
): Promise<CompactionOutcome> {
  const { state, reason, summariser } = run;
  const { signal, ledger, spend } = summariser;
  const deps = view.deps;
  const split = splitForCompaction(state.messages, state.spans);
  if (split === undefined) return { kind: "nothing_to_compact", steps: [] };
  const chain = summaryChain(view, ledger, spend);
  let opened = false;
  const close = (error: SessionError): WindowStep[] =>
    opened
      ? [{
        ...(spend.length > 0
          ? { handover: { kind: "spend" as const, costs: spend } }
          : {}),
        event: { type: "session:compaction_failed", reason, error },
      }]
      : [];
  const failed = (error: SessionError): CompactionOutcome => ({
    kind: "failed",
    error,
    momentOpened: opened,
    steps: close(error),
  });
  const stop = (): CompactionOutcome => ({
    kind: "aborted",
    momentOpened: opened,
    steps: close(sessionError("cancelled", "The compaction was aborted")),
  });
  if (signal.aborted) return stop();

  const tokensBefore = run.tokensBefore;
  let prior = state.summary === "" ? undefined : state.summary;
  let remaining = split.foldable;
  const usage = { input: 0, output: 0 };
  const unfittable = "The running summary leaves no room to fold the history";

  for (let pass = 1; pass <= COMPACTION_LIMITS.maxPasses; pass++) {
    const plan = planPass({
      system: COMPACTION_SYSTEM_PROMPT,
      ...(prior === undefined ? {} : { prior }),
      remaining,
      maxTokens: run.bound,
    });
    if (plan === undefined) return failed(sessionError("internal", unfittable));
    const request: LlmRequest = {
      model: "",
      system: COMPACTION_SYSTEM_PROMPT,
      messages: [{
        role: "user",
        content: [{ type: "text", text: plan.text }],
      }],
      maxTokens: COMPACTION_LIMITS.summaryMaxTokens,
    };
    if (pass === 1) {
      const entry = run.entry;
      const meta = { provider: entry.provider.id, model: entry.model };
      const a = ledger.admit("summary", view.plan, meta, {
        ...request,
        model: entry.model,
      });
      if (!a.allow) {
        return a.error.code === "budget_exceeded"
          ? {
            kind: "budget_refused",
            error: a.error,
            momentOpened: false,
            steps: [],
          }
          : failed(a.error);
      }
      chain.admitted = true;
      opened = true;
      deps.emit({
        type: "session:compacting",
        reason,
        ...(run.windowUnknown ? { windowUnknown: true } : {}),
      });
      if (signal.aborted) return stop();
      const onStart = deps.onCompactionStart;
      if (onStart !== undefined) {
        const observed = Promise.resolve().then(() =>
          onStart.call(deps, {
            reason,
            windowUnknown: run.windowUnknown,
            signal,
          })
        ).then(() => true, () => false);
        const r = await Promise.race([observed, untilAborted(signal)]);
        if (r === ABORTED || signal.aborted) return stop();
        if (!r) {
          const error = sessionError(
            "internal",
            "The compaction observer failed",
          );
          return {
            kind: "failed",
            error,
            momentOpened: true,
            observer: true,
            steps: close(error),
          };
        }
      }
    }
    const r = await runSummaryPass(chain.chain, request, signal);
    if (r.kind === "aborted" || signal.aborted) return stop();
    if (r.kind === "refused") {
      if (r.error.code !== "budget_exceeded") return failed(r.error);
      return {
        kind: "budget_refused",
        error: r.error,
        momentOpened: true,
        steps: close(r.error),
      };
    }
    if (r.kind === "failed") return failed(r.error);
    usage.input += r.usage.input;
    usage.output += r.usage.output;
    const summary = r.text.trim();
    if (summary === "") {
      return failed(
        sessionError("internal", "The summariser returned an empty summary"),
      );
    }
    prior = summary;
    remaining = remaining.slice(plan.consumed);
    if (remaining.length === 0) break;
  }
  if (remaining.length > 0 || prior === undefined) {
    return failed(sessionError(
      "internal",
      `The history could not be folded within ${COMPACTION_LIMITS.maxPasses} passes`,
    ));
  }
  const next: ContextState = {
    messages: split.kept,
    spans: split.keptSpans,
    summary: prior,
  };
  const tokensAfter = estimateState(view, next, run.pending);
  const keptMessageCount = split.kept.length +
    (run.pending === undefined ? 0 : 1);
  const done = {
    summary: prior,
    keptMessageCount,
    keptTurnCount: split.keptTurnCount,
    tokensBefore,
    tokensAfter,
  };
  return {
    kind: "compacted",
    state: next,
    ...done,
    usage,
    steps: [{
      state: next,
      handover: {
        kind: "boundary",
        marker: {
          summary: prior,
          keptTurnCount: split.keptTurnCount,
          tokensUsed: { ...usage },
          costs: spend,
        },
      },
      event: {
        type: "session:compacted",
        reason,
        ...done,
        tokensUsed: { ...usage },
      },
    }],
  };
}

/**
 * The summariser's chain: each attempt admitted by the ledger (except the
 * one pass 1 admitted before the moment opened) and priced into `spend`.
 */
function summaryChain(
  view: WindowView,
  ledger: SpendLedger,
  spend: CostEntry[],
): { chain: ReturnType<typeof createChain>; admitted: boolean } {
  const deps = view.deps;
  const out = {
    admitted: false,
    chain: createChain({
      plan: view.plan,
      keyFor: (id) => deps.keyFor(id),
      sleep: (ms, s) => deps.sleep(ms, s),
      now: () => deps.clock.now(),
      admit: (entry, request) => {
        if (out.admitted) {
          out.admitted = false;
          return { allow: true };
        }
        return ledger.admit("summary", view.plan, entry, request);
      },
      onAttempt: (report) => ledger.record(report, (c) => spend.push(c)),
    }),
  };
  return out;
}
