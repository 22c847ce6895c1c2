/**
 * Provider error values: construction with a kind-derived
 * `retryable`, the throwable wrapper, secret scrubbing, and the mapping to
 * turn error codes. A turn's message is a fixed sentence for its code
 * followed by the provider id, the HTTP status and the provider's own
 * text (scrubbed of secrets, stripped of control characters, bounded), so
 * the person sees what the provider said.
 *
 * @module
 */
import type { LlmError, LlmErrorKind } from "./chunk.ts";
import { isRetryableKind } from "./chunk.ts";
import type { ErrorCode, SessionError } from "../schema/event.ts";

/** Optional details of a {@linkcode makeLlmError} error. */
export type LlmErrorExtra = Pick<
  LlmError,
  "code" | "status" | "retryAfterMs" | "requestId"
>;

/** Longest `LlmError.message` kept (longer text is cut with `…`). */
const MAX_MESSAGE = 2000;

/** Longest provider text a turn's session error carries. */
const MAX_SHOWN = 500;

/** Longest request id kept. */
const MAX_REQUEST_ID = 200;

/**
 * Builds a classified {@linkcode LlmError}: `retryable` is derived from the
 * kind; `message`, `code` and `requestId` are scrubbed of secrets and
 * bounded (the message is shown to people).
 *
 * @param kind The error kind.
 * @param provider The provider id.
 * @param message What went wrong: the provider's text or the cause.
 * @param extra Code, HTTP status, retry-after and request id.
 * @returns The error value.
 *
 * @example Build a rate-limit error
 * ```ts
 * import { makeLlmError } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const e = makeLlmError("rate_limit", "openai", "slow down", { status: 429 });
 * assert.equal(e.retryable, true);
 * assert.equal(e.status, 429);
 * ```
 */
