/**
 * Custom tools declared once with tool(): called through a real registry
 * and its pipeline, they are parsed by their zod schema (problems go back
 * to the model), advertised with the generated JSON Schema, run with the
 * turn's signal and the workspace, and a tool that is not read-only waits
 * for approval like an `os` action.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { tool } from "../../tools/custom_tool.ts";
import { allBuiltinTools } from "../../tools/builtin/all.ts";
import { createModePolicy } from "../../tools/modes.ts";
import type { ToolExecuteOptions } from "../../tools/custom_tool.ts";
import type { ToolDispatchContext } from "../../tools/registry.ts";
import type { ToolDefinition } from "../../tools/tool.ts";
import { builtinRig, makeContext, messageOf } from "./_helpers.ts";

interface Seen {
  input: unknown;
  options: ToolExecuteOptions;
}

function tools(): {
  seen: Seen[];
  add: ToolDefinition<unknown>;
  note: ToolDefinition<unknown>;
} {
  const seen: Seen[] = [];
  const add = tool({
    name: "add",
    description: "Add two integers",
    inputSchema: z.strictObject({
      a: z.int().describe("First addend"),
      b: z.int().describe("Second addend"),
    }),
    execute: (input, options) => {
      seen.push({ input, options });
      return { sum: input.a + input.b };
    },
    readOnly: true,
  });
  const note = tool({
    name: "save_note",
    description: "Save a note outside the workspace",
    inputSchema: z.strictObject({ text: z.string().min(1) }),
    execute: async (input, options) => {
      seen.push({ input, options });
      await Promise.resolve();
      return "saved";
    },
  });
  return { seen, add, note };
}

function registryOf(...extra: ToolDefinition<unknown>[]) {
  return builtinRig({
    workingDir: "/ws",
    host: null,
    tools: [...allBuiltinTools(), ...extra],
  });
}

/** An interactive context granting `save_note` whose approver answers `decision`. */
function answering(decision: "reject" | "once") {
  return makeContext({
    granted: ["save_note"],
    interactive: true,
    policy: { confirm: () => Promise.resolve(decision) },
  });
}

Deno.test("a custom tool is advertised with the JSON Schema of its zod schema", () => {
  const { add, note } = tools();
  const { registry } = registryOf(add, note);
  const defs = registry.advertise(["add", "save_note", "read_file"], undefined);
  assert.deepEqual(defs.map((d) => d.name), ["read_file", "add", "save_note"]);
  assert.deepEqual(defs[1], {
    name: "add",
    description: "Add two integers",
    parameters: {
      type: "object",
      properties: {
        a: {
          type: "integer",
          minimum: Number.MIN_SAFE_INTEGER,
          maximum: Number.MAX_SAFE_INTEGER,
          description: "First addend",
        },
        b: {
          type: "integer",
          minimum: Number.MIN_SAFE_INTEGER,
          maximum: Number.MAX_SAFE_INTEGER,
          description: "Second addend",
        },
      },
      required: ["a", "b"],
      additionalProperties: false,
    },
  });
});

Deno.test("a custom tool's parse errors go back to the model and nothing runs", async () => {
  const { seen, add } = tools();
  const { registry } = registryOf(add);
  const o = await registry.dispatch(
    { id: "c", name: "add", args: { a: 1.5, c: 2 } },
    makeContext({ granted: ["add"] }).ctx,
  );
  assert.equal(o.kind, "feedback");
  assert.equal(
    messageOf(o),
    "Invalid arguments for add: a: Invalid input: expected int, received number; b: Invalid input: expected number, received undefined; c: unknown key",
  );
  assert.deepEqual(seen, []);
});

Deno.test("a read-only custom tool runs without approval, with the signal and the workspace", async () => {
  const { seen, add } = tools();
  const { registry, calls } = registryOf(add);
  const t = makeContext({
    granted: ["add"],
    policy: { confirm: () => Promise.reject(new Error("never asked")) },
  });
  const o = await registry.dispatch(
    { id: "c", name: "add", args: { a: 2, b: 3 } },
    t.ctx,
  );
  assert.equal(o.kind, "ok");
  assert.equal(messageOf(o), '{"sum":5}');
  assert.deepEqual(t.approvals, []);
  assert.equal(t.admits, 1);
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0]?.input, { a: 2, b: 3 });
  assert.equal(seen[0]?.options.workingDir, "/ws");
  assert.equal(seen[0]?.options.signal, t.ctx.signal);
  assert.deepEqual(calls, []);
  assert.equal(registry.isReadOnly("add"), true);
});

