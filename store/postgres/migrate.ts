/**
 * Copying every session of a `history.db` into Postgres, row for row:
 * each table's columns verbatim (ids, sequence numbers, times, totals,
 * costs, boundary markers, turns used, the per-turn figures, the usage
 * journal), so the copy reads, resumes and exports exactly as the
 * original. Soft-deleted sessions are copied too, still deleted. Leases
 * are not copied (a lease is a running process's claim on the file, not
 * part of the session).
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
import { StoreOpenError } from "../errors.ts";
import { openDatabaseForRead, storeOpenCause } from "../sqlite_file.ts";
import { openSqliteStore, openSqliteStoreForRead } from "../sqlite_store.ts";
import type { LoadedSession, SessionStore } from "../store.ts";
import { connectPool, scrubbed, type Sql, urlSecrets } from "./_connect.ts";
import { openPostgresStore } from "./open.ts";
import {
  insertRows,
  readPostgresRows,
  readSqliteRows,
  rowsDifference,
} from "./_session_rows.ts";

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
  const read = readSqliteRows(source.db, id, now);
  if (!read.ok) return { id, outcome: read.outcome, detail: read.detail };
  let outcome: "copied" | "skipped" = "skipped";
  const present = await readPostgresRows(sql, id);
  if ((present[0] ?? []).length === 0) {
    try {
      await insertRows(sql, read.rows);
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
    const differs = rowsDifference(read.rows, present);
    if (differs !== undefined) {
      return { id, outcome: "conflict", detail: differs };
    }
  }
  const back = rowsDifference(read.rows, await readPostgresRows(sql, id));
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
