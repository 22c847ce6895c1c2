/**
 * `git_commit` (tools.md §6): runs
 * `git commit -m <message> -- <files…>` in the workspace and never
 * stages (with files, git commits exactly those paths' working-tree
 * content, `--only` semantics). It has no command target, so it is
 * neither allowlisted nor a governed `process` action: instead the
 * pipeline asks the registry's `GateHook` for an explicit per-call yes in
 * every mode including `auto` — never cached, denied (`gate_required`)
 * when non-interactive, without a gate, or while the mode hides it
 * (`ask`, `plan`).
 *
 * Hardening: no pager, literal pathspecs (no `:(magic)` or globs), no
 * fsmonitor hook; every file must be inside the workspace and off the
 * sensitive-read floor (no committing `.env`).
 *
 * @module
 */
import { realWorkDir, runProcess } from "./_process.ts";
import { z } from "zod";
import { argsParser, modelSchema } from "./_args.ts";
import { baseEnvKeys, childEnv } from "../sandbox/child_env.ts";
import { checkLexicalPath } from "../sandbox/fs_scope.ts";
import type { ToolDefinition, ToolRunResult } from "../tool.ts";

/**
 * Arguments of `git_commit`.
 *
 * @example Value
 * ```ts
 * import type { GitCommitArgs } from "@relavium/session/tools";
 * const a: GitCommitArgs = { message: "docs: fix a typo", files: ["README.md"] };
 * ```
 */
export interface GitCommitArgs {
  /** The commit message (passed as one argument after `-m`). */
  message: string;
  /** Paths to commit; none may start with `-`. Absent ⇒ the index. */
  files?: string[];
}

/**
 * The argv after `git`.
 *
 * @param args Parsed args.
 * @returns Hardening flags, then `commit -m <message> -- <files…>`.
 */
export function gitCommitArgv(args: GitCommitArgs): string[] {
  return [
    "--no-pager",
    "--literal-pathspecs",
    "-c",
    "core.fsmonitor=false",
    "commit",
    "-m",
    args.message,
    "--",
    ...(args.files ?? []),
  ];
}

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;

/** The complete effective arguments (the contract of `parse`). */
const gitCommitArgsSchema: z.ZodType<GitCommitArgs> = z.strictObject({
  message: z.string().min(1).refine(
    (m) => !NUL.test(m),
    "NUL characters are not allowed",
  ).describe("Commit message"),
  files: z.array(
    z.string().min(1).refine((f) => !f.startsWith("-"), {
      message: "file names may not start with '-'",
    }).refine((f) => !NUL.test(f), "NUL characters are not allowed"),
  ).exactOptional().describe(
    "Workspace-relative paths to commit (default: the index)",
  ),
});

const llmParams = modelSchema(gitCommitArgsSchema);

/**
 * The `git_commit` tool: gated, spawns `git`.
 *
 * @example Flags are refused as files
 * ```ts
 * import { gitCommitTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.equal(gitCommitTool.policy.requiresGateApproval, true);
 * assert.equal(gitCommitTool.parse({ message: "m", files: ["--amend"] }).ok, false);
 * assert.equal(gitCommitTool.parse({ message: "--amend" }).ok, true); // a message, not a flag
 * ```
 */
export const gitCommitTool: ToolDefinition<GitCommitArgs> = {
  id: "git_commit",
  description:
    "Commit in the workspace's git repository: git commit -m <message> -- <files>. Does not stage; each call needs the user's explicit approval.",
  parse: argsParser(gitCommitArgsSchema),
  get llmParams() {
    return llmParams();
  },
  policy: {
    fsScoped: true,
    spawnsProcess: true,
    fixedProgram: "git",
    requiresGateApproval: true,
  },
  async dispatch(args, host, ctx): Promise<ToolRunResult> {
    const plan = ctx.fs.plan;
    for (const f of args.files ?? []) {
      const lexical = checkLexicalPath(plan, f, "read");
      if (!lexical.ok) return lexical;
    }
    const workspace = plan.roots[0] ?? ctx.workingDir;
    const cwd = await realWorkDir(plan, workspace, {
      host,
      permissions: ctx.permissions,
    });
    if (!cwd.ok) return cwd;
    return await runProcess(host, {
      program: "git",
      args: gitCommitArgv(args),
      cwd: cwd.value,
      env: childEnv(host.readEnv(baseEnvKeys(host.os)), {}, host.os),
      timeoutMs: ctx.limits.processTimeoutMs,
      notFound: { kind: "unavailable", message: "needs git on the host PATH" },
      label: "git commit",
    }, ctx);
  },
};
