/**
 * The finished-turn and boundary values: what the engine hands its host
 * when a turn, a compaction or a trim ends, and what a store writes.
 *
 * @module
 */
import type { SessionToolCallPart, SessionToolResultPart } from "./message.ts";

/**
 * One attempt's spend, from a `cost:updated` event.
 */
export interface CostEntry {
  /** Raw provider model string (the `session_costs` key); non-empty. */
  model: string;
  /** Input tokens of the attempt. */
  inputTokens: number;
  /** Output tokens of the attempt. */
  outputTokens: number;
  /** Realised spend of the attempt in micro-cents. */
  costMicrocents: number;
  /** `false` when the model had no price (counted in `unpriced_calls`). */
  priced: boolean;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens?: number;
  /** The part of `costMicrocents` paid for cache reads. */
  cacheReadMicrocents?: number;
  /** The part of `costMicrocents` paid for cache writes. */
  cacheWriteMicrocents?: number;
  /**
   * The provider sent no token counts: the tokens are unknown and
   * `costMicrocents` is the cost cap's estimate.
   */
  usageUnknown?: true;
}

/**
 * One tool round of a turn: the assistant row's calls and the tool row's
 * results, in call order.
 */
export interface ToolRound {
  /** The round's calls, in call order (the `assistant` row). */
  calls: SessionToolCallPart[];
  /** The round's results, in call order (the `tool` row). */
  results: SessionToolResultPart[];
}

/**
 * Everything one completed turn writes, in one transaction.
 */
export interface TurnCommit {
  /** The user message text, stored verbatim. */
  userText: string;
  /** Tool rounds from `turn_completed.toolHistory`, in order. */
  rounds: ToolRound[];
  /** Terminal assistant text; empty text still completes the turn. */
  finalText: string;
  /** The model that served the turn (fallback-aware). */
  modelId?: string;
  /** Main-turn usage, added to the session totals. */
  tokensUsed: { input: number; output: number };
  /** Buffered `cost:updated` entries of this turn. */
  costs: CostEntry[];
  /**
   * The session's provider-engaged turns after this one (its life count);
   * the stored count is raised to it, never lowered.
   */
  turnsUsed?: number;
}

/**
 * A boundary marker to append on `session:compacted` / `session:trimmed`
 * . The store places it by boundary slots.
 */
export interface BoundaryMarker {
  /** The compaction summary (non-empty); absent for a trim. */
  summary?: string;
  /** Boundary slots the working context kept (`keptTurnCount`). */
  keptTurnCount: number;
  /** Summariser usage, added to the session's token totals. */
  tokensUsed?: { input: number; output: number };
  /** Summariser spend recorded in the same transaction. */
  costs?: CostEntry[];
}
