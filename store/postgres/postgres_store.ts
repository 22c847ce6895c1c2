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
import { SessionNotFoundError, StoreOpenError } from "../errors.ts";
import { decodeSessionRow, type SessionRow } from "../record_codec.ts";
import { decodeFullPage } from "../sqlite_read.ts";
import { MESSAGE_COLUMN_ORDER } from "../sqlite_statements.ts";
import type { DecodeMemo } from "../message_codec.ts";
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
  decodePendingRow,
  type InvocationSettlement,
  type InvocationStart,
  storedCount,
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
import { decodeLeaseRow } from "../sqlite_journal.ts";
import type { SessionMessage } from "../../schema/message.ts";
import {
  LEASE_LOST_STATE,
  MOVED_STATE,
  NOT_FOUND_STATE,
  PG_DDL,
  PG_SCHEMA_VERSION,
} from "./_ddl.ts";
import { connectPool, scrubbed, type Sql, urlSecrets } from "./_connect.ts";

/**
 * What {@linkcode openPostgresStore} is given.
 */
export interface PostgresStoreOptions {
  /**
   * The connection URL (`postgres://user:password@host:port/db`, or
   * `?host=/dir` for a unix socket folder). Read it from the environment;
   * it never appears in an error this store throws.
   */
  url: string;
  /** Source of epoch ms for row times; default the system clock. */
  clock?: { now(): number };
  /** Source of fresh row ids; default random UUIDs. */
  ids?: () => string;
  /** `statement_timeout` of every connection, ms; default 30,000. */
  statementTimeoutMs?: number;
  /** Pool size; default 10. */
  maxConnections?: number;
}

const SESSION_COLUMNS = `s.id, s.agent_id, s.agent_slug, s.agent_snapshot,
  s.title, s.model_id, s.status, s.context_json, s.total_input_tokens,
  s.total_output_tokens, s.total_cost_microcents,
  st.total_conservative_microcents,
  NULLIF(greatest(COALESCE(tu.turns_used, -1), COALESCE((SELECT MAX(i.turn_number)
    FROM relavium_open_invocations i WHERE i.session_id = s.id), -1)), -1)
    AS turns_used,
  s.exported_workflow_path, s.deleted_at, s.created_at, s.updated_at
  FROM agent_sessions s
  LEFT JOIN relavium_session_state st ON st.session_id = s.id
  LEFT JOIN relavium_session_turns tu ON tu.session_id = s.id`;

const MESSAGE_COLUMNS = MESSAGE_COLUMN_ORDER.join(", ");

/** A cost entry as the write functions read it. */
function costJson(
  ids: () => string,
  costs: readonly CostEntry[],
): Record<string, string | number>[] {
  return costs.map((c) => ({
    id: ids(),
    model: c.model,
    in: c.inputTokens,
    out: c.outputTokens,
    cost: c.costMicrocents,
    unpriced: c.priced ? 0 : 1,
    cr: c.cacheReadTokens ?? 0,
    cw: c.cacheWriteTokens ?? 0,
    crc: c.cacheReadMicrocents ?? 0,
    cwc: c.cacheWriteMicrocents ?? 0,
    unknown: c.usageUnknown === true ? 1 : 0,
  }));
}

/** A lease this handle holds. */
interface Held {
  holderId: string;
  epoch: number;
}

/**
 * One Postgres store handle: see {@linkcode openPostgresStore}.
 */
class PostgresSessionStore implements AsyncSessionStore {
  readonly asynchronous = true as const;
  readonly #sql: Sql;
  readonly #secrets: readonly string[];
  readonly #clock: { now(): number };
  readonly #ids: () => string;
  readonly #held = new Map<string, Held>();

  constructor(
    sql: Sql,
    secrets: readonly string[],
    options: PostgresStoreOptions,
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
    const [holder, epoch] = this.#fence(sessionId);
    await this.#run(sessionId, (sql) =>
      sql.unsafe(
        `SELECT rlv_commit_turn($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb,
          $10::jsonb, $11)`,
        [
          sessionId,
          holder,
          epoch,
          now,
          turn.tokensUsed.input,
          turn.tokensUsed.output,
          deriveTitle(turn.userText) ?? null,
          turn.modelId ?? null,
          rows,
          costJson(this.#ids, turn.costs),
          turn.turnsUsed ?? null,
        ],
      ));
  }

