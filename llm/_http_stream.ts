/**
 * The shared streaming core of the HTTP adapters: one POST with
 * `redirect: "error"`, status classification, then SSE events through a
 * dialect mapper into chunks, under the call's watchdog (first-byte and
 * idle timeouts, size bound). Abort wins over the transport and stops all
 * reads; leaving early cancels the body.
 *
 * @module
 */
import type { LlmError, StreamChunk } from "./chunk.ts";
import type { HttpProviderOptions } from "./http.ts";
import {
  createSseParser,
  type SseEvent,
  type SseParser,
  type SseParserOptions,
} from "./sse.ts";
import { makeLlmError } from "./errors.ts";
import { ENDS_ON_ABORT } from "./_ends_on_abort.ts";
import { fetchError } from "./_http_errors.ts";
import { cancelled, type HttpCall, openStream } from "./_http_open.ts";
import {
  startWatchdog,
  type StreamLimits,
  streamLimits,
  tooLarge,
  type Watchdog,
} from "./_watchdog.ts";

/**
 * Turns one dialect's SSE events into chunks, appended to `out`. `event`
 * may append a terminal chunk (the stream then stops); `end` appends the
 * chunks at end of stream, closing with the terminal (a `stop` when the
 * dialect allows ending there, else the truncation error). Appending to
 * the caller's list keeps the work per event free of a fresh array.
 */
export interface StreamMapper {
  /** Appends the chunks of one event, in order. */
  event(ev: SseEvent, out: StreamChunk[]): void;
  /** Appends the chunks at end of stream, the terminal last. */
  end(out: StreamChunk[]): void;
}

/**
 * One streaming HTTP call: the request, plus the dialect's stream mapper.
 */
export interface HttpStreamInput extends HttpCall {
  /** The dialect's stream mapper for this call. */
  mapper: StreamMapper;
  /** SSE bounds. */
  sse?: SseParserOptions;
  /** Timeouts and the size bound; default the defaults of `streamLimits`. */
  limits?: StreamLimits;
}

/**
 * The transport fields of a call from its provider's options: the
 * `fetch`, and the clock and SSE bounds when given.
 *
 * @param options The provider's options.
 * @returns The fields, to spread into a {@linkcode HttpStreamInput}.
 */
export function transportOf(
  options: Pick<HttpProviderOptions, "fetch" | "now" | "sse">,
): Pick<HttpStreamInput, "fetch" | "now" | "sse"> {
  return {
    fetch: options.fetch,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.sse === undefined ? {} : { sse: options.sse }),
  };
}

function isTerminal(chunk: StreamChunk): boolean {
  return chunk.type === "stop" || chunk.type === "error";
}

/**
 * A stream of one chunk (a local refusal that never reaches the network).
 *
 * @param chunk The only chunk, normally an `error`.
 * @returns The stream.
 */
export async function* singleChunk(
  chunk: StreamChunk,
): AsyncGenerator<StreamChunk> {
  yield chunk;
}

/**
 * Runs one streaming call and yields its chunks, always ending with exactly
 * one terminal chunk (unless the consumer stops early; the mapper's `end`
 * must close with one). A 3xx is refused, never followed; a non-2xx
 * becomes one classified `error`; an SSE bound, a body past
 * `maxResponseBytes` (`response_too_large`) or a failed read is
 * `transport`; an aborted signal is `cancelled`. The call runs under its
 * own watchdog: no content within the first-byte timeout of sending the
 * request, or no content for the idle timeout after the last, is a
 * `timeout` (`first_byte_timeout`, `idle_timeout`). Content is any event
 * from which the dialect's mapper makes a chunk (text, reasoning, a tool
 * call's start, arguments or end, the stop with its usage, an error);
 * headers, SSE comment lines, `ping` events and events that carry nothing
 * yet do not count; it is recorded once per read of the body. An abort or
 * an expiry cancels the body's reader, so a pending read settles and the
 * stream ends at once; the request is then aborted, which closes the
 * connection. The call ends (watchdog cleared, body released) as soon as
 * its terminal chunk is handed out or the consumer returns.
 *
 * @param input The call.
 * @returns The chunk stream.
 */
