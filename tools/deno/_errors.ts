/**
 * Private: Deno error and metadata mapping shared by the Deno host files.
 *
 * @module
 */
import {
  type EffectErrorKind,
  type FileStat,
  ToolEffectsError,
} from "../effects.ts";

/** The host error class of a Deno (or DOM) error. */
export function kindOf(error: unknown): EffectErrorKind {
  if (error instanceof Deno.errors.NotFound) return "not_found";
  if (error instanceof Deno.errors.NotCapable) return "not_capable";
  if (error instanceof Deno.errors.PermissionDenied) return "permission_denied";
  if (error instanceof Deno.errors.NotADirectory) return "not_a_directory";
  if (error instanceof Deno.errors.IsADirectory) return "is_a_directory";
  if (error instanceof DOMException && error.name === "AbortError") {
    return "aborted";
  }
  if (error instanceof Deno.errors.Interrupted) return "aborted";
  return "failed";
}

/** Wraps anything thrown as a path-free `ToolEffectsError`. */
export function wrap(error: unknown): ToolEffectsError {
  return error instanceof ToolEffectsError
    ? error
    : new ToolEffectsError(kindOf(error), { cause: error });
}

/** Deno file info as the tools see it. */
export function toStat(info: Deno.FileInfo): FileStat {
  const stat: FileStat = {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mtimeMs: info.mtime === null ? null : info.mtime.getTime(),
    nlink: info.nlink,
  };
  if (info.ino !== null) {
    stat.fileId = `${info.dev}:${info.ino}`;
  }
  return stat;
}