  async recordCosts(
    sessionId: string,
    costs: CostEntry[],
    turnsUsed?: number,
  ): Promise<void> {
    for (const cost of costs) checkCost(cost);
    checkTurnsUsed(turnsUsed);
    const [holder, epoch] = this.#fence(sessionId);
    await this.#run(sessionId, (sql) =>
      sql.unsafe(
        "SELECT rlv_record_costs($1, $2, $3, $4, $5::jsonb, $6)",
        [
          sessionId,
          holder,
          epoch,
          this.#clock.now(),
          costJson(this.#ids, costs),
          turnsUsed ?? null,
        ],
      ));
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
    const [holder, epoch] = this.#fence(sessionId);
    await this.#run(sessionId, (sql) =>
      sql.unsafe(
        `SELECT rlv_append_marker($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
          $11::jsonb)`,
        [
          sessionId,
          holder,
          epoch,
          now,
          id,
          JSON.stringify(content),
          d ?? null,
          seq,
          used.input,
          used.output,
          costJson(this.#ids, costs),
        ],
      ));
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
    const [holder, epoch] = this.#fence(sessionId);
    await this.#run(
      sessionId,
      (sql) =>
        sql.unsafe("SELECT rlv_set_status($1, $2, $3, $4, $5)", [
          sessionId,
          holder,
          epoch,
          status,
          this.#clock.now(),
        ]),
    );
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

  async list(): Promise<AgentSessionRecord[]> {
    const rows = await this.#run(undefined, (sql) =>
      sql.unsafe(
        `SELECT ${SESSION_COLUMNS} WHERE s.deleted_at IS NULL
         ORDER BY s.updated_at DESC, s.id DESC`,
      ));
    return rows.map((r) => decodeSessionRow(r as unknown as SessionRow));
  }

  async load(sessionId: string): Promise<LoadedSession | undefined> {
    // One read transaction: the session row and its rows agree.
    const read = await this.#run(
      undefined,
      (sql) =>
        sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
          const session = await tx.unsafe(
            `SELECT ${SESSION_COLUMNS} WHERE s.id = $1 AND s.deleted_at IS NULL`,
            [sessionId],
          );
          if (session.length === 0) return undefined;
          const rows = await tx.unsafe(
            `SELECT ${MESSAGE_COLUMNS} FROM session_messages
           WHERE session_id = $1 ORDER BY sequence_number`,
            [sessionId],
          ).values();
          return { session: session[0], rows };
        }),
    );
    if (read === undefined) return undefined;
    const record = decodeSessionRow(read.session as unknown as SessionRow);
    const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
    const messages: SessionMessage[] = [];
    decodeFullPage(read.rows as unknown[], memo, messages);
    return { record, messages };
  }

  async costs(sessionId: string): Promise<ModelCostTotals[]> {
    const rows = await this.#run(undefined, (sql) =>
      sql.unsafe(
        `SELECT c.model, SUM(c.input_tokens)::bigint AS input,
         SUM(c.output_tokens)::bigint AS output,
         SUM(c.cost_microcents)::bigint AS cost,
         SUM(c.call_count)::bigint AS calls,
         SUM(c.unpriced_calls)::bigint AS unpriced,
         MAX(d.cache_read_tokens) AS cache_read,
         MAX(d.cache_write_tokens) AS cache_write,
         MAX(d.cache_read_microcents) AS cache_read_cost,
         MAX(d.cache_write_microcents) AS cache_write_cost,
         MAX(d.usage_unknown_calls) AS usage_unknown
         FROM session_costs c LEFT JOIN relavium_cost_details d
         ON d.session_id = c.session_id AND d.model = c.model
         WHERE c.session_id = $1
         GROUP BY c.model ORDER BY MIN(c.created_at), MIN(c.ord)`,
        [sessionId],
      ));
    return rows.map((r) => ({
      model: String(r["model"]),
      inputTokens: Number(r["input"]),
      outputTokens: Number(r["output"]),
      costMicrocents: Number(r["cost"]),
      callCount: Number(r["calls"]),
      unpricedCalls: Number(r["unpriced"]),
      cacheReadTokens: Number(r["cache_read"] ?? 0),
      cacheWriteTokens: Number(r["cache_write"] ?? 0),
      cacheReadMicrocents: Number(r["cache_read_cost"] ?? 0),
      cacheWriteMicrocents: Number(r["cache_write_cost"] ?? 0),
      usageUnknownCalls: Number(r["usage_unknown"] ?? 0),
    }));
  }

  async beginInvocation(
    sessionId: string,
    invocation: InvocationStart,
  ): Promise<string> {
    checkInvocationStart(invocation);
    const id = this.#ids();
    const [holder, epoch] = this.#fence(sessionId);
    await this.#run(sessionId, (sql) =>
      sql.unsafe(
        "SELECT rlv_begin_invocation($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [
          sessionId,
          holder,
          epoch,
          id,
          invocation.purpose,
          invocation.provider,
          invocation.model,
          this.#clock.now(),
          invocation.turnNumber ?? null,
        ],
      ));
    return id;
  }

  async settleInvocation(
    sessionId: string,
    settlement: InvocationSettlement,
  ): Promise<void> {
    checkSettlement(settlement);
    const [holder, epoch] = this.#fence(sessionId);
    await this.#run(sessionId, (sql) =>
      sql.unsafe(
        "SELECT rlv_settle_invocation($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [
          sessionId,
          holder,
          epoch,
          settlement.id,
          settlement.coverage,
          settlement.inputTokens,
          settlement.outputTokens,
          settlement.costMicrocents,
          this.#clock.now(),
        ],
      ));
  }

  async coverage(sessionId: string): Promise<UsageCoverage> {
    const rows = await this.#run(undefined, (sql) =>
      sql.unsafe(
        `SELECT id, purpose, provider, model, started_at, status,
         cost_microcents FROM relavium_open_invocations
         WHERE session_id = $1 ORDER BY started_at, id`,
        [sessionId],
      ));
    const pending = rows.filter((r) => r["status"] === "pending").map((r) =>
      decodePendingRow(r)
    );
    let unrecordedMicrocents = 0;
    for (const r of rows) {
      if (r["status"] !== "settled") continue;
      unrecordedMicrocents += storedCount(
        r["cost_microcents"],
        "relavium_open_invocations.cost_microcents",
      );
    }
    return { pending, unrecordedMicrocents };
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

  async #leaseRow(
    sessionId: string,
  ): Promise<ReturnType<typeof decodeLeaseRow> | undefined> {
    const rows = await this.#run(undefined, (sql) =>
      sql.unsafe(
        `SELECT holder_id, pid, hostname, acquired_at, heartbeat_at
         FROM relavium_session_leases WHERE session_id = $1`,
        [sessionId],
      ));
    const row = rows[0];
    return row === undefined ? undefined : decodeLeaseRow(row);
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
    this.#held.delete(sessionId);
    await this.#run(
      undefined,
      (sql) =>
        sql.unsafe("SELECT rlv_release_lease($1, $2, $3)", [
          sessionId,
          holderId,
          held.epoch,
        ]),
    );
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

  async close(): Promise<void> {
    this.#held.clear();
    await this.#sql.end({ timeout: 5 });
  }
}

