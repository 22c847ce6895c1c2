import assert from "node:assert/strict";
import { allBuiltinTools, builtinTools } from "../../tools/builtin/all.ts";
import { createDenoToolEffects } from "../../tools/deno/effects.ts";
import {
  type SpawnRequest,
  type ToolEffects,
  ToolEffectsError,
} from "../../tools/effects.ts";
import type {
  PermissionQuery,
  ToolPermission,
} from "../../tools/sandbox/permission_query.ts";
import {
  createToolRegistry,
  type ToolRegistryOptions,
} from "../../tools/registry_impl.ts";
import type {
  ToolDispatchContext,
  ToolOutcome,
  ToolRegistry,
} from "../../tools/registry.ts";
import type { ToolDefinition } from "../../tools/tool.ts";
import {
  type FakeArgs,
  fakeTool,
  grantAll,
  makeContext,
  messageOf,
  recordedDenoHost,
  recordingHost,
  tempDir,
} from "./_helpers.ts";

function registry(overrides: Partial<ToolRegistryOptions> = {}) {
  const recorded = recordingHost();
  const reg = createToolRegistry({
    tools: builtinTools(),
    host: recorded.host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" },
    permissions: grantAll,
    ...overrides,
  });
  return { reg, calls: recorded.calls };
}

/** Dispatches one call `c` of `name` (a fresh batch context by default). */
function dispatchOne(
  reg: ToolRegistry,
  name: string,
  args: unknown,
  ctx: ToolDispatchContext = makeContext().ctx,
): Promise<ToolOutcome> {
  return reg.dispatch({ id: "c", name, args }, ctx);
}

Deno.test("dispatch() feeds back an unknown tool without touching the host", async () => {
  const { reg, calls } = registry();
  for (const name of ["read_files", "READ_FILE", "__proto__", "toString"]) {
    const { ctx } = makeContext();
    const o = await reg.dispatch({ id: "c", name, args: { path: "a" } }, ctx);
    assert.equal(o.kind, "feedback", name);
    assert.equal(o.toolId, "unknown_tool");
    if (o.kind === "feedback") {
      assert.equal(o.code, "tool_failed");
      assert.equal(o.outcome, "error");
    }
  }
  assert.deepEqual(calls, []);
});

Deno.test("dispatch() feeds back invalid args as validation errors", async () => {
  const { reg, calls } = registry();
  const rows: [string, unknown, RegExp][] = [
    ["read_file", { path: 3 }, /path: Invalid input/],
    ["read_file", { path: "a", mode: "x" }, /mode: unknown key/],
    ["read_file", {}, /path/],
    ["read_file", [], /must be a JSON object/],
    ["list_directory", { path: ".", recursive: "yes" }, /recursive/],
    ["git_status", { command: "push" }, /command/],
    ["git_status", { args: ["--output=x"] }, /args: unknown key/],
  ];
  for (const [name, args, why] of rows) {
    const { ctx } = makeContext();
    const o = await reg.dispatch({ id: "c", name, args }, ctx);
    assert.equal(o.kind, "feedback", JSON.stringify(args));
    if (o.kind === "feedback") {
      assert.equal(o.code, "validation");
      assert.match(o.modelResult, why);
    }
  }
  assert.deepEqual(calls, []);
});

Deno.test("dispatch() denies ungranted and provider-executed calls, fatally", async () => {
  const { reg, calls } = registry();
  const { ctx } = makeContext({ granted: ["list_directory"] });
  const o = await dispatchOne(reg, "read_file", { path: "a" }, ctx);
  assert.equal(o.kind, "fatal");
  if (o.kind === "fatal") {
    assert.equal(o.error.code, "tool_denied");
    assert.match(o.error.message, /\(not_granted\)/);
    assert.equal(o.outcome, "denied");
  }
  const p = await reg.dispatch({
    id: "c",
    name: "read_file",
    args: { path: "a" },
    providerExecuted: true,
  }, makeContext().ctx);
  assert.equal(p.kind, "fatal");
  assert.match(messageOf(p), /provider_executed/);
  assert.deepEqual(calls, []);
});

