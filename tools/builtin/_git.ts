/**
 * Private: git with every program a repository (or the system) names
 * switched off, for `git_status` and `git_commit`.
 *
 * Rules:
 * - The child environment is built from scratch, so no `GIT_*` variable of
 *   the host (`GIT_EXTERNAL_DIFF`, `GIT_PAGER`, `GIT_DIR`, `GIT_CONFIG_*`)
 *   reaches git; only the ones below are set.
 * - The system config and system attributes are skipped
 *   (`GIT_CONFIG_NOSYSTEM`, `GIT_ATTR_NOSYSTEM`); the user's global config
 *   is read, because it holds `user.name`/`user.email` for commits, and its
 *   executing keys are overridden like the repository's.
 * - Fixed `-c` overrides (command-line scope beats every file, and git
 *   passes them on to the git processes it starts): no fsmonitor, hooks
 *   from an empty path (`/dev/null`), no pager, no external diff, no
 *   signing or verifying program, no signature display, no commit
 *   signing, no credential helper or ssh command, no submodule recursion
 *   (a submodule's own config would apply there), no automatic gc.
 * - Attribute drivers are named by `.gitattributes` (which git always
 *   reads from the work tree), so their keys are listed first with
 *   `git config --list --name-only -z` (which runs nothing and follows
 *   `include`/`includeIf`, so included drivers are listed too) and each
 *   `filter.<d>.clean|smudge|process`, `diff.<d>.textconv|command` and
 *   `merge.<d>.driver` is overridden with an empty value (a filter with no
 *   command is skipped; an empty textconv or external diff fails instead
 *   of running), `filter.<d>.required` with `false`.
 * - A driver key that cannot be written as `-c key=value` (a `=` or a
 *   line break in its name) refuses the call.
 * - `git` itself resolves on the confined `PATH` of the process tools (no
 *   entry inside the workspace or another filesystem root).
 * - Aliases never replace a built-in subcommand, so `status`, `log`,
 *   `diff` and `commit` are always git's own.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import type { ToolFailure } from "../failure.ts";
import type { ToolEffects } from "../effects.ts";
import type { ToolRunContext, ToolRunResult } from "../tool.ts";
import {
  confinedEnv,
  notOnPath,
  processResult,
  runProcess,
  spawnProcess,
} from "./_process.ts";

/** Overrides applied to every git invocation, as `key=value`. */
const FIXED_OVERRIDES: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=",
  "core.sshCommand=",
  "credential.helper=",
  "diff.external=",
  "gpg.program=",
  "gpg.openpgp.program=",
  "gpg.x509.program=",
  "gpg.ssh.program=",
  "gpg.ssh.defaultKeyCommand=",
  "log.showSignature=false",
  "commit.gpgSign=false",
  "diff.ignoreSubmodules=all",
  "status.submoduleSummary=false",
  "submodule.recurse=false",
  "gc.auto=0",
  "maintenance.auto=false",
];

/** Environment added to the child's for every git invocation. */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
};

/** The argv after `git` that lists every config key (runs nothing). */
export const LIST_KEYS_ARGV: readonly string[] = [
  "--no-pager",
  ...withC(["core.fsmonitor=false"]),
  "config",
  "--list",
  "--name-only",
  "-z",
];

const DRIVER_KEY =
  /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|required|textconv|command|driver)$/s;

const DRIVER_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  filter: ["clean", "smudge", "process", "required"],
  diff: ["textconv", "command"],
  merge: ["driver"],
};

function withC(pairs: readonly string[]): string[] {
  return pairs.flatMap((p) => ["-c", p]);
}

/**
 * The `-c` overrides for the config keys `git config --list --name-only
 * -z` printed, plus the fixed ones; a driver name git cannot take in a
 * `-c` refuses the call.
 *
 * @param listed The NUL-separated key list.
 * @returns The `-c key=value` arguments, or the refusal.
 */
export function neutralisingArgs(
  listed: string,
): Result<string[], ToolFailure> {
  const pairs = [...FIXED_OVERRIDES];
  const seen = new Set<string>();
  for (const key of listed.split("\0")) {
    const m = DRIVER_KEY.exec(key);
    if (m === null) continue;
    const [, section = "", driver = "", variable = ""] = m;
    if (!(DRIVER_VARIABLES[section] ?? []).includes(variable)) continue;
    if (/[=\r\n]/.test(driver)) {
      return err({
        kind: "refused",
        reason: "policy",
        message:
          `Refusing to run git: the config names a ${section} driver git cannot switch off (a '=' or a line break in its name)`,
      });
    }
    const name = `${section}.${driver}`;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const v of DRIVER_VARIABLES[section] ?? []) {
      pairs.push(`${name}.${v}=${v === "required" ? "false" : ""}`);
    }
  }
  return ok(withC(pairs));
}

/** What {@linkcode runGit} runs. */
export interface GitRun {
  /** The argv after `git` and the overrides (subcommand first). */
  args: readonly string[];
  /** Real working directory. */
  cwd: string;
  /** Timeout of each of the two spawns, in milliseconds. */
  timeoutMs: number;
  /** Summary label, e.g. `git status`. */
  label: string;
  /** Flags placed before every override (e.g. `--no-optional-locks`). */
  leading?: readonly string[];
}

const NO_GIT = "needs git on the host PATH";

/**
 * Lists the config keys, then runs `git <leading> <overrides> <args>` in
 * a confined environment (see the module doc). A failed listing is
 * returned as git's own result; a truncated one refuses.
 *
 * @param host The effects.
 * @param run What to run.
 * @param ctx The tool context.
 * @returns The process result, or the failure.
 */
export async function runGit(
  host: ToolEffects,
  run: GitRun,
  ctx: ToolRunContext,
): Promise<ToolRunResult> {
  const confined = await confinedEnv(host, {
    plan: ctx.fs.plan,
    permissions: ctx.permissions,
  });
  const spec = {
    program: "git",
    cwd: run.cwd,
    env: { ...confined.env, ...GIT_ENV },
    timeoutMs: run.timeoutMs,
    notFound: notOnPath(NO_GIT, confined.dropped, "unavailable"),
  };
  const listing = await spawnProcess(host, {
    ...spec,
    args: LIST_KEYS_ARGV,
    label: "git config --list",
  }, ctx);
  if (!listing.ok) return listing;
  const max = ctx.limits.processOutputBytes;
  if (listing.value.exitCode !== 0) {
    return processResult(listing.value, { label: "git config --list" }, max);
  }
  if (listing.value.stdoutTruncated) {
    return {
      ok: false,
      error: {
        kind: "failed",
        message:
          `Refusing to run git: its config keys exceed the ${max}-byte output cap, so its drivers cannot all be switched off`,
      },
    };
  }
  const overrides = neutralisingArgs(listing.value.stdout);
  if (!overrides.ok) return overrides;
  return await runProcess(host, {
    ...spec,
    args: [...(run.leading ?? []), ...overrides.value, ...run.args],
    label: run.label,
  }, ctx);
}
