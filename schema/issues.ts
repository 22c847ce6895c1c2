/**
 * Turns zod issues into one path-naming, human message.
 *
 * @module
 */
import type { z } from "zod";

/**
 * One validation problem: where it is (a key path such as
 * `fallback_chain[1].max_attempts`) and what is wrong.
 */
export interface ValidationIssue {
  /** Key path in dotted/bracket form; `""` for the document root. */
  path: string;
  /** What is wrong, without echoing secret input. */
  message: string;
  /** 1-based line in the source text, when the input was read from one. */
  line?: number;
}

/**
 * Formats a zod path as `a.b[2].c`.
 *
 * @param path The zod issue path.
 * @returns The dotted/bracket path, `""` for the root.
 */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/**
 * Converts zod issues to {@linkcode ValidationIssue}s. Unknown keys are
 * reported at their own path so the user sees the misspelt key itself.
 *
 * @param error The zod error.
 * @returns One issue per problem, in zod's order.
 */
export function toIssues(error: z.core.$ZodError): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({
          path: formatPath([...issue.path, key]),
          message: "unknown key",
        });
      }
      continue;
    }
    out.push({ path: formatPath(issue.path), message: issue.message });
  }
  return out;
}

/**
 * Renders issues as `<source>: <path>: <message>` lines.
 *
 * @param source The file name or other origin of the input.
 * @param issues The issues.
 * @returns One line per issue joined by `\n`.
 */
export function renderIssues(
  source: string,
  issues: ReadonlyArray<ValidationIssue>,
): string {
  return issues
    .map((i) => `${source}: ${i.path === "" ? "(root)" : i.path}: ${i.message}`)
    .join("\n");
}
