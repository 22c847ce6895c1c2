/**
 * Copying every session of a `history.db` into Postgres, row for row:
 * each table's columns verbatim (ids, sequence numbers, times, totals,
 * costs, boundary markers, turns used, the usage journal), so the copy
 * reads, resumes and exports exactly as the original. Soft-deleted
 * sessions are copied too, still deleted. Leases are not copied (a lease
 * is a running process's claim on the file, not part of the session).
 *
 * Per session, in order: its rows are read in one SQLite read
 * transaction and decoded as the stores decode them (a damaged row is
 * named and the session not copied); a session a live writer holds (a
 * lease heartbeat under a minute old) is not copied; a session absent
 * from Postgres is inserted in one transaction (never half a session);
 * one already there with the same rows is skipped, one with other rows
 * is reported and left as it is. Then every copied or skipped session is
 * verified: its rows read back from Postgres equal the file's, and a
 * visible session's export (`exportText`) has the same bytes from both
 * stores.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  SessionMessageBoundaryError,
  SessionRecordError,
  StoreOpenError,
} from "../errors.ts";
import { decodeSessionRow, type SessionRow } from "../record_codec.ts";
import { decodeRead } from "../sqlite_read.ts";
import { openDatabaseForRead, storeOpenCause } from "../sqlite_file.ts";
import { openSqliteStore, openSqliteStoreForRead } from "../sqlite_store.ts";
import { LEASE_STALE_MS } from "../lease_policy.ts";
import { MESSAGE_COLUMN_ORDER } from "../sqlite_statements.ts";
import type { LoadedSession, SessionStore } from "../store.ts";
import { connectPool, scrubbed, type Sql, urlSecrets } from "./_connect.ts";
import { openPostgresStore } from "./open.ts";

/** One table of a session as copied: its columns and its row order. */
interface Table {
  name: string;
  columns: readonly string[];
  /** The integer columns (every other one is text). */
  ints: ReadonlySet<string>;
  /** The column naming the session. */
  key: string;
  /** Row order in SQLite and in Postgres (the same rows, the same order). */
  order: { sqlite: string; pg: string };
}

function table(
  name: string,
  key: string,
  columns: readonly string[],
  ints: readonly string[],
  order: string,
  pgOrder = order,
): Table {
  return {
    name,
    key,
    columns,
    ints: new Set(ints),
    order: { sqlite: order, pg: pgOrder },
  };
}

/** Every table a session has rows in, parents first. */
const TABLES: readonly Table[] = [
  table("agent_sessions", "id", [
    "id",
    "agent_id",
    "agent_slug",
    "agent_snapshot",
    "title",
    "model_id",
    "working_dir",
    "git_ref",
    "fs_scope_tier",
    "status",
    "context_json",
    "total_input_tokens",
    "total_output_tokens",
    "total_cost_microcents",
    "exported_workflow_path",
    "deleted_at",
    "created_at",
    "updated_at",
  ], [
    "total_input_tokens",
    "total_output_tokens",
    "total_cost_microcents",
    "deleted_at",
    "created_at",
    "updated_at",
  ], "id"),
  table("session_messages", "session_id", MESSAGE_COLUMN_ORDER, [
    "sequence_number",
    "created_at",
    "compaction_dropped_through_sequence",
  ], "sequence_number"),
  // Postgres orders equal times by `ord`, SQLite by rowid: insertion order.
  table(
    "session_costs",
    "session_id",
    [
      "id",
      "session_id",
      "model",
      "model_catalog_id",
      "input_tokens",
      "output_tokens",
      "cost_microcents",
      "call_count",
      "unpriced_calls",
      "created_at",
      "updated_at",
      "is_legacy",
    ],
    [
      "input_tokens",
      "output_tokens",
      "cost_microcents",
      "call_count",
      "unpriced_calls",
      "created_at",
      "updated_at",
      "is_legacy",
    ],
    "created_at, rowid",
    "created_at, ord",
  ),
  table(
    "relavium_session_state",
    "session_id",
    [
      "session_id",
      "effect_turn_high_water",
      "total_conservative_microcents",
    ],
    ["effect_turn_high_water", "total_conservative_microcents"],
    "session_id",
  ),
  table("relavium_session_turns", "session_id", ["session_id", "turns_used"], [
    "turns_used",
  ], "session_id"),
  table("relavium_cost_details", "session_id", [
    "session_id",
    "model",
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_read_microcents",
    "cache_write_microcents",
    "usage_unknown_calls",
  ], [
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_read_microcents",
    "cache_write_microcents",
    "usage_unknown_calls",
  ], "model"),
  table("relavium_open_invocations", "session_id", [
    "session_id",
    "id",
    "purpose",
    "provider",
    "model",
    "status",
    "coverage",
    "input_tokens",
    "output_tokens",
    "cost_microcents",
    "started_at",
    "settled_at",
    "turn_number",
  ], [
    "input_tokens",
    "output_tokens",
    "cost_microcents",
    "started_at",
    "settled_at",
    "turn_number",
  ], "id"),
];

