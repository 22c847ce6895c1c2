/**
 * The engine's own session errors: a code's fixed sentence, and the
 * wording of a context overflow. A provider's error maps through
 * `toSessionError` (its text scrubbed and bounded after the code's
 * sentence).
 *
 * @module
 */
import { safeErrorMessage } from "../llm/errors.ts";
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
 * The engine's wording of a context overflow: the model and its
 * authoritative window when known, and whether a tool had already run in
 * the turn. Provider text never reaches it.
 *
 * @param model The model that overflowed, if known.
 * @param window Its authoritative window, if known.
 * @param toolsRan Whether a tool had run in the turn.
 * @returns The `context_overflow` session error.
 */
export function overflowError(
  model: string | undefined,
  window: number | undefined,
  toolsRan: boolean,
): SessionError {
  const size = window !== undefined
    ? `its window of ${window} tokens`
    : "its context window (size unknown)";
  const tools = toolsRan
    ? "tools had already run in this turn"
    : "no tool had run in this turn";
  return sessionError(
    "context_overflow",
    `The request for ${model ?? "the model"} exceeds ${size}; ${tools}`,
  );
}

/**
 * Thrown by a host hook (`invocationStarted`) to refuse a provider attempt
 * with its own engine-worded session error, which the engine reports as it
 * stands instead of its fixed sentence: the host's journal entry found the
 * session's writer lease taken over, and names the new holder.
 */
export class HookRefusal extends Error {
  /** The error the refused attempt ends with. */
  readonly refusal: SessionError;

  /**
   * Wraps the refusal.
   *
   * @param refusal The error the attempt ends with.
   */
  constructor(refusal: SessionError) {
    super(refusal.message);
    this.name = "HookRefusal";
    this.refusal = refusal;
  }
}
