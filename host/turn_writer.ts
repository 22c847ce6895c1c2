/**
 * The store's writer: commits each piece of finished work the engine
 * hands over (a completed turn in one transaction, the spend of a failed
 * turn or compaction, a boundary marker, the spend left at cancel). The
 * first failed write latches it: nothing more is written, and the host
 * refuses further egress.
 *
 * On a synchronous store each write happens in the call. On an
 * asynchronous one the writes queue in order, one after the other, and
 * whatever must follow a write (the event announcing it, the next
 * request) is run {@linkcode TurnWriter.after} them.
 *
 * @module
 */
import type { FinishedWork } from "../session/finished_work.ts";
import {
  type AsyncSessionStore,
  isAsyncStore,
  type SessionStore,
} from "../store/store.ts";

/**
 * Options of {@linkcode createTurnWriter}.
 */
export interface TurnWriterOptions {
  /** Where the work goes. */
  store: SessionStore | AsyncSessionStore;
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
  /**
   * Queues a write of an asynchronous store (run now on a synchronous
   * one); a failure latches.
   */
  write(fn: () => unknown): void;
  /**
   * Runs `fn` once every write queued before it has settled: at once when
   * none is pending (always, on a synchronous store).
   */
  after(fn: () => void): void;
  /**
   * Settles when every queued write has; rejects with the latch error
   * when one failed.
   */
  settled(): Promise<void>;
  /** Latches the writer with an error from outside (e.g. a turn key). */
  latch(error: unknown): void;
  /** Whether a write has failed. */
  readonly latched: boolean;
}

/** The write each piece of finished work is, on either form of store. */
function workWrite(
  store: SessionStore | AsyncSessionStore,
  sessionId: string,
  work: FinishedWork,
): () => unknown {
  switch (work.kind) {
    case "turn":
      return () =>
        store.commitTurn(sessionId, {
          ...work.turn,
          turnsUsed: work.turnsUsed,
        });
    case "spend":
      return () => store.recordCosts(sessionId, work.costs, work.turnsUsed);
    case "boundary":
      return () => {
        if (store.appendMarker === undefined) {
          throw new TypeError(
            "Cannot persist a boundary: the session store has no appendMarker",
          );
        }
        return store.appendMarker(sessionId, work.marker);
      };
    case "ended":
      return async () => {
        await store.recordCosts(sessionId, work.costs, work.turnsUsed);
        await store.setStatus(sessionId, "ended");
      };
  }
}

/**
 * Creates the writer.
 *
 * @param options Store, session id, latch callback.
 * @returns The writer.
 */
export function createTurnWriter(options: TurnWriterOptions): TurnWriter {
  const { store, sessionId } = options;
  const queued = isAsyncStore(store);
  let latched = false;
  let latchError: unknown;
  // The asynchronous queue: its tail, and how many steps are on it.
  let tail: Promise<void> = Promise.resolve();
  let pending = 0;

  function latch(error: unknown): void {
    if (latched) return;
    latched = true;
    latchError = error;
    options.onLatch(error);
  }
  function enqueue(step: () => unknown): void {
    pending++;
    tail = tail.then(async () => {
      try {
        await step();
      } catch {
        // A write latched inside; what runs after a write never breaks
        // the queue for the steps behind it.
      } finally {
        pending--;
      }
    });
  }
  function write(fn: () => unknown): void {
    if (latched) return;
    if (!queued) {
      try {
        fn();
      } catch (e) {
        latch(e);
      }
      return;
    }
    enqueue(async () => {
      if (latched) return;
      try {
        await fn();
      } catch (e) {
        latch(e);
      }
    });
  }

  return {
    get latched(): boolean {
      return latched;
    },
    latch,
    write,
    after(fn: () => void): void {
      if (pending === 0) fn();
      else enqueue(fn);
    },
    async settled(): Promise<void> {
      await tail;
      if (latched) throw latchError;
    },
    commit(work: FinishedWork): void {
      if (work.kind === "ended" && !queued) {
        // Two writes, the second only when the first was kept.
        write(() => store.recordCosts(sessionId, work.costs, work.turnsUsed));
        write(() => store.setStatus(sessionId, "ended"));
        return;
      }
      write(workWrite(store, sessionId, work));
    },
  };
}
