/**
 * Trim policy: a deterministic drop of whole turns from
 * the front of the working transcript, no model call. Pure.
 *
 * @module
 */
import type { TurnSpan, WorkingMessage } from "../schema/resume.ts";
import { countSlots, rebaseSpans } from "./compaction.ts";

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
