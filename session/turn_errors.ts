/**
 * Fixed, user-safe session errors for the turn core. Provider text never
 * reaches an event, a row or a terminal.
 *
 * @module
 */
import type { PlanEntry } from "../llm/chain.ts";
import type { LlmError } from "../llm/chunk.ts";
import { safeErrorMessage, toSessionError } from "../llm/errors.ts";
import type { ErrorCode, SessionError } from "../schema/event.ts";
import { authoritativeWindow } from "./window/measure.ts";

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
 * Maps a classified provider error to a session error: the provider's own
 * text, scrubbed and bounded, after the code's fixed sentence; an
 * overflow is worded by the engine (see {@linkcode overflowError}).
 *
 * @param error The classified error (not `cancelled`).
 * @param detail The model and whether a tool had run, for an overflow.
 * @returns The session error.
 */
export function sessionErrorFromLlm(
  error: LlmError,
  detail: { model: string | undefined; toolsRan: boolean },
): SessionError {
  const mapped = toSessionError(error);
  return mapped.code === "context_overflow"
    ? overflowError([], detail.model, detail.toolsRan)
    : mapped;
}

/**
 * The engine's wording of a context overflow: the model and its
 * authoritative window (looked up in the plan) when known, and whether a
 * tool had already run in the turn. Provider text never reaches it.
 *
 * @param plan The plan the request went through.
 * @param model The model that overflowed, if known.
 * @param toolsRan Whether a tool had run in the turn.
 * @returns The `context_overflow` session error.
 */
export function overflowError(
  plan: readonly PlanEntry[],
  model: string | undefined,
  toolsRan: boolean,
): SessionError {
  const entry = model === undefined
    ? undefined
    : plan.find((p) => p.model === model);
  const window = entry === undefined
    ? undefined
    : authoritativeWindow(entry.provider, entry.model);
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
