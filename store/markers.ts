/**
 * Boundary markers: where a compaction or trim marker
 * goes, computed over boundary slots and never by sequence arithmetic, and
 * the list of every boundary for inspection (`chat-show`). Pure.
 *
 * @module
 */
import type { SessionMessage } from "../schema/message.ts";
import { messageText, projectStructure } from "./projection.ts";
import type { BoundaryMarker } from "./store.ts";
import type { SessionContentPart } from "../schema/message.ts";

/**
 * The sequence a new marker drops through:
 * `slots[slots.length − keptTurnCount − 1]` over the boundary slots of the
 * persisted rows (the current boundary honoured).
 *
 * @param rows Every stored row of the session.
 * @param keptTurnCount Boundary slots the working context kept.
 * @returns `D`, or `undefined` when nothing would be dropped.
 * @throws {RangeError} When `keptTurnCount` is not a non-negative safe
 * integer.
 */
export function markerBoundary(
  rows: ReadonlyArray<SessionMessage>,
  keptTurnCount: number,
): number | undefined {
  if (!Number.isSafeInteger(keptTurnCount) || keptTurnCount < 0) {
    throw new RangeError("Cannot place marker: invalid keptTurnCount");
  }
  const slots = projectStructure(rows, { honourBoundary: true }).boundarySlots;
  return slots[slots.length - keptTurnCount - 1];
}

/**
 * The body of a marker row: the summary as one text part, or none (trim).
 *
 * @param marker The marker.
 * @returns The row's content parts.
 * @throws {RangeError} On an empty summary or invalid token counts.
 */
export function markerContent(marker: BoundaryMarker): SessionContentPart[] {
  const used = marker.tokensUsed;
  if (
    used !== undefined &&
    (!isCount(used.input) || !isCount(used.output))
  ) {
    throw new RangeError("Cannot place marker: invalid token counts");
  }
  if (marker.summary === undefined) return [];
  if (typeof marker.summary !== "string" || marker.summary === "") {
    throw new RangeError("Cannot place marker: the summary is empty");
  }
  return [{ type: "text", text: marker.summary }];
}

function isCount(n: unknown): boolean {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

/**
 * One boundary as `chat-show` lists it.
 */
export interface BoundaryEntry {
  /** Sequence number of the marker row. */
  sequenceNumber: number;
  /** `compaction` (with a summary) or `trim`. */
  kind: "compaction" | "trim";
  /** First sequence this boundary newly dropped from working context. */
  droppedFromSequence: number;
  /** Last sequence dropped (the marker's `droppedThroughSequence`). */
  droppedThroughSequence: number;
  /** The summary that replaced the dropped rows (compaction only). */
  summary?: string;
  /** When the marker was written (ISO-8601). */
  timestamp: string;
}

/**
 * Every boundary marker of a session, oldest first, with the range of
 * sequences it newly dropped from the model's working context and its
 * summary: what the model no longer sees. Raw rows are never deleted, so
 * the dropped rows stay readable.
 *
 * @param rows Every stored row of the session, in any order.
 * @returns The boundaries.
 */
export function listBoundaries(
  rows: ReadonlyArray<SessionMessage>,
): BoundaryEntry[] {
  const markers = rows
    .filter((m) => m.role === "system" && m.compaction !== undefined)
    .sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  const out: BoundaryEntry[] = [];
  let through = -1;
  for (const m of markers) {
    const d = m.compaction?.droppedThroughSequence ?? -1;
    const text = messageText(m);
    const entry: BoundaryEntry = {
      sequenceNumber: m.sequenceNumber,
      kind: text === "" ? "trim" : "compaction",
      droppedFromSequence: through + 1,
      droppedThroughSequence: d,
      timestamp: m.timestamp,
    };
    if (text !== "") entry.summary = text;
    out.push(entry);
    through = Math.max(through, d);
  }
  return out;
}
