/**
 * The registry's user paths: `runUserCommand` (a `!`
 * command through the `run_command` policy, allowlist before approval,
 * one-off grant, never cached) and `readUserFile` (an `@path` through
 * `read_file`'s capability: jail, floors, binary refusal). Refusals prove
 * the host saw no effect.
 */
import assert from "node:assert/strict";
import type { ToolGuardrails } from "../../../tools/tool.ts";
import { type ChatMode, createModePolicy } from "../../../tools/modes.ts";
import type { ToolPermission } from "../../../tools/sandbox/permission_query.ts";
import type {
  ApprovalRequest,
  UserCommandContext,
} from "../../../tools/registry.ts";
import { builtinRig, effectsOf, tempDir } from "../_helpers.ts";

interface Rig {
  workingDir: string;
  guardrails?: ToolGuardrails;
  permissions?: (p: ToolPermission) => "granted" | "prompt" | "denied";
  config?: Record<string, unknown>;
}

function rig(options: Rig) {
  return builtinRig({
    workingDir: options.workingDir,
    permissions: options.permissions,
    guardrails: options.guardrails,
    toolConfig: options.config && { run_command: options.config },
  });
}

function context(
  mode: ChatMode | undefined,
  options: {
    interactive?: boolean;
    answer?: "once" | "always" | "reject";
    admit?: UserCommandContext["admit"];
  } = {},
) {
  const asked: Omit<ApprovalRequest, "signal">[] = [];
  const events: string[] = [];
  const controller = new AbortController();
  const interactive = options.interactive ?? true;
  const modes = createModePolicy({
    mode: mode ?? "ask",
    interactive,
    approver: (r) => {
      const { signal: _s, ...rest } = r;
      asked.push(rest);
      return Promise.resolve(options.answer ?? "once");
    },
  });
  let admits = 0;
  const ctx: UserCommandContext = {
    signal: controller.signal,
    ...(mode === undefined ? {} : { policy: modes.policy }),
    interactive,
    emitApproval: (r) => void events.push(`${r.toolId}:${r.action}`),
    admit: options.admit ?? (() => {
      admits++;
      return { allow: true };
    }),
  };
  return { ctx, asked, events, modes, controller, admits: () => admits };
}

Deno.test("runUserCommand() checks the allowlist before approval, in every mode", async (t) => {
  await using dir = await tempDir();
  for (const mode of ["ask", "plan", "accept-edits", "auto"] as const) {
    await t.step(mode, async () => {
      const { registry, calls } = rig({
        workingDir: dir.path,
        guardrails: { allowedCommands: ["echo ok"] },
      });
      const c = context(mode);
      const out = await registry.runUserCommand(
        { command: "echo", args: ["nope"] },
        c.ctx,
      );
      assert.deepEqual(out, {
        kind: "denied",
        allowlist: true,
        message: "the command is not in the allowlist",
      });
      assert.equal(c.asked.length, 0);
      assert.deepEqual(c.events, []);
      assert.equal(c.admits(), 0);
      assert.deepEqual(effectsOf(calls), []);
    });
  }
  await t.step("an empty allowlist denies everything", async () => {
    const { registry, calls } = rig({ workingDir: dir.path });
    const out = await registry.runUserCommand(
      { command: "echo", args: [] },
      context("auto").ctx,
    );
    assert.equal(out.kind === "denied" && out.allowlist, true);
    assert.deepEqual(effectsOf(calls), []);
  });
  await t.step("one token with a space is not two (no shell)", async () => {
    const { registry, calls } = rig({
      workingDir: dir.path,
      guardrails: { allowedCommands: ["echo ok"] },
    });
    const out = await registry.runUserCommand(
      { command: "echo ok", args: [] },
      context("auto").ctx,
    );
    assert.equal(out.kind, "failed");
    assert.deepEqual(effectsOf(calls), []);
  });
});

