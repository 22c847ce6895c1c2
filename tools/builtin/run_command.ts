/**
 * `run_command`: one allowlisted program, governed
 * `process`. The model passes `command` (the program, no whitespace) and
 * `args` (no tokenising, no shell); the pipeline allows the call only if
 * `[command, ...args].join(" ")` is an exact `allowedCommands` entry or
 * fully matches an `allowedCommandGlobs` pattern — before approval, so
 * `auto` never runs an unlisted command.
 *
 * The program is resolved on the host's PATH without its relative entries
 * and without every entry inside the workspace or another filesystem root
 * (lexically or by real path), so a program the model can write never
 * answers to an allowlisted name (a declared `PATH` is refused); a name
 * with a separator is used as given, relative to `cwd`; not found ⇒ fatal
 * failure (naming the skipped entries). The child
 * environment is built from scratch: the host's base keys plus the
 * config-declared `env` (refused keys are invalid arguments). `cwd`,
 * `timeoutMs` (default 30 s, ceiling 120 s) and `env` are config-only.
 * Timeout and abort kill the whole process group (see
 * `createDenoToolEffects`); a signal death reports exit code 1.
 *
 * @module
 */
import { absolutize, isWithin } from "../sandbox/_path.ts";
import { confinedEnv, notOnPath, realWorkDir, runProcess } from "./_process.ts";
import { z } from "zod";
import { unavailable } from "./_unavailable.ts";
import { commandLine } from "../sandbox/command_allowlist.ts";
import { isRefusedEnvKey } from "../sandbox/child_env.ts";
import { DEFAULT_TOOL_LIMITS } from "../sandbox/limits.ts";
import { REASONS } from "../failure.ts";
import { checkLexicalPath } from "../sandbox/fs_scope.ts";
import {
  defineTool,
  type ToolDefinition,
  type ToolRunResult,
} from "../tool.ts";

function hasSeparator(program: string, windows: boolean): boolean {
  return program.includes("/") || (windows && program.includes("\\"));
}

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;

/** The complete effective arguments (the contract of `parse`). */
const runCommandArgsSchema = z.strictObject({
  command: z.string().min(1).refine((c) => !/\s/.test(c) && !NUL.test(c), {
    message:
      "command is the program name only (no spaces); put arguments in args",
  }).describe("Program name (no spaces), e.g. git"),
  args: z.array(
    z.string().refine((a) => !NUL.test(a), "NUL characters are not allowed"),
  ).exactOptional().describe('Arguments, one per element, e.g. ["status"]'),
  // config-only: a working directory inside the workspace
  cwd: z.string().min(1).exactOptional(),
  // config-only: at most the ceiling of the limits
  timeoutMs: z.int().min(1).max(DEFAULT_TOOL_LIMITS.processTimeoutCeilingMs)
    .exactOptional(),
  // config-only: extra variables; a refused key is rejected
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

/** Arguments of `run_command` (`cwd`, `timeoutMs`, `env` are config-only). */
export type RunCommandArgs = z.output<typeof runCommandArgsSchema>;

const CONFIG_ONLY: readonly string[] = ["cwd", "timeoutMs", "env"];

/**
 * The `run_command` tool: governed `process`, allowlisted.
 */
export const runCommandTool: ToolDefinition<RunCommandArgs> = defineTool(
  runCommandArgsSchema,
  {
    id: "run_command",
    description:
      "Run one allowlisted program in the workspace, without a shell: command is the program name, args its arguments. Returns exit code, stdout and stderr.",
    configOnly: CONFIG_ONLY,
    policy: {
      fsScoped: true,
      spawnsProcess: true,
      requiresGateApproval: false,
    },
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
            error: {
              kind: "refused",
              reason: "policy",
              message: REASONS.escape,
            },
          };
        }
        lexicalCwd = lexical.value.absolute;
      }
      const cwd = await realWorkDir(plan, lexicalCwd, {
        host,
        permissions: ctx.permissions,
      });
      if (!cwd.ok) return cwd;
      const { env, dropped } = await confinedEnv(host, {
        plan,
        permissions: ctx.permissions,
        ...(args.env === undefined ? {} : { declared: args.env }),
      });
      const windows = host.os === "windows";
      let program = args.command;
      if (hasSeparator(program, windows)) {
        program = absolutize(program, cwd.value, plan.os);
      } else if (env["PATH"] === undefined && env["Path"] === undefined) {
        return unavailable("needs the Deno permission --allow-env=PATH");
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
        notFound: notOnPath(
          "program not found on the host PATH",
          dropped,
          "failed",
        ),
        label: args.command,
      }, ctx);
    },
  },
);
