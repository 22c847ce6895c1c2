/**
 * `list_directory` (tools.md §2): entries of a jailed directory, optionally
 * recursive and glob-filtered, at most 1000; sensitive entries, symlinks
 * and special files omitted; symlinked directories never descended.
 *
 * @module
 */
import { z } from "zod";
import { argsParser, modelSchema } from "./_args.ts";
import { matchPathGlob } from "../sandbox/glob.ts";
import type { ToolDefinition } from "../tool.ts";
import { walkTree } from "./walk.ts";

/**
 * Arguments of `list_directory`.
 *
 * @example Value
 * ```ts
 * import type { ListDirectoryArgs } from "@relavium/session/tools";
 * const a: ListDirectoryArgs = { path: ".", recursive: true, glob: "*.ts" };
 * ```
 */
export interface ListDirectoryArgs {
  /** Workspace-relative or in-scope absolute directory. */
  path: string;
  /** Walk subdirectories (never through symlinks). */
  recursive?: boolean;
  /** Filter: a pattern without `/` matches names, else relative paths. */
  glob?: string;
}

/**
 * One listed entry; `name` is relative to the listed directory.
 *
 * @example Value
 * ```ts
 * import type { DirectoryEntry } from "@relavium/session/tools";
 * const e: DirectoryEntry = { name: "src/a.ts", type: "file", sizeBytes: 10, lastModified: null };
 * ```
 */
export interface DirectoryEntry {
  /** Path relative to the listed directory, `/`-separated. */
  name: string;
  /** Entry type. */
  type: "file" | "directory";
  /** File size; `0` for directories. */
  sizeBytes: number;
  /** ISO-8601 modification time; `null` if unknown. */
  lastModified: string | null;
}

/**
 * Result of `list_directory`; `truncated` when a cap stopped the listing.
 *
 * @example Value
 * ```ts
 * import type { ListDirectoryResult } from "@relavium/session/tools";
 * const r: ListDirectoryResult = { entries: [] };
 * ```
 */
export interface ListDirectoryResult {
  /** Entries in breadth-first, name-sorted order. */
  entries: DirectoryEntry[];
  /** Present when the entry or visit cap stopped the listing. */
  truncated?: true;
}

/** The complete effective arguments (the contract of `parse`). */
const listDirectoryArgsSchema: z.ZodType<ListDirectoryArgs> = z
  .strictObject({
    path: z.string().min(1).describe("Workspace-relative directory"),
    recursive: z.boolean().exactOptional().describe("Include subdirectories"),
    glob: z.string().min(1).exactOptional().describe(
      "Filter pattern (*, ?, **)",
    ),
  });

const llmParams = modelSchema(listDirectoryArgsSchema);

/**
 * The `list_directory` tool: fs read, not governed.
 *
 * @example Strict args
 * ```ts
 * import { listDirectoryTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.equal(listDirectoryTool.parse({ path: ".", recursive: true }).ok, true);
 * assert.equal(listDirectoryTool.parse({ path: ".", depth: 2 }).ok, false);
 * ```
 */
export const listDirectoryTool: ToolDefinition<ListDirectoryArgs> = {
  id: "list_directory",
  description:
    "List a directory in the workspace: names relative to it, type, size, modification time. Optional recursive walk and glob filter (a pattern without '/' matches names).",
  parse: argsParser(listDirectoryArgsSchema),
  get llmParams() {
    return llmParams();
  },
  policy: { fsScoped: true, spawnsProcess: false, requiresGateApproval: false },
  policyTarget: (args) => ({ path: args.path }),
  async dispatch(args, _host, ctx) {
    const dir = await ctx.fs.resolve(args.path, "directory");
    if (!dir.ok) return dir;
    const glob = args.glob;
    const byName = glob !== undefined && !glob.includes("/");
    const entries: DirectoryEntry[] = [];
    let truncated = false;
    const walked = await walkTree(ctx.fs, dir.value.real, {
      maxDepth: args.recursive === true ? Infinity : 1,
      maxVisits: ctx.limits.walkVisits,
      signal: ctx.signal,
      visit(entry): boolean {
        if (glob !== undefined) {
          const subject = byName
            ? entry.rel.slice(entry.rel.lastIndexOf("/") + 1)
            : entry.rel;
          if (!matchPathGlob(glob, subject)) return true;
        }
        if (entries.length >= ctx.limits.listEntries) {
          truncated = true;
          return false;
        }
        const isDir = entry.stat.isDirectory;
        const mtime = entry.stat.mtimeMs;
        entries.push({
          name: entry.rel,
          type: isDir ? "directory" : "file",
          sizeBytes: isDir ? 0 : entry.stat.size,
          lastModified: mtime === null ? null : new Date(mtime).toISOString(),
        });
        return true;
      },
    });
    if (!walked.ok) return walked;
    const value: ListDirectoryResult = truncated || !walked.value.complete
      ? { entries, truncated: true }
      : { entries };
    return {
      ok: true,
      value,
      summary: `${entries.length} entries${
        value.truncated ? " (truncated)" : ""
      }`,
    };
  },
};