Deno.test("runUserCommand() mode matrix: plan denies, ask and accept-edits ask (never cacheable), auto runs", async (t) => {
  await using dir = await tempDir();
  const guardrails = { allowedCommands: ["echo hello"] };
  for (const mode of ["plan"] as const) {
    await t.step(`${mode} denies without asking`, async () => {
      const { registry, calls } = rig({ workingDir: dir.path, guardrails });
      const c = context(mode);
      const out = await registry.runUserCommand(
        { command: "echo", args: ["hello"] },
        c.ctx,
      );
      assert.equal(out.kind, "denied");
      if (out.kind === "denied") {
        assert.equal(out.allowlist, false);
        assert.match(out.message, new RegExp(`${mode} mode`));
      }
      assert.equal(c.asked.length, 0);
      assert.deepEqual(effectsOf(calls), []);
    });
  }
  for (const mode of ["ask", "accept-edits"] as const) {
    await t.step(`${mode} asks without [a], runs on once`, async () => {
      const { registry } = rig({ workingDir: dir.path, guardrails });
      const c = context(mode);
      const out = await registry.runUserCommand(
        { command: "echo", args: ["hello"] },
        c.ctx,
      );
      assert.deepEqual(out, {
        kind: "ran",
        exitCode: 0,
        stdout: "hello\n",
        stderr: "",
      });
      assert.deepEqual(c.asked, [{
        toolId: "run_command",
        action: "process",
        preview: { command: "echo hello" },
        cacheable: false,
        protectedPath: false,
      }]);
      assert.deepEqual(c.events, ["run_command:process"]);
      assert.equal(c.admits(), 1);
    });
  }
  await t.step("accept-edits: an always answer is not remembered", async () => {
    const { registry } = rig({ workingDir: dir.path, guardrails });
    const c = context("accept-edits", { answer: "always" });
    await registry.runUserCommand({ command: "echo", args: ["hello"] }, c.ctx);
    await registry.runUserCommand({ command: "echo", args: ["hello"] }, c.ctx);
    assert.equal(c.asked.length, 2);
    // …and grants the model nothing: its own run_command call still asks.
    const check = {
      toolId: "run_command",
      action: "process" as const,
      preview: { command: "echo hello" },
      cacheable: true,
      protectedPath: false,
      signal: new AbortController().signal,
    };
    assert.equal(c.modes.policy.decide?.(check), undefined);
  });
  await t.step("accept-edits: a rejection is a denial", async () => {
    const { registry, calls } = rig({ workingDir: dir.path, guardrails });
    const c = context("accept-edits", { answer: "reject" });
    const out = await registry.runUserCommand(
      { command: "echo", args: ["hello"] },
      c.ctx,
    );
    assert.equal(out.kind === "denied" && !out.allowlist, true);
    assert.match(out.kind === "denied" ? out.message : "", /user_rejected/);
    assert.deepEqual(effectsOf(calls), []);
  });
  await t.step(
    "auto runs without asking, non-zero exit is still ran",
    async () => {
      const { registry } = rig({
        workingDir: dir.path,
        guardrails: { allowedCommands: ["false"] },
      });
      const c = context("auto", { interactive: false });
      const out = await registry.runUserCommand(
        { command: "false", args: [] },
        c.ctx,
      );
      assert.equal(out.kind, "ran");
      assert.equal(out.kind === "ran" ? out.exitCode : -1, 1);
      assert.equal(c.asked.length, 0);
    },
  );
});

