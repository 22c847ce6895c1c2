/**
 * The store's writer: commits each piece of finished work the engine
 * hands over (a completed turn in one transaction, the spend of a failed
 * turn or compaction, a boundary marker, the spend left at cancel). The
 * first failed write latches it: nothing more is written, and the host
 * refuses further egress.
 *
 * @module
 */
import type { FinishedWork } from "../session/finished_work.ts";
import type { SessionStore } from "../store/store.ts";

/**
 * Options of {@linkcode createTurnWriter}.
 */
export interface TurnWriterOptions {
  /** Where the work goes. */
  store: SessionStore;
  /** The session's id. */
  sessionId: string;
  /** Called once, with the error, when a write fails. */
  onLatch(error: unknown): void;
}

/**
 * A writer of finished work.
 */
export interface TurnWriter {
  /** Commits one piece of finished work (never throws; a failure latches). */
  commit(work: FinishedWork): void;
  /** Latches the writer with an error from outside (e.g. a turn key). */
  latch(error: unknown): void;
  /** Whether a write has failed. */
  readonly latched: boolean;
}

/**
 * Creates the writer.
 *
 * @param options Store, session id, latch callback.
 * @returns The writer.
 */
export function createTurnWriter(options: TurnWriterOptions): TurnWriter {
  const { store, sessionId } = options;
  let latched = false;

  function latch(error: unknown): void {
    if (latched) return;
    latched = true;
    options.onLatch(error);
  }
  function write(fn: () => void): void {
    if (latched) return;
    try {
      fn();
    } catch (e) {
      latch(e);
    }
  }

  return {
    get latched(): boolean {
      return latched;
    },
    latch,
    commit(work: FinishedWork): void {
      switch (work.kind) {
        case "turn":
          write(() =>
            store.commitTurn(sessionId, {
              ...work.turn,
              turnsUsed: work.turnsUsed,
            })
          );
          return;
        case "spend":
          write(() => store.recordCosts(sessionId, work.costs, work.turnsUsed));
          return;
        case "boundary":
          write(() => {
            if (store.appendMarker === undefined) {
              throw new TypeError(
                "Cannot persist a boundary: the session store has no appendMarker",
              );
            }
            store.appendMarker(sessionId, work.marker);
          });
          return;
        case "ended":
          write(() => {
            store.recordCosts(sessionId, work.costs, work.turnsUsed);
            store.setStatus(sessionId, "ended");
          });
          return;
      }
    },
  };
}
