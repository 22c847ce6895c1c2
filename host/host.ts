/**
 * The persisted host: opens or resumes one session on one store, persists
 * each turn when it completes, latches on a failed write, and hands the
 * stamped events to the caller through one bounded channel.
 *
 * @module
 */
import { providersFor } from "./provider_source.ts";
import type { Agent } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import type { SessionEvent } from "../schema/event.ts";
import { err, ok, type Result } from "../schema/result.ts";
import type {
  EgressAttempt,
  SessionEffects,
  SessionHooks,
} from "../session/deps.ts";
import { createEventStamper } from "../session/events.ts";
import {
  checkedAgent,
  type ResumeError,
  type ResumePlan,
  resumePlan,
} from "./resume_plan.ts";
import { AgentSession, type AgentSessionParams } from "../session/session.ts";
import { sessionError } from "../session/turn_errors.ts";
import type { EgressDecision } from "../tools/registry.ts";
import {
  createEventRedactor,
  createSecretScreen,
  redactStrings,
} from "./secrets.ts";
import {
  type AsyncSessionStore,
  isAsyncStore,
  type SessionLease,
  type SessionStore,
} from "../store/store.ts";
import { EventChannel } from "./event_channel.ts";
import { createTurnWriter } from "./turn_writer.ts";
import {
  coverageHooks,
  type HeldLease,
  holdLease,
  holdLeaseAsync,
} from "./lease.ts";
import { afterWrites } from "./durable_egress.ts";
import type {
  HostOptions,
  OpenSessionOptions,
  PersistedSession,
  ResumeSessionOptions,
} from "./host_options.ts";

export type {
  HostOptions,
  OpenSessionOptions,
  PersistedSession,
  ResumeSessionOptions,
} from "./host_options.ts";
export type { ResumeError } from "./resume_plan.ts";

function join(
  options: HostOptions<SessionStore | AsyncSessionStore>,
  sessionId: string,
  agent: Agent,
  held: { lease: HeldLease },
  build: (
    parts: Pick<AgentSessionParams, "effects" | "settings" | "hooks">,
  ) => AgentSession,
): PersistedSession {
  const { store, runtime } = options;
  const events = new EventChannel<SessionEvent>(
    options.eventBuffer === undefined ? {} : { capacity: options.eventBuffer },
  );
  let latchError: unknown;
  // The one redaction of what leaves the session as data: events and rows.
  const { redact } = createSecretScreen(options.secrets ?? []);
  const queued = isAsyncStore(store);
  const writer = createTurnWriter({
    store,
    sessionId,
    onLatch: (e) => {
      latchError = e;
    },
  });
  // Drafts are redacted, then stamped: a delta's carried tail goes out as
  // a delta of its own, numbered in order.
  const emit = createEventRedactor(
    options.secrets ?? [],
    createEventStamper({
      sessionId,
      clock: runtime.clock,
      // After the writes queued before it (at once on a synchronous
      // store): an event never announces a write that has not settled.
      deliver: (event) => {
        // On an asynchronous store the lease is released, in order after
        // the cancel's writes, before the channel ends: a reader that saw
        // the end may resume the session at once.
        if (event.type === "session:cancelled" && queued) {
          writer.write(() => held.lease.release());
        }
        writer.after(() => {
          events.publish(event);
          if (event.type === "session:cancelled") events.close();
        });
      },
    }),
  );
  const latchedRefusal: EgressDecision = {
    allow: false,
    error: sessionError(
      "internal",
      "The session store failed to write; resume the session to continue",
    ),
  };
  const user = options.hooks ?? {};
  // An asynchronous store's next effect turn key, taken ahead (a key is
  // handed out only once it is durable): at open, again once one is handed
  // out, and before each request (one may lead to a tool call).
  let nextKey: number | undefined;
  const takeKey = async (): Promise<void> => {
    nextKey ??= await store.allocateTurnKey(sessionId);
  };
  if (queued) writer.write(takeKey);
  const resolveProvider = providersFor(runtime, agent);
  const effects: SessionEffects = {
    clock: runtime.clock,
    ids: runtime.ids,
    resolveProvider: queued
      ? afterWrites(resolveProvider, async () => {
        await writer.settled();
        await takeKey();
      })
      : resolveProvider,
    keyFor: (id) => runtime.keyFor(id),
    sleep: (ms, signal) => runtime.sleep(ms, signal),
    catalog: runtime.catalog,
    ...(runtime.newAbortController === undefined
      ? {}
      : { newAbortController: runtime.newAbortController.bind(runtime) }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  };
  const coverage = coverageHooks(store, sessionId, held.lease, writer);
  // A provider call is journaled before it leaves (the journal entry
  // checks the lease where the store fences its writes with it).
  const journaled = coverage.invocationStarted !== undefined;
  const hooks: SessionHooks = {
    ...user,
    emit,
    commit: (work) => writer.commit(redactStrings(work, redact)),
    preEgress(attempt: EgressAttempt): EgressDecision {
      // Another writer took the session over: named, nothing more leaves.
      const lost = held.lease.check(
        journaled && attempt.kind === "provider",
      );
      if (lost !== undefined) {
        return { allow: false, error: sessionError("internal", lost) };
      }
      if (writer.latched) return latchedRefusal;
      return user.preEgress?.(attempt) ?? { allow: true };
    },
    reserveEffectTurnKey(): number {
      if (writer.latched) throw new Error("The session store is latched");
      if (queued) {
        const key = nextKey;
        if (key === undefined) {
          throw new Error("No effect turn key is ready: nothing was run");
        }
        nextKey = undefined;
        writer.write(takeKey);
        return key;
      }
      try {
        return (store as SessionStore).allocateTurnKey(sessionId);
      } catch (e) {
        // No key, no effect identity: stop writing, as for a failed commit.
        writer.latch(e);
        throw e;
      }
    },
    ...coverage,
  };
  let live: AgentSession;
  try {
    live = build({
      effects,
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      hooks,
    });
  } catch (error) {
    held.lease.release();
    throw error;
  }
  const close = (): void => {
    if (live.state !== "cancelled") live.cancel();
    // After the cancel's writes (at once on a synchronous store).
    writer.after(() => {
      events.close();
      held.lease.release();
    });
  };
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
    close,
    [Symbol.dispose]: close,
    emitExported(workflowPath: string): void {
      if (events.closed || live.state === "cancelled") {
        throw new TypeError(
          "Cannot emit session:exported: the session is cancelled",
        );
      }
      emit({ type: "session:exported", workflowPath });
    },
    emitMcpServer(event): void {
      if (events.closed || live.state === "cancelled") {
        throw new TypeError(
          "Cannot emit session:mcp_server: the session is cancelled",
        );
      }
      emit(event);
    },
  };
}

