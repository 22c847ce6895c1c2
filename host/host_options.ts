/**
 * What the host's openers take and give: the options of `openSession`
 * and `resumeSession` (generic in the form of the store), and the live
 * session joined to its store.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import type { SessionEvent, SessionEventDraft } from "../schema/event.ts";
import type { SessionHooks, SessionSettings } from "../session/deps.ts";
import type { AgentSession } from "../session/session.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AsyncSessionStore, SessionStore } from "../store/store.ts";
import type { EventChannel } from "./event_channel.ts";
import type { SessionRuntime } from "./runtime.ts";

/**
 * Options shared by {@linkcode openSession} and {@linkcode resumeSession};
 * `S` is the form of the store (synchronous by default).
 */
export interface HostOptions<
  S extends SessionStore | AsyncSessionStore = SessionStore,
> {
  /**
   * Where the session lives. With an asynchronous store (Postgres) the
   * opener returns a promise, and each durable step is awaited: a request
   * leaves only once its journal row and the writes before it settled, and
   * an event that announces a write is published once the write settled.
   */
  store: S;
  /** The effects: clock, ids, sleep, fetch, catalog, keys (see `denoRuntime`). */
  runtime: SessionRuntime;
  /** The tools the agent may call; absent ⇒ none are advertised. */
  tools?: ToolRegistry;
  /** Engine settings (caps, compaction, the cost cap, interactivity). */
  settings?: SessionSettings;
  /**
   * Hooks of your own (egress checks, cost updates, compaction start, the
   * budget flush). The host owns the event sink, the commit of finished
   * work and the turn keys.
   */
  hooks?: Omit<SessionHooks, "emit" | "commit" | "reserveEffectTurnKey">;
  /**
   * Capacity of the event channel; default 10,000 events. With nobody
   * reading, the oldest unread events are dropped past it (counted in
   * `events.dropped`); persistence never depends on the channel.
   */
  eventBuffer?: number;
  /**
   * Secret values (API keys) replaced by `[redacted]` in every event and
   * every stored row (user text, final text, summaries), beside strings
   * shaped like provider keys (`sk-…`, `sk-ant-…`, `AIza…`, …), which
   * are always redacted. Values shorter than 8 characters are ignored.
   */
  secrets?: readonly string[];
}

/**
 * Options of {@linkcode openSession}.
 */
export interface OpenSessionOptions<
  S extends SessionStore | AsyncSessionStore = SessionStore,
> extends HostOptions<S> {
  /** The agent, validated, then frozen into the row's snapshot. */
  agent: Agent;
  /**
   * Where the session works; default the runtime's `workingDir` with
   * file access `sandboxed` to it.
   */
  context?: SessionContext;
  /** A chosen id; default a fresh one from the runtime's `ids`. */
  sessionId?: string;
}

/**
 * Options of {@linkcode resumeSession}.
 */
export interface ResumeSessionOptions<
  S extends SessionStore | AsyncSessionStore = SessionStore,
> extends HostOptions<S> {
  /** The stored session's id. */
  sessionId: string;
  /** Used only when the row has no agent snapshot. */
  agent?: Agent;
  /**
   * Continue on another model: same session id and history, a new
   * instance whose plan starts at this model (its provider: `provider`,
   * else the catalog's), with the agent's fallback chain rebuilt without
   * that model. The stored agent snapshot is unchanged.
   */
  reseat?: { model: string; provider?: string };
}

/**
 * A live session joined to its store. `using` (or `[Symbol.dispose]()`)
 * closes it.
 */
export interface PersistedSession extends Disposable {
  /** The engine instance. */
  readonly session: AgentSession;
  /** The session id. */
  readonly sessionId: string;
  /**
   * Every stamped event, in order, for one reader; the channel ends after
   * `session:cancelled`. Memory stays bounded when nobody reads: past its
   * capacity (`eventBuffer`) the oldest unread events are dropped and
   * counted in `events.dropped`. Turns are persisted either way.
   */
  readonly events: EventChannel<SessionEvent>;
  /** Whether a durable write failed (no further egress is allowed). */
  readonly latched: boolean;
  /** The failed write's error, when latched. */
  readonly latchError: unknown;
  /** Cancels the session if it is still live and ends the event channel. */
  close(): void;
  /**
   * Publishes `session:exported` on this session's channel, stamped like
   * every other event (an in-chat export). The row is not changed.
   *
   * @throws {TypeError} When the session is cancelled (its channel ended).
   */
  emitExported(workflowPath: string): void;
  /**
   * Publishes a `session:mcp_server` event on this session's channel,
   * stamped like every other event: the session's MCP servers connect
   * before it opens and close when it ends.
   *
   * @throws {TypeError} When the session is cancelled (its channel ended).
   */
  emitMcpServer(
    event: Extract<SessionEventDraft, { type: "session:mcp_server" }>,
  ): void;
}
