/**
 * One client's server-sent event stream over a session's log: `retry:`
 * first, then the replay (or one `server:resync` snapshot), then live
 * events, each framed `id:`/`event:`/`data:`. Each client has its own
 * bounded queue: one that falls behind is dropped (its stream errors) and
 * resumes from the last id it got; it never holds up the log or the other
 * clients. What the server wrote says nothing of what the client got, so
 * resumption trusts only the client's id.
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
  /** The `server:resync` event, built when the plan is a resync. */
  resync(): { type: string };
  /** End after the first `server:idle` (or at once when idle after the replay). */
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
  let unsubscribe = (): void => {};
  const finish = (reason: "done" | "slow" | "gone" | "shutdown"): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    options.onEnd(reason);
  };
  const push = (bytes: Uint8Array): boolean => {
    if (ended || controller === undefined) return false;
    controller.enqueue(bytes);
    if ((controller.desiredSize ?? 0) < 0) {
      // Fallen behind: drop it now (queued frames are discarded; the
      // client resumes from the last id it got).
      controller.error(new Error("Client too slow"));
      finish("slow");
      return false;
    }
    return true;
  };
  const close = (reason: "done" | "shutdown"): void => {
    if (ended) return;
    controller?.close();
    finish(reason);
  };
  const deliver = (event: LoggedEvent): void => {
    if (!push(frameOf(log.stream, event))) return;
    if (options.untilIdle && event.type === "server:idle") close("done");
  };
  const body = new ReadableStream<Uint8Array>({
    start(c): void {
      controller = c;
      push(encoder.encode(`retry: ${options.retryMs}\n\n`));
      const start = options.start;
      if (start.kind === "resync") {
        const snapshot = options.resync();
        push(encoder.encode(
          `id: ${log.lastId}\nevent: ${snapshot.type}\ndata: ${
            JSON.stringify(snapshot)
          }\n\n`,
        ));
      } else if (start.kind === "replay") {
        for (const e of start.events) {
          deliver(e);
          if (ended) return;
        }
      }
      if (ended) return;
      if (options.untilIdle && !options.running()) {
        close("done");
        return;
      }
      unsubscribe = log.subscribe({ deliver });
    },
    cancel(): void {
      finish("gone");
    },
  }, { highWaterMark: options.maxQueueBytes, size: (c) => c.byteLength });
  return { body, end: () => close("shutdown") };
}
