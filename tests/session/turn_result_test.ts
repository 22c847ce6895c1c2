import assert from "node:assert/strict";
import { createCatalog } from "../../llm/create_catalog.ts";
import { harness, reply } from "./_harness.ts";

Deno.test("sendMessage() resolves a completed turn with its text, usage, cost and model", async () => {
  const h = harness({
    script: [reply("Hello there", 65, 21)],
    deps: { catalog: createCatalog() },
  });
  const result = await h.session.sendMessage("Hi");
  assert.deepEqual(result, {
    kind: "completed",
    stopReason: "stop",
    text: "Hello there",
    usage: { input: 65, output: 21 },
    costMicrocents: 14_325,
    model: "gpt-5.4-mini",
  });
  const second = await h.session.sendMessage("Again");
  assert.equal(second.kind, "failed");
  assert.equal(
    second.costMicrocents,
    0,
    "the cost is the turn's, not the session's",
  );
});

Deno.test("sendMessage() resolves a failed turn with the classified error", async () => {
  const h = harness({
    script: [[{
      type: "error",
      error: {
        kind: "auth",
        retryable: false,
        provider: "openai",
        message: "Incorrect API key provided: sk-proj-0123456789abcdefXYZ",
      },
    }]],
  });
  const result = await h.session.sendMessage("Hi");
  assert.equal(result.kind, "failed");
  if (result.kind !== "failed") return;
  assert.equal(result.stopReason, "error");
  assert.equal(result.error.code, "provider_auth");
  assert.match(result.error.message, /Incorrect API key provided/);
  assert.ok(!result.error.message.includes("sk-proj-0123456789"));
  const terminal = h.events.at(-1);
  assert.equal(terminal?.type, "session:turn_completed");
  if (terminal?.type === "session:turn_completed") {
    assert.deepEqual(terminal.error, result.error);
  }
});

Deno.test("sendMessage() resolves aborted and cancelled turns", async () => {
  const aborted = harness({ script: [reply("late")] });
  const pending = aborted.session.sendMessage("Hi");
  aborted.session.abort();
  const a = await pending;
  assert.equal(a.kind, "aborted");
  assert.equal(a.text, "");

  const cancelled = harness({ script: [reply("late")] });
  const pending2 = cancelled.session.sendMessage("Hi");
  cancelled.session.cancel();
  const c = await pending2;
  assert.equal(c.kind, "cancelled");
  assert.ok(!cancelled.types().includes("session:turn_completed"));
});

Deno.test("sendMessage() over the turn cap resolves failed without a provider call", async () => {
  const h = harness({ script: [reply("a")], deps: { maxTurns: 1 } });
  assert.equal((await h.session.sendMessage("one")).kind, "completed");
  const r = await h.session.sendMessage("two");
  assert.equal(r.kind, "failed");
  if (r.kind === "failed") assert.equal(r.error.code, "turn_limit");
  assert.equal(h.provider.requests.length, 1);
});
