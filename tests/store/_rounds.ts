/** Tool rounds of a stored turn, shared by the store tests and their child fixtures. */
import type { TurnCommit } from "../../store/store.ts";

/**
 * `rounds` rounds of `calls` `read_file` calls each, ids
 * `session-tool:<turnKey>:<slot>` numbered across the turn, every call
 * `argsBytes` long and answered `ok` with `resultBytes`.
 */
export function toolRounds(
  turnKey: number,
  options: {
    rounds: number;
    calls: number;
    argsBytes: number;
    resultBytes: number;
  },
): TurnCommit["rounds"] {
  const out: TurnCommit["rounds"] = [];
  let slot = 0;
  for (let r = 0; r < options.rounds; r++) {
    const ids = Array.from(
      { length: options.calls },
      () => `session-tool:${turnKey}:${slot++}`,
    );
    out.push({
      calls: ids.map((id) => ({
        type: "tool_call",
        id,
        name: "read_file",
        argsBytes: options.argsBytes,
      })),
      results: ids.map((id) => ({
        type: "tool_result",
        toolCallId: id,
        resultBytes: options.resultBytes,
        outcome: "ok",
      })),
    });
  }
  return out;
}
