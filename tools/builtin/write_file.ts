/**
 * `write_file` (tools.md §2–§4): writes UTF-8 text to a jailed path, a
 * governed `fs_write`. A write goes to a temp file created exclusively in
 * the target directory and is `rename`d over the target; `append` adds
 * to an existing regular file (hard-linked files refused) or creates it;
 * `createDirs` creates missing parent directories inside the scope. A
 * write to a protected path (`.git/…`, `.bashrc`, …) always needs a
 * person (never auto-approved, never cached, denied when nobody can be
 * asked).
 *
 * @module
 */
import { isWithin, joinPath, relativeSlash } from "../sandbox/_path.ts";
import { z } from "zod";
import { argsParser, modelSchema } from "./_args.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import { permissionFlag } from "../sandbox/permission_query.ts";
import type { ToolDefinition, ToolRunResult } from "../tool.ts";
import { resolveWriteTarget } from "../sandbox/write_jail.ts";

/**
 * Arguments of `write_file`.
 *
 * @example Value
 * ```ts
 * import type { WriteFileArgs } from "@relavium/session/tools";
 * const a: WriteFileArgs = { path: "notes/todo.md", content: "- milk\n", createDirs: true };
 * ```
 */
export interface WriteFileArgs {
  /** Workspace-relative (or in-scope absolute) path. */
  path: string;
  /** UTF-8 text to write. */
  content: string;
  /** Append instead of replacing. */
  append?: boolean;
  /** Create missing parent directories (inside the scope). */
  createDirs?: boolean;
}

/**
 * Result of `write_file`.
 *
 * @example Value
 * ```ts
 * import type { WriteFileResult } from "@relavium/session/tools";
 * const r: WriteFileResult = { path: "notes/todo.md", bytesWritten: 7 };
 * ```
 */
export interface WriteFileResult {
  /** The written path, workspace-relative when inside the workspace. */
  path: string;
  /** UTF-8 bytes written (appended). */
  bytesWritten: number;
}

/** The complete effective arguments (the contract of `parse`). */
const writeFileArgsSchema: z.ZodType<WriteFileArgs> = z.strictObject({
  path: z.string().min(1).describe("Workspace-relative path"),
  content: z.string().describe("Text to write (UTF-8)"),
  append: z.boolean().exactOptional().describe(
    "Append to the file instead of replacing it",
  ),
  createDirs: z.boolean().exactOptional().describe(
    "Create missing parent directories",
  ),
});

const llmParams = modelSchema(writeFileArgsSchema);

/**
 * The `write_file` tool: governed `fs_write`.
 *
 * @example Strict arguments
 * ```ts
 * import { writeFileTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.deepEqual(writeFileTool.llmParams.required, ["path", "content"]);
 * assert.equal(writeFileTool.parse({ path: "a", content: "x", mode: 0o777 }).ok, false);
 * assert.deepEqual(writeFileTool.policyTarget?.({ path: "a", content: "x" }), { path: "a" });
 * ```
 */
export const writeFileTool: ToolDefinition<WriteFileArgs> = {
  id: "write_file",
  description:
    "Write UTF-8 text to a file in the workspace (replaces it atomically). append: true adds to the end; createDirs: true creates missing parent directories.",
  parse: argsParser(writeFileArgsSchema),
  get llmParams() {
    return llmParams();
  },
  policy: {
    fsScoped: true,
    fsWrite: true,
    spawnsProcess: false,
    requiresGateApproval: false,
  },
  policyTarget: (args) => ({ path: args.path }),
  async dispatch(args, host, ctx): Promise<ToolRunResult> {
    const plan = ctx.fs.plan;
    if (host.writeFileAtomic === undefined) {
      return {
        ok: false,
        error: { kind: "unavailable", message: "cannot write files here" },
      };
    }
    const append = args.append === true;
    const target = await resolveWriteTarget(plan, args.path, {
      host,
      permissions: ctx.permissions,
      createDirs: args.createDirs === true,
      append,
    });
    if (!target.ok) return target;
    const { absolute, dir, name, existing } = target.value;
    const data = new TextEncoder().encode(args.content);
    try {
      if (append && existing !== undefined) {
        if (host.appendFile === undefined) {
          return {
            ok: false,
            error: { kind: "unavailable", message: "cannot append here" },
          };
        }
        await host.appendFile(joinPath(plan.os, dir, name), data, {
          expectedId: existing.fileId,
          refuseHardLinks: true,
          signal: ctx.signal,
        });
      } else {
        await host.writeFileAtomic(dir, name, data, { signal: ctx.signal });
      }
    } catch (e) {
      const root = plan.roots.find((r) => isWithin(absolute, r, plan.os)) ??
        ctx.workingDir;
      return {
        ok: false,
        error: hostFailure(e, permissionFlag({ name: "write", path: root })),
      };
    }
    const workspace = plan.roots[0] ?? ctx.workingDir;
    const rel = relativeSlash(workspace, absolute, plan.os);
    const inWorkspace = rel !== "" && !rel.startsWith("..");
    const value: WriteFileResult = {
      path: inWorkspace ? rel : absolute,
      bytesWritten: data.length,
    };
    return {
      ok: true,
      value,
      summary: `${append ? "Appended" : "Wrote"} ${data.length} bytes`,
    };
  },
};
