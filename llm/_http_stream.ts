/**
 * The shared streaming core of the HTTP adapters: one POST with
 * `redirect: "error"`, status classification, then SSE events through a
 * dialect mapper into chunks. Abort wins over the transport and stops all
 * reads; leaving early cancels the body.
 *
 * @module
 */
import type { LlmError, StreamChunk } from "./chunk.ts";
import {
  createSseParser,
  type SseEvent,
  type SseParserOptions,
} from "./sse.ts";
import { makeLlmError } from "./errors.ts";
import { fetchError } from "./_http_errors.ts";
import { aborted, cancelled, type HttpCall, openStream } from "./_http_open.ts";

/**
 * Turns one dialect's SSE events into chunks. `event` may return a terminal
 * chunk (the stream then stops); `end` gives the chunks at end of stream,
 * closing with the terminal (a `stop` when the dialect allows ending
 * there, else the truncation error).
 */
export interface StreamMapper {
  /** Chunks of one event, in order. */
  event(ev: SseEvent): StreamChunk[];
  /** Chunks at end of stream, the terminal last. */
  end(): StreamChunk[];
}

/**
 * One streaming HTTP call: the request, plus the dialect's stream mapper.
 */
export interface HttpStreamInput extends HttpCall {
  /** The dialect's stream mapper for this call. */
  mapper: StreamMapper;
  /** SSE bounds. */
  sse?: SseParserOptions;
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
 * becomes one classified `error`; an SSE bound or a failed read is
 * `transport`; an aborted signal is `cancelled` and no
 * further read is made. The body is cancelled whenever the generator ends
 * before end of stream.
 *
 * @param input The call.
 * @returns The chunk stream.
 */
export async function* streamHttp(
  input: HttpStreamInput,
): AsyncGenerator<StreamChunk> {
  const opened = await openStream(input);
  if (!opened.ok) {
    yield errorChunk(opened.error);
    return;
  }
  // One generator from bytes to chunks: every nested `yield*` would add an
  // await per chunk on the hot path.
  const { provider, signal, mapper } = input;
  const reader = opened.value.getReader();
  const parser = createSseParser(input.sse);
  let finished = false;
  try {
    while (true) {
      if (aborted(signal)) {
        yield errorChunk(cancelled(provider));
        return;
      }
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (thrown) {
        yield errorChunk(fetchError(thrown, provider, signal, input.redact));
        return;
      }
      if (aborted(signal)) {
        yield errorChunk(cancelled(provider));
        return;
      }
      const parsed = step.done ? parser.end() : parser.push(step.value);
      if (!parsed.ok) {
        const { kind, limit } = parsed.error;
        const message = `Stream refused: SSE ${
          kind.replaceAll("_", " ")
        } (limit ${limit})`;
        yield errorChunk(makeLlmError("transport", provider, message));
        return;
      }
      for (const ev of parsed.value) {
        for (const chunk of mapper.event(ev)) {
          if (aborted(signal)) {
            yield errorChunk(cancelled(provider));
            return;
          }
          yield chunk;
          if (isTerminal(chunk)) return;
        }
      }
      if (step.done) {
        finished = true;
        yield* mapper.end();
        return;
      }
    }
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
  }
}

function errorChunk(error: LlmError): StreamChunk {
  return { type: "error", error };
}
