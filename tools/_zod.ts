/**
 * Private bridge from zod schemas to the `parse` of a tool definition
 * (zod types never appear in the public API).
 *
 * @module
 */
import type { z } from "zod";
import { toIssues, type ValidationIssue } from "../schema/issues.ts";
import { err, ok, type Result } from "../schema/result.ts";

/** Wraps a zod schema as a typed-result parser. */
export function zodParser<A>(
  schema: z.ZodType<A>,
): (raw: unknown) => Result<A, ValidationIssue[]> {
  return (raw) => {
    const r = schema.safeParse(raw);
    return r.success ? ok(r.data) : err(toIssues(r.error));
  };
}
