/**
 * What the SQLite store is opened with.
 *
 * @module
 */

/**
 * What `openSqliteStore` and `openSqliteStoreForRead` are given.
 */
export interface SqliteStoreOptions {
  /** Source of epoch milliseconds for `created_at`/`updated_at`; default the system clock. */
  clock?: { now(): number };
  /** Source of fresh row ids; default random UUIDs. */
  ids?: () => string;
  /** Busy-retry wait; default blocks the thread. Tests inject a recorder. */
  sleep?: (ms: number) => void;
  /** SQLite `busy_timeout`; default 5000. */
  busyTimeoutMs?: number;
}
