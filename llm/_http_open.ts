/**
 * The request half of an HTTP adapter call: send the POST with
 * `redirect: "error"`, refuse redirects, and turn a non-2xx response into a
 * classified, scrubbed error (bounded body read, key redacted,
 * `retry-after` kept).
 *
 * @module
 */
import type { LlmError } from "./chunk.ts";
import type { FetchFn } from "./http.ts";
import type { Result } from "../schema/result.ts";
import { makeLlmError } from "./errors.ts";
import {
  type Classified,
  fetchError,
  finishError,
  requestIdOf,
} from "./_http_errors.ts";
import { retryAfterMs } from "./_retry_after.ts";
import { parseJson } from "./_wire_json.ts";
import { abortable } from "./_watchdog.ts";

/**
 * One HTTP call: request, key redaction and error classification.
 */
export interface HttpCall {
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
  /** The dialect's classification of a non-2xx response. */
  classify(status: number, body: unknown, text: string): Classified;
  /** Whether the endpoint is custom (overflow downgrade). */
  customEndpoint: boolean;
  /** Clock for `retry-after` HTTP dates. */
  now?: () => number;
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
 */
export function keyRedactor(key: string): (text: string) => string {
  if (key.length < 6) return (text) => text;
  return (text) =>
    text.includes(key) ? text.split(key).join("[redacted]") : text;
}

async function readBounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    while (size < limit) {
      const r = await abortable(reader.read(), signal);
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
  input: HttpCall,
  response: Response,
): Promise<LlmError> {
  const status = response.status;
  const wait = retryAfterMs(response.headers, input.now);
  let text = "";
  if (response.body !== null) {
    try {
      text = input.redact(
        await readBounded(response.body, MAX_ERROR_BODY, input.signal),
      );
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
    requestId?: string;
    customEndpoint: boolean;
  } = {
    status,
    customEndpoint: input.customEndpoint,
  };
  if (wait !== undefined) options.retryAfterMs = wait;
  const requestId = requestIdOf(response.headers);
  if (requestId !== undefined) options.requestId = requestId;
  return finishError(input.provider, classified, options);
}

/**
 * Sends the request and checks the response: the body stream of a 2xx,
 * else the classified error (abort before sending, `fetch` rejection, a
 * refused 3xx, a non-2xx with its bounded, key-redacted body and
 * `retry-after`, or a missing body). The `fetch` and every read of an error
 * body are raced with the signal: an abort ends the call at once, and a
 * response that arrives after it has its body cancelled.
 *
 * @param input The call.
 * @returns The body, or the error.
 */
export async function openStream(
  input: HttpCall,
): Promise<Result<ReadableStream<Uint8Array>, LlmError>> {
  const { provider, signal } = input;
  if (aborted(signal)) return { ok: false, error: cancelled(provider) };
  let response: Response;
  const init: RequestInit = {
    method: "POST",
    headers: input.headers,
    body: input.body,
    redirect: "error",
  };
  if (signal !== undefined) init.signal = signal;
  let pending: Promise<Response> | undefined;
  try {
    pending = input.fetch(input.url, init);
    response = await abortable(pending, signal);
  } catch (thrown) {
    pending?.then(cancelBody, () => undefined);
    return {
      ok: false,
      error: fetchError(thrown, provider, signal, input.redact, input.url),
    };
  }
  if (response.status >= 300 && response.status < 400) {
    response.body?.cancel().catch(() => undefined);
    const error = makeLlmError(
      "bad_request",
      provider,
      `Request refused a redirect (HTTP ${response.status})`,
      { code: "redirect_refused", status: response.status },
    );
    return { ok: false, error };
  }
  if (!response.ok) {
    return { ok: false, error: await errorFromResponse(input, response) };
  }
  if (response.body === null) {
    const message = "Response has no body: truncated";
    return { ok: false, error: makeLlmError("transport", provider, message) };
  }
  return { ok: true, value: response.body };
}

function cancelBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/**
 * The `cancelled` error of an aborted request.
 *
 * @param provider The provider id.
 * @returns The error.
 */
export function cancelled(provider: string): LlmError {
  return makeLlmError("cancelled", provider, "Request aborted");
}

/**
 * Whether a request's signal has aborted (a function, so the check is
 * re-evaluated after every await).
 *
 * @param signal The signal, if any.
 * @returns `true` once aborted.
 */
export function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
