/** Stores for the host tests: a delegating wrapper, a SQLite file with steady clock and ids. */
import { openSqliteStore } from "../../store/sqlite_store.ts";
import type { SessionStore } from "../../store/store.ts";
import { sequentialIds, steppingClock } from "../_fakes/clock.ts";

/**
 * A store whose required methods each call `inner`'s (none of its optional
 * ones, such as `appendMarker`), with `overrides` laid over.
 */
export function delegating(
  inner: SessionStore,
  overrides: Partial<SessionStore> = {},
): SessionStore {
  return {
    create: (s) => inner.create(s),
    commitTurn: (id, t) => inner.commitTurn(id, t),
    recordCosts: (id, c) => inner.recordCosts(id, c),
    allocateTurnKey: (id) => inner.allocateTurnKey(id),
    setStatus: (id, s) => inner.setStatus(id, s),
    markExported: (id, p) => inner.markExported(id, p),
    softDelete: (id) => inner.softDelete(id),
    list: () => inner.list(),
    load: (id) => inner.load(id),
    close: () => inner.close(),
    ...overrides,
  };
}

/** `path` opened as a SQLite store with a stepping clock and ids `<prefix>-N`. */
export function sqliteAt(path: string, prefix: string): SessionStore {
  return openSqliteStore(path, {
    clock: steppingClock(),
    ids: sequentialIds(prefix),
  });
}
