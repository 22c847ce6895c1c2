/**
 * The session event table of a Postgres store, for `serve` (not part of
 * the public face): `undefined` for any other store.
 *
 * @module
 */
import type { AsyncSessionStore, SessionStore } from "../store.ts";
import type { PgEventTable } from "./_events.ts";
import { PostgresSessionStore } from "./_session_store.ts";

/**
 * The event table of a store opened by `openPostgresStore`.
 *
 * @param store Any store.
 * @param keep Events kept per session.
 * @returns The table, or `undefined` when the store is not Postgres.
 */
export function postgresEventTable(
  store: SessionStore | AsyncSessionStore,
  keep: number,
): PgEventTable | undefined {
  return store instanceof PostgresSessionStore
    ? store.eventTable(keep)
    : undefined;
}
