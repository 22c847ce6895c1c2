/**
 * Breadth-first directory walk inside the jail, shared by `list_directory`
 * and `read_file`'s glob. Never descends (or reports) symlinks; skips
 * special files and sensitive entries; re-resolves every queued directory
 * just before reading it; stops at a visit cap.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { joinPath } from "../sandbox/_path.ts";
import type { ToolFailure } from "../failure.ts";
import type { FsAccess } from "../sandbox/fs_access.ts";
import { isSensitivePath } from "../sandbox/floors.ts";
import type { FileStat } from "../effects.ts";

/** One walked entry. */
export interface WalkEntry {
  /** Path relative to the start, `/`-separated. */
  rel: string;
  /** Canonical path. */
  real: string;
  /** `lstat` metadata. */
  stat: FileStat;
}

/** Options of {@linkcode walkTree}. */
export interface WalkOptions {
  /** Deepest entry depth to report (1 = direct children only). */
  maxDepth: number;
  /** Entries visited before the walk stops incomplete. */
  maxVisits: number;
  /** Called per file or directory; `false` stops the walk. */
  visit(entry: WalkEntry): boolean | Promise<boolean>;
  /** Aborts the walk. */
  signal: AbortSignal;
}

/**
 * Walks from a resolved directory. `complete: false` when the visit cap
 * or the visitor stopped it.
 */
export async function walkTree(
  fs: FsAccess,
  startReal: string,
  options: WalkOptions,
): Promise<Result<{ complete: boolean }, ToolFailure>> {
  const os = fs.plan.os;
  const floor = { os, ownDirs: fs.plan.ownDirs };
  const queue: { real: string; rel: string; depth: number }[] = [
    { real: startReal, rel: "", depth: 0 },
  ];
  let visits = 0;
  for (let i = 0; i < queue.length; i++) {
    if (options.signal.aborted) return ok({ complete: false });
    const dir = queue[i];
    if (dir === undefined) break;
    const listed = await fs.readDir(dir.real, options.maxVisits - visits + 1);
    if (!listed.ok) {
      if (i === 0 || listed.error.kind === "unavailable") {
        return err(listed.error);
      }
      continue;
    }
    const entries = [...listed.value].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
    for (const entry of entries) {
      if (++visits > options.maxVisits) return ok({ complete: false });
      if (entry.isSymlink || (!entry.isFile && !entry.isDirectory)) continue;
      const real = joinPath(os, dir.real, entry.name);
      if (isSensitivePath(real, floor)) continue;
      const stat = await fs.lstat(real);
      if (!stat.ok) {
        if (stat.error.kind === "unavailable") return err(stat.error);
        continue;
      }
      if (stat.value.isSymlink) continue;
      if (!stat.value.isFile && !stat.value.isDirectory) continue;
      const rel = dir.rel === "" ? entry.name : `${dir.rel}/${entry.name}`;
      const depth = dir.depth + 1;
      if (!(await options.visit({ rel, real, stat: stat.value }))) {
        return ok({ complete: false });
      }
      if (stat.value.isDirectory && depth < options.maxDepth) {
        queue.push({ real, rel, depth });
      }
    }
  }
  return ok({ complete: true });
}
