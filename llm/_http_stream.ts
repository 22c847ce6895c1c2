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
  type SseParserOptions,
} from "./sse.ts";
import { makeLlmError } from "./errors.ts";
import { type BatchedChunks, CHUNK_BATCHES } from "./_chunk_batches.ts";
import { fetchError } from "./_http_errors.ts";
import { cancelled, type HttpCall, openStream } from "./_http_open.ts";
import { startWatchdog, tooLarge, type Watchdog } from "./_watchdog.ts";
import { type StreamLimits, streamLimits } from "./stream_limits.ts";

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
 * connection. The stream carries {@linkcode CHUNK_BATCHES}: the chain
 * reads it one list of chunks per read of the body.
 *
 * One generator from bytes to lists of chunks (every nested `yield*` would
 * add an await per chunk). A hand-written iterator that kept the call in an
 * object measured a little faster but held each turn's garbage longer: a
 * 1,000-turn loopback chat peaked at 168 MiB against 134 MiB
 * (BENCHMARKS.md).
 *
 * @param input The call.
 * @returns The chunk stream.
 */
export function streamHttp(
  input: HttpStreamInput,
): AsyncIterableIterator<StreamChunk> {
  let lists: AsyncGenerator<StreamChunk[]> | undefined;
  const open = (): AsyncGenerator<StreamChunk[]> =>
    lists ??= httpChunkLists(input);
  const chunks = oneByOne(open, input) as
    & AsyncGenerator<StreamChunk>
    & Partial<BatchedChunks>;
  chunks[CHUNK_BATCHES] = open;
  return chunks;
}

/**
 * The stream chunk by chunk. An abort of the caller's signal ends it at the
 * next chunk (`cancelled`), not only at the next read.
 */
async function* oneByOne(
  open: () => AsyncGenerator<StreamChunk[]>,
  input: HttpStreamInput,
): AsyncGenerator<StreamChunk> {
  for await (const list of open()) {
    for (const chunk of list) {
      if (input.signal?.aborted === true) {
        yield errorChunk(cancelled(input.provider));
        return;
      }
      yield chunk;
    }
  }
}

/**
 * The call's chunks, one list per read of the body: the lists end with the
 * stream's one terminal chunk. The watchdog's verdict is checked before
 * each list is handed out.
 */
async function* httpChunkLists(
  input: HttpStreamInput,
): AsyncGenerator<StreamChunk[]> {
  const { provider, mapper } = input;
  const limits = input.limits ?? streamLimits({});
  const dog = startWatchdog(provider, input.signal, limits);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  try {
    const opened = await openStream({ ...input, signal: dog.signal });
    if (!opened.ok) {
      yield [errorChunk(dog.stopped() ?? opened.error)];
      return;
    }
    reader = opened.value.getReader();
    dog.watch(reader);
    const parser = createSseParser(input.sse);
    let bytes = 0;
    while (true) {
      const step = await readStep(reader, dog, provider, input.redact);
      if (step.type === "error") {
        yield [errorChunk(step.error)];
        return;
      }
      const { read } = step;
      if (!read.done) {
        bytes += read.value.byteLength;
        if (bytes > limits.maxResponseBytes) {
          yield [errorChunk(tooLarge(provider, limits.maxResponseBytes))];
          return;
        }
      }
      const parsed = read.done ? parser.end() : parser.push(read.value);
      if (!parsed.ok) {
        const { kind, limit } = parsed.error;
        const message = `Stream refused: SSE ${
          kind.replaceAll("_", " ")
        } (limit ${limit})`;
        yield [errorChunk(makeLlmError("transport", provider, message))];
        return;
      }
      const list: StreamChunk[] = [];
      let terminal = false;
      for (const ev of parsed.value) {
        const from = list.length;
        mapper.event(ev, list);
        // A terminal chunk ends the stream: what follows it is not read.
        for (let i = from; i < list.length && !terminal; i++) {
          if (isTerminal(list[i] as StreamChunk)) {
            list.length = i + 1;
            terminal = true;
          }
        }
        if (terminal) break;
      }
      if (list.length > 0) {
        dog.content();
        const stopped = dog.stopped();
        if (stopped !== undefined) {
          yield [errorChunk(stopped)];
          return;
        }
      }
      if (terminal) {
        yield list;
        return;
      }
      if (read.done) {
        finished = true;
        mapper.end(list);
        yield list;
        return;
      }
      if (list.length > 0) yield list;
    }
  } finally {
    dog.dispose(!finished);
    if (!finished) reader?.cancel().catch(ignore);
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
