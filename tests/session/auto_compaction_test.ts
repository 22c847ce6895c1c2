import assert from "node:assert/strict";
import type { SessionEvent } from "../../schema/event.ts";
import { AGENT, harness } from "./_harness.ts";
import {
  estimateOf,
  FAILED_IN_TURN,
  filler,
  hang,
  interruptSummary,
  kinds,
  providerError,
  routedHarness,
  routedProvider,
  summaryReply,
  terminal,
  textOfMessage,
  until,
} from "./_ctx.ts";

function firstCompacted(events: SessionEvent[]) {
  const e = events.find((x) => x.type === "session:compacted");
  assert.ok(e?.type === "session:compacted", "a compaction happened");
  return e;
}

Deno.test("after-turn: the threshold trigger measures the next request", async () => {
  // Long replies, short questions: the after-turn measurement crosses the
  // threshold before any pre-send measurement does.
  const { h } = routedHarness({
    window: 10_000,
    defaultTurn: (_r, n) => summaryReply(filler(`reply ${n}`, 2000), 10, 2),
  }, { deps: { compactThreshold: 0.3 } });
  for (let i = 0; i < 7; i++) await h.session.sendMessage(`question ${i}`);
  const done = firstCompacted(h.events);
  assert.equal(done.reason, "auto-threshold");
  assert.ok(done.tokensBefore > 3000, "over threshold × window");
  assert.ok(done.tokensBefore + 4096 <= 10_000, "not the reservation trigger");
  const i = h.events.indexOf(done);
  assert.deepEqual(kinds(h.events.slice(i - 2, i + 1)), [
    "session:compacting",
    "cost:updated",
    "session:compacted",
  ]);
  const before = h.events[i - 3];
  assert.ok(before?.type === "session:turn_completed");
  assert.equal(before.stopReason, "stop", "the turn's outcome is unchanged");
});

Deno.test("after-turn: the reservation trigger uses the authored max_tokens", async () => {
  const { h } = routedHarness({ window: 10_000 }, {
    agent: { ...AGENT, max_tokens: 8000 },
    deps: { compactThreshold: 1 },
  });
  for (let i = 0; i < 5; i++) {
    await h.session.sendMessage(filler(`m${i}`, 2000));
  }
  const done = firstCompacted(h.events);
  assert.ok(done.tokensBefore > 2000 && done.tokensBefore <= 10_000);
});

Deno.test("billed usage never triggers a compaction", async () => {
  const { p, h } = routedHarness({
    window: 10_000,
    defaultTurn: (_r, n) => summaryReply(`reply ${n}`, 999_999, 999_999),
  });
  for (let i = 0; i < 5; i++) await h.session.sendMessage(`short ${i}`);
  assert.ok(!h.types().some((t) => t.startsWith("session:compact")));
  assert.equal(p.summaries.length, 0);
});

/**
 * Two 3,000-token turns, a small one, then a 250-token pending message,
 * awaited unless `run` is false (then `turn` is still running).
 */
async function preSendSession(
  options: Parameters<typeof routedProvider>[0] = {},
  deps: Parameters<typeof harness>[0]["deps"] = {},
  third = "small",
  run = true,
) {
  const { p, h } = routedHarness({ window: 10_000, ...options }, {
    deps: { afterTurnCompaction: false, ...deps },
  });
  await h.session.sendMessage(filler("one", 12_000));
  await h.session.sendMessage(filler("two", 12_000));
  await h.session.sendMessage(third);
  const start = h.events.length;
  const turn = h.session.sendMessage(filler("pending", 1000));
  if (run) await turn;
  return { p, h, start, turn };
}

Deno.test("pre-send: a measured trigger compacts inside the turn, then sends the compacted request", async () => {
  const { p, h, start } = await preSendSession();
  assert.deepEqual(kinds(h.events, start), [
    "session:turn_started",
    "session:compacting",
    "cost:updated",
    "cost:updated",
    "session:compacted",
    "cost:updated",
    "session:turn_completed",
  ]);
  const done = firstCompacted(h.events);
  assert.equal(done.reason, "pre-send");
  assert.equal(done.keptMessageCount, 3, "kept exchange + pending user");
  assert.equal(done.keptTurnCount, 1);
  const req = p.turns[3];
  assert.equal(req?.messages.length, 3);
  assert.match(textOfMessage(req, 0), /summary 2/);
  assert.ok(textOfMessage(req, 0).endsWith("small"));
  assert.equal(textOfMessage(req, 1), "reply 3");
  assert.equal(textOfMessage(req, 2), filler("pending", 1000));
  assert.ok(estimateOf(req) + 4096 <= 10_000);
  assert.equal(h.session.turnCount, 4);
});

Deno.test("pre-send: a failed compaction sends the original request", async () => {
  const { p, h, start } = await preSendSession({
    summaries: [providerError("bad_request")],
  });
  assert.deepEqual(kinds(h.events, start), [
    "session:turn_started",
    "session:compacting",
    "session:compaction_failed",
    "cost:updated",
    "session:turn_completed",
  ]);
  assert.ok(textOfMessage(p.turns[3], 0).startsWith("one"));
  assert.equal(h.session.transcript.summary, undefined);
});

