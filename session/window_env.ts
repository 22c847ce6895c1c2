/**
 * What context management reads and does, supplied by the session: the
 * working state, the plan and tools of the next request, the sink, the
 * admission and cost accounting of summariser attempts.
 *
 * @module
 */
import type { Admission, AttemptReport, PlanEntry } from "../llm/chain.ts";
import type { LlmRequest, ToolDef } from "../llm/provider.ts";
import type { Agent } from "../schema/agent.ts";
import type { SessionEventDraft } from "../schema/event.ts";
import type { TurnSpan, WorkingMessage } from "../schema/resume.ts";
import type { SessionDeps } from "./deps.ts";
import { estimateProjection } from "./projection.ts";

/**
 * The part of the session a compaction reads and replaces.
 */
export interface ContextState {
  /** The working transcript. */
  messages: WorkingMessage[];
  /** Its completed spans. */
  spans: TurnSpan[];
  /** The installed summary, if any. */
  summary?: string;
}

/**
 * What the context entry points read and do, supplied by the session.
 */
export interface WindowEnv {
  /** The agent (memory policy, `max_tokens`). */
  agent: Agent;
  /** The resolved system prompt. */
  system: string;
  /** The session's deps. */
  deps: SessionDeps;
  /** `compactThreshold`. */
  threshold: number;
  /** The resolved plan. */
  plan: readonly PlanEntry[];
  /** Tools the next request advertises. */
  tools: readonly ToolDef[];
  /** The current state. */
  read(): ContextState;
  /** Replaces the state. */
  install(state: ContextState): void;
  /** Aborts the work. */
  signal: AbortSignal;
  /** Whether `cancel()` was called. */
  isCancelled(): boolean;
  /** The event sink. */
  emit(draft: SessionEventDraft): void;
  /** Admission of a summariser attempt (latch, then budget). */
  admit(
    entry: { provider: string; model: string },
    request: LlmRequest,
  ): Admission;
  /** Cost accounting of a summariser attempt. */
  onAttempt(report: AttemptReport): void;
}

/**
 * Estimated input tokens of the request a state projects to.
 *
 * @param env The session's environment.
 * @param state Transcript, spans and summary.
 * @param pending The pending user text, if any.
 * @returns The estimate.
 */
export function measureState(
  env: WindowEnv,
  state: ContextState,
  pending?: string,
): number {
  const memory = env.agent.memory;
  return estimateProjection({
    system: env.system,
    ...(memory === undefined ? {} : { memory }),
    messages: state.messages,
    spans: state.spans,
    ...(state.summary === undefined ? {} : { summary: state.summary }),
    ...(pending === undefined ? {} : { pending }),
    tools: env.tools,
  });
}
