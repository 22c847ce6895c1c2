/**
 * Reading a settings file someone else may have written (a config file, an
 * agent file): it must be a regular file, and it is read with a byte
 * bound. A symlink to `/dev/zero` or `/dev/urandom`, a FIFO, a socket or a
 * directory is refused by what `stat` says of the target before anything
 * is opened (opening a FIFO would wait for a writer forever); the open
 * handle is checked again, and the read stops one byte past the bound.
 *
 * @module
 */
import { err, ok, type Result } from "../schema/result.ts";

/** The byte bound of a config or agent file: 1 MiB. */
export const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

/** Why a settings file was not read. */
export type RegularFileProblem =
  | { kind: "missing" }
  | { kind: "directory" }
  /** A device, FIFO or socket (`what` names it). */
  | { kind: "not_regular"; what: string }
  | { kind: "too_large"; maxBytes: number }
  | { kind: "unreadable"; why: string };

function kindOf(info: Deno.FileInfo): string | undefined {
  if (info.isFile) return undefined;
  if (info.isDirectory) return "directory";
  if (info.isFifo === true) return "FIFO";
  if (info.isCharDevice === true) return "character device";
  if (info.isBlockDevice === true) return "block device";
  if (info.isSocket === true) return "socket";
  return "special file";
}

function problemOf(info: Deno.FileInfo): RegularFileProblem | undefined {
  const what = kindOf(info);
  if (what === undefined) return undefined;
  return what === "directory"
    ? { kind: "directory" }
    : { kind: "not_regular", what };
}

/**
 * Reads a regular file of at most `maxBytes` bytes (a symlink is followed
 * to its target, which must be one).
 *
 * @param path The file.
 * @param maxBytes The bound (default {@linkcode SETTINGS_FILE_MAX_BYTES}).
 * @returns Its bytes, or why not.
 */
export async function readRegularFile(
  path: string,
  maxBytes: number = SETTINGS_FILE_MAX_BYTES,
): Promise<Result<Uint8Array, RegularFileProblem>> {
  try {
    const before = problemOf(await Deno.stat(path));
    if (before !== undefined) return err(before);
    using file = await Deno.open(path, { read: true });
    const info = await file.stat();
    const now = problemOf(info);
    if (now !== undefined) return err(now);
    if (info.size > maxBytes) return err({ kind: "too_large", maxBytes });
    const out = new Uint8Array(maxBytes + 1);
    let filled = 0;
    while (filled < out.length) {
      const n = await file.read(out.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    if (filled > maxBytes) return err({ kind: "too_large", maxBytes });
    return ok(out.slice(0, filled));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return err({ kind: "missing" });
    if (e instanceof Deno.errors.IsADirectory) {
      return err({ kind: "directory" });
    }
    return err({
      kind: "unreadable",
      why: e instanceof Error ? e.name : "unknown error",
    });
  }
}

/**
 * Says why a settings file was not read, naming it and the rule.
 *
 * @param path The file.
 * @param problem The problem.
 * @returns E.g. `/p/.relavium/project.toml is a FIFO: config and agent
 * files must be regular files of at most 1 MiB`.
 */
export function describeFileProblem(
  path: string,
  problem: RegularFileProblem,
): string {
  const rule = "config and agent files must be regular files of at most";
  switch (problem.kind) {
    case "missing":
      return `${path} does not exist`;
    case "directory":
      return `${path} is a directory`;
    case "not_regular":
      return `${path} is a ${problem.what}, not a regular file: ${rule} ${
        sizeText(SETTINGS_FILE_MAX_BYTES)
      }`;
    case "too_large":
      return `${path} is larger than ${sizeText(problem.maxBytes)}: ${rule} ${
        sizeText(problem.maxBytes)
      }`;
    case "unreadable":
      return `${path} cannot be read: ${problem.why}`;
  }
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : `${bytes} bytes`;
}
