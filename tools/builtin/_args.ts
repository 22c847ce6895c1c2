/**
 * Private: a built-in tool's strict zod argument schema as its `parse`
 * (synchronous, every problem named) and as the JSON Schema the model
 * sees (generated from the same schema, once per process).
 *
 * @module
 */
import { z } from "zod";
import type { JsonSchema } from "../../llm/provider.ts";
import { toIssues, type ValidationIssue } from "../../schema/issues.ts";
import { err, ok, type Result } from "../../schema/result.ts";

/**
 * Wraps a strict schema as a typed-result parser.
 *
 * @param schema The complete effective arguments.
 * @returns A parser giving the value or the issues.
 */
export function argsParser<A>(
  schema: z.ZodType<A>,
): (raw: unknown) => Result<A, ValidationIssue[]> {
  return (raw) => {
    const r = schema.safeParse(raw);
    return r.success ? ok(r.data) : err(toIssues(r.error));
  };
}

/**
 * The model-facing JSON Schema of `schema` (its input side, without the
 * `$schema` marker and without the config-only keys), built on first use
 * and then reused.
 *
 * @param schema The complete effective arguments.
 * @param configOnly Keys set by configuration only, never advertised.
 * @returns The cached schema's getter.
 */
export function modelSchema(
  schema: z.ZodType,
  configOnly: readonly string[] = [],
): () => JsonSchema {
  let cached: JsonSchema | undefined;
  return () => {
    if (cached !== undefined) return cached;
    const { $schema: _, properties, required, ...rest } = z.toJSONSchema(
      schema,
      { io: "input" },
    );
    const advertised = Object.fromEntries(
      Object.entries(properties ?? {}).filter(([k]) => !configOnly.includes(k)),
    );
    const needed = (required ?? []).filter((k) => !configOnly.includes(k));
    cached = {
      ...rest,
      properties: advertised,
      ...(needed.length === 0 ? {} : { required: needed }),
    };
    return cached;
  };
}
