/**
 * Private bridge from zod schemas to the `parse` of a tool definition
 * (zod types never appear in the public API). A built-in tool's `parse`
 * accepts plainly valid arguments without zod and loads its schema only
 * for the rest ({@linkcode lazyArgsParser}).
 *
 * @module
 */
import type { z } from "zod";
import { toIssues, type ValidationIssue } from "../../schema/issues.ts";
import { err, ok, type Result } from "../../schema/result.ts";

/**
 * Wraps a zod schema as a typed-result parser.
 *
 * @param schema The strict schema.
 * @returns A parser giving the value or the issues.
 *
 * @example
 * ```ts
 * import { zodParser } from "./_zod.ts";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 * const parse = zodParser(z.strictObject({ path: z.string() }));
 * assert.deepEqual(parse({ path: "a" }), { ok: true, value: { path: "a" } });
 * ```
 */
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
 * @returns A `parse` answering plainly valid arguments at once.
 *
 * @example
 * ```ts
 * import { lazyArgsParser } from "./_zod.ts";
 * import assert from "node:assert/strict";
 * const parse = lazyArgsParser(
 *   (raw): raw is { path: string } => typeof raw === "object" && raw !== null && "path" in raw,
 *   async () => (await import("./_args_schemas.ts")).readFileArgsSchema,
 * );
 * assert.deepEqual(parse({ path: "a.md" }), { ok: true, value: { path: "a.md" } });
 * assert.equal((await parse({})).ok, false);
 * ```
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
