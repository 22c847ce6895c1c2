/**
 * Writing a session's workflow scaffold, shared by the
 * `chat-export` command and the in-chat `/export`: the default file name,
 * the build + serialize step, the atomic write and the fixed review
 * notice. Imports `export/workflow.ts` and `export/yaml.ts` directly (not
 * `export/mod.ts`), so no YAML parser is loaded.
 *
 * @module
 */
import { isAbsolute, resolve } from "../../schema/paths.ts";
import { sessionToWorkflow } from "../../export/workflow.ts";
import { stringifyWorkflow } from "../../export/yaml.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import type { ExportedSession } from "../run/history.ts";
import { type AtomicWriteFs, writeFileAtomic } from "./atomic_write.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * The review notice printed on stderr after every successful export
 * , including under `--json` and after the in-chat
 * `/export`. Never part of stdout or the event stream.
 */
export const EXPORT_NOTICE: string = [
  "Review before use: this file is a workflow scaffold, not a replay of the session.",
  "  - It does not recreate the session's working context: summarised, trimmed or",
  "    omitted context may not carry over, and raw tool arguments and results were",
  "    never stored, so there are none to restore (no option exports them).",
  "  - It contains the conversation's own text unredacted (user and assistant",
  "    messages, @-attached file contents, ! command output) and the agent",
  "    definition's literal values. Review it before running or committing it.",
  "  - The embedded agent definition is the historical one: it may need edits",
  "    before it passes current validation and runs.",
  "",
].join("\n");

/**
 * The default export file of a session: `<cwd>/<sessionId>.relavium.yaml`.
 *
 * @param cwd The effective working directory (absolute).
 * @param sessionId The session id.
 * @returns The absolute path, or a `usage` fault when the id cannot name
 * a file in `cwd` (it holds a path separator or is `.`/`..`).
 */
export function defaultExportPath(
  cwd: string,
  sessionId: string,
): Result<string, CliFault> {
  if (/[/\\]/.test(sessionId) || sessionId === "." || sessionId === "..") {
    return err(fault(
      "usage",
      `Session id ${
        JSON.stringify(sessionId)
      } cannot name a file: choose one with --out`,
    ));
  }
  return ok(resolve(cwd, `${sessionId}.relavium.yaml`));
}

/**
 * The scaffold's YAML text: `sessionToWorkflow` then `stringifyWorkflow`.
 * Deterministic: the same session gives the same bytes.
 *
 * @param loaded The session row and all its messages.
 * @returns The file content.
 */
export function exportText(loaded: ExportedSession): string {
  return stringifyWorkflow(sessionToWorkflow(loaded.record, loaded.messages));
}

/**
 * Options of {@linkcode writeExport}.
 */
export interface WriteExportOptions {
  /** Replace an existing file (`--force`, and the in-chat `/export`). */
  overwrite: boolean;
  /** File operations of the final write (tests). */
  fs?: AtomicWriteFs;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.name : "unknown error";
}

/**
 * Builds, serializes and writes a session's scaffold to `target`: the
 * folders are created, an existing file is kept unless `overwrite`, and
 * the file is written to a temporary sibling then renamed, so a failed
 * write leaves no partial file.
 *
 * @param loaded The session row and its messages.
 * @param target The absolute target path.
 * @param options Whether to replace an existing file.
 * @returns The target, or a fault: `target_exists` (exit 2) or `internal`
 * for a file-system failure (exit 1).
 */
export async function writeExport(
  loaded: ExportedSession,
  target: string,
  options: WriteExportOptions,
): Promise<Result<string, CliFault>> {
  if (!isAbsolute(target)) {
    throw new TypeError("Cannot export: the target path must be absolute");
  }
  try {
    if (!options.overwrite && await exists(target)) {
      return err(fault(
        "target_exists",
        `Export target exists: ${target} (use --force to overwrite)`,
      ));
    }
  } catch (e) {
    return err(fault("internal", `Cannot check ${target}: ${reason(e)}`));
  }
  const text = exportText(loaded);
  const folder = resolve(target, "..");
  try {
    await Deno.mkdir(folder, { recursive: true });
  } catch (e) {
    return err(fault("internal", `Cannot create ${folder}: ${reason(e)}`));
  }
  const written = await writeFileAtomic(
    target,
    text,
    options.fs === undefined ? {} : { fs: options.fs },
  );
  if (!written.ok) {
    return err(fault(
      "internal",
      `Cannot write the export ${target}: ${reason(written.error.cause)}`,
    ));
  }
  return ok(target);
}
