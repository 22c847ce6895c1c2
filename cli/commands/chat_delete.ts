/**
 * `chat-delete <id> [--yes]`: a soft delete (hidden from
 * `chat-list` and `chat-resume`). Destructive, so it asks on a terminal;
 * elsewhere `--yes` is required (else exit 2).
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import { fault } from "../fault.ts";
import { listExistingHistory, openExistingHistory } from "../run/history.ts";
import type { DamagedSessionRow } from "../../store/sqlite_list.ts";
import { createLineReader } from "../io/stdin.ts";
import { resolveSessionId } from "./session_ref.ts";

async function confirm(
  ctx: CommandEnv,
  question: string,
): Promise<boolean> {
  ctx.io.stderr.write(`${question} [y/N] `);
  const reader = createLineReader(ctx.io.stdin);
  try {
    const answer = (await reader.next())?.trim().toLowerCase();
    return answer === "y" || answer === "yes";
  } finally {
    await reader.close();
  }
}

/**
 * Runs `chat-delete`.
 *
 * A session whose row is damaged is found by its id all the same (the
 * listing names it) and deleted like any other.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0 (deleted, or declined at the prompt), or a fault: `not_found`
 * for an unknown id, `usage` without a terminal and without `--yes`.
 */
export async function runChatDelete(
  command: Extract<CliCommand, { name: "chat-delete" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const ref = await resolveSessionId(ctx, command.sessionId);
  if (!ref.ok) return ref.error;
  const sessionId = ref.value;
  const missing = fault("not_found", `No session with id ${sessionId}`);
  const damaged: DamagedSessionRow[] = [];
  const listed = await listExistingHistory(ctx, damaged);
  if (!listed.ok) return listed.error;
  const found = listed.value?.find((r) => r.id === sessionId) ??
    damaged.find((d) => d.id === sessionId);
  if (found === undefined) return missing;
  const opened = await openExistingHistory(ctx);
  if (!opened.ok) return opened.error;
  const store = opened.value;
  if (store === undefined) return missing;
  try {
    if (!command.yes) {
      if (!ctx.io.stdinIsTerminal) {
        return fault(
          "usage",
          "chat-delete needs --yes when stdin is not a terminal",
        );
      }
      const title = "title" in found && found.title !== undefined
        ? ` ${JSON.stringify(found.title)}`
        : "";
      if (
        !await confirm(
          ctx,
          `Delete session ${stripControl(sessionId)}${title}?`,
        )
      ) {
        if (!ctx.globals.quiet) ctx.io.stderr.write("Not deleted\n");
        return 0;
      }
    }
    if (!await store.softDelete(sessionId)) return missing;
  } finally {
    await store.close();
  }
  if (ctx.globals.json) {
    ctx.io.stdout.write(
      `${JSON.stringify({ sessionId, deleted: true })}\n`,
    );
  } else if (!ctx.globals.quiet) {
    ctx.io.stderr.write(`Deleted session ${stripControl(sessionId)}\n`);
  }
  return 0;
}
