import assert from "node:assert/strict";
import {
  type LlmErrorKind,
  LlmProviderError,
  makeLlmError,
} from "../../llm/mod.ts";
import {
  POSSIBLE_OVERFLOW_MESSAGE,
  safeErrorMessage,
  scrubSecrets,
  toSessionError,
  turnErrorCode,
} from "../../llm/errors.ts";

Deno.test("makeLlmError() derives retryable from the kind", () => {
  const kinds: [LlmErrorKind, boolean][] = [
    ["rate_limit", true],
    ["overloaded", true],
    ["timeout", true],
    ["transport", true],
    ["auth", false],
    ["bad_request", false],
    ["content_filter", false],
    ["cancelled", false],
    ["unknown", false],
    ["context_overflow", false],
  ];
  for (const [kind, retryable] of kinds) {
    assert.equal(makeLlmError(kind, "p", "m").retryable, retryable, kind);
  }
});

Deno.test("makeLlmError() scrubs message and code and keeps extras", () => {
  const e = makeLlmError(
    "rate_limit",
    "openai",
    "Bearer sk-proj-abcdefghijklmnopqrst",
    {
      code: "key=sk-abcdefghijklmnopqrst",
      status: 429,
      retryAfterMs: 1500,
    },
  );
  assert.deepEqual(e, {
    kind: "rate_limit",
    retryable: true,
    provider: "openai",
    message: "Bearer [redacted]",
    code: "key=[redacted]",
    status: 429,
    retryAfterMs: 1500,
  });
});

Deno.test("turnErrorCode() maps each provider error kind to its turn error code", () => {
  const table: [LlmErrorKind, string][] = [
    ["auth", "provider_auth"],
    ["rate_limit", "provider_rate_limit"],
    ["overloaded", "provider_unavailable"],
    ["timeout", "provider_unavailable"],
    ["transport", "provider_unavailable"],
    ["content_filter", "content_filter"],
    ["bad_request", "validation"],
    ["context_overflow", "context_overflow"],
    ["unknown", "internal"],
    ["cancelled", "cancelled"],
  ];
  for (const [kind, code] of table) {
    assert.equal(turnErrorCode(kind), code, kind);
  }
});

Deno.test("toSessionError() carries the provider's text, scrubbed, one line, bounded, and its request id", () => {
  const e = makeLlmError(
    "auth",
    "anthropic",
    "invalid x-api-key sk-ant-api03-0123456789abcdef\n\u001b[31mred",
    { status: 401, requestId: "req_011abc" },
  );
  const s = toSessionError(e);
  assert.deepEqual(s, {
    code: "provider_auth",
    message: `${
      safeErrorMessage("provider_auth")
    } (anthropic, HTTP 401): invalid x-api-key [redacted] [31mred`,
    retryable: false,
    correlationId: "req_011abc",
  });
  const long = toSessionError(
    makeLlmError("overloaded", "openai", "x".repeat(5000)),
  );
  assert.ok(long.message.length < 600, "bounded");
  assert.ok(long.message.endsWith("…"));
  const overflow = toSessionError(
    makeLlmError("bad_request", "ollama", "context length", {
      code: "possible_context_overflow",
    }),
  );
  assert.equal(
    overflow.message,
    `${POSSIBLE_OVERFLOW_MESSAGE} (ollama): context length`,
  );
});

Deno.test("LlmProviderError carries the error without its text", () => {
  const e = new LlmProviderError(
    makeLlmError("timeout", "openai", "deadline"),
    { cause: "x" },
  );
  assert.ok(e instanceof Error);
  assert.equal(e.name, "LlmProviderError");
  assert.equal(e.llmError.kind, "timeout");
  assert.equal(e.message.includes("deadline"), false);
});

Deno.test("scrubSecrets() removes every listed secret shape", async (t) => {
  const cases: [string, string, string][] = [
    [
      "url userinfo",
      "https://user:pass@api.example.com/v1",
      "https://[redacted]@api.example.com/v1",
    ],
    [
      "query key",
      "https://x.io/?api_key=abc123&x=1",
      "https://x.io/?api_key=[redacted]&x=1",
    ],
    [
      "query names",
      "?key=1&token=2&access_token=3&auth=4&password=5&secret=6&x-api-key=7&api-key=8",
      "?key=[redacted]&token=[redacted]&access_token=[redacted]&auth=[redacted]&password=[redacted]&secret=[redacted]&x-api-key=[redacted]&api-key=[redacted]",
    ],
    [
      "bearer",
      "Authorization: Bearer abc.def-ghi",
      "Authorization: Bearer [redacted]",
    ],
    [
      "basic",
      "Authorization: Basic dXNlcjpwYXNz",
      "Authorization: Basic [redacted]",
    ],
    ["openai key", "bad key sk-proj-AbCdEfGhIjKlMnOpQr", "bad key [redacted]"],
    ["anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOp_x", "[redacted]"],
    ["google key", "AIzaSyA1234567890abcdefghij", "[redacted]"],
    ["short sk- kept", "sk-short", "sk-short"],
    ["plain text kept", "Basic usage of the API", "Basic usage of the API"],
  ];
  for (const [name, input, want] of cases) {
    await t.step(name, () => assert.equal(scrubSecrets(input), want));
  }
});
