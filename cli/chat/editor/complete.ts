/**
 * Tab completion of `@` paths: the `@word` before the cursor is
 * completed against the workspace's entries. Only workspace-relative
 * paths complete: an absolute path, a `..` segment, or a folder whose
 * real path lies outside the workspace (a symlink out of it) offers
 * nothing, so completion never lists what `@` could not attach. Hidden
 * entries are offered only when the typed name starts with a dot. The
 * listing is bounded: at most 200 candidates, from at most 10,000 folder
 * entries read.
 *
 * @module
 */
import { isAbsolute, join, relative } from "../../../schema/paths.ts";
import { insertText, type LineState } from "./line_state.ts";

/** Candidates offered at most. */
const MAX_CANDIDATES = 200;
/** Folder entries read at most for one completion (a huge folder stops there). */
const MAX_SCANNED = 10_000;

/** Lists the completions of a typed `@` path (as typed, plus the rest). */
export type PathCompleter = (partial: string) => Promise<string[]>;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Completes `@` paths under a workspace folder.
 *
 * @param workspace The workspace (absolute).
 * @returns The completer; folders end with `/`.
 */
export function createPathCompleter(workspace: string): PathCompleter {
  return async (partial) => {
    if (isAbsolute(partial) || partial.split("/").includes("..")) return [];
    const slash = partial.lastIndexOf("/");
    const folder = partial.slice(0, slash + 1);
    const base = partial.slice(slash + 1);
    try {
      const root = await Deno.realPath(workspace);
      const dir = await Deno.realPath(join(root, folder));
      if (!inside(root, dir)) return [];
      const out: string[] = [];
      let scanned = 0;
      for await (const entry of Deno.readDir(dir)) {
        if (++scanned > MAX_SCANNED) break;
        if (!entry.name.startsWith(base)) continue;
        if (entry.name.startsWith(".") && !base.startsWith(".")) continue;
        let isDir = entry.isDirectory;
        if (entry.isSymlink) {
          const target = await Deno.realPath(join(dir, entry.name)).catch(
            () => undefined,
          );
          if (target === undefined || !inside(root, target)) continue;
          isDir = (await Deno.stat(target)).isDirectory;
        }
        out.push(`${folder}${entry.name}${isDir ? "/" : ""}`);
        if (out.length >= MAX_CANDIDATES) break;
      }
      return out.sort();
    } catch {
      return [];
    }
  };
}

/**
 * The `@` path being typed: the word before the cursor, when it starts
 * with `@`.
 *
 * @param state The line.
 * @returns The text after `@`, or `undefined` when the cursor is not in
 * such a word.
 */
export function typedAtPath(state: LineState): string | undefined {
  const m = /(?:^|\s)@(\S*)$/.exec(state.text.slice(0, state.cursor));
  return m === null ? undefined : m[1];
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? "";
  for (const w of words) {
    while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

/**
 * Applies completion candidates to the typed `@` path: the one
 * candidate (a file gets a following space), or the longest prefix all
 * share.
 *
 * @param state The line.
 * @param partial The typed path ({@linkcode typedAtPath}).
 * @param candidates The completer's answer.
 * @returns The completed line (unchanged when nothing is added).
 */
export function applyCompletion(
  state: LineState,
  partial: string,
  candidates: readonly string[],
): LineState {
  if (candidates.length === 0) return state;
  const only = candidates.length === 1 ? candidates[0] : undefined;
  const target = only ?? commonPrefix(candidates);
  if (!target.startsWith(partial)) return state;
  const rest = target.slice(partial.length);
  const space = only !== undefined && !only.endsWith("/") ? " " : "";
  return insertText(state, rest + space);
}
