/**
 * Expected tool failures as data. Tools and the jail return
 * them; the pipeline maps each kind to an outcome.
 *
 * @module
 */

/**
 * Why a tool call did not produce a result. Messages state a reason only,
 * never a path.
 *
 * - `escape`: the path leaves the filesystem scope (`tool_denied`, fed back
 *   to the model: nothing happened).
 * - `refused`: symlink, hard-link, protected, sensitive or policy refusal
 *   (`tool_denied`, fatal, never fed back: a probe oracle otherwise).
 * - `unavailable`: the capability or its Deno permission is missing
 *   (`tool_unavailable`, fatal).
 * - `failed`: the call could not be done (`tool_failed`): fed back to the
 *   model when no effect started (a read, or a governed call that failed
 *   before it wrote, created, ran or sent anything), else fatal.
 */
export type ToolFailure =
  | { kind: "escape"; message: string }
  | {
    kind: "refused";
    /** The refusal class; each ends the turn without feedback. */
    reason: "symlink" | "hard_link" | "protected" | "sensitive" | "policy";
    message: string;
  }
  | { kind: "unavailable"; message: string }
  | { kind: "failed"; message: string };

/** Fixed, path-free reasons shared by the jail and the built-ins. */
export const REASONS = {
  empty: "path must not be empty",
  unc: "UNC paths are not allowed",
  driveRelative: "drive-relative paths are not allowed",
  escape: "path escapes the allowed filesystem scope",
  symlink:
    "path resolves through a symlink outside the allowed filesystem scope",
  hardLink: "file has more than one hard link",
  protectedPath: "path is on the protected-write floor",
  sensitive: "path is on the sensitive-read floor",
  notFound: "no such file or directory",
  notFile: "path is not a regular file",
  notDirectory: "path is not a directory",
  osDenied: "the operating system denied access",
  noRoot: "no filesystem scope root is accessible",
  binary: "file is binary (NUL byte in the first 8192 bytes)",
  hostFailed: "the filesystem operation failed",
} as const;
