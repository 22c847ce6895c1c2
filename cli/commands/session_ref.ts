/**
 * How the session commands find a session: by a whole id or a unique
 * prefix of one (`chat-show 4a8a863e`), and which sessions belong to the
 * current project (`chat-list --here`, `chat-resume --last`).
 *
 * @module
 */
import { sep } from "../../schema/paths.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { matchSessionId } from "../../store/session_prefix.ts";
import type { SessionListEntry } from "../../store/sqlite_list.ts";
import type { DamagedSessionRow } from "../../store/sqlite_list.ts";
import { locateConfig } from "../config/config.ts";
import type { CommandEnv } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import { type CliFault, fault } from "../fault.ts";
import { listExistingHistory } from "../run/history.ts";

/** Candidates named in an ambiguity error, at most. */
const NAMED_CANDIDATES = 10;

/**
 * Resolves a typed session id: a whole id as it is, a prefix to the one
 * listed session it starts (damaged rows with a readable id included, so
 * `chat-delete` can name them). Sessions left out of `chat-list` (no
 * completed turn, nothing spent) are named by their whole id only.
 *
 * @param ctx The command context.
 * @param wanted The id or prefix as typed.
 * @returns The whole id (the text itself when nothing matches: the command
 * then reports it not found), or a `usage` fault for a prefix that is too
 * short or matches several sessions, listing them.
 */
export async function resolveSessionId(
  ctx: CommandEnv,
  wanted: string,
): Promise<Result<string, CliFault>> {
  const damaged: DamagedSessionRow[] = [];
  const listed = await listExistingHistory(ctx, damaged);
  if (!listed.ok) return listed;
  const rows = listed.value ?? [];
  const candidates = [
    ...rows.map((r) => ({ id: r.id, listed: r.engaged })),
    ...damaged.flatMap((d) =>
      d.id === undefined ? [] : [{ id: d.id, listed: true }]
    ),
  ];
  const match = matchSessionId(wanted, candidates);
  switch (match.kind) {
    case "found":
      return ok(match.id);
    case "none":
      return ok(wanted);
    case "too_short":
      return err(fault(
        "usage",
        `Session id prefix "${
          stripControl(wanted)
        }" is too short: give at least ${match.minimum} characters (chat-list shows the ids)`,
      ));
    case "ambiguous": {
      const named = match.ids.slice(0, NAMED_CANDIDATES);
      const more = match.ids.length - named.length;
      const byId = new Map(rows.map((r) => [r.id, r]));
      const lines = named.map((id) => {
        const title = byId.get(id)?.title;
        return `  ${stripControl(id)}${
          title === undefined ? "" : `  ${JSON.stringify(title)}`
        }`;
      });
      if (more > 0) lines.push(`  … and ${more} more`);
      return err(fault(
        "usage",
        `Session id prefix "${
          stripControl(wanted)
        }" matches ${match.ids.length} sessions; give more characters:\n${
          lines.join("\n")
        }`,
      ));
    }
  }
}

/**
 * The current project's folder: the project root found from the working
 * directory (the nearest folder with a `.relavium/`), else the working
 * directory itself.
 *
 * @param ctx The command context.
 * @returns The absolute folder.
 */
export async function projectFolder(ctx: CommandEnv): Promise<string> {
  const located = await locateConfig({
    cwd: ctx.cwd,
    env: (n) => ctx.io.env(n),
  });
  return located.ok ? located.value.projectRoot ?? ctx.cwd : ctx.cwd;
}

/**
 * Whether a session was started in the project: its folder is the
 * project's folder or lies inside it.
 *
 * @param entry The listed session.
 * @param folder The project's folder (absolute).
 * @returns `false` for a session that recorded no folder.
 */
export function inProject(entry: SessionListEntry, folder: string): boolean {
  const dir = entry.workingDir;
  if (dir === undefined) return false;
  const root = folder.endsWith(sep) ? folder : `${folder}${sep}`;
  return dir === folder || dir.startsWith(root);
}
