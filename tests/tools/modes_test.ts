/**
 * The mode matrix through the real pipeline,
 * with fake governed tools registered only here.
 */
import assert from "node:assert/strict";
import { builtinTools } from "../../tools/builtin/all.ts";
import { type ChatMode, createModePolicy } from "../../tools/modes.ts";
import { createToolRegistry } from "../../tools/registry_impl.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
  ToolCall,
  ToolOutcome,
  TurnPolicy,
} from "../../tools/registry.ts";
import {
  fakeTool,
  governedFakes,
  grantAll,
  makeContext,
  messageOf,
  recordingHost,
} from "./_helpers.ts";

const MODES: ChatMode[] = ["ask", "plan", "accept-edits", "auto"];
const READ_ONLY = ["read_file", "list_directory", "git_status"];

function setUp() {
  const fakes = governedFakes();
  const gated = fakeTool("fake_commit", {
    spawnsProcess: true,
    requiresGateApproval: true,
  });
  const gateCalls: string[] = [];
  const registry = createToolRegistry({
    tools: [
      ...builtinTools(),
      fakes.write,
      fakes.run,
      fakes.fetch,
      fakes.notify,
      gated,
    ],
    host: recordingHost().host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    guardrails: {
      allowedCommands: ["npm test"],
      allowedDomains: ["example.com"],
    },
    gate: (r) => {
      gateCalls.push(r.toolId);
      return Promise.resolve(true);
    },
  });
  const granted = [
    ...READ_ONLY,
    "fake_write",
    "fake_run",
    "fake_http",
    "fake_notify",
    "fake_commit",
  ];
  return { registry, fakes, granted, gateCalls };
}

const CALLS: Record<string, ToolCall> = {
  fs_write: { id: "c", name: "fake_write", args: { path: "notes.md" } },
  process: { id: "c", name: "fake_run", args: { command: "npm test" } },
  egress: {
    id: "c",
    name: "fake_http",
    args: { url: "https://example.com/a?q=secret" },
  },
  os: { id: "c", name: "fake_notify", args: {} },
};

function approverOf(answer: ApprovalDecision) {
  const asked: Omit<ApprovalRequest, "signal">[] = [];
  const approver = (r: ApprovalRequest): Promise<ApprovalDecision> => {
    const { signal: _signal, ...rest } = r;
    asked.push(rest);
    return Promise.resolve(answer);
  };
  return { approver, asked };
}

async function run(
  registry: ReturnType<typeof setUp>["registry"],
  granted: string[],
  policy: TurnPolicy | undefined,
  call: ToolCall,
  interactive: boolean,
): Promise<{ outcome: ToolOutcome; approvals: number }> {
  const t = makeContext({
    granted,
    interactive,
    ...(policy === undefined ? {} : { policy }),
  });
  const outcome = await registry.dispatch(call, t.ctx);
  return { outcome, approvals: t.approvals.length };
}

Deno.test("mode matrix: advertised tools per mode", () => {
  const { registry, granted } = setUp();
  for (const mode of MODES) {
    const modes = createModePolicy({
      mode,
      interactive: true,
      isReadOnly: registry.isReadOnly,
    });
    const names = registry.advertise(granted, modes.policy).map((d) => d.name);
    const want = mode === "plan" ? READ_ONLY : granted;
    assert.deepEqual(names, want, mode);
  }
});

