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

Deno.test("hub: the idle release waits for a message on its way in", async () => {
  const cassette = parseCassette(
    JSON.stringify({
      schema_version: "1.0",
      provider: "openai",
      calls: [[
        { type: "text_delta", text: "Hello!" },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 3, outputTokens: 1 },
        },
      ]],
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
  // A settle that outlasts the idle timer (a slow shared table).
  const memory = memoryEvents();
  let slow = false;
  const events = {
    ...memory,
    async settle(id: string) {
      if (slow) await new Promise((r) => setTimeout(r, IDLE_MS * 4));
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
  try {
    const created = await hub.create({ mode: "ask" } as CreateSessionBody);
    assert.ok(created.ok);
    slow = true;
    const sent = await hub.send(created.value.sessionId, "Hi");
    assert.ok(sent.ok, JSON.stringify(sent));
    slow = false;
    // The turn ends (bounded).
    for (let i = 0; i < 200 && hub.running(created.value.sessionId); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(!hub.running(created.value.sessionId), "the turn ended");
    assert.equal(store.load(created.value.sessionId)?.messages.length, 2);
  } finally {
    await hub.close();
  }
});
