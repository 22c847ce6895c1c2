/**
 * Faults a command reports instead of running: a code, a
 * secret-free message, and the exit code the code implies.
 *
 * @module
 */

/**
 * Codes of the `{"type":"error","code","message"}` line.
 */
export type FaultCode =
  | "usage"
  | "not_found"
  | "invalid_agent"
  | "invalid_config"
  | "invalid_cassette"
  | "empty_input"
  | "target_exists"
  | "session_busy"
  | "provider_auth"
  | "provider_config"
  | "internal";

/**
 * A fault: what went wrong before (or instead of) the work.
 */
export interface CliFault {
  /** The machine-readable code. */
  code: FaultCode;
  /** One human, secret-free message. */
  message: string;
}

/**
 * Builds a {@linkcode CliFault}.
 *
 * @param code The code.
 * @param message The message.
 * @returns The fault.
 */
export function fault(code: FaultCode, message: string): CliFault {
  return { code, message };
}

/**
 * The exit code of a fault: environmental faults (`internal`: a store that
 * cannot open, a disk error) exit 1, invocation faults exit 2.
 *
 * @param f The fault.
 * @returns 1 or 2.
 */
export function exitCodeOf(f: CliFault): 1 | 2 {
  return f.code === "internal" ? 1 : 2;
}
