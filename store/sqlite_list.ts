/**
 * The session list read straight from a `history.db` file, without the
 * store: only the columns a listing prints, checked by hand, so a listing
 * loads neither zod nor the statements of a full store. A damaged row can
 * be skipped and reported instead of failing the whole listing.
 *
 * @module
 */
import type { AgentSessionRecord } from "./store.ts";
import { SessionRecordError, StoreOpenError } from "./errors.ts";
import {
  foreignObjects,
  foreignObjectsReason,
  missingColumnsOfExisting,
} from "./ddl.ts";
import { openDatabaseForRead } from "./sqlite_file.ts";

/**
 * One listed session: the columns `chat-list` prints, with its usage
 * coverage (`relavium_open_invocations`): `totalCostMicrocents` includes the
 * settled spend no turn recorded yet, and `unaccountedCalls` counts the
 * calls still pending (their spend unknown: the total is a lower bound).
 * `workingDir` is the folder the session was started in (absent on rows
 * that did not record one), `turns` its completed turns, and `engaged`
 * whether it has anything to show: a completed turn, or a provider call
 * that was made (recorded spend, a journaled call, a provider-engaged
 * turn that failed). A chat that ended before any of these is not
 * engaged, and listings leave it out.
 */
export type SessionListEntry =
  & Pick<
    AgentSessionRecord,
    | "id"
    | "agentSlug"
    | "title"
    | "status"
    | "modelId"
    | "createdAt"
    | "updatedAt"
    | "totalCostMicrocents"
  >
  & {
    unaccountedCalls: number;
    workingDir?: string;
    turns: number;
    engaged: boolean;
  };

const STATUSES: ReadonlySet<unknown> = new Set([
  "active",
  "idle",
  "exported",
  "ended",
]);

// Terminal assistant rows (a turn's answer): no tool call among the parts,
// none in the upstream `tool_calls` column.
const TURNS_SQL = `(SELECT COUNT(*) FROM session_messages m
    WHERE m.session_id = s.id AND m.role = 'assistant' AND m.tool_calls IS NULL
    AND NOT EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(m.content_parts)
      THEN m.content_parts ELSE '[]' END) j
      WHERE j.type = 'object' AND json_extract(j.value, '$.type') = 'tool_call'))`;

/**
 * The listing's statement for the tables a file has: an upstream file, or
 * one of an older version, lacks the journal or the turn counts, and its
 * sessions are then fully accounted and engaged only by turns or costs.
 */
function listSql(has: (table: string) => boolean): string {
  const journal = has("relavium_open_invocations");
  const pending = journal
    ? `(SELECT COUNT(*) FROM relavium_open_invocations i
    WHERE i.session_id = s.id AND i.status = 'pending')`
    : "0";
  const unrecorded = journal
    ? `(SELECT COALESCE(SUM(i.cost_microcents), 0) FROM relavium_open_invocations i
    WHERE i.session_id = s.id AND i.status = 'settled')`
    : "0";
  // A call that never left spent nothing, so it is no longer open.
  const sent = journal
    ? `EXISTS (SELECT 1 FROM relavium_open_invocations i
    WHERE i.session_id = s.id)`
    : "0";
  const used = has("relavium_session_turns")
    ? `COALESCE((SELECT t.turns_used FROM relavium_session_turns t
    WHERE t.session_id = s.id), 0) > 0`
    : "0";
  return `SELECT s.rowid AS row_number, s.id, s.agent_slug, s.title,
  s.status, s.model_id, s.working_dir, s.total_cost_microcents, s.created_at,
  s.updated_at, ${pending} AS unaccounted, ${unrecorded} AS unrecorded,
  ${TURNS_SQL} AS turns,
  (${used} OR ${sent} OR s.total_cost_microcents > 0 OR EXISTS (SELECT 1
    FROM session_costs c WHERE c.session_id = s.id)) AS engaged
  FROM agent_sessions s WHERE s.deleted_at IS NULL
  ORDER BY s.updated_at DESC, s.id DESC`;
}

/**
 * A visible `agent_sessions` row the listing could not use: its id (when
 * that column is a usable string), its SQLite rowid, and the column found
 * invalid.
 */
export interface DamagedSessionRow {
  /** `agent_sessions.id`, when it is a non-empty string. */
  id?: string;
  /** The row's SQLite `rowid`. */
  rowNumber: number;
  /** The `table.column` found invalid. */
  field: string;
}

function bad(field: string): SessionRecordError {
  return new SessionRecordError("invalid_record", field);
}

