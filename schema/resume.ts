/**
 * `ResumeState`: what a stored session hands the engine.
 *
 * @module
 */

/**
 * A text-only working message.
 */
export interface WorkingMessage {
  /** Row role. */
  role: "user" | "assistant";
  /** The strict content parts. */
  content: Array<{ type: "text"; text: string }>;
}

/**
 * A completed turn's span in the working transcript, `end` exclusive:
 * length 1 (empty final reply) or 2 (user + assistant).
 */
export interface TurnSpan {
  /** Index of the span's user message. */
  start: number;
  /** Exclusive end index. */
  end: number;
}

/**
 * The state a session resumes from, rebuilt from durable rows by
 * `reconstructSessionState` (store) and validated by
 * `AgentSession.resume` (engine).
 */
export interface ResumeState {
  /** Text-only working transcript. */
  messages: WorkingMessage[];
  /** Completed turn spans, ordered. */
  completedTurnSpans: TurnSpan[];
  /** Completed turns in the working transcript (since the last boundary). */
  turnCount: number;
  /**
   * Provider-engaged turns over the session's whole life, as stored; the
   * hard cap resumes from the larger of this and `turnCount`.
   */
  turnsUsed?: number;
  /** Realised spend so far. */
  cumulativeCostMicrocents: number;
  /** Estimated possibly-billed spend. */
  conservativeCostMicrocents: number;
  /**
   * Provider calls of earlier runs whose usage stayed unknown (journaled
   * as pending, never settled); `cost:updated` reports them. Absent ⇒ 0.
   */
  unaccountedCalls?: number;
  /** The newest compaction summary, if any. */
  compactionSummary?: string;
}
