/**
 * `AgentSession`: one agent, one memoised model plan, a multi-turn
 * conversation. It never touches storage: it emits
 * envelope-free events into `deps.emit`, and a host persists them.
 *
 * @module
 */
import { type Agent, type AgentMemory, parseAgent } from "../schema/agent.ts";
import { parseSessionContext, type SessionContext } from "../schema/context.ts";
import type { Result } from "../schema/result.ts";
import type { ResumeState } from "../schema/resume.ts";
import type { PlanEntry } from "../llm/chain.ts";
import { resolvePlan } from "../llm/plan.ts";
import type { TurnPolicy, UserCommandOutcome } from "../tools/registry.ts";
import { flatDeps, type SessionDeps } from "./deps.ts";
import { CONTROLLER_FAILED, newController } from "./controller.ts";
import { SessionStateError } from "./errors.ts";
import { type SpendFigures, SpendLedger } from "./ledger.ts";
import {
  automaticCompactionFor,
  compactionRefusalFor,
  type CompactionResult,
  manualCompactionCheck,
  type MemoryPolicyRefusal,
  trimRefusalFor,
  type TrimResult,
} from "./memory_policy.ts";
import { requireSystemPrompt } from "./prompt.ts";
import { contextOf, isValidResumeState } from "./resume_state.ts";
import {
  type AgentSessionParams,
  checkContextDeps,
  checked,
  copyTranscript,
  grantedTools,
  modeSettingPolicy,
  refusedTurn,
  type SessionState,
  type Transcript,
  turnGate,
} from "./session_types.ts";
import type { TurnCoreResult } from "./turn_result.ts";
import { runTurnFlow, terminalDraft } from "./turn_flow.ts";
import { spendBetween, toTurnResult, type TurnResult } from "./turn_result.ts";
import { TurnContext } from "./turn_context.ts";
import { sessionError } from "./turn_errors.ts";
import { TurnTally } from "./turn_tally.ts";
import { SessionWindow } from "./session_window.ts";

/** A `!` command whose runner module could not be loaded. */
const USER_COMMAND_UNLOADABLE = "the user command runner could not be loaded";

type PlanResult = Result<PlanEntry[], { providerId: string; message: string }>;
// A turn's final result and the ledger's figures at its terminal.
type TurnOutcome = { result: TurnCoreResult; spend: SpendFigures };

export {
  type AgentSessionParams,
  DEFAULT_MAX_TURNS,
  type SessionState,
} from "./session_types.ts";

