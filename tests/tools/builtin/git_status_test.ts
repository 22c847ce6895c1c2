import assert from "node:assert/strict";
import { builtinTools } from "../../../tools/builtin/all.ts";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "../../../tools/deno/effects.ts";
import type { ProcessResult } from "../../../tools/builtin/git_status.ts";
import { gitArgv } from "../../../tools/builtin/git_status.ts";
import { createToolRegistry } from "../../../tools/registry_impl.ts";
import type { ToolOutcome } from "../../../tools/registry.ts";
import { makeContext, messageOf, tempDir } from "../_helpers.ts";

async function hasGit(): Promise<boolean> {
  try {
    const out = await new Deno.Command("git", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=T",
      "-c",
      "user.email=t@example.com",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    cwd,
    stdout: "null",
    stderr: "null",
  }).output();
  assert.ok(out.success, `git ${args.join(" ")}`);
}

async function gitStatus(
  ws: string,
  args: Record<string, unknown>,
  config?: string[],
): Promise<ToolOutcome> {
  const registry = createToolRegistry({
    tools: builtinTools(),
    host: createDenoToolEffects(),
    context: { workingDir: ws, fsScopeTier: "sandboxed" },
    permissions: createDenoPermissionQuery(),
    ...(config === undefined
      ? {}
      : { toolConfig: { git_status: { args: config } } }),
  });
  return await registry.dispatch(
    { id: "c", name: "git_status", args },
    makeContext().ctx,
  );
}

function processOf(o: ToolOutcome): ProcessResult {
  assert.equal(o.kind, "ok", messageOf(o));
  return JSON.parse(o.kind === "ok" ? o.modelResult : "{}") as ProcessResult;
}

Deno.test("gitArgv() hardens every subcommand", () => {
  assert.deepEqual(gitArgv({}), ["status", "--ignore-submodules=all"]);
  assert.deepEqual(gitArgv({ command: "diff", args: ["--stat"] }), [
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=all",
    "--stat",
  ]);
});

Deno.test({
  name: "git_status runs status, log and diff in a real repository",
  ignore: !(await hasGit()),
  async fn() {
    await using dir = await tempDir();
    await git(dir.path, "init", "-q");
    await Deno.writeTextFile(`${dir.path}/a.txt`, "one\n");
    await git(dir.path, "add", "a.txt");
    await git(dir.path, "commit", "-q", "-m", "first commit");
    await Deno.writeTextFile(`${dir.path}/a.txt`, "two\n");
    await Deno.writeTextFile(`${dir.path}/new.txt`, "n\n");

    const status = processOf(await gitStatus(dir.path, {}, ["--porcelain"]));
    assert.equal(status.exitCode, 0);
    assert.equal(status.stdout, " M a.txt\n?? new.txt\n");

    const log = processOf(
      await gitStatus(dir.path, { command: "log" }, ["--format=%s"]),
    );
    assert.equal(log.stdout, "first commit\n");

    const diff = processOf(await gitStatus(dir.path, { command: "diff" }));
    assert.match(diff.stdout, /-one\n\+two/);
    assert.equal(typeof diff.durationMs, "number");
  },
});

Deno.test({
  name: "git_status outside a repository reports git's exit code",
  ignore: !(await hasGit()),
  async fn() {
    await using dir = await tempDir();
    const o = await gitStatus(dir.path, {}, []);
    const r = processOf(o);
    assert.notEqual(r.exitCode, 0);
    assert.match(r.stderr, /not a git repository/i);
    assert.match(o.summary, /^git status exited \d+$/);
  },
});
