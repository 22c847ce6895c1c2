/**
 * Opens `history.db` (the SQLite `SessionStore`) for CLI commands.
 *
 * @module
 */
import { dirname } from "node:path";
import { err, ok, type Result } from "../schema/result.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";
import type { SessionStore } from "../store/store.ts";
import type { ConfigPaths } from "./config.ts";
import { type CliFault, fault } from "./fault.ts";

/**
 * The history file path.
 *
 * @param paths The located config paths.
 * @returns `<relaviumDir>/history.db`, or an `internal` fault when no home
 * is known.
 *
 * @example Path
 * ```ts
 * import { historyPath } from "./history.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(historyPath({ cwd: "/w", globalFromFlag: false, historyDb: "/h/.relavium/history.db" }), { ok: true, value: "/h/.relavium/history.db" });
 * assert.equal(historyPath({ cwd: "/w", globalFromFlag: false }).ok, false);
 * ```
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
 *
 * @example A read of a missing file creates nothing
 * ```ts
 * import { openHistory } from "./history.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await openHistory(`${dir}/history.db`, { create: false }), { ok: true, value: undefined });
 * await Deno.remove(dir);
 * ```
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
    return ok(openSqliteStore(path, {
      clock: { now: () => Date.now() },
      ids: () => crypto.randomUUID(),
    }));
  } catch (e) {
    const why = e instanceof Error && e.cause instanceof Error
      ? e.cause.name
      : e instanceof Error
      ? e.name
      : "unknown error";
    return err(fault(
      "internal",
      `Cannot open the session store ${path}: ${why}`,
    ));
  }
}
