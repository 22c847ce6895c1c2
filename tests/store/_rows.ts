/** Row builders shared by the store tests. */
import type { SessionMessage } from "../../schema/message.ts";
import { rowKit } from "../_kit/rows.ts";

const kit = rowKit({
  sessionId: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  argsBytes: 10,
  resultBytes: 5,
});

/** A row of session `s` (fixed timestamp). */
export const row = kit.row;
/** A user row with one text part. */
export const user = kit.user;
/** An assistant row with one text part (a terminal row). */
export const reply = kit.reply;
/** A tool row with one ok result per slot. */
export const results = kit.results;
/** A system boundary marker (`summary` undefined ⇒ a trim marker). */
export const marker = kit.marker;

/** An assistant tool-round row (`read_file` per slot), optionally with preamble text. */
export function calls(
  seq: number,
  turnKey: number,
  slots: number[],
  preamble?: string,
): SessionMessage {
  return kit.toolCalls(
    seq,
    turnKey,
    slots.map((slot): [number, string] => [slot, "read_file"]),
    preamble,
  );
}
