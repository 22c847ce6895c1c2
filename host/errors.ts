/**
 * The errors a host throws for bad input: a file that does not load, an
 * agent that does not validate.
 *
 * @module
 */
import type { ValidationIssue } from "../schema/issues.ts";

/**
 * A file could not be read or did not validate.
 *
 * @example Catch it
 * ```ts
 * import { InvalidFileError } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * const e = new InvalidFileError("c.json", "c.json: calls: Required");
 * assert.equal(e.file, "c.json");
 * assert.equal(e.name, "InvalidFileError");
 * ```
 */
export class InvalidFileError extends Error {
  /** The file. */
  readonly file: string;

  /**
   * Builds the error.
   *
   * @param file The file.
   * @param message What is wrong, naming the file (and key paths).
   * @param options The underlying cause, if any.
   */
  constructor(file: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidFileError";
    this.file = file;
  }
}

/**
 * An agent passed to the host did not validate; the message and
 * `issues` name each key path (e.g. `system_prompt`).
 *
 * @example Catch it
 * ```ts
 * import { InvalidAgentError } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * const e = new InvalidAgentError([{ path: "system_prompt", message: "Required" }]);
 * assert.equal(e.message, "Invalid agent: system_prompt: Required");
 * ```
 */
export class InvalidAgentError extends Error {
  /** One entry per problem, each naming its key path. */
  readonly issues: readonly ValidationIssue[];

  /**
   * Builds the error.
   *
   * @param issues The validation issues.
   */
  constructor(issues: readonly ValidationIssue[]) {
    super(
      `Invalid agent: ${
        issues.map((i) => `${i.path === "" ? "(root)" : i.path}: ${i.message}`)
          .join("; ")
      }`,
    );
    this.name = "InvalidAgentError";
    this.issues = [...issues];
  }
}

/**
 * Reads a text file a caller named.
 *
 * @param path The file.
 * @returns Its text.
 * @throws {InvalidFileError} When it cannot be read (the message names the
 * file and the reason).
 */
export async function readFileText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new InvalidFileError(path, `${path}: cannot read: ${why}`, {
      cause: e,
    });
  }
}
