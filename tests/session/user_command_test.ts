/**
 * `AgentSession.runUserCommand`: legal only when idle;
 * the `run_command` policy through the registry (allowlist before
 * approval, the mode decides); nothing enters the transcript or the
 * model's grant; abort and cancel; a latched persister fails closed; no
 * raw error escapes.
 */
import assert from "node:assert/strict";
import { SessionStateError } from "../../session/errors.ts";
import { EFFECT_IDENTITY_REFUSED } from "../../session/user_command.ts";
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../tools/deno/effects.ts";
import { createModePolicy } from "../../tools/modes.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import { createToolRegistry } from "../../tools/registry_impl.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { grantAll, tempDir } from "../tools/_helpers.ts";
import { AGENT, harness, reply, toolCall } from "./_harness.ts";

function registryIn(dir: string, allowed: string[]): ToolRegistry {
  return createToolRegistry({
    tools: allBuiltinTools(),
    host: createDenoToolEffects(),
    context: { workingDir: dir, fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: { allowedCommands: allowed },
  });
}

Deno.test("runUserCommand() runs an allowlisted command in auto; nothing reaches the transcript", async () => {
  await using dir = await tempDir();
  const h = harness({
    script: [reply("ok")],
    tools: registryIn(dir.path, ["echo hi"]),
  });
  h.session.setTurnPolicy(
    createModePolicy({ mode: "auto", interactive: false }).policy,
  );
  const before = h.types().length;
  const out = await h.session.runUserCommand("echo", ["hi"]);
  assert.deepEqual(out, {
    kind: "ran",
    exitCode: 0,
    stdout: "hi\n",
    stderr: "",
  });
  assert.equal(h.session.state, "idle");
  assert.equal(h.types().length, before, "no events without a prompt");
  assert.deepEqual(h.session.transcript.messages, []);
  assert.equal(h.session.turnCount, 0);
  // The model's grant is unchanged: run_command is not advertised.
  await h.session.sendMessage("hello");
  assert.deepEqual(
    h.provider.requests[0]?.tools?.map((t) => t.name),
    ["read_file", "list_directory"],
  );
});

Deno.test("runUserCommand() allowlist first, then the mode", async (t) => {
  await using dir = await tempDir();
  await t.step("unlisted ⇒ denied{allowlist:true}, even in auto", async () => {
    const h = harness({ script: [], tools: registryIn(dir.path, ["echo hi"]) });
    h.session.setTurnPolicy(
      createModePolicy({ mode: "auto", interactive: true }).policy,
    );
    const out = await h.session.runUserCommand("echo", ["bye"]);
    assert.equal(out.kind === "denied" && out.allowlist, true);
  });
  await t.step("ask ⇒ denied{allowlist:false}", async () => {
    const h = harness({ script: [], tools: registryIn(dir.path, ["echo hi"]) });
    h.session.setTurnPolicy(
      createModePolicy({ mode: "ask", interactive: true }).policy,
    );
    const out = await h.session.runUserCommand("echo", ["hi"]);
    assert.equal(out.kind, "denied");
    assert.equal(out.kind === "denied" && out.allowlist, false);
    assert.match(out.kind === "denied" ? out.message : "", /ask mode/);
  });
  await t.step("accept-edits ⇒ approval event, then the prompt", async () => {
    const h = harness({ script: [], tools: registryIn(dir.path, ["echo hi"]) });
    let cacheable: boolean | undefined;
    h.session.setTurnPolicy(
      createModePolicy({
        mode: "accept-edits",
        interactive: true,
        approver: (r) => {
          cacheable = r.cacheable;
          return Promise.resolve("reject");
        },
      }).policy,
    );
    const out = await h.session.runUserCommand("echo", ["hi"]);
    assert.equal(out.kind, "denied");
    assert.equal(cacheable, false);
    const approval = h.events.find((e) =>
      e.type === "agent:approval_requested"
    );
    assert.deepEqual(
      approval?.type === "agent:approval_requested"
        ? [approval.nodeId, approval.toolId, approval.preview]
        : [],
      [AGENT.id, "run_command", { command: "echo hi" }],
    );
  });
});

Deno.test("runUserCommand() is legal only when idle", async (t) => {
  await t.step("before start ⇒ not_started", async () => {
    const h = harness({ script: [], start: false });
    await assert.rejects(
      h.session.runUserCommand("ls", []),
      (e) => e instanceof SessionStateError && e.code === "not_started",
    );
  });
  await t.step("during a turn ⇒ not_active", async () => {
    let during: Promise<unknown> | undefined;
    const h = harness({
      script: [toolCall("c1", "read_file", { path: "a" }), reply("done")],
      tools: createFakeRegistry({
        read_file: () => {
          during = h.session.runUserCommand("ls", []).catch((e) => e);
          return "text";
        },
      }),
    });
    await h.session.sendMessage("go");
    const e = await during;
    assert.ok(e instanceof SessionStateError && e.code === "not_active");
  });
  await t.step("after cancel ⇒ not_active", async () => {
    const h = harness({ script: [] });
    h.session.cancel();
    await assert.rejects(
      h.session.runUserCommand("ls", []),
      (e) => e instanceof SessionStateError && e.code === "not_active",
    );
  });
});

Deno.test("runUserCommand() fails closed and lets no raw error escape", async (t) => {
  await using dir = await tempDir();
  const auto = createModePolicy({ mode: "auto", interactive: false }).policy;
  await t.step("a latched persister: effect identity refused", async () => {
    await Deno.writeTextFile(`${dir.path}/marker`, "");
    const h = harness({
      script: [],
      tools: registryIn(dir.path, ["rm marker"]),
      deps: {
        reserveEffectTurnKey: () => {
          throw new Error("The session store is latched");
        },
      },
    });
    h.session.setTurnPolicy(auto);
    const out = await h.session.runUserCommand("rm", ["marker"]);
    assert.deepEqual(out, { kind: "failed", message: EFFECT_IDENTITY_REFUSED });
    assert.equal(
      EFFECT_IDENTITY_REFUSED,
      "session effect identity could not be reserved",
    );
    await Deno.stat(`${dir.path}/marker`); // still there: nothing ran
    assert.equal(h.session.state, "idle");
  });
  await t.step("a refused preEgress runs nothing", async () => {
    const h = harness({
      script: [],
      tools: registryIn(dir.path, ["rm marker"]),
      deps: {
        preEgress: () => ({
          allow: false,
          error: {
            code: "internal",
            message: "store failed",
            retryable: false,
          },
        }),
      },
    });
    h.session.setTurnPolicy(auto);
    assert.deepEqual(await h.session.runUserCommand("rm", ["marker"]), {
      kind: "failed",
      message: "store failed",
    });
    await Deno.stat(`${dir.path}/marker`);
  });
  await t.step("a registry without user commands", async () => {
    const h = harness({ script: [], tools: createFakeRegistry({}) });
    const out = await h.session.runUserCommand("ls", []);
    assert.equal(out.kind, "failed");
  });
  await t.step("a registry that throws or answers nonsense", async () => {
    for (
      const run of [
        () => Promise.reject(new Error("boom /secret/path")),
        () => Promise.resolve({ kind: "ran" }),
      ]
    ) {
      const tools = {
        ...createFakeRegistry({}),
        runUserCommand: run,
      } as unknown as ToolRegistry;
      const h = harness({ script: [], tools });
      const out = await h.session.runUserCommand("ls", []);
      assert.equal(out.kind, "failed");
      assert.ok(!JSON.stringify(out).includes("secret"));
      assert.equal(h.session.state, "idle");
    }
  });
});

Deno.test("runUserCommand() abort kills the command; cancel ends the session", async (t) => {
  await using dir = await tempDir();
  const auto = createModePolicy({ mode: "auto", interactive: false }).policy;
  for (const how of ["abort", "cancel"] as const) {
    await t.step(how, async () => {
      const h = harness({
        script: [],
        tools: registryIn(dir.path, ["sleep 30"]),
      });
      h.session.setTurnPolicy(auto);
      const running = h.session.runUserCommand("sleep", ["30"]);
      assert.equal(h.session.state, "running");
      if (how === "abort") h.session.abort();
      else h.session.cancel();
      assert.deepEqual(await running, { kind: "cancelled" });
      assert.equal(h.session.state, how === "abort" ? "idle" : "cancelled");
    });
  }
});
