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
 *
 * @example Keep the last of two turns
 * ```ts
 * import { markerBoundary } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const row = (n: number, role: "user" | "assistant", text: string) => ({
 *   id: `m${n}`, sessionId: "s", sequenceNumber: n, role, timestamp: "2026-01-01T00:00:00.000Z",
 *   content: [{ type: "text" as const, text }],
 * });
 * const rows = [row(0, "user", "a"), row(1, "assistant", "b"), row(2, "user", "c"), row(3, "assistant", "d")];
 * assert.equal(markerBoundary(rows, 1), 1);
 * assert.equal(markerBoundary(rows, 2), undefined);
 * ```
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
 *
 * @example A trim marker has no parts
 * ```ts
 * import { markerContent } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * assert.deepEqual(markerContent({ keptTurnCount: 1 }), []);
 * ```
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
 *
 * @example A compaction then a trim
 * ```ts
 * import { listBoundaries } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * const list = listBoundaries([
 *   { id: "a", sessionId: "s", sequenceNumber: 4, role: "system", content: [{ type: "text", text: "sum" }], compaction: { droppedThroughSequence: 1 }, timestamp: at },
 *   { id: "b", sessionId: "s", sequenceNumber: 7, role: "system", content: [], compaction: { droppedThroughSequence: 3 }, timestamp: at },
 * ]);
 * assert.deepEqual(list.map((b) => [b.kind, b.droppedFromSequence, b.droppedThroughSequence]), [["compaction", 0, 1], ["trim", 2, 3]]);
 * ```
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
