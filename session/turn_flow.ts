/**
 * One turn around the turn core:
 * pre-send measurement, the main request, at most one overflow recovery,
 * the flush, the terminal, and the after-turn trigger. Exactly one
 * terminal, whatever compaction and recovery do.
 *
 * @module
 */
import type { SessionEventDraft, TokensUsed } from "../schema/event.ts";
import { sessionError } from "./turn_errors.ts";
import { runTurnCore } from "./turn.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import type { TurnContext } from "./turn_context.ts";
import {
  afterTurn,
  afterTurnDue,
  compactWith,
  preSend,
} from "./window/window.ts";

const NOTHING = { input: 0, output: 0 };

function withUsage(
  result: TurnCoreResult,
  prior: { input: number; output: number },
  priorEngaged: boolean,
): TurnCoreResult {
  if (result.kind === "cancelled") return result;
  const usage = {
    input: result.usage.input + prior.input,
    output: result.usage.output + prior.output,
  };
  return result.kind === "success"
    ? { ...result, usage }
    : { ...result, usage, engaged: result.engaged || priorEngaged };
}

/**
 * Runs the turn after the cap and plan checks.
 *
 * @param turn The turn's context.
 * @returns Resolves when the turn (and any after-turn work) has ended.
 */
export async function runTurnFlow(turn: TurnContext): Promise<void> {
  const pre = await preSend(turn.view, {
    state: turn.state(),
    pending: turn.pending,
    automatic: turn.automatic,
    summariser: turn.summariser(),
    signal: turn.signal,
  });
  turn.apply(pre.steps);
  switch (pre.kind) {
    case "aborted":
      return finish(turn, { kind: "aborted", usage: NOTHING, engaged: false });
    case "refused":
      return finish(turn, {
        kind: "error",
        error: pre.error,
        usage: NOTHING,
        engaged: false,
      });
    case "internal":
      return finish(turn, {
        kind: "error",
        error: sessionError("internal"),
        usage: NOTHING,
        engaged: false,
      });
    case "send":
      break;
  }
  let result = await runTurnCore(turn);
  if (
    result.kind === "error" && result.overflowRecoverable === true &&
    pre.recoverable && !turn.isCancelled()
  ) {
    result = await recover(turn, result);
  }
  if (result.kind !== "success") return finish(turn, result);
  if (turn.flush !== undefined) {
    try {
      await turn.flush();
    } catch {
      if (turn.isCancelled()) return;
      turn.finish({
        kind: "error",
        error: sessionError("internal"),
        usage: result.usage,
        engaged: true,
      }, true);
      return;
    }
  }
  if (turn.isCancelled()) return;
  turn.installReply(result.text);
  const measured = turn.afterTurnEnabled && turn.automatic &&
    afterTurnDue(turn.view, turn.state(), turn.signal);
  // Awaited only while a provider counts tokens.
  const due = measured instanceof Promise ? await measured : measured;
  if (turn.isCancelled()) return;
  turn.finish(result, !due);
  if (!due || turn.isCancelled()) return;
  const signal = turn.renewSignal();
  // No controller for it: the after-turn step is skipped, the turn stands.
  if (signal === undefined) return;
  turn.apply(
    await afterTurn(turn.view, {
      state: turn.state(),
      trimAllowed: turn.trimAllowed,
      summariser: turn.summariser(signal),
    }),
  );
}

async function recover(
  turn: TurnContext,
  first: Extract<TurnCoreResult, { kind: "error" }>,
): Promise<TurnCoreResult> {
  const out = await compactWith(turn.view, {
    state: turn.state(),
    reason: "overflow-recovery",
    summariser: turn.summariser(),
    pending: turn.pending,
  });
  turn.apply(out.steps);
  const ended = (error: typeof first.error): TurnCoreResult => ({
    kind: "error",
    error,
    usage: first.usage,
    engaged: first.engaged,
    ...(first.model === undefined ? {} : { model: first.model }),
  });
  switch (out.kind) {
    case "aborted":
      return { kind: "aborted", usage: first.usage, engaged: first.engaged };
    case "budget_refused":
      return ended(out.error);
    case "failed":
      return out.observer === true ? ended(sessionError("internal")) : first;
    case "compacted": {
      const retry = await runTurnCore(turn);
      return withUsage(retry, first.usage, first.engaged);
    }
    default:
      return first;
  }
}

async function finish(
  turn: TurnContext,
  result: TurnCoreResult,
): Promise<void> {
  if (result.kind === "cancelled" || turn.isCancelled()) return;
  if (turn.flush !== undefined) {
    try {
      await turn.flush();
    } catch {
      // The terminal below already reports the turn's failure.
    }
    if (turn.isCancelled()) return;
  }
  turn.finish(result, true);
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
