/**
 * `--record <cassette>`: the library's recorder (`llm/record.ts`) around
 * a session's real providers, written as a cassette file when the command
 * ends. The target is checked before the session starts.
 *
 * @module
 */
import { dirname, resolve } from "../../schema/paths.ts";
import { createRecorder, type Recorder } from "../../llm/record.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { writeFileAtomic } from "../io/atomic_write.ts";
import { type CliFault, fault } from "../fault.ts";
import type { CommandEnv } from "../command_env.ts";

/**
 * A recording to a file.
 */
export interface FileRecorder extends Recorder {
  /** The cassette file (absolute). */
  readonly path: string;
  /** Writes the cassette atomically (temporary file, then rename). */
  write(): Promise<Result<void, CliFault>>;
}

/**
 * Starts a recording. The target's folder must exist and the target must
 * not be a folder (an existing file is replaced at the end).
 *
 * @param path The `--record` path (relative to `cwd`).
 * @param options The effective cwd, the primary provider and model, and
 * every configured key.
 * @returns The recorder, or a fault: `not_found` (no such folder),
 * `usage` (the target is a folder).
 */
export async function openRecorder(
  path: string,
  options: {
    cwd: string;
    primaryProvider: string;
    model: string;
    secrets?: readonly string[];
  },
): Promise<Result<FileRecorder, CliFault>> {
  const file = resolve(options.cwd, path);
  try {
    if (!(await Deno.stat(dirname(file))).isDirectory) throw new Error();
  } catch {
    return err(fault(
      "not_found",
      `Cannot record: no such folder for --record: ${dirname(file)}`,
    ));
  }
  try {
    if ((await Deno.stat(file)).isDirectory) {
      return err(
        fault("usage", `Cannot record: --record names a folder: ${file}`),
      );
    }
  } catch {
    // A new file.
  }
  const recorder = createRecorder(options);
  return ok({
    ...recorder,
    path: file,
    async write(): Promise<Result<void, CliFault>> {
      const r = await writeFileAtomic(file, recorder.cassette());
      if (r.ok) return ok(undefined);
      const why = r.error.cause instanceof Error
        ? r.error.cause.name
        : "unknown error";
      return err(fault("internal", `Cannot write cassette ${file}: ${why}`));
    },
  });
}

/**
 * Writes the recording, if any. A failure is one `error:` line on stderr;
 * a success is one notice, except under `--json` (a clean run has an
 * empty stderr) or `-q`.
 *
 * @param ctx The command context.
 * @param recorder The run's recorder (`undefined` without `--record`).
 * @returns `false` when the cassette could not be written (exit 1).
 */
export async function finishRecording(
  ctx: CommandEnv,
  recorder: FileRecorder | undefined,
): Promise<boolean> {
  if (recorder === undefined) return true;
  const written = await recorder.write();
  if (!written.ok) {
    ctx.io.stderr.write(`error: ${written.error.message}\n`);
    return false;
  }
  if (!ctx.globals.json && !ctx.globals.quiet) {
    const calls = recorder.calls();
    ctx.io.stderr.write(
      `notice: Recorded ${calls} provider call${
        calls === 1 ? "" : "s"
      } to ${recorder.path} (it holds the conversation's text: review it before sharing)\n`,
    );
  }
  return true;
}