/**
 * One multi-turn conversation with one agent.
 *
 * One scripted turn, committed as a value, is the example of the
 * `./session` entry.
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
  #window: SessionWindow;
  #turnCount = 0;
  #conservative = 0;
  #policy: TurnPolicy | undefined;
  /** The policy of the `mode` setting; what clearing the turn policy restores. */
  #modePolicy: TurnPolicy | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  #plan: PlanResult | undefined;
  #localTurnKey = 0;
  #terminal = false;
  #outcome: TurnOutcome | undefined;
  #tally: TurnTally | undefined;

  /**
   * Builds a session in state `created`.
   *
   * @param params Session id, agent ref, agent, context, effects,
   * settings and hooks.
   * @throws {TypeError} When the agent or the context does not validate
   * (the message names each key path, as `openSession` does), the system
   * prompt references a missing `{{ctx.*}}` variable, or a setting is out
   * of range (`compactThreshold` outside (0, 1], a non-positive
   * `maxMessages` or `maxTokensEstimate`, an invalid `budget`, a `mode`
   * that is not a chat mode).
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
    this.#modePolicy = modeSettingPolicy(deps);
    this.#policy = this.#modePolicy;
    this.#deps = deps;
    this.#window = new SessionWindow(deps, () => this.#cancelled);
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
    s.#window.state = contextOf(state);
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
    return copyTranscript(this.#window.state);
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
   * after cancel. Without one, the `mode` setting's policy applies, and
   * without that a session is `ask` with no approver: read-only tools run
   * and every governed action is refused `no_approval_hook`.
   *
   * @param policy The policy, or `undefined` to go back to the default.
   */
  setTurnPolicy(policy: TurnPolicy | undefined): void {
    if (this.#state === "cancelled") return;
    this.#policy = policy ?? this.#modePolicy;
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
    this.#window.end(this.#tally?.costs ?? [], this.#turnCount);
    this.#tally = undefined;
    this.#deps.emit({ type: "session:cancelled" });
  }

  #checkIdle(): void {
    if (this.#state === "created") throw new SessionStateError("not_started");
    if (this.#state !== "idle") throw new SessionStateError("not_active");
  }

  /** Idle → running, with a fresh controller unless the factory failed. */
  #begin(): AbortController | undefined {
    this.#checkIdle();
    this.#state = "running";
    return (this.#controller = newController(this.#deps));
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
    // No controller (the factory failed): the turn ends `internal` at once.
    const controller = this.#begin();
    this.#terminal = false;
    this.#outcome = undefined;
    this.#window.resetCommitError();
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
        const gate = controller === undefined
          ? sessionError("internal", CONTROLLER_FAILED)
          : turnGate(this.#turnCount, this.#deps.maxTurns, plan);
        if (!plan.ok || gate !== undefined || controller === undefined) {
          this.#finish(refusedTurn(gate), true);
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
        this.#finish(tally.internalError(), true);
      } catch (error) {
        thrown ??= { error };
      }
    }
    if (this.#tally === tally) this.#tally = undefined;
    this.#toIdle();
    if (thrown !== undefined) throw thrown.error;
    this.#window.rethrowCommitError();
    // Set by #finish during the turn (through callbacks).
    const outcome = this.#outcome as TurnOutcome | undefined;
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
      if (controller === undefined) {
        return { kind: "failed", message: CONTROLLER_FAILED };
      }
      // Loaded on the first `!` command: a session without one never
      // evaluates it. A failed load is this command's failure, named.
      const flow = await import("./user_command.ts").catch(() => undefined);
      if (flow === undefined) {
        return { kind: "failed", message: USER_COMMAND_UNLOADABLE };
      }
      return await flow.runUserCommandFlow({
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
    if (this.#cancelled) return;
    this.#state = "idle";
    this.#controller = undefined;
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
    const refused = manualCompactionCheck(
      this.compactionRefusal,
      this.#window.state.spans,
      () => this.#resolvePlan(),
    );
    if (refused.kind !== "go") return refused;
    const plan = refused.plan;
    const controller = this.#begin();
    this.#window.resetCommitError();
    try {
      if (controller === undefined) {
        return { kind: "failed", message: CONTROLLER_FAILED };
      }
      const tools = this.#deps.tools?.advertise(
        grantedTools(this.#agent, this.#deps.toolNarrowing),
        this.#policy,
      ) ?? [];
      return await this.#window.compact({
        agent: this.#agent,
        system: this.#system,
        deps: this.#deps,
        threshold: this.#threshold,
        plan,
        tools,
      }, {
        signal: controller.signal,
        ledger: this.#ledger,
        turnsUsed: this.#turnCount,
      });
    } finally {
      this.#toIdle();
      this.#window.rethrowCommitError();
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
    this.#window.resetCommitError();
    const out = this.#window.trim(n, this.#turnCount);
    this.#window.rethrowCommitError();
    return out;
  }

  #resolvePlan(): PlanResult {
    return this.#plan ??= resolvePlan(
      this.#agent,
      (id) => this.#deps.resolveProvider(id),
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
        window: this.#window,
        turnsUsed: () => this.#turnCount,
        isCancelled: () => this.#cancelled,
        granted: grantedTools(this.#agent, this.#deps.toolNarrowing),
        automatic: this.automaticCompactionAllowed,
        trimAllowed: this.trimRefusal === undefined,
        finish: (result, idle) => this.#finish(result, idle),
        renewSignal: () =>
          (this.#controller = newController(this.#deps))?.signal,
        nextLocalTurnKey: () => ++this.#localTurnKey,
      }),
    );
  }

  #finish(result: TurnCoreResult, idle: boolean): void {
    if (result.kind === "cancelled" || this.#cancelled) return;
    this.#terminal = true;
    this.#outcome = { result, spend: this.#ledger.figures };
    const work = this.#tally?.handover(result, this.#turnCount);
    if (work !== undefined) this.#window.commit(work);
    // Handed over: a later cancel has nothing of this turn left to record.
    this.#tally = undefined;
    if (idle) this.#toIdle();
    this.#deps.emit(terminalDraft(result));
  }
}
