/**
 * A user's `@path` file injection: one file read through the
 * same capability as `read_file` — the lexical jail and floors, the Deno
 * read permission, then `read_file`'s own read (realpath jail, symlink
 * and hard-link refusals, sensitive floor on the real path, binary
 * refusal, size cap). Typing `@` replaces an approval prompt, never a
 * floor. Messages give a reason, never a path. Never throws.
 *
 * @module
 */
import { checkLexicalPath } from "../sandbox/fs_scope.ts";
import {
  firstMissingPermission,
  permissionFlag,
} from "../sandbox/permission_query.ts";
import { type PipelineConfig, runTool } from "../pipeline.ts";
import { staticPermissions } from "../policy.ts";
import { type ReadFileResult, readFileTool } from "./read_file.ts";
import type { ToolDefinition } from "../tool.ts";

/**
 * The text of a user-injected file, or why it was not read.
 */
export type UserFileResult =
  | { ok: true; content: string; sizeBytes: number }
  | { ok: false; message: string };

/**
 * Reads one file for `@path`.
 *
 * @param config The registry's pipeline configuration.
 * @param path The path as typed (workspace-relative or in-scope absolute).
 * @param signal Aborts the read.
 * @returns The text, or a path-free reason.
 */
export async function readUserFilePipeline(
  config: PipelineConfig,
  path: string,
  signal: AbortSignal,
): Promise<UserFileResult> {
  try {
    const lexical = checkLexicalPath(config.plan, path, "read");
    if (!lexical.ok) return { ok: false, message: lexical.error.message };
    const tool = readFileTool as ToolDefinition<unknown>;
    const missing = firstMissingPermission(
      config.permissions,
      staticPermissions(tool.policy, config.plan),
    );
    if (missing !== undefined) {
      return {
        ok: false,
        message: `needs the Deno permission ${permissionFlag(missing)}`,
      };
    }
    const result = await runTool(config, tool, { path }, { signal });
    if (result === "aborted") return { ok: false, message: "cancelled" };
    if (!result.ok) return { ok: false, message: result.error.message };
    const value = result.value as ReadFileResult;
    return { ok: true, content: value.content, sizeBytes: value.sizeBytes };
  } catch {
    return { ok: false, message: "the file could not be read" };
  }
}
