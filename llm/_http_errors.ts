/**
 * Dialect-independent error classification: the HTTP status
 * baseline, the custom-endpoint overflow downgrade, and failed `fetch`
 * calls.
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
  options: { status?: number; retryAfterMs?: number; customEndpoint: boolean },
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
  return makeLlmError(kind, provider, classified.message, extra);
}

/**
 * Classifies a rejected `fetch` (or a failed body read): an aborted signal
 * is `cancelled` whatever the transport said; a refused redirect is a fatal
 * `bad_request` (`redirect_refused`: the base URL is wrong and retrying will
 * not fix it); a `TimeoutError` is `timeout`; anything else (DNS, reset,
 * TLS) is `transport`.
 *
 * @param thrown What `fetch` or the reader threw.
 * @param provider The provider id.
 * @param signal The request's abort signal, when it has one.
 * @param redact Removes the key from text.
 * @returns The error.
 */
export function fetchError(
  thrown: unknown,
  provider: string,
  signal: AbortSignal | undefined,
  redact: (text: string) => string,
): LlmError {
  if (signal?.aborted === true) {
    return makeLlmError("cancelled", provider, "Request aborted");
  }
  const name = thrown instanceof Error ? thrown.name : "";
  const detail = redact(thrown instanceof Error ? thrown.message : "");
  if (/encountered redirect|unexpected redirect|redirect mode/i.test(detail)) {
    return makeLlmError(
      "bad_request",
      provider,
      `Request refused a redirect: ${detail}`,
      { code: "redirect_refused" },
    );
  }
  if (name === "TimeoutError") {
    return makeLlmError("timeout", provider, `Request timed out: ${detail}`);
  }
  return makeLlmError("transport", provider, `Request failed: ${detail}`);
}
