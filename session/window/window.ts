/**
 * The entry points of context management, as decisions that return what
 * the session does next: the pre-send step, the after-turn step, a
 * compaction for any reason, and whether the after-turn step is due. Each
 * returns its outcome with the steps (state, handover, event) that the
 * session takes in one place; nothing here installs, commits or publishes
 * (except `session:compacting` and the ledger's `cost:updated`, published
 * as they happen).
 *
 * @module
 */
import type { CompactionReason, SessionError } from "../../schema/event.ts";
import {
  type CompactionOutcome,
  runCompaction,
  type Summariser,
} from "./compact.ts";
import {
  compactionTrigger,
  floorFits,
  measureNext,
  summariserBound,
} from "./measure.ts";
import type { ContextState, WindowStep, WindowView } from "./state.ts";
import { trimSteps } from "./trim.ts";

/** A compaction's outcome, or `skipped` when no bound can be set. */
export type CompactWithOutcome =
  | CompactionOutcome
  | { kind: "skipped"; steps: WindowStep[] };

/**
 * Runs the primitive for one entry point.
 *
 * @param view The next request's parts.
 * @param options The state, why, the summariser's inputs, the pending
 * user; `manual` allows unknown windows.
 * @returns The outcome, or `skipped` when no bound can be set.
 */
export function compactWith(
  view: WindowView,
  options: {
    state: ContextState;
    reason: CompactionReason;
    summariser: Summariser;
    pending?: string;
    manual?: boolean;
  },
): Promise<CompactWithOutcome> {
  const bound = summariserBound(view.plan, options.manual === true);
  if (bound === undefined) {
    return Promise.resolve({ kind: "skipped", steps: [] });
  }
  return runCompaction(view, {
    state: options.state,
    summariser: options.summariser,
    reason: options.reason,
    bound: bound.bound,
    windowUnknown: bound.windowUnknown,
    ...(options.pending === undefined ? {} : { pending: options.pending }),
  });
}

/**
 * How the pre-send step ended, with the steps the session takes first.
 * `recoverable` says whether an overflow may still start a recovery in
 * this turn.
 */
export type PreSendOutcome =
  & (
    | { kind: "send"; recoverable: boolean }
    | { kind: "refused"; error: SessionError }
    | { kind: "aborted" }
    | { kind: "internal" }
  )
  & { steps: WindowStep[] };

/**
 * The pre-send step: measure the actual next request;
 * when it triggers and the floor fits, compact (`pre-send`). A failure or
 * skip sends the original request and forbids recovery.
 *
 * @param view The next request's parts.
 * @param options The state, the pending user text, whether automatic
 * compaction is permitted, and the summariser's inputs.
 * @returns What the turn does next.
 */
export async function preSend(
  view: WindowView,
  options: {
    state: ContextState;
    pending: string;
    automatic: boolean;
    summariser: Summariser;
  },
): Promise<PreSendOutcome> {
  const { state, pending } = options;
  const send = (recoverable: boolean): PreSendOutcome => ({
    kind: "send",
    recoverable,
    steps: [],
  });
  if (!options.automatic) return send(false);
  const m = measureNext(view, state, pending);
  if (m === undefined || summariserBound(view.plan, false) === undefined) {
    return send(false);
  }
  if (compactionTrigger(m) === undefined) return send(true);
  if (!floorFits(view, state, m, pending)) return send(false);
  const out = await compactWith(view, {
    state,
    reason: "pre-send",
    summariser: options.summariser,
    pending,
  });
  const steps = out.steps;
  switch (out.kind) {
    case "compacted":
      return { kind: "send", recoverable: true, steps };
    case "budget_refused":
      return { kind: "refused", error: out.error, steps };
    case "aborted":
      return { kind: "aborted", steps };
    case "failed":
      return out.observer === true
        ? { kind: "internal", steps }
        : { kind: "send", recoverable: false, steps };
    default:
      return { kind: "send", recoverable: false, steps };
  }
}

/**
 * Whether the after-turn step would compact now.
 *
 * @param view The next request's parts.
 * @param state The state after the turn.
 * @returns `true` when the measured next request triggers.
 */
export function afterTurnDue(view: WindowView, state: ContextState): boolean {
  if (summariserBound(view.plan, false) === undefined) return false;
  const m = measureNext(view, state);
  return m !== undefined && compactionTrigger(m) !== undefined;
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
  },
): Promise<WindowStep[]> {
  const out = await compactWith(view, {
    state: options.state,
    reason: "auto-threshold",
    summariser: options.summariser,
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
