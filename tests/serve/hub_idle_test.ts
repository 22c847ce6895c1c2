/**
 * The hub's idle release never closes a session under a message on its
 * way in: a send whose first wait outlasts the idle timer still starts
 * its turn.
 *
 * @module
 */
import assert from "node:assert/strict";
import { denoRuntime, openSession } from "../../host/mod.ts";
import { parseCassette } from "../../llm/cassette.ts";
import { createMemoryStore } from "../../store/mod.ts";
import { err, ok } from "../../schema/result.ts";
import { createModePolicy } from "../../tools/modes.ts";
import type { ServeBackend } from "../../serve/backend.ts";
import { memoryEvents } from "../../serve/event_source.ts";
import { SessionHub } from "../../serve/hub.ts";
import type { CreateSessionBody } from "../../serve/wire.ts";

const IDLE_MS = 50;

const hello = [
  { type: "text_delta", text: "Hello!" },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 3, outputTokens: 1 },
  },
];

/**
 * A hub on a memory store whose event settles wait as long as `delays`
 * says, one after another (none once they run out, or while `delays` is
 * empty).
 */
function slowHub(calls: number, delays: number[]) {
  const cassette = parseCassette(
    JSON.stringify({
      schema_version: "1.0",
      provider: "openai",
      calls: Array.from({ length: calls }, () => hello),
    }),
    "hello.json",
  );
  assert.ok(cassette.ok);
  const store = createMemoryStore();
  const none = err({ status: 404, code: "not_found", message: "none" });
  const backend: ServeBackend = {
    list: () => Promise.resolve(ok([])),
    show: () => Promise.resolve(ok(undefined)),
    create(_body, hooks) {
      const live = openSession({
        store,
        runtime: denoRuntime({ cassette: cassette.value }),
        agent: {
          id: "mini",
          model: "gpt-5.4-mini",
          provider: "openai",
          system_prompt: "Be terse.",
        },
      });
      const drained = (async () => {
        for await (const e of live.events) hooks.sink(e);
      })();
      return Promise.resolve(ok({
        live,
        modes: createModePolicy({ interactive: false }),
        drained,
        finish: () => Promise.resolve(),
      }));
    },
    resume: () => Promise.resolve(none),
    holder: () => Promise.resolve(undefined),
    exportYaml: () => Promise.resolve(none),
    remove: () => Promise.resolve(none),
  };
  // Settles that outlast the idle timer (a slow shared table).
  const memory = memoryEvents();
  const events = {
    ...memory,
    async settle(id: string) {
      const ms = delays.shift();
      if (ms !== undefined) await new Promise((r) => setTimeout(r, ms));
      await memory.settle(id);
    },
  };
  const hub = new SessionHub({
    backend,
    heartbeatMs: 60_000,
    approvalTimeoutMs: 60_000,
    events,
    idleReleaseMs: IDLE_MS,
  });
  return { hub, store };
}

/** Waits (bounded) until no turn runs. */
async function turnEnded(hub: SessionHub, id: string): Promise<void> {
  for (let i = 0; i < 200 && hub.running(id); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(!hub.running(id), "the turn ended");
}

Deno.test("hub: the idle release waits for a message on its way in", async () => {
  const delays: number[] = [];
  const { hub, store } = slowHub(1, delays);
  try {
    const created = await hub.create({ mode: "ask" } as CreateSessionBody);
    assert.ok(created.ok);
    delays.push(IDLE_MS * 4);
    const sent = await hub.send(created.value.sessionId, "Hi");
    assert.ok(sent.ok, JSON.stringify(sent));
    await turnEnded(hub, created.value.sessionId);
    assert.equal(store.load(created.value.sessionId)?.messages.length, 2);
  } finally {
    await hub.close();
  }
});

Deno.test("hub: a turn that ends while another message is on its way in schedules no idle release", async () => {
  const delays: number[] = [];
  const { hub, store } = slowHub(2, delays);
  try {
    const created = await hub.create({ mode: "ask" } as CreateSessionBody);
    assert.ok(created.ok);
    const id = created.value.sessionId;
    // The first message's turn starts and ends (scheduling the idle
    // release) while the second still waits for its settle.
    delays.push(IDLE_MS * 2, IDLE_MS * 12);
    const [first, second] = await Promise.all([
      hub.send(id, "Hi"),
      hub.send(id, "Again"),
    ]);
    assert.ok(first.ok, JSON.stringify(first));
    assert.ok(second.ok, JSON.stringify(second));
    await turnEnded(hub, id);
    assert.equal(store.load(id)?.messages.length, 4);
  } finally {
    await hub.close();
  }
});
