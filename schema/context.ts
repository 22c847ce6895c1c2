/**
 * `SessionContext`: where a session works.
 *
 * @module
 */
import { z } from "./zod.ts";
import { err, ok, type Result } from "./result.ts";
import { toIssues, type ValidationIssue } from "./issues.ts";
import type { Holds, Same } from "./type_equal.ts";

/**
 * Filesystem scope tier.
 */
export type FsScopeTier = "sandboxed" | "project" | "full";

/**
 * The authoritative context of a session. Variables are plaintext, never
 * secrets (they are echoed on `session:started`).
 */
export interface SessionContext {
  /** The workspace directory (absolute). */
  workingDir: string;
  /** The file in focus, if any. */
  activeFile?: string;
  /** A selected line range, if any. */
  selection?: { file: string; startLine: number; endLine: number };
  /** The git ref the session works on. */
  gitRef?: string;
  /** Filesystem scope tier. */
  fsScopeTier: FsScopeTier;
  /** Plaintext `{{ctx.*}}` variables; never secrets. */
  variables?: Record<string, string>;
}

const line = z.number().check(z.int(), z.positive());
const nonEmpty = z.string().check(z.minLength(1));

const sessionContextInferred = z
  .strictObject({
    workingDir: z.string().check(z.minLength(1, "must not be empty")),
    activeFile: z.exactOptional(nonEmpty),
    selection: z.exactOptional(
      z.strictObject({ file: nonEmpty, startLine: line, endLine: line }).check(
        z.refine((s) => s.startLine <= s.endLine, {
          message: "startLine must not exceed endLine",
        }),
      ),
    ),
    gitRef: z.exactOptional(nonEmpty),
    fsScopeTier: z.enum(["sandboxed", "project", "full"]),
    variables: z.exactOptional(z.record(z.string(), z.string())),
  });

/**
 * Strict schema of {@linkcode SessionContext}.
 */
export const sessionContextSchema: z.ZodMiniType<SessionContext> =
  sessionContextInferred;

/**
 * Validates a context value; errors name the source and key path.
 *
 * @param value The candidate context.
 * @param source Origin used in errors (a file or `"context"`).
 * @returns The context or the issues.
 *
 * @example Parse
 * ```ts
 * import { parseSessionContext } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const r = parseSessionContext({ workingDir: "", fsScopeTier: "sandboxed" }, "context");
 * assert.equal(r.ok, false);
 * ```
 */
export function parseSessionContext(
  value: unknown,
  source: string,
): Result<SessionContext, { source: string; issues: ValidationIssue[] }> {
  const r = sessionContextSchema.safeParse(value);
  if (r.success) return ok(r.data);
  return err({ source, issues: toIssues(r.error) });
}

// Each written-out type equals what its schema infers.
type _sessionContextInferredCheck = Holds<
  Same<z.infer<typeof sessionContextInferred>, SessionContext>
>;
