/**
 * The persisted host (DECISIONS.md 11): opens or resumes one session on
 * one store, persists each turn when it completes, latches on a failed
 * write, and hands the stamped events to the caller.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import type { SessionEvent } from "../schema/event.ts";
import { err, ok, type Result } from "../schema/result.ts";
import type {
  Clock,
  EgressAttempt,
  IdSource,
  SessionDeps,
} from "../session/deps.ts";
import { createEventStamper } from "../session/events.ts";
import { AgentSession } from "../session/session.ts";
import { isValidResumeState } from "../session/resume_state.ts";
import { sessionError } from "../session/turn_errors.ts";
import type { EgressDecision } from "../tools/registry.ts";
import { reconstructSessionState } from "../store/projection.ts";
import type { SessionStore } from "../store/store.ts";
import { createTurnWriter } from "./turn_writer.ts";

/**
 * Session deps the host does not own (it supplies clock, ids, `emit` and
 * the turn-key reservation itself).
 */
export type HostSessionDeps = Omit<
  SessionDeps,
  "clock" | "ids" | "emit" | "reserveEffectTurnKey"
>;

/**
 * Options shared by {@linkcode openSession} and {@linkcode resumeSession}.
 */
export interface HostOptions {
  /** Where the session lives. */
  store: SessionStore;
  /** Epoch-ms clock for event timestamps. */
  clock: Clock;
  /** Id source for new sessions. */
  ids: IdSource;
  /** Engine capabilities. */
  deps: HostSessionDeps;
  /** Called with every stamped event, after it is persisted. */
  onEvent?(event: SessionEvent): void;
}

/**
 * Options of {@linkcode openSession}.
 */
export interface OpenSessionOptions extends HostOptions {
  /** The agent, frozen into the row's snapshot. */
  agent: Agent;
  /** Where the session works. */
  context: SessionContext;
  /** A chosen id; default a fresh one from `ids`. */
  sessionId?: string;
}

/**
 * Options of {@linkcode resumeSession}.
 */
export interface ResumeSessionOptions extends HostOptions {
  /** The stored session's id. */
  sessionId: string;
  /** Used only when the row has no agent snapshot. */
  agent?: Agent;
}

/**
 * A live session joined to its store.
 */
export interface PersistedSession {
  /** The engine instance. */
  readonly session: AgentSession;
  /** The session id. */
  readonly sessionId: string;
  /** Every stamped event, in order; closes after `session:cancelled`. */
  readonly events: ReadableStream<SessionEvent>;
  /** Whether a durable write failed (no further egress is allowed). */
  readonly latched: boolean;
  /** The failed write's error, when latched. */
  readonly latchError: unknown;
  /** Cancels the session if it is still live and closes the stream. */
  close(): void;
  /**
   * Emits `session:exported` on this session's stream, stamped like every
   * other event (the in-chat `/export`, export.md §5). The row is not
   * changed.
   *
   * @throws {TypeError} When the session is cancelled (its stream ended).
   */
  emitExported(workflowPath: string): void;
}

/**
 * Why a session could not be resumed.
 */
export type ResumeError =
  | { kind: "not_found"; sessionId: string }
  | { kind: "no_agent"; sessionId: string }
  | { kind: "invalid_state"; sessionId: string };

