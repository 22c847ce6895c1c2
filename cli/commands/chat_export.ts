/**
 * `chat-export <id> [--out <path>] [--force]`:
 * write a stored session's workflow scaffold to
 * `<cwd>/<sessionId>.relavium.yaml` (or `--out`, relative to the cwd),
 * mark the row `exported`, and print the review notice on stderr. Under
 * `--json` stdout carries one `session:exported` event.
 *
 * @module
 */
import type { SessionEvent } from "../../schema/event.ts";
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import {
  defaultExportPath,
  EXPORT_NOTICE,
  writeExport,
} from "../io/export_file.ts";
import { fault } from "../fault.ts";
import {
  damagedSessionFault,
  type ExportedSession,
  openExportHistory,
} from "../run/history.ts";
import { resolve } from "../../schema/paths.ts";
import { resolveSessionId } from "./session_ref.ts";

/**
 * The `session:exported` event of a `chat-export --json` run: the next
 * sequence number after the session's persisted rows.
 *
 * @param loaded The exported session.
 * @param workflowPath The absolute file written.
 * @param now Epoch milliseconds.
 * @returns The event, keys in the documented order.
 */
export function exportedEvent(
  loaded: ExportedSession,
  workflowPath: string,
  now: number,
): SessionEvent {
  let max = -1;
  for (const m of loaded.messages) {
    if (m.sequenceNumber > max) max = m.sequenceNumber;
  }
  return {
    type: "session:exported",
    sessionId: loaded.record.id,
    timestamp: new Date(now).toISOString(),
    sequenceNumber: max + 1,
    workflowPath,
  };
}

/**
 * Runs `chat-export`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0, or a fault: `not_found` (unknown id), `target_exists` (a file
 * is there and no `--force`), `internal` (the write or the store failed).
 */
export async function runChatExport(
  command: Extract<CliCommand, { name: "chat-export" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const opened = await openExportHistory(ctx);
  if (!opened.ok) return opened.error;
  const store = opened.value;
  if (store === undefined) {
    return fault("not_found", `No session with id ${command.sessionId}`);
  }
  try {
    // A whole id names its session before any prefix does, so the listing
    // a prefix needs is read only when the typed text is no stored id.
    let sessionId = command.sessionId;
    let loaded: ExportedSession | undefined;
    try {
      loaded = await store.loadHeader(sessionId);
      if (loaded === undefined) {
        const ref = await resolveSessionId(ctx, command.sessionId);
        if (!ref.ok) return ref.error;
        sessionId = ref.value;
        if (sessionId !== command.sessionId) {
          loaded = await store.loadHeader(sessionId);
        }
      }
    } catch (e) {
      const damaged = damagedSessionFault(sessionId, e);
      if (damaged === undefined) throw e;
      return damaged;
    }
    if (loaded === undefined) {
      return fault("not_found", `No session with id ${sessionId}`);
    }
    let target: string;
    if (command.out === undefined) {
      const named = defaultExportPath(ctx.cwd, loaded.record.id);
      if (!named.ok) return named.error;
      target = named.value;
    } else {
      target = resolve(ctx.cwd, command.out);
    }
    const written = await writeExport(loaded, target, {
      overwrite: command.force,
    });
    if (!written.ok) return written.error;
    try {
      await store.markExported(loaded.record.id, target);
    } catch (e) {
      const why = e instanceof Error ? e.name : "unknown error";
      return fault(
        "internal",
        `Wrote ${target} but cannot mark the session exported: ${why}`,
      );
    }
    if (ctx.globals.json) {
      const event = exportedEvent(loaded, target, Date.now());
      ctx.io.stdout.write(`${JSON.stringify(event)}\n`);
    } else if (!ctx.globals.quiet) {
      ctx.io.stderr.write(
        `Exported session ${stripControl(loaded.record.id)} to ${
          stripControl(target)
        }\n`,
      );
    }
    ctx.io.stderr.write(EXPORT_NOTICE);
    return 0;
  } finally {
    await store.close();
  }
}
