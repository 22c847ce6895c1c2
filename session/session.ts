/**
 * `AgentSession`: one agent, one memoised model plan, a multi-turn
 * conversation. It never touches storage: it emits
 * envelope-free events into `deps.emit`, and a host persists them.
 *
 * @module
 */
import { type Agent, type AgentMemory, parseAgent } from "../schema/agent.ts";
import { parseSessionContext, type SessionContext } from "../schema/context.ts";
import { renderIssues } from "../schema/issues.ts";
import type { Result } from "../schema/result.ts";
import type { ResumeState } from "../schema/resume.ts";
import type { PlanEntry } from "../llm/chain.ts";
import { resolvePlan } from "../llm/plan.ts";
import type { TurnPolicy, UserCommandOutcome } from "../tools/registry.ts";
import { flatDeps, type SessionDeps } from "./deps.ts";
import type { FinishedWork } from "./finished_work.ts";
import type { CostEntry } from "../schema/turn.ts";
import { SessionStateError } from "./errors.ts";
import { type SpendFigures, SpendLedger } from "./ledger.ts";
import {
  automaticCompactionFor,
  compactionRefusalFor,
  type CompactionResult,
  type MemoryPolicyRefusal,
  NO_STREAMING,
  toCompactionResult,
  trimRefusalFor,
  type TrimResult,
} from "./memory_policy.ts";
import { requireSystemPrompt } from "./prompt.ts";
import { isValidResumeState } from "./resume_state.ts";
import {
  type AgentSessionParams,
  checkContextDeps,
  copyTranscript,
  type SessionState,
  type Transcript,
  turnGate,
} from "./session_types.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { sessionError } from "./turn_errors.ts";
import { runTurnFlow, terminalDraft } from "./turn_flow.ts";
import { spendBetween, toTurnResult, type TurnResult } from "./turn_result.ts";
import { TurnContext } from "./turn_context.ts";
import { TurnTally } from "./turn_tally.ts";
import { runUserCommandFlow } from "./user_command.ts";
import type { Summariser } from "./window/compact.ts";
import { summariserBound } from "./window/measure.ts";
import type { ContextState, WindowStep } from "./window/state.ts";
import { trimSteps } from "./window/trim.ts";
import { compactWith } from "./window/window.ts";

export {
  type AgentSessionParams,
  DEFAULT_MAX_TURNS,
  type SessionState,
} from "./session_types.ts";

function checked<T>(
  what: "agent" | "context",
  parsed: Result<T, { issues: Parameters<typeof renderIssues>[1] }>,
): T {
  if (parsed.ok) return parsed.value;
  throw new TypeError(
    `Invalid ${what}:\n${renderIssues(what, parsed.error.issues)}`,
  );
}

