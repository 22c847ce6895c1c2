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

/** One listed session: the columns `chat-list` prints. */
export type SessionListEntry = Pick<
  AgentSessionRecord,
  | "id"
  | "agentSlug"
  | "title"
  | "status"
  | "modelId"
  | "createdAt"
  | "updatedAt"
  | "totalCostMicrocents"
>;

const STATUSES: ReadonlySet<unknown> = new Set([
  "active",
  "idle",
  "exported",
  "ended",
]);

const LIST_SQL = `SELECT id, agent_slug, title, status, model_id,
  total_cost_microcents, created_at, updated_at
  FROM agent_sessions WHERE deleted_at IS NULL
  ORDER BY updated_at DESC, id DESC`;

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

function entry(row: Record<string, unknown>): SessionListEntry {
  const cost = row["total_cost_microcents"];
  if (typeof cost !== "number" || !Number.isSafeInteger(cost) || cost < 0) {
    throw new SessionRecordError("invalid_record");
  }
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
 * the sessions table lists nothing. The file is opened as the store opens
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
    const table = db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_sessions'",
    ).get();
    if (table === undefined) return [];
    const rows = db.prepare(LIST_SQL).all().map((r) =>
      entry(r as Record<string, unknown>)
    );
    secureSidecars(path);
    return rows;
  } finally {
    db.close();
  }
}
