/**
 * The `SessionStore` interface. Synchronous on purpose:
 * `node:sqlite` is synchronous, and the host commits a turn while the
 * `session:turn_completed` event is being delivered, before anything else
 * can happen in that session.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import type { SessionMessage } from "../schema/message.ts";
import type {
  BoundaryMarker,
  CostEntry,
  ToolRound,
  TurnCommit,
} from "../schema/turn.ts";

export type { BoundaryMarker, CostEntry, ToolRound, TurnCommit };

/**
 * Row status of a session.
 */
export type SessionStatus = "active" | "idle" | "exported" | "ended";

/**
 * A stored session. Timestamps are ISO-8601.
 */
export interface AgentSessionRecord {
  /** Session id (UUID minted by the host). */
  id: string;
  /** The kebab agent id (`agent_slug`). */
  agentSlug: string;
  /** Catalog agent id, when the row has one. */
  agentId?: string;
  /** The agent exactly as authored at start (not re-validated on read). */
  agentSnapshot?: Agent;
  /** Derived from the first completed turn. */
  title?: string;
  /**
   * The stored `model_id` as is (a raw model or a catalog row id): the
   * model that answered the last committed turn, the configured primary
   * before one (a chat continued on another model lists that model).
   */
  modelId?: string;
  /** The authoritative session context (`context_json`). */
  context: SessionContext;
  /** Row status. */
  status: SessionStatus;
  /** Input tokens of completed turns (and compactions). */
  totalInputTokens: number;
  /** Output tokens of completed turns (and compactions). */
  totalOutputTokens: number;
  /** Realised spend in micro-cents (= sum of `session_costs`). */
  totalCostMicrocents: number;
  /** Estimated possibly-billed spend in micro-cents (never in the realised total). */
  totalConservativeMicrocents: number;
  /**
   * Provider-engaged turns over the session's whole life (what the hard
   * turn cap counts; compaction, trim and resume never lower it). Absent
   * on sessions written before it was kept.
   */
  turnsUsed?: number;
  /** Absolute path of the workflow an explicit export wrote. */
  exportedWorkflowPath?: string;
  /** Creation time, ISO-8601. */
  createdAt: string;
  /** Last write time, ISO-8601. */
  updatedAt: string;
  /** Soft-delete time, ISO-8601 (never set on a visible session). */
  deletedAt?: string;
}

/**
 * What a new session row is made from.
 */
export interface NewSession {
  /** Session id (UUID minted by the host). */
  id: string;
  /** The kebab agent id. */
  agentSlug: string;
  /** The agent exactly as authored, frozen for resume and export. */
  agentSnapshot?: Agent;
  /** The configured primary model (raw string). */
  modelId?: string;
  /** The session context. */
  context: SessionContext;
}

/**
 * One per-model spend row of a session, as `session_costs` holds it
 * (legacy and current rows of the same model summed).
 */
export interface ModelCostTotals {
  /** Raw provider model string. */
  model: string;
  /** Summed input tokens. */
  inputTokens: number;
  /** Summed output tokens. */
  outputTokens: number;
  /** Summed realised spend (micro-cents). */
  costMicrocents: number;
  /** Number of attempts recorded. */
  callCount: number;
  /** Attempts recorded with `priced: false`. */
  unpricedCalls: number;
  /** Summed prompt-cache reads (absent from stores that keep none). */
  cacheReadTokens?: number;
  /** Summed prompt-cache writes. */
  cacheWriteTokens?: number;
  /** The part of `costMicrocents` paid for cache reads. */
  cacheReadMicrocents?: number;
  /** The part of `costMicrocents` paid for cache writes. */
  cacheWriteMicrocents?: number;
  /** Attempts whose provider sent no token counts (their cost estimated). */
  usageUnknownCalls?: number;
}

/**
 * A session and all its rows, read in one transaction.
 */
export interface LoadedSession {
  /** The session row. */
  record: AgentSessionRecord;
  /** Every row, validated, in sequence order. */
  messages: SessionMessage[];
}

/**
 * Durable session storage. Implementations: `openSqliteStore` (the
 * `history.db` file) and `createMemoryStore` (tests, one-shot runs).
 * Every write is one transaction; a thrown error means nothing was written.
 */
