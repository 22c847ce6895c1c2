/**
 * Opening a Postgres session store: the driver loaded (only now), a pool
 * connected, the schema created or checked.
 *
 * @module
 */
import { StoreOpenError } from "../errors.ts";
import type { AsyncSessionStore } from "../store.ts";
import { PG_DDL, PG_SCHEMA_VERSION } from "./_ddl.ts";
import { connectPool, scrubbed, type Sql, urlSecrets } from "./_connect.ts";
import { PostgresSessionStore } from "./_session_store.ts";

/**
 * Opens a Postgres session store: loads the driver (`npm:postgres`, only
 * now), connects a pool, and creates or checks the schema (a
 * `relavium_schema_version` table; a database of a newer version is
 * refused). Every method returns a promise; each write is one round trip.
 * The URL never appears in an error it throws.
 *
 * @param options The URL (from the environment), clock, ids, statement
 * timeout and pool size.
 * @returns The store (`asynchronous: true`).
 * @throws {StoreOpenError} When the server cannot be reached or its
 * schema is newer than this version writes (the message has no URL).
 *
 * @example Refused without a server (no URL in the message)
 * ```ts
 * import { openPostgresStore } from "@relavium/session/store/postgres";
 * import assert from "node:assert/strict";
 * const url = "postgres://me:s3cret-pw@127.0.0.1:1/none";
 * await assert.rejects(openPostgresStore({ url }), (e: Error) =>
 *   e.name === "StoreOpenError" && !e.message.includes("s3cret-pw"));
 * ```
 */
export async function openPostgresStore(
  options: {
    /**
     * The connection URL (`postgres://user:password@host:port/db`, or
     * `?host=/dir` for a unix socket folder). Read it from the environment;
     * it never appears in an error this store throws.
     */
    url: string;
    /** Source of epoch ms for row times; default the system clock. */
    clock?: { now(): number };
    /** Source of fresh row ids; default random UUIDs. */
    ids?: () => string;
    /** `statement_timeout` of every connection, ms; default 30,000. */
    statementTimeoutMs?: number;
    /** Pool size; default 10. */
    maxConnections?: number;
  },
): Promise<AsyncSessionStore> {
  if (typeof options.url !== "string" || options.url === "") {
    throw new StoreOpenError({ reason: "no Postgres URL was given" });
  }
  const secrets = urlSecrets(options.url);
  let sql: Sql;
  try {
    sql = await connectPool({
      url: options.url,
      statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
      maxConnections: options.maxConnections ?? 10,
    });
  } catch (error) {
    throw new StoreOpenError({
      reason: `cannot connect to Postgres (${
        scrubbed(error, secrets).message
      })`,
    });
  }
  try {
    await sql.begin(async (tx) => {
      // One schema writer at a time (two stores opening one database).
      await tx.unsafe("SELECT pg_advisory_xact_lock(7283650132)");
      // A newer database is refused before anything is applied (its
      // functions are never replaced by this version's); an older one is
      // brought to this version by the idempotent script.
      const [found] = await tx.unsafe(
        "SELECT to_regclass('relavium_schema_version') IS NOT NULL AS found",
      );
      const rows = found?.["found"] === true
        ? await tx.unsafe(
          "SELECT MAX(version) AS v FROM relavium_schema_version",
        )
        : [];
      const version = Number(rows[0]?.["v"] ?? 0);
      if (version > PG_SCHEMA_VERSION) {
        throw new StoreOpenError({
          reason:
            `the database's schema version ${version} is newer than this version writes (${PG_SCHEMA_VERSION})`,
        });
      }
      await tx.unsafe(PG_DDL);
    });
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError({
      reason: `cannot reach Postgres or prepare its schema (${
        scrubbed(error, secrets).message
      })`,
    });
  }
  return new PostgresSessionStore(sql, secrets, options);
}
