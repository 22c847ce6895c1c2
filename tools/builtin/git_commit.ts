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
import { isPlainGitCommitArgs } from "./_args_quick.ts";
import { lazyArgsParser } from "./_zod.ts";
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

/**
 * The `git_commit` tool: gated, spawns `git`.
 *
 * @example Flags are refused as files
 * ```ts
 * import { gitCommitTool } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * assert.equal(gitCommitTool.policy.requiresGateApproval, true);
 * assert.equal((await gitCommitTool.parse({ message: "m", files: ["--amend"] })).ok, false);
 * assert.equal((await gitCommitTool.parse({ message: "--amend" })).ok, true); // a message, not a flag
 * ```
 */
export const gitCommitTool: ToolDefinition<GitCommitArgs> = {
  id: "git_commit",
  description:
    "Commit in the workspace's git repository: git commit -m <message> -- <files>. Does not stage; each call needs the user's explicit approval.",
  parse: lazyArgsParser(
    isPlainGitCommitArgs,
    async () => (await import("./_args_schemas.ts")).gitCommitArgsSchema,
  ),
  llmParams: {
    type: "object",
    properties: {
      message: { type: "string", description: "Commit message" },
      files: {
        type: "array",
        items: { type: "string" },
        description: "Workspace-relative paths to commit (default: the index)",
      },
    },
    required: ["message"],
    additionalProperties: false,
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
