/**
 * Validation of a {@linkcode ResumeState} before a session adopts it
 * .
 *
 * @module
 */
import type { ContextState } from "./window/state.ts";
import type { ResumeState } from "../schema/resume.ts";

function isSafeNat(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

/**
 * Checks the resume metadata: roles and text-only parts, spans that are
 * safe integers with `0 ≤ start < end ≤ len`, ordered, non-overlapping, of
 * length 1 or 2, starting at a user message whose second message (if any)
 * is the assistant's; non-negative safe counters.
 *
 * @param state The candidate state.
 * @returns `true` when the state can be adopted.
 */
export function isValidResumeState(state: ResumeState): boolean {
  const { messages, completedTurnSpans: spans } = state;
  if (!Array.isArray(messages) || !Array.isArray(spans)) return false;
  for (const m of messages) {
    if (m.role !== "user" && m.role !== "assistant") return false;
    if (!Array.isArray(m.content)) return false;
    for (const p of m.content) {
      if (p.type !== "text" || typeof p.text !== "string") return false;
    }
  }
  let prevEnd = 0;
  for (const s of spans) {
    if (!isSafeNat(s.start) || !isSafeNat(s.end)) return false;
    if (s.start < prevEnd || s.start >= s.end || s.end > messages.length) {
      return false;
    }
    const len = s.end - s.start;
    if (len !== 1 && len !== 2) return false;
    if (messages[s.start]?.role !== "user") return false;
    if (len === 2 && messages[s.start + 1]?.role !== "assistant") return false;
    prevEnd = s.end;
  }
  return isSafeNat(state.turnCount) &&
    (state.turnsUsed === undefined || isSafeNat(state.turnsUsed)) &&
    (state.unaccountedCalls === undefined ||
      isSafeNat(state.unaccountedCalls)) &&
    isSafeNat(state.cumulativeCostMicrocents) &&
    isSafeNat(state.conservativeCostMicrocents) &&
    (state.compactionSummary === undefined ||
      typeof state.compactionSummary === "string");
}

/**
 * The working state a resumed session starts from: deep copies of the
 * transcript and spans, and the summary when there is one.
 *
 * @param state The validated resume state.
 * @returns The context state.
 */
export function contextOf(state: ResumeState): ContextState {
  return {
    messages: structuredClone(state.messages),
    spans: structuredClone(state.completedTurnSpans),
    ...(state.compactionSummary === undefined
      ? {}
      : { summary: state.compactionSummary }),
  };
}
