/**
 * Our two bookkeeping tables of `history.db`: the writer lease
 * (`relavium_session_leases`) and the usage-coverage journal
 * (`relavium_open_invocations`). Every method runs inside the caller's
 * transaction; statements are prepared on first use.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  decodePendingRow,
  type InvocationSettlement,
  type InvocationStart,
  storedCount,
  type UsageCoverage,
} from "./coverage_check.ts";
import {
  type LeaseAnswer,
  type LeaseClaim,
  leaseDecision,
} from "./lease_policy.ts";
import type { CostEntry, SessionLease } from "./store.ts";
import { isOutOfRange, readWide } from "./sqlite_big.ts";

const SQL = {
  lease: `SELECT holder_id, pid, hostname, acquired_at, heartbeat_at
    FROM relavium_session_leases WHERE session_id = ?`,
  // Changes exactly when another connection has committed since this
  // connection last read it (this connection's own commits leave it).
  dataVersion: "PRAGMA data_version",
  takeLease: `INSERT INTO relavium_session_leases
    (session_id, holder_id, pid, hostname, acquired_at, heartbeat_at)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET holder_id = excluded.holder_id,
    pid = excluded.pid, hostname = excluded.hostname,
    acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
  renewLease: `UPDATE relavium_session_leases SET heartbeat_at = ?
    WHERE session_id = ? AND holder_id = ?`,
  releaseLease: `DELETE FROM relavium_session_leases
    WHERE session_id = ? AND holder_id = ?`,
  clearLease: "DELETE FROM relavium_session_leases WHERE session_id = ?",
  begin: `INSERT INTO relavium_open_invocations
    (session_id, id, purpose, provider, model, started_at, turn_number)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  // A call that spent money stays, settled, until a write records it.
  settle: `UPDATE relavium_open_invocations SET status = 'settled',
    coverage = ?, input_tokens = ?, output_tokens = ?, cost_microcents = ?,
    settled_at = ?
    WHERE session_id = ? AND id = ? AND status = 'pending'`,
  // A call that spent nothing has nothing left to record.
  settleFree: `DELETE FROM relavium_open_invocations
    WHERE session_id = ? AND id = ? AND status = 'pending'`,
  pending: `SELECT id, purpose, provider, model, started_at
    FROM relavium_open_invocations WHERE session_id = ? AND status = 'pending'
    ORDER BY started_at, id`,
  unrecorded: `SELECT cost_microcents FROM relavium_open_invocations
    WHERE session_id = ? AND status = 'settled'`,
  // The oldest settled call that spent exactly this entry's money: which
  // of two equal ones goes changes no total.
  markRecorded: `DELETE FROM relavium_open_invocations
    WHERE session_id = ?1 AND id = (SELECT id FROM relavium_open_invocations
      WHERE session_id = ?1 AND status = 'settled' AND model = ?2
      AND input_tokens = ?3 AND output_tokens = ?4 AND cost_microcents = ?5
      ORDER BY started_at, id LIMIT 1)`,
} as const;

type Name = keyof typeof SQL;

function epoch(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) &&
      !Number.isNaN(new Date(value).getTime())
    ? value
    : undefined;
}

/**
 * Decodes a stored lease. A row with an invalid column is returned with
 * `damaged` naming the first one (`relavium_session_leases.<column>`) and
 * the other fields as far as they read; never throws.
 *
 * @param row The raw row.
 * @returns The lease and its heartbeat in epoch ms (`NaN` when unreadable).
 */
export function decodeLeaseRow(
  row: Record<string, unknown>,
): { lease: SessionLease; heartbeatAtMs: number } {
  const bad: string[] = [];
  const holder = row["holder_id"];
  if (typeof holder !== "string" || holder === "") bad.push("holder_id");
  const pid = row["pid"];
  const pidOk = pid === null ||
    (typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0);
  if (!pidOk) bad.push("pid");
  const hostname = row["hostname"];
  const hostOk = hostname === null || typeof hostname === "string";
  if (!hostOk) bad.push("hostname");
  const acquired = epoch(row["acquired_at"]);
  if (acquired === undefined) bad.push("acquired_at");
  const heartbeat = epoch(row["heartbeat_at"]);
  if (heartbeat === undefined) bad.push("heartbeat_at");
  const lease: SessionLease = {
    holderId: typeof holder === "string" ? holder : String(holder ?? ""),
    acquiredAt: acquired === undefined ? "" : new Date(acquired).toISOString(),
    heartbeatAt: heartbeat === undefined
      ? ""
      : new Date(heartbeat).toISOString(),
  };
  if (pidOk && pid !== null) lease.pid = pid as number;
  if (hostOk && hostname !== null) lease.hostname = hostname as string;
  if (bad.length > 0) lease.damaged = `relavium_session_leases.${bad[0]}`;
  return { lease, heartbeatAtMs: heartbeat ?? Number.NaN };
}

