/**
 * Dialect-independent error classification: the HTTP status
 * baseline, the custom-endpoint overflow downgrade, the request id of a
 * response, and failed `fetch` calls, whose message names the URL and the
 * cause a person can act on (connection refused, DNS failure, TLS failure,
 * timeout, a missing Deno permission).
 *
 * @module
 */
import type { LlmError, LlmErrorKind } from "./chunk.ts";
import { type LlmErrorExtra, makeLlmError } from "./errors.ts";

/**
 * The kind an HTTP status implies when the body says nothing more specific:
 * 429 rate_limit · 529 overloaded · 408 timeout · ≥500 overloaded ·
 * 409 overloaded (a transient conflict) · 401/402/403 auth ·
 * 400/404/413/422 bad_request · else unknown.
 *
 * @param status The HTTP status.
 * @returns The baseline kind.
 */
export function statusKind(status: number): LlmErrorKind {
  if (status === 429) return "rate_limit";
  if (status === 408) return "timeout";
  if (status >= 500) return "overloaded";
  if (status === 401 || status === 402 || status === 403) return "auth";
  // A conflict (409) is transient: the providers' own clients retry it.
  if (status === 409) return "overloaded";
  if ([400, 404, 413, 422].includes(status)) return "bad_request";
  return "unknown";
}

/** Longest raw (non-JSON) body text kept in a message. */
const MAX_TEXT = 2000;

/**
 * The message of an error body that is not the documented JSON: an HTML
 * page reduced to its text (its `<title>` when it has one), other text as
 * sent, at most 2,000 characters; an empty body says so.
 *
 * @param text The raw body text.
 * @param status The HTTP status; `undefined` for a stream error event.
 * @returns The message.
 */
