/**
 * Opens the session store for CLI commands: `history.db` (the SQLite
 * `SessionStore`), or the Postgres store when the global config says
 * `[store] kind = "postgres"` (see `pg_store.ts`).
 *
 * @module
 */
import { dirname } from "../../schema/paths.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import {
  type DamagedSessionRow,
  listSqliteSessions,
  type SessionListEntry,
} from "../../store/sqlite_list.ts";
import { sqliteResultCode, storeOpenCause } from "../../store/sqlite_file.ts";
import { blockingSleep } from "../../store/sqlite_tx.ts";
import {
  SessionMessageBoundaryError,
  SessionRecordError,
} from "../../store/errors.ts";
import type {
  AgentSessionRecord,
  AsyncSessionStore,
  SessionStore,
} from "../../store/store.ts";
import type { SqliteStoreOptions } from "../../store/sqlite_options.ts";
import type { SessionMessage } from "../../schema/message.ts";
import { type ConfigPaths, locateConfig } from "../config/config.ts";
import type { CommandEnv } from "../command_env.ts";
import { type CliFault, fault } from "../fault.ts";

/** The store a command works on: SQLite's, or the asynchronous Postgres one. */
export type CliStore = SessionStore | AsyncSessionStore;

/**
 * The Postgres store when the config chooses it (`undefined`: use
 * `history.db`).
 */
async function configuredPostgres(
  ctx: CommandEnv,
  paths: ConfigPaths,
): Promise<Result<AsyncSessionStore | undefined, CliFault>> {
  const pg = await import("./pg_store.ts");
  const urlEnv = await pg.postgresUrlEnv(paths);
  if (!urlEnv.ok) return urlEnv;
  if (urlEnv.value === undefined) return ok(undefined);
  return await pg.openPostgresFromEnv(ctx, urlEnv.value);
}

/**
 * The history file path.
 *
 * @param paths The located config paths.
 * @returns `<relaviumDir>/history.db`, or an `internal` fault when no home
 * is known.
 */
export function historyPath(paths: ConfigPaths): Result<string, CliFault> {
  return paths.historyDb === undefined
    ? err(fault(
      "internal",
      "Cannot locate history.db: set HOME or RELAVIUM_HOME",
    ))
    : ok(paths.historyDb);
}

/**
 * Opens the `history.db` of a command's config for a session: its path,
 * then the store, its notices on stderr.
 *
 * @param ctx The command context (stderr).
 * @param paths The config's paths.
 * @param create Create the file when missing (`chat`), or not (resume).
 * @returns The store (`undefined`: no file and not created), or a fault.
 */
