/**
 * The in-chat `/export`: the same scaffold as
 * `chat-export`, written to `<cwd>/<sessionId>.relavium.yaml` (replacing
 * it), announced as `session:exported` on the live stream, with the
 * review notice on stderr the first time in a chat (later exports point
 * back to it in one line). The row's status is not changed.
 *
 * @module
 */
import type { PersistedSession } from "../../host/host.ts";
import type { AsyncSessionStore, SessionStore } from "../../store/store.ts";
import type { CommandEnv } from "../command_env.ts";
import {
  defaultExportPath,
  EXPORT_NOTICE,
  writeExport,
} from "../io/export_file.ts";

// The chats whose review notice was printed.
const noticed = new WeakSet<PersistedSession>();

/** The line of a later export in the same chat. */
const NOTICE_AGAIN =
  "Review before use (see the notice printed at this chat's first /export)\n";

/**
 * Inputs of {@linkcode runSlashExport}.
 */
export interface SlashExportOptions {
  /** The command context (cwd, io). */
  ctx: CommandEnv;
  /** The live session (its stream carries `session:exported`). */
  live: PersistedSession;
  /** The session's store. */
  store: SessionStore | AsyncSessionStore;
}

/**
 * Writes the live session's scaffold. A failure prints one `error:` line
 * on stderr and the chat goes on.
 *
 * @param options Context, live session and store.
 * @returns The file written, or `undefined` when the export failed.
 */
export async function runSlashExport(
  options: SlashExportOptions,
): Promise<string | undefined> {
  const { ctx, live, store } = options;
  const fail = (message: string): undefined => {
    ctx.io.stderr.write(`error: ${message}\n`);
    return undefined;
  };
  let loaded;
  try {
    loaded = await store.load(live.sessionId);
  } catch (e) {
    const why = e instanceof Error ? e.name : "unknown error";
    return fail(`Cannot read the session to export it: ${why}`);
  }
  if (loaded === undefined) return fail("The session is not in the store");
  const target = defaultExportPath(ctx.cwd, live.sessionId);
  if (!target.ok) return fail(target.error.message);
  const written = await writeExport(loaded, target.value, { overwrite: true });
  if (!written.ok) return fail(written.error.message);
  live.emitExported(written.value);
  // The notice follows the printed `session:exported` line.
  await live.events.settled();
  ctx.io.stderr.write(noticed.has(live) ? NOTICE_AGAIN : EXPORT_NOTICE);
  noticed.add(live);
  return written.value;
}
