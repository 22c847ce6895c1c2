/**
 * `ResumeState` (DECISIONS.md 9): what a stored session hands the engine.
 *
 * @module
 */

/**
 * A text-only working message.
 *
 * @example Value
 * ```ts
 * import type { WorkingMessage } from "@relavium/session/schema";
 * const m: WorkingMessage = { role: "user", content: [{ type: "text", text: "hi" }] };
 * ```
 */
export interface WorkingMessage {
  role: "user" | "assistant";
  content: Array<{ type: "text"; text: string }>;
}

/**
 * A completed turn's span in the working transcript, `end` exclusive:
 * length 1 (empty final reply) or 2 (user + assistant).
 *
 * @example Value
 * ```ts
 * import type { TurnSpan } from "@relavium/session/schema";
 * const s: TurnSpan = { start: 0, end: 2 };
 * ```
 */
export interface TurnSpan {
  start: number;
  end: number;
}

/**
 * The state a session resumes from, rebuilt from durable rows by
 * `reconstructSessionState` (store) and validated by
 * `AgentSession.resume` (engine).
 *
 * @example Value
 * ```ts
 * import type { ResumeState } from "@relavium/session/schema";
 * const s: ResumeState = {
 *   messages: [], completedTurnSpans: [], turnCount: 0,
 *   cumulativeCostMicrocents: 0, conservativeCostMicrocents: 0,
 * };
 * ```
 */
export interface ResumeState {
  messages: WorkingMessage[];
  completedTurnSpans: TurnSpan[];
  turnCount: number;
  cumulativeCostMicrocents: number;
  conservativeCostMicrocents: number;
  compactionSummary?: string;
}
