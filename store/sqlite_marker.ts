/**
 * Writing a boundary marker's row into the SQLite store.
 *
 * @module
 */
import type { SessionContentPart } from "../schema/message.ts";
import { markerBoundary } from "./markers.ts";
import { checkMessage, type DecodeMemo } from "./message_codec.ts";
import { decodeRead } from "./sqlite_read.ts";
import type { Statements } from "./sqlite_statements.ts";

/** The marker row to place, as the store handle prepared it. */
export interface MarkerRow {
  /** The row id. */
  id: string;
  /** The row's body (see `markerContent`). */
  content: SessionContentPart[];
  /** Boundary slots the working context kept. */
  keptTurnCount: number;
  /** Epoch milliseconds of the write. */
  now: number;
  /** `now` as an ISO timestamp. */
  timestamp: string;
}

/**
 * Inside a write transaction: places the marker after the session's
 * stored rows, checked like every stored message, unless nothing would be
 * dropped.
 *
 * @returns The sequence number the marker drops through, or `undefined`
 * when nothing would be dropped (no row is written).
 * @throws {RangeError} When `keptTurnCount` is invalid.
 * @throws {SessionMessageBoundaryError} When the row is not a valid
 * stored message.
 */
export function insertMarkerRow(
  sql: Statements,
  sessionId: string,
  marker: MarkerRow,
): number | undefined {
  const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
  const rows = sql.messagesOf.all(sessionId).map((r) => decodeRead(r, memo));
  const d = markerBoundary(rows, marker.keptTurnCount);
  if (d === undefined) return undefined;
  const seq = Number(sql.nextSequence.get(sessionId)?.["n"] ?? 0);
  checkMessage({
    id: marker.id,
    sessionId,
    sequenceNumber: seq,
    role: "system",
    content: marker.content,
    compaction: { droppedThroughSequence: d },
    timestamp: marker.timestamp,
  });
  sql.insertMarker.run(
    marker.id,
    sessionId,
    seq,
    JSON.stringify(marker.content),
    marker.now,
    d,
  );
  return d;
}
