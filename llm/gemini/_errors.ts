/**
 * Gemini error classification: the `google.rpc.Status` body
 * (`{error: {code, message, status, details}}`) refined by the HTTP
 * status; overflow = 400 `INVALID_ARGUMENT` whose message says the input
 * token count exceeds the maximum (downgraded later on a custom
 * endpoint); the wait of a `google.rpc.RetryInfo` detail kept.
 *
 * @module
 */
import type { LlmErrorKind } from "../chunk.ts";
import { type Classified, statusKind } from "../_http_errors.ts";
import {
  isObject,
  type JsonObject,
  objectField,
  stringField,
} from "../_wire_json.ts";

const STATUS_KINDS: Readonly<Record<string, LlmErrorKind>> = {
  INVALID_ARGUMENT: "bad_request",
  FAILED_PRECONDITION: "bad_request",
  OUT_OF_RANGE: "bad_request",
  NOT_FOUND: "bad_request",
  UNAUTHENTICATED: "auth",
  PERMISSION_DENIED: "auth",
  RESOURCE_EXHAUSTED: "rate_limit",
  INTERNAL: "overloaded",
  UNAVAILABLE: "overloaded",
  DEADLINE_EXCEEDED: "timeout",
  CANCELLED: "transport",
};

/** `ErrorInfo.reason` values that mean the key is wrong. */
const KEY_REASONS = new Set(["API_KEY_INVALID", "API_KEY_EXPIRED"]);

const OVERFLOW =
  /input token count.*exceeds the maximum|exceeds the maximum number of tokens|context (window|length) (is )?exceeded/i;

/** Longest raw (non-JSON) body text kept in a message. */
const MAX_TEXT = 2000;
/** Longest wait we record (a day). */
const MAX_MS = 86_400_000;

function details(error: JsonObject | undefined): JsonObject[] {
  const list = error?.["details"];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

function detailOf(
  error: JsonObject | undefined,
  type: string,
): JsonObject | undefined {
  return details(error).find((d) =>
    stringField(d, "@type")?.endsWith(`google.rpc.${type}`) === true
  );
}

/**
 * A `google.rpc.RetryInfo.retryDelay` (a protobuf Duration as JSON:
 * `"30s"`, `"1.5s"`) in whole ms, or `undefined`.
 *
 * @param error The `error` object.
 * @returns The wait.
 */
export function retryDelayMs(
  error: JsonObject | undefined,
): number | undefined {
  const delay = detailOf(error, "RetryInfo")?.["retryDelay"];
  if (typeof delay === "string") {
    const m = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
    if (m === null) return undefined;
    return Math.min(Math.ceil(Number(m[1]) * 1000), MAX_MS);
  }
  if (isObject(delay)) {
    const seconds = Number(delay["seconds"] ?? 0);
    const nanos = Number(delay["nanos"] ?? 0);
    const ms = Math.ceil(seconds * 1000 + nanos / 1e6);
    return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_MS) : undefined;
  }
  return undefined;
}

/**
 * Classifies a Gemini error: a non-2xx response or, with `status`
 * undefined, an `{"error": …}` event mid-stream. A body wrapped in an
 * array (the non-SSE stream's form) is read from its first element. The
 * rpc `status` decides the kind (`INVALID_ARGUMENT` bad_request,
 * `PERMISSION_DENIED`/`UNAUTHENTICATED` auth, `RESOURCE_EXHAUSTED`
 * rate_limit, `INTERNAL`/`UNAVAILABLE` overloaded, `DEADLINE_EXCEEDED`
 * timeout), else the HTTP status; an invalid key (`ErrorInfo.reason`
 * `API_KEY_INVALID`) is auth; a 400 whose message says the input token
 * count exceeds the maximum is `context_overflow`.
 *
 * @param status The HTTP status; `undefined` for a stream error.
 * @param body The parsed body or event data.
 * @param text The raw body text.
 * @returns Kind, message, code (the rpc `status`) and the retry delay.
 */
export function classifyGeminiError(
  status: number | undefined,
  body: unknown,
  text: string,
): Classified {
  const payload = Array.isArray(body) ? body[0] : body;
  const error = objectField(payload, "error");
  const rpc = stringField(error, "status");
  const message = stringField(error, "message") ??
    (text.trim() === ""
      ? `HTTP ${status ?? "stream"} error`
      : text.slice(0, MAX_TEXT));
  const code = typeof error?.["code"] === "number" ? error["code"] : undefined;
  const httpStatus = status ?? code;
  let kind: LlmErrorKind = rpc !== undefined && Object.hasOwn(STATUS_KINDS, rpc)
    ? STATUS_KINDS[rpc] ?? "unknown"
    : httpStatus === undefined
    ? "unknown"
    : statusKind(httpStatus);
  const reason = stringField(detailOf(error, "ErrorInfo"), "reason");
  if (reason !== undefined && KEY_REASONS.has(reason)) kind = "auth";
  if (
    (httpStatus === 400 || rpc === "INVALID_ARGUMENT") &&
    kind === "bad_request" &&
    OVERFLOW.test(message)
  ) {
    kind = "context_overflow";
  }
  const classified: Classified = { kind, message };
  if (rpc !== undefined) classified.code = rpc;
  const wait = retryDelayMs(error);
  if (wait !== undefined) classified.retryAfterMs = wait;
  return classified;
}
