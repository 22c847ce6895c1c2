/**
 * Private bridge from zod schemas to the `parse` of a tool definition
 * (zod types never appear in the public API). A built-in tool's `parse`
 * accepts plainly valid arguments without zod and loads its schema only
 * for the rest ({@linkcode lazyArgsParser}).
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

/**
 * A `parse` that accepts plainly valid arguments as they are and loads
 * the strict schema (and zod) only for anything else.
 *
 * @param plain The zod-free check (never accepts what the schema refuses).
 * @param load Imports the schema.
 */
export function lazyArgsParser<A>(
  plain: (raw: unknown) => raw is A,
  load: () => Promise<z.ZodType<A>>,
): (
  raw: unknown,
) => Result<A, ValidationIssue[]> | Promise<Result<A, ValidationIssue[]>> {
  return (raw) => {
    if (plain(raw)) return ok(raw);
    return load().then((schema) => zodParser(schema)(raw));
  };
}