/** A stored value as both stores give it back: text, an integer, or NULL. */
type Value = string | number | null;

/** A session's rows, by table, in {@linkcode TABLES} order. */
type SessionRows = Value[][][];

/** What happened to one session. */
export type MigratedSession =
  | {
    id: string;
    /** Inserted now / already in Postgres with the same rows. */
    outcome: "copied" | "skipped";
    /** Whether its rows and (when visible) its export matched after the copy. */
    verified: boolean;
    /** When not verified: what differed. */
    detail?: string;
  }
  | {
    id: string;
    /**
     * `conflict`: in Postgres with other rows (left as it is);
     * `damaged`: a row of the file cannot be read; `busy`: a writer
     * holds it now. None of them is copied.
     */
    outcome: "conflict" | "damaged" | "busy";
    /** The table and column, or what differs, in words (no stored value). */
    detail: string;
  };

/** The result of {@linkcode migrateToPostgres}. */
export interface MigrationReport {
  /** Every session of the file, oldest first. */
  sessions: MigratedSession[];
}

/** Options of {@linkcode migrateToPostgres}. */
export interface MigrateOptions {
  /** The `history.db` to copy (it must exist; it is only read). */
  from: string;
  /** The Postgres URL (never in an error or the report). */
  url: string;
  /** A session's export text, compared between the two stores. */
  exportText(loaded: LoadedSession): string;
  /** Epoch ms, to judge a lease live; default the system clock. */
  now?: () => number;
}

function damagedValue(t: Table, column: string, value: unknown): boolean {
  if (value === null) return false;
  return t.ints.has(column)
    ? !(typeof value === "number" && Number.isSafeInteger(value))
    : typeof value !== "string";
}

/** The session's rows from the file, checked and decoded; or why not. */
function readSqlite(
  db: DatabaseSync,
  id: string,
  now: number,
): { ok: true; rows: SessionRows } | {
  ok: false;
  outcome: "damaged" | "busy";
  detail: string;
} {
  db.exec("BEGIN");
  try {
    const lease = db.prepare(
      "SELECT heartbeat_at FROM relavium_session_leases WHERE session_id = ?",
    ).get(id);
    const beat = lease?.["heartbeat_at"];
    if (typeof beat === "number" && now - beat <= LEASE_STALE_MS) {
      return {
        ok: false,
        outcome: "busy",
        detail: "a chat holds its writer lease",
      };
    }
    const rows: SessionRows = [];
    for (const t of TABLES) {
      const got = db.prepare(
        `SELECT ${t.columns.join(", ")} FROM ${t.name} WHERE ${t.key} = ?
         ORDER BY ${t.order.sqlite}`,
      ).all(id);
      const out: Value[][] = [];
      for (const r of got) {
        for (const c of t.columns) {
          if (damagedValue(t, c, r[c])) {
            return {
              ok: false,
              outcome: "damaged",
              detail: `${t.name}.${c} is invalid`,
            };
          }
        }
        out.push(t.columns.map((c) => r[c] as Value));
      }
      rows.push(out);
    }
    const decoded = decodes(rows);
    return decoded === undefined
      ? { ok: true, rows }
      : { ok: false, outcome: "damaged", detail: decoded };
  } finally {
    db.exec("COMMIT");
  }
}

