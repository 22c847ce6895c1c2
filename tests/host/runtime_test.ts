import assert from "node:assert/strict";
import { openSession, resumeSession } from "../../host/host.ts";
import { loadAgentFile } from "../../host/agent_file.ts";
import { InvalidAgentError, InvalidFileError } from "../../host/errors.ts";
import { denoRuntime, loadCassette } from "../../host/runtime.ts";
import { parseCassette } from "../../llm/cassette.ts";
import type { Cassette } from "../../llm/cassette.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import { createScriptedProvider } from "../../llm/scripted_provider.ts";
import type { Agent } from "../../schema/agent.ts";
import type { SessionEvent } from "../../schema/event.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import { hostParts } from "../_fakes/runtime.ts";
import { reply } from "../session/_harness.ts";

const AGENT: Agent = {
  id: "mini",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "Be terse.",
};

function cassette(calls: StreamChunk[][]): Cassette {
  const parsed = parseCassette(
    JSON.stringify({ schema_version: "1.0", provider: "openai", calls }),
    "test.json",
  );
  assert.ok(parsed.ok);
  return parsed.value;
}

Deno.test("the bundled catalog is the default: turns are priced and a cost cap binds with no catalog passed", async () => {
  const priced = openSession({
    store: createMemoryStore(),
    runtime: denoRuntime({ cassette: cassette([reply("Hi", 65, 21)]) }),
    agent: AGENT,
  });
  const result = await priced.session.sendMessage("Hello");
  assert.equal(result.costMicrocents, 14_325);
  priced.close();

  const capped = openSession({
    store: createMemoryStore(),
    runtime: denoRuntime({ cassette: cassette([reply("Hi", 65, 21)]) }),
    agent: AGENT,
    settings: { budget: { maxCostMicrocents: 1, onExceed: "fail" } },
  });
  const refused = await capped.session.sendMessage("Hello");
  assert.equal(refused.kind, "failed");
  if (refused.kind === "failed") {
    assert.equal(refused.error.code, "budget_exceeded");
  }
  capped.close();
});

Deno.test("openSession() refuses an agent without system_prompt with a validation error naming the field", () => {
  const { system_prompt: _, ...rest } = AGENT;
  const store = createMemoryStore();
  assert.throws(
    () =>
      openSession({
        store,
        runtime: denoRuntime(),
        agent: rest as unknown as Agent,
      }),
    (e) =>
      e instanceof InvalidAgentError && !(e instanceof TypeError) &&
      /system_prompt/.test(e.message) &&
      e.issues.some((i) => i.path === "system_prompt"),
  );
  assert.deepEqual(store.list(), [], "no row is written");
});

Deno.test("openSession() defaults the context to the runtime's working folder, sandboxed", () => {
  const store = createMemoryStore();
  using live = openSession({
    store,
    runtime: denoRuntime({ workingDir: "/projects/demo" }),
    agent: AGENT,
  });
  assert.deepEqual(store.load(live.sessionId)?.record.context, {
    workingDir: "/projects/demo",
    fsScopeTier: "sandboxed",
  });
});

Deno.test("denoRuntime() reads keys only from the env it is given; a missing key fails the turn provider_auth", async () => {
  const seen: string[] = [];
  const provider = createScriptedProvider({
    id: "openai",
    script: [reply("ok")],
  });
  const runtime = denoRuntime({ env: { get: () => undefined } });
  runtime.resolveProvider = (id) => (id === "openai" ? provider : undefined);
  using live = openSession({
    store: createMemoryStore(),
    runtime,
    agent: AGENT,
  });
  const result = await live.session.sendMessage("Hi");
  assert.equal(result.kind, "failed");
  if (result.kind === "failed") {
    assert.equal(result.error.code, "provider_auth");
  }
  assert.equal(provider.requests.length, 0);
  const keyed = denoRuntime({
    env: {
      get: (n) => {
        seen.push(n);
        return n === "OPENAI_API_KEY" ? "sk-test" : undefined;
      },
    },
  });
  assert.equal(await keyed.keyFor("openai"), "sk-test");
  assert.deepEqual(seen, ["RELAVIUM_OPENAI_API_KEY", "OPENAI_API_KEY"]);
});

