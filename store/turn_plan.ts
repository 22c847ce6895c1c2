/**
 * The rows one completed turn writes, built and validated
 * before any transaction starts, shared by both stores.
 *
 * @module
 */
import type { SessionContentPart, SessionMessage } from "../schema/message.ts";
import { SessionMessageBoundaryError } from "./errors.ts";
import { checkMessage } from "./message_codec.ts";
import type { CostEntry, TurnCommit } from "./store.ts";

/**
 * One row to append; the store assigns the sequence number.
 */
export interface PlannedRow {
  /** Row id. */
  id: string;
  /** Row role. */
  role: SessionMessage["role"];
  /** Validated canonical body. */
  content: SessionContentPart[];
  /** The model of an assistant row, when known. */
  modelId?: string;
}

function isCount(n: unknown): boolean {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

/**
 * Checks one spend entry.
 *
 * @param cost The entry.
 * @throws {RangeError} When the model is empty or a count is not a
 * non-negative safe integer.
 */
export function checkCost(cost: CostEntry): void {
  if (
    typeof cost.model !== "string" || cost.model === "" ||
    !isCount(cost.inputTokens) || !isCount(cost.outputTokens) ||
    !isCount(cost.costMicrocents) || typeof cost.priced !== "boolean" ||
    (cost.cacheReadTokens !== undefined && !isCount(cost.cacheReadTokens)) ||
    (cost.cacheWriteTokens !== undefined && !isCount(cost.cacheWriteTokens)) ||
    (cost.cacheReadMicrocents !== undefined &&
      !isCount(cost.cacheReadMicrocents)) ||
    (cost.cacheWriteMicrocents !== undefined &&
      !isCount(cost.cacheWriteMicrocents)) ||
    (cost.usageUnknown !== undefined && cost.usageUnknown !== true)
  ) {
    throw new RangeError("Cannot record cost: invalid cost entry");
  }
}

/**
 * Builds and validates the rows of a completed turn: the user row, per
 * round an assistant row with the calls and a tool row with the results
 * in call order, then the terminal assistant row (text, possibly empty).
 *
 * @param sessionId The session the rows belong to.
 * @param turn The turn to commit.
 * @param options Fresh ids, the row timestamp (ISO) for validation.
 * @returns The rows in order.
 * @throws {SessionMessageBoundaryError} `invalid_message` when a part is
 * invalid (e.g. carries raw `args`) or a round's results do not answer its
 * calls one by one in order.
 * @throws {RangeError} On invalid token counts or cost entries.
 */
export function planTurnRows(
  sessionId: string,
  turn: TurnCommit,
  options: { ids: () => string; timestamp: string },
): PlannedRow[] {
  if (!isCount(turn.tokensUsed.input) || !isCount(turn.tokensUsed.output)) {
    throw new RangeError("Cannot commit turn: invalid token counts");
  }
  for (const cost of turn.costs) checkCost(cost);
  if (typeof turn.userText !== "string" || typeof turn.finalText !== "string") {
    throw new SessionMessageBoundaryError("invalid_message");
  }
  const rows: PlannedRow[] = [];
  const add = (role: PlannedRow["role"], content: SessionContentPart[]) => {
    const row: PlannedRow = { id: options.ids(), role, content };
    if (role === "assistant" && turn.modelId !== undefined) {
      row.modelId = turn.modelId;
    }
    checkMessage({
      id: row.id,
      sessionId,
      sequenceNumber: 0,
      role,
      content,
      ...(row.modelId === undefined ? {} : { modelId: row.modelId }),
      timestamp: options.timestamp,
    });
    rows.push(row);
  };
  add("user", [{ type: "text", text: turn.userText }]);
  const seen = new Set<string>();
  for (const round of turn.rounds) {
    const answered = round.calls.length > 0 &&
      round.calls.length === round.results.length &&
      round.calls.every((c, i) =>
        !seen.has(c?.id) && round.results[i]?.toolCallId === c?.id
      );
    if (!answered) throw new SessionMessageBoundaryError("invalid_message");
    for (const c of round.calls) seen.add(c.id);
    add("assistant", [...round.calls]);
    add("tool", [...round.results]);
  }
  add("assistant", [{ type: "text", text: turn.finalText }]);
  return rows;
}

/** A count of turns to store: absent, or a non-negative safe integer. */
export function checkTurnsUsed(turnsUsed: number | undefined): void {
  if (
    turnsUsed !== undefined &&
    (!Number.isSafeInteger(turnsUsed) || turnsUsed < 0)
  ) {
    throw new TypeError(
      "Cannot record turns used: expected a non-negative integer",
    );
  }
}