Deno.test("mode matrix: decisions per mode × action × interactivity", async (t) => {
  const { registry, granted, fakes } = setUp();
  for (const mode of MODES) {
    for (const interactive of [true, false]) {
      for (const [action, call] of Object.entries(CALLS)) {
        await t.step(
          `${mode} ${action} interactive=${interactive}`,
          async () => {
            const { approver, asked } = approverOf("once");
            const modes = createModePolicy({
              mode,
              interactive,
              approver,
              isReadOnly: registry.isReadOnly,
            });
            const before = Object.values(fakes).reduce(
              (n, f) => n + f.runs.length,
              0,
            );
            const { outcome, approvals } = await run(
              registry,
              granted,
              modes.policy,
              call,
              interactive,
            );
            const ran = Object.values(fakes).reduce((n, f) =>
              n + f.runs.length, 0) - before;
            const asks = interactive &&
              (mode === "ask" ||
                (mode === "accept-edits" && action !== "fs_write"));
            const refusedHere = !interactive &&
              (mode === "ask" ||
                (mode === "accept-edits" && action !== "fs_write"));
            if (mode === "plan") {
              assert.equal(outcome.kind, "fatal");
              assert.equal(
                messageOf(outcome),
                `Tool call denied: ${call.name} is not allowed in plan mode (read-only)`,
              );
              assert.deepEqual([approvals, asked.length, ran], [0, 0, 0]);
            } else if (refusedHere) {
              assert.equal(
                messageOf(outcome),
                `Tool call denied (no_approval_hook): ${call.name} needs approval in ${mode} mode and there is no terminal to ask on`,
              );
              assert.deepEqual([approvals, asked.length, ran], [0, 0, 0]);
            } else if (asks) {
              assert.equal(outcome.kind, "ok");
              assert.deepEqual([approvals, asked.length, ran], [1, 1, 1]);
            } else {
              assert.equal(
                outcome.kind,
                "ok",
                "auto, and accept-edits' writes, run what the guardrails allow",
              );
              assert.deepEqual([approvals, asked.length, ran], [0, 0, 1]);
            }
            if (outcome.kind === "fatal") {
              assert.equal(outcome.error.code, "tool_denied");
              assert.equal(outcome.outcome, "denied");
            }
          },
        );
      }
    }
  }
  await t.step("read-only tools are never asked about", async () => {
    for (const mode of MODES) {
      const { approver, asked } = approverOf("reject");
      const modes = createModePolicy({ mode, interactive: true, approver });
      const { outcome } = await run(registry, granted, modes.policy, {
        id: "c",
        name: "read_file",
        args: { path: "../x" },
      }, true);
      assert.equal(outcome.kind, "feedback", "the jail answers, not the mode");
      assert.equal(asked.length, 0);
    }
  });
});

Deno.test("approval previews are secret-free and cacheability follows the preview", async () => {
  const { registry, granted } = setUp();
  const { approver, asked } = approverOf("once");
  const modes = createModePolicy({ mode: "ask", interactive: true, approver });
  for (const call of Object.values(CALLS)) {
    await run(registry, granted, modes.policy, call, true);
  }
  assert.deepEqual(asked, [
    {
      toolId: "fake_write",
      action: "fs_write",
      preview: { path: "notes.md" },
      cacheable: true,
      protectedPath: false,
    },
    {
      toolId: "fake_run",
      action: "process",
      preview: { command: "npm test" },
      cacheable: true,
      protectedPath: false,
    },
    {
      toolId: "fake_http",
      action: "egress",
      preview: { host: "example.com" },
      url: "https://example.com/a?q=secret",
      cacheable: true,
      protectedPath: false,
    },
    {
      toolId: "fake_notify",
      action: "os",
      preview: {},
      cacheable: false,
      protectedPath: false,
    },
  ]);
});

Deno.test("protected-path writes always ask and are never auto-approved", async (t) => {
  const { registry, granted, fakes } = setUp();
  const call: ToolCall = {
    id: "c",
    name: "fake_write",
    args: { path: ".git/hooks/pre-commit" },
  };
  await t.step("auto, interactive: asks, not cacheable", async () => {
    const { approver, asked } = approverOf("always");
    const modes = createModePolicy({
      mode: "auto",
      interactive: true,
      approver,
    });
    const first = await run(registry, granted, modes.policy, call, true);
    const second = await run(registry, granted, modes.policy, call, true);
    assert.equal(first.outcome.kind, "ok");
    assert.equal(
      second.approvals,
      1,
      "an always answer is not cached for protected paths",
    );
    assert.equal(asked.length, 2);
    assert.equal(asked[0]?.cacheable, false);
  });
  await t.step("auto, non-interactive: denied", async () => {
    const runs = fakes.write.runs.length;
    const modes = createModePolicy({ mode: "auto", interactive: false });
    const { outcome } = await run(registry, granted, modes.policy, call, false);
    assert.equal(
      messageOf(outcome),
      "Tool call denied: a protected-path write needs interactive approval",
    );
    assert.equal(fakes.write.runs.length, runs);
  });
  await t.step("no turn policy: refused", async () => {
    const { outcome } = await run(registry, granted, undefined, call, false);
    assert.equal(outcome.kind, "fatal");
    assert.match(messageOf(outcome), /protected-write floor/);
  });
});

