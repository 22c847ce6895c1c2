/**
 * The durable store on `history.db`, on Deno's built-in
 * `node:sqlite`: opening the file (creating it, its folder and its schema
 * when missing) for writing, or for reading only.
 *
 * @module
 */
import { checkedRows } from "./record_codec.ts";
import { openSqliteHandle, openSqliteHandleForRead } from "./sqlite_open.ts";
import type { SqliteStoreOptions } from "./sqlite_options.ts";
import type { SessionStore } from "./store.ts";

export type { SqliteStoreOptions } from "./sqlite_options.ts";

/**
 * Opens (creating when missing) the SQLite session store at `path`.
 *
 * The folder holding the file is the store's own folder (e.g.
 * `~/.relavium`): it is created and chmod-ed 0700, also when it already
 * existed (a sticky shared folder such as `/tmp` is left alone); the file is created
 * 0600 before SQLite opens it; file and `-wal`/`-shm` are chmod-ed 0600.
 * The schema is applied with `CREATE … IF NOT EXISTS` only, so an upstream
 * Relavium file keeps every existing object unchanged.
 *
 * @param path The database file (`$RELAVIUM_HOME/history.db`).
 * @param options Clock and id source (default the system clock and
 * random UUIDs), and test hooks.
 * @returns The store; call `close()` when done.
 * @throws {StoreOpenError} Naming the cause: the path is a folder or a
 * symbolic link (nothing is chmod-ed through it), the file is not a
 * database or is corrupt, another process holds its lock past the busy
 * wait, or its schema is one this version cannot write (a newer
 * `user_version`, a missing column, an unknown `NOT NULL` column without
 * a default; refused before anything is written).
 *
 * @example Create, commit, load
 * ```ts
 * import { openSqliteStore } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * let n = 0;
 * const store = openSqliteStore(`${dir}/history.db`, { clock: { now: () => 0 }, ids: () => `id-${n++}` });
 * store.create({ id: "s", agentSlug: "mini", context: { workingDir: "/w", fsScopeTier: "sandboxed" } });
 * store.commitTurn("s", { userText: "hi", rounds: [], finalText: "hello", modelId: "m", tokensUsed: { input: 3, output: 1 }, costs: [] });
 * const loaded = store.load("s");
 * assert.equal(loaded?.messages.length, 2);
 * assert.equal(loaded?.record.title, "hi");
 * store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function openSqliteStore(
  path: string,
  options: SqliteStoreOptions = {},
): SessionStore {
  return openSqliteHandle(path, options, checkedRows);
}

/**
 * Opens an existing store read-only, for commands that only read (a
 * transcript, its costs): nothing is created, chmod-ed or written, so a
 * store the user made read-only still shows. A write through it fails.
 *
 * @param path The database file (it must exist).
 * @param options As {@linkcode openSqliteStore}.
 * @returns The store, or `undefined` when the file lacks tables this
 * version adds on open (open it with {@linkcode openSqliteStore} then).
 * @throws {StoreOpenError} Naming the cause, as {@linkcode openSqliteStore}.
 */
export function openSqliteStoreForRead(
  path: string,
  options: SqliteStoreOptions = {},
): SessionStore | undefined {
  return openSqliteHandleForRead(path, options, checkedRows);
}
