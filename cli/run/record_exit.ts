/**
 * The end of a `--record` run: write the cassette and say where (or why
 * not). Kept apart from `record.ts` so commands load the recorder only
 * when `--record` is given.
 *
 * @module
 */
import type { CommandEnv } from "../command_env.ts";
import type { FileRecorder } from "./record.ts";

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