export function makeLlmError(
  kind: LlmErrorKind,
  provider: string,
  message: string,
  extra: Pick<LlmError, "code" | "status" | "retryAfterMs" | "requestId"> = {},
): LlmError {
  const error: LlmError = {
    kind,
    retryable: isRetryableKind(kind),
    provider,
    message: bounded(scrubSecrets(message), MAX_MESSAGE),
  };
  if (extra.code !== undefined) error.code = scrubSecrets(extra.code);
  if (extra.status !== undefined) error.status = extra.status;
  if (extra.retryAfterMs !== undefined) {
    error.retryAfterMs = extra.retryAfterMs;
  }
  if (extra.requestId !== undefined) {
    const id = bounded(oneLine(scrubSecrets(extra.requestId)), MAX_REQUEST_ID);
    if (id !== "") error.requestId = id;
  }
  return error;
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Control characters (C0, DEL, C1) become spaces; runs of space collapse. */
function oneLine(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
    .replace(/\s+/g, " ").trim();
}

/**
 * A thrown provider failure carrying its classified {@linkcode LlmError}.
 * Providers normally yield an `error` chunk instead; the chain accepts
 * this class from a throwing provider too.
 *
 * @example Throw and catch
 * ```ts
 * import { LlmProviderError, makeLlmError } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const e = new LlmProviderError(makeLlmError("auth", "openai", "bad key"));
 * assert.equal(e.name, "LlmProviderError");
 * assert.equal(e.llmError.kind, "auth");
 * ```
 */
export class LlmProviderError extends Error {
  /** Always `"LlmProviderError"`. */
  override readonly name: string = "LlmProviderError";
  /** The classified, scrubbed error. */
  readonly llmError: LlmError;

  /**
   * Wraps a classified error.
   *
   * @param llmError The classified error; the `Error` message names its
   *   kind.
   * @param options Standard error options (`cause`).
   */
  constructor(llmError: LlmError, options?: ErrorOptions) {
    super(`Provider call failed: ${llmError.kind}`, options);
    this.llmError = llmError;
  }
}

const TURN_CODES: Readonly<Record<LlmErrorKind, ErrorCode>> = {
  auth: "provider_auth",
  rate_limit: "provider_rate_limit",
  overloaded: "provider_unavailable",
  timeout: "provider_unavailable",
  transport: "provider_unavailable",
  content_filter: "content_filter",
  bad_request: "validation",
  context_overflow: "context_overflow",
  unknown: "internal",
  cancelled: "cancelled",
};

/**
 * The turn error code of a provider error kind. `cancelled`
 * maps to `cancelled`: the session handles it on its abort path.
 *
 * @param kind The error kind.
 * @returns The session error code.
 */
export function turnErrorCode(kind: LlmErrorKind): ErrorCode {
  return TURN_CODES[kind];
}

/**
 * The fixed text a session shows for a `bad_request` that a custom endpoint
 * flagged `possible_context_overflow`.
 */
export const POSSIBLE_OVERFLOW_MESSAGE: string =
  "The provider rejected the request; it may exceed the model's context window";

const SAFE_MESSAGES: Readonly<Partial<Record<ErrorCode, string>>> = {
  provider_auth: "The provider rejected the credentials",
  provider_rate_limit: "The provider is rate limiting requests",
  provider_unavailable: "The provider is unavailable",
  content_filter: "The provider's content filter blocked the response",
  validation: "The provider rejected the request",
  context_overflow: "The conversation exceeds the model's context window",
  internal: "The provider call failed unexpectedly",
  cancelled: "The request was cancelled",
};

/**
 * The fixed first sentence of a turn error code's message (the session
 * error adds the provider's own text after it).
 *
 * @param code A session error code.
 * @returns A fixed message (a generic one for codes outside the provider
 *   mapping).
 */
export function safeErrorMessage(code: ErrorCode): string {
  return SAFE_MESSAGES[code] ?? "The provider call failed";
}

/**
 * Converts a provider error to the session error a turn ends with: mapped
 * code, the kind's retryability, the provider's request id as
 * `correlationId`, and a message made of the code's fixed sentence, the
 * provider id and HTTP status, and the provider's own text (scrubbed,
 * control characters removed, at most 500 characters):
 * `The provider rejected the credentials (anthropic, HTTP 401): invalid x-api-key`.
 *
 * @param error The classified provider error.
 * @returns The session error.
 */
export function toSessionError(error: LlmError): SessionError {
  const code = turnErrorCode(error.kind);
  const head =
    error.kind === "bad_request" && error.code === "possible_context_overflow"
      ? POSSIBLE_OVERFLOW_MESSAGE
      : safeErrorMessage(code);
  const where = error.status === undefined
    ? error.provider
    : `${error.provider}, HTTP ${error.status}`;
  const text = bounded(oneLine(scrubSecrets(error.message)), MAX_SHOWN);
  const wait = error.kind === "rate_limit" && error.retryAfterMs !== undefined
    ? `; it asks to wait ${
      Math.ceil(error.retryAfterMs / 1000)
    } s before the next request`
    : "";
  const session: SessionError = {
    code,
    message: `${head} (${where})${text === "" ? "" : `: ${text}`}${wait}`,
    retryable: isRetryableKind(error.kind),
  };
  if (error.requestId !== undefined) session.correlationId = error.requestId;
  return session;
}

const REDACTED = "[redacted]";
const SCRUBBERS: ReadonlyArray<readonly [RegExp, string]> = [
  // URL userinfo: scheme://user:pass@host
  [/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, `$1${REDACTED}@`],
  // Secret-bearing query values.
  [
    /([?&](?:key|api_key|api-key|x-api-key|token|access_token|auth|password|secret)=)[^&\s#"']*/gi,
    `$1${REDACTED}`,
  ],
  [/\bBearer\s+[^\s,;"']+/gi, `Bearer ${REDACTED}`],
  [/\bBasic\s+[A-Za-z0-9+/=._-]{8,}/gi, `Basic ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bAIza[A-Za-z0-9_-]{20,}/g, REDACTED],
];

/**
 * Removes secrets from diagnostic text: URL userinfo, values of
 * key/token/password-like query parameters, `Bearer …`, `Basic …`,
 * `sk-…`/`sk-ant-…` keys (16+ chars) and `AIza…` keys (20+ chars).
 *
 * @param text Any diagnostic text.
 * @returns The text with each secret replaced by `[redacted]`.
 */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SCRUBBERS) {
    out = out.replace(pattern, replacement);
  }
  return out;
}
