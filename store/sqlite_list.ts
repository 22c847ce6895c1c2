/**
 * The session list read straight from a `history.db` file, without the
 * store: only the columns a listing prints, checked by hand, so a listing
 * loads neither zod nor the statements of a full store.
 *
 * @module
 */
import type { AgentSessionRecord } from "./store.ts";
import { SessionRecordError } from "./errors.ts";
import { openDatabaseFile, secureSidecars } from "./sqlite_file.ts";

/**
 * One listed session: the columns `chat-list` prints, with its usage
 * coverage (`relavium_invocations`): `totalCostMicrocents` includes the
 * settled spend no turn recorded yet, and `unaccountedCalls` counts the
 * calls still pending (their spend unknown: the total is a lower bound).
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
  & { unaccountedCalls: number };

const STATUSES: ReadonlySet<unknown> = new Set([
  "active",
  "idle",
  "exported",
  "ended",
]);

const LIST_SQL = `SELECT id, agent_slug, title, status, model_id,
  total_cost_microcents, created_at, updated_at, 0 AS unaccounted,
  0 AS unrecorded
  FROM agent_sessions WHERE deleted_at IS NULL
  ORDER BY updated_at DESC, id DESC`;

/** The listing of a file that has the usage-coverage journal. */
const LIST_WITH_COVERAGE_SQL = `SELECT s.id, s.agent_slug, s.title,
  s.status, s.model_id, s.total_cost_microcents, s.created_at, s.updated_at,
  (SELECT COUNT(*) FROM relavium_invocations i
    WHERE i.session_id = s.id AND i.status = 'pending') AS unaccounted,
  (SELECT COALESCE(SUM(i.cost_microcents), 0) FROM relavium_invocations i
    WHERE i.session_id = s.id AND i.status = 'settled' AND i.recorded = 0
  ) AS unrecorded
  FROM agent_sessions s WHERE s.deleted_at IS NULL
  ORDER BY s.updated_at DESC, s.id DESC`;

function text(v: unknown): string {
  if (typeof v !== "string" || v === "") {
    throw new SessionRecordError("invalid_record");
  }
  return v;
}

function optionalText(v: unknown): string | undefined {
  if (v === null) return undefined;
  if (typeof v !== "string") throw new SessionRecordError("invalid_record");
  return v;
}

function iso(v: unknown): string {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) {
    throw new SessionRecordError("invalid_record");
  }
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new SessionRecordError("invalid_record");
  return d.toISOString();
}

function count(v: unknown, field?: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new SessionRecordError("invalid_record", field);
  }
  return v;
}

function entry(row: Record<string, unknown>): SessionListEntry {
  const unrecorded = count(
    row["unrecorded"],
    "relavium_invocations.cost_microcents",
  );
  const cost = count(
    row["total_cost_microcents"],
    "agent_sessions.total_cost_microcents",
  ) + unrecorded;
  if (!STATUSES.has(row["status"])) {
    throw new SessionRecordError("invalid_record");
  }
  const e: SessionListEntry = {
    id: text(row["id"]),
    agentSlug: text(row["agent_slug"]),
    status: row["status"] as SessionListEntry["status"],
    createdAt: iso(row["created_at"]),
    updatedAt: iso(row["updated_at"]),
    totalCostMicrocents: cost,
    unaccountedCalls: count(row["unaccounted"]),
  };
  const title = optionalText(row["title"]);
  if (title !== undefined) e.title = title;
  const modelId = optionalText(row["model_id"]);
  if (modelId !== undefined) e.modelId = modelId;
  return e;
}

/**
 * The visible (not deleted) sessions of an existing `history.db`, newest
 * `updatedAt` first, as `SessionStore.list()` orders them. A file without
 * the sessions table lists nothing; one without the journal (older) lists
 * every session as fully accounted. The file is opened as the store opens
 * it (0600, WAL) and closed before returning.
 *
 * @param path The `history.db` path (it must exist).
 * @returns The listed sessions.
 * @throws {SessionRecordError} `invalid_record` for a corrupt row; whatever
 * SQLite throws for a file it cannot open.
 */
export function listSqliteSessions(path: string): SessionListEntry[] {
  const db = openDatabaseFile(path, 5000);
  try {
    const has = (name: string): boolean =>
      db.prepare(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
      ).get(name) !== undefined;
    if (!has("agent_sessions")) return [];
    const sql = has("relavium_invocations") ? LIST_WITH_COVERAGE_SQL : LIST_SQL;
    const rows = db.prepare(sql).all().map((r) =>
      entry(r as Record<string, unknown>)
    );
    secureSidecars(path);
    return rows;
  } finally {
    db.close();
  }
}