Deno.test("runUserCommand() admission, permissions and failures never throw", async (t) => {
  await using dir = await tempDir();
  const guardrails = { allowedCommands: ["echo hello", "no-such-program-x"] };
  await t.step("a refused admission runs nothing", async () => {
    const { registry, calls } = rig({ workingDir: dir.path, guardrails });
    const c = context("auto", {
      admit: () => ({
        allow: false,
        error: { code: "internal", message: "latched", retryable: false },
      }),
    });
    const out = await registry.runUserCommand(
      { command: "echo", args: ["hello"] },
      c.ctx,
    );
    assert.deepEqual(out, { kind: "failed", message: "latched" });
    assert.deepEqual(effectsOf(calls), []);
  });
  await t.step("a missing run permission names the flag", async () => {
    const { registry, calls } = rig({
      workingDir: dir.path,
      guardrails,
      permissions: (p) => p.name === "run" ? "prompt" : "granted",
    });
    const out = await registry.runUserCommand(
      { command: "echo", args: ["hello"] },
      context("auto").ctx,
    );
    assert.deepEqual(out, {
      kind: "failed",
      message:
        "Command unavailable: needs the Deno permission --allow-run=echo",
    });
    assert.deepEqual(effectsOf(calls), []);
  });
  await t.step("a program not on PATH fails", async () => {
    const { registry } = rig({ workingDir: dir.path, guardrails });
    const out = await registry.runUserCommand(
      { command: "no-such-program-x", args: [] },
      context("auto").ctx,
    );
    assert.equal(out.kind, "failed");
  });
  await t.step("abort before the spawn cancels", async () => {
    const { registry, calls } = rig({ workingDir: dir.path, guardrails });
    const c = context("auto");
    c.controller.abort();
    const out = await registry.runUserCommand(
      { command: "echo", args: ["hello"] },
      c.ctx,
    );
    assert.deepEqual(out, { kind: "cancelled" });
    assert.deepEqual(effectsOf(calls), []);
  });
  await t.step(
    "config-only values apply (timeout kills the command)",
    async () => {
      const { registry } = rig({
        workingDir: dir.path,
        guardrails: { allowedCommands: ["sleep 5"] },
        config: { timeoutMs: 50 },
      });
      const out = await registry.runUserCommand(
        { command: "sleep", args: ["5"] },
        context("auto").ctx,
      );
      assert.equal(out.kind, "failed");
      assert.match(out.kind === "failed" ? out.message : "", /timed out/);
    },
  );
});

Deno.test("readUserFile() reads through read_file's jail and floors", async (t) => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/notes.md`, "hello notes\n");
  await Deno.writeTextFile(`${dir.path}/.env`, "KEY=secret\n");
  await Deno.writeFile(`${dir.path}/bin.dat`, new Uint8Array([1, 0, 2]));
  await using outside = await tempDir();
  await Deno.writeTextFile(`${outside.path}/x.txt`, "outside");
  await Deno.symlink(`${outside.path}/x.txt`, `${dir.path}/link.txt`);
  const signal = new AbortController().signal;
  await t.step("a workspace file", async () => {
    const { registry } = rig({ workingDir: dir.path });
    assert.deepEqual(await registry.readUserFile("notes.md", signal), {
      ok: true,
      content: "hello notes\n",
      sizeBytes: 12,
    });
  });
  const refusals: [string, string, RegExp][] = [
    ["sensitive floor", ".env", /sensitive-read floor/],
    ["sensitive floor, folded", ".ENV.", /sensitive-read floor/],
    ["escape", "../x.txt", /escapes/],
    ["absolute outside", `${outside.path}/x.txt`, /escapes/],
    ["symlink out", "link.txt", /symlink/],
    ["binary", "bin.dat", /binary/],
    ["missing", "nope.md", /no such file/],
  ];
  for (const [name, path, why] of refusals) {
    await t.step(name, async () => {
      const { registry, calls } = rig({ workingDir: dir.path });
      const r = await registry.readUserFile(path, signal);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.match(r.message, why);
        assert.ok(!r.message.includes(dir.path) && !r.message.includes(path));
      }
      assert.ok(
        !calls.some((c) =>
          c.op === "readFile" && !c.target.startsWith(dir.path)
        ),
      );
    });
  }
  await t.step(
    "a missing read permission names the flag, reads nothing",
    async () => {
      const { registry, calls } = rig({
        workingDir: dir.path,
        permissions: (p) => p.name === "read" ? "prompt" : "granted",
      });
      const r = await registry.readUserFile("notes.md", signal);
      assert.deepEqual(r, {
        ok: false,
        message: `needs the Deno permission --allow-read=${dir.path}`,
      });
      assert.deepEqual(calls, []);
    },
  );
});
