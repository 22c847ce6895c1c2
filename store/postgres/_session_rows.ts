/**
 * The rows of one session as the migration copies them: every table a
 * session has rows in, its columns verbatim (text, integers, NULL) in one
 * order; read from `history.db` (checked and decoded as the stores read
 * them) or from Postgres, compared, and inserted in one transaction.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { SessionMessageBoundaryError, SessionRecordError } from "../errors.ts";
import { decodeSessionRow, type SessionRow } from "../record_codec.ts";
import { decodeRead } from "../sqlite_read.ts";
import { LEASE_STALE_MS } from "../lease_policy.ts";
import { MESSAGE_COLUMN_ORDER } from "../sqlite_statements.ts";
import type { Sql } from "./_connect.ts";

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

/**
 * A table of `columns`: names separated by spaces, an integer column
 * marked `:int` (every other one is text).
 */
function table(
  name: string,
  key: string,
  columns: string,
  order: string,
  pgOrder = order,
): Table {
  const all = columns.trim().split(/\s+/);
  return {
    name,
    key,
    columns: all.map((c) => c.replace(/:int$/, "")),
    ints: new Set(
      all.filter((c) => c.endsWith(":int")).map((c) => c.slice(0, -4)),
    ),
    order: { sqlite: order, pg: pgOrder },
  };
}

/** Every table a session has rows in, parents first. */
const TABLES: readonly Table[] = [
  table(
    "agent_sessions",
    "id",
    `id agent_id agent_slug agent_snapshot title model_id working_dir git_ref
    fs_scope_tier status context_json total_input_tokens:int
    total_output_tokens:int total_cost_microcents:int exported_workflow_path
    deleted_at:int created_at:int updated_at:int`,
    "id",
  ),
  table(
    "session_messages",
    "session_id",
    MESSAGE_COLUMN_ORDER.map((c) =>
      c === "sequence_number" || c === "created_at" ||
        c === "compaction_dropped_through_sequence"
        ? `${c}:int`
        : c
    ).join(" "),
    "sequence_number",
  ),
  // Postgres orders equal times by `ord`, SQLite by rowid: insertion order.
  table(
    "session_costs",
    "session_id",
    `id session_id model model_catalog_id input_tokens:int output_tokens:int
    cost_microcents:int call_count:int unpriced_calls:int created_at:int
    updated_at:int is_legacy:int`,
    "created_at, rowid",
    "created_at, ord",
  ),
  table(
    "relavium_session_state",
    "session_id",
    "session_id effect_turn_high_water:int total_conservative_microcents:int",
    "session_id",
  ),
  table(
    "relavium_session_turns",
    "session_id",
    "session_id turns_used:int",
    "session_id",
  ),
  table(
    "relavium_cost_details",
    "session_id",
    `session_id model cache_read_tokens:int cache_write_tokens:int
    cache_read_microcents:int cache_write_microcents:int
    usage_unknown_calls:int`,
    "model",
  ),
  table(
    "relavium_open_invocations",
    "session_id",
    `session_id id purpose provider model status coverage input_tokens:int
    output_tokens:int cost_microcents:int started_at:int settled_at:int
    turn_number:int`,
    "id",
  ),
  table(
    "relavium_turn_usage",
    "session_id",
    `session_id turn_number:int input_tokens:int output_tokens:int
    cost_microcents:int`,
    "turn_number",
  ),
];

/** A stored value as both stores give it back: text, an integer, or NULL. */
type Value = string | number | null;

/** A session's rows, by table, in {@linkcode TABLES} order. */
export type SessionRows = Value[][][];

function damagedValue(t: Table, column: string, value: unknown): boolean {
  if (value === null) return false;
  return t.ints.has(column)
    ? !(typeof value === "number" && Number.isSafeInteger(value))
    : typeof value !== "string";
}

/** The session's rows from the file, checked and decoded; or why not. */
export function readSqliteRows(
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
export async function readPostgresRows(
  sql: Sql,
  id: string,
): Promise<SessionRows> {
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
export function rowsDifference(
  a: SessionRows,
  b: SessionRows,
): string | undefined {
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
export async function insertRows(sql: Sql, rows: SessionRows): Promise<void> {
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
