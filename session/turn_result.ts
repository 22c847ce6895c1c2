/**
 * What `AgentSession.sendMessage` resolves with: the turn as a value.
 *
 * @module
 */
import type {
  SessionError,
  TokensUsed,
  ToolHistoryEntry,
  TurnStopReason,
} from "../schema/event.ts";
import type { SpendFigures } from "./ledger.ts";

/**
 * Outcome of the turn core. `engaged` says whether the provider was engaged
 * (the turn then consumes a cap slot).
 */
export type TurnCoreResult =
  | {
    kind: "success";
    text: string;
    stopReason: Exclude<TurnStopReason, "aborted" | "error">;
    usage: { input: number; output: number };
    model?: string;
    toolHistory: ToolHistoryEntry[];
    engaged: true;
  }
  | {
    kind: "aborted";
    usage: { input: number; output: number };
    model?: string;
    engaged: boolean;
  }
  | {
    kind: "error";
    error: SessionError;
    usage: { input: number; output: number };
    model?: string;
    engaged: boolean;
    /**
     * A provider `context_overflow` before any tool round and before any
     * content was forwarded in this invocation: the session may recover
     * once.
     */
    overflowRecoverable?: true;
  }
  | { kind: "cancelled" };

/**
 * How one turn ended, discriminated on `kind`:
 *
 * - `completed`: the model answered; `stopReason` says why it stopped.
 * - `failed`: the turn ended in error; `error` is the classified,
 *   user-safe error of its `session:turn_completed` event (the same
 *   value, provider secrets already redacted).
 * - `aborted`: `abort()` stopped the turn.
 * - `cancelled`: `cancel()` ended the session during the turn (no
 *   terminal event was published).
 *
 * Every kind carries the turn's figures. They cover the same attempts as
 * `costMicrocents`: every provider attempt priced from the turn's start to
 * its terminal (its own rounds, and the summariser passes of a pre-send or
 * recovery compaction), as their `cost:updated` events report them:
 * `cacheReadTokens` and `cacheWriteTokens` (prompt cache, summed),
 * `priced` (`false` when any attempt's model had no price, so the cost is
 * not from a known price; `true` when nothing was priced) and
 * `usageUnknown` (`true` when any provider reported no usage, so its
 * tokens are unknown and its cost is the cost cap's estimate).
 */
