/**
 * Effect turn keys: seeding from history and
 * advancing the stored high-water mark, failing closed.
 *
 * @module
 */
import type { SessionMessage } from "../schema/message.ts";
import { SessionRecordError } from "./errors.ts";
import { isTerminalRow } from "./projection.ts";

const KEY_OF_ID = /^session-tool:([1-9][0-9]*):(?:0|[1-9][0-9]*)$/;

/**
 * The mark a session without a stored one starts from: the larger of the
 * number of terminal assistant rows (empty text counts, tool preambles do
 * not) and the largest turn key found in stored tool-call ids.
 *
 * @param messages The session's validated rows.
 * @returns The seed (0 for an empty history).
 */
export function seedTurnKey(messages: ReadonlyArray<SessionMessage>): number {
  let terminals = 0;
  let largest = 0;
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    if (isTerminalRow(m)) terminals++;
    for (const part of m.content) {
      if (part.type !== "tool_call") continue;
      const key = Number(KEY_OF_ID.exec(part.id)?.[1] ?? "0");
      if (Number.isSafeInteger(key) && key > largest) largest = key;
    }
  }
  return Math.max(terminals, largest);
}

/**
 * Validates a stored high-water mark and returns the next key.
 *
 * @param mark The stored mark (`effect_turn_high_water`).
 * @returns `mark + 1`.
 * @throws {SessionRecordError} `invalid_turn_key` when the mark is not a
 * non-negative safe integer or the next key would not be one.
 */
export function nextTurnKey(mark: unknown): number {
  if (
    typeof mark !== "number" || !Number.isSafeInteger(mark) || mark < 0 ||
    mark >= Number.MAX_SAFE_INTEGER
  ) {
    throw new SessionRecordError("invalid_turn_key");
  }
  return mark + 1;
}
