/**
 * `read_file` (tools.md §2): one jailed text file, or with `glob` the
 * concatenation of matching text files (≤ 200 matches, 8 MiB in total,
 * binary, sensitive, symlinked and hard-linked matches skipped).
 *
 * @module
 */
import { joinPath } from "../sandbox/_path.ts";
import { z } from "zod";
import { argsParser, modelSchema } from "./_args.ts";
import { REASONS } from "../failure.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import { hasGlobSyntax, matchPathGlob } from "../sandbox/glob.ts";
import type { ToolEffects } from "../effects.ts";
import { permissionFlag } from "../sandbox/permission_query.ts";
import type { ToolDefinition, ToolRunContext, ToolRunResult } from "../tool.ts";
import { walkTree } from "./walk.ts";

/**
 * Arguments of `read_file`.
 *
 * @example Value
 * ```ts
 * import type { ReadFileArgs } from "@relavium/session/tools";
 * const a: ReadFileArgs = { path: "src/**\/*.ts", glob: true };
 * ```
 */
export interface ReadFileArgs {
  /** Workspace-relative or in-scope absolute path; a pattern with `glob`. */
  path: string;
  /** Treat `path` as a glob (`*`, `?`, `**`). */
  glob?: boolean;
}

/**
 * Result of `read_file`. With `glob`, `content` holds
 * `===== <path> =====\n<text>` blocks joined by blank lines.
 *
 * @example Value
 * ```ts
 * import type { ReadFileResult } from "@relavium/session/tools";
 * const r: ReadFileResult = { content: "hi", mimeType: "text/plain", sizeBytes: 2, lastModified: null };
 * ```
 */
export interface ReadFileResult {
  /** The text (UTF-8, invalid sequences replaced). */
  content: string;
  /** Guessed from the extension; `text/plain` by default. */
  mimeType: string;
  /** Bytes read. */
  sizeBytes: number;
  /** ISO-8601 modification time (latest of the matches); `null` if unknown. */
  lastModified: string | null;
}

const MIME: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  csv: "text/csv",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  ts: "text/typescript",
  tsx: "text/typescript",
  json: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  svg: "image/svg+xml",
};

function mimeOf(path: string): string {
  const dot = path.lastIndexOf(".");
  const ext = dot < 0 ? "" : path.slice(dot + 1).toLowerCase();
  return MIME[ext] ?? "text/plain";
}