export function bodyText(text: string, status: number | undefined): string {
  if (text.trim() === "") {
    return status === undefined
      ? "the stream's error event has no message"
      : "the response body is empty";
  }
  if (/^\s*<(!doctype|html|head|body)\b/i.test(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    const plain = title !== undefined && title !== ""
      ? title
      : text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
    return plain.slice(0, MAX_TEXT);
  }
  return text.slice(0, MAX_TEXT);
}

const POSSIBLE_OVERFLOW =
  /context (window|length|size|limit)|maximum context|too many tokens|prompt is too long|exceeds the maximum number of tokens/i;

/**
 * What a dialect classifier decided, before the custom-endpoint rules.
 */
export interface Classified {
  /** The kind the dialect rules give. */
  kind: LlmErrorKind;
  /** The provider's message (redacted of the key; scrubbed later). */
  message: string;
  /** The provider's error code or type. */
  code?: string;
  /** A wait the body asked for (a header's wins). */
  retryAfterMs?: number;
}

/**
 * Builds the final error of a failed call: on a custom endpoint an
 * overflow is never authoritative, so `context_overflow` stays
 * `bad_request`, and a `bad_request` whose message looks like an overflow
 * gets `code: "possible_context_overflow"` (a UX hint only). A header's
 * retry wait wins over the body's.
 *
 * @param provider The provider id.
 * @param classified The dialect's decision.
 * @param options Status, retry-after and whether the endpoint is custom.
 * @returns The scrubbed error.
 */
export function finishError(
  provider: string,
  classified: Classified,
  options: {
    status?: number;
    retryAfterMs?: number;
    requestId?: string;
    customEndpoint: boolean;
  },
): LlmError {
  let { kind, code } = classified;
  if (options.customEndpoint) {
    if (kind === "context_overflow") kind = "bad_request";
    if (kind === "bad_request" && POSSIBLE_OVERFLOW.test(classified.message)) {
      code = "possible_context_overflow";
    }
  }
  const extra: LlmErrorExtra = {};
  if (code !== undefined && code !== "") extra.code = code;
  if (options.status !== undefined) extra.status = options.status;
  const wait = options.retryAfterMs ?? classified.retryAfterMs;
  if (wait !== undefined) extra.retryAfterMs = wait;
  if (options.requestId !== undefined) extra.requestId = options.requestId;
  return makeLlmError(kind, provider, classified.message, extra);
}

/**
 * The provider's request id of a response: the `request-id` header
 * (Anthropic), else `x-request-id` (OpenAI and most compatible servers).
 *
 * @param headers The response headers.
 * @returns The id, or `undefined` when neither header is set.
 */
export function requestIdOf(headers: Headers): string | undefined {
  const id = headers.get("request-id") ?? headers.get("x-request-id");
  return id === null || id.trim() === "" ? undefined : id.trim();
}

/** What the text of a transport failure says, most specific first. */
const CAUSES: ReadonlyArray<readonly [RegExp, string]> = [
  [/connection refused|ECONNREFUSED/i, "connection refused"],
  [
    /dns error|failed to lookup address|name or service not known|nodename nor servname|no address associated|name resolution|ENOTFOUND|EAI_AGAIN/i,
    "the host name does not resolve (DNS lookup failed)",
  ],
  [/connection reset|ECONNRESET|broken pipe/i, "the connection was reset"],
  [/timed out|ETIMEDOUT/i, "timed out"],
  [
    /network is unreachable|no route to host|ENETUNREACH|EHOSTUNREACH/i,
    "the network is unreachable",
  ],
];

const TLS =
  /certificate|\btls\b|\bssl\b|handshake|corrupt message|InvalidContentType|UnknownIssuer|NotValidForName|peer sent no certificates/i;

/** Every message of an error and its `cause` chain (at most 8 deep). */
function causeTexts(thrown: unknown): { names: string[]; texts: string[] } {
  const names: string[] = [];
  const texts: string[] = [];
  let at: unknown = thrown;
  for (let depth = 0; depth < 8 && at !== undefined && at !== null; depth++) {
    if (at instanceof Error) {
      names.push(at.name);
      texts.push(at.message);
      at = at.cause;
    } else {
      texts.push(String(at));
      break;
    }
  }
  return { names, texts };
}

/**
 * The cause of a failed connection, in words a person can act on:
 * `connection refused`, `the host name does not resolve (DNS lookup
 * failed)`, `TLS failure: <detail>`, `timed out`, `the connection was
 * reset`, `needs the Deno permission --allow-net=<host:port>`, else the
 * transport's own last message with Deno's `error sending request for url
 * (…):` prefix removed.
 *
 * @param thrown What `fetch` (or a body read) threw.
 * @returns The cause.
 */
export function connectCause(thrown: unknown): string {
  const { names, texts } = causeTexts(thrown);
  const all = texts.join(" | ");
  if (names.includes("NotCapable") || /requires net access/i.test(all)) {
    const host = /net access to "([^"]+)"/i.exec(all)?.[1];
    return host === undefined
      ? "needs the Deno permission --allow-net"
      : `needs the Deno permission --allow-net=${host}`;
  }
  for (const [pattern, cause] of CAUSES) {
    if (pattern.test(all)) return cause;
  }
  const last = (texts.at(-1) ?? "").replace(
    /^error sending request for url \([^)]*\):\s*/i,
    "",
  ).replace(/^client error \(Connect\):\s*/i, "");
  if (TLS.test(all)) return `TLS failure: ${last}`;
  if (names.includes("TimeoutError")) return "timed out";
  return last.trim() === "" ? "the request failed" : last;
}

/**
 * Classifies a rejected `fetch` (or a failed body read): an aborted signal
 * is `cancelled` whatever the transport said; a refused redirect is a fatal
 * `bad_request` (`redirect_refused`: the base URL is wrong and retrying will
 * not fix it); a `TimeoutError` is `timeout`; anything else (DNS, reset,
 * TLS) is `transport`. With `url` (the request could not be sent) the
 * message is `Could not connect to <url>: <cause>`; without it (the body
 * read failed) `The response failed: <cause>`.
 *
 * @param thrown What `fetch` or the reader threw.
 * @param provider The provider id.
 * @param signal The request's abort signal, when it has one.
 * @param redact Removes the key from text.
 * @param url The request URL, when the request itself failed.
 * @returns The error.
 */
export function fetchError(
  thrown: unknown,
  provider: string,
  signal: AbortSignal | undefined,
  redact: (text: string) => string,
  url?: string,
): LlmError {
  if (signal?.aborted === true) {
    return makeLlmError("cancelled", provider, "Request aborted");
  }
  const name = thrown instanceof Error ? thrown.name : "";
  const all = redact(causeTexts(thrown).texts.join(" | "));
  if (/encountered redirect|unexpected redirect|redirect mode/i.test(all)) {
    return makeLlmError(
      "bad_request",
      provider,
      `Request refused a redirect: ${all}`,
      { code: "redirect_refused" },
    );
  }
  const cause = redact(connectCause(thrown));
  const message = url === undefined
    ? `The response failed: ${cause}`
    : `Could not connect to ${redact(url)}: ${cause}`;
  return makeLlmError(
    name === "TimeoutError" ? "timeout" : "transport",
    provider,
    message,
  );
}
