/**
 * One client's server-sent event stream over a session's log: `retry:`
 * first, then the missed events (or one `server:resync` snapshot), then
 * live events, each framed `id:`/`event:`/`data:`.
 *
 * A client catching up reads from the log's buffer at its own pace (a
 * cursor, no copy); once caught up it gets live events in its own bounded
 * queue. One that falls behind (its queue full, or its cursor out of the
 * buffer) is dropped: its stream errors and it resumes from the last id it
 * got. It never holds up the log or the other clients. What the server
 * wrote says nothing of what the client got, so resumption trusts only the
 * client's id.
 *
 * @module
 */
import type { EventLog, LoggedEvent, ReplayPlan } from "./event_log.ts";

/** Options of {@linkcode openEventStream}. */
export interface EventStreamOptions {
  /** The session's log. */
  log: EventLog;
  /** Where the client starts: after a cursor (replay or resync) or live. */
  start: ReplayPlan | { kind: "live" };
  /**
   * The `server:resync` event, built when the plan is a resync, and the
   * sequence its snapshot reaches (the client goes on after it).
   */
  resync(): { event: { type: string }; seq: number };
  /**
   * End after the first `server:idle` (or at once when idle after catching
   * up, or at a heartbeat once no turn runs).
   */
  untilIdle: boolean;
  /** Whether a turn runs now (`untilIdle` waits for it). */
  running(): boolean;
  /** The reconnect delay the client is told (`retry:`). */
  retryMs: number;
  /** Bytes a client may have unsent before it is dropped. */
  maxQueueBytes: number;
  /** Called once when the stream ends for any reason. */
  onEnd(reason: "done" | "slow" | "gone" | "shutdown"): void;
}

/** A running client stream and its handle. */
export interface EventStream {
  /** The response body. */
  body: ReadableStream<Uint8Array>;
  /** Ends the stream (server shutdown). */
  end(): void;
}

const encoder = new TextEncoder();
const frames = new WeakMap<LoggedEvent, Uint8Array>();

/**
 * The SSE frame of a logged event (encoded once, shared by every client).
 *
 * @param stream The stream name.
 * @param event The logged event.
 * @returns The frame's bytes.
 */
export function frameOf(stream: string, event: LoggedEvent): Uint8Array {
  let bytes = frames.get(event);
  if (bytes === undefined) {
    bytes = encoder.encode(
      `id: ${stream}.${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`,
    );
    frames.set(event, bytes);
  }
  return bytes;
}

/** Events read from the buffer per pull while catching up. */
const CATCH_UP_BATCH = 64;

/**
 * Opens one client's stream.
 *
 * @param options The log, start, limits and end hook.
 * @returns The body and a handle to end it.
 */
export function openEventStream(options: EventStreamOptions): EventStream {
  const { log } = options;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let ended = false;
  let live = false;
  let cursor = log.lastSeq;
  let unsubscribe = (): void => {};
  const finish = (reason: "done" | "slow" | "gone" | "shutdown"): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    options.onEnd(reason);
  };
  const drop = (): void => {
    if (ended) return;
    // Queued frames are discarded; the client resumes from its last id.
    controller?.error(new Error("Client too slow"));
    finish("slow");
  };
  const close = (reason: "done" | "shutdown"): void => {
    if (ended) return;
    controller?.close();
    finish(reason);
  };
  const send = (event: LoggedEvent): void => {
    controller?.enqueue(frameOf(log.stream, event));
    cursor = event.seq;
    if (options.untilIdle && event.type === "server:idle") close("done");
  };
  const caughtUp = (): void => {
    live = true;
    if (options.untilIdle && !options.running()) close("done");
  };
  const catchUp = (): void => {
    while (!ended && !live && (controller?.desiredSize ?? 0) > 0) {
      const batch = log.since(cursor, CATCH_UP_BATCH);
      if (batch === undefined) return drop();
      if (batch.length === 0) return caughtUp();
      for (const e of batch) {
        send(e);
        if (ended) return;
      }
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c): void {
      controller = c;
      c.enqueue(encoder.encode(`retry: ${options.retryMs}\n\n`));
      const start = options.start;
      if (start.kind === "resync") {
        const { event, seq } = options.resync();
        c.enqueue(encoder.encode(
          `id: ${log.stream}.${seq}\nevent: ${event.type}\ndata: ${
            JSON.stringify(event)
          }\n\n`,
        ));
        cursor = seq;
      } else if (start.kind === "replay") {
        cursor = (start.events[0]?.seq ?? log.lastSeq + 1) - 1;
      }
      unsubscribe = log.subscribe({
        deliver(event): void {
          // While catching up, new events are read from the buffer.
          if (ended || !live) return;
          send(event);
          if (!ended && (controller?.desiredSize ?? 0) < 0) drop();
          // A turn whose holder went away ends with no idle event: a
          // heartbeat finds it no longer running.
          if (
            !ended && options.untilIdle && event.type === "server:heartbeat" &&
            !options.running()
          ) close("done");
        },
      });
      catchUp();
    },
    pull(): void {
      catchUp();
    },
    cancel(): void {
      finish("gone");
    },
  }, { highWaterMark: options.maxQueueBytes, size: (c) => c.byteLength });
  return { body, end: () => close("shutdown") };
}
