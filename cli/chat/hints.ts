/**
 * Static hints printed after `[turn failed: <code>]`. Never
 * provider text: the hint depends on the code alone (and, for
 * `validation`, on whether the message is the engine's fixed
 * possible-overflow text).
 *
 * @module
 */
import type { ErrorCode } from "../../schema/event.ts";

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
  budget_exceeded:
    "The session cost cap ([chat].max_cost_microcents) was reached; raise it, or start a new chat",
  turn_limit: "The session reached its turn limit; /clear or start a new chat",
  internal: "Internal error; the session is intact, resend or restart",
};

/**
 * What the hint may depend on besides the code.
 */
export interface HintOptions {
  /**
   * The engine's fixed possible-overflow text; a `validation` error with
   * exactly this message gets the overflow hint.
   */
  possibleOverflowMessage?: string;
  /**
   * The agent's memory policy (`undefined` when omitted): an overflow
   * remedy never names a command the policy refuses.
   */
  memory?: "none" | "window" | "summary";
}

function overflowHint(memory: HintOptions["memory"]): string {
  switch (memory) {
    case "none":
      return "The message is too long for the model on its own (this agent's memory is none): shorten it and resend";
    case "window":
      return "The conversation is too long for the model: /trim, then resend (or start a new chat with a smaller memory window_size)";
    default:
      return HINTS.context_overflow ?? "";
  }
}

/**
 * The static hint for a failed turn.
 *
 * @param code The turn's error code.
 * @param message The engine-authored error message.
 * @param options The possible-overflow text and the memory policy.
 * @returns The hint, or `undefined` when the code has none.
 */
export function turnFailureHint(
  code: ErrorCode,
  message: string,
  options: HintOptions = {},
): string | undefined {
  if (code === "context_overflow") return overflowHint(options.memory);
  if (code === "validation") {
    const possible = options.possibleOverflowMessage;
    return possible !== undefined && message === possible
      ? overflowHint(options.memory)
      : undefined;
  }
  return HINTS[code];
}
