/**
 * One turn's context: everything the turn flow and the turn core read,
 * built once by the session at the turn's start (the request base, the
 * advertised tools, the turn's chain and its admission, the run's account
 * with its effect ids, the running tally), and what only the session does
 * (its state, the window's steps, the flush, the terminal), which the
 * flow alone calls.
 *
 * @module
 */
import type { PlanEntry } from "../llm/chain.ts";
import { createChain } from "../llm/chain.ts";
import type { LlmRequest, ToolDef } from "../llm/provider.ts";
import type { Agent } from "../schema/agent.ts";
import type { SessionEventDraft } from "../schema/event.ts";
import type { ToolRegistry, TurnPolicy } from "../tools/registry.ts";
import type { SessionDeps } from "./deps.ts";
import type { SpendLedger } from "./ledger.ts";
import { sessionError } from "./turn_errors.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { TurnRun } from "./turn_run.ts";
import type { TurnTally } from "./turn_tally.ts";
import type { SessionWindow } from "./session_window.ts";
import type { Summariser } from "./window/compact.ts";
import { frozenText } from "./window/projection.ts";
import type { ContextState, WindowStep, WindowView } from "./window/state.ts";

/**
 * What the session gives a turn: its parts, and what only the session can
 * do (read and change its state, publish the terminal, renew the abort
 * signal, mint a local turn key).
 */
export interface TurnParts {
  /** The agent. */
  agent: Agent;
  /** The resolved system prompt. */
  system: string;
  /** The session's deps. */
  deps: SessionDeps;
  /** `compactThreshold`. */
  threshold: number;
  /** The agent ref (`nodeId`). */
  agentRef: string;
  /** The plan. */
  plan: PlanEntry[];
  /** The turn policy snapshot. */
  policy: TurnPolicy | undefined;
  /** The turn's abort controller. */
  controller: AbortController;
  /** Spend and admission. */
  ledger: SpendLedger;
  /** The turn's running account (its `userText` is the pending message). */
  tally: TurnTally;
  /** The session's working state and its handover to the host. */
  window: SessionWindow;
  /** The session's provider-engaged turns (what a handover records). */
  turnsUsed(): number;
  /** Whether `cancel()` was called. */
  isCancelled(): boolean;
  /** The session's granted tools (after narrowing). */
  granted: string[];
  /** Whether automatic compaction is permitted. */
  automatic: boolean;
  /** Whether the memory policy allows trims. */
  trimAllowed: boolean;
  /** Publishes the terminal; `idle` lands the session in `idle` first. */
  finish(result: TurnCoreResult, idle: boolean): void;
  /** A fresh signal for after-turn work; `undefined` when none can be made. */
  renewSignal(): AbortSignal | undefined;
  /** The next in-memory turn key (no persister wired). */
  nextLocalTurnKey(): number;
}

/**
 * The context of one turn.
 */
export class TurnContext {
  /** What the next request is made of, besides the state. */
  readonly view: WindowView;
  /** The session's deps. */
  readonly deps: SessionDeps;
  /** The running account. */
  readonly tally: TurnTally;
  /** The pending user text. */
  readonly pending: string;
  /** The turn policy snapshotted at turn start. */
  readonly policy: TurnPolicy | undefined;
  /** Aborts the turn. */
  readonly signal: AbortSignal;
  /** The agent ref, stamped as `nodeId`. */
  readonly nodeId: string;
  /** The session's effective grant. */
  readonly granted: readonly string[];
  /** Advertised tools (may be empty). */
  readonly tools: ToolDef[];
  /** Request fields other than messages, signal and tools. */
  readonly base: Omit<LlmRequest, "messages" | "signal" | "tools">;
  /** The turn's chain (one per turn). */
  readonly chain: ReturnType<typeof createChain>;
  /** Whether automatic compaction is permitted. */
  readonly automatic: boolean;
  /** Whether the memory policy allows trims (after-turn fallback). */
  readonly trimAllowed: boolean;
  /** Whether the after-turn trigger runs (`afterTurnCompaction !== false`). */
  readonly afterTurnEnabled: boolean;
  /** What the turn's core runs gather (one per turn). */
  readonly run: TurnRun;
  /** The event sink. */
  readonly emit: (draft: SessionEventDraft) => void;
  readonly #parts: TurnParts;

