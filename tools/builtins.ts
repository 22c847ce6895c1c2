/**
 * The built-in read-only tools of this release.
 *
 * @module
 */
import { gitStatusTool } from "./git_status.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import type { ToolDefinition } from "./tool.ts";

/**
 * `read_file`, `list_directory` and `git_status`, in that order.
 *
 * @returns Fresh array of the built-in definitions.
 *
 * @example Ids
 * ```ts
 * import { builtinTools } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.deepEqual(builtinTools().map((t) => t.id), ["read_file", "list_directory", "git_status"]);
 * ```
 */
export function builtinTools(): ToolDefinition<unknown>[] {
  return [readFileTool, listDirectoryTool, gitStatusTool];
}
