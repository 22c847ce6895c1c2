/**
 * The built-in tools of this release.
 *
 * @module
 */
import { gitCommitTool } from "./git_commit.ts";
import { gitStatusTool } from "./git_status.ts";
import { httpRequestTool } from "./http_request.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import { runCommandTool } from "./run_command.ts";
import type { ToolDefinition } from "../tool.ts";
import { writeFileTool } from "./write_file.ts";

/**
 * The read-only built-ins: `read_file`, `list_directory` and
 * `git_status`, in that order (unchanged since the read-only release; use
 * {@linkcode allBuiltinTools} for the whole catalog).
 *
 * @returns Fresh array of the read-only built-in definitions.
 */
export function builtinTools(): ToolDefinition<unknown>[] {
  return [readFileTool, listDirectoryTool, gitStatusTool];
}

/**
 * Every built-in: the read-only three, then `write_file`, `run_command`,
 * `git_commit` and `http_request`. Registering a tool does not grant it:
 * the session's grant, the mode, the registry's `guardrails`
 * (allowlists, domains) and `gate` decide what runs.
 *
 * @returns Fresh array of the built-in definitions.
 *
 * @example Ids
 * ```ts
 * import { allBuiltinTools } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.deepEqual(allBuiltinTools().map((t) => t.id), [
 *   "read_file", "list_directory", "git_status",
 *   "write_file", "run_command", "git_commit", "http_request",
 * ]);
 * ```
 */
export function allBuiltinTools(): ToolDefinition<unknown>[] {
  return [
    ...builtinTools(),
    writeFileTool,
    runCommandTool,
    gitCommitTool,
    httpRequestTool,
  ];
}