/**
 * The lease and journal statements of one connection.
 */
export class SqliteJournal {
  readonly #db: DatabaseSync;
  readonly #prepared = new Map<Name, StatementSync>();

  /**
   * Wraps a connection whose schema has both tables.
   *
   * @param db The open connection.
   */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #sql(name: Name): StatementSync {
    let s = this.#prepared.get(name);
    if (s === undefined) {
      s = this.#db.prepare(SQL[name]);
      this.#prepared.set(name, s);
    }
    return s;
  }

  /**
   * The stored lease of a session, validated.
   *
   * @param sessionId The session.
   * @returns The lease, or `undefined` when none is stored.
   */
  lease(
    sessionId: string,
  ): { lease: SessionLease; heartbeatAtMs: number } | undefined {
    let row: Record<string, unknown> | undefined;
    try {
      row = this.#sql("lease").get(sessionId);
    } catch (error) {
      if (!isOutOfRange(error)) throw error;
      // An integer at the 64-bit limits: a damaged row, named.
      row = readWide(this.#sql("lease"), (s) => s.get(sessionId));
    }
    return row === undefined ? undefined : decodeLeaseRow(row);
  }

  /**
   * A number that differs from the last one read exactly when another
   * connection has committed to the file in between.
   */
  othersCommitted(): unknown {
    return this.#sql("dataVersion").get()?.["data_version"];
  }

  /**
   * Takes the lease unless a live holder has it.
   *
   * @param sessionId The session (known to exist).
   * @param claim The claimant.
   * @param now Epoch ms.
   * @returns The answer.
   */
  acquire(sessionId: string, claim: LeaseClaim, now: number): LeaseAnswer {
    const answer = leaseDecision(this.lease(sessionId), claim, now);
    if (!answer.ok) return answer;
    this.#sql("takeLease").run(
      sessionId,
      claim.holderId,
      claim.pid ?? null,
      claim.hostname ?? null,
      now,
      now,
    );
    return answer;
  }

  /**
   * Refreshes the heartbeat of `holderId`'s lease.
   *
   * @returns Whether `holderId` holds it.
   */
  renew(sessionId: string, holderId: string, now: number): boolean {
    return Number(
      this.#sql("renewLease").run(now, sessionId, holderId).changes,
    ) > 0;
  }

  /** Deletes `holderId`'s lease (nothing when another holds it). */
  release(sessionId: string, holderId: string): void {
    this.#sql("releaseLease").run(sessionId, holderId);
  }

  /** Deletes the session's lease whoever holds it; returns what it removed. */
  clear(sessionId: string): SessionLease | undefined {
    const stored = this.lease(sessionId)?.lease;
    if (stored !== undefined) this.#sql("clearLease").run(sessionId);
    return stored;
  }

  /** Inserts a pending invocation under `id`. */
  begin(
    sessionId: string,
    id: string,
    invocation: InvocationStart,
    now: number,
  ): void {
    this.#sql("begin").run(
      sessionId,
      id,
      invocation.purpose,
      invocation.provider,
      invocation.model,
      now,
      invocation.turnNumber ?? null,
    );
  }

  /**
   * Settles a pending invocation in one statement; one that spent nothing
   * leaves the journal at once (no turn will carry it).
   */
  settle(sessionId: string, s: InvocationSettlement, now: number): void {
    if (s.costMicrocents === 0) {
      this.#sql("settleFree").run(sessionId, s.id);
      return;
    }
    this.#sql("settle").run(
      s.coverage,
      s.inputTokens,
      s.outputTokens,
      s.costMicrocents,
      now,
      sessionId,
      s.id,
    );
  }

  /**
   * Removes, per cost entry a write records, the matching settled
   * invocation: its spend is in the totals now.
   */
  markRecorded(sessionId: string, costs: readonly CostEntry[]): void {
    for (const c of costs) {
      if (c.costMicrocents === 0) continue;
      this.#sql("markRecorded").run(
        sessionId,
        c.model,
        c.inputTokens,
        c.outputTokens,
        c.costMicrocents,
      );
    }
  }

  /** The session's usage coverage, validated. */
  coverage(sessionId: string): UsageCoverage {
    const pending = this.#sql("pending").all(sessionId).map((r) =>
      decodePendingRow(r)
    );
    let unrecorded = 0;
    for (const r of this.#sql("unrecorded").all(sessionId)) {
      const cost = r["cost_microcents"];
      unrecorded += storedCount(
        cost,
        "relavium_open_invocations.cost_microcents",
      );
    }
    return { pending, unrecordedMicrocents: unrecorded };
  }
}
