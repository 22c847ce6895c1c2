/**
 * The SQLite store's open handle: every `SessionStore` method on one
 * connection. Writes run in `BEGIN IMMEDIATE` with the busy-retry
 * policy; reads of a whole session run in one read transaction and
 * re-validate every row.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isAbsolute } from "../schema/paths.ts";
import { referencesModelCatalog } from "./ddl.ts";
import { SessionNotFoundError } from "./errors.ts";
import { decodeMessageRow, type MessageRow } from "./message_codec.ts";
import { decodeFullPage, readMessages } from "./sqlite_read.ts";
import { isOutOfRange, readWide } from "./sqlite_big.ts";
import type { DecodeMemo } from "./message_codec.ts";
import type { SessionMessage } from "../schema/message.ts";
import {
  decodeSessionHeader,
  type SessionHeader,
  type SessionRow,
  type SessionRowCodec,
} from "./record_fields.ts";
import { blockingSleep, transaction } from "./sqlite_tx.ts";
import { storeWriteError } from "./sqlite_file.ts";
import { prepareStatements, type Statements } from "./sqlite_statements.ts";
import { markerContent } from "./markers.ts";
import { insertMarkerRow } from "./sqlite_marker.ts";
import type {
  AgentSessionRecord,
  BoundaryMarker,
  CostEntry,
  LoadedSession,
  ModelCostTotals,
  NewSession,
  SessionLease,
  SessionStore,
  TurnCommit,
} from "./store.ts";
import { deriveTitle } from "./title.ts";
import {
  checkInvocationStart,
  checkSettlement,
  type InvocationSettlement,
  type InvocationStart,
  type UsageCoverage,
} from "./coverage_check.ts";
import {
  type LeaseAnswer,
  type LeaseClaim,
  leaseLostError,
} from "./lease_policy.ts";
import { SqliteJournal } from "./sqlite_journal.ts";
import type { SqliteStoreOptions } from "./sqlite_options.ts";
import { nextTurnKey, seedTurnKey } from "./turn_key.ts";
import { checkCost, checkTurnsUsed, planTurnRows } from "./turn_plan.ts";
import {
  costOf,
  type CostRows,
  prepareCostTotals,
  prepareTurnUsage,
  readCostTotals,
  readTurnUsage,
  type TurnUsage,
  writeCosts,
  writeTurnUsage,
} from "./sqlite_costs.ts";
import { turnUsageDelta } from "./turn_usage.ts";

/**
 * A lease this handle holds: the holder id, and the file's data version
 * when the lease was last read as ours. While no other connection has
 * committed since, no one can have taken the lease over or written the
 * session, so the row need not be read again, and what this handle last
 * wrote of the session still holds: its next message sequence number and
 * whether its title is set. Both are forgotten when another connection
 * commits.
 */
interface Held {
  holderId: string;
  seen?: unknown;
  /** The session's next sequence number, after this handle's last write. */
  nextSequence?: number;
  /** The stored title is set (a turn's title is then not derived). */
  titled?: boolean;
}

/**
 * One open handle on `history.db`: the {@linkcode SessionStore} the
 * openers of `sqlite_store.ts` return.
 */
