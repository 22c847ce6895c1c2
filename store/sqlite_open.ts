/**
 * Opening `history.db` on Deno's built-in `node:sqlite` (creating it, its
 * folder and its schema when missing, or for reading only) with a given
 * session row codec. `sqlite_store.ts` opens with the checked one; a
 * handle for `chat-export` with one that reads no contexts, so neither
 * loads zod through this module.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  foreignObjects,
  foreignObjectsReason,
  missingColumns,
  missingColumnsOfExisting,
  schemaProblems,
  STORE_DDL,
  upgradeJournal,
} from "./ddl.ts";
import { StoreOpenError } from "./errors.ts";
import {
  openDatabaseFile,
  openDatabaseForRead,
  secureSidecars,
  storeOpenCause,
} from "./sqlite_file.ts";
import { blockingSleep, transaction } from "./sqlite_tx.ts";
import { SqliteSessionStore } from "./sqlite_session_store.ts";
import type { SqliteStoreOptions } from "./sqlite_options.ts";
import type { SessionRowCodec } from "./record_fields.ts";

/**
 * Opens (creating when missing) the store at `path`, as
 * `openSqliteStore` documents, decoding rows with `rows`.
 *
 * @param path The database file.
 * @param options Clock, ids and test hooks.
 * @param rows The session row codec.
 * @returns The open handle.
 * @throws {StoreOpenError} Naming the cause.
 */
export function openSqliteHandle(
  path: string,
  options: SqliteStoreOptions,
  rows: SessionRowCodec,
): SqliteSessionStore {
  let db: DatabaseSync | undefined;
  try {
    db = openDatabaseFile(path, options.busyTimeoutMs ?? 5000, (conn) => {
      // Refused before the first write: nothing in the file changes.
      const foreign = foreignObjects(conn);
      if (foreign.length > 0) {
        throw new StoreOpenError({ reason: foreignObjectsReason(foreign) });
      }
      const problems = schemaProblems(conn);
      if (problems.length > 0) {
        throw new StoreOpenError({
          reason: `this version cannot write its schema: ${
            problems.join("; ")
          }`,
        });
      }
    });
    const conn = db;
    transaction(conn, () => {
      for (const sql of STORE_DDL) conn.exec(sql);
      upgradeJournal(conn);
    }, { begin: "IMMEDIATE", sleep: options.sleep ?? blockingSleep });
    const missing = missingColumns(conn);
    if (missing.length > 0) {
      throw new StoreOpenError({
        reason: `missing columns ${missing.join(", ")}`,
      });
    }
    secureSidecars(path);
    return new SqliteSessionStore(conn, options, rows);
  } catch (error) {
    db?.close();
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError({ cause: error, reason: storeOpenCause(error) });
  }
}

/**
 * Opens an existing store read-only, as `openSqliteStoreForRead`
 * documents, decoding rows with `rows`.
 *
 * @param path The database file (it must exist).
 * @param options Clock, ids and test hooks.
 * @param rows The session row codec.
 * @returns The handle, or `undefined` when the file lacks tables this
 * version adds on open.
 * @throws {StoreOpenError} Naming the cause.
 */
export function openSqliteHandleForRead(
  path: string,
  options: SqliteStoreOptions,
  rows: SessionRowCodec,
): SqliteSessionStore | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = openDatabaseForRead(path, options.busyTimeoutMs ?? 5000);
    const foreign = foreignObjects(db);
    if (foreign.length > 0) {
      throw new StoreOpenError({ reason: foreignObjectsReason(foreign) });
    }
    const missing = missingColumns(db);
    if (missing.length > 0) {
      const present = missingColumnsOfExisting(db);
      if (present.length > 0) {
        throw new StoreOpenError({
          reason: present.map((c) => `${c} is missing`).join("; "),
        });
      }
      db.close();
      return undefined;
    }
    return new SqliteSessionStore(db, options, rows);
  } catch (error) {
    db?.close();
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError({ cause: error, reason: storeOpenCause(error) });
  }
}

const NO_CONTEXTS: SessionRowCodec = {
  decode(): never {
    throw new TypeError("This store handle reads no session contexts");
  },
  checkNew(): never {
    throw new TypeError("This store handle creates no sessions");
  },
};

/**
 * A handle that loads a session's transcript with every column of its row
 * but the context, and marks it exported: what `chat-export` needs, with
 * no schema loaded for a context it never reads.
 */
export type SqliteExportHandle = Pick<
  SqliteSessionStore,
  "loadHeader" | "markExported" | "close"
>;

/**
 * Opens (creating when missing, as `openSqliteStore`) the store at `path`
 * for an export: the handle reads no contexts.
 *
 * @param path The database file.
 * @param options Clock, ids and test hooks.
 * @returns The handle.
 * @throws {StoreOpenError} Naming the cause, as `openSqliteStore`.
 */
export function openSqliteForExport(
  path: string,
  options: SqliteStoreOptions = {},
): SqliteExportHandle {
  return openSqliteHandle(path, options, NO_CONTEXTS);
}
