/**
 * `AgentSession`: one agent, one memoised model plan, a multi-turn
 * conversation (session.md §2–§4, §10). It never touches storage: it emits
 * envelope-free events into `deps.emit`, and a host persists them.
 *
 * @module
 */
import type { Agent, AgentMemory } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import type { SessionError, TokensUsed } from "../schema/event.ts";
import type { Result } from "../schema/result.ts";
import type {
  ResumeState,
  TurnSpan,
  WorkingMessage,
} from "../schema/resume.ts";
import type { AttemptReport, PlanEntry } from "../llm/chain.ts";
import { createChain } from "../llm/chain.ts";
import { priceUsage } from "../llm/cost.ts";
import { resolvePlan } from "../llm/plan.ts";
import type { LlmRequest } from "../llm/provider.ts";
import type { EgressDecision, TurnPolicy } from "../tools/registry.ts";
import type { SessionDeps } from "./deps.ts";
import { SessionStateError } from "./errors.ts";
import { projectHistory } from "./projection.ts";
import { resolveSystemPrompt } from "./prompt.ts";
import { isValidResumeState } from "./resume_state.ts";
import { runTurnCore, type TurnCoreResult } from "./turn.ts";
import { sessionError } from "./turn_errors.ts";

/** Default hard cap of provider-engaged turns (session.md §12). */
export const DEFAULT_MAX_TURNS = 50;

/**
 * Engine states (session.md §2).
 *
 * @example Value
 * ```ts
 * import type { SessionState } from "@relavium/session/session";
 * const s: SessionState = "idle";
 * ```
 */
export type SessionState = "created" | "idle" | "running" | "cancelled";

/**
 * Construction parameters.
 *
 * @example Shape
 * ```ts
 * import type { AgentSessionParams } from "@relavium/session/session";
 * type K = keyof AgentSessionParams;
 * ```
 */
export interface AgentSessionParams {
  /** The durable session id (minted by the host). */
  sessionId: string;
  /** The kebab agent id; stamped as `nodeId`. */
  agentRef: string;
  /** The agent as authored (or as frozen in a snapshot). */
  agent: Agent;
  /** Where the session works. */
  context: SessionContext;
  /** Injected capabilities. */
  deps: SessionDeps;
}

/**
 * A completed exchange as the working transcript holds it.
 *
 * @example Value
 * ```ts
 * import type { CompletedExchange } from "@relavium/session/session";
 * const e: CompletedExchange = { userText: "hi", assistantText: "" };
 * ```
 */
export interface CompletedExchange {
  /** The user's text. */
  userText: string;
  /** The final assistant text (`""` for an empty final reply). */
  assistantText: string;
}

function allow(): EgressDecision {
  return { allow: true };
}

/**
 * One multi-turn conversation with one agent.
 *
 * @example A scripted turn
 * ```ts
 * import { AgentSession } from "@relavium/session/session";
 * import { createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const provider = createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "Hello" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 3, outputTokens: 1 } },
 * ]] });
 * const types: string[] = [];
 * const session = new AgentSession({
 *   sessionId: "s1", agentRef: "mini",
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 *   context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   deps: {
 *     clock: { now: () => 0 }, ids: () => "x", resolveProvider: () => provider,
 *     keyFor: () => "k", sleep: () => Promise.resolve(), emit: (d) => types.push(d.type),
 *   },
 * });
 * session.start();
 * await session.sendMessage("Hi");
 * assert.equal(types.at(-1), "session:turn_completed");
 * assert.equal(session.turnCount, 1);
 * ```
 */
export class AgentSession {
  /** The durable session id. */
  readonly sessionId: string;
  /** The agent ref (`nodeId` of in-turn events). */
  readonly agentRef: string;
  #agent: Agent;
  #context: SessionContext;
  #deps: SessionDeps;
  #system: string;
  #state: SessionState = "created";
  #messages: WorkingMessage[] = [];
  #spans: TurnSpan[] = [];
  #summary: string | undefined;
  #turnCount = 0;
  #cost = 0;
  #conservative = 0;
  #policy: TurnPolicy | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  #plan:
    | Result<PlanEntry[], { providerId: string; message: string }>
    | undefined;
  #localTurnKey = 0;