export class SqliteSessionStore implements SessionStore {
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #costRows: CostRows;
  readonly #clock: { now(): number };
  readonly #ids: () => string;
  readonly #sleep: (ms: number) => void;
  readonly #catalog: { messages: boolean; sessions: boolean; costs: boolean };
  #costsOf: StatementSync | undefined;
  #turnUsageOf: StatementSync | undefined;
  #closed = false;
  readonly #journal: SqliteJournal;
  /**
   * The leases this handle holds, by session id (see {@linkcode Held}).
   */
  readonly #held = new Map<string, Held>();
  /** Settlements not yet written (they ride on the next write). */
  #settles: {
    sessionId: string;
    settlement: InvocationSettlement;
    at: number;
  }[] = [];

  /** How session rows are decoded and new sessions checked. */
  readonly #rows: SessionRowCodec;

  /**
   * Wraps an open, migrated connection; the handle owns it from now on.
   * `rows` decodes its session rows (their contexts by the schema).
   */
  constructor(
    db: DatabaseSync,
    options: SqliteStoreOptions,
    rows: SessionRowCodec,
  ) {
    this.#db = db;
    this.#rows = rows;
    this.#clock = options.clock ?? { now: () => Date.now() };
    this.#ids = options.ids ?? (() => crypto.randomUUID());
    this.#sleep = options.sleep ?? blockingSleep;
    this.#catalog = {
      messages: referencesModelCatalog(db, {
        table: "session_messages",
        column: "model_id",
      }),
      sessions: referencesModelCatalog(db, {
        table: "agent_sessions",
        column: "model_id",
      }),
      costs: referencesModelCatalog(db, {
        table: "session_costs",
        column: "model_catalog_id",
      }),
    };
    const anyCatalog = this.#catalog.messages || this.#catalog.sessions ||
      this.#catalog.costs;
    this.#sql = prepareStatements(db, anyCatalog);
    this.#costRows = {
      sql: this.#sql,
      ids: this.#ids,
      catalogId: this.#catalog.costs
        ? (model) => this.#catalogId(model)
        : undefined,
    };
    this.#journal = new SqliteJournal(db);
  }

  /**
   * Inside a write: when this handle holds the session's lease, checks it
   * is still its own (a writer that lost it must not interleave).
   */
  #guard(sessionId: string): void {
    const mine = this.#held.get(sessionId);
    if (mine === undefined) return;
    const version = this.#journal.othersCommitted();
    if (mine.seen === version) return;
    const stored = this.#journal.lease(sessionId)?.lease;
    if (stored?.holderId !== mine.holderId) {
      throw leaseLostError(sessionId, stored);
    }
    mine.seen = version;
    delete mine.nextSequence;
    delete mine.titled;
  }

  /** One write transaction on a visible session, after the lease check. */
  #writeSession<T>(
    sessionId: string,
    work: () => T,
    durability?: "process",
  ): T {
    return this.#write(() => {
      this.#requireVisible(sessionId);
      this.#guard(sessionId);
      return work();
    }, durability);
  }

  #write<T>(work: () => T, durability?: "process"): T {
    const settles = this.#settles;
    let value: T;
    try {
      value = transaction(this.#db, () => {
        // Settlements ride on the next write: the turn (or cost, marker,
        // status) write that follows an attempt resolves it in the same
        // transaction. Applied first, so that write can mark them recorded.
        for (const s of settles) {
          this.#journal.settle(s.sessionId, s.settlement, s.at);
        }
        return work();
      }, {
        begin: "IMMEDIATE",
        sleep: this.#sleep,
        ...(durability === undefined ? {} : { durability }),
      });
    } catch (error) {
      // A full disk, a read-only file, an I/O error: named, not raw.
      throw storeWriteError(error);
    }
    if (settles.length > 0) this.#settles = [];
    return value;
  }

  /** The catalog row id (or NULL) where the FK exists. */
  #catalogId(model: string): string | null {
    const rows = this.#sql.catalogByModel?.all(model) ?? [];
    const id = rows.length === 1 ? rows[0]?.["id"] : undefined;
    return typeof id === "string" ? id : null;
  }

  #modelRef(model: string | undefined, viaCatalog: boolean): string | null {
    if (model === undefined) return null;
    return viaCatalog ? this.#catalogId(model) : model;
  }

  #requireVisible(sessionId: string): void {
    if (this.#sql.visibleSession.get(sessionId) === undefined) {
      throw new SessionNotFoundError();
    }
  }

  /**
   * Records `costs` in the cost tables and the journal (not in the
   * session's total).
   */
  #addCosts(sessionId: string, costs: CostEntry[], now: number): void {
    writeCosts(this.#costRows, sessionId, costs, now);
    this.#journal.markRecorded(sessionId, costs);
  }

  /** As {@linkcode #addCosts}, with their sum added to the session's total. */
  #addSessionCosts(sessionId: string, costs: CostEntry[], now: number): void {
    this.#addCosts(sessionId, costs, now);
    const total = costOf(costs);
    if (total > 0) this.#sql.addSessionCost.run(total, sessionId);
  }

  create(session: NewSession): AgentSessionRecord {
    this.#rows.checkNew(session);
    const now = this.#clock.now();
    const c = session.context;
    return this.#write(() => {
      this.#sql.insertSession.run(
        session.id,
        session.agentSlug,
        session.agentSnapshot === undefined
          ? null
          : JSON.stringify(session.agentSnapshot),
        this.#modelRef(session.modelId, this.#catalog.sessions),
        c.workingDir,
        c.gitRef ?? null,
        c.fsScopeTier,
        JSON.stringify(c),
        now,
        now,
      );
      return this.#rows.decode(
        this.#sql.sessionById.get(session.id) as unknown as SessionRow,
      );
    });
  }

  commitTurn(sessionId: string, turn: TurnCommit): void {
    checkTurnsUsed(turn.turnsUsed);
    const now = this.#clock.now();
    const rows = planTurnRows(sessionId, turn, {
      ids: this.#ids,
      timestamp: new Date(now).toISOString(),
    });
    const held = this.#held.get(sessionId);
    // A set title is kept (the update sets it only when NULL): no need to
    // derive one. Known only while this handle holds the lease.
    const title = held?.titled === true
      ? null
      : deriveTitle(turn.userText) ?? null;
    const next = this.#write(() => {
      // The session's row first: no row changed ⇒ no such visible session.
      const updated = this.#sql.updateAfterTurn.run(
        turn.tokensUsed.input,
        turn.tokensUsed.output,
        costOf(turn.costs),
        title,
        this.#modelRef(turn.modelId, this.#catalog.sessions),
        now,
        sessionId,
      );
      if (Number(updated.changes) === 0) throw new SessionNotFoundError();
      this.#guard(sessionId);
      this.#addCosts(sessionId, turn.costs, now);
      let seq = held?.nextSequence ??
        Number(this.#sql.nextSequence.get(sessionId)?.["n"] ?? 0);
      const modelRef = this.#modelRef(turn.modelId, this.#catalog.messages);
      for (const row of rows) {
        this.#sql.insertMessage.run(
          row.id,
          sessionId,
          seq++,
          row.role,
          JSON.stringify(row.content),
          row.role === "assistant" ? modelRef : null,
          now,
        );
      }
      if (turn.turnsUsed !== undefined) {
        this.#sql.raiseTurnsUsed.run(sessionId, turn.turnsUsed);
      }
      writeTurnUsage(
        this.#sql,
        sessionId,
        turnUsageDelta(turn.turnsUsed, turn.costs, true),
      );
      return seq;
    });
    // Committed: what this handle wrote holds until another connection
    // commits (the guard then forgets it).
    if (held !== undefined && this.#held.get(sessionId) === held) {
      held.nextSequence = next;
      if (title !== null) held.titled = true;
    }
  }

  recordCosts(
    sessionId: string,
    costs: CostEntry[],
    turnsUsed?: number,
  ): void {
    for (const cost of costs) checkCost(cost);
    checkTurnsUsed(turnsUsed);
    const now = this.#clock.now();
    this.#writeSession(sessionId, () => {
      this.#addSessionCosts(sessionId, costs, now);
      if (turnsUsed !== undefined) {
        this.#sql.raiseTurnsUsed.run(sessionId, turnsUsed);
      }
      writeTurnUsage(
        this.#sql,
        sessionId,
        turnUsageDelta(turnsUsed, costs, false),
      );
    });
  }

  appendMarker(sessionId: string, marker: BoundaryMarker): number | undefined {
    const content = markerContent(marker);
    const costs = marker.costs ?? [];
    for (const cost of costs) checkCost(cost);
    const now = this.#clock.now();
    const timestamp = new Date(now).toISOString();
    const id = this.#ids();
    // Its row takes a sequence number the held-session cache knows nothing of.
    if (this.#held.has(sessionId)) {
      delete this.#held.get(sessionId)?.nextSequence;
    }
    return this.#writeSession(sessionId, () => {
      const d = insertMarkerRow(this.#sql, sessionId, {
        id,
        content,
        keptTurnCount: marker.keptTurnCount,
        now,
        timestamp,
      });
      const used = marker.tokensUsed ?? { input: 0, output: 0 };
      this.#sql.addTokens.run(used.input, used.output, now, sessionId);
      this.#addSessionCosts(sessionId, costs, now);
      return d;
    });
  }

  allocateTurnKey(sessionId: string): number {
    // Advanced without waiting for the disk: a killed process never gets
    // the key back (the write is in the log), and an OS crash or power
    // loss can lose the advance only together with everything the turn
    // would have written under it, since the turn's commit syncs the log
    // and every frame before it.
    return this.#writeSession(sessionId, () => {
      const state = this.#sql.turnMark.get(sessionId);
      let mark: unknown = state?.["mark"];
      if (state === undefined || mark === 0) {
        const rows = this.#sql.assistantRows.all(sessionId);
        mark = seedTurnKey(
          rows.map((r) => decodeMessageRow(r as unknown as MessageRow)),
        );
      }
      const next = nextTurnKey(mark);
      this.#sql.upsertTurnMark.run(sessionId, next);
      return next;
    }, "process");
  }

  setStatus(sessionId: string, status: "active" | "ended"): void {
    if (status !== "active" && status !== "ended") {
      throw new TypeError("Cannot set status: expected active or ended");
    }
    this.#update(() => {
      this.#guard(sessionId);
      return this.#sql.setStatus.run(status, this.#clock.now(), sessionId);
    });
  }

  markExported(sessionId: string, workflowPath: string): void {
    if (typeof workflowPath !== "string" || !isAbsolute(workflowPath)) {
      throw new TypeError("Cannot mark exported: the path must be absolute");
    }
    this.#update(() => this.#sql.markExported.run(workflowPath, sessionId));
  }

  #update(run: () => { changes: number | bigint }): void {
    this.#write(() => {
      if (Number(run().changes) === 0) throw new SessionNotFoundError();
    });
  }

  softDelete(sessionId: string): boolean {
    const now = this.#clock.now();
    return this.#write(() =>
      Number(this.#sql.softDelete.run(now, sessionId).changes) > 0
    );
  }

  list(): AgentSessionRecord[] {
    return this.#sql.listVisible.all().map((r) =>
      this.#rows.decode(r as unknown as SessionRow)
    );
  }

  load(sessionId: string): LoadedSession | undefined {
    return this.#loadWith(sessionId, (row) => this.#rows.decode(row));
  }

  /**
   * A session's transcript and every column of its row but the context,
   * which is neither read nor checked (a command that does not use it,
   * `chat-export`, loads no schema for it). Otherwise as `load`.
   *
   * @param sessionId The session.
   * @returns The row without its context and the messages, or
   * `undefined` when there is no such visible session.
   * @throws {SessionRecordError} A damaged column other than the context.
   */
  loadHeader(
    sessionId: string,
  ): { record: SessionHeader; messages: SessionMessage[] } | undefined {
    return this.#loadWith(sessionId, decodeSessionHeader);
  }

  #loadWith<R extends { id: string }>(
    sessionId: string,
    decode: (row: SessionRow) => R,
  ): { record: R; messages: SessionMessage[] } | undefined {
    // Rows are decoded page by page inside the read transaction, so each
    // page's raw SQLite values become garbage while young instead of all
    // 10k rows (and their duplicate text) staying live until decoded.
    return transaction(this.#db, () => {
      try {
        const session = this.#sql.visibleSessionFull.get(sessionId);
        if (session === undefined) return undefined;
        const record = decode(session as unknown as SessionRow);
        return {
          record,
          messages: readMessages(this.#sql, sessionId, record.id),
        };
      } catch (error) {
        if (!isOutOfRange(error)) throw error;
        // An integer at the 64-bit limits: read again, wide, so the
        // codecs name the damaged column (and row).
        return this.#loadWide(sessionId, decode);
      }
    }, { begin: "DEFERRED", sleep: this.#sleep });
  }

  #loadWide<R>(
    sessionId: string,
    decode: (row: SessionRow) => R,
  ): { record: R; messages: SessionMessage[] } | undefined {
    const session = readWide(
      this.#sql.visibleSessionFull,
      (s) => s.get(sessionId),
    );
    if (session === undefined) return undefined;
    const record = decode(session as unknown as SessionRow);
    const rows = readWide(this.#sql.messagesOf, (s) => s.all(sessionId));
    const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
    const messages: SessionMessage[] = [];
    decodeFullPage(rows, memo, messages);
    return { record, messages };
  }

  costs(sessionId: string): ModelCostTotals[] {
    this.#costsOf ??= prepareCostTotals(this.#db);
    return readCostTotals(this.#costsOf, sessionId);
  }

  turnUsage(sessionId: string): TurnUsage[] {
    this.#turnUsageOf ??= prepareTurnUsage(this.#db);
    return readTurnUsage(this.#turnUsageOf, sessionId);
  }

  beginInvocation(sessionId: string, invocation: InvocationStart): string {
    checkInvocationStart(invocation);
    const now = this.#clock.now();
    const id = this.#ids();
    // Written before the request leaves, without waiting for the disk: a
    // killed process leaves it pending (what coverage is for); a power
    // loss can lose it along with the in-flight call's reply.
    // The lease is checked; the session's existence is the row's foreign
    // key; the heartbeat has its own timer.
    this.#write(() => {
      this.#guard(sessionId);
      this.#journal.begin(sessionId, id, invocation, now);
    }, "process");
    return id;
  }

  settleInvocation(
    sessionId: string,
    settlement: InvocationSettlement,
  ): void {
    checkSettlement(settlement);
    // Applied by the next write, which checks the lease.
    this.#settles.push({ sessionId, settlement, at: this.#clock.now() });
  }

  coverage(sessionId: string): UsageCoverage {
    if (this.#settles.length > 0) this.#write(() => {});
    return transaction(
      this.#db,
      () => this.#journal.coverage(sessionId),
      { begin: "DEFERRED", sleep: this.#sleep },
    );
  }

  acquireLease(sessionId: string, claim: LeaseClaim): LeaseAnswer {
    if (typeof claim.holderId !== "string" || claim.holderId === "") {
      throw new TypeError("Cannot take the lease: empty holderId");
    }
    const now = this.#clock.now();
    const answer = this.#write(() => {
      this.#requireVisible(sessionId);
      return this.#journal.acquire(sessionId, claim, now);
    });
    if (answer.ok) {
      this.#held.set(sessionId, { holderId: claim.holderId });
    }
    return answer;
  }

  renewLease(sessionId: string, holderId: string): boolean {
    const now = this.#clock.now();
    return this.#write(() => this.#journal.renew(sessionId, holderId, now));
  }

  releaseLease(sessionId: string, holderId: string): void {
    this.#write(() => this.#journal.release(sessionId, holderId));
    if (this.#held.get(sessionId)?.holderId === holderId) {
      this.#held.delete(sessionId);
    }
  }

  /**
   * The holder whose lease fences this handle's writes on the session:
   * each, journal entries included, first checks inside its own
   * transaction that the stored lease is still this holder's, and throws
   * when it is not (`host/lease.ts` then reads no lease of its own before
   * a journaled provider call). `undefined` when this handle holds none.
   * Read from memory: no I/O.
   *
   * @param sessionId The session.
   * @returns The holder id, or `undefined`.
   */
  fencedHolder(sessionId: string): string | undefined {
    return this.#held.get(sessionId)?.holderId;
  }

  readLease(sessionId: string): SessionLease | undefined {
    return this.#journal.lease(sessionId)?.lease;
  }

  clearLease(sessionId: string): SessionLease | undefined {
    const removed = this.#write(() => this.#journal.clear(sessionId));
    this.#held.delete(sessionId);
    return removed;
  }

  close(): void {
    if (this.#closed) return;
    if (this.#settles.length > 0) {
      try {
        this.#write(() => {});
      } catch {
        // Left pending: the coverage journal says so, and totals say "at least".
      }
    }
    this.#closed = true;
    this.#db.close();
  }
}
