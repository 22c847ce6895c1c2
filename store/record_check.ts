/**
 * The session record's context, checked with its zod schema when a
 * session is created and when its row is read back.
 *
 * @module
 */
import {
  type SessionContext,
  sessionContextSchema,
} from "../schema/context.ts";

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
