/**
 * Static hints printed after `[turn failed: <code>]` (cli.md §4). Never
 * provider text: the hint depends on the code alone (and, for
 * `validation`, on whether the message is the engine's fixed
 * possible-overflow text).
 *
 * @module
 */
import type { ErrorCode } from "../schema/event.ts";

const HINTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  provider_rate_limit:
    "The provider is rate limiting (already retried and failed over); resend the message later",
  provider_unavailable:
    "The provider is unavailable (already retried and failed over); resend the message later",
  provider_auth: "Check the provider API key (relavium doctor)",
  content_filter: "The provider filtered the content; rephrase the message",
  context_overflow:
    "The conversation is too long for the model: /compact or /trim, then resend",
  tool_failed: "A tool failed; fix the path or target and resend",
  tool_denied: "A tool was denied; change /mode to allow it",
  tool_unavailable:
    "A tool is unavailable: a capability or runtime permission is missing",
  budget_exceeded: "The session cost cap was reached",
  turn_limit: "The session reached its turn limit; /clear or start a new chat",
  internal: "Internal error; the session is intact, resend or restart",
};

/**
 * The static hint for a failed turn.
 *
 * @param code The turn's error code.
 * @param message The engine-authored error message.
 * @param possibleOverflowMessage The engine's fixed possible-overflow text;
 * a `validation` error with exactly this message gets the overflow hint.
 * @returns The hint, or `undefined` when the code has none.
 *
 * @example Hints by code
 * ```ts
 * import { turnFailureHint } from "./hints.ts";
 * import assert from "node:assert/strict";
 * assert.match(turnFailureHint("provider_auth", "x") ?? "", /key/);
 * assert.equal(turnFailureHint("validation", "Bad request"), undefined);
 * assert.match(turnFailureHint("validation", "P", "P") ?? "", /compact/);
 * ```
 */
export function turnFailureHint(
  code: ErrorCode,
  message: string,
  possibleOverflowMessage?: string,
): string | undefined {
  if (code === "validation") {
    return possibleOverflowMessage !== undefined &&
        message === possibleOverflowMessage
      ? HINTS.context_overflow
      : undefined;
  }
  return HINTS[code];
}
