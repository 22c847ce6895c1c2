/**
 * A bounded, single-reader async channel: the one way a host hands its
 * events to the caller.
 *
 * @module
 */

/**
 * Options of an {@linkcode EventChannel}.
 */
export interface EventChannelOptions {
  /**
   * How many unread items the channel holds (a positive integer; default
   * {@linkcode DEFAULT_EVENT_CAPACITY}). Past it the oldest unread item
   * is dropped and counted in `dropped`.
   */
  capacity?: number;
}

/** The default capacity of an {@linkcode EventChannel}: 10,000 items. */
export const DEFAULT_EVENT_CAPACITY: number = 10_000;

interface Entry<T> {
  seq: number;
  item: T;
}

interface Waiter {
  seq: number;
  resolve(): void;
}

/**
 * A bounded async iterable with one reader at a time.
 *
 * - Memory stays bounded: with nobody reading, at most `capacity` items
 *   are kept; each further item drops the oldest unread one and counts it
 *   in {@linkcode EventChannel.dropped}.
 * - One reader: a second iteration while one is active throws a
 *   `TypeError`. Leaving a `for await` early (`break`, `return`, a throw)
 *   releases the reader without closing the channel: the next loop goes
 *   on with the next unread item.
 * - After {@linkcode EventChannel.close} the reader gets what is left,
 *   then the loop ends.
 *
 * @typeParam T The item type.
 *
 * @example Publish, read, break and read on
 * ```ts
 * import { EventChannel } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * const channel = new EventChannel<number>({ capacity: 3 });
 * for (const n of [1, 2, 3, 4]) channel.publish(n);
 * assert.equal(channel.dropped, 1);
 * for await (const n of channel) {
 *   assert.equal(n, 2);
 *   break;
 * }
 * channel.close();
 * const rest: number[] = [];
 * for await (const n of channel) rest.push(n);
 * assert.deepEqual(rest, [3, 4]);
 * ```
 */
export class EventChannel<T> implements AsyncIterable<T> {
  /** How many unread items the channel holds before dropping. */
  readonly capacity: number;
  #buffer: Entry<T>[] = [];
  #head = 0;
  #seq = 0;
  #dropped = 0;
  #closed = false;
  #reading = false;
  #inHand: number | undefined;
  #pending: ((r: IteratorResult<T>) => void) | undefined;
  #waiters: Waiter[] = [];

  /**
   * Builds an open, empty channel.
   *
   * @param options The capacity.
   * @throws {RangeError} When `capacity` is not a positive integer.
   */
  constructor(options: EventChannelOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_EVENT_CAPACITY;
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(
        `Invalid event channel capacity: ${capacity} (a positive integer)`,
      );
    }
    this.capacity = capacity;
  }

  /** Unread items dropped because the channel was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Unread items held now. */
  get size(): number {
    return this.#buffer.length - this.#head;
  }

  /** Whether {@linkcode EventChannel.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Hands an item to a waiting reader, or keeps it (dropping the oldest
   * unread item when full). Ignored after close.
   *
   * @param item The item.
   */
  publish(item: T): void {
    if (this.#closed) return;
    const seq = ++this.#seq;
    const pending = this.#pending;
    if (pending !== undefined) {
      this.#pending = undefined;
      this.#inHand = seq;
      pending({ value: item, done: false });
      return;
    }
    this.#buffer.push({ seq, item });
    if (this.size > this.capacity) {
      this.#head++;
      this.#dropped++;
      this.#compact();
      this.#check();
    }
  }

  /** Ends the channel: the reader gets what is left, then `done`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const pending = this.#pending;
    if (pending !== undefined) {
      this.#pending = undefined;
      pending({ value: undefined, done: true });
    }
  }

  /**
   * Resolves when every item published before the call was read (and the
   * reader came back for the next one or left its loop) or dropped. With
   * nobody reading it waits until someone reads or enough newer items
   * push those out.
   *
   * @returns Resolves once those items are delivered or dropped.
   */
  settled(): Promise<void> {
    const seq = this.#seq;
    if (this.#done(seq)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ seq, resolve }));
  }

  /**
   * The reader. One at a time.
   *
   * @returns The iterator.
   * @throws {TypeError} When another reader is active.
   */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#reading) {
      throw new TypeError("The event channel already has a reader");
    }
    this.#reading = true;
    let released = false;
    const release = (): IteratorResult<T> => {
      if (!released) {
        released = true;
        this.#reading = false;
        this.#ack();
      }
      return { value: undefined, done: true };
    };
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (released) return Promise.resolve(release());
        this.#ack();
        if (this.size > 0) {
          const entry = this.#buffer[this.#head++] as Entry<T>;
          this.#compact();
          this.#inHand = entry.seq;
          return Promise.resolve({ value: entry.item, done: false });
        }
        if (this.#closed) return Promise.resolve(release());
        return new Promise((resolve) => {
          this.#pending = resolve;
        });
      },
      return: (): Promise<IteratorResult<T>> => {
        const pending = this.#pending;
        this.#pending = undefined;
        pending?.({ value: undefined, done: true });
        return Promise.resolve(release());
      },
    };
  }

  #ack(): void {
    if (this.#inHand === undefined) return;
    this.#inHand = undefined;
    this.#check();
  }

  #done(seq: number): boolean {
    const oldest = this.size > 0
      ? (this.#buffer[this.#head] as Entry<T>).seq
      : Number.POSITIVE_INFINITY;
    return oldest > seq && (this.#inHand ?? Number.POSITIVE_INFINITY) > seq;
  }

  #check(): void {
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (this.#done(w.seq)) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }

  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
  }
}