/**
 * Creates a session row, starts the session (`session:started`) and joins
 * it to the store. Each completed turn is written as one transaction.
 *
 * The session holds its store's writer lease until `close()` (see
 * {@linkcode resumeSession}), and each provider call is journaled in the
 * store before it leaves and settled after it, so a crash mid-call leaves
 * it pending (its spend unknown) instead of lost.
 *
 * @param options Store, runtime, agent; optionally context, id, tools,
 * settings and the event channel's capacity.
 * @returns The live session.
 * @throws {InvalidAgentError} When the agent does not validate (the
 * message names each key path, e.g. `system_prompt`).
 * @throws Whatever the store throws when the row cannot be written, or an
 * `Error` naming the holder when another writer took the new session's
 * lease first.
 *
 * @example One turn from a cassette, persisted, with its events
 * ```ts
 * import { denoRuntime, openSession } from "@relavium/session/host";
 * import { parseCassette } from "@relavium/session/llm";
 * import { createMemoryStore } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const cassette = parseCassette(JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [[
 *   { type: "text_delta", text: "Hello!" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 3, outputTokens: 1 } },
 * ]] }), "hello.json");
 * assert.ok(cassette.ok);
 * const store = createMemoryStore();
 * using live = openSession({
 *   store, runtime: denoRuntime({ cassette: cassette.value }),
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 * });
 * const result = await live.session.sendMessage("Hi");
 * assert.deepEqual([result.kind, result.text], ["completed", "Hello!"]);
 * assert.ok(result.costMicrocents > 0, "the bundled catalog prices the turn");
 * live.close();
 * const types: string[] = [];
 * for await (const e of live.events) types.push(e.type);
 * assert.equal(types.at(-1), "session:cancelled");
 * assert.equal(store.load(live.sessionId)?.messages.length, 2);
 * ```
 */
export function openSession(
  options: OpenSessionOptions,
): PersistedSession;
/**
 * {@linkcode openSession} on an asynchronous store (Postgres): the row
 * and the lease are written before the promise settles.
 *
 * @param options As above, with an asynchronous store.
 * @returns The live session, once its row and lease are written.
 */
export function openSession(
  options: OpenSessionOptions<AsyncSessionStore>,
): Promise<PersistedSession>;
/**
 * {@linkcode openSession} on a store of either form: `await` the answer.
 *
 * @param options As above, with either form of store.
 * @returns The live session, or a promise of it (asynchronous store).
 */
