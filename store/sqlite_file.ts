/**
 * Opening `history.db`: the folder is
 * created 0700 and the file 0600 before SQLite opens it; after opening,
 * the file and its `-wal`/`-shm` sidecars are chmod-ed 0600 explicitly
 * (also when they already existed), then the connection PRAGMAs are set.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";

function chmod(path: string, mode: number): void {
  if (Deno.build.os === "windows") return;
  Deno.chmodSync(path, mode);
}

/**
 * Chmods `path`'s `-wal` and `-shm` sidecars 0600 when they exist.
 *
 * @param path The database file.
 *
 * @example No sidecars is fine
 * ```ts
 * import { secureSidecars } from "./sqlite_file.ts";
 * secureSidecars(`${await Deno.makeTempDir()}/none.db`);
 * ```
 */
export function secureSidecars(path: string): void {
  for (const suffix of ["-wal", "-shm"]) {
    try {
      chmod(`${path}${suffix}`, 0o600);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}

/**
 * Creates the folder (0700) and the file (0600) when missing, chmods both
 * (a sticky folder such as `/tmp` is left as it is),
 * opens the connection and applies `busy_timeout`, `journal_mode=WAL`,
 * `synchronous=FULL` and `foreign_keys=ON`.
 *
 * @param path The database file path.
 * @param busyTimeoutMs SQLite's busy timeout.
 * @returns The open connection (sidecars are secured by the caller after
 * its first write, when SQLite has created them).
 * @throws Whatever the file system or SQLite throws.
 *
 * @example Open a fresh file
 * ```ts
 * import { openDatabaseFile } from "./sqlite_file.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const db = openDatabaseFile(`${dir}/home/history.db`, 5000);
 * assert.equal(((await Deno.stat(`${dir}/home/history.db`)).mode ?? 0) & 0o777, 0o600);
 * db.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function openDatabaseFile(
  path: string,
  busyTimeoutMs: number,
): DatabaseSync {
  const dir = dirname(path);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A sticky folder (such as /tmp) is shared by design, never the store's
  // own folder: leave its mode alone.
  if (((Deno.statSync(dir).mode ?? 0) & 0o1000) === 0) chmod(dir, 0o700);
  try {
    Deno.openSync(path, { createNew: true, write: true, mode: 0o600 }).close();
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  chmod(path, 0o600);
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    const mode = db.prepare("PRAGMA journal_mode = WAL").get();
    if (mode?.["journal_mode"] !== "wal") {
      throw new Error("Cannot open the session store: WAL mode was refused");
    }
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA foreign_keys = ON");
    // A page cache (grown only as pages are read) large enough for a
    // 10,000-row session: resume then reads it from memory instead of
    // re-reading most pages from the OS past SQLite's default 2 MiB.
    db.exec("PRAGMA cache_size = -16384");
  } catch (error) {
    db.close();
    throw error;
  }
  secureSidecars(path);
  return db;
}
