/**
 * The abort controller of each session operation, from the
 * `newAbortController` effect when the host supplies one. A throw, or a
 * value that is not a controller, fails the operation before any egress.
 *
 * @module
 */
import type { SessionDeps } from "./deps.ts";

/** Why an operation failed when the controller factory failed. */
export const CONTROLLER_FAILED: string =
  "Cannot start: the session's newAbortController effect failed";

function isController(value: unknown): value is AbortController {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Partial<AbortController>;
  return c.signal instanceof AbortSignal && typeof c.abort === "function";
}

/**
 * A fresh controller: the effect's, else `new AbortController()`.
 *
 * @param deps The session's `newAbortController`, if any.
 * @returns The controller (its signal may already be aborted), or
 * `undefined` when the effect threw or made something that is not a
 * controller.
 */
export function newController(
  deps: Pick<SessionDeps, "newAbortController">,
): AbortController | undefined {
  const make = deps.newAbortController;
  if (make === undefined) return new AbortController();
  try {
    const made: unknown = make();
    return isController(made) ? made : undefined;
  } catch {
    return undefined;
  }
}
