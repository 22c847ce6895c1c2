/**
 * `git_commit` behind the per-call gate: asked in every
 * mode that shows it (auto included), never cached, denied
 * `gate_required` when non-interactive, without a gate or while hidden
 * (ask, plan); commits for real in a temp repository.
 */
import assert from "node:assert/strict";
import type { GateRequest } from "../../../tools/approval.ts";
import { type ChatMode, createModePolicy } from "../../../tools/modes.ts";
import { builtinRig, makeContext, messageOf, tempDir } from "../_helpers.ts";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

async function repo(path: string): Promise<void> {
  await git(path, "init", "-q");
  await git(path, "config", "user.email", "t@example.com");
  await git(path, "config", "user.name", "Test");
  await git(path, "config", "commit.gpgsign", "false");
  await Deno.writeTextFile(`${path}/a.txt`, "one\n");
  await git(path, "add", "a.txt");
  await git(path, "commit", "-q", "-m", "initial");
}

function rig(
  workingDir: string,
  options: { gate?: boolean | "none"; mode?: ChatMode; interactive?: boolean } =
    {},
) {
  const gateCalls: Omit<GateRequest, "signal">[] = [];
  const answer = options.gate ?? true;
  const { registry, calls, effects } = builtinRig({
    workingDir,
    gate: answer === "none" ? undefined : (r: GateRequest) => {
      const { signal: _signal, ...rest } = r;
      gateCalls.push(rest);
      return Promise.resolve(answer);
    },
  });
  const interactive = options.interactive ?? true;
  const modes = createModePolicy({
    mode: options.mode ?? "auto",
    interactive,
    isReadOnly: registry.isReadOnly,
    approver: () => Promise.resolve("once"),
  });
  async function commit(args: Record<string, unknown>) {
    const t = makeContext({
      granted: ["git_commit"],
      interactive,
      policy: modes.policy,
    });
    const outcome = await registry.dispatch({
      id: "c",
      name: "git_commit",
      args,
    }, t.ctx);
    return { outcome, approvals: t.approvals.length };
  }
  return { registry, modes, commit, gateCalls, calls, effects };
}

Deno.test("git_commit asks the gate on every call, even in auto, then commits the given files", async () => {
  await using dir = await tempDir();
  await repo(dir.path);
  const r = rig(dir.path);
  await Deno.writeTextFile(`${dir.path}/a.txt`, "two\n");
  const first = await r.commit({ message: "--amend", files: ["a.txt"] });
  assert.equal(first.outcome.kind, "ok", messageOf(first.outcome));
  assert.equal(first.approvals, 0, "not a governed action: no approval prompt");
  assert.equal(
    (await git(dir.path, "log", "-1", "--format=%s")).trim(),
    "--amend",
  );
  assert.equal(
    (await git(dir.path, "rev-list", "--count", "HEAD")).trim(),
    "2",
    "a new commit, not an amend",
  );
  await Deno.writeTextFile(`${dir.path}/a.txt`, "three\n");
  const second = await r.commit({ message: "again", files: ["a.txt"] });
  assert.equal(second.outcome.kind, "ok");
  assert.deepEqual(r.gateCalls, [
    { toolId: "git_commit", details: { message: "--amend", files: ["a.txt"] } },
    { toolId: "git_commit", details: { message: "again", files: ["a.txt"] } },
  ]);
  assert.match(
    r.calls.find((c) => c.op === "spawn" && / commit /.test(c.target))
      ?.target ?? "",
    /^git .*commit --no-verify --no-gpg-sign -m --amend -- a\.txt$/,
  );
});

Deno.test("git_commit never stages: untracked files stay out", async () => {
  await using dir = await tempDir();
  await repo(dir.path);
  await Deno.writeTextFile(`${dir.path}/new.txt`, "x\n");
  const r = rig(dir.path);
  const { outcome } = await r.commit({ message: "nothing staged" });
  assert.equal(outcome.kind, "ok");
  if (outcome.kind === "ok") {
    assert.equal(JSON.parse(outcome.modelResult).exitCode, 1);
  }
  assert.match(await git(dir.path, "status", "--porcelain"), /\?\? new\.txt/);
});

Deno.test("git_commit gate denials: the host runs nothing", async (t) => {
  await using dir = await tempDir();
  const rows: [string, Parameters<typeof rig>[1], RegExp, number][] = [
    ["the person says no", { gate: false }, /user_rejected/, 1],
    ["non-interactive auto", { interactive: false }, /gate_required/, 0],
    ["no gate callback", { gate: "none" }, /gate_required/, 0],
    [
      "ask: the person says no",
      { mode: "ask", gate: false },
      /user_rejected/,
      1,
    ],
    ["plan hides it", { mode: "plan" }, /gate_required/, 0],
  ];
  for (const [name, options, why, asked] of rows) {
    await t.step(name, async () => {
      const r = rig(dir.path, options);
      const { outcome } = await r.commit({ message: "m" });
      assert.equal(outcome.kind, "fatal");
      if (outcome.kind === "fatal") {
        assert.equal(outcome.error.code, "tool_denied");
      }
      assert.match(messageOf(outcome), why);
      assert.equal(r.gateCalls.length, asked);
      assert.deepEqual(r.effects(), []);
    });
  }
});

Deno.test("git_commit is advertised in every mode but plan", () => {
  const r = rig("/ws");
  for (const mode of ["ask", "plan", "accept-edits", "auto"] as const) {
    r.modes.mode = mode;
    const names = r.registry.advertise(["git_commit"], r.modes.policy).map((
      d,
    ) => d.name);
    assert.deepEqual(
      names,
      mode === "plan" ? [] : ["git_commit"],
      mode,
    );
  }
});

Deno.test("git_commit refuses flag-like and out-of-scope files before git runs", async (t) => {
  await using dir = await tempDir();
  const rows: [string, Record<string, unknown>, RegExp][] = [
    [
      "a flag as a file",
      { message: "m", files: ["--amend"] },
      /may not start with '-'/,
    ],
    ["an escaping file", { message: "m", files: ["../x"] }, /escapes/],
    ["a sensitive file", { message: "m", files: [".env"] }, /sensitive/],
  ];
  for (const [name, args, why] of rows) {
    await t.step(name, async () => {
      const r = rig(dir.path);
      const { outcome } = await r.commit(args);
      assert.match(messageOf(outcome), why);
      assert.deepEqual(r.effects(), []);
    });
  }
});
