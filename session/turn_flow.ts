/**
 * One turn around the turn core, in the order of a turn: the window's
 * pre-send decision, the main request, at most one overflow recovery
 * (the window's decision, then the retry), the flush, the reply's
 * install, the terminal, and the after-turn step. Exactly one terminal,
 * whatever compaction and recovery do.
 *
 * @module
 */
import type {
  SessionError,
  SessionEventDraft,
  TokensUsed,
} from "../schema/event.ts";
import { runTurnCore } from "./turn.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import type { TurnContext } from "./turn_context.ts";
import { afterTurnDue } from "./window/measure.ts";
import { afterTurn, nextRequest } from "./window/window.ts";

/**
 * Runs the turn after the cap and plan checks.
 *
 * @param turn The turn's context.
 * @returns Resolves when the turn (and any after-turn work) has ended.
 */
export async function runTurnFlow(turn: TurnContext): Promise<void> {
  // The window decides each request; an overflow the request may recover
  // from asks it once more (the retry is never recoverable).
  let result: TurnCoreResult;
  let overflow: SessionError | undefined;
  for (;;) {
    const next = await nextRequest(turn.view, {
      state: turn.state(),
      pending: turn.pending,
      automatic: turn.automatic,
      summariser: turn.summariser(),
      signal: turn.signal,
      ...(overflow === undefined ? {} : { overflow }),
    });
    turn.apply(next.steps);
    if (next.kind === "stop") {
      result = turn.run.halt(next.error);
      break;
    }
    result = await runTurnCore(turn, next.messages);
    if (
      result.kind !== "error" || result.overflowRecoverable !== true ||
      !next.recoverable || turn.isCancelled()
    ) break;
    overflow = result.error;
  }
  const settled = await turn.settle(result);
  if (settled === undefined) return;
  if (settled.kind !== "success") return turn.finish(settled, true);
  turn.installReply(settled.text);
  const measured = turn.afterTurnEnabled && turn.automatic
    ? afterTurnDue(turn.view, turn.state(), turn.signal)
    : undefined;
  // Awaited only while a provider counts tokens.
  const due = measured instanceof Promise ? await measured : measured;
  if (turn.isCancelled()) return;
  turn.finish(settled, due === undefined);
  if (due === undefined || turn.isCancelled()) return;
  const signal = turn.renewSignal();
  // No controller for it: the after-turn step is skipped, the turn stands.
  if (signal === undefined) return;
  const summariser = turn.summariser(signal);
  const steps = await afterTurn(turn.view, {
    state: turn.state(),
    trimAllowed: turn.trimAllowed,
    summariser,
    due,
  });
  turn.apply(steps);
}

/**
 * The `session:turn_completed` draft of a turn's result.
 *
 * @param result A non-cancelled result.
 * @returns The terminal event draft.
 */
export function terminalDraft(
  result: Exclude<TurnCoreResult, { kind: "cancelled" }>,
): SessionEventDraft {
  const tokensUsed: TokensUsed = {
    input: result.usage.input,
    output: result.usage.output,
  };
  if (result.model !== undefined) tokensUsed.model = result.model;
  switch (result.kind) {
    case "success":
      return {
        type: "session:turn_completed",
        stopReason: result.stopReason,
        tokensUsed,
        ...(result.toolHistory.length > 0
          ? { toolHistory: result.toolHistory }
          : {}),
      };
    case "aborted":
      return {
        type: "session:turn_completed",
        stopReason: "aborted",
        tokensUsed,
      };
    case "error":
      return {
        type: "session:turn_completed",
        stopReason: "error",
        tokensUsed,
        error: result.error,
      };
  }
}