export async function openRunHistory(
  ctx: CommandEnv,
  paths: ConfigPaths,
  create: boolean,
): Promise<Result<CliStore | undefined, CliFault>> {
  const pg = await configuredPostgres(ctx, paths);
  if (!pg.ok || pg.value !== undefined) return pg;
  const path = historyPath(paths);
  if (!path.ok) return path;
  return await openHistory(path.value, {
    create,
    notice: (text) => ctx.io.stderr.write(text),
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/**
 * Opens the history store. Read commands pass `create: false` and get
 * `undefined` when the file does not exist yet (nothing is created);
 * writers pass `create: true` (the folder is made 0700).
 *
 * A store another process holds is waited for, boundedly (SQLite's busy
 * wait of {@linkcode BUSY_TIMEOUT_MS} per attempt, five attempts), and
 * `notice` says so once, when the first wait has run out.
 *
 * @param path The `history.db` path.
 * @param options Whether to create the file; where the waiting notice goes.
 * @returns The store (or `undefined`), or an `internal` fault (exit 1)
 * naming the cause.
 */
export async function openHistory(
  path: string,
  options: { create: boolean; notice?: (text: string) => void },
): Promise<Result<SessionStore | undefined, CliFault>> {
  // Loaded on use: the store validates with zod, which a listing skips.
  return await openSqliteWith(
    path,
    options,
    async () => (await import("../../store/sqlite_store.ts")).openSqliteStore,
  );
}

async function openSqliteWith<T>(
  path: string,
  options: { create: boolean; notice?: (text: string) => void },
  opener: () => Promise<(path: string, options: SqliteStoreOptions) => T>,
): Promise<Result<T | undefined, CliFault>> {
  try {
    if (!await exists(path)) {
      if (!options.create) return ok(undefined);
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    }
    const open = await opener();
    let told = false;
    return ok(open(path, {
      clock: { now: () => Date.now() },
      ids: () => crypto.randomUUID(),
      busyTimeoutMs: BUSY_TIMEOUT_MS,
      sleep: (ms) => {
        if (!told) {
          told = true;
          options.notice?.(
            `Waiting for the session store ${path}: it is locked by another process (giving up after about ${
              (BUSY_TIMEOUT_MS * 5) / 1000
            } s)\n`,
          );
        }
        blockingSleep(ms);
      },
    }));
  } catch (e) {
    return err(openFault(path, e));
  }
}

/**
 * The store `chat-export` works on: a session's transcript with every
 * column of its row but the context (which the export does not use), and
 * the mark that it was exported.
 */
export interface ExportStore {
  /** The session without its context, or `undefined` when there is none. */
  loadHeader(sessionId: string):
    | ExportedSession
    | undefined
    | Promise<ExportedSession | undefined>;
  /** Marks the session exported to `workflowPath`. */
  markExported(sessionId: string, workflowPath: string): void | Promise<void>;
  /** Closes the store. */
  close(): void | Promise<void>;
}

/** A session as `chat-export` reads it: its row without the context. */
export interface ExportedSession {
  /** The session row, its context left out. */
  record: Omit<AgentSessionRecord, "context">;
  /** Every message, validated, in sequence order. */
  messages: SessionMessage[];
}

/**
 * Opens `history.db` (or the configured Postgres store) for `chat-export`,
 * as {@linkcode openExistingHistory} does for a writer. The SQLite handle
 * reads no contexts, so the export loads no schema for one.
 *
 * @param ctx The command's context (cwd and environment).
 * @returns The store (or `undefined` when there is no file yet), or the
 * fault to print.
 */
export async function openExportHistory(
  ctx: CommandEnv,
): Promise<Result<ExportStore | undefined, CliFault>> {
  const located = await locate(ctx);
  if (!located.ok) return located;
  const pg = await configuredPostgres(ctx, located.value);
  if (!pg.ok) return pg;
  const store = pg.value;
  if (store !== undefined) {
    return ok({
      loadHeader: (id) => store.load(id),
      markExported: (id, path) => store.markExported(id, path),
      close: () => store.close(),
    });
  }
  const path = historyPath(located.value);
  if (!path.ok) return path;
  return await openSqliteWith(
    path.value,
    { create: false, notice: (text) => ctx.io.stderr.write(text) },
    async () =>
      (await import("../../store/sqlite_open.ts")).openSqliteForExport,
  );
}

/** SQLite's busy wait per attempt when another process holds the store. */
const BUSY_TIMEOUT_MS = 2000;

function openFault(path: string, e: unknown): CliFault {
  return fault(
    "internal",
    `Cannot open the session store ${path}: ${storeOpenCause(e)}`,
  );
}

/**
 * The fault of a stored session that cannot be read: which row and which
 * column is damaged, or what SQLite found wrong with the file (exit 1).
 * `undefined` for any other error.
 *
 * @param sessionId The session asked for.
 * @param e What reading it threw.
 * @returns The fault, or `undefined` when `e` is not a damaged row.
 */
export function damagedSessionFault(
  sessionId: string,
  e: unknown,
): CliFault | undefined {
  if (e instanceof SessionRecordError) {
    const field = e.field ?? "agent_sessions";
    const what = e.code === "malformed_json"
      ? "is not valid JSON"
      : "is invalid";
    return fault(
      "internal",
      `Cannot read session ${sessionId}: its stored row is damaged (${field} ${what}); chat-delete ${sessionId} --yes removes it from listings`,
    );
  }
  if (e instanceof SessionMessageBoundaryError) {
    return fault(
      "internal",
      `Cannot read session ${sessionId}: ${
        e.sequenceNumber === undefined
          ? "one of its session_messages rows"
          : `its session_messages row at sequence_number ${e.sequenceNumber}`
      } is damaged (${e.code}); chat-delete ${sessionId} --yes removes the session`,
    );
  }
  // SQLite's own failure while reading (a truncated or corrupt file).
  if (sqliteResultCode(e) !== undefined) {
    return fault(
      "internal",
      `Cannot read session ${sessionId}: the session store is ${
        storeOpenCause(e)
      }`,
    );
  }
  return undefined;
}

/**
 * The notice of the listing's damaged rows: one line each, naming the
 * row and the column (the rows are skipped, the listing goes on).
 *
 * @param damaged The rows the listing skipped.
 * @returns The lines, each ending in a newline.
 */
export function damagedRowsNotice(
  damaged: readonly DamagedSessionRow[],
): string {
  return damaged.map((d) =>
    `Skipped a damaged session row (${
      d.id === undefined ? `rowid ${d.rowNumber}` : `id ${d.id}`
    }): ${d.field} is invalid\n`
  ).join("");
}

/**
 * Opens `history.db` for a read command: locates the configuration (for
 * `RELAVIUM_HOME` or the global folder), then opens the file without
 * creating it (`undefined` when there is none yet).
 *
 * With `readOnly`, the file is opened read-only (nothing created,
 * chmod-ed or written) unless it lacks this version's tables.
 *
 * @param ctx The command's context (cwd and environment).
 * @param options `readOnly` for a command that only reads.
 * @returns The store (or `undefined`), or the fault to print.
 */
export async function openExistingHistory(
  ctx: CommandEnv,
  options: { readOnly?: boolean } = {},
): Promise<Result<CliStore | undefined, CliFault>> {
  const located = await locate(ctx);
  if (!located.ok) return located;
  const pg = await configuredPostgres(ctx, located.value);
  if (!pg.ok || pg.value !== undefined) return pg;
  const path = historyPath(located.value);
  if (!path.ok) return path;
  if (options.readOnly === true) {
    try {
      if (!await exists(path.value)) return ok(undefined);
      const { openSqliteStoreForRead } = await import(
        "../../store/sqlite_store.ts"
      );
      const store = openSqliteStoreForRead(path.value, {
        busyTimeoutMs: BUSY_TIMEOUT_MS,
      });
      // A file without this version's tables gets them on a full open.
      if (store !== undefined) return ok(store);
    } catch (e) {
      return err(openFault(path.value, e));
    }
  }
  return await openHistory(path.value, {
    create: false,
    notice: (text) => ctx.io.stderr.write(text),
  });
}

function locate(ctx: CommandEnv): Promise<Result<ConfigPaths, CliFault>> {
  return locateConfig({ cwd: ctx.cwd, env: (n) => ctx.io.env(n) });
}

/**
 * Lists the sessions of `history.db` for `chat-list`, reading the file
 * directly (the store and zod are not loaded); `undefined` when there is
 * no file yet (nothing is created).
 *
 * @param ctx The command's context (cwd and environment).
 * @param damaged Receives the rows left out because they are damaged.
 * @returns The sessions, newest first (or `undefined`), or the fault to
 * print (`internal` when the file cannot be read).
 */
export async function listExistingHistory(
  ctx: CommandEnv,
  damaged: DamagedSessionRow[] = [],
): Promise<Result<SessionListEntry[] | undefined, CliFault>> {
  const located = await locate(ctx);
  if (!located.ok) return located;
  const pg = await configuredPostgres(ctx, located.value);
  if (!pg.ok) return pg;
  if (pg.value !== undefined) {
    const store = pg.value;
    try {
      const { listPostgresSessions } = await import("./pg_store.ts");
      return ok(await listPostgresSessions(store));
    } catch (e) {
      return err(fault(
        "internal",
        `Cannot list the Postgres sessions: ${
          e instanceof Error ? e.message : "unknown error"
        }`,
      ));
    } finally {
      await store.close();
    }
  }
  const path = historyPath(located.value);
  if (!path.ok) return path;
  try {
    if (!await exists(path.value)) return ok(undefined);
    return ok(listSqliteSessions(path.value, { damaged }));
  } catch (e) {
    return err(openFault(path.value, e));
  }
}
