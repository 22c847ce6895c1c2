/**
 * `git_status`: `git status|log|diff` in the workspace
 * with config-only extra flags. Not governed, no allowlist, but it spawns
 * `git` (needs `--allow-run=git`) with a cleared environment plus the base
 * keys of the child environment. No program the repository or the system
 * config names runs (filters, textconv, external diff, pagers, fsmonitor,
 * hooks, signing programs: see `_git.ts`); no submodule recursion, no
 * optional locks (read-only).
 *
 * @module
 */
import { z } from "zod";
import { runGit } from "./_git.ts";
import {
  defineTool,
  type ToolDefinition,
  type ToolRunResult,
} from "../tool.ts";

export type { ProcessResult } from "./_process.ts";

/** Flags before the config overrides (see `_git.ts`). */
const LEADING: readonly string[] = ["--no-pager", "--no-optional-locks"];

/**
 * Builds the argv after `git` and its config overrides: the subcommand,
 * its hardening flags, then the config-only flags.
 *
 * @param args Parsed effective args.
 * @returns The argument list.
 */
export function gitArgv(args: GitStatusArgs): string[] {
  const command = args.command ?? "status";
  const noDrivers = command === "status"
    ? ["--ignore-submodules=all"]
    : ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"];
  return [command, ...noDrivers, ...(args.args ?? [])];
}

/** The complete effective arguments (the contract of `parse`). */
const gitStatusArgsSchema = z.strictObject({
  command: z.enum(["status", "log", "diff"]).exactOptional().describe(
    "git subcommand (default status)",
  ),
  // config-only: extra flags
  args: z.array(z.string()).exactOptional(),
});

/** Arguments of `git_status` (`args` is config-only). */
export type GitStatusArgs = z.output<typeof gitStatusArgsSchema>;

const CONFIG_ONLY: readonly string[] = ["args"];

/**
 * The `git_status` tool: spawns `git`, not governed.
 */
export const gitStatusTool: ToolDefinition<GitStatusArgs> = defineTool(
  gitStatusArgsSchema,
  {
    id: "git_status",
    description:
      "Show the workspace's git state: 'status' (default), 'log' or 'diff'. Read-only.",
    configOnly: CONFIG_ONLY,
    policy: {
      fsScoped: false,
      spawnsProcess: true,
      fixedProgram: "git",
      requiresGateApproval: false,
    },
    async dispatch(args, host, ctx): Promise<ToolRunResult> {
      return await runGit(host, {
        args: gitArgv(args),
        leading: LEADING,
        cwd: ctx.workingDir,
        timeoutMs: ctx.limits.processTimeoutMs,
        label: `git ${args.command ?? "status"}`,
      }, ctx);
    },
  },
);