Deno.test("dispatch() merges config-only values last and hides them from display", async () => {
  const spawned: SpawnRequest[] = [];
  const { host } = recordingHost();
  const fakeHost: ToolEffects = {
    ...host,
    readEnv: () => ({ PATH: "/usr/bin" }),
    spawn(request) {
      spawned.push(request);
      return Promise.resolve({
        exitCode: 0,
        stdout: "clean",
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 1,
        timedOut: false,
      });
    },
  };
  const { reg } = registry({
    host: fakeHost,
    toolConfig: { git_status: { args: ["--short"] } },
  });
  const o = await dispatchOne(reg, "git_status", { command: "status" });
  assert.equal(o.kind, "ok");
  assert.deepEqual(o.displayInput, { command: "status" });
  const req = spawned[1];
  assert.ok(req !== undefined);
  assert.equal(req.program, "git");
  assert.deepEqual(req.args.slice(-3), [
    "status",
    "--ignore-submodules=all",
    "--short",
  ]);
  assert.equal(req.env["PATH"], "/usr/bin");
  assert.equal(req.cwd, "/ws");
});

Deno.test("dispatch() refuses tainted args and redacts display input", async () => {
  const secret = "sk-live-abc123";
  const { reg, calls } = registry({ isSecret: (v) => v.includes(secret) });
  const o = await dispatchOne(reg, "read_file", {
    path: `notes-${secret}.txt`,
  });
  assert.equal(o.kind, "feedback");
  assert.ok(!messageOf(o).includes(secret));
  assert.deepEqual(o.displayInput, { path: "[redacted]" });
  assert.deepEqual(calls, []);
});

Deno.test("dispatch() maps missing Deno permissions to tool_unavailable and hides the tool", async (t) => {
  for (const state of ["prompt", "denied"] as const) {
    await t.step(`read in state ${state}`, async () => {
      const permissions: PermissionQuery = (
        p,
      ) => (p.name === "read" ? state : "granted");
      const { reg, calls } = registry({ permissions });
      assert.deepEqual(
        reg.advertise(["read_file", "list_directory", "git_status"], undefined)
          .map((d) => d.name),
        ["git_status"],
      );
      const o = await dispatchOne(
        reg,
        "read_file",
        { path: "a.txt" },
        makeContext({ interactive: true }).ctx,
      );
      assert.equal(o.kind, "fatal");
      if (o.kind === "fatal") {
        assert.equal(o.error.code, "tool_unavailable");
        assert.equal(
          o.error.message,
          "Tool unavailable: read_file needs the Deno permission --allow-read=/ws",
        );
      }
      assert.deepEqual(
        calls,
        [],
        "nothing touches the host before the permission check",
      );
    });
    await t.step(`run git in state ${state}`, async () => {
      const permissions: PermissionQuery = (
        p,
      ) => (p.name === "run" ? state : "granted");
      const { reg, calls } = registry({ permissions });
      assert.deepEqual(
        reg.advertise(["read_file", "git_status"], undefined).map((d) =>
          d.name
        ),
        ["read_file"],
      );
      const o = await reg.dispatch(
        { id: "c", name: "git_status", args: {} },
        makeContext().ctx,
      );
      assert.match(messageOf(o), /--allow-run=git$/);
      assert.deepEqual(calls, []);
    });
  }
});

