/**
 * The entry points of context management as the
 * session acts them: measuring the next request, the pre-send and
 * after-turn triggers, overflow recovery, trims. `AgentSession` supplies a
 * {@linkcode WindowEnv}; the decisions come from `measure.ts`,
 * `compaction.ts` and `trim.ts`.
 *
 * @module
 */
import type { CompactionReason, SessionError } from "../schema/event.ts";
import { COMPACTION_LIMITS } from "./compaction.ts";
import { type CompactionOutcome, runCompaction } from "./compaction_run.ts";
import {
  attemptableEntries,
  authoritativeWindow,
  compactionTrigger,
  type Measurement,
  reservationOf,
  summariserBound,
} from "./measure.ts";
import { measureState, type WindowEnv } from "./window_env.ts";
import { planTrim } from "./trim.ts";

/**
 * Measures the next request against the first attemptable entry.
 *
 * @param env The session's environment.
 * @param pending The pending user text (absent after a turn).
 * @returns The measurement, or `undefined` when that entry's window is
 * not authoritative.
 */
export function measureNext(
  env: WindowEnv,
  pending?: string,
): Measurement | undefined {
  const entry = attemptableEntries(env.plan, env.tools.length > 0)[0];
  if (entry === undefined) return undefined;
  const window = authoritativeWindow(entry.provider, entry.model);
  if (window === undefined) return undefined;
  return {
    tokens: measureState(env, env.read(), pending),
    window,
    reservation: reservationOf(
      env.deps,
      { kind: entry.provider.kind, model: entry.model },
      env.agent.max_tokens,
    ),
    threshold: env.threshold,
  };
}

/**
 * Runs the primitive for one entry point.
 *
 * @param env The session's environment.
 * @param reason Why.
 * @param options The pending user; `manual` allows unknown windows.
 * @returns The outcome, or `skipped` when no bound can be set.
 */
export function compactWith(
  env: WindowEnv,
  reason: CompactionReason,
  options: { pending?: string; manual?: boolean } = {},
): Promise<CompactionOutcome | { kind: "skipped" }> {
  const bound = summariserBound(env.plan, options.manual === true);
  if (bound === undefined) return Promise.resolve({ kind: "skipped" });
  return runCompaction(env, {
    reason,
    bound: bound.bound,
    windowUnknown: bound.windowUnknown,
    ...(options.pending === undefined ? {} : { pending: options.pending }),
  });
}

/**
 * How the pre-send step ended. `recoverable` says whether an overflow may
 * still start a recovery in this turn.
 */
export type PreSendOutcome =
  | { kind: "send"; recoverable: boolean }
  | { kind: "refused"; error: SessionError }
  | { kind: "aborted" }
  | { kind: "internal" }
  | { kind: "cancelled" };

/**
 * The pre-send step: measure the actual next request;
 * when it triggers and the floor fits, compact (`pre-send`). A failure or
 * skip sends the original request and forbids recovery.
 *
 * @param env The session's environment.
 * @param pending The pending user text.
 * @param automatic Whether automatic compaction is permitted.
 * @returns What the turn does next.
 */
export async function preSend(
  env: WindowEnv,
  pending: string,
  automatic: boolean,
): Promise<PreSendOutcome> {
  if (!automatic) return { kind: "send", recoverable: false };
  const m = measureNext(env, pending);
  if (m === undefined || summariserBound(env.plan, false) === undefined) {
    return { kind: "send", recoverable: false };
  }
  if (compactionTrigger(m) === undefined) {
    return { kind: "send", recoverable: true };
  }
  if (!floorFits(env, m, pending)) return { kind: "send", recoverable: false };
  const out = await compactWith(env, "pre-send", { pending });
  switch (out.kind) {
    case "compacted":
      return { kind: "send", recoverable: true };
    case "budget_refused":
      return { kind: "refused", error: out.error };
    case "aborted":
      return { kind: "aborted" };
    case "cancelled":
      return { kind: "cancelled" };
    case "failed":
      return out.observer === true
        ? { kind: "internal" }
        : { kind: "send", recoverable: false };
    default:
      return { kind: "send", recoverable: false };
  }
}

function floorFits(env: WindowEnv, m: Measurement, pending: string): boolean {
  const state = env.read();
  const latest = state.spans[state.spans.length - 1];
  const from = latest?.start ?? 0;
  const worstSummary = "x".repeat(COMPACTION_LIMITS.summaryMaxTokens * 4);
  const floor = measureState(env, {
    messages: state.messages.slice(from),
    spans: state.spans.filter((s) => s.start >= from).map((s) => ({
      start: s.start - from,
      end: s.end - from,
    })),
    summary: worstSummary,
  }, pending);
  return floor + m.reservation <= m.window;
}

/**
 * The after-turn step: measure the next request (no
 * pending user); when it triggers, compact (`auto-threshold`). A pass-1
 * budget refusal is a side notice; an ordinary failure falls back to a
 * trim to `maxMessages` when set and the memory policy allows trims.
 *
 * @param env The session's environment.
 * @param trimAllowed Whether the memory policy allows trims.
 * @returns Resolves when done.
 */
export async function afterTurn(
  env: WindowEnv,
  trimAllowed: boolean,
): Promise<void> {
  const out = await compactWith(env, "auto-threshold");
  if (out.kind === "budget_refused" && !out.momentOpened) {
    env.emit({
      type: "session:compaction_budget_refused",
      reason: "auto-threshold",
      error: {
        code: "budget_exceeded",
        message: out.error.message,
        retryable: false,
      },
    });
    return;
  }
  const limit = env.deps.maxMessages;
  if (out.kind === "failed" && trimAllowed && limit !== undefined) {
    applyTrim(env, limit, "auto-fallback");
  }
}

/**
 * Whether the after-turn step would compact now.
 *
 * @param env The session's environment.
 * @returns `true` when the measured next request triggers.
 */
export function afterTurnDue(env: WindowEnv): boolean {
  if (summariserBound(env.plan, false) === undefined) return false;
  const m = measureNext(env);
  return m !== undefined && compactionTrigger(m) !== undefined;
}

/**
 * Trims and announces it (`session:trimmed`).
 *
 * @param env The state accessors and sink.
 * @param n The bound.
 * @param reason `manual` or `auto-fallback`.
 * @returns The trim, or `nothing_to_trim`.
 */
export function applyTrim(
  env: Pick<WindowEnv, "read" | "install" | "emit">,
  n: number,
  reason: "manual" | "auto-fallback",
):
  | {
    kind: "trimmed";
    keptMessageCount: number;
    droppedMessageCount: number;
    keptTurnCount: number;
  }
  | { kind: "nothing_to_trim"; messageCount: number } {
  const state = env.read();
  const plan = planTrim(state.messages, state.spans, n);
  if (plan.kind === "nothing_to_trim") return plan;
  env.install({
    messages: plan.messages,
    spans: plan.spans,
    ...(state.summary === undefined ? {} : { summary: state.summary }),
  });
  const counts = {
    keptMessageCount: plan.keptMessageCount,
    droppedMessageCount: plan.droppedMessageCount,
    keptTurnCount: plan.keptTurnCount,
  };
  env.emit({ type: "session:trimmed", reason, ...counts });
  return { kind: "trimmed", ...counts };
}
