/**
 * Lifecycle misuse of an `AgentSession` (session.md §3).
 *
 * @module
 */

/**
 * Why an operation was refused by the session's lifecycle.
 */
export type SessionStateErrorCode =
  | "not_started"
  | "already_started"
  | "not_active"
  | "invalid_resume_state";

const MESSAGES: Record<SessionStateErrorCode, string> = {
  not_started: "Cannot run this operation: the session has not started",
  already_started: "Cannot start: the session has already started",
  not_active: "Cannot run this operation: the session is not idle",
  invalid_resume_state: "resumed completed-turn metadata is invalid",
};

/**
 * Thrown (or rejected) when an operation is illegal in the current state.
 *
 * @example Catch it
 * ```ts
 * import { SessionStateError } from "@relavium/session/session";
 * import assert from "node:assert/strict";
 * const e = new SessionStateError("not_started");
 * assert.equal(e.code, "not_started");
 * assert.equal(e.name, "SessionStateError");
 * ```
 */
export class SessionStateError extends Error {
  /** The lifecycle reason. */
  readonly code: SessionStateErrorCode;

  /**
   * Builds the error with the fixed message of its code.
   *
   * @param code The lifecycle reason.
   */
  constructor(code: SessionStateErrorCode) {
    super(MESSAGES[code]);
    this.name = "SessionStateError";
    this.code = code;
  }
}
