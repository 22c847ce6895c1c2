/**
 * The Postgres store: the asynchronous form of the store contract on a
 * connection pool. Each write is one call of a server-side function (one
 * round trip, one transaction); while this handle holds a session's lease
 * every write carries its `(holder, epoch)` and the database refuses it,
 * writing nothing, once another writer took the lease over.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { checkNewSession } from "../record_check.ts";
import {
  SessionMessageBoundaryError,
  SessionNotFoundError,
  SessionRecordError,
} from "../errors.ts";
import { decodeSessionRow, type SessionRow } from "../record_codec.ts";
import { checkMessage } from "../message_codec.ts";
import { markerBoundary, markerContent } from "../markers.ts";
import type {
  AgentSessionRecord,
  AsyncSessionStore,
  BoundaryMarker,
  CostEntry,
  LoadedSession,
  ModelCostTotals,
  NewSession,
  SessionLease,
  TurnCommit,
} from "../store.ts";
import { deriveTitle } from "../title.ts";
import {
  checkInvocationStart,
  checkSettlement,
  type InvocationSettlement,
  type InvocationStart,
  type UsageCoverage,
} from "../coverage_check.ts";
import {
  isStaleLease,
  LEASE_STALE_MS,
  type LeaseAnswer,
  type LeaseClaim,
  leaseLostError,
} from "../lease_policy.ts";
import { seedTurnKey } from "../turn_key.ts";
import { checkCost, checkTurnsUsed, planTurnRows } from "../turn_plan.ts";
import {
  costJson,
  LEASE_LOST_STATE,
  MOVED_STATE,
  NOT_FOUND_STATE,
} from "./_ddl.ts";
import type postgres from "postgres";
import { scrubbed, type Sql } from "./_connect.ts";
import {
  costTotals,
  coverageOf,
  leaseRow,
  listSessions,
  loadSession,
  type StoredLease,
  turnUsageOf,
} from "./_reads.ts";
import { type PgEventTable, pgEventTable } from "./_events.ts";

/** A lease this handle holds. */
interface Held {
  holderId: string;
  epoch: number;
}

/** One argument of a fenced write: a column value or a jsonb body. */
type FenceArg = postgres.ParameterOrJSON<never>;

/**
 * One Postgres store handle (`openPostgresStore` opens it).
 */
export class PostgresSessionStore implements AsyncSessionStore {
  readonly asynchronous = true as const;
  readonly #sql: Sql;
  readonly #secrets: readonly string[];
  readonly #clock: { now(): number };
  readonly #ids: () => string;
  readonly #held = new Map<string, Held>();

  constructor(
    sql: Sql,
    secrets: readonly string[],
    options: { clock?: { now(): number }; ids?: () => string },
  ) {
    this.#sql = sql;
    this.#secrets = secrets;
    this.#clock = options.clock ?? { now: () => Date.now() };
    this.#ids = options.ids ?? (() => crypto.randomUUID());
  }

