/**
 * Gemini error classification: the HTTP status baseline refined by the
 * body (`{error: {code, message, status, details}}`): a 400 whose message
 * says the input is too long is a context overflow; a 429's
 * `google.rpc.RetryInfo` detail gives the wait.
 *
 * @module
 */
import type { LlmErrorKind } from "../chunk.ts";
import { bodyText, type Classified, statusKind } from "../_http_errors.ts";
import { isObject, objectField, stringField } from "../_wire_json.ts";

/** Kinds of a status name, for an error without an HTTP status. */
const STATUS_KINDS: Readonly<Record<string, LlmErrorKind>> = {
  RESOURCE_EXHAUSTED: "rate_limit",
  UNAVAILABLE: "overloaded",
  INTERNAL: "overloaded",
  DEADLINE_EXCEEDED: "timeout",
  UNAUTHENTICATED: "auth",
  PERMISSION_DENIED: "auth",
  INVALID_ARGUMENT: "bad_request",
  FAILED_PRECONDITION: "bad_request",
  NOT_FOUND: "bad_request",
};

const OVERFLOW =
  /input token count.*exceeds|exceeds the maximum number of tokens|too many tokens|context (window|length)/i;

/**
 * The wait of a `google.rpc.RetryInfo` detail (`retryDelay`: `"37s"`,
 * `"1.5s"`), in ms.
 */
function retryDelayMs(error: unknown): number | undefined {
  const details = isObject(error) ? error["details"] : undefined;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const type = stringField(d, "@type") ?? "";
    const delay = stringField(d, "retryDelay");
    if (!type.endsWith("google.rpc.RetryInfo") || delay === undefined) {
      continue;
    }
    const seconds = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim())?.[1];
    if (seconds !== undefined) return Math.round(Number(seconds) * 1000);
  }
  return undefined;
}

/**
 * Classifies a Gemini error: a non-2xx response or, with `status`
 * undefined, an error object inside the stream.
 *
 * @param status The HTTP status; `undefined` for a stream error.
 * @param body The parsed body or event data.
 * @param text The raw body text.
 * @returns Kind, message, code (`error.status`) and the body's retry wait.
 */
export function classifyGeminiError(
  status: number | undefined,
  body: unknown,
  text: string,
): Classified {
  const wrapped = objectField(body, "error");
  const error = wrapped ??
    (Array.isArray(body) ? objectField(body[0], "error") : undefined);
  const name = stringField(error, "status");
  const message = stringField(error, "message") ?? bodyText(text, status);
  let kind: LlmErrorKind = status === undefined
    ? (name !== undefined && Object.hasOwn(STATUS_KINDS, name)
      ? STATUS_KINDS[name] ?? "unknown"
      : "unknown")
    : statusKind(status);
  if (
    (status === 400 || name === "INVALID_ARGUMENT") && OVERFLOW.test(message)
  ) {
    kind = "context_overflow";
  }
  const classified: Classified = { kind, message };
  if (name !== undefined) classified.code = name;
  const wait = retryDelayMs(error);
  if (wait !== undefined) classified.retryAfterMs = wait;
  return classified;
}
