/**
 * Writes a file so that readers see either nothing or the whole text: the
 * text goes to a fresh temporary file in the target's folder, is flushed
 * to disk, then renamed over the target. Any failure removes the
 * temporary file, so a failed write leaves no partial file behind.
 *
 * @module
 */
import { basename, dirname, join } from "../../schema/paths.ts";
import { err, ok, type Result } from "../../schema/result.ts";

/**
 * The file operations {@linkcode writeFileAtomic} uses; tests replace
 * them to fail at a chosen step.
 */
export interface AtomicWriteFs {
  /** Creates `path` (it must not exist), writes `text`, flushes and closes it. */
  writeNew(path: string, text: string): Promise<void>;
  /** Renames `from` to `to`, replacing `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file. */
  remove(path: string): Promise<void>;
}

/**
 * The real file operations.
 */
export const denoAtomicWriteFs: AtomicWriteFs = {
  async writeNew(path: string, text: string): Promise<void> {
    const file = await Deno.open(path, { write: true, createNew: true });
    try {
      let bytes = new TextEncoder().encode(text);
      while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
      await file.syncData();
    } finally {
      file.close();
    }
  },
  rename: (from: string, to: string): Promise<void> => Deno.rename(from, to),
  remove: (path: string): Promise<void> => Deno.remove(path),
};

/**
 * Options of {@linkcode writeFileAtomic}.
 */
export interface AtomicWriteOptions {
  /** The file operations (default: the real ones). */
  fs?: AtomicWriteFs;
  /** Distinguishes the temporary file's name (default: random hex). */
  tempSuffix?: string;
}

/**
 * Why an atomic write failed: the step and the underlying error.
 */
export interface AtomicWriteError {
  /** `write`: creating or filling the temporary file; `rename`: publishing it. */
  step: "write" | "rename";
  /** The error thrown by that step. */
  cause: unknown;
}

function randomHex(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The temporary file name used for `path`: a hidden sibling in the same
 * folder, so the final rename never crosses file systems.
 *
 * @param path The target file.
 * @param suffix The distinguishing part.
 * @returns `<dir>/.<name>.<suffix>.tmp`.
 */
export function tempPathFor(path: string, suffix: string): string {
  return join(dirname(path), `.${basename(path)}.${suffix}.tmp`);
}

/**
 * Writes `text` to `path` atomically, replacing an existing file. The
 * folder must exist. On failure nothing is left behind: the temporary file
 * is removed and the target is untouched.
 *
 * @param path The target file (absolute).
 * @param text The whole content.
 * @param options File operations and the temporary-name suffix.
 * @returns Nothing, or which step failed and why.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<Result<void, AtomicWriteError>> {
  const fs = options.fs ?? denoAtomicWriteFs;
  const temp = tempPathFor(path, options.tempSuffix ?? randomHex());
  const cleanUp = async (): Promise<void> => {
    try {
      await fs.remove(temp);
    } catch {
      // Nothing was created, or it is already gone.
    }
  };
  try {
    await fs.writeNew(temp, text);
  } catch (cause) {
    if (!isAlreadyExists(cause)) await cleanUp();
    return err({ step: "write", cause });
  }
  try {
    await fs.rename(temp, path);
  } catch (cause) {
    await cleanUp();
    return err({ step: "rename", cause });
  }
  return ok(undefined);
}

function isAlreadyExists(e: unknown): boolean {
  // Another writer's temporary file: never remove what we did not create.
  return e instanceof Deno.errors.AlreadyExists;
}