Deno.test("the always cache: per tool id, never for blank previews, reset clears", async () => {
  const { registry, granted } = setUp();
  const { approver, asked } = approverOf("always");
  const modes = createModePolicy({ mode: "ask", interactive: true, approver });
  const write = CALLS["fs_write"] as ToolCall;
  const notify = CALLS["os"] as ToolCall;
  assert.equal(
    (await run(registry, granted, modes.policy, write, true)).approvals,
    1,
  );
  assert.equal(
    (await run(registry, granted, modes.policy, write, true)).approvals,
    0,
    "cached",
  );
  assert.equal(
    (await run(
      registry,
      granted,
      modes.policy,
      CALLS["process"] as ToolCall,
      true,
    )).approvals,
    1,
    "per tool id",
  );
  assert.equal(
    (await run(registry, granted, modes.policy, notify, true)).approvals,
    1,
  );
  assert.equal(
    (await run(registry, granted, modes.policy, notify, true)).approvals,
    1,
    "blank preview never cached",
  );
  modes.resetCache();
  assert.equal(
    (await run(registry, granted, modes.policy, write, true)).approvals,
    1,
    "cache cleared",
  );
  modes.mode = "auto";
  modes.reset();
  assert.equal(modes.mode, "ask");
  const after = await run(registry, granted, modes.policy, write, true);
  assert.equal(after.approvals, 1, "reset forgot the always answer");
  modes.mode = "plan";
  modes.mode = "ask";
  assert.equal(
    (await run(registry, granted, modes.policy, write, true)).approvals,
    1,
    "a mode change forgets always answers",
  );
  assert.equal(asked.length, 7);
});

Deno.test("a once answer caches nothing", async () => {
  const { registry, granted } = setUp();
  const { approver } = approverOf("once");
  const modes = createModePolicy({ mode: "ask", interactive: true, approver });
  for (let i = 0; i < 3; i++) {
    assert.equal(
      (await run(
        registry,
        granted,
        modes.policy,
        CALLS["fs_write"] as ToolCall,
        true,
      )).approvals,
      1,
    );
  }
});

Deno.test("the mode policy object is bound to its mode (snapshot semantics)", () => {
  const modes = createModePolicy({ mode: "plan", interactive: false });
  const askPolicy = modes.policy;
  assert.equal(modes.policy, askPolicy, "stable while the mode is unchanged");
  modes.mode = "auto";
  assert.notEqual(modes.policy, askPolicy);
  assert.equal(
    askPolicy.advertise?.("fake_write"),
    false,
    "the old snapshot keeps its mode",
  );
  assert.equal(modes.policy.advertise?.("fake_write"), true);
  assert.throws(() => {
    modes.mode = "yolo" as ChatMode;
  }, RangeError);
});

