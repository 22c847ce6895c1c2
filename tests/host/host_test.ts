import assert from "node:assert/strict";
import { openSession, resumeSession } from "../../host/host.ts";
import { createScriptedProvider } from "../../llm/scripted_provider.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import type { SessionEvent } from "../../schema/event.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import type { SessionStore } from "../../store/store.ts";
import { sequentialIds, steppingClock } from "../_fakes/clock.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { hostParts } from "../_fakes/runtime.ts";
import { delegating, sqliteAt } from "./_stores.ts";
import { AGENT, reply, toolCall } from "../session/_harness.ts";

const CONTEXT = { workingDir: "/work", fsScopeTier: "sandboxed" as const };

function script(): StreamChunk[][] {
  return [
    reply("first answer"),
    toolCall("c1", "read_file", { path: "a.txt" }),
    reply("second answer"),
    reply(""),
    reply("fourth answer"),
  ];
}

function deps(provider: ReturnType<typeof createScriptedProvider>) {
  return {
    resolveProvider: (id: string) => (id === "openai" ? provider : undefined),
    keyFor: () => "k",
    sleep: () => Promise.resolve(),
    tools: createFakeRegistry({ read_file: () => "file body" }),
  };
}

const MESSAGES = ["one", "two", "three", "four"];

Deno.test("resumeSession() on a fresh store handle sends exactly the request the uninterrupted session would", async () => {
  // Uninterrupted.
  const pa = createScriptedProvider({ id: "openai", script: script() });
  const a = openSession({
    store: createMemoryStore(),
    agent: AGENT,
    context: CONTEXT,
    ...hostParts(deps(pa), { clock: steppingClock(), ids: sequentialIds("a") }),
  });
  for (const m of MESSAGES) await a.session.sendMessage(m);

  // Interrupted after three turns, resumed through a new SQLite handle.
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/history.db`;
    const pb = createScriptedProvider({ id: "openai", script: script() });
    const store1 = sqliteAt(path, "r");
    const b = openSession({
      store: store1,
      agent: AGENT,
      context: CONTEXT,
      ...hostParts(deps(pb), {
        clock: steppingClock(),
        ids: sequentialIds("b"),
      }),
    });
    for (const m of MESSAGES.slice(0, 3)) await b.session.sendMessage(m);
    const id = b.sessionId;
    b.close(); // releases its writer lease for the resume
    store1.close();

    const pc = createScriptedProvider({
      id: "openai",
      script: script().slice(4),
    });
    const store2 = sqliteAt(path, "q");
    const resumed = resumeSession({
      store: store2,
      sessionId: id,
      ...hostParts(deps(pc), {
        clock: steppingClock(),
        ids: sequentialIds("c"),
      }),
    });
    assert.ok(resumed.ok);
    assert.equal(resumed.value.session.turnCount, 3);
    await resumed.value.session.sendMessage("four");
    assert.deepEqual(pc.requests[0], pa.requests[4]);
    resumed.value.close();
    store2.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openSession() persists each completed turn with its tool rounds and costs", async () => {
  const store = createMemoryStore({
    clock: steppingClock(),
    ids: sequentialIds("m"),
  });
  const p = createScriptedProvider({ id: "openai", script: script() });
  const live = openSession({
    store,
    agent: AGENT,
    context: CONTEXT,
    ...hostParts({ ...deps(p), catalog: { lookup: () => undefined } }, {
      clock: steppingClock(),
      ids: sequentialIds("s"),
    }),
  });
  await live.session.sendMessage("one");
  await live.session.sendMessage("two");
  const loaded = store.load(live.sessionId);
  assert.ok(loaded);
  // A text turn, then a turn with one tool round.
  const roles = ["user", "assistant", "user", "assistant", "tool", "assistant"];
  assert.deepEqual(loaded.messages.map((m) => m.role), roles);
  assert.deepEqual(loaded.messages[3]?.content, [
    {
      type: "tool_call",
      id: "session-tool:2:0",
      name: "read_file",
      argsBytes: 16,
    },
  ]);
  assert.equal(loaded.record.title, "one");
  assert.equal(loaded.record.totalInputTokens, 25);
  live.close();
  assert.equal(store.load(live.sessionId)?.record.status, "ended");
});

function failingCommits(inner: SessionStore): SessionStore {
  return {
    ...inner,
    ...delegating(inner, {
      commitTurn: () => {
        throw new Error("disk full");
      },
    }),
  };
}

Deno.test("a failed turn commit latches the session: no later provider or tool egress", async () => {
  const p = createScriptedProvider({
    id: "openai",
    script: [reply("one"), reply("two")],
  });
  const events: SessionEvent[] = [];
  const live = openSession({
    store: failingCommits(createMemoryStore()),
    agent: AGENT,
    context: CONTEXT,
    ...hostParts(deps(p), { clock: steppingClock(), ids: sequentialIds("s") }),
  });
  const reading = (async () => {
    for await (const e of live.events) events.push(e);
  })();
  await live.session.sendMessage("first");
  assert.equal(live.latched, true);
  assert.match(String(live.latchError), /disk full/);
  const second = await live.session.sendMessage("second");
  assert.equal(
    p.requests.length,
    1,
    "the latched session made no second request",
  );
  assert.equal(second.kind, "failed");
  await live.events.settled();
  const last = events.at(-1);
  assert.ok(last?.type === "session:turn_completed");
  assert.equal(last.stopReason, "error");
  assert.equal(last.error?.code, "internal");
  live.close();
  await reading;
});

Deno.test("resumeSession() reports an unknown id", () => {
  const r = resumeSession({
    store: createMemoryStore(),
    sessionId: "missing",
    ...hostParts(deps(createScriptedProvider({ id: "openai", script: [] })), {
      clock: steppingClock(),
      ids: sequentialIds(),
    }),
  });
  assert.deepEqual(r, {
    ok: false,
    error: { kind: "not_found", sessionId: "missing" },
  });
});
