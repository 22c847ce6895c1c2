/**
 * The session record's checks: a new session's fields when it is created,
 * and its context (by its zod schema) also when its row is read back.
 *
 * @module
 */
import {
  type SessionContext,
  sessionContextSchema,
} from "../schema/context.ts";
import type { NewSession } from "./store.ts";

/**
 * Whether `v` is a valid {@linkcode SessionContext}, by
 * `sessionContextSchema`.
 *
 * @param v Any value.
 * @returns Whether the schema accepts `v`.
 */
export function isSessionContext(v: unknown): v is SessionContext {
  // Checked once per create or row read: compiling zod's generated fast
  // path costs more than it saves, even over thousands of rows (same checks
  // either way).
  return sessionContextSchema.safeParse(v, { jitless: true }).success;
}

/**
 * Refuses a session to create whose id or agent slug is empty or whose
 * context is invalid.
 *
 * @param session The session a store is asked to create.
 * @throws {TypeError} When a field is invalid.
 */
export function checkNewSession(session: NewSession): void {
  if (
    typeof session.id !== "string" || session.id === "" ||
    typeof session.agentSlug !== "string" || session.agentSlug === "" ||
    !isSessionContext(session.context)
  ) {
    throw new TypeError("Cannot create session: invalid session fields");
  }
}