export interface SessionStore {
  /** Inserts the session row (status `active`). */
  create(session: NewSession): AgentSessionRecord;
  /** Writes one completed turn atomically: rows, totals, costs, title. */
  commitTurn(sessionId: string, turn: TurnCommit): void;
  /**
   * Writes spend of a failed, aborted or cancelled turn (cost only), and
   * raises the stored turns used to `turnsUsed` when given.
   */
  recordCosts(sessionId: string, costs: CostEntry[], turnsUsed?: number): void;
  /**
   * Appends a boundary marker (a `system` row: the summary as one text
   * part, or no parts for a trim) dropping through
   * `slots[slots.length − keptTurnCount − 1]` of the persisted rows'
   * boundary slots; writes no row when nothing is dropped. In the same
   * transaction adds `tokensUsed` to the token totals and records `costs`.
   * Raw rows are never deleted. Optional: a store without it cannot
   * persist compactions (the host latches).
   *
   * @returns The marker's `droppedThroughSequence`, or `undefined` when
   * no row was written.
   */
  appendMarker?(sessionId: string, marker: BoundaryMarker): number | undefined;
  /** Advances and returns the session's effect turn key (never reused). */
  allocateTurnKey(sessionId: string): number;
  /** Sets `ended` (on cancel) or `active`. */
  setStatus(sessionId: string, status: "active" | "ended"): void;
  /**
   * Sets `exported` and the absolute workflow path. `updatedAt` is kept:
   * marking is not a change of the session, so exporting an unchanged
   * session twice gives the same bytes.
   */
  markExported(sessionId: string, workflowPath: string): void;
  /** Soft-deletes; returns `false` when no visible session has that id. */
  softDelete(sessionId: string): boolean;
  /** Visible sessions, newest `updatedAt` first (then id descending). */
  list(): AgentSessionRecord[];
  /** One visible session with all its rows, re-validated; or `undefined`. */
  load(sessionId: string): LoadedSession | undefined;
  /**
   * Per-model spend of a session (`session_costs`), in first-recorded
   * order; empty for an unknown id. Optional: a store without it cannot
   * show the per-model breakdown.
   */
  costs?(sessionId: string): ModelCostTotals[];
  /**
   * Spend per provider-engaged turn, by turn number (the session's
   * `turnsUsed` after that turn), in turn order: the recorded attempts of
   * each `commitTurn` and `recordCosts` given a `turnsUsed` (compactions'
   * spend is in no turn). Empty for an unknown id. Optional: a store
   * without it keeps no per-turn figures.
   */
  turnUsage?(sessionId: string): Array<{
    /** The turn's number among the session's provider-engaged turns. */
    turnNumber: number;
    /** Input tokens of its recorded attempts. */
    inputTokens: number;
    /** Output tokens of its recorded attempts. */
    outputTokens: number;
    /** Realised spend of its recorded attempts (micro-cents). */
    costMicrocents: number;
  }>;
  /**
   * Usage coverage, before egress: journals one provider invocation as
   * `pending` (durable before the call is sent). Optional, as are the other
   * coverage and lease methods: a store without them journals nothing and
   * leases nothing.
   *
   * @returns The journal id that settles it.
   * @throws {SessionNotFoundError} For an unknown session; an `Error`
   * when this handle's lease on the session was taken over.
   */
  beginInvocation?(
    sessionId: string,
    invocation: {
      /** A turn's request (any round) or a summariser pass. */
      purpose: "turn" | "summary";
      /** Provider id. */
      provider: string;
      /** Model id sent. */
      model: string;
      /**
       * Of a turn's request: the turn's number among the session's
       * provider-engaged turns. While the call is open (a process that
       * ended during it never resolves it), the session's turns used are
       * at least this.
       */
      turnNumber?: number;
    },
  ): string;
  /**
   * Resolves a pending invocation in one write: its coverage (`priced`,
   * `unpriced`; `no_usage`: it ended without reporting usage, counted as
   * zero; `not_sent`: it never left), tokens and money. A settled or
   * unknown id is left as it is. Its money counts as unrecorded until a
   * `commitTurn`, `recordCosts` or `appendMarker` records the same spend.
   */
  settleInvocation?(
    sessionId: string,
    settlement: {
      /** The id given to `beginInvocation`. */
      id: string;
      /** How much of the call's usage is known. */
      coverage: "priced" | "unpriced" | "no_usage" | "not_sent";
      /** Input tokens reported. */
      inputTokens: number;
      /** Output tokens reported. */
      outputTokens: number;
      /** Realised spend in micro-cents. */
      costMicrocents: number;
    },
  ): void;
  /**
   * The usage coverage of a session: the invocations still pending (a
   * process ended while they were open, so their spend is unknown and the
   * totals are "at least"), and the settled spend no turn has recorded yet
   * (e.g. a call made before a crash during its tool round). Empty for an
   * unknown id.
   */
  coverage?(sessionId: string): {
    /** Pending invocations, oldest first. */
    pending: Array<{
      /** The journal id. */
      id: string;
      /** A turn's request or a summariser pass. */
      purpose: "turn" | "summary";
      /** Provider id. */
      provider: string;
      /** Model id. */
      model: string;
      /** When it was journaled, ISO-8601. */
      startedAt: string;
    }>;
    /** Settled spend not yet in the session's totals (micro-cents). */
    unrecordedMicrocents: number;
  };
  /**
   * Takes the session's writer lease for `claim.holderId`, in one write: free,
   * already this holder's, or stale ({@linkcode SessionLease}) ⇒ taken
   * (`tookOver` is the stale lease replaced); held by a live holder ⇒
   * refused with that lease. While this handle holds it, every write to the
   * session checks the lease is still its own.
   *
   * @throws {SessionNotFoundError} For an unknown session.
   */
  acquireLease?(
    sessionId: string,
    claim: {
      /** A fresh id of this claim. */
      holderId: string;
      /** The holder's process id, when known. */
      pid?: number;
      /** The holder's host name, when known. */
      hostname?: string;
      /**
       * Whether a process of this host is alive (`undefined`: cannot
       * tell). Used only on a lease whose hostname equals the claim's.
       */
      isAlive?(pid: number): boolean | undefined;
    },
  ):
    | { ok: true; tookOver?: SessionLease }
    | { ok: false; heldBy: SessionLease };
  /**
   * Refreshes the lease's heartbeat.
   *
   * @returns `false` when `holderId` no longer holds it.
   */
  renewLease?(sessionId: string, holderId: string): boolean;
  /** Releases the lease if `holderId` holds it (else nothing). */
  releaseLease?(sessionId: string, holderId: string): void;
  /**
   * The session's stored writer lease, if any: a read that never waits
   * for the writer. A damaged row is returned with `damaged` set (see
   * {@linkcode SessionLease}), never thrown.
   */
  readLease?(sessionId: string): SessionLease | undefined;
  /**
   * Deletes the session's stored lease whoever holds it, a damaged row
   * included (releasing a stuck lease by hand; the holder, if alive, can
   * no longer write).
   *
   * @returns The lease removed, or `undefined` when there was none.
   */
  clearLease?(sessionId: string): SessionLease | undefined;
  /** Releases the handle. */
  close(): void;
}

