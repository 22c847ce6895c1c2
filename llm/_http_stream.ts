/**
 * The shared streaming core of the HTTP adapters: one POST with
 * `redirect: "error"`, status classification, then SSE events through a
 * dialect mapper into chunks. Abort wins over the transport and stops all
 * reads; leaving early cancels the body.
 *
 * @module
 */
import type { LlmError, StreamChunk } from "./chunk.ts";
import type { FetchFn } from "./http.ts";
import {
  createSseParser,
  type SseEvent,
  type SseParserOptions,
} from "./sse.ts";
import { makeLlmError } from "./errors.ts";
import { type Classified, fetchError, finishError } from "./_http_errors.ts";
import { retryAfterMs } from "./_retry_after.ts";
import { parseJson } from "./_wire_json.ts";

/**
 * Turns one dialect's SSE events into chunks. `event` may return a terminal
 * chunk (the stream then stops); `end` gives the terminal at end of stream
 * (a `stop` when the dialect allows ending there, else the truncation
 * error).
 *
 * @example Shape
 * ```ts
 * import type { StreamMapper } from "./_http_stream.ts";
 * type E = StreamMapper["event"];
 * ```
 */
export interface StreamMapper {
  /** Chunks of one event, in order. */
  event(ev: SseEvent): StreamChunk[];
  /** Chunks at end of stream, the terminal last. */
  end(): StreamChunk[];
}

/**
 * One streaming HTTP call.
 *
 * @example Shape
 * ```ts
 * import type { HttpStreamInput } from "./_http_stream.ts";
 * type K = keyof HttpStreamInput;
 * ```
 */
export interface HttpStreamInput {
  /** Provider id, for errors. */
  provider: string;
  /** The transport. */
  fetch: FetchFn;
  /** Full endpoint URL. */
  url: string;
  /** Request headers (the key lives only here). */
  headers: Record<string, string>;
  /** The JSON request body. */
  body: string;
  /** The request's abort signal. */
  signal: AbortSignal | undefined;
  /** Removes the key from any provider text. */
  redact(text: string): string;
  /** The dialect's stream mapper for this call. */
  mapper: StreamMapper;
  /** The dialect's classification of a non-2xx response. */
  classify(status: number, body: unknown, text: string): Classified;
  /** Whether the endpoint is custom (overflow downgrade). */
  customEndpoint: boolean;
  /** Clock for `retry-after` HTTP dates. */
  now?: () => number;
  /** SSE bounds. */
  sse?: SseParserOptions;
}

/** Most bytes of an error body we read before giving up on the rest. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * Returns a function that replaces every occurrence of `key` in a text by
 * `[redacted]` (keys shorter than 6 characters are left alone: they cannot
 * be told apart from ordinary words).
 *
 * @param key The API key of the call.
 * @returns The redactor.
 *
 * @example Redact a planted key
 * ```ts
 * import { keyRedactor } from "./_http_stream.ts";
 * import assert from "node:assert/strict";
 * assert.equal(keyRedactor("local-secret")("bad key local-secret"), "bad key [redacted]");
 * ```
 */
export function keyRedactor(key: string): (text: string) => string {
  if (key.length < 6) return (text) => text;
  return (text) =>
    text.includes(key) ? text.split(key).join("[redacted]") : text;
}

function isTerminal(chunk: StreamChunk): boolean {
  return chunk.type === "stop" || chunk.type === "error";
}

async function readBounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    while (size < limit) {
      const r = await reader.read();
      if (r.done) return text + decoder.decode();
      size += r.value.byteLength;
      text += decoder.decode(r.value, { stream: true });
    }
    return text + decoder.decode();
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

async function errorFromResponse(
  input: HttpStreamInput,
  response: Response,
): Promise<LlmError> {
  const status = response.status;
  const wait = retryAfterMs(response.headers, input.now);
  let text = "";
  if (response.body !== null) {
    try {
      text = input.redact(await readBounded(response.body, MAX_ERROR_BODY));
    } catch (thrown) {
      return fetchError(thrown, input.provider, input.signal, input.redact);
    }
  }
  if (aborted(input.signal)) {
    return cancelled(input.provider);
  }
  const classified = input.classify(status, parseJson(text), text);
  const options: {
    status: number;
    retryAfterMs?: number;
    customEndpoint: boolean;
  } = {
    status,
    customEndpoint: input.customEndpoint,
  };
  if (wait !== undefined) options.retryAfterMs = wait;
  return finishError(input.provider, classified, options);
}

/**
 * Runs one streaming call and yields its chunks, always ending with exactly
 * one terminal chunk (unless the consumer stops early; the mapper's `end`
 * must close with one). A 3xx is refused,
 * never followed; a non-2xx becomes one classified `error`; an SSE bound or
 * a failed read is `transport`; an aborted signal is `cancelled` and no
 * further read is made. The body is cancelled whenever the generator ends
 * before end of stream.
 *
 * @param input The call.
 * @returns The chunk stream.
 *
 * @example A 401 from an in-memory fetch
 * ```ts
 * import { streamHttp } from "./_http_stream.ts";
 * import assert from "node:assert/strict";
 * const chunks = [];
 * for await (const c of streamHttp({
 *   provider: "p", url: "https://x.test/v1", headers: {}, body: "{}", signal: undefined,
 *   fetch: () => Promise.resolve(new Response('{"error":"no"}', { status: 401 })),
 *   redact: (t) => t, customEndpoint: false,
 *   mapper: { event: () => [], end: () => [] },
 *   classify: (status, _body, text) => ({ kind: status === 401 ? "auth" : "unknown", message: text }),
 * })) chunks.push(c);
 * assert.equal(chunks.length, 1);
 * assert.equal(chunks[0]?.type === "error" ? chunks[0].error.kind : "", "auth");
 * ```
 */
export async function* streamHttp(
  input: HttpStreamInput,
): AsyncGenerator<StreamChunk> {
  const { provider, signal } = input;
  if (signal?.aborted === true) {
    yield errorChunk(cancelled(provider));
    return;
  }
  let response: Response;
  try {
    const init: RequestInit = {
      method: "POST",
      headers: input.headers,
      body: input.body,
      redirect: "error",
    };
    if (signal !== undefined) init.signal = signal;
    response = await input.fetch(input.url, init);
  } catch (thrown) {
    yield errorChunk(fetchError(thrown, provider, signal, input.redact));
    return;
  }
  if (response.status >= 300 && response.status < 400) {
    response.body?.cancel().catch(() => undefined);
    yield errorChunk(makeLlmError(
      "bad_request",
      provider,
      `Request refused a redirect (HTTP ${response.status})`,
      { code: "redirect_refused", status: response.status },
    ));
    return;
  }
  if (!response.ok) {
    yield errorChunk(await errorFromResponse(input, response));
    return;
  }
  if (response.body === null) {
    yield errorChunk(
      makeLlmError("transport", provider, "Response has no body: truncated"),
    );
    return;
  }
  yield* readEvents(input, response.body);
}

async function* readEvents(
  input: HttpStreamInput,
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<StreamChunk> {
  const { provider, signal, mapper } = input;
  const reader = body.getReader();
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

function cancelled(provider: string): LlmError {
  return makeLlmError("cancelled", provider, "Request aborted");
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function errorChunk(error: LlmError): StreamChunk {
  return { type: "error", error };
}
