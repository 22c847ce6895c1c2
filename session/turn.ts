/**
 * The shared turn core: stream a round through the
 * chain (`turn_stream.ts`), dispatch its tool calls through the registry
 * (`tool_round.ts`), repeat until a response without tool calls; enforce
 * the within-turn limits.
 *
 * @module
 */
import type { LlmMessage } from "../llm/provider.ts";
import { MAX_CORRECTIONS, runToolRound } from "./tool_round.ts";
import type { TurnContext } from "./turn_context.ts";
import { sessionError } from "./turn_errors.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { frozen } from "./turn_run.ts";
import { streamRound } from "./turn_stream.ts";

/** Within-turn limits. */
export const TURN_LIMITS: {
  readonly maxToolRounds: number;
  readonly maxCallsPerResponse: number;
  readonly maxCorrections: number;
} = {
  maxToolRounds: 16,
  maxCallsPerResponse: 16,
  maxCorrections: MAX_CORRECTIONS,
};

/**
 * Runs one turn's rounds until the model answers without tool calls, a
 * limit is hit, or the turn fails, aborts or is cancelled. A retry after
 * an overflow recovery runs again on the same turn (its usage adds up).
 *
 * @param input The turn's context.
 * @param projected The first request's history, a fresh projection that
 * this run owns.
 * @returns The turn outcome (events already emitted, except the terminal).
 */
export async function runTurnCore(
  input: TurnContext,
  projected: LlmMessage[],
): Promise<TurnCoreResult> {
  // Each request owns its array and it is never changed once sent: the
  // first request takes the (fresh) projection itself; a tool round copies
  // it and appends in one allocation (`concat`). The parts are shared and
  // never mutated (history messages and the turn's own are frozen), so
  // nothing copies a part.
  let messages = projected;
  const run = input.run;
  for (let round = 0;; round++) {
    const response = await streamRound(input, { run, messages, round });
    if (response.kind === "end") return response.result;
    const { collected, stopReason, attemptNumber } = response;
    const calls = collected.calls();
    if (calls.length === 0) {
      return {
        kind: "success",
        text: collected.text,
        stopReason,
        usage: run.usage,
        ...(run.model === undefined ? {} : { model: run.model }),
        toolHistory: run.history,
        engaged: true,
      };
    }
    if (calls.length > TURN_LIMITS.maxCallsPerResponse) {
      return run.fail(sessionError(
        "turn_limit",
        `The model issued ${calls.length} tool calls in one response (limit ${TURN_LIMITS.maxCallsPerResponse})`,
      ));
    }
    if (round >= TURN_LIMITS.maxToolRounds) {
      return run.fail(sessionError(
        "turn_limit",
        `The turn reached its limit of ${TURN_LIMITS.maxToolRounds} tool rounds`,
      ));
    }
    const tools = await runToolRound(input, { run, calls, attemptNumber });
    if (tools.kind === "end") return tools.result;
    messages = messages.concat(
      [frozen({ role: "assistant", content: collected.assistantContent() })],
      tools.toolMessages,
    );
  }
}