  /** Runs a query; a driver error leaves as a named or scrubbed error. */
  async #run<T>(
    sessionId: string | undefined,
    query: (sql: Sql) => Promise<T>,
  ): Promise<T> {
    try {
      return await query(this.#sql);
    } catch (error) {
      // A row decoded as damaged is named as SQLite's store names it.
      if (
        error instanceof SessionMessageBoundaryError ||
        error instanceof SessionRecordError
      ) throw error;
      const code = (error as { code?: unknown } | null)?.code;
      if (code === NOT_FOUND_STATE) throw new SessionNotFoundError();
      if (code === LEASE_LOST_STATE && sessionId !== undefined) {
        // Kept: every later write of this handle is refused the same way.
        throw leaseLostError(sessionId, await this.#leaseOrNone(sessionId));
      }
      if (code === MOVED_STATE) {
        throw scrubbed(
          new Error("the session's rows changed while the marker was placed"),
          [],
        );
      }
      throw scrubbed(error, this.#secrets);
    }
  }

  async #leaseOrNone(sessionId: string): Promise<SessionLease | undefined> {
    try {
      return await this.readLease(sessionId);
    } catch {
      return undefined;
    }
  }

  /** The fence arguments of a write: this handle's lease, if held. */
  #fence(sessionId: string): [string | null, number | null] {
    const held = this.#held.get(sessionId);
    return held === undefined ? [null, null] : [held.holderId, held.epoch];
  }

  /**
   * Calls the server-side write `fn` under this handle's fence, as
   * `fn(session, holder, epoch, ...args)`; an argument whose index in
   * `args` is listed in `jsonb` is sent as jsonb.
   */
  async #fenced(
    sessionId: string,
    fn: string,
    args: readonly FenceArg[],
    jsonb: readonly number[] = [],
  ): Promise<void> {
    const [holder, epoch] = this.#fence(sessionId);
    const params = [sessionId, holder, epoch, ...args];
    const list = params.map((_, i) =>
      `$${i + 1}${jsonb.includes(i - 3) ? "::jsonb" : ""}`
    ).join(", ");
    await this.#run(
      sessionId,
      (sql) => sql.unsafe(`SELECT ${fn}(${list})`, params),
    );
  }

  async create(session: NewSession): Promise<AgentSessionRecord> {
    checkNewSession(session);
    const now = this.#clock.now();
    const c = session.context;
    const rows = await this.#run(undefined, (sql) =>
      sql.unsafe(
        `INSERT INTO agent_sessions (id, agent_slug, agent_snapshot, model_id,
           working_dir, git_ref, fs_scope_tier, status, context_json,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', $8, $9, $9)
         RETURNING id, agent_id, agent_slug, agent_snapshot, title, model_id,
           status, context_json, total_input_tokens, total_output_tokens,
           total_cost_microcents, NULL::bigint AS total_conservative_microcents,
           NULL::bigint AS turns_used, exported_workflow_path, deleted_at,
           created_at, updated_at`,
        [
          session.id,
          session.agentSlug,
          session.agentSnapshot === undefined
            ? null
            : JSON.stringify(session.agentSnapshot),
          session.modelId ?? null,
          c.workingDir,
          c.gitRef ?? null,
          c.fsScopeTier,
          JSON.stringify(c),
          now,
        ],
      ));
    return decodeSessionRow(rows[0] as unknown as SessionRow);
  }

  async commitTurn(sessionId: string, turn: TurnCommit): Promise<void> {
    checkTurnsUsed(turn.turnsUsed);
    const now = this.#clock.now();
    const planned = planTurnRows(sessionId, turn, {
      ids: this.#ids,
      timestamp: new Date(now).toISOString(),
    });
    // The driver sends these as jsonb; each body is the exact text SQLite
    // stores, kept a string.
    const rows = planned.map((r) => ({
      id: r.id,
      role: r.role,
      body: JSON.stringify(r.content),
    }));
    await this.#fenced(sessionId, "rlv_commit_turn", [
      now,
      turn.tokensUsed.input,
      turn.tokensUsed.output,
      deriveTitle(turn.userText) ?? null,
      turn.modelId ?? null,
      rows,
      costJson(this.#ids, turn.costs),
      turn.turnsUsed ?? null,
    ], [5, 6]);
  }

  async recordCosts(
    sessionId: string,
    costs: CostEntry[],
    turnsUsed?: number,
  ): Promise<void> {
    for (const cost of costs) checkCost(cost);
    checkTurnsUsed(turnsUsed);
    await this.#fenced(sessionId, "rlv_record_costs", [
      this.#clock.now(),
      costJson(this.#ids, costs),
      turnsUsed ?? null,
    ], [1]);
  }

  async appendMarker(
    sessionId: string,
    marker: BoundaryMarker,
  ): Promise<number | undefined> {
    const content = markerContent(marker);
    const costs = marker.costs ?? [];
    for (const cost of costs) checkCost(cost);
    const now = this.#clock.now();
    const loaded = await this.load(sessionId);
    if (loaded === undefined) throw new SessionNotFoundError();
    const d = markerBoundary(loaded.messages, marker.keptTurnCount);
    const seq = (loaded.messages.at(-1)?.sequenceNumber ?? -1) + 1;
    const id = this.#ids();
    if (d !== undefined) {
      checkMessage({
        id,
        sessionId,
        sequenceNumber: seq,
        role: "system",
        content,
        compaction: { droppedThroughSequence: d },
        timestamp: new Date(now).toISOString(),
      });
    }
    const used = marker.tokensUsed ?? { input: 0, output: 0 };
    await this.#fenced(sessionId, "rlv_append_marker", [
      now,
      id,
      JSON.stringify(content),
      d ?? null,
      seq,
      used.input,
      used.output,
      costJson(this.#ids, costs),
    ], [7]);
    return d;
  }

  async allocateTurnKey(sessionId: string): Promise<number> {
    const [holder, epoch] = this.#fence(sessionId);
    const marks = await this.#run(sessionId, (sql) =>
      sql.unsafe(
        `SELECT effect_turn_high_water AS mark FROM relavium_session_state
         WHERE session_id = $1`,
        [sessionId],
      ));
    const mark = marks[0]?.["mark"];
    let seed = 0;
    if (mark === undefined || mark === 0) {
      const loaded = await this.load(sessionId);
      if (loaded === undefined) throw new SessionNotFoundError();
      seed = seedTurnKey(loaded.messages);
    }
    const keys = await this.#run(
      sessionId,
      (sql) =>
        sql.unsafe("SELECT rlv_turn_key($1, $2, $3, $4) AS k", [
          sessionId,
          holder,
          epoch,
          seed,
        ]),
    );
    return Number(keys[0]?.["k"]);
  }

  async setStatus(
    sessionId: string,
    status: "active" | "ended",
  ): Promise<void> {
    if (status !== "active" && status !== "ended") {
      throw new TypeError("Cannot set status: expected active or ended");
    }
    await this.#fenced(sessionId, "rlv_set_status", [
      status,
      this.#clock.now(),
    ]);
  }

  async markExported(sessionId: string, workflowPath: string): Promise<void> {
    if (typeof workflowPath !== "string" || !isAbsolute(workflowPath)) {
      throw new TypeError("Cannot mark exported: the path must be absolute");
    }
    const rows = await this.#run(sessionId, (sql) =>
      sql.unsafe(
        `UPDATE agent_sessions SET status = 'exported',
         exported_workflow_path = $1 WHERE id = $2 AND deleted_at IS NULL
         RETURNING 1`,
        [workflowPath, sessionId],
      ));
    if (rows.length === 0) throw new SessionNotFoundError();
  }

  async softDelete(sessionId: string): Promise<boolean> {
    const rows = await this.#run(sessionId, (sql) =>
      sql.unsafe(
        `UPDATE agent_sessions SET deleted_at = $1
         WHERE id = $2 AND deleted_at IS NULL RETURNING 1`,
        [this.#clock.now(), sessionId],
      ));
    return rows.length > 0;
  }

  list(): Promise<AgentSessionRecord[]> {
    return this.#run(undefined, listSessions);
  }

  load(sessionId: string): Promise<LoadedSession | undefined> {
    return this.#run(undefined, (sql) => loadSession(sql, sessionId));
  }

  costs(sessionId: string): Promise<ModelCostTotals[]> {
    return this.#run(undefined, (sql) => costTotals(sql, sessionId));
  }

  turnUsage(sessionId: string): ReturnType<typeof turnUsageOf> {
    return this.#run(undefined, (sql) => turnUsageOf(sql, sessionId));
  }

  async beginInvocation(
    sessionId: string,
    invocation: InvocationStart,
  ): Promise<string> {
    checkInvocationStart(invocation);
    const id = this.#ids();
    await this.#fenced(sessionId, "rlv_begin_invocation", [
      id,
      invocation.purpose,
      invocation.provider,
      invocation.model,
      this.#clock.now(),
      invocation.turnNumber ?? null,
    ]);
    return id;
  }

  async settleInvocation(
    sessionId: string,
    settlement: InvocationSettlement,
  ): Promise<void> {
    checkSettlement(settlement);
    await this.#fenced(sessionId, "rlv_settle_invocation", [
      settlement.id,
      settlement.coverage,
      settlement.inputTokens,
      settlement.outputTokens,
      settlement.costMicrocents,
      this.#clock.now(),
    ]);
  }

  coverage(sessionId: string): Promise<UsageCoverage> {
    return this.#run(undefined, (sql) => coverageOf(sql, sessionId));
  }

  async acquireLease(
    sessionId: string,
    claim: LeaseClaim,
  ): Promise<LeaseAnswer> {
    if (typeof claim.holderId !== "string" || claim.holderId === "") {
      throw new TypeError("Cannot take the lease: empty holderId");
    }
    const before = await this.#leaseRow(sessionId);
    // A holder on this host whose process is gone: taken over at once
    // (its liveness is only known here); staleness by time is judged by
    // the database clock.
    const dead = before !== undefined &&
        before.lease.holderId !== claim.holderId &&
        before.lease.damaged === undefined &&
        isStaleLease(
          { ...before.lease, heartbeatAtMs: Number.POSITIVE_INFINITY },
          claim,
          Number.NEGATIVE_INFINITY,
        )
      ? before.lease.holderId
      : null;
    const epochs = await this.#run(sessionId, (sql) =>
      sql.unsafe(
        "SELECT rlv_acquire_lease($1, $2, $3, $4, $5, $6) AS epoch",
        [
          sessionId,
          claim.holderId,
          claim.pid ?? null,
          claim.hostname ?? null,
          dead,
          LEASE_STALE_MS,
        ],
      ));
    const epoch = epochs[0]?.["epoch"];
    if (typeof epoch !== "number") {
      const heldBy = await this.readLease(sessionId);
      if (heldBy === undefined) return this.acquireLease(sessionId, claim);
      return { ok: false, heldBy };
    }
    this.#held.set(sessionId, { holderId: claim.holderId, epoch });
    const previous = before?.lease;
    return previous === undefined || previous.holderId === claim.holderId
      ? { ok: true }
      : { ok: true, tookOver: previous };
  }

  #leaseRow(sessionId: string): Promise<StoredLease | undefined> {
    return this.#run(undefined, (sql) => leaseRow(sql, sessionId));
  }

  async renewLease(sessionId: string, holderId: string): Promise<boolean> {
    const held = this.#held.get(sessionId);
    if (held === undefined || held.holderId !== holderId) return false;
    const rows = await this.#run(
      undefined,
      (sql) =>
        sql.unsafe("SELECT rlv_renew_lease($1, $2, $3) AS ok", [
          sessionId,
          holderId,
          held.epoch,
        ]),
    );
    return rows[0]?.["ok"] === true;
  }

  async releaseLease(sessionId: string, holderId: string): Promise<void> {
    const held = this.#held.get(sessionId);
    if (held === undefined || held.holderId !== holderId) return;
    // Still held until the release is written (a write under way keeps
    // its fence); then forgotten, whatever the answer.
    try {
      await this.#run(
        undefined,
        (sql) =>
          sql.unsafe("SELECT rlv_release_lease($1, $2, $3)", [
            sessionId,
            holderId,
            held.epoch,
          ]),
      );
    } finally {
      if (this.#held.get(sessionId) === held) this.#held.delete(sessionId);
    }
  }

  async readLease(sessionId: string): Promise<SessionLease | undefined> {
    return (await this.#leaseRow(sessionId))?.lease;
  }

  async clearLease(sessionId: string): Promise<SessionLease | undefined> {
    const stored = await this.readLease(sessionId);
    if (stored !== undefined) {
      await this.#run(undefined, (sql) =>
        sql.unsafe(
          "DELETE FROM relavium_session_leases WHERE session_id = $1",
          [sessionId],
        ));
    }
    this.#held.delete(sessionId);
    return stored;
  }

  /**
   * The session event table on this handle's pool (what `serve`
   * instances stream to each other); an append carries the lease this
   * handle held when its events were queued, and none is refused.
   *
   * @param keep Events kept per session.
   * @returns The table.
   */
  eventTable(keep: number): PgEventTable {
    return pgEventTable({
      keep,
      fence: (id) => this.#held.get(id),
      now: () => this.#clock.now(),
      run: (id, query) => this.#run(id, query),
    });
  }

  async close(): Promise<void> {
    this.#held.clear();
    await this.#sql.end({ timeout: 5 });
  }
}
