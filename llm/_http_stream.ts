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
 * connection. The stream carries {@linkcode ENDS_ON_ABORT}.
 *
 * One generator from bytes to chunks (every nested `yield*` would add an
 * await per chunk); each read is mapped at once into one reused list. A
 * hand-written iterator that kept the call in an object measured a little
 * faster but held each turn's garbage longer: a 1,000-turn loopback chat
 * peaked at 168 MiB against 134 MiB (BENCHMARKS.md).
 *
 * @param input The call.
 * @returns The chunk stream.
 */
export function streamHttp(
  input: HttpStreamInput,
): AsyncIterableIterator<StreamChunk> {
  const chunks = httpChunks(input) as AsyncGenerator<StreamChunk> & {
    [ENDS_ON_ABORT]?: true;
  };
  // The watchdog cancels the body's reader on abort: a read settles.
  chunks[ENDS_ON_ABORT] = true;
  return chunks;
}

async function* httpChunks(
  input: HttpStreamInput,
): AsyncGenerator<StreamChunk> {
  const { provider, mapper } = input;
  const limits = input.limits ?? streamLimits({});
  const dog = startWatchdog(provider, input.signal, limits);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  try {
    const opened = await openStream({ ...input, signal: dog.signal });
    if (!opened.ok) {
      yield errorChunk(dog.stopped() ?? opened.error);
      return;
    }
    reader = opened.value.getReader();
    dog.watch(reader);
    const parser = createSseParser(input.sse);
    const queue: StreamChunk[] = [];
    let bytes = 0;
    while (true) {
      const step = await readStep(reader, dog, provider, input.redact);
      if (step.type === "error") {
        yield errorChunk(step.error);
        return;
      }
      const { read } = step;
      if (!read.done) {
        bytes += read.value.byteLength;
        if (bytes > limits.maxResponseBytes) {
          yield errorChunk(tooLarge(provider, limits.maxResponseBytes));
          return;
        }
      }
      const parsed = read.done ? parser.end() : parser.push(read.value);
      if (!parsed.ok) {
        const { kind, limit } = parsed.error;
        const message = `Stream refused: SSE ${
          kind.replaceAll("_", " ")
        } (limit ${limit})`;
        yield errorChunk(makeLlmError("transport", provider, message));
        return;
      }
      queue.length = 0;
      for (const ev of parsed.value) mapper.event(ev, queue);
      if (queue.length > 0) dog.content();
      for (const chunk of queue) {
        const stopped = dog.stopped();
        if (stopped !== undefined) {
          yield errorChunk(stopped);
          return;
        }
        yield chunk;
        if (isTerminal(chunk)) return;
      }
      if (read.done) {
        finished = true;
        queue.length = 0;
        mapper.end(queue);
        yield* queue;
        return;
      }
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
