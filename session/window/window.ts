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
import type { LlmMessage } from "../../llm/provider.ts";
import type { CompactionReason, SessionError } from "../../schema/event.ts";
import { sessionError } from "../turn_errors.ts";
import {
  type CompactionOutcome,
  runCompaction,
  type Summariser,
} from "./compact.ts";
import {
  attemptableEntries,
  compactionTrigger,
  floorFits,
  type Measurement,
  measureNext,
  summariserBound,
} from "./measure.ts";
import { projectHistory } from "./projection.ts";
import type { PlanEntry } from "../../llm/chain.ts";
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
 * Measures the next request (see `measureNext`), in the count of the first
 * attemptable entry's provider when it has `estimateTokens`: raced with
 * `signal`, falling back to the heuristic when the count throws, rejects
 * or is not a finite number ≥ 0.
 *
 * @returns The measurement, `undefined` when the window is not
 * authoritative, or `aborted` when the signal aborted while it counted.
 */
function measureRequest(
  view: WindowView,
  state: ContextState,
  options: { pending?: string; signal: AbortSignal },
):
  | Measurement
  | undefined
  | Promise<Measurement | undefined | "aborted"> {
  const { pending, signal } = options;
  const m = measureNext(view, state, pending);
  const entry = attemptableEntries(view.plan, view.tools.length > 0)[0];
  if (m === undefined || entry?.provider.estimateTokens === undefined) {
    return m;
  }
  return providerCount(view, state, { m, entry, pending, signal });
}

/** `m` in the entry's provider's count (see {@linkcode measureRequest}). */
async function providerCount(
  view: WindowView,
  state: ContextState,
  options: {
    m: Measurement;
    entry: PlanEntry;
    pending: string | undefined;
    signal: AbortSignal;
  },
): Promise<Measurement | undefined | "aborted"> {
  const { m, entry, pending, signal } = options;
  const provider = entry.provider;
  if (signal.aborted) return "aborted";
  const memory = view.agent.memory;
  const messages = projectHistory({
    ...(memory === undefined ? {} : { memory }),
    messages: state.messages,
    spans: state.spans,
    ...(state.summary === undefined ? {} : { summary: state.summary }),
    ...(pending === undefined ? {} : { pending }),
  });
  let onAbort = (): void => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const counted = await Promise.race([
      Promise.resolve().then(() =>
        provider.estimateTokens?.({
          model: entry.model,
          system: view.system,
          messages,
          tools: view.tools,
        }, signal)
      ),
      aborted,
    ]);
    if (counted === "aborted" || signal.aborted) return "aborted";
    return typeof counted === "number" && Number.isFinite(counted) &&
        counted >= 0
      ? { ...m, tokens: Math.ceil(counted) }
      : m;
  } catch {
    return signal.aborted ? "aborted" : m;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The history the next request sends: `state` projected by the memory
 * policy, ending with the pending user message.
 *
 * @param view The next request's parts (the memory policy).
 * @param state The state to project.
 * @param pending The pending user text.
 * @returns A fresh projection the request owns.
 */
export function requestHistory(
  view: WindowView,
  state: ContextState,
  pending: string,
): LlmMessage[] {
  const memory = view.agent.memory;
  return projectHistory({
    ...(memory === undefined ? {} : { memory }),
    messages: state.messages,
    spans: state.spans,
    ...(state.summary === undefined ? {} : { summary: state.summary }),
    pending,
  });
}

/**
 * What the turn does next after a window decision, with the steps the
 * session takes first: send the request of `messages` (the projection of
 * the state those steps leave), or stop (aborted without an error, else
 * failed with it). `recoverable` says whether an overflow may still start
 * a recovery in this turn.
 */
export type PreSendOutcome =
  & (
    | { kind: "send"; recoverable: boolean; messages: LlmMessage[] }
    | { kind: "stop"; error?: SessionError }
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
    /** The turn's signal: a provider's count is raced with it. */
    signal: AbortSignal;
  },
): Promise<PreSendOutcome> {
  const { state, pending } = options;
  const send = (
    recoverable: boolean,
    steps: WindowStep[] = [],
  ): PreSendOutcome => ({
    kind: "send",
    recoverable,
    messages: requestHistory(view, stateAfter(state, steps), pending),
    steps,
  });
  if (!options.automatic) return send(false);
  if (summariserBound(view.plan, false) === undefined) return send(false);
  const m = await measureRequest(view, state, {
    pending,
    signal: options.signal,
  });
  if (m === "aborted") return { kind: "stop", steps: [] };
  if (m === undefined) return send(false);
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
      return send(true, steps);
    case "budget_refused":
      return { kind: "stop", error: out.error, steps };
    case "aborted":
      return { kind: "stop", steps };
    case "failed":
      return out.observer === true
        ? { kind: "stop", error: sessionError("internal"), steps }
        : send(false, steps);
    default:
      return send(false, steps);
  }
}

/**
 * What the turn does after an overflow recovery: send the retry's
 * request, stop, or `keep` the overflow as the turn's error.
 */
export type RecoveryOutcome =
  | PreSendOutcome
  | { kind: "keep"; steps: WindowStep[] };

/**
 * The overflow recovery: compact (`overflow-recovery`) and, when it
 * compacted, retry once on the new state.
 *
 * @param view The next request's parts.
 * @param options The state, the pending user text, and the summariser's
 * inputs.
 * @returns What the turn does next.
 */
export async function recoverOverflow(
  view: WindowView,
  options: { state: ContextState; pending: string; summariser: Summariser },
): Promise<RecoveryOutcome> {
  const out = await compactWith(view, {
    state: options.state,
    reason: "overflow-recovery",
    summariser: options.summariser,
    pending: options.pending,
  });
  const steps = out.steps;
  switch (out.kind) {
    case "compacted":
      return {
        kind: "send",
        recoverable: false,
        messages: requestHistory(
          view,
          stateAfter(options.state, steps),
          options.pending,
        ),
        steps,
      };
    case "aborted":
      return { kind: "stop", steps };
    case "budget_refused":
      return { kind: "stop", error: out.error, steps };
    case "failed":
      return out.observer === true
        ? { kind: "stop", error: sessionError("internal"), steps }
        : { kind: "keep", steps };
    default:
      return { kind: "keep", steps };
  }
}

/** The state `steps` leave (the last one installed, else `state`). */
function stateAfter(
  state: ContextState,
  steps: readonly WindowStep[],
): ContextState {
  let out = state;
  for (const step of steps) out = step.state ?? out;
  return out;
}

/**
 * Whether the after-turn step would compact now.
 *
 * @param view The next request's parts.
 * @param state The state after the turn.
 * @param signal The turn's signal: a provider's count is raced with it.
 * @returns `true` when the measured next request triggers (`false` when
 * the signal aborted while it was measured); a promise only while a
 * provider counts.
 */
export function afterTurnDue(
  view: WindowView,
  state: ContextState,
  signal: AbortSignal,
): boolean | Promise<boolean> {
  if (summariserBound(view.plan, false) === undefined) return false;
  const due = (m: Measurement | undefined | "aborted"): boolean =>
    typeof m === "object" && compactionTrigger(m) !== undefined;
  const m = measureRequest(view, state, { signal });
  return m instanceof Promise ? m.then(due) : due(m);
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
