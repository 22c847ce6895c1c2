/**
 * Trim policy: a deterministic drop of whole turns from
 * the front of the working transcript, no model call, and the step that
 * installs it. Pure.
 *
 * @module
 */
import type { TurnSpan, WorkingMessage } from "../../schema/resume.ts";
import { countSlots, rebaseSpans } from "./spans.ts";
import type { ContextState, WindowStep } from "./state.ts";

/**
 * A planned trim.
 */
export type TrimPlan =
  | {
    kind: "trim";
    /** The kept messages (deep copies). */
    messages: WorkingMessage[];
    /** Their spans, rebased. */
    spans: TurnSpan[];
    /** Messages kept. */
    keptMessageCount: number;
    /** Messages dropped. */
    droppedMessageCount: number;
    /** Boundary slots kept (completed turns plus legacy messages). */
    keptTurnCount: number;
  }
  | { kind: "nothing_to_trim"; messageCount: number };

/**
 * Plans keeping at most about `n` trailing messages: start at `len − n`,
 * snap forward to the first user message at or after it (or back to the
 * last user message when there is none), so only whole turns go.
 *
 * @param messages The working transcript.
 * @param spans Its completed spans.
 * @param n The bound, a positive integer.
 * @returns The plan, or `nothing_to_trim` when nothing would be dropped.
 * @throws {RangeError} When `n` is not a positive safe integer.
 */
export function planTrim(
  messages: readonly WorkingMessage[],
  spans: readonly TurnSpan[],
  n: number,
): TrimPlan {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError("Invalid trim bound: expected a positive integer");
  }
  const len = messages.length;
  let start = -1;
  for (let i = Math.max(0, len - n); i < len; i++) {
    if (messages[i]?.role === "user") {
      start = i;
      break;
    }
  }
  if (start < 0) {
    for (let i = len - 1; i >= 0; i--) {
      if (messages[i]?.role === "user") {
        start = i;
        break;
      }
    }
  }
  if (start <= 0) return { kind: "nothing_to_trim", messageCount: len };
  return {
    kind: "trim",
    messages: structuredClone(messages.slice(start)),
    spans: rebaseSpans(spans, start),
    keptMessageCount: len - start,
    droppedMessageCount: start,
    keptTurnCount: countSlots(messages, spans, start),
  };
}

/**
 * A trim of the state, and the step that installs and announces it.
 */
export type TrimOutcome =
  | {
    kind: "trimmed";
    keptMessageCount: number;
    droppedMessageCount: number;
    keptTurnCount: number;
    steps: WindowStep[];
  }
  | { kind: "nothing_to_trim"; messageCount: number; steps: WindowStep[] };

/**
 * Trims a state: the new state, its boundary marker and `session:trimmed`
 * as one step (none when nothing would be dropped); the summary stays.
 *
 * @param state The current state.
 * @param n The bound, a positive integer.
 * @param reason `manual` or `auto-fallback`.
 * @returns The trim and its steps.
 * @throws {RangeError} When `n` is not a positive safe integer.
 */
export function trimSteps(
  state: ContextState,
  n: number,
  reason: "manual" | "auto-fallback",
): TrimOutcome {
  const plan = planTrim(state.messages, state.spans, n);
  if (plan.kind === "nothing_to_trim") return { ...plan, steps: [] };
  const counts = {
    keptMessageCount: plan.keptMessageCount,
    droppedMessageCount: plan.droppedMessageCount,
    keptTurnCount: plan.keptTurnCount,
  };
  return {
    kind: "trimmed",
    ...counts,
    steps: [{
      state: {
        messages: plan.messages,
        spans: plan.spans,
        ...(state.summary === undefined ? {} : { summary: state.summary }),
      },
      handover: {
        kind: "boundary",
        marker: { keptTurnCount: plan.keptTurnCount },
      },
      event: { type: "session:trimmed", reason, ...counts },
    }],
  };
}