/**
 * The asynchronous form of {@linkcode SessionStore}, for a store whose
 * driver cannot block (Postgres): the same methods, with the same
 * meaning, each returning a promise, and `asynchronous: true` telling the
 * two apart. A settled promise is a finished write; a rejected one wrote
 * nothing. The host awaits each durable step: the pending journal row
 * before the request leaves, the turn before `session:turn_completed` is
 * published, and no next turn before the commit settles.
 */
export type AsyncSessionStore =
  & {
    [K in keyof SessionStore]: SessionStore[K] extends
      ((...args: infer A) => infer R) | undefined
      ? undefined extends SessionStore[K]
        ? ((...args: A) => Promise<R>) | undefined
      : (...args: A) => Promise<R>
      : SessionStore[K];
  }
  & {
    /** Marks the asynchronous form. */
    readonly asynchronous: true;
  };

/**
 * A session's writer lease: one process writes a session at a time. The
 * holder refreshes `heartbeatAt` while it runs; a lease is stale, and may
 * be taken over, when its heartbeat is older than 60 seconds, or when its
 * holder ran on the claimant's host and that process is gone.
 */
export interface SessionLease {
  /** The claim's id. */
  holderId: string;
  /** The holder's process id, when known. */
  pid?: number;
  /** The holder's host name, when known. */
  hostname?: string;
  /** When it was taken, ISO-8601. */
  acquiredAt: string;
  /** The holder's last heartbeat, ISO-8601. */
  heartbeatAt: string;
  /**
   * Set when the stored row is damaged: the `table.column` found invalid.
   * The other fields are then what could be read (a time that cannot be
   * read is the empty string). A damaged lease is never taken over on its
   * own: it is released by hand (`relavium chat-release <id>`).
   */
  damaged?: string;
}

/**
 * Whether `store` is the asynchronous form (it says so with
 * `asynchronous: true`).
 *
 * @param store Either form.
 * @returns `true` for an {@linkcode AsyncSessionStore}.
 */
export function isAsyncStore(
  store: SessionStore | AsyncSessionStore,
): store is AsyncSessionStore {
  return (store as { asynchronous?: unknown }).asynchronous === true;
}