/** An object of a table's row, by column name. */
function named(t: Table, row: readonly Value[]): Record<string, Value> {
  return Object.fromEntries(t.columns.map((c, i) => [c, row[i] ?? null]));
}

/**
 * Decodes the session row and every message row as the stores read them;
 * `undefined` when all decode, else the damaged field in words.
 */
function decodes(rows: SessionRows): string | undefined {
  const [sessions, messages, , state, turns] = rows;
  const session = sessions?.[0];
  if (session === undefined) return "agent_sessions row is missing";
  const row = {
    ...named(TABLES[0] as Table, session),
    total_conservative_microcents: state?.[0]?.[2] ?? null,
    turns_used: turns?.[0]?.[1] ?? null,
  } as unknown as SessionRow;
  const memo = { epoch: Number.NaN, iso: "" };
  try {
    decodeSessionRow(row);
    for (const m of messages ?? []) {
      decodeRead(named(TABLES[1] as Table, m), memo);
    }
  } catch (e) {
    if (e instanceof SessionRecordError) {
      return `${e.field ?? "agent_sessions"} is ${
        e.code === "malformed_json" ? "not valid JSON" : "invalid"
      }`;
    }
    if (e instanceof SessionMessageBoundaryError) {
      return `session_messages row at sequence_number ${
        e.sequenceNumber ?? "unknown"
      } is invalid (${e.code})`;
    }
    throw e;
  }
  return undefined;
}

/** The session's rows in Postgres (empty tables when it is not there). */
async function readPostgres(sql: Sql, id: string): Promise<SessionRows> {
  const rows: SessionRows = [];
  for (const t of TABLES) {
    const got = await sql.unsafe(
      `SELECT ${t.columns.join(", ")} FROM ${t.name} WHERE ${t.key} = $1
       ORDER BY ${t.order.pg}`,
      [id],
    ).values();
    rows.push(got.map((r) => (r as unknown[]).map((v) => v as Value)));
  }
  return rows;
}

/** The first table whose rows differ, or `undefined` when all are equal. */
function difference(a: SessionRows, b: SessionRows): string | undefined {
  for (let i = 0; i < TABLES.length; i++) {
    if (JSON.stringify(a[i] ?? []) !== JSON.stringify(b[i] ?? [])) {
      return `its ${TABLES[i]?.name} rows differ`;
    }
  }
  return undefined;
}

/** Rows per INSERT statement (far below the protocol's 65,535 parameters). */
const BATCH_ROWS = 400;

/** Inserts the session's rows in one transaction. */
async function insert(sql: Sql, rows: SessionRows): Promise<void> {
  await sql.begin(async (tx) => {
    for (let i = 0; i < TABLES.length; i++) {
      const t = TABLES[i] as Table;
      const all = rows[i] ?? [];
      for (let at = 0; at < all.length; at += BATCH_ROWS) {
        const batch = all.slice(at, at + BATCH_ROWS);
        const n = t.columns.length;
        const values = batch.map((_, r) =>
          `(${t.columns.map((_, c) => `$${r * n + c + 1}`).join(", ")})`
        ).join(", ");
        await tx.unsafe(
          `INSERT INTO ${t.name} (${t.columns.join(", ")}) VALUES ${values}`,
          batch.flat() as never[],
        );
      }
    }
  });
}

/**
 * Opens the file for reading, its schema brought to this version first.
 *
 * @throws {StoreOpenError} Naming the path and the cause.
 */
