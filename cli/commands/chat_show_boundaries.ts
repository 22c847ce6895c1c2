/**
 * The boundaries `chat-show` lists: each
 * compaction or trim marker with the stored rows it newly dropped from the
 * model's working context, the turns those rows belong to and, for a
 * compaction, the summary the model sees instead. Raw rows are never
 * deleted, so the dropped turns still print above their boundary.
 *
 * @module
 */
import type { SessionMessage } from "../../schema/message.ts";
import { listBoundaries } from "../../store/markers.ts";
import type { ProjectedTurn } from "../../store/projection.ts";
import { stripControl } from "../io/control.ts";

/**
 * One compaction or trim boundary of the `--json` record: the stored
 * rows it newly dropped from the model's working context (they stay in
 * the store and in `turns`) and, for a compaction, the summary the model
 * sees instead.
 */
export interface ShownBoundary {
  /** `compaction` (summarised) or `trim` (dropped without a summary). */
  reason: "compaction" | "trim";
  /** Sequence number of the marker row. */
  sequenceNumber: number;
  /** First stored sequence this boundary dropped. */
  droppedFromSequence: number;
  /** Last stored sequence dropped (from > through: nothing new). */
  droppedThroughSequence: number;
  /** The turns (numbered as in `turns`, from 1) it dropped, if any. */
  droppedTurns: { first: number; last: number } | null;
  /** The summary that replaced the dropped rows (compaction only). */
  summary: string | null;
  /** When the boundary was written (ISO-8601). */
  timestamp: string;
}

/**
 * Every boundary of a session, oldest first.
 *
 * @param messages Every stored row of the session.
 * @param turns Its completed turns, boundary not honoured (as shown).
 * @returns The boundaries.
 */
export function shownBoundaries(
  messages: readonly SessionMessage[],
  turns: readonly ProjectedTurn[],
): ShownBoundary[] {
  return listBoundaries(messages).map((b): ShownBoundary => {
    const inRange = (seq: number): boolean =>
      seq >= b.droppedFromSequence && seq <= b.droppedThroughSequence;
    const first = turns.findIndex((t) => inRange(t.user.sequenceNumber));
    let last = first;
    while (
      first >= 0 && last + 1 < turns.length &&
      inRange(turns[last + 1]?.user.sequenceNumber ?? -1)
    ) last++;
    return {
      reason: b.kind,
      sequenceNumber: b.sequenceNumber,
      droppedFromSequence: b.droppedFromSequence,
      droppedThroughSequence: b.droppedThroughSequence,
      droppedTurns: first < 0 ? null : { first: first + 1, last: last + 1 },
      summary: b.summary ?? null,
      timestamp: b.timestamp,
    };
  });
}

/**
 * The human lines of one boundary (control sequences stripped).
 *
 * @param b The boundary.
 * @returns The lines, without newlines.
 */
export function boundaryLines(b: ShownBoundary): string[] {
  const t = b.droppedTurns;
  const turns = t === null
    ? ""
    : t.first === t.last
    ? `turn ${t.first}, `
    : `turns ${t.first}–${t.last}, `;
  const what = b.droppedFromSequence > b.droppedThroughSequence
    ? "nothing new is dropped from the model's context"
    : `${turns}stored messages #${b.droppedFromSequence}–#${b.droppedThroughSequence}, are no longer sent to the model`;
  if (b.reason === "trim") {
    return [
      `=== trim boundary (${b.timestamp}): ${what}; dropped without a summary ===`,
    ];
  }
  return [
    `=== compaction boundary (${b.timestamp}): ${what}; the model sees this summary instead:`,
    ...stripControl(b.summary ?? "").split("\n").map((l) => `  ${l}`),
    "===",
  ];
}
