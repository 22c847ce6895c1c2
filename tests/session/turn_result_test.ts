import assert from "node:assert/strict";
import { createCatalog } from "../../llm/create_catalog.ts";
import { AGENT, failure, harness, reply } from "./_harness.ts";

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
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    priced: true,
    usageUnknown: false,
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
    script: [failure({
      kind: "auth",
      message: "Incorrect API key provided: sk-proj-0123456789abcdefXYZ",
    })],
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

Deno.test("sendMessage() resolves with the turn's cache tokens, summed as its cost events report them", async () => {
  const cached = (text: string, read: number, write: number) => [
    { type: "text_delta" as const, text },
    {
      type: "stop" as const,
      stopReason: "stop" as const,
      usage: {
        inputTokens: 10,
        outputTokens: 2,
        cacheReadTokens: read,
        cacheWriteTokens: write,
      },
    },
  ];
  const h = harness({
    script: [cached("one", 300, 40), cached("two", 7, 0)],
    deps: { catalog: createCatalog() },
  });
  const first = await h.session.sendMessage("Hi");
  assert.deepEqual(
    [first.cacheReadTokens, first.cacheWriteTokens, first.priced],
    [300, 40, true],
  );
  const second = await h.session.sendMessage("Again");
  assert.deepEqual(
    [second.cacheReadTokens, second.cacheWriteTokens],
    [7, 0],
    "the figures are the turn's, not the session's",
  );
  const costs = h.events.filter((e) => e.type === "cost:updated");
  assert.deepEqual(
    costs.map((e) =>
      e.type === "cost:updated" ? [e.cacheReadTokens, e.cacheWriteTokens] : []
    ),
    [[300, 40], [7, undefined]],
  );
});

Deno.test("sendMessage() resolves priced: false when a model has no price", async () => {
  const h = harness({
    script: [reply("Hello", 10, 2)],
    agent: { ...AGENT, model: "model-with-no-price" },
    deps: { catalog: createCatalog() },
  });
  const result = await h.session.sendMessage("Hi");
  assert.equal(result.kind, "completed");
  assert.equal(result.priced, false);
  assert.equal(result.costMicrocents, 0);
  assert.equal(result.usageUnknown, false);
  const cost = h.events.find((e) => e.type === "cost:updated");
  assert.ok(cost?.type === "cost:updated" && cost.priced === false);
});

Deno.test("sendMessage() resolves usageUnknown when the provider reported no usage", async () => {
  const h = harness({
    script: [[
      { type: "text_delta", text: "answer" },
      {
        type: "stop",
        stopReason: "stop",
        usage: { inputTokens: 0, outputTokens: 0 },
        usageUnknown: true,
      },
    ]],
    deps: { catalog: createCatalog() },
  });
  const result = await h.session.sendMessage("Hi");
  assert.equal(result.kind, "completed");
  assert.equal(result.usageUnknown, true);
  assert.equal(result.priced, true);
  const cost = h.events.find((e) => e.type === "cost:updated");
  assert.ok(cost?.type === "cost:updated" && cost.usageUnknown === true);
  assert.equal(result.costMicrocents, cost.costMicrocents);
});

Deno.test("sendMessage() resolves a failed turn's error as its terminal event carries it, secrets redacted", async () => {
  const secret = "sk-ant-api03-0123456789abcdefghij";
  const h = harness({
    script: [failure({
      kind: "bad_request",
      message: `Bad request for key ${secret}`,
    })],
  });
  const result = await h.session.sendMessage("Hi");
  assert.equal(result.kind, "failed");
  if (result.kind !== "failed") return;
  assert.ok(!JSON.stringify(result).includes(secret));
  const terminal = h.events.at(-1);
  assert.ok(terminal?.type === "session:turn_completed");
  assert.deepEqual(result.error, terminal.error);
  assert.deepEqual(
    [result.priced, result.usageUnknown, result.cacheReadTokens],
    [true, false, 0],
    "a turn that priced nothing reports nothing unpriced or unknown",
  );
});