/**
 * Opens a Postgres session store: loads the driver (`npm:postgres`, only
 * now), connects a pool, and creates or checks the schema (a
 * `relavium_schema_version` table; a database of a newer version is
 * refused). Every method returns a promise; each write is one round trip.
 * The URL never appears in an error it throws.
 *
 * @param options The URL (from the environment), clock, ids, statement
 * timeout and pool size.
 * @returns The store (`asynchronous: true`).
 * @throws {StoreOpenError} When the server cannot be reached or its
 * schema is newer than this version writes (the message has no URL).
 *
 * @example Refused without a server (no URL in the message)
 * ```ts
 * import { openPostgresStore } from "@relavium/session/store/postgres";
 * import assert from "node:assert/strict";
 * const url = "postgres://me:s3cret-pw@127.0.0.1:1/none";
 * await assert.rejects(openPostgresStore({ url }), (e: Error) =>
 *   e.name === "StoreOpenError" && !e.message.includes("s3cret-pw"));
 * ```
 */
export async function openPostgresStore(
  options: PostgresStoreOptions,
): Promise<AsyncSessionStore> {
  const secrets = urlSecrets(options.url);
  let sql: Sql;
  try {
    sql = await connectPool({
      url: options.url,
      statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
      maxConnections: options.maxConnections ?? 10,
    });
  } catch (error) {
    throw new StoreOpenError({
      reason: `cannot connect to Postgres (${
        scrubbed(error, secrets).message
      })`,
    });
  }
  try {
    await sql.begin(async (tx) => {
      // One schema writer at a time (two stores opening one database).
      await tx.unsafe("SELECT pg_advisory_xact_lock(7283650132)");
      await tx.unsafe(PG_DDL);
    });
    const rows = await sql.unsafe(
      "SELECT MAX(version) AS v FROM relavium_schema_version",
    );
    const version = Number(rows[0]?.["v"]);
    if (version > PG_SCHEMA_VERSION) {
      throw new StoreOpenError({
        reason:
          `the database's schema version ${version} is newer than this version writes (${PG_SCHEMA_VERSION})`,
      });
    }
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError({
      reason: `cannot reach Postgres or prepare its schema (${
        scrubbed(error, secrets).message
      })`,
    });
  }
  return new PostgresSessionStore(sql, secrets, options);
}
