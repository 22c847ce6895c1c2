/**
 * `chat-list [--here]`: stored sessions, newest `updatedAt` first, deleted
 * ones and those with nothing in them (no completed turn, nothing spent)
 * excluded; with `--here` only the current project's. Human lines (a
 * short id that is a unique prefix, when, turns, folder, agent, title) or,
 * under `--json`, one record per line.
 *
 * @module
 */
import type { SessionListEntry } from "../../store/sqlite_list.ts";
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import { damagedRowsNotice, listExistingHistory } from "../run/history.ts";
import type { DamagedSessionRow } from "../../store/sqlite_list.ts";
import { inProject, projectFolder } from "./session_ref.ts";
import { withoutFrames } from "../chat/inject.ts";

/**
 * One `chat-list --json` record; absent values are `null`.
 * `totalCostMicrocents` is the known spend; with `unaccountedCalls > 0`
 * (calls whose usage is unknown) it is a lower bound. `folder` is where
 * the session was started (absolute), `turns` its completed turns.
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
  folder: string | null;
  turns: number;
}

/**
 * A title as listed: without the frame of an `@` mention or a `!` command
 * (a title is the start of the first message, frames included).
 */
function shownTitle(title: string | undefined): string | null {
  if (title === undefined) return null;
  const typed = withoutFrames(title);
  return typed === "" ? null : typed;
}

/**
 * The fields `chat-list` and `chat-show` records share, in the documented
 * key order.
 *
 * @param r The session row.
 * @returns The fields.
 */
export function sessionFields(
  r: Omit<SessionListEntry, "turns" | "engaged">,
): Omit<ChatListRecord, "folder" | "turns"> {
  return {
    sessionId: r.id,
    agentSlug: r.agentSlug,
    title: shownTitle(r.title),
    status: r.status,
    modelId: r.modelId ?? null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    totalCostMicrocents: r.totalCostMicrocents,
    unaccountedCalls: r.unaccountedCalls,
  };
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
    ...sessionFields(r),
    folder: r.workingDir ?? null,
    turns: r.turns,
  };
}

/**
 * How long ago a time was, as people say it: `just now` (under a
 * minute, or in the future), `N min ago`, `N h ago`, `yesterday` (24 to
 * 48 hours), `N days ago` (under 30), else the UTC date.
 *
 * @param iso The time, ISO-8601.
 * @param now Epoch milliseconds.
 * @returns The text.
 */
export function relativeTime(iso: string, now: number): string {
  const seconds = Math.floor((now - Date.parse(iso)) / 1000);
  if (!(seconds >= 60)) return "just now";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 30) return `${days} days ago`;
  return iso.slice(0, 10);
}

/** Characters of a shown id, at least (more when needed to be unique). */
const SHORT_ID = 8;

/** How many leading characters `a` and `b` share. */
function sharedLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * The shortest prefix of each id, of at least {@linkcode SHORT_ID}
 * characters, that no other id a prefix may name starts with. The ids
 * are sorted once: the other id sharing the longest prefix with an id is
 * one of its neighbours in that order, so a listing of many sessions
 * costs O(n log n), not O(n²).
 *
 * @param ids The shown ids.
 * @param among Every id a prefix may name (default: the shown ones).
 * @returns The short ids, in the same order.
 */
export function shortIds(
  ids: readonly string[],
  among: readonly string[] = ids,
): string[] {
  const sorted = [...new Set([...among, ...ids])].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0
  );
  const at = new Map(sorted.map((id, i) => [id, i]));
  return ids.map((id) => {
    const i = at.get(id) ?? 0;
    const before = i > 0 ? sharedLength(id, sorted[i - 1] ?? "") : 0;
    const after = i + 1 < sorted.length
      ? sharedLength(id, sorted[i + 1] ?? "")
      : 0;
    const n = Math.max(SHORT_ID, before + 1, after + 1);
    return n >= id.length ? id : id.slice(0, n);
  });
}

/**
 * A folder as shown: the home folder written `~`; `-` when none was
 * recorded.
 *
 * @param dir The session's folder.
 * @param home `$HOME`, when known.
 * @returns The text.
 */
export function shownFolder(
  dir: string | undefined,
  home: string | undefined,
): string {
  if (dir === undefined) return "-";
  if (home !== undefined && home !== "" && home !== "/") {
    if (dir === home) return "~";
    if (dir.startsWith(`${home}/`)) return `~${dir.slice(home.length)}`;
  }
  return dir;
}

/**
 * The human lines, aligned: `<short id>  <when>  <N turns>  <folder>
 * <agent>  "<title>"`.
 *
 * @param rows The listed sessions.
 * @param options The time now, `$HOME`, and every id a prefix may name
 * (default: the listed ones), so a short id shown under `--here` is unique
 * among all.
 * @returns The lines, each ending in a newline.
 */
export function formatListLines(
  rows: readonly SessionListEntry[],
  options: {
    now: number;
    home: string | undefined;
    among?: readonly string[];
  },
): string {
  const ids = shortIds(rows.map((r) => r.id), options.among);
  const cells = rows.map((r, i) => [
    stripControl(ids[i] ?? r.id),
    relativeTime(r.updatedAt, options.now),
    `${r.turns} turn${r.turns === 1 ? "" : "s"}`,
    stripControl(shownFolder(r.workingDir, options.home)),
    stripControl(r.agentSlug),
  ]);
  const widths = [0, 1, 2, 3, 4].map((c) =>
    Math.max(0, ...cells.map((row) => row[c]?.length ?? 0))
  );
  return rows.map((r, i) => {
    const row = cells[i] ?? [];
    const padded = row.map((cell, c) => cell.padEnd(widths[c] ?? 0));
    // Quoted (controls escaped), then what quoting keeps (C1, bidi) neutralised.
    const title = stripControl(JSON.stringify(shownTitle(r.title) ?? ""), {
      markBidi: true,
    });
    return `${padded.join("  ")}  ${title}\n`;
  }).join("");
}

/**
 * Runs `chat-list`. A damaged row is left out with one stderr line naming
 * it and its bad column; the other sessions still list.
 *
 * @param command The parsed command (`--here`).
 * @param ctx The command context.
 * @returns 0, or a fault (`internal` when the store cannot open, naming why).
 */
export async function runChatList(
  command: Extract<CliCommand, { name: "chat-list" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const damaged: DamagedSessionRow[] = [];
  const listed = await listExistingHistory(ctx, damaged);
  if (!listed.ok) return listed.error;
  ctx.io.stderr.write(damagedRowsNotice(damaged));
  let rows = (listed.value ?? []).filter((r) => r.engaged);
  const among = [
    ...rows.map((r) => r.id),
    ...damaged.flatMap((d) => d.id === undefined ? [] : [d.id]),
  ];
  const folder = command.here ? await projectFolder(ctx) : undefined;
  if (folder !== undefined) rows = rows.filter((r) => inProject(r, folder));
  if (ctx.globals.json) {
    for (const r of rows) {
      ctx.io.stdout.write(`${JSON.stringify(toListRecord(r))}\n`);
    }
  } else {
    ctx.io.stdout.write(formatListLines(rows, {
      now: ctx.io.now?.() ?? Date.now(),
      home: ctx.io.env("HOME"),
      among,
    }));
  }
  if (
    rows.length === 0 && damaged.length === 0 && !ctx.globals.json &&
    !ctx.globals.quiet
  ) {
    ctx.io.stderr.write(
      folder === undefined
        ? "No sessions\n"
        : `No sessions in ${
          stripControl(folder)
        } (chat-list without --here lists every folder)\n`,
    );
  }
  return 0;
}
