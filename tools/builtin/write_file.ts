/**
 * `write_file`: writes UTF-8 text to a jailed path, a
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
import { unavailable } from "./_unavailable.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import { permissionFlag } from "../sandbox/permission_query.ts";
import {
  defineTool,
  type ToolDefinition,
  type ToolRunResult,
} from "../tool.ts";
import { resolveWriteTarget } from "../sandbox/write_jail.ts";

/**
 * Result of `write_file`.
 */
export interface WriteFileResult {
  /** The written path, workspace-relative when inside the workspace. */
  path: string;
  /** UTF-8 bytes written (appended). */
  bytesWritten: number;
}

/** The complete effective arguments (the contract of `parse`). */
const writeFileArgsSchema = z.strictObject({
  path: z.string().min(1).describe("Workspace-relative path"),
  content: z.string().describe("Text to write (UTF-8)"),
  append: z.boolean().exactOptional().describe(
    "Append to the file instead of replacing it",
  ),
  createDirs: z.boolean().exactOptional().describe(
    "Create missing parent directories",
  ),
});

/** Arguments of `write_file`. */
export type WriteFileArgs = z.output<typeof writeFileArgsSchema>;

/**
 * The `write_file` tool: governed `fs_write`.
 */
export const writeFileTool: ToolDefinition<WriteFileArgs> = defineTool(
  writeFileArgsSchema,
  {
    id: "write_file",
    description:
      "Write UTF-8 text to a file in the workspace (replaces it atomically). append: true adds to the end; createDirs: true creates missing parent directories.",
    policy: {
      fsScoped: true,
      fsWrite: true,
      spawnsProcess: false,
      requiresGateApproval: false,
    },
    policyTarget: (args) => ({
      path: args.path,
      content: { text: args.content, append: args.append === true },
    }),
    async dispatch(args, host, ctx): Promise<ToolRunResult> {
      const plan = ctx.fs.plan;
      if (host.writeFileAtomic === undefined) {
        return unavailable("cannot write files here");
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
            return unavailable("cannot append here");
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
  },
);