export function streamHttp(
  input: HttpStreamInput,
): AsyncIterableIterator<StreamChunk> {
  return new HttpChunkStream(input);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({
  done: true,
  value: undefined,
});

/**
 * The iterator of one call. Each read of the body is mapped at once into a
 * queue of chunks that `next` hands out from already-settled promises: no
 * generator is resumed per chunk. A mapped chunk is handed out only while
 * the watchdog has not stopped the call (else the stop's error is); the
 * chunks of the stream's end and the call's own errors are final.
 */
class HttpChunkStream implements AsyncIterableIterator<StreamChunk> {
  readonly #input: HttpStreamInput;
  readonly #limits: StreamLimits;
  readonly #dog: Watchdog;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #parser: SseParser | undefined;
  #queue: StreamChunk[] = [];
  #at = 0;
  /** Chunks of the queue from this index on are final (no check). */
  #finalFrom = Infinity;
  #bytes = 0;
  /** The body was read to its end. */
  #finished = false;
  /** Nothing more is handed out; the call is released. */
  #closed = false;
  #pending: Promise<IteratorResult<StreamChunk>> | undefined;
  /** The watchdog cancels the body's reader on abort: a read settles. */
  readonly [ENDS_ON_ABORT] = true;

  constructor(input: HttpStreamInput) {
    this.#input = input;
    this.#limits = input.limits ?? streamLimits({});
    this.#dog = startWatchdog(input.provider, input.signal, this.#limits);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamChunk>> {
    if (this.#pending !== undefined) {
      // A call made while a read is pending waits its turn.
      return this.#pending.then(() => this.next());
    }
    if (this.#at < this.#queue.length) return Promise.resolve(this.#take());
    if (this.#closed || this.#finished) return Promise.resolve(this.#end());
    const pending = this.#fill().then(
      () => {
        this.#pending = undefined;
        return this.#at < this.#queue.length ? this.#take() : this.#end();
      },
      (thrown: unknown) => {
        this.#pending = undefined;
        this.#release();
        throw thrown;
      },
    );
    this.#pending = pending;
    return pending;
  }

  return(): Promise<IteratorResult<StreamChunk>> {
    return Promise.resolve(this.#end());
  }

  #end(): IteratorReturnResult<undefined> {
    this.#release();
    return DONE;
  }

  /** Clears the watchdog; aborts the request and the body unless read out. */
  #release(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#at = 0;
    this.#dog.dispose(!this.#finished);
    if (!this.#finished) this.#reader?.cancel().catch(ignore);
  }

  /** Hands out the next queued chunk; a terminal one ends the call. */
  #take(): IteratorResult<StreamChunk> {
    let chunk = this.#queue[this.#at] as StreamChunk;
    if (this.#at < this.#finalFrom) {
      const stopped = this.#dog.stopped();
      if (stopped !== undefined) chunk = errorChunk(stopped);
    }
    this.#at++;
    if (isTerminal(chunk)) this.#release();
    return { done: false, value: chunk };
  }

  /** Queues one final chunk (an error of the call itself). */
  #fail(error: LlmError): void {
    this.#queue = [errorChunk(error)];
    this.#at = 0;
    this.#finalFrom = 0;
  }

  /** Reads until at least one chunk is queued or the call is over. */
  async #fill(): Promise<void> {
    const { provider, mapper } = this.#input;
    const dog = this.#dog;
    if (this.#reader === undefined) {
      const opened = await openStream({ ...this.#input, signal: dog.signal });
      if (this.#closed) return;
      if (!opened.ok) return this.#fail(dog.stopped() ?? opened.error);
      this.#reader = opened.value.getReader();
      dog.watch(this.#reader);
      this.#parser = createSseParser(this.#input.sse);
    }
    const reader = this.#reader;
    const parser = this.#parser as SseParser;
    const queue: StreamChunk[] = [];
    this.#queue = queue;
    this.#at = 0;
    while (queue.length === 0) {
      const step = await readStep(reader, dog, provider, this.#input.redact);
      if (this.#closed) return;
      if (step.type === "error") return this.#fail(step.error);
      const { read } = step;
      if (!read.done) {
        this.#bytes += read.value.byteLength;
        if (this.#bytes > this.#limits.maxResponseBytes) {
          return this.#fail(tooLarge(provider, this.#limits.maxResponseBytes));
        }
      }
      const parsed = read.done ? parser.end() : parser.push(read.value);
      if (!parsed.ok) {
        const { kind, limit } = parsed.error;
        const message = `Stream refused: SSE ${
          kind.replaceAll("_", " ")
        } (limit ${limit})`;
        return this.#fail(makeLlmError("transport", provider, message));
      }
      for (const ev of parsed.value) mapper.event(ev, queue);
      if (queue.length > 0) dog.content();
      if (read.done) {
        this.#finished = true;
        this.#finalFrom = queue.length;
        mapper.end(queue);
        return;
      }
    }
  }
}

function ignore(): void {}

type ReadStep =
  | { type: "read"; read: ReadableStreamReadResult<Uint8Array> }
  | { type: "error"; error: LlmError };

/**
 * One read of the body. The watchdog cancels the reader when the call's
 * signal aborts, so a pending read settles (done) at once; what stopped the
 * call is then read from the watchdog, not from the read.
 */
async function readStep(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  dog: Watchdog,
  provider: string,
  redact: (text: string) => string,
): Promise<ReadStep> {
  const before = dog.stopped();
  if (before !== undefined) return { type: "error", error: before };
  let read: ReadableStreamReadResult<Uint8Array>;
  try {
    read = await reader.read();
  } catch (thrown) {
    const error = dog.stopped() ??
      fetchError(thrown, provider, dog.signal, redact);
    return { type: "error", error };
  }
  const stopped = dog.stopped();
  if (stopped !== undefined || (read.done && dog.signal.aborted)) {
    return { type: "error", error: stopped ?? cancelled(provider) };
  }
  return { type: "read", read };
}

function errorChunk(error: LlmError): StreamChunk {
  return { type: "error", error };
}
