/**
 * What one write adds to a turn's usage row (tokens and spend per
 * provider-engaged turn, the figures `chat-show --json` and the serve
 * page chart): every store applies the same rule.
 *
 * @module
 */
import type { CostEntry, SessionStore } from "./store.ts";

/** One turn's figures, as `SessionStore.turnUsage` returns them. */
export type TurnUsage = ReturnType<
  NonNullable<SessionStore["turnUsage"]>
>[number];

/**
 * The figures `costs` add to turn `turnNumber`: none without a turn
 * number, and none for a write with nothing spent unless `always` (a
 * completed turn is charted, a spend-less failure is not).
 *
 * @param turnNumber The session's turns used after that turn.
 * @param costs The write's cost entries.
 * @param always Whether a write with no cost still makes a row.
 * @returns The row's increments, or `undefined` when the write adds no row.
 */
export function turnUsageDelta(
  turnNumber: number | undefined,
  costs: readonly CostEntry[],
  always: boolean,
): TurnUsage | undefined {
  if (turnNumber === undefined || turnNumber < 1) return undefined;
  if (costs.length === 0 && !always) return undefined;
  const row = {
    turnNumber,
    inputTokens: 0,
    outputTokens: 0,
    costMicrocents: 0,
  };
  for (const c of costs) {
    row.inputTokens += c.inputTokens;
    row.outputTokens += c.outputTokens;
    row.costMicrocents += c.costMicrocents;
  }
  return row;
}
