/**
 * Faults a command reports instead of running (DECISIONS.md 18): a code, a
 * secret-free message, and the exit code the code implies.
 *
 * @module
 */

/**
 * Codes of the `{"type":"error","code","message"}` line.
 *
 * @example Value
 * ```ts
 * import type { FaultCode } from "./fault.ts";
 * const c: FaultCode = "not_found";
 * ```
 */
export type FaultCode =
  | "usage"
  | "not_found"
  | "invalid_agent"
  | "invalid_config"
  | "invalid_cassette"
  | "empty_input"
  | "target_exists"
  | "provider_auth"
  | "provider_config"
  | "internal";

/**
 * A fault: what went wrong before (or instead of) the work.
 *
 * @example Value
 * ```ts
 * import type { CliFault } from "./fault.ts";
 * const f: CliFault = { code: "not_found", message: "No session with id abc" };
 * ```
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
 *
 * @example Build
 * ```ts
 * import { fault } from "./fault.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(fault("usage", "Bad"), { code: "usage", message: "Bad" });
 * ```
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
 *
 * @example Map
 * ```ts
 * import { exitCodeOf } from "./fault.ts";
 * import assert from "node:assert/strict";
 * assert.equal(exitCodeOf({ code: "internal", message: "Disk full" }), 1);
 * assert.equal(exitCodeOf({ code: "not_found", message: "No such session" }), 2);
 * ```
 */
export function exitCodeOf(f: CliFault): 1 | 2 {
  return f.code === "internal" ? 1 : 2;
}
