/**
 * `git_commit`: runs
 * `git commit -m <message> -- <files…>` in the workspace and never
 * stages (with files, git commits exactly those paths' working-tree
 * content, `--only` semantics). It has no command target, so it is
 * neither allowlisted nor a governed `process` action: instead the
 * pipeline asks the registry's `GateHook` for an explicit per-call yes in
 * every mode including `auto` — never cached, denied (`gate_required`)
 * when non-interactive, without a gate, or while the mode hides it
 * (`ask`, `plan`).
 *
 * Hardening: no hook runs (`--no-verify` and an empty hooks path, so
 * `post-commit` and `reference-transaction` are off too), no signing
 * program, no filter or other program the repository or system config
 * names (see `_git.ts`); no pager, literal pathspecs (no `:(magic)` or
 * globs); every file must be inside the workspace and off the
 * sensitive-read floor (no committing `.env`).
 *
 * @module
 */
import { runGit } from "./_git.ts";
import { realWorkDir } from "./_process.ts";
import { z } from "zod";
import { checkLexicalPath } from "../sandbox/fs_scope.ts";
import {
  defineTool,
  type ToolDefinition,
  type ToolRunResult,
} from "../tool.ts";

/**
 * The argv after `git` and its config overrides.
 *
 * @param args Parsed args.
 * @returns `commit --no-verify --no-gpg-sign -m <message> -- <files…>`.
 */
export function gitCommitArgv(args: GitCommitArgs): string[] {
  return [
    "commit",
    "--no-verify",
    "--no-gpg-sign",
    "-m",
    args.message,
    "--",
    ...(args.files ?? []),
  ];
}

/** Flags before the config overrides. */
const LEADING: readonly string[] = ["--no-pager", "--literal-pathspecs"];

// deno-lint-ignore no-control-regex
const NUL = /\u0000/;

/** The complete effective arguments (the contract of `parse`). */
const gitCommitArgsSchema = z.strictObject({
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

/** Arguments of `git_commit`. */
export type GitCommitArgs = z.output<typeof gitCommitArgsSchema>;

/**
 * The `git_commit` tool: gated, spawns `git`.
 */
export const gitCommitTool: ToolDefinition<GitCommitArgs> = defineTool(
  gitCommitArgsSchema,
  {
    id: "git_commit",
    description:
      "Commit in the workspace's git repository: git commit -m <message> -- <files>. Does not stage; each call needs the user's explicit approval.",
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
      return await runGit(host, {
        args: gitCommitArgv(args),
        leading: LEADING,
        cwd: cwd.value,
        timeoutMs: ctx.limits.processTimeoutMs,
        label: "git commit",
      }, ctx);
    },
  },
);