Deno.test("[Symbol.dispose] cancels the session and ends its channel", async () => {
  const store = createMemoryStore();
  let id = "";
  let events: AsyncIterable<SessionEvent> | undefined;
  {
    using live = openSession({
      store,
      runtime: denoRuntime({ cassette: cassette([]) }),
      agent: AGENT,
    });
    id = live.sessionId;
    events = live.events;
  }
  const types: string[] = [];
  for await (const e of events) types.push(e.type);
  assert.deepEqual(types, ["session:started", "session:cancelled"]);
  assert.equal(store.load(id)?.record.status, "ended");
});

Deno.test("with nobody reading, the event channel stays bounded and turns are still persisted", async () => {
  const store = createMemoryStore();
  const turns = 5;
  const p = createScriptedProvider({
    id: "openai",
    script: Array.from({ length: turns }, () => reply("answer")),
  });
  const live = openSession({
    store,
    ...hostParts({ resolveProvider: () => p }),
    agent: AGENT,
    eventBuffer: 4,
  });
  for (let i = 0; i < turns; i++) await live.session.sendMessage(`q${i}`);
  assert.equal(live.events.size, 4);
  // started + 5 × (turn_started, token, cost, turn_completed) = 21 events.
  assert.equal(live.events.dropped, 21 - 4);
  assert.equal(store.load(live.sessionId)?.messages.length, 2 * turns);
  live.close();
});

Deno.test("resumeSession() with reseat keeps the id, runs the new model and rebuilds the fallback chain", async () => {
  const store = createMemoryStore();
  const first = createScriptedProvider({ id: "openai", script: [reply("a")] });
  const agent: Agent = {
    ...AGENT,
    fallback_chain: [
      { model: "claude-haiku-4-5", provider: "anthropic", max_attempts: 1 },
      { model: "gpt-5.4", provider: "openai", max_attempts: 1 },
    ],
  };
  const opened = openSession({
    store,
    ...hostParts({ resolveProvider: () => first }),
    agent,
  });
  await opened.session.sendMessage("one");
  opened.close();

  const down: StreamChunk[] = [{
    type: "error",
    error: {
      kind: "overloaded",
      retryable: true,
      provider: "anthropic",
      message: "down",
    },
  }];
  const anthropic = createScriptedProvider({
    id: "anthropic",
    script: [down, down, down, down, down],
  });
  const openai = createScriptedProvider({ id: "openai", script: [reply("b")] });
  const parts = hostParts({
    resolveProvider: (id) => (id === "anthropic" ? anthropic : openai),
  });
  parts.runtime.catalog = denoRuntime().catalog;
  const resumed = resumeSession({
    store,
    sessionId: opened.sessionId,
    ...parts,
    reseat: { model: "claude-haiku-4-5" },
  });
  assert.ok(resumed.ok);
  using live = resumed.value;
  assert.equal(live.sessionId, opened.sessionId);
  assert.notEqual(live.session, opened.session);
  const result = await live.session.sendMessage("two");
  assert.equal(result.kind, "completed");
  assert.deepEqual(
    [anthropic.requests[0]?.model, openai.requests[0]?.model],
    ["claude-haiku-4-5", "gpt-5.4"],
    "the new primary first, then the rest of the chain (without the new primary)",
  );
  assert.equal(openai.requests.length, 1);
  assert.equal(store.load(live.sessionId)?.messages.length, 4);

  const unknown = resumeSession({
    store,
    sessionId: opened.sessionId,
    ...parts,
    reseat: { model: "no-such-model" },
  });
  assert.deepEqual(unknown, {
    ok: false,
    error: {
      kind: "unknown_model",
      sessionId: opened.sessionId,
      model: "no-such-model",
    },
  });
});

Deno.test("loadAgentFile() and loadCassette() name the file, line and key path of each problem", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const agent = `${dir}/helper.agent.yaml`;
    await Deno.writeTextFile(
      agent,
      "id: helper\nmodel: gpt-5.4-mini\nprovider: openai\ncolour: red\n",
    );
    await assert.rejects(
      loadAgentFile(agent),
      (e) =>
        e instanceof InvalidFileError && e.file === agent &&
        e.message ===
          `${agent}: system_prompt: Invalid input: expected string, received undefined\n${agent}:4: colour: unknown key`,
    );
    const missing = `${dir}/none.json`;
    await assert.rejects(
      loadCassette(missing),
      (e) =>
        e instanceof InvalidFileError &&
        e.message.startsWith(`${missing}: cannot read: `),
    );
    const cassettePath = `${dir}/c.json`;
    await Deno.writeTextFile(
      cassettePath,
      JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [] }),
    );
    assert.equal((await loadCassette(cassettePath)).file, cassettePath);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