function join(
  options: HostOptions,
  sessionId: string,
  build: (deps: SessionDeps) => AgentSession,
): PersistedSession {
  const { store } = options;
  let controller: ReadableStreamDefaultController<SessionEvent> | undefined;
  let streamClosed = false;
  const events = new ReadableStream<SessionEvent>({
    start(c) {
      controller = c;
    },
  }, { highWaterMark: Number.POSITIVE_INFINITY });
  let latchError: unknown;
  const ref: { session?: AgentSession } = {};
  const writer = createTurnWriter({
    store,
    sessionId,
    exchange: () => ref.session?.lastCompletedExchange(),
    onLatch: (e) => {
      latchError = e;
    },
  });
  function closeStream(): void {
    if (streamClosed) return;
    streamClosed = true;
    controller?.close();
  }
  const emit = createEventStamper({
    sessionId,
    clock: options.clock,
    deliver(event) {
      writer.observe(event);
      if (!streamClosed) controller?.enqueue(event);
      options.onEvent?.(event);
      if (event.type === "session:cancelled") closeStream();
    },
  });
  const latchedRefusal: EgressDecision = {
    allow: false,
    error: sessionError(
      "internal",
      "The session store failed to write; resume the session to continue",
    ),
  };
  const user = options.deps;
  const deps: SessionDeps = {
    ...user,
    clock: options.clock,
    ids: options.ids,
    emit,
    preEgress(attempt: EgressAttempt): EgressDecision {
      if (writer.latched) return latchedRefusal;
      return user.preEgress?.(attempt) ?? { allow: true };
    },
    reserveEffectTurnKey(): number {
      if (writer.latched) throw new Error("The session store is latched");
      return store.allocateTurnKey(sessionId);
    },
  };
  const live = build(deps);
  ref.session = live;
  return {
    session: live,
    sessionId,
    events,
    get latched(): boolean {
      return writer.latched;
    },
    get latchError(): unknown {
      return latchError;
    },
    close(): void {
      if (live.state !== "cancelled") live.cancel();
      closeStream();
    },
    emitExported(workflowPath: string): void {
      if (streamClosed || live.state === "cancelled") {
        throw new TypeError(
          "Cannot emit session:exported: the session is cancelled",
        );
      }
      emit({ type: "session:exported", workflowPath });
    },
  };
}

/**
 * Creates a session row, starts the session (`session:started`) and joins
 * it to the store.
 *
 * @param options Store, agent, context, clock, ids and deps.
 * @returns The live session.
 * @throws Whatever the store throws when the row cannot be written.
 *
 * @example Open, send, read
 * ```ts
 * import { openSession } from "@relavium/session/host";
 * import { createMemoryStore } from "@relavium/session/store";
 * import { createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const provider = createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "Hello" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 3, outputTokens: 1 } },
 * ]] });
 * const store = createMemoryStore();
 * const live = openSession({
 *   store, clock: { now: () => 0 }, ids: () => "s1",
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 *   context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   deps: { resolveProvider: () => provider, keyFor: () => "", sleep: () => Promise.resolve() },
 * });
 * await live.session.sendMessage("Hi");
 * live.close();
 * const types = [];
 * for await (const e of live.events) types.push(e.type);
 * assert.equal(types.at(-1), "session:cancelled");
 * assert.equal(store.load("s1")?.messages.length, 2);
 * ```
 */
export function openSession(options: OpenSessionOptions): PersistedSession {
  const sessionId = options.sessionId ?? options.ids();
  options.store.create({
    id: sessionId,
    agentSlug: options.agent.id,
    agentSnapshot: options.agent,
    modelId: options.agent.model,
    context: options.context,
  });
  const live = join(options, sessionId, (deps) =>
    new AgentSession({
      sessionId,
      agentRef: options.agent.id,
      agent: options.agent,
      context: options.context,
      deps,
    }));
  live.session.start();
  return live;
}

/**
 * Loads a stored session, rebuilds its state and joins it to the store.
 * Lands idle, without `session:started`; its event stream starts at 0.
 *
 * @param options Store, session id, clock, ids and deps.
 * @returns The live session, or why it could not be resumed.
 *
 * @example Unknown id
 * ```ts
 * import { resumeSession } from "@relavium/session/host";
 * import { createMemoryStore } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const r = resumeSession({
 *   store: createMemoryStore(), sessionId: "nope", clock: { now: () => 0 }, ids: () => "x",
 *   deps: { resolveProvider: () => undefined, keyFor: () => "", sleep: () => Promise.resolve() },
 * });
 * assert.deepEqual(r, { ok: false, error: { kind: "not_found", sessionId: "nope" } });
 * ```
 */
export function resumeSession(
  options: ResumeSessionOptions,
): Result<PersistedSession, ResumeError> {
  const { sessionId } = options;
  const loaded = options.store.load(sessionId);
  if (loaded === undefined) return err({ kind: "not_found", sessionId });
  const agent = loaded.record.agentSnapshot ?? options.agent;
  if (agent === undefined) return err({ kind: "no_agent", sessionId });
  const state = reconstructSessionState(loaded.record, loaded.messages);
  if (!isValidResumeState(state)) {
    return err({ kind: "invalid_state", sessionId });
  }
  return ok(join(options, sessionId, (deps) =>
    AgentSession.resume({
      sessionId,
      agentRef: loaded.record.agentSlug,
      agent,
      context: loaded.record.context,
      deps,
    }, state)));
}