  /**
   * Builds the turn: the request base from the agent, the advertised
   * tools (the registry's `advertise` may throw; the session handles it),
   * and the chain.
   *
   * @param parts The session's parts.
   */
  constructor(parts: TurnParts) {
    this.#parts = parts;
    const { agent, plan, ledger } = parts;
    this.tally = parts.tally;
    this.pending = parts.tally.userText;
    this.policy = parts.policy;
    this.signal = parts.controller.signal;
    this.nodeId = parts.agentRef;
    this.granted = parts.granted;
    this.automatic = parts.automatic;
    this.trimAllowed = parts.trimAllowed;
    const deps = parts.deps;
    this.deps = deps;
    const base: Omit<LlmRequest, "messages" | "signal" | "tools"> = {
      model: plan[0]?.model ?? agent.model,
      system: [parts.system, parts.policy?.instruction ?? ""]
        .filter((t) => t !== "").join("\n\n"),
    };
    if (agent.temperature !== undefined) base.temperature = agent.temperature;
    if (agent.max_tokens !== undefined) base.maxTokens = agent.max_tokens;
    if (agent.reasoning_effort !== undefined) {
      base.reasoningEffort = agent.reasoning_effort;
    }
    this.base = base;
    this.tools = deps.tools?.advertise(parts.granted, parts.policy) ?? [];
    this.view = {
      agent,
      system: parts.system,
      deps,
      threshold: parts.threshold,
      plan,
      tools: this.tools,
    };
    this.afterTurnEnabled = deps.afterTurnCompaction !== false;
    this.emit = (draft) => deps.emit(draft);
    this.run = new TurnRun({
      isCancelled: () => parts.isCancelled(),
      signal: this.signal,
      turnKey: () => deps.reserveEffectTurnKey?.() ?? parts.nextLocalTurnKey(),
    });
    const tally = parts.tally;
    this.chain = createChain({
      plan,
      keyFor: (id) => deps.keyFor(id),
      sleep: (ms, signal) => deps.sleep(ms, signal),
      now: () => deps.clock.now(),
      admit: (entry, request) => ledger.admit("turn", plan, entry, request),
      onAttempt: (report) => {
        tally.settle(report);
        ledger.record(report, (spent) => tally.costs.push(spent));
      },
    });
  }

  /** The tool seam (absent ⇒ every call is an unknown tool). */
  get registry(): ToolRegistry | undefined {
    return this.deps.tools;
  }

  /** Whether a person can answer prompts. */
  get interactive(): boolean {
    return this.deps.interactive ?? false;
  }

  /** Whether `cancel()` was called. */
  isCancelled(): boolean {
    return this.#parts.isCancelled();
  }

  /** The session's current context state. */
  state(): ContextState {
    return this.#parts.window.state;
  }

  /**
   * Has the session take a window decision's steps.
   *
   * @param steps The steps, in order.
   */
  apply(steps: readonly WindowStep[]): void {
    if (steps.length > 0) {
      this.#parts.window.apply(steps, this.#parts.turnsUsed());
    }
  }

  /**
   * The summariser's inputs for a compaction of this turn.
   *
   * @param signal The work's signal (the turn's unless renewed).
   * @returns Signal, ledger and a fresh spend list.
   */
  summariser(signal: AbortSignal = this.signal): Summariser {
    return this.#parts.window.summariser(signal, this.#parts.ledger);
  }

  /** Appends the pending user and the reply, and records the span. */
  installReply(reply: string): void {
    const { messages, spans } = this.#parts.window.state;
    const start = messages.length;
    messages.push(frozenText("user", this.pending));
    if (reply !== "") messages.push(frozenText("assistant", reply));
    spans.push({ start, end: messages.length });
  }

  /** Publishes the terminal; `idle` lands the session in `idle` first. */
  finish(result: TurnCoreResult, idle: boolean): void {
    this.#parts.finish(result, idle);
  }

  /**
   * Flushes the host's budget commitments (when wired) before the
   * terminal. A failed flush turns a success into an `internal` failure
   * (any other result already reports the turn's failure).
   *
   * @param result The turn's result.
   * @returns The result to publish, or `undefined` when the turn was
   * cancelled (it then publishes nothing).
   */
  async settle(result: TurnCoreResult): Promise<TurnCoreResult | undefined> {
    if (result.kind === "cancelled" || this.isCancelled()) return undefined;
    const deps = this.deps;
    const flush = deps.flushBudgetCommitments;
    if (flush === undefined) return result;
    try {
      await flush.call(deps);
    } catch {
      if (this.isCancelled()) return undefined;
      if (result.kind === "success") {
        return {
          kind: "error",
          error: sessionError("internal"),
          usage: result.usage,
          engaged: true,
        };
      }
    }
    return this.isCancelled() ? undefined : result;
  }

  /**
   * Gives the after-turn step a fresh abort signal (`undefined` when the
   * controller factory failed: the step is skipped).
   */
  renewSignal(): AbortSignal | undefined {
    return this.#parts.renewSignal();
  }
}
