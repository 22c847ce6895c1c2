/**
 * `git_status` (tools.md §2, §6): `git status|log|diff` in the workspace
 * with config-only extra flags. Not governed, no allowlist, but it spawns
 * `git` (needs `--allow-run=git`) with a cleared environment plus the base
 * keys of §5. Hardened against repository-controlled code paths:
 * `core.fsmonitor` off, no external diff or textconv drivers, no pager, no
 * optional locks (read-only).
 *
 * @module
 */
import { z } from "zod";
import { argsParser, modelSchema } from "./_args.ts";
import { baseEnvKeys, childEnv } from "../sandbox/child_env.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import { type SpawnResult, ToolEffectsError } from "../effects.ts";
import type { ToolDefinition, ToolRunResult } from "../tool.ts";

/**
 * Arguments of `git_status` (`args` is config-only).
 *
 * @example Value
 * ```ts
 * import type { GitStatusArgs } from "@relavium/session/tools";
 * const a: GitStatusArgs = { command: "log", args: ["-n", "5", "--oneline"] };
 * ```
 */
export interface GitStatusArgs {
  /** Subcommand (default `status`). */
  command?: "status" | "log" | "diff";
  /** Extra flags from configuration only. */
  args?: string[];
}

/**
 * Result of a process tool.
 *
 * @example Value
 * ```ts
 * import type { ProcessResult } from "@relavium/session/tools";
 * const r: ProcessResult = { exitCode: 0, stdout: "", stderr: "", durationMs: 3 };
 * ```
 */
export interface ProcessResult {
  /** Exit code (a signal death reports 1). */
  exitCode: number;
  /** Captured stdout, with a truncation marker past the capture cap. */
  stdout: string;
  /** Captured stderr, with a truncation marker past the capture cap. */
  stderr: string;
  /** Wall time measured by the host. */
  durationMs: number;
}

const HARDENING = [
  "--no-pager",
  "--no-optional-locks",
  "-c",
  "core.fsmonitor=false",
];

function withMarker(text: string, truncated: boolean, max: number): string {
  return truncated ? `${text}\n…[output truncated at ${max} bytes]` : text;
}

/**
 * Builds the argv after `git` (hardening flags, subcommand, config flags).
 *
 * @param args Parsed effective args.
 * @returns The argument list.
 */
export function gitArgv(args: GitStatusArgs): string[] {
  const command = args.command ?? "status";
  const noDrivers = command === "status"
    ? []
    : ["--no-ext-diff", "--no-textconv"];
  return [...HARDENING, command, ...noDrivers, ...(args.args ?? [])];
}

/** The complete effective arguments (the contract of `parse`). */
const gitStatusArgsSchema: z.ZodType<GitStatusArgs> = z.strictObject({
  command: z.enum(["status", "log", "diff"]).exactOptional().describe(
    "git subcommand (default status)",
  ),
  args: z.array(z.string()).exactOptional(),
});

const CONFIG_ONLY: readonly string[] = ["args"];
const llmParams = modelSchema(gitStatusArgsSchema, CONFIG_ONLY);

/**
 * The `git_status` tool: spawns `git`, not governed.
 *
 * @example The model cannot pass `args`
 * ```ts
 * import { gitStatusTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.deepEqual(gitStatusTool.configOnly, ["args"]);
 * assert.equal("args" in (gitStatusTool.llmParams.properties as object), false);
 * ```
 */
export const gitStatusTool: ToolDefinition<GitStatusArgs> = {
  id: "git_status",
  description:
    "Show the workspace's git state: 'status' (default), 'log' or 'diff'. Read-only.",
  parse: argsParser(gitStatusArgsSchema),
  get llmParams() {
    return llmParams();
  },
  configOnly: CONFIG_ONLY,
  policy: {
    fsScoped: false,
    spawnsProcess: true,
    fixedProgram: "git",
    requiresGateApproval: false,
  },
  async dispatch(args, host, ctx): Promise<ToolRunResult> {
    const max = ctx.limits.processOutputBytes;
    let run: SpawnResult;
    try {
      run = await host.spawn({
        program: "git",
        args: gitArgv(args),
        cwd: ctx.workingDir,
        env: childEnv(host.readEnv(baseEnvKeys(host.os)), {}, host.os),
        timeoutMs: ctx.limits.processTimeoutMs,
        maxOutputBytes: max,
        signal: ctx.signal,
      });
    } catch (e) {
      if (e instanceof ToolEffectsError && e.kind === "not_found") {
        return {
          ok: false,
          error: { kind: "unavailable", message: "needs git on the host PATH" },
        };
      }
      return { ok: false, error: hostFailure(e, "--allow-run=git") };
    }
    if (run.timedOut) {
      return {
        ok: false,
        error: {
          kind: "failed",
          message: `git timed out after ${ctx.limits.processTimeoutMs} ms`,
        },
      };
    }
    const value: ProcessResult = {
      exitCode: run.exitCode,
      stdout: withMarker(run.stdout, run.stdoutTruncated, max),
      stderr: withMarker(run.stderr, run.stderrTruncated, max),
      durationMs: run.durationMs,
    };
    return {
      ok: true,
      value,
      summary: `git ${args.command ?? "status"} exited ${run.exitCode}`,
    };
  },
};
