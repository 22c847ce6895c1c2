/**
 * One session's event log on the server: every event it streams gets the
 * next id `<stream>.<seq>` (the stream names this server's run of the
 * session, so an id from another run is never mistaken for one of this
 * run); the last events are kept in a bounded buffer for replay, and each
 * event is handed to the subscribed clients. A log fed from a shared
 * table (`accept`) keeps the table's numbers instead, its stream named
 * after the session.
 *
 * @module
 */
import { TurnView } from "./turn_view.ts";

/** One logged event: its sequence in the stream, type and JSON text. */
export interface LoggedEvent {
  /** Position in the stream, from 1. */
  readonly seq: number;
  /** The event's `type` (the SSE `event:` field). */
  readonly type: string;
  /** The event as JSON (the SSE `data:` field). */
  readonly data: string;
}

/** Something that takes a log's events as they are appended. */
export interface LogSubscriber {
  /** Takes one event; called in order. */
  deliver(event: LoggedEvent): void;
}

/** Where a reconnecting client resumes. */
export type ReplayPlan =
  | { kind: "replay"; events: LoggedEvent[] }
  | { kind: "resync" };

/** The default number of events a log keeps for replay. */
export const DEFAULT_REPLAY_EVENTS = 4096;

/**
 * A session's bounded event log.
 */
export class EventLog {
  /** This run's stream name (the part of an id before the dot). */
  readonly stream: string;
  readonly #capacity: number;
  #ring: LoggedEvent[] = [];
  #next = 1;
  readonly #subscribers = new Set<LogSubscriber>();
  /** The running turn and its waiting approvals, as this log shows them. */
  readonly view: TurnView = new TurnView();

  /**
   * Builds an empty log.
   *
   * @param stream The stream name (no dot).
   * @param capacity How many events are kept for replay.
   */
  constructor(stream: string, capacity: number = DEFAULT_REPLAY_EVENTS) {
    if (stream.includes(".") || stream === "") {
      throw new RangeError("A stream name must be non-empty without a dot");
    }
    this.stream = stream;
    this.#capacity = capacity;
  }

  /** The id of the last appended event, or `<stream>.0`. */
  get lastId(): string {
    return `${this.stream}.${this.#next - 1}`;
  }

  /** The id the next appended event gets. */
  get nextId(): string {
    return `${this.stream}.${this.#next}`;
  }

  /** How many clients are subscribed. */
  get clients(): number {
    return this.#subscribers.size;
  }

  /**
   * Appends an event and hands it to every subscriber.
   *
   * @param event The event (its `type` names it).
   * @returns The logged event.
   */
  append(event: { type: string }): LoggedEvent {
    const logged = {
      seq: this.#next++,
      type: event.type,
      data: JSON.stringify(event),
    };
    this.#ring.push(logged);
    this.view.take(logged.type, logged.data);
    if (this.#ring.length > this.#capacity) {
      this.#ring = this.#ring.slice(-this.#capacity);
    }
    for (const s of [...this.#subscribers]) s.deliver(logged);
    return logged;
  }

  /**
   * Takes an event numbered elsewhere (a shared table) and hands it to
   * every subscriber: one already had is ignored; one past a gap starts
   * the buffer afresh (a cursor in the gap then resyncs).
   *
   * @param event The event with its table sequence.
   * @returns Whether it was new.
   */
  accept(event: LoggedEvent): boolean {
    if (event.seq < this.#next) return false;
    if (event.seq > this.#next) this.#ring = [];
    this.#next = event.seq + 1;
    this.#ring.push(event);
    this.view.take(event.type, event.data);
    if (this.#ring.length > this.#capacity) {
      this.#ring = this.#ring.slice(-this.#capacity);
    }
    for (const s of [...this.#subscribers]) s.deliver(event);
    return true;
  }

  /**
   * Hands an event to the subscribers without logging it: it carries the
   * last id again (a heartbeat of a shared stream, whose numbers belong
   * to the table).
   *
   * @param event The event.
   */
  pulse(event: { type: string }): void {
    const logged = {
      seq: this.#next - 1,
      type: event.type,
      data: JSON.stringify(event),
    };
    for (const s of [...this.#subscribers]) s.deliver(logged);
  }

  /**
   * What a client that last saw `cursor` missed: exactly the events after
   * it, or a resync when the cursor names another stream, lies ahead of
   * this log, or fell out of the buffer.
   *
   * @param cursor `<stream>.<seq>` as the client last received it.
   * @returns The replay, or `resync`.
   */
  after(cursor: string): ReplayPlan {
    const dot = cursor.lastIndexOf(".");
    const stream = cursor.slice(0, dot);
    const seqText = cursor.slice(dot + 1);
    if (dot < 1 || stream !== this.stream || !/^\d{1,15}$/.test(seqText)) {
      return { kind: "resync" };
    }
    const events = this.since(Number(seqText));
    return events === undefined
      ? { kind: "resync" }
      : { kind: "replay", events };
  }

  /** The sequence of the last appended event (0 before any). */
  get lastSeq(): number {
    return this.#next - 1;
  }

  /**
   * The events after a sequence number, at most `limit` of them.
   *
   * @param seq The last sequence the client has.
   * @param limit The most events to return.
   * @returns The events, or `undefined` when `seq` lies ahead of the log
   * or fell out of its buffer.
   */
  since(seq: number, limit = Infinity): LoggedEvent[] | undefined {
    if (seq >= this.#next) return undefined;
    const oldest = this.#ring[0]?.seq ?? this.#next;
    if (seq + 1 < oldest) return undefined;
    const from = seq + 1 - oldest;
    return this.#ring.slice(from, from + Math.min(limit, this.#ring.length));
  }

  /**
   * Subscribes a client to the events appended from now on.
   *
   * @param subscriber The client.
   * @returns Unsubscribes it.
   */
  subscribe(subscriber: LogSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => void this.#subscribers.delete(subscriber);
  }
}
