/**
 * The values context management works on and hands back: the state it
 * reads, the view of the next request it measures, and the steps the
 * session takes when a decision changes something (install a state, hand
 * over a boundary or a spend, publish an event).
 *
 * @module
 */
import type { PlanEntry } from "../../llm/chain.ts";
import type { ToolDef } from "../../llm/provider.ts";
import type { Agent } from "../../schema/agent.ts";
import type { SessionEventDraft } from "../../schema/event.ts";
import type { TurnSpan, WorkingMessage } from "../../schema/resume.ts";
import type { BoundaryMarker, CostEntry } from "../../schema/turn.ts";
import type { SessionDeps } from "../deps.ts";

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
 * What the next request is made of, besides the state: read-only values.
 */
export interface WindowView {
  /** The agent (memory policy, `max_tokens`). */
  agent: Agent;
  /** The resolved system prompt. */
  system: string;
  /** The session's deps (catalog, retry effects, observer, the sink). */
  deps: SessionDeps;
  /** `compactThreshold`. */
  threshold: number;
  /** The resolved plan. */
  plan: readonly PlanEntry[];
  /** Tools the next request advertises. */
  tools: readonly ToolDef[];
}

/**
 * What the session hands its host for one step: a boundary (compaction or
 * trim) or the spend of a compaction that installed nothing.
 */
export type WindowHandover =
  | { kind: "boundary"; marker: BoundaryMarker }
  | { kind: "spend"; costs: CostEntry[] };

/**
 * One step the session takes, in this order: install `state`, hand over
 * `handover`, publish `event`. A cancelled session takes none.
 */
export interface WindowStep {
  /** The state to install, when it changed. */
  state?: ContextState;
  /** The value to hand over to the host, if any. */
  handover?: WindowHandover;
  /** The event to publish. */
  event: SessionEventDraft;
}
