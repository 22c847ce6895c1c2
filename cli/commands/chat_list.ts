/**
 * `chat-list`: stored sessions, newest `updatedAt` first,
 * deleted ones excluded. Human lines or, under `--json`, one record per
 * line.
 *
 * @module
 */
import type { SessionListEntry } from "../../store/sqlite_list.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import { damagedRowsNotice, listExistingHistory } from "../run/history.ts";
import type { DamagedSessionRow } from "../../store/sqlite_list.ts";

/**
 * One `chat-list --json` record; absent values are `null`.
 * `totalCostMicrocents` is the known spend; with `unaccountedCalls > 0`
 * (calls whose usage is unknown) it is a lower bound.
 */
export interface ChatListRecord {
  sessionId: string;
  agentSlug: string;
  title: string | null;
  status: string;
  modelId: string | null;
  createdAt: string;
  updatedAt: string;
  totalCostMicrocents: number;
  unaccountedCalls: number;
}

/**
 * Maps a stored session to its `--json` record, in the documented key
 * order.
 *
 * @param r The session row.
 * @returns The record.
 */
export function toListRecord(r: SessionListEntry): ChatListRecord {
  return {
    sessionId: r.id,
    agentSlug: r.agentSlug,
    title: r.title ?? null,
    status: r.status,
    modelId: r.modelId ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    totalCostMicrocents: r.totalCostMicrocents,
    unaccountedCalls: r.unaccountedCalls,
  };
}

/**
 * The human line: `<id>  <agent>  [<status>]  <updatedAt>  "<title>"`.
 *
 * @param r The session row.
 * @returns The line without a newline.
 */
export function formatListLine(r: SessionListEntry): string {
  return `${stripControl(r.id)}  ${
    stripControl(r.agentSlug)
  }  [${r.status}]  ${r.updatedAt}  ${JSON.stringify(r.title ?? "")}`;
}

/**
 * Runs `chat-list`. A damaged row is left out with one stderr line naming it and its bad
 * column; the other sessions still list.
 *
 * @param ctx The command context.
 * @returns 0, or a fault (`internal` when the store cannot open, naming why).
 */
export async function runChatList(ctx: CommandEnv): Promise<CommandResult> {
  const damaged: DamagedSessionRow[] = [];
  const listed = await listExistingHistory(ctx, damaged);
  if (!listed.ok) return listed.error;
  ctx.io.stderr.write(damagedRowsNotice(damaged));
  const rows = listed.value ?? [];
  for (const r of rows) {
    ctx.io.stdout.write(
      `${
        ctx.globals.json ? JSON.stringify(toListRecord(r)) : formatListLine(r)
      }\n`,
    );
  }
  if (
    rows.length === 0 && damaged.length === 0 && !ctx.globals.json &&
    !ctx.globals.quiet
  ) {
    ctx.io.stderr.write("No sessions\n");
  }
  return 0;
}
