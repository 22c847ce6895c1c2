/**
 * `git_status`: `git status|log|diff` in the workspace
 * with config-only extra flags. Not governed, no allowlist, but it spawns
 * `git` (needs `--allow-run=git`) with a cleared environment plus the base
 * keys of the child environment. Hardened against repository-controlled code paths:
 * `core.fsmonitor` off, no external diff or textconv drivers, no pager, no
 * optional locks (read-only).
 *
 * @module
 */
import { z } from "zod";
import { baseEnvKeys, childEnv } from "../sandbox/child_env.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import { type SpawnResult, ToolEffectsError } from "../effects.ts";
import {
  defineTool,
  type ToolDefinition,
  type ToolRunResult,
} from "../tool.ts";

/**
 * Result of a process tool.
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
            error: {
              kind: "unavailable",
              message: "needs git on the host PATH",
            },
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
  },
);