Deno.test("pre-send: after a failed compaction an overflow is not recovered", async () => {
  const { p, h } = await preSendSession({
    summaries: [providerError("bad_request")],
    turns: [
      summaryReply("reply 1", 10, 2),
      summaryReply("reply 2", 10, 2),
      summaryReply("reply 3", 10, 2),
      providerError("context_overflow"),
    ],
  });
  const last = terminal(h.events);
  assert.equal(last.error?.code, "context_overflow");
  assert.equal(p.summaries.length, 1, "no recovery compaction");
  assert.equal(p.turns.length, 4, "no retry");
});

Deno.test("pre-send: skipped when the floor cannot fit; no recovery either", async () => {
  const { p, h, start } = await preSendSession(
    {
      turns: [
        summaryReply("reply 1", 10, 2),
        summaryReply("reply 2", 10, 2),
        summaryReply("reply 3", 10, 2),
        providerError("context_overflow"),
      ],
    },
    {},
    filler("three", 16_000),
  );
  assert.deepEqual(kinds(h.events, start), [
    "session:turn_started",
    "session:turn_completed",
  ]);
  assert.ok(textOfMessage(p.turns[3], 0).startsWith("one"));
  assert.equal(p.summaries.length, 0);
});

Deno.test("automatic compaction is skipped without an authoritative window", async (t) => {
  const cases: Array<[string, Parameters<typeof routedProvider>[0]]> = [
    ["unknown window", { window: undefined }],
    ["custom endpoint", { customEndpoint: true }],
    ["self-managing provider", { managesOwnContext: true }],
  ];
  for (const [name, options] of cases) {
    await t.step(name, async () => {
      const { p, h } = await preSendSession(options, {
        afterTurnCompaction: true,
      });
      assert.equal(p.summaries.length, 0);
      assert.ok(!h.types().some((x) => x.startsWith("session:compact")));
      assert.ok(textOfMessage(p.turns[3], 0).startsWith("one"));
    });
  }
});

Deno.test("autoCompact: false stops automatic work for an omitted memory, not for memory: summary", async () => {
  const off = await preSendSession({}, { autoCompact: false });
  assert.equal(off.p.summaries.length, 0);
  const { h } = routedHarness({ window: 10_000 }, {
    agent: { ...AGENT, memory: { type: "summary" } },
    deps: { autoCompact: false },
  });
  await h.session.sendMessage(filler("one", 12_000));
  await h.session.sendMessage(filler("two", 12_000));
  assert.equal(firstCompacted(h.events).reason, "auto-threshold");
});

Deno.test("afterTurnCompaction: false skips only the after-turn trigger", async () => {
  const { h } = await preSendSession();
  assert.ok(
    !h.events.some((e) =>
      e.type === "session:compacting" && e.reason === "auto-threshold"
    ),
  );
  assert.equal(firstCompacted(h.events).reason, "pre-send");
});

Deno.test("after-turn: an ordinary failure falls back to a trim to maxMessages", async () => {
  const { h } = routedHarness({
    window: 10_000,
    summaries: [providerError("bad_request")],
  }, { deps: { maxMessages: 2 } });
  await h.session.sendMessage(filler("one", 12_000));
  const start = h.events.length;
  await h.session.sendMessage(filler("two", 12_000));
  assert.deepEqual(kinds(h.events, start), [
    "session:turn_started",
    "cost:updated",
    "session:turn_completed",
    "session:compacting",
    "session:compaction_failed",
    "session:trimmed",
  ]);
  const trimmed = h.events.at(-1);
  assert.ok(trimmed?.type === "session:trimmed");
  assert.deepEqual(
    {
      reason: trimmed.reason,
      kept: trimmed.keptMessageCount,
      dropped: trimmed.droppedMessageCount,
      turns: trimmed.keptTurnCount,
    },
    { reason: "auto-fallback", kept: 2, dropped: 2, turns: 1 },
  );
  assert.equal(h.session.transcript.messages.length, 2);
  assert.equal(h.session.state, "idle");
});

Deno.test("after-turn: Esc ends the compaction without a trim and keeps the reply", async () => {
  const { p, h } = routedHarness({ window: 10_000, summaries: [hang] }, {
    deps: { maxMessages: 2 },
  });
  await h.session.sendMessage(filler("one", 12_000));
  const turn = h.session.sendMessage(filler("two", 12_000));
  await until(() => p.summaries.length === 1);
  assert.equal(h.session.state, "running");
  h.session.abort();
  await turn;
  assert.equal(h.types().at(-1), "session:compaction_failed");
  assert.ok(!h.types().includes("session:trimmed"));
  assert.equal(h.session.state, "idle");
  assert.equal(h.session.transcript.messages.length, 4);
  const done = h.events.filter((e) => e.type === "session:turn_completed");
  assert.ok(
    done.every((e) =>
      e.type === "session:turn_completed" && e.stopReason === "stop"
    ),
  );
});