  /**
   * Builds a session in state `created`.
   *
   * @param params Session id, agent ref, agent, context and deps.
   * @throws {TypeError} When the system prompt references a missing `{{ctx.*}}` variable.
   */
  constructor(params: AgentSessionParams) {
    this.sessionId = params.sessionId;
    this.agentRef = params.agentRef;
    this.#agent = structuredClone(params.agent);
    this.#context = structuredClone(params.context);
    this.#deps = params.deps;
    const system = resolveSystemPrompt(
      params.agent.system_prompt,
      params.context.variables,
    );
    if (!system.ok) {
      throw new TypeError(
        `Cannot resolve the system prompt: no context variable "${system.error.missing}"`,
      );
    }
    this.#system = system.value;
  }

  /**
   * Rebuilds a session from durable state, landing in `idle` without
   * emitting `session:started`.
   *
   * @param params As for the constructor.
   * @param state The reconstructed resume state.
   * @returns The resumed session.
   * @throws {SessionStateError} `invalid_resume_state` when the metadata is invalid.
   */
  static resume(params: AgentSessionParams, state: ResumeState): AgentSession {
    if (!isValidResumeState(state)) {
      throw new SessionStateError("invalid_resume_state");
    }
    const s = new AgentSession(params);
    s.#messages = structuredClone(state.messages);
    s.#spans = structuredClone(state.completedTurnSpans);
    s.#turnCount = state.turnCount;
    s.#cost = state.cumulativeCostMicrocents;
    s.#conservative = state.conservativeCostMicrocents;
    if (state.compactionSummary !== undefined) {
      s.#summary = state.compactionSummary;
    }
    s.#state = "idle";
    params.deps.updateCost?.(s.#cost);
    return s;
  }

  /** The engine state. */
  get state(): SessionState {
    return this.#state;
  }

  /** Completed (provider-engaged) turns so far, including resumed ones. */
  get turnCount(): number {
    return this.#turnCount;
  }

  /** Session-wide realised spend in micro-cents. */
  get cumulativeCostMicrocents(): number {
    return this.#cost;
  }

  /** Estimated possibly-billed spend carried across resume (later issue). */
  get conservativeCostMicrocents(): number {
    return this.#conservative;
  }

  /** A frozen copy of the authored `memory`, `undefined` when omitted. */
  get memoryPolicy(): AgentMemory | undefined {
    const m = this.#agent.memory;
    return m === undefined ? undefined : Object.freeze({ ...m });
  }

  /** A deep copy of the working transcript, its spans and summary. */
  get transcript(): {
    messages: WorkingMessage[];
    spans: TurnSpan[];
    summary?: string;
  } {
    const out = {
      messages: structuredClone(this.#messages),
      spans: structuredClone(this.#spans),
    };
    return this.#summary === undefined
      ? out
      : { ...out, summary: this.#summary };
  }

  /**
   * The most recent completed exchange (what a persister writes when it
   * sees `session:turn_completed`).
   *
   * @returns The exchange, or `undefined` before the first completed turn.
   */
  lastCompletedExchange(): CompletedExchange | undefined {
    const span = this.#spans[this.#spans.length - 1];
    if (span === undefined) return undefined;
    const text = (i: number): string =>
      (this.#messages[i]?.content ?? []).map((p) => p.text).join("\n\n");
    return {
      userText: text(span.start),
      assistantText: span.end - span.start === 2 ? text(span.start + 1) : "",
    };
  }

  /**
   * Starts the session: emits `session:started` and lands in `idle`.
   *
   * @throws {SessionStateError} `already_started` or `not_active`.
   */
  start(): void {
    if (this.#state === "cancelled") throw new SessionStateError("not_active");
    if (this.#state !== "created") {
      throw new SessionStateError("already_started");
    }
    this.#state = "idle";
    this.#deps.emit({
      type: "session:started",
      agentRef: this.agentRef,
      model: this.#agent.model,
      context: structuredClone(this.#context),
    });
  }

  /**
   * Stores the turn policy, snapshotted at the next turn start. Inert
   * after cancel.
   *
   * @param policy The policy, or `undefined` to clear it.
   */
  setTurnPolicy(policy: TurnPolicy | undefined): void {
    if (this.#state === "cancelled") return;
    this.#policy = policy;
  }

  /** Aborts the in-flight turn; a no-op unless `running`. */
  abort(): void {
    if (this.#state === "running") this.#controller?.abort();
  }

  /** Cancels the session (terminal, resumable); idempotent. */
  cancel(): void {
    if (this.#state === "cancelled") return;
    this.#cancelled = true;
    this.#state = "cancelled";
    this.#controller?.abort();
    this.#deps.emit({ type: "session:cancelled" });
  }

  /**
   * Runs one turn. The outcome is in the events: exactly one
   * `session:turn_completed` unless the session is cancelled meanwhile.
   *
   * @param text The user message.
   * @returns Resolves when the turn has ended.
   * @throws {SessionStateError} `not_started` or `not_active` (as a rejection).
   */
  async sendMessage(text: string): Promise<void> {
    if (this.#state === "created") throw new SessionStateError("not_started");
    if (this.#state !== "idle") throw new SessionStateError("not_active");
    this.#state = "running";
    const controller = new AbortController();
    this.#controller = controller;
    this.#deps.emit({ type: "session:turn_started" });
    if (this.#cancelled) return;

    const maxTurns = (this.#deps.maxTurns ?? 0) > 0
      ? this.#deps.maxTurns ?? DEFAULT_MAX_TURNS
      : DEFAULT_MAX_TURNS;
    if (this.#turnCount >= maxTurns) {
      this.#finish({
        kind: "error",
        error: sessionError(
          "turn_limit",
          `session reached its hard cap of ${maxTurns} turns`,
        ),
        usage: { input: 0, output: 0 },
        engaged: false,
      });
      return;
    }
    const policy = this.#policy;
    const plan = this.#plan ??= resolvePlan(
      this.#agent,
      (id) => this.#deps.resolveProvider(id),
    );
    if (!plan.ok) {
      this.#finish({
        kind: "error",
        error: sessionError(
          "validation",
          `Provider "${plan.error.providerId}" is not configured`,
        ),
        usage: { input: 0, output: 0 },
        engaged: false,
      });
      return;
    }
    let result: TurnCoreResult;
    try {
      result = await this.#runCore(text, plan.value, policy, controller);
    } catch (e) {
      if (!this.#cancelled) {
        this.#finish({
          kind: "error",
          error: sessionError("internal"),
          usage: { input: 0, output: 0 },
          engaged: false,
        });
      }
      throw e;
    }
    if (result.kind === "success") {
      if (this.#cancelled) return;
      const start = this.#messages.length;
      this.#messages.push({ role: "user", content: [{ type: "text", text }] });
      if (result.text !== "") {
        this.#messages.push({
          role: "assistant",
          content: [{ type: "text", text: result.text }],
        });
      }
      this.#spans.push({ start, end: this.#messages.length });
    }
    this.#finish(result);
  }

  #runCore(
    text: string,
    plan: PlanEntry[],
    policy: TurnPolicy | undefined,
    controller: AbortController,
  ): Promise<TurnCoreResult> {
    const deps = this.#deps;
    const agent = this.#agent;
    const primary = plan[0];
    const base: Omit<LlmRequest, "messages" | "signal" | "tools"> = {
      model: primary?.model ?? agent.model,
      system: this.#system,
    };
    if (agent.temperature !== undefined) base.temperature = agent.temperature;
    if (agent.max_tokens !== undefined) base.maxTokens = agent.max_tokens;
    if (agent.reasoning_effort !== undefined) {
      base.reasoningEffort = agent.reasoning_effort;
    }
    const narrowing = deps.toolNarrowing;
    const granted = (agent.tools ?? []).filter((t) =>
      narrowing === undefined || narrowing.includes(t)
    );
    const tools = deps.tools?.advertise(granted, policy) ?? [];
    const chain = createChain({
      plan,
      keyFor: (id) => deps.keyFor(id),
      sleep: (ms, signal) => deps.sleep(ms, signal),
      now: () => deps.clock.now(),
      admit: (entry, request) =>
        deps.preEgress?.({
          kind: "provider",
          provider: entry.provider,
          model: entry.model,
          purpose: "turn",
          request,
        }) ?? allow(),
      onAttempt: (report) => this.#onAttempt(report),
    });
    let turnKey: number | undefined;
    let slot = 0;
    return runTurnCore({
      chain,
      base,
      tools,
      messages: projectHistory({
        ...(agent.memory === undefined ? {} : { memory: agent.memory }),
        messages: this.#messages,
        spans: this.#spans,
        ...(this.#summary === undefined ? {} : { summary: this.#summary }),
        pending: text,
      }),
      signal: controller.signal,
      nodeId: this.agentRef,
      emit: (d) => deps.emit(d),
      ...(deps.tools === undefined ? {} : { registry: deps.tools }),
      granted,
      ...(policy === undefined ? {} : { policy }),
      interactive: deps.interactive ?? false,
      admitTool: (toolId) =>
        deps.preEgress?.({ kind: "tool", toolId }) ?? allow(),
      nextToolCallId: () => {
        turnKey ??= deps.reserveEffectTurnKey?.() ?? ++this.#localTurnKey;
        if (!Number.isSafeInteger(turnKey) || turnKey < 1) {
          throw new RangeError("Invalid turn key");
        }
        return `session-tool:${turnKey}:${slot++}`;
      },
      isCancelled: () => this.#cancelled,
    });
  }

  #onAttempt(report: AttemptReport): void {
    if (report.outcome === "skipped" || report.usage === undefined) return;
    if (this.#cancelled) return;
    const info = this.#deps.catalog?.lookup(report.model);
    const price = priceUsage(report.usage, info);
    this.#cost += price.costMicrocents;
    this.#deps.emit({
      type: "cost:updated",
      nodeId: this.agentRef,
      model: report.model,
      inputTokens: report.usage.inputTokens,
      outputTokens: report.usage.outputTokens,
      costMicrocents: price.costMicrocents,
      cumulativeCostMicrocents: this.#cost,
      attemptNumber: report.attemptNumber,
      priced: price.priced,
    });
    this.#deps.updateCost?.(this.#cost);
  }

  #finish(result: TurnCoreResult): void {
    if (result.kind === "cancelled" || this.#cancelled) return;
    if (result.engaged) this.#turnCount += 1;
    this.#state = "idle";
    this.#controller = undefined;
    const tokensUsed: TokensUsed = {
      input: result.usage.input,
      output: result.usage.output,
    };
    if (result.model !== undefined) tokensUsed.model = result.model;
    if (result.kind === "success") {
      this.#deps.emit({
        type: "session:turn_completed",
        stopReason: result.stopReason,
        tokensUsed,
        ...(result.toolHistory.length > 0
          ? { toolHistory: result.toolHistory }
          : {}),
      });
      return;
    }
    if (result.kind === "aborted") {
      this.#deps.emit({
        type: "session:turn_completed",
        stopReason: "aborted",
        tokensUsed,
      });
      return;
    }
    const error: SessionError = result.error;
    this.#deps.emit({
      type: "session:turn_completed",
      stopReason: "error",
      tokensUsed,
      error,
    });
  }
}
