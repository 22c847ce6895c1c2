/**
 * OpenAI Chat Completions error classification: the HTTP
 * status baseline refined by the body (`{error:{message, type, param,
 * code}}`); overflow = 400 `code: context_length_exceeded` (OpenAI) or a
 * 400 whose message says `maximum context length` (DeepSeek).
 *
 * @module
 */
import type { LlmErrorKind } from "../chunk.ts";
import { bodyText, type Classified, statusKind } from "../_http_errors.ts";
import { objectField, stringField } from "../_wire_json.ts";
import type { OpenAiDialect } from "./types.ts";

/** Kinds of a mid-stream error, which has no status. */
const STREAM_KINDS: Readonly<Record<string, LlmErrorKind>> = {
  rate_limit_exceeded: "rate_limit",
  server_error: "overloaded",
  insufficient_quota: "auth",
  invalid_api_key: "auth",
  context_length_exceeded: "context_overflow",
  invalid_request_error: "bad_request",
};

/**
 * Classifies an OpenAI-compatible error: a non-2xx response or, with
 * `status` undefined, a mid-stream `data: {"error": …}`. A 429
 * `insufficient_quota` is `auth` (retrying will not add credit).
 *
 * @param dialect `openai` or `deepseek` (overflow signal).
 * @param status The HTTP status; `undefined` for a stream error.
 * @param body The parsed body or event data.
 * @param text The raw body text.
 * @returns Kind, message and code (`error.code`, else `error.type`).
 */
export function classifyOpenAiError(
  dialect: OpenAiDialect,
  status: number | undefined,
  body: unknown,
  text: string,
): Classified {
  const error = objectField(body, "error");
  const code = stringField(error, "code");
  const type = stringField(error, "type");
  const message = stringField(error, "message") ??
    bodyText(text, status);
  let kind: LlmErrorKind;
  if (status === undefined) {
    kind = lookup(code) ?? lookup(type) ?? "unknown";
  } else {
    kind = statusKind(status);
    if (
      status === 429 &&
      (code === "insufficient_quota" || type === "insufficient_quota")
    ) {
      kind = "auth";
    }
    if (status === 400 && isOverflow(dialect, code, message)) {
      kind = "context_overflow";
    }
  }
  const classified: Classified = { kind, message };
  const wireCode = code ?? type;
  if (wireCode !== undefined) classified.code = wireCode;
  return classified;
}

function lookup(key: string | undefined): LlmErrorKind | undefined {
  return key !== undefined && Object.hasOwn(STREAM_KINDS, key)
    ? STREAM_KINDS[key]
    : undefined;
}

function isOverflow(
  dialect: OpenAiDialect,
  code: string | undefined,
  message: string,
): boolean {
  if (code === "context_length_exceeded") return true;
  return dialect === "deepseek" && /maximum context length/i.test(message);
}
