/**
 * Opens `history.db` (the SQLite `SessionStore`) for CLI commands.
 *
 * @module
 */
import { dirname } from "node:path";
import { err, ok, type Result } from "../../schema/result.ts";
import {
  listSqliteSessions,
  type SessionListEntry,
} from "../../store/sqlite_list.ts";
import type { SessionStore } from "../../store/store.ts";
import { type ConfigPaths, locateConfig } from "../config/config.ts";
import type { CommandEnv } from "../command_env.ts";
import { type CliFault, fault } from "../fault.ts";

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
 * @param path The `history.db` path.
 * @param options Whether to create the file.
 * @returns The store (or `undefined`), or an `internal` fault (exit 1).
 */
export async function openHistory(
  path: string,
  options: { create: boolean },
): Promise<Result<SessionStore | undefined, CliFault>> {
  try {
    if (!await exists(path)) {
      if (!options.create) return ok(undefined);
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    }
    // Loaded on use: the store validates with zod, which a listing skips.
    const { openSqliteStore } = await import("../../store/sqlite_store.ts");
    return ok(openSqliteStore(path, {
      clock: { now: () => Date.now() },
      ids: () => crypto.randomUUID(),
    }));
  } catch (e) {
    return err(openFault(path, e));
  }
}

function openFault(path: string, e: unknown): CliFault {
  const why = e instanceof Error && e.cause instanceof Error
    ? e.cause.name
    : e instanceof Error
    ? e.name
    : "unknown error";
  return fault("internal", `Cannot open the session store ${path}: ${why}`);
}

/**
 * Opens `history.db` for a read command: locates the configuration (for
 * `RELAVIUM_HOME` or the global folder), then opens the file without
 * creating it (`undefined` when there is none yet).
 *
 * @param ctx The command's context (cwd and environment).
 * @returns The store (or `undefined`), or the fault to print.
 */
export async function openExistingHistory(
  ctx: CommandEnv,
): Promise<Result<SessionStore | undefined, CliFault>> {
  const path = await locateHistory(ctx);
  if (!path.ok) return path;
  return await openHistory(path.value, { create: false });
}

async function locateHistory(
  ctx: CommandEnv,
): Promise<Result<string, CliFault>> {
  const located = await locateConfig({
    cwd: ctx.cwd,
    env: (n) => ctx.io.env(n),
  });
  if (!located.ok) return err(located.error);
  return historyPath(located.value);
}

/**
 * Lists the sessions of `history.db` for `chat-list`, reading the file
 * directly (the store and zod are not loaded); `undefined` when there is
 * no file yet (nothing is created).
 *
 * @param ctx The command's context (cwd and environment).
 * @returns The sessions, newest first (or `undefined`), or the fault to
 * print (`internal` when the file cannot be read).
 */
export async function listExistingHistory(
  ctx: CommandEnv,
): Promise<Result<SessionListEntry[] | undefined, CliFault>> {
  const path = await locateHistory(ctx);
  if (!path.ok) return path;
  try {
    if (!await exists(path.value)) return ok(undefined);
    return ok(listSqliteSessions(path.value));
  } catch (e) {
    return err(openFault(path.value, e));
  }
}
