/**
 * Span arithmetic over the working transcript, shared by compaction and
 * trim: the boundary slots a suffix keeps, and its spans rebased. Pure.
 *
 * @module
 */
import type { TurnSpan, WorkingMessage } from "../../schema/resume.ts";

/**
 * Counts the boundary slots of `messages[from..]`: each completed span is
 * one slot, and so is each message outside every span (legacy text).
 *
 * @param messages The working transcript.
 * @param spans Its completed spans.
 * @param from First index counted.
 * @returns The slot count.
 */
export function countSlots(
  messages: readonly WorkingMessage[],
  spans: readonly TurnSpan[],
  from: number,
): number {
  let slots = 0;
  let covered = 0;
  for (const s of spans) {
    if (s.start < from) continue;
    slots += 1;
    covered += s.end - s.start;
  }
  return slots + Math.max(0, messages.length - from - covered);
}

/**
 * Rebases the spans starting at or after `from` onto `messages[from..]`.
 *
 * @param spans Spans over the whole transcript.
 * @param from The first kept index.
 * @returns Spans over the kept suffix.
 */
export function rebaseSpans(
  spans: readonly TurnSpan[],
  from: number,
): TurnSpan[] {
  return spans.filter((s) => s.start >= from).map((s) => ({
    start: s.start - from,
    end: s.end - from,
  }));
}
