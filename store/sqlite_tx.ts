/**
 * Transactions with the busy-retry policy: writes run in
 * `BEGIN IMMEDIATE`; only busy/locked errors are retried, at most 5
 * attempts with a deterministic linear backoff (no jitter), then the last
 * error is rethrown. Anything else rolls back and rethrows at once.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Attempts before a busy/locked error is rethrown.
 */
export const MAX_ATTEMPTS: number = 5;

/**
 * Backoff step: after failed attempt `n` (1-based) the next waits
 * `n × BACKOFF_STEP_MS` ms (25, 50, 75, 100).
 */
export const BACKOFF_STEP_MS: number = 25;

/**
 * Whether an error is SQLite's busy or locked condition.
 *
 * @param error Anything thrown by `node:sqlite`.
 * @returns `true` for SQLITE_BUSY / SQLITE_LOCKED (any extended code).
 */
export function isBusyError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { errcode?: unknown }).errcode;
  if (typeof code === "number") {
    const primary = code & 0xff;
    return primary === 5 || primary === 6;
  }
  return /database (?:table |schema )?is locked|database is busy/i.test(
    error.message,
  );
}

/**
 * Blocks the thread for `ms` milliseconds (`node:sqlite` is synchronous,
 * so the retry wait is too).
 *
 * @param ms Milliseconds to wait.
 */
export function blockingSleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function rollback(db: DatabaseSync): void {
  if (db.isTransaction) db.exec("ROLLBACK");
}

/**
 * Runs `work` in one transaction with the retry policy.
 *
 * @param db The connection.
 * @param work The statements; its return value is returned.
 * @param options `begin`: `IMMEDIATE` for writes, `DEFERRED` for reads;
 * `sleep`: the backoff wait (injected in tests).
 * @returns What `work` returned, after `COMMIT`.
 * @throws The last busy/locked error after 5 attempts, or any other error
 * at once; the transaction is rolled back either way.
 */
export function transaction<T>(
  db: DatabaseSync,
  work: () => T,
  options: {
    begin: "IMMEDIATE" | "DEFERRED";
    sleep: (ms: number) => void;
    /**
     * `"process"`: commit without waiting for the disk (`synchronous =
     * NORMAL` for this commit only, in WAL mode): the commit survives the
     * process being killed, not a power loss, until the next full commit
     * syncs the log with it. Default: the connection's own setting.
     */
    durability?: "process";
  },
): T {
  const relaxed = options.durability === "process";
  const begin = `BEGIN ${options.begin}`;
  // A relaxed commit sets and restores the setting in the same calls as
  // BEGIN and COMMIT; `relaxedNow`: it may be NORMAL now (restored at the
  // end whatever failed in between).
  let relaxedNow = false;
  try {
    for (let attempt = 1;; attempt++) {
      try {
        const sets = relaxed && !relaxedNow;
        relaxedNow ||= relaxed;
        db.exec(sets ? `PRAGMA synchronous = NORMAL; ${begin}` : begin);
        const value = work();
        db.exec(relaxedNow ? "COMMIT; PRAGMA synchronous = FULL" : "COMMIT");
        relaxedNow = false;
        return value;
      } catch (error) {
        rollback(db);
        if (!isBusyError(error) || attempt >= MAX_ATTEMPTS) throw error;
        options.sleep(attempt * BACKOFF_STEP_MS);
      }
    }
  } finally {
    if (relaxedNow) db.exec("PRAGMA synchronous = FULL");
  }
}
