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
import type { TurnCoreResult } from "./turn.ts";
import {
  afterTurn,
  afterTurnDue,
  compactWith,
  preSend,
  type WindowEnv,
} from "./window_ops.ts";

/**
 * What the flow needs from the session.
 */
export interface TurnFlowHost {
  /** The context environment of this turn. */
  env: WindowEnv;
  /** The pending user text. */
  pending: string;
  /** Whether automatic compaction is permitted. */
  automatic: boolean;
  /** Whether the memory policy allows trims (after-turn fallback). */
  trimAllowed: boolean;
  /** Whether the after-turn trigger runs (`afterTurnCompaction !== false`). */
  afterTurnEnabled: boolean;
  /** Runs the turn core on the current state plus the pending user. */
  runCore(): Promise<TurnCoreResult>;
  /** Whether `cancel()` was called. */
  isCancelled(): boolean;
  /** The host's budget-commitment flush, when wired. */
  flush?(): Promise<void>;
  /** Appends the pending user and the reply, records the span. */
  installReply(text: string): void;
  /** Emits the terminal; `idle` lands the session in `idle` first. */
  finish(result: TurnCoreResult, idle: boolean): void;
  /** Gives the after-turn step a fresh abort signal. */
  renewSignal(): AbortSignal;
}

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
 * @param host The session's side of the flow.
 * @returns Resolves when the turn (and any after-turn work) has ended.
 */
export async function runTurnFlow(host: TurnFlowHost): Promise<void> {
  const pre = await preSend(host.env, host.pending, host.automatic);
  switch (pre.kind) {
    case "cancelled":
      return;
    case "aborted":
      return finish(host, { kind: "aborted", usage: NOTHING, engaged: false });
    case "refused":
      return finish(host, {
        kind: "error",
        error: pre.error,
        usage: NOTHING,
        engaged: false,
      });
    case "internal":
      return finish(host, {
        kind: "error",
        error: sessionError("internal"),
        usage: NOTHING,
        engaged: false,
      });
    case "send":
      break;
  }
  let result = await host.runCore();
  if (
    result.kind === "error" && result.overflowRecoverable === true &&
    pre.recoverable && !host.isCancelled()
  ) {
    result = await recover(host, result);
  }
  if (result.kind !== "success") return finish(host, result);
  if (host.flush !== undefined) {
    try {
      await host.flush();
    } catch {
      if (host.isCancelled()) return;
      host.finish({
        kind: "error",
        error: sessionError("internal"),
        usage: result.usage,
        engaged: true,
      }, true);
      return;
    }
  }
  if (host.isCancelled()) return;
  host.installReply(result.text);
  const due = host.afterTurnEnabled && host.automatic &&
    afterTurnDue(host.env);
  host.finish(result, !due);
  if (!due || host.isCancelled()) return;
  const signal = host.renewSignal();
  await afterTurn({ ...host.env, signal }, host.trimAllowed);
}

async function recover(
  host: TurnFlowHost,
  first: Extract<TurnCoreResult, { kind: "error" }>,
): Promise<TurnCoreResult> {
  const out = await compactWith(host.env, "overflow-recovery", {
    pending: host.pending,
  });
  const ended = (error: typeof first.error): TurnCoreResult => ({
    kind: "error",
    error,
    usage: first.usage,
    engaged: first.engaged,
    ...(first.model === undefined ? {} : { model: first.model }),
  });
  switch (out.kind) {
    case "cancelled":
      return { kind: "cancelled" };
    case "aborted":
      return { kind: "aborted", usage: first.usage, engaged: first.engaged };
    case "budget_refused":
      return ended(out.error);
    case "failed":
      return out.observer === true ? ended(sessionError("internal")) : first;
    case "compacted": {
      const retry = await host.runCore();
      return withUsage(retry, first.usage, first.engaged);
    }
    default:
      return first;
  }
}

async function finish(
  host: TurnFlowHost,
  result: TurnCoreResult,
): Promise<void> {
  if (result.kind === "cancelled" || host.isCancelled()) return;
  if (host.flush !== undefined) {
    try {
      await host.flush();
    } catch {
      // The terminal below already reports the turn's failure.
    }
    if (host.isCancelled()) return;
  }
  host.finish(result, true);
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