function isoOf(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function hasNul(bytes: Uint8Array, probe: number): boolean {
  return bytes.subarray(0, probe).includes(0);
}

const decoder = new TextDecoder();

async function readOne(
  path: string,
  host: ToolEffects,
  ctx: ToolRunContext,
): Promise<ToolRunResult> {
  const resolved = await ctx.fs.resolve(path, "file");
  if (!resolved.ok) return resolved;
  const { real, root, stat } = resolved.value;
  const max = ctx.limits.readBytes;
  const tooLarge = `file exceeds the ${max}-byte read limit`;
  if (stat.size > max) {
    return { ok: false, error: { kind: "failed", message: tooLarge } };
  }
  let bytes: Uint8Array;
  try {
    bytes = await host.readFile(real, { maxBytes: max, signal: ctx.signal });
  } catch (e) {
    return {
      ok: false,
      error: hostFailure(e, permissionFlag({ name: "read", path: root })),
    };
  }
  if (bytes.length > max) {
    return { ok: false, error: { kind: "failed", message: tooLarge } };
  }
  if (hasNul(bytes, ctx.limits.binaryProbeBytes)) {
    return { ok: false, error: { kind: "failed", message: REASONS.binary } };
  }
  const mimeType = mimeOf(real);
  const value: ReadFileResult = {
    content: decoder.decode(bytes),
    mimeType,
    sizeBytes: bytes.length,
    lastModified: isoOf(stat.mtimeMs),
  };
  return {
    ok: true,
    value,
    summary: `Read ${bytes.length} bytes (${mimeType})`,
  };
}

async function readGlob(
  pattern: string,
  host: ToolEffects,
  ctx: ToolRunContext,
): Promise<ToolRunResult> {
  const os = ctx.fs.plan.os;
  const segs = os === "windows" ? pattern.split(/[\\/]/) : pattern.split("/");
  const firstGlob = segs.findIndex((s) => hasGlobSyntax(s));
  if (firstGlob < 0) return readOne(pattern, host, ctx);
  const baseText = segs.slice(0, firstGlob).join("/");
  const rest = segs.slice(firstGlob).filter((s) => s !== "").join("/");
  const dir = await ctx.fs.resolve(
    baseText === "" ? "." : baseText,
    "directory",
  );
  if (!dir.ok) return dir;
  const prefix = baseText === "" ? "" : `${baseText.replace(/\/+$/, "")}/`;
  const blocks: string[] = [];
  let total = 0;
  let latest: number | null = null;
  let stopped = "";
  const walked = await walkTree(ctx.fs, dir.value.real, {
    maxDepth: rest.split("/").includes("**")
      ? Infinity
      : rest.split("/").length,
    maxVisits: ctx.limits.walkVisits,
    signal: ctx.signal,
    async visit(entry): Promise<boolean> {
      if (!entry.stat.isFile || !matchPathGlob(rest, entry.rel)) return true;
      if (blocks.length >= ctx.limits.globMatches) {
        stopped = `glob stopped at ${ctx.limits.globMatches} matches`;
        return false;
      }
      const lexical = joinPath(os, dir.value.absolute, ...entry.rel.split("/"));
      const file = await ctx.fs.resolve(lexical, "file");
      if (!file.ok) return true;
      const remaining = ctx.limits.readBytes - total;
      const overTotal =
        `glob stopped at the ${ctx.limits.readBytes}-byte total read limit`;
      if (file.value.stat.size > remaining) {
        stopped = overTotal;
        return false;
      }
      let bytes: Uint8Array;
      try {
        bytes = await host.readFile(file.value.real, {
          maxBytes: remaining,
          signal: ctx.signal,
        });
      } catch {
        return true;
      }
      if (bytes.length > remaining) {
        stopped = overTotal;
        return false;
      }
      if (hasNul(bytes, ctx.limits.binaryProbeBytes)) return true;
      total += bytes.length;
      const mtime = file.value.stat.mtimeMs;
      if (mtime !== null && (latest === null || mtime > latest)) latest = mtime;
      blocks.push(
        `===== ${prefix}${entry.rel} =====\n${decoder.decode(bytes)}`,
      );
      return true;
    },
  });
  if (!walked.ok) return walked;
  if (stopped === "" && !walked.value.complete) {
    stopped = `glob stopped after visiting ${ctx.limits.walkVisits} entries`;
  }
  const content = blocks.join("\n\n") +
    (stopped === "" ? "" : `\n\n[… ${stopped}]`);
  const value: ReadFileResult = {
    content,
    mimeType: "text/plain",
    sizeBytes: total,
    lastModified: isoOf(latest),
  };
  return {
    ok: true,
    value,
    summary: `Read ${blocks.length} files (${total} bytes)`,
  };
}

/** The complete effective arguments (the contract of `parse`). */
const readFileArgsSchema: z.ZodType<ReadFileArgs> = z.strictObject({
  path: z.string().min(1).describe(
    "Workspace-relative path, or a glob pattern when glob is true",
  ),
  glob: z.boolean().exactOptional().describe("Treat path as a glob pattern"),
});

const llmParams = modelSchema(readFileArgsSchema);

/**
 * The `read_file` tool: fs read, not governed.
 *
 * @example Advertised schema
 * ```ts
 * import { readFileTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.deepEqual(readFileTool.llmParams.required, ["path"]);
 * assert.equal(readFileTool.parse({ path: "a", extra: 1 }).ok, false);
 * ```
 */
export const readFileTool: ToolDefinition<ReadFileArgs> = {
  id: "read_file",
  description:
    "Read a UTF-8 text file in the workspace. With glob: true, path is a pattern (*, ?, **) and every matching text file is returned as '===== <path> =====' blocks.",
  parse: argsParser(readFileArgsSchema),
  get llmParams() {
    return llmParams();
  },
  policy: { fsScoped: true, spawnsProcess: false, requiresGateApproval: false },
  policyTarget: (args) => ({ path: args.path }),
  dispatch: (args, host, ctx) =>
    args.glob === true
      ? readGlob(args.path, host, ctx)
      : readOne(args.path, host, ctx),
};
