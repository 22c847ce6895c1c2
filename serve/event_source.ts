/**
 * Where a server's session events come from and go to. The hub talks to
 * one {@linkcode EventSource}; there are two:
 *
 * - {@linkcode memoryEvents}: each session's log lives in this process
 *   (SQLite and memory stores); ids are `<run>.<seq>`, the run a random
 *   name, so a restarted server answers an old id with a resync.
 * - {@linkcode sharedEvents}: a table many servers share (Postgres). The
 *   lease holder appends each session's events in batches (the next batch
 *   leaves when the last one is written); every server listens once for
 *   pointers `(session, seq)` and reads the events from the table, its own
 *   included, so an id `s-<session>.<seq>` means the same event on every
 *   server and a reconnect to any of them replays exactly what was missed.
 *   A client only ever sees an event once it is in the table.
 *
 * @module
 */
import {
  DEFAULT_REPLAY_EVENTS,
  EventLog,
  type LoggedEvent,
} from "./event_log.ts";

/** A session's event log, fed by the hub or a shared table. */
export interface EventSource {
  /**
   * Whether the log is shared with other servers (a session's turn may
   * run in another one, its state then read from the log).
   */
  readonly shared: boolean;
  /** The session's log here (created when first asked for). */
  log(sessionId: string): EventLog;
  /** Appends an event the session emitted in this server. */
  append(sessionId: string, event: { type: string }): void;
  /** Shows an event to this server's clients (a heartbeat). */
  pulse(sessionId: string, event: { type: string }): void;
  /**
   * Resolves once the log holds every event appended here so far and, on
   * a shared table, every event the table had when called.
   */
  settle(sessionId: string): Promise<void>;
  /** Forgets a session's log (nothing here uses it any more). */
  forget(sessionId: string): void;
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * A table of session events many servers share; `F` is a writer's fence
 * (the lease it holds on a session).
 */
export interface SharedEventTable<F = unknown> {
  /** This process's fence on a session now, or `undefined` (no lease). */
  fence(sessionId: string): F | undefined;
  /**
   * Appends events under the fence taken when they were queued; the
   * sequence number of the first. Throws, writing nothing, without a
   * fence or when another writer took the lease over.
   */
  append(
    sessionId: string,
    events: readonly { type: string; data: string }[],
    fence: F | undefined,
  ): Promise<number>;
  /** The events after a sequence number, in order, at most `limit`. */
  read(
    sessionId: string,
    afterSeq: number,
    limit: number,
  ): Promise<LoggedEvent[]>;
  /** The last `limit` events, in order. */
  tail(sessionId: string, limit: number): Promise<LoggedEvent[]>;
  /**
   * Listens for appends to any session; resolves once listening, with the
   * stop. `onListening` runs each time the listener (re)connects.
   */
  listen(
    onAppended: (sessionId: string, seq: number) => void,
    onListening: () => void,
  ): Promise<() => Promise<void>>;
}

/** An error naming what failed on which session, and why. */
function failure(what: string, sessionId: string, cause: unknown): Error {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new Error(`Could not ${what} of session ${sessionId}: ${why}`, {
    cause,
  });
}

function runName(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 12);
}

/**
 * Logs in this process only.
 *
 * @param replayEvents Events kept per session for replay.
 * @returns The source.
 */
export function memoryEvents(
  replayEvents: number = DEFAULT_REPLAY_EVENTS,
): EventSource {
  const logs = new Map<string, EventLog>();
  const log = (id: string): EventLog => {
    let l = logs.get(id);
    if (l === undefined) {
      l = new EventLog(runName(), replayEvents);
      logs.set(id, l);
    }
    return l;
  };
  return {
    shared: false,
    log,
    append: (id, event) => void log(id).append(event),
    pulse: (id, event) => void log(id).append(event),
    settle: () => Promise.resolve(),
    forget: (id) => void logs.delete(id),
    close: () => Promise.resolve(),
  };
}

/** Events read from the table per query. */
const READ_BATCH = 500;
/** Events sent to the table per append. */
const WRITE_BATCH = 500;
/**
 * Every session followed here (with clients, or a turn running in its
 * log) is read again this often (a lost pointer).
 */
const SWEEP_MS = 5_000;

interface Queued<F> {
  type: string;
  data: string;
  /** The lease held when it was queued. */
  fence: F;
}

interface Shared<F> {
  log: EventLog;
  /** Filled from the table's tail (once). */
  loaded: Promise<void>;
  /** Reads of the table, one after another. */
  reading: Promise<void>;
  /** Reads queued or under way. */
  reads: number;
  /** The last read failed (told once until one succeeds). */
  failing: boolean;
  pending: Queued<F>[];
  writing: Promise<void>;
}

/**
 * The stream name of a session on a shared table: the same on every
 * server.
 *
 * @param sessionId The session.
 * @returns The name (no dot).
 */
