/**
 * Opening `history.db`: the folder is
 * created 0700 and the file 0600 before SQLite opens it; after opening,
 * the file and its `-wal`/`-shm` sidecars are chmod-ed 0600 explicitly
 * (also when they already existed), then the connection PRAGMAs are set.
 * Nothing is chmod-ed through a symbolic link: a store file or sidecar
 * that is a link, a folder or anything but a regular file is refused
 * before it is touched. Reads open the file read-only and change nothing.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { dirname } from "../schema/paths.ts";
import { StoreOpenError } from "./errors.ts";

function chmod(path: string, mode: number): void {
  if (Deno.build.os === "windows") return;
  Deno.chmodSync(path, mode);
}

/**
 * Refuses a store path that is not a regular file (a symbolic link, a
 * folder, a device); `false` when nothing is there yet.
 */
function requireRegularFile(path: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (info.isSymlink) {
    throw new StoreOpenError({
      reason:
        `${path} is a symbolic link (the store must be a regular file; nothing was changed)`,
    });
  }
  if (info.isDirectory) {
    throw new StoreOpenError({ reason: `${path} is a directory` });
  }
  if (!info.isFile) {
    throw new StoreOpenError({ reason: `${path} is not a regular file` });
  }
  return true;
}

/** SQLite's primary result codes a store open can end with, as causes. */
const SQLITE_CAUSES: Record<number, string> = {
  5: "locked by another process (the wait for it ran out)",
  6: "locked by another process (the wait for it ran out)",
  8: "read-only (the file or its folder cannot be written)",
  10: "a disk I/O error",
  11: "corrupt (the database disk image is malformed)",
  13: "the disk is full",
  14: "cannot be opened (check the folder and its permissions)",
  26: "not a SQLite database",
};

/** SQLite's fixed result texts, for errors that carry no numeric code. */
const SQLITE_TEXTS: readonly (readonly [string, number])[] = [
  ["database is locked", 5],
  ["database is busy", 5],
  ["database table is locked", 6],
  ["database schema is locked", 6],
  ["attempt to write a readonly database", 8],
  ["disk I/O error", 10],
  ["database disk image is malformed", 11],
  ["database or disk is full", 13],
  ["unable to open database file", 14],
  ["file is not a database", 26],
];

/**
 * SQLite's primary result code of an error `node:sqlite` threw: its
 * `errcode` when present, else read from SQLite's fixed result text.
 *
 * @param error Anything thrown.
 * @returns The primary code, or `undefined` for an error not from SQLite.
 */
export function sqliteResultCode(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { errcode?: unknown }).errcode;
  if (typeof code === "number") return code & 0xff;
  const found = SQLITE_TEXTS.find(([text]) => error.message.startsWith(text));
  if (found !== undefined) return found[1];
  return (error as { code?: unknown }).code === "ERR_SQLITE_ERROR"
    ? 1
    : undefined;
}

/**
 * The cause of a failed open, in words: a {@linkcode StoreOpenError}'s
 * reason, SQLite's result code (not a database, corrupt, locked, …), or
 * a file-system error's name.
 *
 * @param error What the open threw.
 * @returns The cause, naming no stored value.
 */
export function storeOpenCause(error: unknown): string {
  if (error instanceof StoreOpenError) {
    return error.reason ?? storeOpenCause(error.cause);
  }
  if (!(error instanceof Error)) return "unknown error";
  const code = sqliteResultCode(error);
  if (code !== undefined) {
    return SQLITE_CAUSES[code] ?? `SQLite: ${error.message}`;
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return "permission denied";
  }
  if (error instanceof Deno.errors.NotFound) return "its folder does not exist";
  if (error instanceof Deno.errors.IsADirectory) return "is a directory";
  if (error instanceof Deno.errors.NotADirectory) {
    return "a folder on its path is a file";
  }
  return error.name;
}

/** What a person does about a write SQLite refused, by primary code. */
const WRITE_REMEDIES: Record<number, string> = {
  5: "close the other process using it, then try again",
  6: "close the other process using it, then try again",
  8: "make the file and its folder writable, then try again",
  10: "check the disk, then try again",
  11: "move the file away to start a new history",
  13: "free space on its disk, then try again",
  14: "check the folder and its permissions, then try again",
};

/** The `name` of the error a store write throws for a refused write. */
const WRITE_FAULT = "StoreWriteError";