Deno.test("dispatch() queries the real target's permission before any metadata call", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/real`);
  await Deno.writeTextFile(`${dir.path}/real/a.txt`, "x");
  await Deno.symlink(`${dir.path}/real`, `${dir.path}/ws`);
  const asked: ToolPermission[] = [];
  const permissions: PermissionQuery = (p) => {
    asked.push(p);
    return p.name === "read" && p.path.startsWith(`${dir.path}/real`)
      ? "prompt"
      : "granted";
  };
  const { host, calls } = recordedDenoHost();
  const reg = createToolRegistry({
    tools: builtinTools(),
    host,
    context: { workingDir: `${dir.path}/ws`, fsScopeTier: "sandboxed" },
    permissions,
  });
  const o = await dispatchOne(reg, "read_file", { path: "a.txt" });
  assert.equal(o.kind, "fatal");
  if (o.kind === "fatal") assert.equal(o.error.code, "tool_unavailable");
  assert.ok(
    calls.every((c) => c.op === "realPath"),
    "only realpaths of lexically granted paths",
  );
});

Deno.test("dispatch() feeds back read failures in every session", async () => {
  await using dir = await tempDir();
  for (const interactive of [true, false]) {
    const { host } = recordedDenoHost();
    const reg = createToolRegistry({
      tools: builtinTools(),
      host,
      context: { workingDir: dir.path, fsScopeTier: "sandboxed" },
      permissions: grantAll,
    });
    const o = await dispatchOne(
      reg,
      "read_file",
      { path: "missing.txt" },
      makeContext({ interactive }).ctx,
    );
    assert.equal(o.kind, "feedback", `interactive=${interactive}`);
    assert.equal(messageOf(o), "read_file failed: no such file or directory");
    if (o.kind === "feedback") assert.equal(o.code, "tool_failed");
  }
});

Deno.test("dispatch() calls admit() right before the effect and honours a refusal", async () => {
  const tool = fakeTool("probe", {});
  const { reg } = registry({ tools: [tool] });
  const t = makeContext({
    granted: ["probe"],
    admit: () => ({
      allow: false,
      error: {
        code: "budget_exceeded",
        message: "Budget exceeded: cap of 5 micro-cents",
        retryable: false,
      },
    }),
  });
  const o = await reg.dispatch({ id: "c", name: "probe", args: {} }, t.ctx);
  assert.equal(o.kind, "fatal");
  if (o.kind === "fatal") {
    assert.equal(o.error.code, "budget_exceeded");
    assert.equal(o.outcome, "denied");
  }
  assert.deepEqual(tool.runs, []);
});

Deno.test("dispatch() cancels on abort before, during and after the effect", async (t) => {
  await t.step("aborted before dispatch", async () => {
    const tool = fakeTool("probe", {});
    const { reg } = registry({ tools: [tool] });
    const c = makeContext({ granted: ["probe"] });
    c.controller.abort();
    const o = await reg.dispatch({ id: "c", name: "probe", args: {} }, c.ctx);
    assert.equal(o.kind === "fatal" && o.outcome, "cancelled");
    assert.deepEqual(tool.runs, []);
  });
  await t.step("aborted while the tool runs", async () => {
    let release = (): void => {};
    const hanging: ToolDefinition<FakeArgs> = {
      ...fakeTool("slow", {}),
      dispatch: () =>
        new Promise((resolve) => {
          release = () => resolve({ ok: true, value: "late" });
        }),
    };
    const { reg } = registry({ tools: [hanging] });
    const c = makeContext({ granted: ["slow"] });
    const pending = reg.dispatch({ id: "c", name: "slow", args: {} }, c.ctx);
    await Promise.resolve();
    c.controller.abort();
    const o = await pending;
    release();
    assert.equal(o.kind === "fatal" && o.error.code, "cancelled");
  });
  await t.step("aborted as the tool finishes", async () => {
    const c = makeContext({ granted: ["quick"] });
    const quick: ToolDefinition<FakeArgs> = {
      ...fakeTool("quick", {}),
      dispatch: () => {
        c.controller.abort();
        return Promise.resolve({ ok: true, value: "done" });
      },
    };
    const { reg } = registry({ tools: [quick] });
    const o = await reg.dispatch({ id: "c", name: "quick", args: {} }, c.ctx);
    assert.equal(o.kind === "fatal" && o.outcome, "cancelled");
  });
});

Deno.test("dispatch() bounds the model copy and the summary", async () => {
  const big = "line\n".repeat(5000);
  const tool = fakeTool("big", {}, { result: big });
  const { reg } = registry({ tools: [tool] });
  const o = await reg.dispatch(
    { id: "c", name: "big", args: {} },
    makeContext({ granted: ["big"] }).ctx,
  );
  assert.equal(o.kind, "ok");
  if (o.kind !== "ok") return;
  assert.ok(new TextEncoder().encode(o.modelResult).length <= 50 * 1024);
  assert.ok(o.modelResult.split("\n").length <= 2002);
  assert.match(o.modelResult, /full output unavailable \(no output store\)\]$/);
  assert.ok(o.summary.length <= 500);
});

Deno.test("dispatch() never throws: a throwing tool is a path-free failure", async () => {
  const boom: ToolDefinition<FakeArgs> = {
    ...fakeTool("boom", {}),
    dispatch: () => {
      throw new Error("kaput /secret/path");
    },
  };
  const { reg } = registry({ tools: [boom] });
  const o = await reg.dispatch(
    { id: "c", name: "boom", args: {} },
    makeContext({ granted: ["boom"] }).ctx,
  );
  assert.equal(o.kind, "feedback", "a read-only tool did nothing");
  assert.ok(!messageOf(o).includes("/secret/path"));
});

Deno.test("advertise() = granted ∩ registered ∩ permissions ∩ policy", () => {
  const { reg } = registry();
  const defs = reg.advertise(["git_status", "read_file", "nope"], {
    advertise: (id) => id !== "git_status",
  });
  assert.deepEqual(defs.map((d) => d.name), ["read_file"]);
  assert.deepEqual(Object.keys(defs[0] ?? {}).sort(), [
    "description",
    "name",
    "parameters",
  ]);
  assert.equal(
    (reg.advertise(["git_status"], undefined)[0]
      ?.parameters["properties"] as Record<string, unknown>)["args"],
    undefined,
  );
});

Deno.test("createToolRegistry() refuses misconfigured tools", () => {
  const base = {
    host: recordingHost().host,
    context: { workingDir: "/ws", fsScopeTier: "sandboxed" as const },
    permissions: grantAll,
  };
  const rows: [string, Partial<ToolRegistryOptions>][] = [
    ["duplicate id", { tools: [fakeTool("x", {}), fakeTool("x", {})] }],
    ["reserved id", { tools: [fakeTool("unknown_tool", {})] }],
    ["process tool without target", {
      tools: [fakeTool("run", { spawnsProcess: true })],
    }],
    ["http tool without target", {
      tools: [fakeTool("http", { egress: "http" })],
    }],
    ["advertised config-only key", {
      tools: [{
        ...fakeTool("x", {}),
        configOnly: ["path"],
        llmParams: { type: "object", properties: { path: {} } },
      }],
    }],
    ["config for an unknown tool", {
      tools: [],
      toolConfig: { git_status: { args: [] } },
    }],
    ["config for a model key", {
      tools: builtinTools(),
      toolConfig: { git_status: { command: "log" } },
    }],
    ["relative workspace", {
      tools: [],
      context: { workingDir: "ws", fsScopeTier: "sandboxed" },
    }],
  ];
  for (const [label, overrides] of rows) {
    assert.throws(
      () => createToolRegistry({ tools: [], ...base, ...overrides }),
      TypeError,
      label,
    );
  }
  assert.throws(
    () =>
      createToolRegistry({ tools: [], ...base, limits: { resultBytes: 1e9 } }),
    RangeError,
  );
});

Deno.test("createToolRegistry() reports the full-tier clamp", () => {
  const { reg } = registry({
    context: { workingDir: "/ws", fsScopeTier: "full" },
  });
  assert.equal(reg.plan.tier, "project");
  assert.equal(reg.notices.length, 1);
});

Deno.test("dispatch() ends the turn when a governed effect may have partly happened", async (t) => {
  await using dir = await tempDir();
  const auto = { decide: () => ({ approve: true as const }) };
  const failing = (over: Partial<ToolEffects>) =>
    createToolRegistry({
      tools: allBuiltinTools(),
      host: { ...createDenoToolEffects(), ...over },
      context: { workingDir: dir.path, fsScopeTier: "sandboxed" },
      permissions: grantAll,
    });
  const write = (args: Record<string, unknown>) => ({
    id: "c",
    name: "write_file",
    args: { content: "x", ...args },
  });
  const ctx = () => makeContext({ granted: ["write_file"], policy: auto }).ctx;
  await t.step("the write itself failed: fatal", async () => {
    const reg = failing({
      writeFileAtomic: () => Promise.reject(new ToolEffectsError("failed")),
    });
    const o = await reg.dispatch(write({ path: "a.txt" }), ctx());
    assert.equal(o.kind, "fatal");
    if (o.kind === "fatal") assert.equal(o.error.code, "tool_failed");
  });
  await t.step("a folder was made, then the write failed: fatal", async () => {
    const reg = failing({
      writeFileAtomic: () => Promise.reject(new ToolEffectsError("failed")),
    });
    const o = await reg.dispatch(
      write({ path: "new/a.txt", createDirs: true }),
      ctx(),
    );
    assert.equal(o.kind, "fatal");
    await Deno.stat(`${dir.path}/new`);
  });
  await t.step(
    "nothing started (parent missing): back to the model",
    async () => {
      const reg = failing({});
      const o = await reg.dispatch(write({ path: "gone/a.txt" }), ctx());
      assert.equal(o.kind, "feedback");
      assert.match(messageOf(o), /parent directory does not exist/);
    },
  );
});
