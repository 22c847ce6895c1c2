/**
 * Anthropic error classification: `error.type` first, then the
 * HTTP status; overflow = 400 `invalid_request_error` whose message says
 * `prompt is too long` or `exceed context limit` (downgraded later on a
 * custom endpoint).
 *
 * @module
 */
import type { LlmErrorKind } from "../chunk.ts";
import { bodyText, type Classified, statusKind } from "../_http_errors.ts";
import { objectField, stringField } from "../_wire_json.ts";

const TYPE_KINDS: Readonly<Record<string, LlmErrorKind>> = {
  rate_limit_error: "rate_limit",
  overloaded_error: "overloaded",
  api_error: "overloaded",
  timeout_error: "timeout",
  authentication_error: "auth",
  permission_error: "auth",
  billing_error: "auth",
  invalid_request_error: "bad_request",
  not_found_error: "bad_request",
  request_too_large: "bad_request",
};

const OVERFLOW = /prompt is too long|exceed context limit/i;

/**
 * Classifies an Anthropic error: a non-2xx response
 * (`{type:"error", error:{type, message}}`) or, with `status` undefined, a
 * mid-stream `error` event.
 *
 * @param status The HTTP status; `undefined` for a stream `error` event.
 * @param body The parsed body or event data.
 * @param text The raw body text (used when it is not the documented JSON).
 * @returns Kind, message and code (the `error.type`).
 */
export function classifyAnthropicError(
  status: number | undefined,
  body: unknown,
  text: string,
): Classified {
  const error = objectField(body, "error");
  const type = stringField(error, "type");
  const message = stringField(error, "message") ??
    bodyText(text, status);
  let kind: LlmErrorKind = type !== undefined && Object.hasOwn(TYPE_KINDS, type)
    ? TYPE_KINDS[type] ?? "unknown"
    : status === undefined
    ? "unknown"
    : statusKind(status);
  if (
    status === 400 && type === "invalid_request_error" && OVERFLOW.test(message)
  ) {
    kind = "context_overflow";
  }
  const classified: Classified = { kind, message };
  if (type !== undefined) classified.code = type;
  return classified;
}