/**
 * The error a store write throws when SQLite refused it for a cause a
 * person can act on (a full disk, a read-only file, an I/O error, a
 * corrupt file, a lock held past the wait): an `Error` named
 * `StoreWriteError` whose message names the cause and what to do, with
 * SQLite's error as `cause`. Nothing of the refused write was kept (its
 * transaction rolled back). Any other error is returned as it is.
 *
 * @param error What the write threw.
 * @returns The error to throw.
 */
export function storeWriteError(error: unknown): unknown {
  if (error instanceof Error && error.name === WRITE_FAULT) return error;
  const code = sqliteResultCode(error);
  const remedy = code === undefined ? undefined : WRITE_REMEDIES[code];
  if (code === undefined || remedy === undefined) return error;
  const named = new Error(
    `Cannot write the session store: ${
      SQLITE_CAUSES[code]
    } (nothing of this write was kept; ${remedy})`,
    { cause: error },
  );
  named.name = WRITE_FAULT;
  return named;
}

/**
 * The message of a store fault a person can act on: a refused write
 * ({@linkcode storeWriteError}), a lost writer lease or an open fault;
 * `undefined` for anything else (an internal error).
 *
 * @param error Anything thrown.
 * @returns The message, naming the cause and what to do.
 */
export function storeFaultMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (
    error.name === WRITE_FAULT || error.name === "SessionLeaseError" ||
    error instanceof StoreOpenError
  ) return error.message;
  const named = storeWriteError(error);
  return named === error ? undefined : (named as Error).message;
}

/**
 * Chmods `path`'s `-wal` and `-shm` sidecars 0600 when they exist.
 *
 * @param path The database file.
 */
export function secureSidecars(path: string): void {
  for (const suffix of ["-wal", "-shm"]) {
    if (requireRegularFile(`${path}${suffix}`)) {
      chmod(`${path}${suffix}`, 0o600);
    }
  }
}

/**
 * Opens an existing store for reading only: no folder or file is
 * created, nothing is chmod-ed and no PRAGMA is written, so a read-only
 * file, or one the user made read-only, still lists and shows.
 *
 * @param path The database file (it must exist).
 * @param busyTimeoutMs SQLite's busy timeout.
 * @returns The read-only connection.
 * @throws {StoreOpenError} For a path that is not a regular file; whatever
 * SQLite throws for one it cannot read ({@linkcode storeOpenCause} names it).
 */
export function openDatabaseForRead(
  path: string,
  busyTimeoutMs: number,
): DatabaseSync {
  if (!requireRegularFile(path)) {
    throw new StoreOpenError({ reason: `${path} does not exist` });
  }
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    // Reads the header and schema now, so a file that is not a database
    // fails here, as an open fault.
    db.prepare("SELECT COUNT(*) FROM sqlite_master").get();
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Creates the folder (0700) and the file (0600) when missing, chmods both
 * (a sticky folder such as `/tmp` is left as it is),
 * opens the connection and applies `busy_timeout`, `journal_mode=WAL`,
 * `synchronous=FULL` and `foreign_keys=ON`.
 *
 * @param path The database file path.
 * @param busyTimeoutMs SQLite's busy timeout.
 * @param check Runs on the connection before anything is written to an
 * existing file (the schema checks); it throws to refuse the file.
 * @returns The open connection (sidecars are secured by the caller after
 * its first write, when SQLite has created them).
 * @throws {StoreOpenError} For a path that is a symbolic link, a folder or
 * not a regular file (nothing is changed); whatever the file system or
 * SQLite throws otherwise ({@linkcode storeOpenCause} names it).
 */
export function openDatabaseFile(
  path: string,
  busyTimeoutMs: number,
  check?: (db: DatabaseSync) => void,
): DatabaseSync {
  const existed = requireRegularFile(path);
  const dir = dirname(path);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A sticky folder (such as /tmp) is shared by design, never the store's
  // own folder: leave its mode alone, and never chmod through a link.
  const dirInfo = Deno.lstatSync(dir);
  if (!dirInfo.isSymlink && ((dirInfo.mode ?? 0) & 0o1000) === 0) {
    chmod(dir, 0o700);
  }
  if (!existed) {
    try {
      Deno.openSync(path, { createNew: true, write: true, mode: 0o600 })
        .close();
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    requireRegularFile(path);
  }
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    check?.(db);
    chmod(path, 0o600);
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