const NO_USAGE = { input: 0, output: 0 } as const;

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
 *   effects: {
 *     clock: { now: () => 0 }, ids: () => "x", resolveProvider: () => provider,
 *     keyFor: () => "k", sleep: () => Promise.resolve(),
 *   },
 *   hooks: { emit: (d) => types.push(d.type) },
 * });
 * session.start();
 * const result = await session.sendMessage("Hi");
 * assert.deepEqual([result.kind, result.text], ["completed", "Hello"]);
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
  #threshold: number;
  #ledger: SpendLedger;
  #state: SessionState = "created";
  #ctx: ContextState = { messages: [], spans: [] };
  #turnCount = 0;
  #conservative = 0;
  #policy: TurnPolicy | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  #plan:
    | Result<PlanEntry[], { providerId: string; message: string }>
    | undefined;
  #localTurnKey = 0;
  #terminal = false;
  #outcome: { result: TurnCoreResult; spend: SpendFigures } | undefined;
  #tally: TurnTally | undefined;
  // Summariser spend not yet handed over (a compaction still open).
  #momentCosts: CostEntry[] = [];
  // The first error a commit hook threw during the current call.
  #commitError: { error: unknown } | undefined;

  /**
   * Builds a session in state `created`.
   *
   * @param params Session id, agent ref, agent, context, effects,
   * settings and hooks.
   * @throws {TypeError} When the agent or the context does not validate
   * (the message names each key path, as `openSession` does), the system
   * prompt references a missing `{{ctx.*}}` variable, or a setting is out
   * of range (`compactThreshold` outside (0, 1], a non-positive
   * `maxMessages` or `maxTokensEstimate`, an invalid `budget`).
   */
  constructor(params: AgentSessionParams) {
    this.sessionId = params.sessionId;
    this.agentRef = params.agentRef;
    // The parsed values are the session's own copies.
    this.#agent = checked("agent", parseAgent(params.agent, "agent"));
    this.#context = checked(
      "context",
      parseSessionContext(params.context, "context"),
    );
    const deps = flatDeps(params.effects, params.settings, params.hooks);
    this.#threshold = checkContextDeps(deps);
    this.#deps = deps;
    this.#ledger = new SpendLedger({
      deps: this.#deps,
      nodeId: params.agentRef,
      isCancelled: () => this.#cancelled,
      // A turn not engaged yet takes the next number at its first call.
      turnNumber: () => this.#turnCount + (this.#tally?.engaged ? 0 : 1),
    });
    this.#system = requireSystemPrompt(this.#agent, this.#context);
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
    s.#ctx = {
      messages: structuredClone(state.messages),
      spans: structuredClone(state.completedTurnSpans),
      ...(state.compactionSummary === undefined
        ? {}
        : { summary: state.compactionSummary }),
    };
    s.#turnCount = Math.max(state.turnCount, state.turnsUsed ?? 0);
    s.#ledger.restore(
      state.cumulativeCostMicrocents,
      state.unaccountedCalls ?? 0,
    );
    s.#conservative = state.conservativeCostMicrocents;
    s.#state = "idle";
    s.#deps.updateCost?.(state.cumulativeCostMicrocents);
    s.#deps.restoreConservativeCost?.(s.#conservative);
    return s;
  }

  /** The engine state. */
  get state(): SessionState {
    return this.#state;
  }

  /**
   * Provider-engaged turns over the session's whole life (resumed ones
   * included; compaction and trim never lower it): what the hard cap
   * counts. A turn takes its slot when its first provider attempt starts.
   */
  get turnCount(): number {
    return this.#turnCount;
  }

  /** Session-wide realised spend in micro-cents. */
  get cumulativeCostMicrocents(): number {
    return this.#ledger.spent;
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

  /**
   * Whether automatic compaction (after-turn, pre-send, overflow recovery)
   * is permitted: `memory: summary` always, omitted iff `autoCompact !==
   * false`, `none`/`window` never. Windows are checked when it would run.
   */
  get automaticCompactionAllowed(): boolean {
    return automaticCompactionFor(this.#agent.memory, this.#deps.autoCompact);
  }

  /** Why `compact()` would be refused by the memory policy, if it would. */
  get compactionRefusal(): MemoryPolicyRefusal | undefined {
    return compactionRefusalFor(this.#agent.memory);
  }

  /** Why `trimHistory()` would be refused by the memory policy, if it would. */
  get trimRefusal(): MemoryPolicyRefusal | undefined {
    return trimRefusalFor(this.#agent.memory);
  }

  /** A deep copy of the working transcript, its spans and summary. */
  get transcript(): Transcript {
    return copyTranscript(this.#ctx);
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

  /** Aborts the in-flight turn or compaction; a no-op unless `running`. */
  abort(): void {
    if (this.#state === "running") this.#controller?.abort();
  }

  /** Cancels the session (terminal, resumable); idempotent. */
  cancel(): void {
    if (this.#state === "cancelled") return;
    this.#cancelled = true;
    this.#state = "cancelled";
    this.#controller?.abort();
    const left = [...(this.#tally?.costs ?? []), ...this.#momentCosts];
    this.#tally = undefined;
    this.#momentCosts = [];
    this.#commit({ kind: "ended", costs: left, turnsUsed: this.#turnCount });
    this.#deps.emit({ type: "session:cancelled" });
  }

  /** Hands finished work to the host; a throw is kept for the caller. */
  #commit(work: FinishedWork): void {
    const hook = this.#deps.commit;
    if (hook === undefined) return;
    try {
      hook(work);
    } catch (error) {
      this.#commitError ??= { error };
    }
  }

  /**
   * Takes the steps of a window decision, the one place a compaction or
   * trim changes the session: install the state, hand the boundary or the
   * summariser spend over as a value, then publish the event. A cancelled
   * session takes none (its `session:cancelled` closes any open moment and
   * `cancel()` handed the spend over).
   */
  #applyWindow(steps: readonly WindowStep[]): void {
    for (const step of steps) {
      if (this.#cancelled) return;
      if (step.state !== undefined) this.#ctx = step.state;
      if (step.handover !== undefined) {
        if (step.handover.kind === "boundary") {
          this.#commit({
            kind: "boundary",
            marker: step.handover.marker,
            turnsUsed: this.#turnCount,
          });
        } else {
          this.#commit({
            kind: "spend",
            costs: step.handover.costs,
            turnsUsed: this.#turnCount,
          });
        }
        this.#momentCosts = [];
      }
      this.#deps.emit(step.event);
    }
  }

  /** The summariser's inputs; its spend list is the open moment's. */
  #summariser(signal: AbortSignal): Summariser {
    const spend: CostEntry[] = [];
    this.#momentCosts = spend;
    return { signal, ledger: this.#ledger, spend };
  }

  /** Rethrows the commit hook's first error of this call, once. */
  #rethrowCommitError(): void {
    const kept = this.#commitError;
    this.#commitError = undefined;
    if (kept !== undefined) throw kept.error;
  }

  #checkIdle(): void {
    if (this.#state === "created") throw new SessionStateError("not_started");
    if (this.#state !== "idle") throw new SessionStateError("not_active");
  }

  #begin(): AbortController {
    this.#checkIdle();
    this.#state = "running";
    return (this.#controller = new AbortController());
  }

  /**
   * Runs one turn: exactly one `session:turn_completed` is published
   * unless the session is cancelled meanwhile. Automatic compaction
   * (pre-send, overflow recovery, after-turn) runs inside this call when
   * permitted and measured necessary.
   *
   * @param text The user message.
   * @returns How the turn ended (resolves after any after-turn work): its
   * stop reason, final text, usage, cost, model, and the classified error
   * when it failed. A failed turn resolves; it does not reject.
   * @throws {SessionStateError} `not_started` or `not_active` (as a rejection).
   */
  async sendMessage(text: string): Promise<TurnResult> {
    const controller = this.#begin();
    this.#terminal = false;
    this.#outcome = undefined;
    this.#commitError = undefined;
    const before = this.#ledger.figures;
    const tally = new TurnTally(text, () => {
      this.#turnCount += 1;
    });
    this.#tally = tally;
    let thrown: { error: unknown } | undefined;
    try {
      this.#deps.emit({ type: "session:turn_started" });
      if (!this.#cancelled) {
        const plan = this.#resolvePlan();
        const gate = turnGate(this.#turnCount, this.#deps.maxTurns, plan);
        if (gate !== undefined || !plan.ok) {
          this.#finish({
            kind: "error",
            error: gate ?? sessionError("internal"),
            usage: NO_USAGE,
            engaged: false,
          }, true);
        } else await this.#turn(plan.value, this.#policy, controller, tally);
      }
    } catch (error) {
      thrown = { error };
    }
    // Every exit publishes the turn's one terminal (unless cancelled): a
    // throw from a callback ends the turn `internal`, with what it had
    // engaged and used.
    if (!this.#cancelled && !this.#terminal) {
      try {
        this.#finish({
          kind: "error",
          error: sessionError("internal"),
          usage: { ...tally.usage },
          engaged: tally.engaged,
          ...(tally.model === undefined ? {} : { model: tally.model }),
        }, true);
      } catch (error) {
        thrown ??= { error };
      }
    }
    if (this.#tally === tally) this.#tally = undefined;
    this.#toIdle();
    if (thrown !== undefined) throw thrown.error;
    this.#rethrowCommitError();
    // Set by #finish during the turn (through callbacks).
    const outcome = this.#outcome as
      | { result: TurnCoreResult; spend: SpendFigures }
      | undefined;
    return this.#cancelled || outcome === undefined
      ? toTurnResult(undefined, spendBetween(before, this.#ledger.figures))
      : toTurnResult(outcome.result, spendBetween(before, outcome.spend));
  }

  /**
   * Runs a user's `!` command through the registry's
   * `run_command` policy: allowlist, then the turn policy (never cached),
   * then the spawn without a shell. Nothing reaches the model.
   *
   * @param cmd The program.
   * @param args Its arguments (tokenised by the caller).
   * @returns The outcome; no raw error escapes (a latched persister ⇒
   * `failed` "session effect identity could not be reserved").
   * @throws {SessionStateError} `not_started` or `not_active` (as a rejection).
   */
  async runUserCommand(
    cmd: string,
    args: string[],
  ): Promise<UserCommandOutcome> {
    const controller = this.#begin();
    try {
      return await runUserCommandFlow({
        command: cmd,
        args,
        deps: this.#deps,
        policy: this.#policy,
        signal: controller.signal,
        nodeId: this.agentRef,
        nextLocalTurnKey: () => ++this.#localTurnKey,
        isCancelled: () => this.#cancelled,
      });
    } finally {
      this.#toIdle();
    }
  }

  #toIdle(): void {
    if (!this.#cancelled) {
      this.#state = "idle";
      this.#controller = undefined;
    }
  }

  /**
   * Manual compaction: folds everything before the latest
   * completed turn into the summary, in at most four summariser passes.
   * Over an unknown window each pass is bounded to 16,384 estimated tokens
   * and `session:compacting` discloses `windowUnknown: true`.
   *
   * @returns The outcome (policy refusals and budget refusals included).
   * @throws {SessionStateError} `not_started` or `not_active` (as a
   * rejection), checked before the memory policy.
   */
  async compact(): Promise<CompactionResult> {
    this.#checkIdle();
    const refusal = this.compactionRefusal;
    if (refusal !== undefined) return refusal;
    const { spans } = this.#ctx;
    const latest = spans[spans.length - 1];
    if (latest === undefined || latest.start === 0) {
      return { kind: "nothing_to_compact" };
    }
    const plan = this.#resolvePlan();
    if (!plan.ok) return { kind: "failed", message: plan.error.message };
    if (summariserBound(plan.value, true) === undefined) {
      return { kind: "failed", message: NO_STREAMING };
    }
    const controller = this.#begin();
    this.#commitError = undefined;
    try {
      const tools =
        this.#deps.tools?.advertise(this.#granted(), this.#policy) ?? [];
      const out = await compactWith({
        agent: this.#agent,
        system: this.#system,
        deps: this.#deps,
        threshold: this.#threshold,
        plan: plan.value,
        tools,
      }, {
        state: this.#ctx,
        reason: "manual",
        summariser: this.#summariser(controller.signal),
        manual: true,
      });
      this.#applyWindow(out.steps);
      return toCompactionResult(out);
    } finally {
      this.#toIdle();
      this.#rethrowCommitError();
    }
  }

  /**
   * Drops whole turns from the front of the working transcript, keeping
   * about `n` trailing messages; no model call. Emits
   * `session:trimmed` when something was dropped; the summary stays.
   *
   * @param n How many trailing messages to keep (a positive integer).
   * @returns The outcome.
   * @throws {SessionStateError} `not_started` or `not_active`.
   * @throws {RangeError} When `n` is not a positive integer (checked after
   * the memory policy).
   */
  trimHistory(n: number): TrimResult {
    this.#checkIdle();
    const refusal = this.trimRefusal;
    if (refusal !== undefined) return refusal;
    this.#commitError = undefined;
    const { steps, ...out } = trimSteps(this.#ctx, n, "manual");
    this.#applyWindow(steps);
    this.#rethrowCommitError();
    return out;
  }

  #resolvePlan(): Result<PlanEntry[], { providerId: string; message: string }> {
    return this.#plan ??= resolvePlan(
      this.#agent,
      (id) => this.#deps.resolveProvider(id),
    );
  }

  #granted(): string[] {
    const narrowing = this.#deps.toolNarrowing;
    return (this.#agent.tools ?? []).filter((t) =>
      narrowing === undefined || narrowing.includes(t)
    );
  }

  #turn(
    plan: PlanEntry[],
    policy: TurnPolicy | undefined,
    controller: AbortController,
    tally: TurnTally,
  ): Promise<void> {
    return runTurnFlow(
      new TurnContext({
        tally,
        agent: this.#agent,
        system: this.#system,
        deps: this.#deps,
        threshold: this.#threshold,
        agentRef: this.agentRef,
        plan,
        policy,
        controller,
        ledger: this.#ledger,
        state: () => this.#ctx,
        apply: (steps) => this.#applyWindow(steps),
        summariser: (signal) => this.#summariser(signal),
        isCancelled: () => this.#cancelled,
        granted: this.#granted(),
        automatic: this.automaticCompactionAllowed,
        trimAllowed: this.trimRefusal === undefined,
        finish: (result, idle) => this.#finish(result, idle),
        renewSignal: () => {
          const c = new AbortController();
          this.#controller = c;
          return c.signal;
        },
        nextLocalTurnKey: () => ++this.#localTurnKey,
      }),
    );
  }

  #finish(result: TurnCoreResult, idle: boolean): void {
    if (result.kind === "cancelled" || this.#cancelled) return;
    this.#terminal = true;
    this.#outcome = { result, spend: this.#ledger.figures };
    const tally = this.#tally;
    const costs = tally?.costs ?? [];
    // The tally is done with here: its rows are handed over, not copied.
    if (result.kind === "success" && tally !== undefined) {
      const turn = tally.completed(result);
      this.#commit({ kind: "turn", turn, turnsUsed: this.#turnCount });
    } else if (costs.length > 0 || result.engaged) {
      // An engaged turn that failed still took its slot: hand it over.
      this.#commit({ kind: "spend", costs, turnsUsed: this.#turnCount });
    }
    // Handed over: a later cancel has nothing of this turn left to record.
    this.#tally = undefined;
    if (idle) this.#toIdle();
    this.#deps.emit(terminalDraft(result));
  }
}