export function openSession(
  options: OpenSessionOptions<SessionStore | AsyncSessionStore>,
): PersistedSession | Promise<PersistedSession>;
export function openSession(
  options: OpenSessionOptions<SessionStore | AsyncSessionStore>,
): PersistedSession | Promise<PersistedSession> {
  const agent = checkedAgent(options.agent);
  const { runtime, store } = options;
  const context: SessionContext = options.context ??
    { workingDir: runtime.workingDir, fsScopeTier: "sandboxed" };
  const sessionId = options.sessionId ?? runtime.ids();
  const row = {
    id: sessionId,
    agentSlug: agent.id,
    agentSnapshot: agent,
    modelId: agent.model,
    context,
  };
  const start = (lease: HeldLease): PersistedSession => {
    const live = join(
      options,
      sessionId,
      agent,
      { lease },
      (parts) =>
        new AgentSession({
          sessionId,
          agentRef: agent.id,
          agent,
          context,
          ...parts,
        }),
    );
    live.session.start();
    return live;
  };
  if (isAsyncStore(store)) {
    return (async () => {
      await store.create(row);
      const held = await holdLeaseAsync(store, sessionId, runtime);
      if (!held.ok) throw new Error(held.message);
      return start(held.lease);
    })();
  }
  store.create(row);
  const held = holdLease(store, sessionId, runtime);
  if (!held.ok) throw new Error(held.message);
  return start(held.lease);
}

/**
 * Loads a stored session, rebuilds its state and joins it to the store.
 * Lands idle, without `session:started`; its events start at sequence 0.
 * With `reseat`, the session continues on another model.
 *
 * One writer per session: the resumed session holds the store's writer
 * lease (its heartbeat refreshed every 15 seconds) until `close()`. While
 * another live writer holds it the resume is refused (`held`, naming the
 * holder); a lease whose heartbeat is older than 60 seconds, or whose
 * process on this host is gone, is taken over. The session adopts the
 * stored count of provider calls left pending by earlier runs
 * (`cost:updated` reports them as `unaccountedCalls`).
 *
 * @param options Store, runtime and session id; optionally a fallback
 * agent, a reseat, tools, settings and the channel's capacity.
 * @returns The live session, or why it could not be resumed.
 * @throws {InvalidAgentError} When the fallback agent is used and does
 * not validate.
 * @throws Whatever the store throws reading the lease (a corrupt row).
 *
 * @example Unknown id
 * ```ts
 * import { denoRuntime, resumeSession } from "@relavium/session/host";
 * import { createMemoryStore } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const r = resumeSession({ store: createMemoryStore(), runtime: denoRuntime(), sessionId: "nope" });
 * assert.deepEqual(r, { ok: false, error: { kind: "not_found", sessionId: "nope" } });
 * ```
 */
export function resumeSession(
  options: ResumeSessionOptions,
): Result<PersistedSession, ResumeError>;
/**
 * {@linkcode resumeSession} on an asynchronous store (Postgres): the rows
 * are read and the lease taken before the promise settles.
 *
 * @param options As above, with an asynchronous store.
 * @returns The live session, or why it could not be resumed.
 */
export function resumeSession(
  options: ResumeSessionOptions<AsyncSessionStore>,
): Promise<Result<PersistedSession, ResumeError>>;
/**
 * {@linkcode resumeSession} on a store of either form: `await` the answer.
 *
 * @param options As above, with either form of store.
 * @returns The live session or why not, or a promise of it (asynchronous
 * store).
 */
export function resumeSession(
  options: ResumeSessionOptions<SessionStore | AsyncSessionStore>,
):
  | Result<PersistedSession, ResumeError>
  | Promise<Result<PersistedSession, ResumeError>>;
export function resumeSession(
  options: ResumeSessionOptions<SessionStore | AsyncSessionStore>,
):
  | Result<PersistedSession, ResumeError>
  | Promise<Result<PersistedSession, ResumeError>> {
  const { sessionId, store } = options;
  if (isAsyncStore(store)) {
    return (async () => {
      const loaded = await store.load(sessionId);
      const pending = loaded === undefined
        ? 0
        : (await store.coverage?.(sessionId))?.pending.length ?? 0;
      const plan = resumePlan(options, loaded, pending);
      if (!plan.ok) return plan;
      const held = await holdLeaseAsync(store, sessionId, options.runtime);
      return resumed(options, plan.value, held);
    })();
  }
  const loaded = store.load(sessionId);
  const pending = loaded === undefined
    ? 0
    : store.coverage?.(sessionId).pending.length ?? 0;
  const plan = resumePlan(options, loaded, pending);
  if (!plan.ok) return plan;
  return resumed(
    options,
    plan.value,
    holdLease(store, sessionId, options.runtime),
  );
}

function resumed(
  options: ResumeSessionOptions<SessionStore | AsyncSessionStore>,
  plan: ResumePlan,
  held:
    | { ok: true; lease: HeldLease }
    | { ok: false; heldBy: SessionLease; message: string },
): Result<PersistedSession, ResumeError> {
  const { sessionId } = options;
  if (!held.ok) {
    const { message } = held;
    return err({ kind: "held", sessionId, heldBy: held.heldBy, message });
  }
  const { loaded, agent, state } = plan;
  return ok(
    join(
      options,
      sessionId,
      agent,
      { lease: held.lease },
      (parts) =>
        AgentSession.resume({
          sessionId,
          agentRef: loaded.record.agentSlug,
          agent,
          context: loaded.record.context,
          ...parts,
        }, state),
    ),
  );
}
