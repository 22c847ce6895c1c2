/**
 * Behaviour both stores share, run against the memory
 * store and the SQLite store.
 */
import assert from "node:assert/strict";
import {
  SessionMessageBoundaryError,
  SessionNotFoundError,
} from "../../store/errors.ts";
import { reconstructSessionState } from "../../store/projection.ts";
import type { TurnCommit } from "../../store/store.ts";
import { cost, FACTORIES, newSession, turn } from "./_harness.ts";

for (const factory of FACTORIES) {
  const test = (name: string, fn: (t: Deno.TestContext) => Promise<void>) =>
    Deno.test(`${name} [${factory.name}]`, fn);

  test("create() returns an active record with ISO timestamps", async () => {
    await using s = await factory.open();
    const r = s.store.create(newSession());
    assert.equal(r.status, "active");
    assert.equal(r.agentSlug, "mini");
    assert.equal(r.modelId, "gpt-5.4-mini");
    assert.equal(r.title, undefined);
    assert.equal(r.totalCostMicrocents, 0);
    assert.equal(r.totalConservativeMicrocents, 0);
    assert.equal(r.createdAt, "2026-01-01T00:00:00.000Z");
    assert.deepEqual(r.context, newSession().context);
    assert.deepEqual(r.agentSnapshot, newSession().agentSnapshot);
    assert.deepEqual(s.store.load("s1")?.record, r);
  });

  test("commitTurn() writes one turn atomically", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.commitTurn(
      "s1",
      turn("read it", { rounds: 2, callsPerRound: 2, finalText: "done" }),
    );
    const loaded = s.store.load("s1");
    assert.ok(loaded);
    const m = loaded.messages;
    assert.deepEqual(m.map((x) => [x.sequenceNumber, x.role]), [
      [0, "user"],
      [1, "assistant"],
      [2, "tool"],
      [3, "assistant"],
      [4, "tool"],
      [5, "assistant"],
    ]);
    assert.deepEqual(m[0]?.content, [{ type: "text", text: "read it" }]);
    assert.equal(m[0]?.modelId, undefined);
    assert.deepEqual(m[1]?.content.map((p) => p.type === "tool_call" && p.id), [
      "session-tool:1:0",
      "session-tool:1:1",
    ]);
    assert.deepEqual(
      m[4]?.content.map((p) => p.type === "tool_result" && p.toolCallId),
      ["session-tool:1:2", "session-tool:1:3"],
    );
    assert.deepEqual(m[5]?.content, [{ type: "text", text: "done" }]);
    for (const i of [1, 3, 5]) assert.equal(m[i]?.modelId, "gpt-5.4-mini");
    assert.equal(loaded.record.totalInputTokens, 10);
    assert.equal(loaded.record.totalOutputTokens, 2);
    assert.equal(loaded.record.title, "read it");
    const state = reconstructSessionState(loaded.record, m);
    assert.equal(state.turnCount, 1);
  });

  test("commitTurn() accepts an empty final text", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.commitTurn("s1", turn("a", { finalText: "" }));
    s.store.commitTurn("s1", turn("b"));
    const loaded = s.store.load("s1");
    assert.ok(loaded);
    assert.deepEqual(loaded.messages.map((m) => m.sequenceNumber), [
      0,
      1,
      2,
      3,
    ]);
    const state = reconstructSessionState(loaded.record, loaded.messages);
    assert.deepEqual(state.completedTurnSpans, [{ start: 0, end: 1 }, {
      start: 1,
      end: 3,
    }]);
  });

  test("commitTurn() refuses a part with an extra args key and writes nothing", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    const bad = turn("x", { rounds: 1, costs: [cost("m", 5)] });
    const call = bad.rounds[0]?.calls[0];
    assert.ok(call);
    Object.assign(call, { args: { path: "secret.txt" } });
    assert.throws(
      () => s.store.commitTurn("s1", bad),
      (e) =>
        e instanceof SessionMessageBoundaryError &&
        e.code === "invalid_message" && !e.message.includes("secret") &&
        e.cause === undefined,
    );
    const loaded = s.store.load("s1");
    assert.deepEqual(loaded?.messages, []);
    assert.equal(loaded?.record.totalCostMicrocents, 0);
    assert.equal(loaded?.record.totalInputTokens, 0);
    assert.deepEqual(s.costs("s1"), []);
  });

  test("commitTurn() refuses results that do not answer the calls in order", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    const cases: Array<(t: TurnCommit) => void> = [
      (t) => t.rounds[0]?.results.reverse(),
      (t) => t.rounds[0]?.results.pop(),
      (t) => {
        const r = t.rounds[0];
        if (r) r.calls = [];
      },
    ];
    for (const mutate of cases) {
      const t = turn("x", { rounds: 1, callsPerRound: 2 });
      mutate(t);
      assert.throws(() => s.store.commitTurn("s1", t), {
        code: "invalid_message",
      });
    }
    assert.deepEqual(s.store.load("s1")?.messages, []);
  });

  test("commitTurn() refuses unknown and deleted sessions", async () => {
    await using s = await factory.open();
    assert.throws(
      () => s.store.commitTurn("nope", turn("x")),
      SessionNotFoundError,
    );
    s.store.create(newSession());
    assert.equal(s.store.softDelete("s1"), true);
    assert.throws(
      () => s.store.commitTurn("s1", turn("x")),
      SessionNotFoundError,
    );
    assert.throws(
      () => s.store.recordCosts("s1", [cost("m", 1)]),
      SessionNotFoundError,
    );
    assert.throws(() => s.store.allocateTurnKey("s1"), SessionNotFoundError);
    assert.throws(() => s.store.setStatus("s1", "ended"), SessionNotFoundError);
  });

  test("commitTurn() and recordCosts() keep per-model costs summing to the total", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.commitTurn(
      "s1",
      turn("a", { costs: [cost("gpt-5.4-mini", 100), cost("gpt-4o", 40)] }),
    );
    s.store.recordCosts("s1", [cost("gpt-4o", 7), cost("local", 0, false)]);
    s.store.recordCosts("s1", []);
    assert.deepEqual(s.costs("s1"), [
      { model: "gpt-4o", cost: 47, calls: 2, unpriced: 0 },
      { model: "gpt-5.4-mini", cost: 100, calls: 1, unpriced: 0 },
      { model: "local", cost: 0, calls: 1, unpriced: 1 },
    ]);
    const r = s.store.load("s1")?.record;
    assert.equal(r?.totalCostMicrocents, 147);
    assert.equal(r?.totalInputTokens, 10, "recordCosts adds no tokens");
    assert.equal(
      s.costs("s1").reduce((n, c) => n + c.cost, 0),
      r?.totalCostMicrocents,
    );
  });

  test("recordCosts() refuses an invalid entry and writes nothing", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    assert.throws(
      () => s.store.recordCosts("s1", [cost("m", 5), cost("", 1)]),
      RangeError,
    );
    assert.throws(() => s.store.recordCosts("s1", [cost("m", -1)]), RangeError);
    assert.deepEqual(s.costs("s1"), []);
  });

  test("commitTurn() derives the title from the first completed turn with text", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.commitTurn("s1", turn(" \n "));
    assert.equal(s.store.load("s1")?.record.title, undefined);
    s.store.commitTurn("s1", turn("  What   does\tthis do? ".repeat(3)));
    const title = s.store.load("s1")?.record.title;
    assert.equal(title, "What does this do? What does this do? W…");
    s.store.commitTurn("s1", turn("another"));
    assert.equal(s.store.load("s1")?.record.title, title);
  });

  test("allocateTurnKey() advances and never reuses a key", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    assert.equal(s.store.allocateTurnKey("s1"), 1);
    assert.equal(s.store.allocateTurnKey("s1"), 2);
    s.store.commitTurn("s1", turn("a", { turnKey: 2, rounds: 1 }));
    assert.equal(s.store.allocateTurnKey("s1"), 3);
  });

  test("allocateTurnKey() seeds from terminal rows and stored keys", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.commitTurn("s1", turn("a", { finalText: "" }));
    s.store.commitTurn("s1", turn("b", { rounds: 2 }));
    assert.equal(s.store.allocateTurnKey("s1"), 3, "two terminal rows");
    s.store.create(newSession("s2"));
    s.store.commitTurn("s2", turn("a", { turnKey: 9, rounds: 1 }));
    assert.equal(s.store.allocateTurnKey("s2"), 10, "largest stored key");
  });

  test("setStatus() and markExported() update the row", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.setStatus("s1", "ended");
    assert.equal(s.store.load("s1")?.record.status, "ended");
    assert.throws(() => s.store.markExported("s1", "relative.yaml"), TypeError);
    const before = s.store.load("s1")?.record.updatedAt;
    s.store.markExported("s1", "/abs/wf.relavium.yaml");
    const r = s.store.load("s1")?.record;
    assert.equal(r?.status, "exported");
    assert.equal(r?.updatedAt, before, "marking keeps updatedAt");
    assert.equal(r?.exportedWorkflowPath, "/abs/wf.relavium.yaml");
    s.store.commitTurn("s1", turn("a"));
    assert.equal(s.store.load("s1")?.record.status, "active");
  });

  test("a turn on another model makes it the session's listed model; a turn naming none keeps it", async () => {
    await using s = await factory.open();
    s.store.create(newSession());
    s.store.commitTurn("s1", { ...turn("one"), modelId: "claude-haiku-4-5" });
    assert.equal(s.store.load("s1")?.record.modelId, "claude-haiku-4-5");
    const { modelId: _, ...unnamed } = turn("two");
    s.store.commitTurn("s1", unnamed);
    assert.equal(s.store.list()[0]?.modelId, "claude-haiku-4-5");
  });

  test("softDelete() hides the session from list() and load()", async () => {
    await using s = await factory.open();
    s.store.create(newSession("a"));
    s.store.create(newSession("b"));
    assert.equal(s.store.softDelete("a"), true);
    assert.equal(s.store.softDelete("a"), false);
    assert.equal(s.store.softDelete("missing"), false);
    assert.equal(s.store.load("a"), undefined);
    assert.deepEqual(s.store.list().map((r) => r.id), ["b"]);
  });

  test("list() orders by updatedAt descending, then id descending", async () => {
    await using s = await factory.open();
    s.store.create(newSession("a"));
    s.store.create(newSession("b"));
    s.store.create(newSession("c"));
    s.store.commitTurn("a", turn("x"));
    assert.deepEqual(s.store.list().map((r) => r.id), ["a", "c", "b"]);
  });

  test("load() returns undefined for an unknown id", async () => {
    await using s = await factory.open();
    assert.equal(s.store.load("nope"), undefined);
    assert.deepEqual(s.store.list(), []);
  });

  test("create() refuses an invalid context", async () => {
    await using s = await factory.open();
    const bad = newSession();
    bad.context = { workingDir: "", fsScopeTier: "sandboxed" };
    assert.throws(() => s.store.create(bad), TypeError);
    assert.deepEqual(s.store.list(), []);
  });
}