Deno.test("approval failures are fatal tool_denied; abort cancels", async (t) => {
  const { registry, granted, fakes } = setUp();
  const call = CALLS["fs_write"] as ToolCall;
  const rows: [string, TurnPolicy, RegExp][] = [
    ["no hook", { advertise: () => true }, /\(no_approval_hook\)/],
    [
      "hook throws",
      { confirm: () => Promise.reject(new Error("tty gone")) },
      /\(approval_error\)/,
    ],
    [
      "user rejects",
      { confirm: () => Promise.resolve("reject") },
      /\(user_rejected\)/,
    ],
    ["decide throws", {
      decide: () => {
        throw new Error("x");
      },
    }, /\(approval_error\)/],
  ];
  for (const [label, policy, why] of rows) {
    await t.step(label, async () => {
      const { outcome } = await run(registry, granted, policy, call, true);
      assert.equal(outcome.kind, "fatal");
      if (outcome.kind === "fatal") {
        assert.equal(outcome.error.code, "tool_denied");
        assert.match(outcome.error.message, why);
      }
    });
  }
  await t.step("approval_requested precedes confirm", async () => {
    const order: string[] = [];
    const c = makeContext({
      granted,
      interactive: true,
      emitApproval: () => order.push("emit"),
      policy: {
        confirm: () => {
          order.push("confirm");
          return Promise.resolve("once");
        },
      },
    });
    await registry.dispatch(call, c.ctx);
    assert.deepEqual(order, ["emit", "confirm"]);
  });
  await t.step("abort while prompting cancels at once", async () => {
    const c = makeContext({
      granted,
      interactive: true,
      policy: { confirm: () => new Promise<ApprovalDecision>(() => {}) },
    });
    const pending = registry.dispatch(call, c.ctx);
    await Promise.resolve();
    c.controller.abort();
    const o = await pending;
    assert.equal(o.kind === "fatal" && o.outcome, "cancelled");
  });
  await t.step("an approval resolving after abort still cancels", async () => {
    const c = makeContext({ granted, interactive: true });
    c.ctx.policy = {
      confirm: () => {
        c.controller.abort();
        return Promise.resolve("once");
      },
    };
    const o = await registry.dispatch(call, c.ctx);
    assert.equal(o.kind === "fatal" && o.outcome, "cancelled");
  });
  await t.step(
    "no turn policy is ask with no approver: every governed action is refused",
    async () => {
      const runs = () =>
        Object.values(fakes).reduce((n, f) => n + f.runs.length, 0);
      const before = runs();
      for (const interactive of [false, true]) {
        for (const [action, governed] of Object.entries(CALLS)) {
          const { outcome, approvals } = await run(
            registry,
            granted,
            undefined,
            governed,
            interactive,
          );
          assert.equal(outcome.kind, "fatal", action);
          assert.match(messageOf(outcome), /\(no_approval_hook\)/, action);
          assert.equal(approvals, 0, action);
        }
      }
      assert.equal(runs(), before, "no governed effect ran");
    },
  );
});

Deno.test("the gate of a gated tool: per call, never in plan or non-interactive; asked once in ask", async () => {
  const { registry, granted, gateCalls } = setUp();
  const call: ToolCall = { id: "c", name: "fake_commit", args: {} };
  /** One `fake_commit` call under `options`' mode policy. */
  const commit = async (options: Parameters<typeof createModePolicy>[0]) =>
    (await run(
      registry,
      granted,
      createModePolicy(options).policy,
      call,
      options.interactive,
    )).outcome;
  const auto = { mode: "auto", interactive: true } as const;
  assert.equal((await commit(auto)).kind, "ok");
  assert.equal((await commit(auto)).kind, "ok");
  assert.deepEqual(
    gateCalls,
    ["fake_commit", "fake_commit"],
    "asked every call, even in auto",
  );
  const nonInteractive = await commit({ mode: "auto", interactive: false });
  assert.match(messageOf(nonInteractive), /\(gate_required\)/);
  const plan = await commit({ mode: "plan", interactive: true });
  assert.match(messageOf(plan), /\(gate_required\)/);
  assert.equal(gateCalls.length, 2);
  const { approver, asked } = approverOf("once");
  const ask = await commit({ mode: "ask", interactive: true, approver });
  assert.equal(ask.kind, "ok");
  assert.deepEqual(
    [gateCalls.length, asked.length],
    [3, 0],
    "the gate asks; the approval does not ask again",
  );
});