Deno.test("after-turn: cancel during the compaction emits only session:cancelled", async () => {
  const { p, h } = routedHarness({ window: 10_000, summaries: [hang] }, {
    deps: { maxMessages: 2 },
  });
  await h.session.sendMessage(filler("one", 12_000));
  const turn = h.session.sendMessage(filler("two", 12_000));
  await interruptSummary(p, h, turn, "cancel");
  assert.deepEqual(h.types().slice(-2), [
    "session:compacting",
    "session:cancelled",
  ]);
  assert.equal(h.session.transcript.messages.length, 4, "nothing installed");
});

Deno.test("a 60-turn session on a small window runs to the end; every request keeps the latest exchange and the pending message verbatim", async () => {
  const WINDOW = 12_000;
  const userText = (n: number) => filler(`user ${n}:`, 1200);
  const replyText = (n: number) => filler(`reply ${n}:`, 1200);
  const { p, h } = routedHarness({
    window: WINDOW,
    defaultTurn: (_r, n) => summaryReply(replyText(n), 3000, 300),
    defaultSummary: (_r, n) =>
      summaryReply(filler(`summary ${n}:`, 400), 7000, 100),
  }, { deps: { maxTurns: 100 } });
  for (let n = 1; n <= 60; n++) await h.session.sendMessage(userText(n));
  assert.equal(h.session.turnCount, 60);
  const terminals = h.events.filter((e) => e.type === "session:turn_completed");
  assert.equal(terminals.length, 60);
  assert.ok(
    terminals.every((e) =>
      e.type === "session:turn_completed" && e.stopReason === "stop"
    ),
  );
  const compactions = h.events.filter((e) => e.type === "session:compacted");
  assert.ok(compactions.length >= 3, `compacted ${compactions.length} times`);
  assert.equal(p.turns.length, 60);
  p.turns.forEach((req, i) => {
    const n = i + 1;
    assert.ok(estimateOf(req) + 4096 <= WINDOW, `request ${n} fits`);
    const last = req.messages.at(-1);
    assert.equal(last?.role, "user");
    assert.deepEqual(last?.content, [{ type: "text", text: userText(n) }]);
    if (n === 1) return;
    const prevReply = req.messages.at(-2);
    assert.equal(prevReply?.role, "assistant");
    assert.deepEqual(prevReply?.content, [{
      type: "text",
      text: replyText(n - 1),
    }]);
    const prevUser = req.messages.at(-3);
    assert.equal(prevUser?.role, "user");
    assert.deepEqual(prevUser?.content.at(-1), {
      type: "text",
      text: userText(n - 1),
    });
  });
});

Deno.test("pre-send: Esc during the compaction ends the turn aborted with nothing sent", async () => {
  const { p, h, start, turn } = await preSendSession(
    { summaries: [hang] },
    {},
    "small",
    false,
  );
  await interruptSummary(p, h, turn, "abort");
  assert.deepEqual(kinds(h.events, start), FAILED_IN_TURN);
  const done = terminal(h.events);
  assert.equal(done.stopReason, "aborted");
  assert.deepEqual(done.tokensUsed, { input: 0, output: 0 });
  assert.equal(p.turns.length, 3, "nothing sent");
  assert.equal(h.session.turnCount, 3, "no slot: nothing engaged");
  assert.equal(h.session.transcript.messages.length, 6, "nothing installed");
});

Deno.test("pre-send: cancel during the compaction emits only session:cancelled", async () => {
  const { p, h, turn } = await preSendSession(
    { summaries: [hang] },
    {},
    "small",
    false,
  );
  await interruptSummary(p, h, turn, "cancel");
  assert.deepEqual(kinds(h.events).slice(-3), [
    "session:turn_started",
    "session:compacting",
    "session:cancelled",
  ]);
  assert.equal(p.turns.length, 3);
});

Deno.test("pre-send: a throwing observer ends the turn internal, nothing sent", async () => {
  const { p, h, start } = await preSendSession({}, {
    onCompactionStart: () => Promise.reject(new Error("observer down")),
  });
  assert.deepEqual(kinds(h.events, start), FAILED_IN_TURN);
  const done = terminal(h.events);
  assert.equal(done.error?.code, "internal");
  assert.equal(p.turns.length, 3);
  assert.equal(p.summaries.length, 0);
});

Deno.test("flushBudgetCommitments is awaited before the terminal; a rejection ends the turn internal", async () => {
  const order: string[] = [];
  const p = routedProvider({ window: 100_000 });
  let fail = false;
  const h = harness({
    script: [],
    provider: p,
    deps: {
      flushBudgetCommitments: async () => {
        await Promise.resolve();
        order.push("flush");
        if (fail) throw new Error("flush failed");
      },
    },
    onEvent: (e) => {
      if (e.type === "session:turn_completed") order.push("terminal");
    },
  });
  await h.session.sendMessage("one");
  assert.deepEqual(order, ["flush", "terminal"]);
  assert.equal(h.session.transcript.messages.length, 2);
  fail = true;
  await h.session.sendMessage("two");
  const done = terminal(h.events);
  assert.equal(done.error?.code, "internal");
  assert.equal(h.session.transcript.messages.length, 2, "reply not installed");
  assert.equal(h.session.turnCount, 2, "the engaged turn still counts");
});
