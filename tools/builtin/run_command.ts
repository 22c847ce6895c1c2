/**
 * `run_command` (tools.md §5): one allowlisted program, governed
 * `process`. The model passes `command` (the program, no whitespace) and
 * `args` (no tokenising, no shell); the pipeline allows the call only if
 * `[command, ...args].join(" ")` is an exact `allowedCommands` entry or
 * fully matches an `allowedCommandGlobs` pattern — before approval, so
 * `auto` never runs an unlisted command.
 *
 * The program is resolved on the host's PATH (the child's `PATH` is always
 * the host's: a declared `PATH` is refused); a name with a separator is
 * used as given, relative to `cwd`; not found ⇒ fatal failure. The child
 * environment is built from scratch: the host's base keys plus the
 * config-declared `env` (refused keys are invalid arguments). `cwd`,
 * `timeoutMs` (default 30 s, ceiling 120 s) and `env` are config-only.
 * Timeout and abort kill the whole process group (see
 * `createDenoToolEffects`); a signal death reports exit code 1.
 *
 * @module
 */
import { absolutize, isWithin } from "../sandbox/_path.ts";
import { realWorkDir, runProcess } from "./_process.ts";
import { z } from "zod";
import { argsParser, modelSchema } from "./_args.ts";
import { commandLine } from "../sandbox/command_allowlist.ts";
import {
  baseEnvKeys,
  childEnv,
  isRefusedEnvKey,
} from "../sandbox/child_env.ts";
import { DEFAULT_TOOL_LIMITS } from "../sandbox/limits.ts";
import { REASONS } from "../failure.ts";
import { checkLexicalPath } from "../sandbox/fs_scope.ts";
import type { ToolDefinition, ToolRunResult } from "../tool.ts";

/**
 * Arguments of `run_command` (`cwd`, `timeoutMs`, `env` are config-only).
 *
 * @example Value
 * ```ts
 * import type { RunCommandArgs } from "@relavium/session/tools";
 * const a: RunCommandArgs = { command: "deno", args: ["task", "test"], timeoutMs: 60_000, env: { CI: "1" } };
 * ```
 */
export interface RunCommandArgs {
  /** The program: a name on the host PATH, or a path. */
  command: string;
  /** Arguments, passed as-is. */
  args?: string[];
  /** Working directory inside the workspace (config-only). */
  cwd?: string;
  /** Timeout in ms, at most 120 000 (config-only). */
  timeoutMs?: number;
  /** Extra environment variables (config-only; refused keys rejected). */
  env?: Record<string, string>;
}

function hasSeparator(program: string, windows: boolean): boolean {
  return program.includes("/") || (windows && program.includes("\\"));
}

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;

/** The complete effective arguments (the contract of `parse`). */
const runCommandArgsSchema: z.ZodType<RunCommandArgs> = z.strictObject({
  command: z.string().min(1).refine((c) => !/\s/.test(c) && !NUL.test(c), {
    message:
      "command is the program name only (no spaces); put arguments in args",
  }).describe("Program name (no spaces), e.g. git"),
  args: z.array(
    z.string().refine((a) => !NUL.test(a), "NUL characters are not allowed"),
  ).exactOptional().describe('Arguments, one per element, e.g. ["status"]'),
  cwd: z.string().min(1).exactOptional(),
  timeoutMs: z.int().min(1).max(DEFAULT_TOOL_LIMITS.processTimeoutCeilingMs)
    .exactOptional(),
  env: z.record(
    z.string(),
    z.string().refine((v) => !NUL.test(v), "NUL characters are not allowed"),
  ).superRefine((env, ctx) => {
    for (const key of Object.keys(env)) {
      const message = key === "" || key.includes("=") || NUL.test(key)
        ? "invalid environment variable name"
        : isRefusedEnvKey(key)
        ? "environment variable is refused (set in configuration)"
        : undefined;
      if (message !== undefined) {
        ctx.addIssue({ code: "custom", path: [key], message });
      }
    }
  }).exactOptional(),
});

const CONFIG_ONLY: readonly string[] = ["cwd", "timeoutMs", "env"];
const llmParams = modelSchema(runCommandArgsSchema, CONFIG_ONLY);

/**
 * The `run_command` tool: governed `process`, allowlisted.
 *
 * @example The policy target is the joined command line
 * ```ts
 * import { runCommandTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.equal(runCommandTool.policyTarget?.({ command: "git", args: ["status"] }).command, "git status");
 * assert.deepEqual(runCommandTool.configOnly, ["cwd", "timeoutMs", "env"]);
 * assert.equal(runCommandTool.parse({ command: "git status" }).ok, false);
 * assert.equal(runCommandTool.parse({ command: "make", env: { LD_PRELOAD: "x" } }).ok, false);
 * ```
 */
export const runCommandTool: ToolDefinition<RunCommandArgs> = {
  id: "run_command",
  description:
    "Run one allowlisted program in the workspace, without a shell: command is the program name, args its arguments. Returns exit code, stdout and stderr.",
  parse: argsParser(runCommandArgsSchema),
  get llmParams() {
    return llmParams();
  },
  configOnly: CONFIG_ONLY,
  policy: { fsScoped: true, spawnsProcess: true, requiresGateApproval: false },
  policyTarget: (args) => ({
    command: commandLine(args.command, args.args ?? []),
    argv: [args.command, ...(args.args ?? [])],
  }),
  async dispatch(args, host, ctx): Promise<ToolRunResult> {
    const plan = ctx.fs.plan;
    const workspace = plan.roots[0] ?? ctx.workingDir;
    let lexicalCwd = workspace;
    if (args.cwd !== undefined) {
      // A configured cwd is not the model's to correct: refusals are fatal.
      const lexical = checkLexicalPath(plan, args.cwd, "read");
      if (!lexical.ok) {
        return {
          ok: false,
          error: {
            kind: "refused",
            reason: "policy",
            message: lexical.error.message,
          },
        };
      }
      if (!isWithin(lexical.value.absolute, workspace, plan.os)) {
        return {
          ok: false,
          error: { kind: "refused", reason: "policy", message: REASONS.escape },
        };
      }
      lexicalCwd = lexical.value.absolute;
    }
    const cwd = await realWorkDir(plan, lexicalCwd, {
      host,
      permissions: ctx.permissions,
    });
    if (!cwd.ok) return cwd;
    const env = childEnv(host.readEnv(baseEnvKeys(host.os)), args.env, host.os);
    const windows = host.os === "windows";
    let program = args.command;
    if (hasSeparator(program, windows)) {
      program = absolutize(program, cwd.value, plan.os);
    } else if (env["PATH"] === undefined && env["Path"] === undefined) {
      return {
        ok: false,
        error: {
          kind: "unavailable",
          message: "needs the Deno permission --allow-env=PATH",
        },
      };
    }
    const ceiling = ctx.limits.processTimeoutCeilingMs;
    return await runProcess(host, {
      program,
      args: args.args ?? [],
      cwd: cwd.value,
      env,
      timeoutMs: Math.min(
        args.timeoutMs ?? ctx.limits.processTimeoutMs,
        ceiling,
      ),
      notFound: {
        kind: "failed",
        message: "program not found on the host PATH",
      },
      label: args.command,
    }, ctx);
  },
};