Deno.test("a custom tool that is not read-only waits for approval", async (t) => {
  const { seen, note } = tools();
  const { registry } = registryOf(note);
  const call = { id: "c", name: "save_note", args: { text: "milk" } };
  assert.equal(registry.isReadOnly("save_note"), false);

  await t.step("rejected: denied, never run", async () => {
    const c = answering("reject");
    const o = await registry.dispatch(call, c.ctx);
    assert.equal(o.kind, "fatal");
    assert.match(messageOf(o), /rejected by the user/);
    assert.deepEqual(c.approvals, [{
      toolId: "save_note",
      action: "os",
      preview: {},
    }]);
    assert.deepEqual(seen, []);
  });

  await t.step("no approval hook: denied", async () => {
    const c = makeContext({ granted: ["save_note"], policy: {} });
    const o = await registry.dispatch(call, c.ctx);
    assert.equal(o.kind, "fatal");
    assert.match(messageOf(o), /governed actions need an approval hook/);
    assert.deepEqual(seen, []);
  });

  await t.step(
    "the plan mode hides it and refuses it without asking",
    async () => {
      const modes = createModePolicy({
        mode: "plan",
        interactive: true,
        isReadOnly: registry.isReadOnly,
      });
      assert.equal(modes.policy.advertise?.("save_note"), false);
      const c = makeContext({ granted: ["save_note"], policy: modes.policy });
      const o = await registry.dispatch(call, c.ctx);
      assert.equal(o.kind, "fatal");
      assert.match(messageOf(o), /not allowed in plan mode/);
      assert.deepEqual(seen, []);
    },
  );

  await t.step("approved once: runs", async () => {
    const c = answering("once");
    const o = await registry.dispatch(call, c.ctx);
    assert.equal(o.kind, "ok");
    assert.equal(messageOf(o), "saved");
    assert.deepEqual(seen.map((s) => s.input), [{ text: "milk" }]);
  });
});

Deno.test("a throw in execute is a tool_failed outcome with its message", async () => {
  /** Declares `name`, which always throws `message`, and calls it once in `context`. */
  const throwing = async (
    name: string,
    message: string,
    readOnly: boolean,
    context: Partial<ToolDispatchContext> = {},
  ) => {
    const t = tool({
      name,
      description: "Always fails",
      inputSchema: z.strictObject({}),
      execute: () => {
        throw new Error(message);
      },
      readOnly,
    });
    return await registryOf(t).registry.dispatch(
      { id: "c", name, args: {} },
      makeContext({ granted: [name], ...context }).ctx,
    );
  };
  const down = "boom failed: the service is down";
  const interactive = await throwing("boom", "the service is down", true, {
    interactive: true,
  });
  assert.equal(interactive.kind, "feedback");
  assert.equal(messageOf(interactive), down);
  const batch = await throwing("boom", "the service is down", true);
  assert.equal(batch.kind, "feedback", "in every session");
  assert.equal(messageOf(batch), down);
  // A tool that is not readOnly acts outside the host: its effect may
  // have partly happened, so its throw ends the turn.
  const auto = { decide: () => ({ approve: true as const }) };
  const ended = await throwing("acting", "half done", false, { policy: auto });
  assert.equal(ended.kind, "fatal");
  assert.equal(messageOf(ended), "acting failed: half done");
});

Deno.test("a custom tool is not granted by being registered", async () => {
  const { seen, add } = tools();
  const { registry } = registryOf(add);
  assert.deepEqual(
    registry.advertise(["read_file"], undefined).map((d) => d.name),
    ["read_file"],
  );
  const o = await registry.dispatch(
    { id: "c", name: "add", args: { a: 1, b: 2 } },
    makeContext({ granted: ["read_file"] }).ctx,
  );
  assert.match(messageOf(o), /add is not granted to this session/);
  assert.deepEqual(seen, []);
});

Deno.test("declaration errors are raised early", () => {
  const inputSchema = z.strictObject({});
  const execute = () => "x";
  assert.throws(
    () => tool({ name: "has space", description: "d", inputSchema, execute }),
    {
      name: "TypeError",
      message: /Cannot declare tool "has space": a name is 1-64 letters/,
    },
  );
  assert.throws(
    () => tool({ name: "", description: "d", inputSchema, execute }),
    TypeError,
  );
  assert.throws(
    () =>
      tool({
        name: "fake",
        description: "d",
        inputSchema: { safeParse: () => ({ success: true, data: {} }) },
        execute,
      }),
    { name: "TypeError", message: /its schema is not a zod schema/ },
  );
  const notObject = tool({
    name: "count",
    description: "d",
    inputSchema: z.number(),
    execute,
  });
  assert.throws(() => registryOf(notObject), {
    name: "TypeError",
    message:
      'Cannot register tool "count": its argument schema must be an object',
  });
  const noJson = tool({
    name: "when",
    description: "d",
    inputSchema: z.strictObject({ at: z.date() }),
    execute,
  });
  assert.throws(() => registryOf(noJson), {
    name: "TypeError",
    message:
      /Cannot register tool "when": its argument schema has no JSON Schema form/,
  });
  const { add } = tools();
  assert.throws(() => registryOf(add, add), {
    message: 'Cannot register tool "add": duplicate id',
  });
  assert.throws(
    () =>
      registryOf(
        tool({
          name: "read_file",
          description: "d",
          inputSchema,
          execute,
        }),
      ),
    { message: 'Cannot register tool "read_file": duplicate id' },
  );
});
