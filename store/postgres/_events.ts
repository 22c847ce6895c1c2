/**
 * The session event table on a Postgres pool: what `serve` instances
 * stream to each other. The lease holder appends batches (one round trip
 * each, fenced by its lease like every write); every instance listens on
 * one connection for pointers `(session, last seq)` and reads the events
 * from the table.
 *
 * @module
 */
import { EVENTS_CHANNEL } from "./_ddl.ts";
import type { Sql } from "./_connect.ts";

/** One stored event: its place in the session's stream, type and JSON text. */
export interface StoredEvent {
  /** From 1, per session. */
  seq: number;
  /** The event's `type`. */
  type: string;
  /** The event as JSON text. */
  data: string;
}

/** The lease a writer held when it queued an event: `(holder, epoch)`. */
export interface EventFence {
  /** The lease holder. */
  readonly holderId: string;
  /** Its epoch. */
  readonly epoch: number;
}

/** What the table needs of its store handle. */
export interface EventTableHooks {
  /** Events kept per session (older ones are deleted as new ones come). */
  keep: number;
  /** The lease this handle holds on a session now, if any. */
  fence(sessionId: string): EventFence | undefined;
  /** Epoch ms. */
  now(): number;
  /** Runs a query; driver errors leave scrubbed or named. */
  run<T>(
    sessionId: string | undefined,
    query: (sql: Sql) => Promise<T>,
  ): Promise<T>;
}

function rows(list: readonly Record<string, unknown>[]): StoredEvent[] {
  return list.map((r) => ({
    seq: Number(r["seq"]),
    type: String(r["type"]),
    data: String(r["data"]),
  }));
}

/**
 * The event table of one pool (its listener takes one more connection).
 *
 * @param hooks The fence, clock, retention and error handling.
 * @returns Append, read, tail and listen.
 */
export function pgEventTable(hooks: EventTableHooks): {
  fence(sessionId: string): EventFence | undefined;
  append(
    sessionId: string,
    events: readonly { type: string; data: string }[],
    fence: EventFence | undefined,
  ): Promise<number>;
  read(sessionId: string, afterSeq: number, limit: number): Promise<
    StoredEvent[]
  >;
  tail(sessionId: string, limit: number): Promise<StoredEvent[]>;
  listen(
    onAppended: (sessionId: string, seq: number) => void,
    onListening: () => void,
  ): Promise<() => Promise<void>>;
} {
  return {
    fence: (sessionId) => hooks.fence(sessionId),
    // Under the lease held when the events were queued (none: refused as
    // a lost lease, writing nothing).
    async append(sessionId, events, fence) {
      const holder = fence?.holderId ?? null;
      const epoch = fence?.epoch ?? null;
      const out = await hooks.run(sessionId, (q) =>
        q.unsafe(
          "SELECT rlv_append_events($1, $2, $3, $4, $5::jsonb, $6) AS first",
          [
            sessionId,
            holder,
            epoch,
            hooks.now(),
            events.map((e) => ({ type: e.type, data: e.data })),
            hooks.keep,
          ],
        ));
      return Number(out[0]?.["first"]);
    },
    async read(sessionId, afterSeq, limit) {
      return rows(
        await hooks.run(sessionId, (q) =>
          q.unsafe(
            `SELECT seq, type, data FROM relavium_session_events
             WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
            [sessionId, afterSeq, limit],
          )),
      );
    },
    async tail(sessionId, limit) {
      return rows(
        await hooks.run(sessionId, (q) =>
          q.unsafe(
            `SELECT seq, type, data FROM (SELECT seq, type, data
               FROM relavium_session_events WHERE session_id = $1
               ORDER BY seq DESC LIMIT $2) t ORDER BY seq`,
            [sessionId, limit],
          )),
      );
    },
    // `onListening` runs on each (re)listen: what was appended while the
    // connection was down sent no pointer here.
    async listen(onAppended, onListening) {
      const meta = await hooks.run(
        undefined,
        (q) =>
          q.listen(EVENTS_CHANNEL, (payload) => {
            try {
              const p = JSON.parse(payload) as { s?: unknown; q?: unknown };
              if (typeof p.s === "string" && typeof p.q === "number") {
                onAppended(p.s, p.q);
              }
            } catch {
              // Not ours: another program on the channel.
            }
          }, onListening),
      );
      return async () => {
        await meta.unlisten().catch(() => {});
      };
    },
  };
}

/** The event table of a Postgres store handle. */
export type PgEventTable = ReturnType<typeof pgEventTable>;