function text(v: unknown, field: string): string {
  if (typeof v !== "string" || v === "") throw bad(field);
  return v;
}

function optionalText(v: unknown, field: string): string | undefined {
  if (v === null) return undefined;
  if (typeof v !== "string") throw bad(field);
  return v;
}

function iso(v: unknown, field: string): string {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) throw bad(field);
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw bad(field);
  return d.toISOString();
}

function count(v: unknown, field: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw bad(field);
  }
  return v;
}

function entry(row: Record<string, unknown>): SessionListEntry {
  const unrecorded = count(
    row["unrecorded"],
    "relavium_open_invocations.cost_microcents",
  );
  const cost = count(
    row["total_cost_microcents"],
    "agent_sessions.total_cost_microcents",
  ) + unrecorded;
  if (!STATUSES.has(row["status"])) throw bad("agent_sessions.status");
  const e: SessionListEntry = {
    id: text(row["id"], "agent_sessions.id"),
    agentSlug: text(row["agent_slug"], "agent_sessions.agent_slug"),
    status: row["status"] as SessionListEntry["status"],
    createdAt: iso(row["created_at"], "agent_sessions.created_at"),
    updatedAt: iso(row["updated_at"], "agent_sessions.updated_at"),
    totalCostMicrocents: cost,
    unaccountedCalls: count(
      row["unaccounted"],
      "relavium_open_invocations.status",
    ),
    turns: count(row["turns"], "session_messages.role"),
    engaged: false,
  };
  e.engaged = e.turns > 0 || e.unaccountedCalls > 0 || row["engaged"] === 1;
  const workingDir = optionalText(
    row["working_dir"],
    "agent_sessions.working_dir",
  );
  if (workingDir !== undefined && workingDir !== "") e.workingDir = workingDir;
  const title = optionalText(row["title"], "agent_sessions.title");
  if (title !== undefined) e.title = title;
  const modelId = optionalText(row["model_id"], "agent_sessions.model_id");
  if (modelId !== undefined) e.modelId = modelId;
  return e;
}

function damage(
  row: Record<string, unknown>,
  error: SessionRecordError,
): DamagedSessionRow {
  const id = row["id"];
  const rowNumber = row["row_number"];
  const d: DamagedSessionRow = {
    rowNumber: typeof rowNumber === "number" ? rowNumber : 0,
    field: error.field ?? "agent_sessions",
  };
  if (typeof id === "string" && id !== "") d.id = id;
  return d;
}

/**
 * The visible (not deleted) sessions of an existing `history.db`, newest
 * `updatedAt` first, as `SessionStore.list()` orders them, engaged or not
 * (`engaged` tells). A file without
 * the sessions table lists nothing; one without the journal (older) lists
 * every session as fully accounted. The file is opened read-only (nothing
 * is created, chmod-ed or written: a read-only store lists) and closed
 * before returning.
 *
 * @param path The `history.db` path (it must exist).
 * @param options `damaged`: when given, a row that fails its checks is
 * left out of the listing and described here instead of thrown.
 * @returns The listed sessions.
 * @throws {SessionRecordError} `invalid_record` naming the column, for a
 * corrupt row when `damaged` is not given; {@linkcode StoreOpenError} or
 * whatever SQLite throws for a file it cannot open or read.
 */
export function listSqliteSessions(
  path: string,
  options: { damaged?: DamagedSessionRow[] } = {},
): SessionListEntry[] {
  const db = openDatabaseForRead(path, 5000);
  try {
    const has = (name: string): boolean =>
      db.prepare(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
      ).get(name) !== undefined;
    const foreign = foreignObjects(db);
    if (foreign.length > 0) {
      throw new StoreOpenError({ reason: foreignObjectsReason(foreign) });
    }
    if (!has("agent_sessions")) return [];
    const missing = missingColumnsOfExisting(db);
    if (missing.length > 0) {
      throw new StoreOpenError({
        reason: missing.map((c) => `${c} is missing`).join("; "),
      });
    }
    const sql = listSql(has);
    const out: SessionListEntry[] = [];
    for (const r of db.prepare(sql).all()) {
      const row = r as Record<string, unknown>;
      try {
        out.push(entry(row));
      } catch (error) {
        if (
          options.damaged === undefined ||
          !(error instanceof SessionRecordError)
        ) throw error;
        options.damaged.push(damage(row, error));
      }
    }
    return out;
  } finally {
    db.close();
  }
}
