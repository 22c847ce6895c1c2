/**
 * The entry points of context management, as decisions that return what
 * the session does next: the request a turn sends (after the pre-send
 * check, or after an overflow, the recovery), the after-turn step, and a
 * compaction for any reason. Each returns its outcome with the steps
 * (state, handover, event) that the session takes in one place; nothing
 * here installs, commits or publishes (except `session:compacting` and
 * the ledger's `cost:updated`, published as they happen).
 *
 * @module
 */
import type { LlmMessage } from "../../llm/provider.ts";
import type { CompactionReason, SessionError } from "../../schema/event.ts";
import { sessionError } from "../turn_errors.ts";
import type { CompactionOutcome, Summariser } from "./compact.ts";
import {
  checkRequest,
  type CompactCheck,
  type RequestCheck,
  summaryTarget,
} from "./measure.ts";
import { estimateState, requestHistory } from "./projection.ts";
import type { ContextState, WindowStep, WindowView } from "./state.ts";
import { trimSteps } from "./trim.ts";

/**
 * The compaction primitive, loaded on the first compaction: a session
 * that never compacts never evaluates it (nor its summariser pass). A
 * failed load rejects, and the turn ends `internal`.
 */
async function runCompaction(
  ...args: Parameters<typeof import("./compact.ts").runCompaction>
): Promise<CompactionOutcome> {
  return (await import("./compact.ts")).runCompaction(...args);
}

/** A compaction's outcome, or `skipped` when no bound can be set. */
export type CompactWithOutcome =
  | CompactionOutcome
  | { kind: "skipped"; steps: WindowStep[] };

/**
 * Runs the primitive where no check called for it (a manual `compact()`):
 * it finds where the summariser runs and estimates the state itself.
 *
 * @param view The next request's parts.
 * @param options The state, why, and the summariser's inputs; `manual`
 * allows unknown windows.
 * @returns The outcome, or `skipped` when no bound can be set.
 */
export function compactWith(
  view: WindowView,
  options: {
    state: ContextState;
    reason: CompactionReason;
    summariser: Summariser;
    manual?: boolean;
  },
): Promise<CompactWithOutcome> {
  const target = summaryTarget(view.plan, options.manual === true);
  if (target === undefined) {
    return Promise.resolve({ kind: "skipped", steps: [] });
  }
  return runCompaction(view, {
    state: options.state,
    summariser: options.summariser,
    reason: options.reason,
    bound: target.bound,
    windowUnknown: target.windowUnknown,
    entry: target.entry,
    tokensBefore: estimateState(view, options.state),
  });
}

/**
 * What the turn does next, with the steps the session takes first: send
 * the request of `messages` (the projection of the state those steps
 * leave), or stop (aborted without an error, else failed with it).
 * `recoverable` says whether an overflow may still start a recovery in
 * this turn.
 */
export type NextRequest =
  & (
    | { kind: "send"; recoverable: boolean; messages: LlmMessage[] }
    | { kind: "stop"; error?: SessionError }
  )
  & { steps: WindowStep[] };

/**
 * The request a turn sends next. Before the first request, the pre-send
 * check: when the measured request triggers and the floor fits, compact
 * (`pre-send`); a failure or skip sends the original request and forbids
 * recovery. After an overflow it may recover from (`overflow`), compact
 * (`overflow-recovery`) and resend once; when that cannot compact, the
 * overflow ends the turn.
 *
 * @param view The next request's parts.
 * @param options The state, the pending user text, whether automatic
 * compaction is permitted, the summariser's inputs, the turn's signal (a
 * provider's count is raced with it), and the overflow being recovered.
 * @returns What the turn does next.
 */
export async function nextRequest(
  view: WindowView,
  options: {
    state: ContextState;
    pending: string;
    automatic: boolean;
    summariser: Summariser;
    signal: AbortSignal;
    overflow?: SessionError;
  },
): Promise<NextRequest> {
  const { state, pending, signal, overflow } = options;
  const recovery = overflow !== undefined;
  const check: RequestCheck = recovery || options.automatic
    ? await checkRequest(view, state, { pending, signal, recovery })
    : { kind: "send", recoverable: false };
  if (check.kind === "aborted") return { kind: "stop", steps: [] };
  let out: CompactionOutcome | undefined;
  if (check.kind === "compact") {
    out = await runCompaction(view, {
      state,
      summariser: options.summariser,
      reason: recovery ? "overflow-recovery" : "pre-send",
      bound: check.bound,
      windowUnknown: check.windowUnknown,
      entry: check.entry,
      tokensBefore: check.tokensBefore,
      pending,
    });
  }
  const steps = out?.steps ?? [];
  switch (out?.kind) {
    case "compacted":
      return {
        kind: "send",
        recoverable: !recovery,
        messages: requestHistory(view, out.state, pending),
        steps,
      };
    case "budget_refused":
      return { kind: "stop", error: out.error, steps };
    case "aborted":
      return { kind: "stop", steps };
    case "failed":
      if (out.observer === true) {
        return { kind: "stop", error: sessionError("internal"), steps };
      }
  }
  // Nothing compacted: the request goes as it is, or the overflow stands.
  return overflow !== undefined ? { kind: "stop", error: overflow, steps } : {
    kind: "send",
    recoverable: check.kind === "send" && check.recoverable,
    messages: requestHistory(view, state, pending),
    steps,
  };
}

/**
 * The after-turn step: compact (`auto-threshold`). A pass-1 budget
 * refusal is a side notice; an ordinary failure falls back to a trim to
 * `maxMessages` when set and the memory policy allows trims.
 *
 * @param view The next request's parts.
 * @param options The state, whether the memory policy allows trims, and
 * the summariser's inputs.
 * @returns The steps the session takes.
 */
export async function afterTurn(
  view: WindowView,
  options: {
    state: ContextState;
    trimAllowed: boolean;
    summariser: Summariser;
    /** The due check: where the summariser runs. */
    due: CompactCheck;
  },
): Promise<WindowStep[]> {
  const { due } = options;
  const out = await runCompaction(view, {
    state: options.state,
    reason: "auto-threshold",
    summariser: options.summariser,
    bound: due.bound,
    windowUnknown: due.windowUnknown,
    entry: due.entry,
    tokensBefore: due.tokensBefore,
  });
  if (out.kind === "budget_refused" && !out.momentOpened) {
    return [...out.steps, {
      event: {
        type: "session:compaction_budget_refused",
        reason: "auto-threshold",
        error: {
          code: "budget_exceeded",
          message: out.error.message,
          retryable: false,
        },
      },
    }];
  }
  const limit = view.deps.maxMessages;
  if (out.kind === "failed" && options.trimAllowed && limit !== undefined) {
    return [
      ...out.steps,
      ...trimSteps(options.state, limit, "auto-fallback").steps,
    ];
  }
  return out.steps;
}
