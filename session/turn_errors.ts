/**
 * Fixed, user-safe session errors for the turn core. Provider text never
 * reaches an event, a row or a terminal.
 *
 * @module
 */
import type { LlmError } from "../llm/chunk.ts";
import { safeErrorMessage, toSessionError } from "../llm/errors.ts";
import type { ErrorCode, SessionError } from "../schema/event.ts";

const ENGINE_MESSAGE: Partial<Record<ErrorCode, string>> = {
  tool_denied: "A tool call was denied",
  tool_failed: "A tool call failed",
  tool_unavailable: "A tool is unavailable",
  budget_exceeded: "The session's cost cap refused the request",
  turn_limit: "The turn reached a limit",
  cancelled: "The turn was cancelled",
  internal: "An internal error ended the turn",
};

/** Retryable session codes. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "provider_rate_limit",
  "provider_unavailable",
  "tool_failed",
]);

/**
 * A session error with a fixed message for its code.
 *
 * @param code The session error code.
 * @param message Optional engine-authored, secret-free detail.
 * @returns The error object.
 */
export function sessionError(code: ErrorCode, message?: string): SessionError {
  return {
    code,
    message: message ?? ENGINE_MESSAGE[code] ?? safeErrorMessage(code),
    retryable: RETRYABLE.has(code),
  };
}

/**
 * Maps a classified provider error to the turn's session error: the
 * provider's own text, scrubbed and bounded, after the code's fixed
 * sentence; an overflow is worded by the engine (model and window).
 *
 * @param error The classified error (not `cancelled`).
 * @param detail Context for the overflow wording.
 * @returns The session error.
 */
export function sessionErrorFromLlm(
  error: LlmError,
  detail: { model: string | undefined; window?: number; toolsRan: boolean },
): SessionError {
  const mapped = toSessionError(error);
  if (mapped.code !== "context_overflow") return mapped;
  const size = detail.window !== undefined
    ? `its window of ${detail.window} tokens`
    : "its context window (size unknown)";
  const tools = detail.toolsRan
    ? "tools had already run in this turn"
    : "no tool had run in this turn";
  return sessionError(
    "context_overflow",
    `The request for ${detail.model ?? "the model"} exceeds ${size}; ${tools}`,
  );
}
