/**
 * `chat-list` (cli.md §1): stored sessions, newest `updatedAt` first,
 * deleted ones excluded. Human lines or, under `--json`, one record per
 * line.
 *
 * @module
 */
import type { SessionListEntry } from "../../store/sqlite_list.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import { listExistingHistory } from "../run/history.ts";

/**
 * One `chat-list --json` record; absent values are `null`.
 *
 * @example Value
 * ```ts
 * import type { ChatListRecord } from "./chat_list.ts";
 * const r: ChatListRecord = {
 *   sessionId: "s", agentSlug: "mini", title: null, status: "active", modelId: null,
 *   createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", totalCostMicrocents: 0,
 * };
 * ```
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
}

/**
 * Maps a stored session to its `--json` record, in the documented key
 * order.
 *
 * @param r The session row.
 * @returns The record.
 *
 * @example Absent is null
 * ```ts
 * import { toListRecord } from "./chat_list.ts";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * const rec = toListRecord({
 *   id: "s", agentSlug: "mini", status: "idle", totalCostMicrocents: 5, createdAt: at, updatedAt: at,
 * });
 * assert.equal(rec.title, null);
 * assert.deepEqual(Object.keys(rec), ["sessionId", "agentSlug", "title", "status", "modelId", "createdAt", "updatedAt", "totalCostMicrocents"]);
 * ```
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
  };
}

/**
 * The human line: `<id>  <agent>  [<status>]  <updatedAt>  "<title>"`.
 *
 * @param r The session row.
 * @returns The line without a newline.
 *
 * @example Line
 * ```ts
 * import { formatListLine } from "./chat_list.ts";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * assert.equal(formatListLine({
 *   id: "s1", agentSlug: "mini", title: "Fix the bug", status: "active", totalCostMicrocents: 0, createdAt: at, updatedAt: at,
 * }), 's1  mini  [active]  2026-01-01T00:00:00.000Z  "Fix the bug"');
 * ```
 */
export function formatListLine(r: SessionListEntry): string {
  return `${stripControl(r.id)}  ${
    stripControl(r.agentSlug)
  }  [${r.status}]  ${r.updatedAt}  ${JSON.stringify(r.title ?? "")}`;
}

/**
 * Runs `chat-list`.
 *
 * @param ctx The command context.
 * @returns 0, or a fault (`internal` when the store cannot open).
 *
 * @example Empty history
 * ```ts
 * import { runChatList } from "./chat_list.ts";
 * import { createBufferedIo } from "../io/io.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const b = createBufferedIo({ env: { RELAVIUM_HOME: dir }, cwd: dir });
 * const code = await runChatList({ io: b.io, globals: { json: true, verbose: false, quiet: false }, color: false, cwd: dir });
 * assert.equal(code, 0);
 * assert.equal(b.stdoutText(), "");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runChatList(ctx: CommandEnv): Promise<CommandResult> {
  const listed = await listExistingHistory(ctx);
  if (!listed.ok) return listed.error;
  const rows = listed.value ?? [];
  for (const r of rows) {
    ctx.io.stdout.write(
      `${
        ctx.globals.json ? JSON.stringify(toListRecord(r)) : formatListLine(r)
      }\n`,
    );
  }
  if (rows.length === 0 && !ctx.globals.json && !ctx.globals.quiet) {
    ctx.io.stderr.write("No sessions\n");
  }
  return 0;
}
