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
 *   user-safe error of its `session:turn_completed` event.
 * - `aborted`: `abort()` stopped the turn.
 * - `cancelled`: `cancel()` ended the session during the turn (no
 *   terminal event was published).
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
    /** The model that answered last, when one did. */
    model?: string;
  }
  | {
    /** The turn ended in error. */
    kind: "failed";
    /** Always `"error"`. */
    stopReason: "error";
    /** The classified, user-safe error. */
    error: SessionError;
    /** The final assistant text (`""` unless the turn completed). */
    text: string;
    /** Tokens consumed by the turn, summed over its attempts and rounds. */
    usage: TokensUsed;
    /** What the turn's attempts cost, in micro-cents (0 when unpriced). */
    costMicrocents: number;
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
    /** The model that answered last, when one did. */
    model?: string;
  };

/**
 * The turn result of a core result.
 *
 * @param result The flow's final result (`undefined` ⇒ cancelled).
 * @param costMicrocents What the turn's attempts cost.
 * @returns The public turn result.
 */
export function toTurnResult(
  result: TurnCoreResult | undefined,
  costMicrocents: number,
): TurnResult {
  if (result === undefined || result.kind === "cancelled") {
    return {
      kind: "cancelled",
      text: "",
      usage: { input: 0, output: 0 },
      costMicrocents,
    };
  }
  const base = {
    usage: { input: result.usage.input, output: result.usage.output },
    costMicrocents,
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