export function sharedStreamName(sessionId: string): string {
  return `s-${sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/**
 * Logs fed by a shared table. Call {@linkcode EventSource.close} to stop
 * listening.
 *
 * Only a lease holder writes: an event queued while this process holds
 * no lease on its session (a closing holder's last ones, after its
 * release) is never written, and one queued under a lease since taken
 * over is refused by the table. Every session followed here (one with
 * clients, or whose log shows a turn running) is read again whenever the
 * listener (re)connects and every few seconds, so a pointer lost while it
 * was down delays an event, never loses it; any other session is read
 * when the hub next settles it.
 *
 * @param table The table.
 * @param replayEvents Events kept per session in this server's log.
 * @param onError Told of an append the table refused (the batch is lost
 * for observers; the turn itself is stored apart), and of a read that
 * failed (once until a read of that session succeeds); each error names
 * what failed and the session.
 * @returns The source, once it listens.
 */
export async function sharedEvents<F>(
  table: SharedEventTable<F>,
  replayEvents: number = DEFAULT_REPLAY_EVENTS,
  onError: (error: unknown) => void = () => {},
): Promise<EventSource> {
  const sessions = new Map<string, Shared<F>>();
  // Reads the table after the log's last event, until it has no more.
  const catchUp = (s: Shared<F>, id: string): Promise<void> => {
    s.reads++;
    s.reading = s.reading.then(async () => {
      await s.loaded;
      for (let i = 0; i < 10_000; i++) {
        const got = await table.read(id, s.log.lastSeq, READ_BATCH);
        for (const e of got) s.log.accept(e);
        if (got.length < READ_BATCH) break;
      }
      s.failing = false;
    }).catch((error) => {
      // Once per outage, not at every sweep.
      if (!s.failing) onError(failure("read the events", id, error));
      s.failing = true;
    }).finally(() => {
      s.reads--;
    });
    return s.reading;
  };
  const entry = (id: string): Shared<F> => {
    let s = sessions.get(id);
    if (s === undefined) {
      const log = new EventLog(sharedStreamName(id), replayEvents);
      const loaded = table.tail(id, replayEvents).then((events) => {
        for (const e of events) log.accept(e);
      }).catch((error) => {
        onError(failure("read the events", id, error));
      });
      s = {
        log,
        loaded,
        reading: loaded,
        reads: 0,
        failing: false,
        pending: [],
        writing: Promise.resolve(),
      };
      sessions.set(id, s);
    }
    return s;
  };
  const flush = async (s: Shared<F>, id: string): Promise<void> => {
    await s.loaded;
    for (let i = 0; i < 1_000_000 && s.pending.length > 0; i++) {
      // One batch, one fence.
      const fence = s.pending[0]?.fence;
      let n = 1;
      while (
        n < WRITE_BATCH && n < s.pending.length &&
        s.pending[n]?.fence === fence
      ) n++;
      const batch = s.pending.splice(0, n).map((e) => ({
        type: e.type,
        data: e.data,
      }));
      try {
        const first = await table.append(id, batch, fence);
        // Ours: into the log at once (the pointer then finds nothing new),
        // after whatever the table had before them.
        if (s.log.lastSeq < first - 1) await catchUp(s, id);
        batch.forEach((e, k) =>
          s.log.accept({ seq: first + k, type: e.type, data: e.data })
        );
      } catch (error) {
        onError(failure("write the events", id, error));
      }
    }
  };
  // The sessions followed here, each with no read already on its way.
  const sweep = (): void => {
    for (const [id, s] of sessions) {
      if (s.reads > 0) continue;
      if (s.log.clients > 0 || s.log.view.running) void catchUp(s, id);
    }
  };
  const stop = await table.listen((id, seq) => {
    const s = sessions.get(id);
    if (s !== undefined && seq > s.log.lastSeq) void catchUp(s, id);
  }, sweep);
  const sweeping = setInterval(sweep, SWEEP_MS);
  Deno.unrefTimer(sweeping);
  return {
    shared: true,
    log: (id) => entry(id).log,
    append(id, event) {
      const fence = table.fence(id);
      // No lease here: not ours to write.
      if (fence === undefined) return;
      const s = entry(id);
      const idle = s.pending.length === 0;
      s.pending.push({ type: event.type, data: JSON.stringify(event), fence });
      // The next batch leaves once the one being written is in.
      if (idle) s.writing = s.writing.then(() => flush(s, id));
    },
    pulse: (id, event) => entry(id).log.pulse(event),
    async settle(id) {
      const s = entry(id);
      await s.writing;
      await catchUp(s, id);
    },
    forget: (id) => void sessions.delete(id),
    close() {
      clearInterval(sweeping);
      return stop();
    },
  };
}
