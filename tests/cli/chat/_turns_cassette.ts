/** A cassette of text turns and failed ones, for exit-code and listing tests. */

/**
 * A v1.0 anthropic cassette: one call per entry, a text answer, or an
 * `auth` failure for `null`.
 *
 * @param answers The answers in call order.
 * @returns The cassette's JSON.
 */
export function turnsCassette(answers: ReadonlyArray<string | null>): string {
  return JSON.stringify({
    schema_version: "1.0",
    provider: "anthropic",
    calls: answers.map((text) =>
      text === null
        ? [{
          type: "error",
          error: {
            kind: "auth",
            provider: "anthropic",
            message: "bad key",
            retryable: false,
          },
        }]
        : [
          { type: "text_delta", text },
          {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 10, outputTokens: 2 },
          },
        ]
    ),
  });
}