function openSource(path: string): { db: DatabaseSync; store: SessionStore } {
  let store: SessionStore | undefined;
  try {
    // Refuses a missing path before anything could create it.
    openDatabaseForRead(path, 5000).close();
    // A file without this version's tables gets them, as any command's open.
    store = openSqliteStoreForRead(path, { busyTimeoutMs: 5000 }) ??
      openSqliteStore(path, { busyTimeoutMs: 5000 });
    return { db: openDatabaseForRead(path, 5000), store };
  } catch (e) {
    store?.close();
    const cause = storeOpenCause(e);
    throw new StoreOpenError({
      cause: e,
      reason: cause.includes(path) ? cause : `${path}: ${cause}`,
    });
  }
}

/**
 * Copies every session of a `history.db` into Postgres and verifies the
 * copies (see the module doc). Safe to run again: a session already
 * copied is skipped, and nothing in Postgres is ever overwritten.
 *
 * @param options The file, the URL and the export to compare.
 * @returns What happened to each session.
 * @throws {StoreOpenError} When the file (the message names it) or the
 * server (the message never has the URL) cannot be opened; an `Error` named
 * `PostgresStoreError` (without the URL) when the server fails midway.
 */
export async function migrateToPostgres(
  options: MigrateOptions,
): Promise<MigrationReport> {
  const secrets = urlSecrets(options.url);
  const source = openSource(options.from);
  const now = options.now ?? (() => Date.now());
  let target: Awaited<ReturnType<typeof openPostgresStore>> | undefined;
  let sql: Sql | undefined;
  try {
    target = await openPostgresStore({ url: options.url, maxConnections: 2 });
    sql = await connectPool({
      url: options.url,
      statementTimeoutMs: 30_000,
      maxConnections: 1,
    });
    const ids = source.db.prepare(
      "SELECT id FROM agent_sessions ORDER BY created_at, id",
    ).all().map((r) => r["id"]);
    const sessions: MigratedSession[] = [];
    for (const [n, id] of ids.entries()) {
      if (typeof id !== "string") {
        sessions.push({
          id: `#${n + 1}`,
          outcome: "damaged",
          detail: "agent_sessions.id is invalid",
        });
        continue;
      }
      sessions.push(
        await migrateOne(source, target, sql, id, now(), options.exportText),
      );
    }
    return { sessions };
  } catch (e) {
    if (e instanceof Error && e.name === "StoreOpenError") throw e;
    throw scrubbed(e, secrets);
  } finally {
    await sql?.end({ timeout: 5 });
    await target?.close();
    source.db.close();
    source.store.close();
  }
}

async function migrateOne(
  source: { db: DatabaseSync; store: SessionStore },
  target: Awaited<ReturnType<typeof openPostgresStore>>,
  sql: Sql,
  id: string,
  now: number,
  exportText: (loaded: LoadedSession) => string,
): Promise<MigratedSession> {
  const read = readSqlite(source.db, id, now);
  if (!read.ok) return { id, outcome: read.outcome, detail: read.detail };
  let outcome: "copied" | "skipped" = "skipped";
  const present = await readPostgres(sql, id);
  if ((present[0] ?? []).length === 0) {
    try {
      await insert(sql, read.rows);
      outcome = "copied";
    } catch (e) {
      const code = (e as { code?: unknown } | null)?.code;
      if (code !== "23505") throw e;
      const constraint = (e as { constraint_name?: unknown }).constraint_name;
      return {
        id,
        outcome: "conflict",
        detail: `a row of it has an id already used in Postgres (${
          String(constraint ?? "unique")
        })`,
      };
    }
  } else {
    const differs = difference(read.rows, present);
    if (differs !== undefined) {
      return { id, outcome: "conflict", detail: differs };
    }
  }
  const back = difference(read.rows, await readPostgres(sql, id));
  if (back !== undefined) return { id, outcome, verified: false, detail: back };
  const lite = source.store.load(id);
  const pg = await target.load(id);
  if ((lite === undefined) !== (pg === undefined)) {
    return {
      id,
      outcome,
      verified: false,
      detail: "visible in one store only",
    };
  }
  if (
    lite !== undefined && pg !== undefined &&
    exportText(lite) !== exportText(pg)
  ) {
    return { id, outcome, verified: false, detail: "its exports differ" };
  }
  return { id, outcome, verified: true };
}