export type TurnResult =
  | {
    /** The model answered. */
    kind: "completed";
    /** Why the model stopped. */
    stopReason: Exclude<TurnStopReason, "aborted" | "error">;
    /** The final assistant text (`""` unless the turn completed). */
    text: string;
    /** Tokens consumed by the turn, summed over its attempts and rounds. */
    usage: TokensUsed;
    /** What the turn's attempts cost, in micro-cents (0 when unpriced). */
    costMicrocents: number;
    /** Input tokens the turn's attempts read from the prompt cache. */
    cacheReadTokens: number;
    /** Input tokens the turn's attempts wrote to the prompt cache. */
    cacheWriteTokens: number;
    /** `false` when any attempt's model had no price. */
    priced: boolean;
    /** `true` when any attempt's provider reported no usage. */
    usageUnknown: boolean;
    /** The model that answered last, when one did. */
    model?: string;
  }
  | {
    /** The turn ended in error. */
    kind: "failed";
    /** Always `"error"`. */
    stopReason: "error";
    /** The classified, user-safe error of the terminal event. */
    error: SessionError;
    /** The final assistant text (`""` unless the turn completed). */
    text: string;
    /** Tokens consumed by the turn, summed over its attempts and rounds. */
    usage: TokensUsed;
    /** What the turn's attempts cost, in micro-cents (0 when unpriced). */
    costMicrocents: number;
    /** Input tokens the turn's attempts read from the prompt cache. */
    cacheReadTokens: number;
    /** Input tokens the turn's attempts wrote to the prompt cache. */
    cacheWriteTokens: number;
    /** `false` when any attempt's model had no price. */
    priced: boolean;
    /** `true` when any attempt's provider reported no usage. */
    usageUnknown: boolean;
    /** The model that answered last, when one did. */
    model?: string;
  }
  | {
    /** `abort()` stopped the turn. */
    kind: "aborted";
    /** Always `"aborted"`. */
    stopReason: "aborted";
    /** The final assistant text (`""` unless the turn completed). */
    text: string;
    /** Tokens consumed by the turn, summed over its attempts and rounds. */
    usage: TokensUsed;
    /** What the turn's attempts cost, in micro-cents (0 when unpriced). */
    costMicrocents: number;
    /** Input tokens the turn's attempts read from the prompt cache. */
    cacheReadTokens: number;
    /** Input tokens the turn's attempts wrote to the prompt cache. */
    cacheWriteTokens: number;
    /** `false` when any attempt's model had no price. */
    priced: boolean;
    /** `true` when any attempt's provider reported no usage. */
    usageUnknown: boolean;
    /** The model that answered last, when one did. */
    model?: string;
  }
  | {
    /** `cancel()` ended the session during the turn. */
    kind: "cancelled";
    /** The final assistant text (`""` unless the turn completed). */
    text: string;
    /** Tokens consumed by the turn, summed over its attempts and rounds. */
    usage: TokensUsed;
    /** What the turn's attempts cost, in micro-cents (0 when unpriced). */
    costMicrocents: number;
    /** Input tokens the turn's attempts read from the prompt cache. */
    cacheReadTokens: number;
    /** Input tokens the turn's attempts wrote to the prompt cache. */
    cacheWriteTokens: number;
    /** `false` when any attempt's model had no price. */
    priced: boolean;
    /** `true` when any attempt's provider reported no usage. */
    usageUnknown: boolean;
    /** The model that answered last, when one did. */
    model?: string;
  };

/**
 * The turn result of a core result.
 *
 * @param result The flow's final result (`undefined` ⇒ cancelled).
 * @param spend The spend figures of the turn's attempts.
 * @returns The public turn result.
 */
export function toTurnResult(
  result: TurnCoreResult | undefined,
  spend: SpendFigures,
): TurnResult {
  const figures = {
    costMicrocents: spend.costMicrocents,
    cacheReadTokens: spend.cacheReadTokens,
    cacheWriteTokens: spend.cacheWriteTokens,
    priced: spend.unpricedCalls === 0,
    usageUnknown: spend.usageUnknownCalls > 0,
  };
  if (result === undefined || result.kind === "cancelled") {
    return {
      kind: "cancelled",
      text: "",
      usage: { input: 0, output: 0 },
      ...figures,
    };
  }
  const base = {
    usage: { input: result.usage.input, output: result.usage.output },
    ...figures,
    ...(result.model === undefined ? {} : { model: result.model }),
  };
  switch (result.kind) {
    case "success":
      return {
        kind: "completed",
        stopReason: result.stopReason,
        text: result.text,
        ...base,
      };
    case "aborted":
      return { kind: "aborted", stopReason: "aborted", text: "", ...base };
    case "error":
      return {
        kind: "failed",
        stopReason: "error",
        error: result.error,
        text: "",
        ...base,
      };
  }
}

/**
 * The difference of two ledger snapshots: what was priced between them.
 *
 * @param before The snapshot at the start.
 * @param after The snapshot at the end.
 * @returns The figures of the attempts priced in between.
 */
export function spendBetween(
  before: SpendFigures,
  after: SpendFigures,
): SpendFigures {
  return {
    costMicrocents: after.costMicrocents - before.costMicrocents,
    cacheReadTokens: after.cacheReadTokens - before.cacheReadTokens,
    cacheWriteTokens: after.cacheWriteTokens - before.cacheWriteTokens,
    unpricedCalls: after.unpricedCalls - before.unpricedCalls,
    usageUnknownCalls: after.usageUnknownCalls - before.usageUnknownCalls,
  };
}
