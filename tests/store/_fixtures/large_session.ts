/**
 * Builds a large session for the resume bench and the memory probe:
 * turns of user row, one tool round (call row + result row) and a
 * terminal reply, i.e. 4 rows per turn.
 */
import type { SessionStore, TurnCommit } from "../../../store/store.ts";

/** Rows each turn of {@linkcode largeTurn} writes. */
export const ROWS_PER_TURN = 4;

/** Turn `n` (1-based) of the large session: realistic text sizes. */
export function largeTurn(n: number): TurnCommit {
  const id = `session-tool:${n}:0`;
  return {
    userText: `Question ${n}: ${
      "please look at the file and explain it. ".repeat(5)
    }`,
    rounds: [{
      calls: [{ type: "tool_call", id, name: "read_file", argsBytes: 24 }],
      results: [{
        type: "tool_result",
        toolCallId: id,
        resultBytes: 3100,
        outcome: "ok",
      }],
    }],
    finalText: `Answer ${n}: ${
      "the file exports one function and a constant. ".repeat(17)
    }`,
    modelId: "gpt-5.4-mini",
    tokensUsed: { input: 900, output: 200 },
    costs: [{
      model: "gpt-5.4-mini",
      inputTokens: 900,
      outputTokens: 200,
      costMicrocents: 1650,
      priced: true,
    }],
  };
}

/** Creates `sessionId` and commits turns until it holds `messages` rows. */
export function buildLargeSession(
  store: SessionStore,
  sessionId: string,
  messages: number,
): void {
  store.create({
    id: sessionId,
    agentSlug: "mini",
    modelId: "gpt-5.4-mini",
    context: { workingDir: "/work/project", fsScopeTier: "sandboxed" },
  });
  for (let n = 1; n <= messages / ROWS_PER_TURN; n++) {
    store.commitTurn(sessionId, largeTurn(n));
  }
}
